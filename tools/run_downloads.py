"""Run downloaded examples as a reader does, and say which failed.

Each script runs with ``python plot_x.py``, each notebook top to bottom in a Jupyter kernel
(nbclient), every one in a process of its own, from a folder outside the repository. ::

    python tools/run_downloads.py FOLDER [--notebooks all|none] [--jobs N]

runs every ``plot_*.py`` and ``plot_*.ipynb`` under FOLDER with this Python (the reader's: the
site's install line, plus ``ipykernel`` and ``nbclient`` for the notebooks), prints one line per
download and each failure's last lines, and exits 1 if any failed. ``readers.yml`` runs it on
Linux, macOS and Windows; ``tests/test_reader.py`` and ``tools/matrix.py`` call ``run_all``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

NOTEBOOK_RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
notebook = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(notebook, timeout=600, kernel_name="python3").execute(cwd=".")
nbformat.write(notebook, sys.argv[1])  # the copy keeps its outputs, to be read
"""


def run_one(
    download: Path, python: str, folder: Path, env: dict | None = None, nice: int = 0
) -> dict:
    """Run one download from ``folder`` (a copy of it there): its exit code, output, time.
    ``nice`` > 0 runs it at a lower priority (POSIX ``nice``), behind other work on the machine."""
    local = Path(shutil.copy(download, folder / download.name))
    if download.suffix == ".ipynb":
        command = [python, "-c", NOTEBOOK_RUNNER, str(local)]
    else:
        command = [python, str(local)]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    # A terminal takes any character (on Windows too, where a pipe would be cp1252): so does this.
    env = {**(os.environ if env is None else env), "PYTHONIOENCODING": "utf-8"}
    start = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    return {
        "name": download.name,
        "returncode": result.returncode,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "seconds": round(time.perf_counter() - start, 1),
    }


def index_only(env: dict) -> dict:
    """``env`` with pip taking packages from PyPI alone, as on a reader's machine.

    A machine's pip configuration can name local wheel folders (here: a CPU-only torch that PyPI
    does not have) and a constraints file. PIP_CONFIG_FILE=os.devnull makes pip read no
    configuration file at all, and every PIP_* variable goes: a reader gets PyPI's torch (on
    Linux the CUDA build, with triton) as the install line is stated.
    """
    return {k: v for k, v in env.items() if not k.startswith("PIP_")} | {
        "PIP_CONFIG_FILE": os.devnull
    }


def notebooks_to_run(scripts: list[Path]) -> list[Path]:
    """The scripts whose notebook a reader's test runs in a kernel: each one whose code asks
    whether it runs under IPython (so it takes another path there), or the first example's if
    none does. The first of them also proves the install cell, which every notebook opens with.
    Every other notebook holds its script's code, block for block, and the site's build executes
    those blocks one by one as a kernel does."""
    asks = [s for s in scripts if "get_ipython" in s.read_text(encoding="utf-8")]
    return asks or scripts[:1]


def run_all(
    downloads: list[Path], python: str, folder: Path, env: dict | None = None, jobs: int = 0
) -> list[dict]:
    """Run ``downloads`` (in this order, ``jobs`` at a time): run_one's result for each."""
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        return list(pool.map(lambda path: run_one(path, python, folder, env), downloads))


def failures(results: list[dict]) -> str:
    """Each failed run's name, exit code and the end of what it wrote to standard error."""
    return "\n\n".join(
        f"{r['name']} failed (exit {r['returncode']}):\n{r['stderr'][-3000:]}"
        for r in results
        if r["returncode"] != 0
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder holding the downloads")
    parser.add_argument("--notebooks", choices=("all", "none"), default="all")
    parser.add_argument("--jobs", type=int, default=0, help="runs at a time (default: cores)")
    args = parser.parse_args()
    patterns = ["plot_*.py"] + (["plot_*.ipynb"] if args.notebooks == "all" else [])
    downloads = sorted(p for pattern in patterns for p in args.folder.rglob(pattern))
    if not downloads:
        print(f"No plot_*.py or plot_*.ipynb under {args.folder}")
        return 1
    with tempfile.TemporaryDirectory(prefix="reader-") as folder:
        results = run_all(downloads, sys.executable, Path(folder), jobs=args.jobs)
    for r in results:
        print(f"{'ok  ' if r['returncode'] == 0 else 'FAIL'} {r['seconds']:6.1f} s  {r['name']}")
    failed = sum(r["returncode"] != 0 for r in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    if failed:
        print(failures(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
