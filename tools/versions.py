"""`make versions`: every download under both ends of the range the package declares.

The package accepts ``torch>=2.13,<3`` (``sidebyside.device.SUPPORTED``, pyproject.toml's
dependencies) and the site is built with the pins of its extras. A reader with their own torch
(Colab, an older environment) gets any version in that range, so both ends are tested: for
each end, a new virtual environment with packages from PyPI alone (no local wheel folders or
constraints) gets the package's wheel without extras, torch and TensorFlow of that end, and a
Jupyter kernel; then every downloaded script runs, and the notebooks that the reader test runs
in a kernel. The ends:

* ``lowest``: the newest patch release of the lowest minor accepted (``torch==2.13.*``), and of
  TensorFlow's lowest minor;
* ``newest``: the newest release on the index below the upper bound (``torch<3``).

Each output is compared with the same download run under the pinned versions, in a third new
environment made by the site's install line (so a notebook's own ``%pip install`` changes only
environments made for the purpose), setting aside what a page shows as this machine's or this version's
("On this machine (…):" / "On this version (…):" blocks), the provenance box and, on the
measuring pages, the numbers. A failure or another difference is a finding: printed, written
with the versions each end got to docs/_build/versions.json, and the command exits 1.

``--prerelease`` (the weekly workflow, versions.yml) has one end instead: the newest releases,
pre-releases included (``pip install --pre``), with which it also builds the English site; the
findings are listed per page in a Markdown report (docs/_build/versions.md, the job's summary). ::

    python tools/versions.py DOWNLOADS [--prerelease]    # DOWNLOADS: `make downloads`' folder
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matrix
import run_downloads

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from sidebyside.device import SUPPORTED  # noqa: E402

# pip's distribution of each module on Linux and Windows (macOS: "tensorflow")
DISTRIBUTIONS = {"torch": "torch", "tensorflow": "tensorflow-cpu"}
READER_TOOLS = ("ipykernel==7.4.0", "nbclient==0.11.0")  # a reader's Jupyter


def ends(supported: dict = SUPPORTED) -> dict[str, list[str]]:
    """The two ends of the declared range, as pip requirements per end."""
    lowest, newest = [], []
    for module, ((low_major, low_minor), (high_major, high_minor)) in supported.items():
        dist = DISTRIBUTIONS[module]
        lowest.append(f"{dist}=={low_major}.{low_minor}.*")
        newest.append(f"{dist}<{high_major}.{high_minor}")
    return {"lowest": lowest, "newest": newest}


# PyTorch publishes its release candidates on its own "test" index, TensorFlow on PyPI.
TORCH_CANDIDATES = "https://download.pytorch.org/whl/test/cpu"
PRERELEASE = {"prerelease": ["--pre", "--extra-index-url", TORCH_CANDIDATES, "torch<3",
                             "tensorflow-cpu<3"]}


def make_environment(where: Path, requirements: list[str], wheel: Path) -> tuple[str, dict]:
    """A new venv at ``where`` holding the wheel and ``requirements``, from PyPI alone."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = str(where / "bin" / "python")
    env = run_downloads.index_only(os.environ) | {"MPLBACKEND": "Agg"}
    env["PIP_FIND_LINKS"] = str(wheel.parent)  # a notebook's first cell finds the package there
    for variable in matrix.BUILD_ONLY:
        env.pop(variable, None)
    install = [python, "-m", "pip", "install", "-q", *requirements, *READER_TOOLS]
    if not any(str(wheel) in r for r in requirements):
        install.insert(5, str(wheel))
    result = subprocess.run(install, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(requirements)}: install failed\n{result.stderr[-3000:]}")
    return python, env


def installed(python: str, env: dict) -> dict[str, str]:
    code = "import importlib.metadata as m; print(m.version('torch'), m.version('tensorflow-cpu'))"
    out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
    torch_version, tf_version = out.stdout.split()
    return {"torch": torch_version, "tensorflow": tf_version}


