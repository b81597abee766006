"""What produced a page's outputs: machine, accelerator, framework versions, time."""

from __future__ import annotations

import datetime
import os
import platform
import re
from dataclasses import dataclass

from sidebyside.show import hidden, marked, prose


def cpu_model() -> str:
    """The CPU's marketing name, read from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass(frozen=True)
class Provenance:
    """One row per fact; displays as an HTML table in the gallery and as text elsewhere."""

    facts: tuple[tuple[str, str], ...]

    def __repr__(self) -> str:
        return "\n".join(f"{key}: {value}" for key, value in self.facts)

    def _repr_html_(self) -> str:
        """A folded table; its prose (the keys, and the fixed words among the values) marked
        ``sbs-t`` for a translated page, the data (names, versions, numbers) as it is."""
        rows = "".join(
            f"<tr><th>{prose(key)}</th><td>{marked(value, PROSE_IN_VALUES)}</td></tr>" for key, value in self.facts
        )
        return (
            f'<details class="sbs-provenance"><summary>{prose("What ran this page")}</summary>'
            f"<table>{rows}</table>{hidden(PROSE_IN_VALUES)}</details>"
        )


#: The fixed words of the values (every other part of a value is data: names, numbers).
PROSE_IN_VALUES = (
    "none: everything on this page ran on the CPU",
    "(used by PyTorch and TensorFlow)",
    "(TensorFlow's default here)",
    "logical cores",
    "not built in",
    "kernels",
    "no oneDNN",
    "unknown",
    "on",
    "off",
)


def math_libraries() -> str:
    """Which libraries do PyTorch's CPU arithmetic: its BLAS (float32 matrix products; its
    version where the build says), whether oneDNN is built in, and the CPU kernels it picked.
    (TensorFlow's side is the oneDNN row of :func:`provenance`.)"""
    import torch

    config = torch.__config__.show()
    blas = re.search(r"BLAS_INFO=(\w+)", config)
    mkl = re.search(r"Math Kernel Library Version ([\d.]+)", config)
    blas_name = blas.group(1) if blas else "unknown"
    if blas_name == "mkl" and mkl:
        blas_name = f"oneMKL {mkl.group(1)}"
    onednn = "oneDNN" if torch.backends.mkldnn.is_available() else "no oneDNN"
    capability = torch.backends.cpu.get_cpu_capability()
    return f"BLAS {blas_name}, {onednn}, {capability} kernels"


def provenance(*, math: bool = False) -> Provenance:
    """Collect the facts: CPU model and cores, GPU (or none), Python/torch/TF/CUDA versions,
    whether TensorFlow's oneDNN CPU kernels are on, PyTorch's thread count, date; with ``math``,
    also the CPU math libraries (:func:`math_libraries`)."""
    from sidebyside.device import tf_onednn_enabled

    import tensorflow as tf
    import torch

    if torch.cuda.is_available():
        gpu = f"{torch.cuda.get_device_name(0)} (used by PyTorch and TensorFlow)"
    else:
        gpu = "none: everything on this page ran on the CPU"
    tf_build = tf.sysconfig.get_build_info()
    onednn = "on" if tf_onednn_enabled() else "off"
    setting = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    onednn += f" (TF_ENABLE_ONEDNN_OPTS={setting})" if setting else " (TensorFlow's default here)"
    facts = (
        ("CPU", f"{cpu_model()}, {os.cpu_count()} logical cores"),
        ("GPU", gpu),
        ("Python", platform.python_version()),
        ("PyTorch", f"{torch.__version__} (CUDA {torch.version.cuda or 'not built in'})"),
        (
            "TensorFlow",
            f"{tf.__version__} (CUDA {tf_build.get('cuda_version') or 'not built in'})",
        ),
        ("TensorFlow's oneDNN CPU ops", onednn),
        ("PyTorch threads", str(torch.get_num_threads())),
        *((("PyTorch CPU math", math_libraries()),) if math else ()),
        ("Ran at", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
    )
    return Provenance(facts)
