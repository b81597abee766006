"""Which device each framework runs on, seeding, and the framework versions we need."""

from __future__ import annotations

import importlib.metadata
import logging
import random

import numpy as np

#: Versions the site is built with: the pins of pyproject.toml's extras (a test checks).
REQUIRED = {"torch": "2.15.0", "tensorflow": "2.21.0"}
#: (lowest, first too new) major.minor the helpers accept: pyproject.toml's ranges.
SUPPORTED = {"torch": ((2, 13), (3, 0)), "tensorflow": ((2, 21), (3, 0))}
_DISTRIBUTIONS = {"torch": ("torch",), "tensorflow": ("tensorflow", "tensorflow-cpu")}


class FrameworkError(RuntimeError):
    """A framework is missing or has the wrong version."""


def _installed_version(module: str) -> str | None:
    for dist in _DISTRIBUTIONS[module]:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def require_frameworks(exact: bool = True) -> None:
    """Raise a short, actionable error if torch or TensorFlow is missing or another version:
    not the site's (``exact``, the build) or outside the helpers' range (a reader's own)."""
    problems = []
    for module, wanted in REQUIRED.items():
        found = _installed_version(module)
        lowest, too_new = SUPPORTED[module]
        if found is None:
            problems.append(f"{module}=={wanted} is required, found nothing")
        elif exact and found.split("+")[0] != wanted:
            problems.append(f"{module}=={wanted} is required, found {found}")
        elif not exact and not lowest <= _major_minor(found) < too_new:
            span = f">={lowest[0]}.{lowest[1]},<{too_new[0]}"
            problems.append(f"{module}{span} is required, found {found}")
    if problems:
        from sidebyside import INSTALL_LINE

        raise FrameworkError(
            "; ".join(problems)
            + f". Fix: `{INSTALL_LINE}` (`[cuda]` instead of `[cpu]` on an NVIDIA GPU machine);"
            " in a clone of the repository, `make html` sets up .venv with the pinned versions."
        )


def report_versions() -> None:
    """Print the framework versions the site was built with, and those installed here."""
    built = " and ".join(f"{name} {version}" for name, version in REQUIRED.items())
    here = {name: _installed_version(name) or "missing" for name in REQUIRED}
    print(f"This page was built with {built}.")
    if any(here[name].split("+")[0] != version for name, version in REQUIRED.items()):
        found = " and ".join(f"{name} {version}" for name, version in here.items())
        print(f"Here: {found}; an output may differ from the page's.")


def _not_the_no_cuda_note(record) -> bool:
    return not record.getMessage().startswith("No CUDA runtime is found")


def torch_device() -> str:
    """``"cuda"`` when PyTorch sees a GPU, else ``"cpu"``.

    Without a GPU, it also keeps torch's "No CUDA runtime is found, using CUDA_HOME=…" note off
    the page: PyPI's Linux torch is the CUDA build, and its C++ extension loader logs that note
    when ``torch.compile`` first compiles C++ on a machine without one (every other record of
    that logger passes).

    Also turns off TF32 in cuDNN (``torch.backends.cudnn.allow_tf32``): PyTorch's default on
    Ampere and newer GPUs runs float32 convolutions and RNNs in TF32 (10-bit mantissa), while
    its matmuls stay IEEE float32. With ``tf_device()``, which turns TensorFlow's TF32 off, both
    frameworks compute in IEEE float32 everywhere. (On a CPU the setting changes nothing.)
    """
    import torch

    torch.backends.cudnn.allow_tf32 = False
    if not torch.cuda.is_available():
        logging.getLogger("torch.utils.cpp_extension").addFilter(_not_the_no_cuda_note)
    return "cuda" if torch.cuda.is_available() else "cpu"


def tf_device() -> str:
    """``"/GPU:0"`` when TensorFlow sees a GPU, else ``"/CPU:0"``.

    Also turns on GPU memory growth, so TensorFlow does not grab the whole card and PyTorch can
    share it, and turns off TF32 (TensorFlow's default on Ampere and newer GPUs, for matmuls and
    convolutions alike): with ``torch_device()``, both frameworks compute in IEEE float32.
    """
    import tensorflow as tf

    tf.config.experimental.enable_tensor_float_32_execution(False)

    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:  # already initialised by an earlier example: growth was set then
            pass
    return "/GPU:0" if gpus else "/CPU:0"


def tf_onednn_enabled() -> bool:
    """Whether TensorFlow's oneDNN custom operations are on in this process.

    They change which CPU kernels run (and so round-off, and whether the CPU allocator keeps
    statistics). TensorFlow turns them on by itself on x86 CPUs with AVX512_VNNI, AVX512_BF16
    or AMX; ``TF_ENABLE_ONEDNN_OPTS=0`` or ``=1``, set before TensorFlow is imported, decides.
    """
    from tensorflow.python.util import _pywrap_util_port  # the flag TensorFlow itself reads

    return bool(_pywrap_util_port.IsMklEnabled())


def start_lesson(seed: int = 0) -> None:
    """What a lesson does first, wherever it runs (the site's build, a download, a benchmark):
    seed every random generator with ``seed`` and start the lesson's parity log afresh."""
    from sidebyside.parity import parity_log

    seed_everything(seed)
    parity_log.clear()


def seed_everything(seed: int = 0) -> None:
    """Seed Python, NumPy, PyTorch and TensorFlow (those already imported) with one number.

    The process's environment is left alone (``PYTHONHASHSEED`` set here would change only the
    child processes a page starts, and undo a hash seed their caller chose)."""
    import sys

    random.seed(seed)
    np.random.seed(seed)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
    if "tensorflow" in sys.modules:
        sys.modules["tensorflow"].random.set_seed(seed)
