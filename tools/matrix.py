"""`make matrix`: every example under the variations a reader's machine brings.

Each variant runs every gallery script as a reader downloads it (its source plus the install
header), each in a process of its own (tools/run_downloads.py), two at a time. Variants:
TensorFlow's oneDNN ops off and on, one and two threads for both frameworks, a random
PYTHONHASHSEED, a working folder whose path holds a space and Chinese characters, a Chinese
locale, and packages from PyPI alone (``.venv-index``: PyPI's CUDA torch with triton). The
reference is the reader's default environment, with this repository's ``.venv``.

A finding is a run that fails, or a script whose output differs from the reference's once the
lines that name the machine (the provenance box), what a page shows as this machine's behaviour
under a line "On this machine (condition):", and measured times are set aside. Findings
are printed and written with the wall time to docs/_build/matrix.json; any finding exits 1.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import run_downloads

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sidebyside.show import without_varying_blocks  # noqa: E402

from sphinx_extensions.downloads import with_install_header  # noqa: E402

# Settings the Makefile exports for the site's build, which a reader's shell does not have.
BUILD_ONLY = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "PYTHONHASHSEED")
THREADS = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS")
VARIANTS = {
    "oneDNN off": {"TF_ENABLE_ONEDNN_OPTS": "0"},
    "oneDNN on": {"TF_ENABLE_ONEDNN_OPTS": "1"},
    "1 thread": dict.fromkeys(THREADS, "1"),
    "2 threads": dict.fromkeys(THREADS, "2"),
    "random hash seed": {"PYTHONHASHSEED": str(random.randrange(1, 2**32))},
    "Chinese locale": {"LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8"},
    "folder with a space and 中文": {},
    "index-only install": {},
}
# Lines that say what ran (the provenance box, printed as "key: value") differ by design.
MACHINE_LINE = re.compile(
    r"^(CPU|GPU|Python|PyTorch|TensorFlow|TensorFlow's oneDNN CPU ops|PyTorch threads|Ran at): "
)
NUMBER = re.compile(r"\d")
# Pages that print what they measure (times, speeds): their numbers differ from run to run.
MEASURED = ("benchmark", "padding_cost")


def comparable(name: str, stdout: str) -> list[str]:
    """The output's lines without the provenance box and without what a page shows as this
    machine's or this release's (a line "On this machine (condition):" or "On this version
    (torch 2.15):" and the indented lines under it); on a measuring page, the lines without a
    number (timings, and whether a row was noisy)."""
    lines = [line for line in without_varying_blocks(stdout) if not MACHINE_LINE.match(line)]
    if any(word in name for word in MEASURED):
        lines = [line for line in lines if not NUMBER.search(line)]
    return lines


def main() -> int:
    start = time.perf_counter()
    scripts = sorted((ROOT / "gallery").rglob("plot_*.py"))
    base = {k: v for k, v in os.environ.items() if k not in BUILD_ONLY}
    base |= {"TF_CPP_MIN_LOG_LEVEL": "2", "MPLBACKEND": "Agg"}
    index_python = ROOT / ".venv-index" / "bin" / "python"
    runs = {}  # variant: (python, folder, env)
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        for variant, settings in {"reference": {}, **VARIANTS}.items():
            folder = Path(tmp, variant if "中文" in variant else variant.replace(" ", "-"))
            folder.mkdir()
            python = index_python if variant == "index-only install" else Path(sys.executable)
            runs[variant] = (str(python), folder, base | settings)
        downloads = Path(tmp, "downloads")
        downloads.mkdir()
        for script in scripts:
            source = script.read_text(encoding="utf-8")
            (downloads / script.name).write_text(with_install_header(source), encoding="utf-8")
        jobs = [(variant, downloads / script.name) for variant in runs for script in scripts]
        print(f"{len(jobs)} runs: {len(scripts)} examples x {len(runs)} variants", flush=True)

        def one(job):
            variant, download = job
            python, folder, env = runs[variant]
            result = run_downloads.run_one(download, python, folder, env)
            status = "ok  " if result["returncode"] == 0 else "FAIL"
            print(f"{status} {result['seconds']:6.1f} s  {variant}: {download.name}", flush=True)
            return variant, result

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(one, jobs))

    reference = {r["name"]: r for variant, r in results if variant == "reference"}
    findings = []
    for variant, result in results:
        name = result["name"]
        if result["returncode"] != 0:
            findings.append(
                f"{variant}: {name} failed (exit {result['returncode']}):\n"
                + result["stderr"][-2000:]
            )
        elif variant != "reference" and reference[name]["returncode"] == 0:
            ours, theirs = (comparable(name, r["stdout"]) for r in (result, reference[name]))
            if ours != theirs:
                diff = difflib.unified_diff(theirs, ours, "reference", variant, n=0, lineterm="")
                findings.append(f"{variant}: {name} printed otherwise:\n" + "\n".join(diff))
    wall = time.perf_counter() - start
    report = {
        "wall_seconds": round(wall, 1),
        "variants": {v: {k: e[k] for k in VARIANTS.get(v, {})} for v, (_, _, e) in runs.items()},
        "runs": len(results),
        "findings": findings,
    }
    out = ROOT / "docs" / "_build" / "matrix.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print("\n\n".join(findings) or "No findings: every variant ran every example alike.")
    print(f"{len(results)} runs in {wall:.0f} s, {len(findings)} findings ({out})")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