def compare(reference: list[dict], results: list[dict], end: str) -> list[str]:
    """Findings: failed runs, and outputs that differ outside the blocks a page sets apart."""
    by_name = {r["name"]: r for r in reference}
    findings = []
    for result in results:
        name = result["name"]
        if result["returncode"] != 0:
            findings.append(f"{end}: {name} failed (exit {result['returncode']}):\n"
                            + result["stderr"][-2000:])
        elif by_name[name]["returncode"] == 0 and not name.endswith(".ipynb"):
            ours, theirs = (matrix.comparable(name, r["stdout"]) for r in (result, by_name[name]))
            if ours != theirs:
                diff = difflib.unified_diff(theirs, ours, "pinned", end, n=0, lineterm="")
                findings.append(f"{end}: {name} printed otherwise:\n" + "\n".join(diff))
    return findings


def build_site(python: str, env: dict, out: Path) -> str:
    """Build the English site with ``python``'s frameworks: "" if it built, else its errors."""
    env = env | {"SIDEBYSIDE_ANY_VERSION": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}
    command = [python, "-m", "sphinx", "-b", "html", "-n", "-W", "--keep-going", "-E", "-q",
               str(ROOT / "docs"), str(out)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    return "" if result.returncode == 0 else result.stderr[-6000:]


def markdown(report: dict) -> str:
    """The findings per page, for a job summary or an issue."""
    lines = ["# Examples under other releases", ""]
    for end, info in report["ends"].items():
        lines.append(f"- **{end}**: asked `{' '.join(info['asked'])}`, got {info['got']}")
    if report.get("site"):
        lines += ["", "## The site's build", "", "```", report["site"], "```"]
    for finding in report["findings"]:
        head, _, rest = finding.partition("\n")
        lines += ["", f"## {head}", "", "```", rest, "```"]
    if not report["findings"] and not report.get("site"):
        lines += ["", "No findings: every download ran and printed as with the pinned versions."]
    return "\n".join(lines) + "\n"


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--prerelease"]
    prerelease = "--prerelease" in sys.argv
    if len(args) != 1:
        print(__doc__.split("::")[1].strip())
        return 2
    downloads = Path(args[0])
    scripts = sorted(downloads.glob("plot_*.py"))
    notebooks = [downloads / f"{s.stem}.ipynb" for s in run_downloads.notebooks_to_run(
        sorted((ROOT / "gallery").rglob("plot_*.py")))]
    files = scripts + notebooks
    start, report = time.perf_counter(), {"ends": {}, "findings": []}
    with tempfile.TemporaryDirectory(prefix="versions-") as tmp:
        wheel_dir = Path(tmp, "dist")
        subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(wheel_dir),
                        str(ROOT)], check=True, capture_output=True)
        wheel = next(wheel_dir.glob("sidebyside-*.whl"))
        pinned = [f"{wheel}[cpu]"]  # the install line: the extras pin the site's versions
        python, env = make_environment(Path(tmp, "venv-pinned"), pinned, wheel)
        report["ends"]["pinned"] = {"asked": ["the install line"], "got": installed(python, env)}
        folder = Path(tmp, "pinned")
        folder.mkdir()
        print(f"pinned: {report['ends']['pinned']['got']}, {len(files)} downloads", flush=True)
        reference = run_downloads.run_all(files, python, folder, env)
        report["findings"] += compare(reference, reference, "pinned")
        for end, requirements in (PRERELEASE if prerelease else ends()).items():
            if prerelease:  # it builds the site too
                requirements = [*requirements, "-r", str(ROOT / "requirements" / "docs.txt")]
            python, env = make_environment(Path(tmp, f"venv-{end}"), requirements, wheel)
            versions = installed(python, env)
            report["ends"][end] = {"asked": requirements, "got": versions}
            print(f"{end}: {versions}, {len(files)} downloads", flush=True)
            folder = Path(tmp, end)
            folder.mkdir()
            results = run_downloads.run_all(files, python, folder, env)
            report["findings"] += compare(reference, results, end)
            if prerelease:
                report["site"] = build_site(python, env, Path(tmp, "site"))
    report["wall_seconds"] = round(time.perf_counter() - start)
    out = ROOT / "docs" / "_build" / "versions.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
    print("\n\n".join(report["findings"]) or "No findings: both ends ran every download alike.")
    print(f"{json.dumps(report['ends'])}\n{report['wall_seconds']} s, "
          f"{len(report['findings'])} findings ({out})")
    return 1 if report["findings"] or report.get("site") else 0


if __name__ == "__main__":
    sys.exit(main())
