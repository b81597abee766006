"""What does a build cost? Run all gallery scripts bare, then rebuild the site, and compare.

Back to back, in one run:

1. *bare*: everything the build executes, without Sphinx: the MyST notebook pages of ``docs/``, each
   in a Jupyter kernel as the build runs them, then every ``gallery/**/plot_*.py`` in file-name
   order in ONE fresh Python process (each in its own folder, seeded, figures closed after it);
2. *rebuild*: the full ``make html`` command (``sphinx-build -b html -n -W --keep-going -E``), every
   example re-executed. By default it builds a private copy of ``docs/`` in a temporary folder, so
   it never clashes with a build in ``docs/_build``; ``--in-place`` builds ``docs/_build/html``.

Then Lighthouse (npm, headless Chromium) scores two pages of the rebuilt site, served with gzip.
It prints both wall times, their ratio, the time of every example, the peak memory of each
process tree, and PASS/FAIL against the targets below; writes it all to a JSON file; and exits
non-zero if a target is missed. Usage: ``make bench`` or
``.venv/bin/python tools/bench_build.py [--json PATH] [--in-place]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import site_server  # beside this script in tools/

from sidebyside.provenance import cpu_model

try:
    import psutil  # sums the memory of every process in the tree (the notebook kernel too)
except ImportError:
    psutil = None

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {  # name: (limit, unit)
    "rebuild / bare": (1.10, "×"),
    "rebuild": (180.0, "s"),
    "slowest example": (30.0, "s"),
    "peak memory of the rebuild": (1024.0, "MiB"),
    "both languages / English": (1.25, "×"),  # the Chinese build reuses the executed outputs
    # `make html EXAMPLE=…` after a full build, against `python <that script>` in its folder
    "edit loop / script alone": (1.5, "×"),
}
EDITED = "20_autograd"  # the example the edit loop rebuilds: plot_20_autograd.py only
EDIT_LOOP_RUNS = 3  # a 10-second run varies by ±20 % here: the ratio compares medians
# Same environment as the Makefile's; the inductor cache lives in the build folder and survives
# rebuilds (a cold torch.compile costs ~10 s of CPU on the benchmark page).
ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "TORCHINDUCTOR_CACHE_DIR": str(ROOT / "docs" / "_build" / "torchinductor"),
}

# Runs inside the bare process: writes {"times": {file: seconds}, "outputs": {file: printed text}}
# to the file named first. Notebook pages (.md) run first, each in a Jupyter kernel, exactly as the
# build runs them; then the scripts, each prepared as the build prepares it.
BARE = """
import contextlib, io, json, os, runpy, sys, time
import matplotlib.pyplot as plt
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import read_myst_markdown_notebook
import sidebyside
from sidebyside.parity import reset_parity_log
times, outputs = {}, {}
for path in sys.argv[2:]:
    name, start = os.path.basename(path), time.perf_counter()
    if path.endswith(".md"):
        notebook = read_myst_markdown_notebook(open(path).read(), path=path)
        result = single_nb_execution(notebook, os.path.dirname(path), 120, allow_errors=False)
        assert result.err is None, (path, result.err)
    else:
        sidebyside.seed_everything(0)  # as the build does before every example
        reset_parity_log()
        os.chdir(os.path.dirname(path))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            runpy.run_path(path, run_name="__main__")
        plt.close("all")
        outputs[name] = printed.getvalue()
    times[name] = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    json.dump({"times": times, "outputs": outputs}, out)
"""
RUNNING_TIME = re.compile(
    r"\*\*Total running time of the script:\*\* \(\s*(\d+) minutes\s+([\d.]+) seconds\)"
)


def measured_run(command: list[str], **kwargs) -> dict:
    """Run ``command``; its wall time, output, and peak memory (tree sum and largest process)."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, text=True, **kwargs
        )
        peak, stop = [0], threading.Event()
        if psutil:
            threading.Thread(
                target=_sample_tree, args=(process.pid, peak, stop), daemon=True
            ).start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        stop.set()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return {
            "seconds": seconds,
            "returncode": process.returncode,
            "output": out.read(),
            "largest_process_mib": usage.ru_maxrss / 1024,  # Linux reports KiB
            "tree_peak_mib": peak[0] / 2**20 if psutil else None,
        }


def _sample_tree(pid: int, peak: list[int], stop: threading.Event) -> None:
    """Every 0.1 s, add up the memory of ``pid`` and all its descendants; keep the max.

    Each process counts its proportional set size (PSS: its own pages, plus its share of pages it
    shares), so a child forked from the build, whose pages are the build's until it writes to them,
    is not counted twice, as a sum of resident sizes would."""
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.wait(0.1):
        total = 0
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        for process in processes:
            try:
                total += process.memory_full_info().pss
            except psutil.Error:
                pass  # it ended between listing and reading
        peak[0] = max(peak[0], total)


def generated_outputs(folder: str, names: list[str]) -> set[str]:
    """For ``shutil.copytree``: what a build generates at the top of docs/ (not its sources, such
    as the catalogues in docs/locale/zh_CN/LC_MESSAGES/auto_examples)."""
    if Path(folder).resolve() != (ROOT / "docs").resolve():
        return set()
    return {
        n
        for n in names
        if n in ("_build", "auto_examples", "jupyter_execute", "gen_modules") or n.startswith("sg_")
    }


def private_docs(tmp: Path) -> Path:
    """A copy of docs/ (sources only) beside a link to the gallery, as the tests build it."""
    docs = tmp / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=generated_outputs)
    (tmp / "gallery").symlink_to(ROOT / "gallery")
    return docs


def example_times(docs: Path) -> dict[str, float]:
    """Each example's running time, as sphinx-gallery wrote it into the page it generated."""
    times = {}
    for page in sorted((docs / "auto_examples").rglob("plot_*.rst")):
        if match := RUNNING_TIME.search(page.read_text(encoding="utf-8")):
            times[page.stem + ".py"] = 60 * int(match[1]) + float(match[2])
    return times


def notebook_pages() -> list[Path]:
    """The MyST pages that the build executes in a Jupyter kernel."""
    pages = sorted((ROOT / "docs").glob("*.md"))
    return [page for page in pages if "file_format: mystnb" in page.read_text(encoding="utf-8")]


def run_bare(scripts: list[Path], env: dict) -> dict:
    """Notebook pages, then all scripts in one fresh Python process: wall time, memory, times.

    Also what each script printed (``bare["printed"]``): the order test compares those.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        command = [sys.executable, "-c", BARE, report.name, *map(str, scripts)]
        bare = measured_run(command, cwd=ROOT, env=env)
        if bare["returncode"] == 0:
            result = json.load(report)
            bare["examples"], bare["printed"] = result["times"], result["outputs"]
    return bare


LIGHTHOUSE_PAGES = ("index.html", "auto_examples/10_graphs/plot_20_autograd.html")
# Lighthouse category: minimum score; and largest contentful paint in seconds at most.
LIGHTHOUSE_TARGETS = {"performance": 90, "accessibility": 98, "best-practices": 100, "seo": 100}
LCP_LIMIT = 2.5
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --no-first-run --disable-sync "
    "--disable-background-networking --disable-component-update"
)


def lighthouse(site: Path) -> dict:
    """Lighthouse scores of two pages, served as a host serves them (gzip, under the prefix)."""
    cli = ROOT / "node_modules/lighthouse/cli/index.js"
    chrome = os.environ.get("SIDEBYSIDE_CHROMIUM", "/usr/bin/chromium")
    if not cli.exists() or not Path(chrome).exists():
        print("  (Lighthouse skipped: run `npm ci` and install chromium)")
        return {}
    httpd, url = site_server.serve(site)
    scores = {}
    try:
        for page in LIGHTHOUSE_PAGES:
            with tempfile.NamedTemporaryFile(suffix=".json") as report:
                subprocess.run(
                    [
                        "node",
                        str(cli),
                        f"{url}/{page}",
                        f"--chrome-flags={CHROME_FLAGS}",
                        "--only-categories=performance,accessibility,best-practices,seo",
                        "--output=json",
                        f"--output-path={report.name}",
                        "--quiet",
                    ],
                    env={**os.environ, "CHROME_PATH": chrome},
                    check=True,
                )
                result = json.loads(Path(report.name).read_text())
            scores[page] = {k: round(v["score"] * 100) for k, v in result["categories"].items()}
            scores[page]["lcp_s"] = (
                result["audits"]["largest-contentful-paint"]["numericValue"] / 1000
            )
    finally:
        httpd.shutdown()
    return scores


def run_rebuild(env: dict, in_place: bool) -> dict:
    """The `make html` command on a private copy of docs/ (or on docs/ itself)."""
    with tempfile.TemporaryDirectory(prefix="sidebyside-bench-") as tmp:
        docs = ROOT / "docs" if in_place else private_docs(Path(tmp))
        out = docs / "_build" / "html" if in_place else Path(tmp) / "html"
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-n", "-W", "--keep-going", "-E"]
        rebuild = measured_run([*command, str(docs), str(out)], cwd=ROOT, env=env)
        rebuild["command"] = " ".join(command[3:] + [str(docs), str(out)])
        rebuild["examples"] = example_times(docs)
        if rebuild["returncode"] == 0:
            print("   the Chinese edition, reusing the executed outputs ...", flush=True)
            chinese = measured_run(
                [*command, str(docs), str(out / "zh_CN")],
                cwd=ROOT,
                env={**env, "SIDEBYSIDE_LANG": "zh_CN"},
            )
            rebuild["chinese_seconds"] = chinese["seconds"]
            if chinese["returncode"] != 0:
                rebuild["returncode"], rebuild["output"] = 1, chinese["output"]
        if rebuild["returncode"] == 0:  # the full build's site, as published (before the edit loop)
            print("   Lighthouse on the rebuilt site ...", flush=True)
            rebuild["lighthouse"] = lighthouse(out)
        if rebuild["returncode"] == 0:
            print(f"   the edit loop: EXAMPLE={EDITED} after the full build ...", flush=True)
            script = next((ROOT / "gallery").rglob(f"plot_*{EDITED}*.py"))
            edits, alones = [], []
            for _ in range(EDIT_LOOP_RUNS):  # alternately, so that both see the same machine
                edit = measured_run(
                    [*command[:-1], str(docs), str(out)], cwd=ROOT, env={**env, "EXAMPLE": EDITED}
                )
                if edit["returncode"] != 0:
                    rebuild["returncode"], rebuild["output"] = 1, edit["output"]
                    break
                edits.append(edit["seconds"])
                alone = measured_run([sys.executable, script.name], cwd=script.parent, env=env)
                alones.append(alone["seconds"])
            if edits:
                rebuild["edit_loop_seconds"] = statistics.median(edits)
                rebuild["edited_bare_seconds"] = statistics.median(alones)
                rebuild["edit_loop_runs"] = {"edit loop": edits, "script alone": alones}
    return rebuild


def failed(run: dict, what: str) -> bool:
    """Show the end of the output of a run that failed; drop the output of one that did not."""
    output = run.pop("output")
    if run.pop("returncode") == 0:
        return False
    print(output[-5000:], f"\n{what} failed", file=sys.stderr)
    return True


def peak(run: dict) -> float:
    """The larger of the tree's summed PSS and its largest process's RSS."""
    return max(run["tree_peak_mib"] or 0, run["largest_process_mib"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "_build" / "bench.json")
    parser.add_argument("--in-place", action="store_true", help="build docs/_build/html itself")
    args = parser.parse_args()
    env = {**ENV, **os.environ, "EXAMPLE": ""}  # the caller's settings win, as with make
    cache = Path(env["TORCHINDUCTOR_CACHE_DIR"])
    cache_was_warm = cache.is_dir() and any(cache.iterdir())
    scripts = sorted((ROOT / "gallery").rglob("plot_*.py"))
    notebooks = notebook_pages()
    print(
        f"{len(scripts)} gallery scripts, {len(notebooks)} notebook page(s); "
        f"inductor cache {'warm' if cache_was_warm else 'COLD'}"
    )

    print("1/2 bare: notebook pages in a kernel, then all scripts in one process ...", flush=True)
    bare = run_bare(notebooks + scripts, env)
    if failed(bare, "the bare run"):
        return 1
    bare.pop("printed")  # what the examples printed is for the order test, not for the report
    print("2/2 rebuild: sphinx-build, every example re-executed ...", flush=True)
    rebuild = run_rebuild(env, args.in_place)
    if failed(rebuild, "the rebuild"):
        return 1

    examples = {*bare["examples"], *rebuild["examples"]}
    slowest = max(
        examples, key=lambda n: max(bare["examples"].get(n, 0), rebuild["examples"].get(n, 0))
    )
    values = {
        "rebuild / bare": rebuild["seconds"] / bare["seconds"],
        "rebuild": rebuild["seconds"],
        "slowest example": max(
            bare["examples"].get(slowest, 0), rebuild["examples"].get(slowest, 0)
        ),
        "peak memory of the rebuild": peak(rebuild),
        "both languages / English": (rebuild["seconds"] + rebuild["chinese_seconds"])
        / rebuild["seconds"],
        "edit loop / script alone": rebuild["edit_loop_seconds"] / rebuild["edited_bare_seconds"],
    }
    checks = {
        name: {"value": values[name], "limit": limit, "unit": unit, "pass": values[name] <= limit}
        for name, (limit, unit) in TARGETS.items()
    }
    for page, scores in rebuild.get("lighthouse", {}).items():
        for category, minimum in LIGHTHOUSE_TARGETS.items():
            checks[f"{page} {category}"] = {
                "value": scores[category],
                "limit": minimum,
                "unit": "pts",
                "pass": scores[category] >= minimum,
                "at_least": True,
            }
        checks[f"{page} largest paint"] = {
            "value": scores["lcp_s"],
            "limit": LCP_LIMIT,
            "unit": "s",
            "pass": scores["lcp_s"] <= LCP_LIMIT,
        }

    print(f"\n{'example':40} {'bare s':>8} {'rebuild s':>10}")
    for name in sorted(examples):
        b, r = bare["examples"].get(name, float("nan")), rebuild["examples"].get(name, float("nan"))
        flag = "  > 30 s" if max(b, r) > TARGETS["slowest example"][0] else ""
        print(f"{name:40} {b:8.1f} {r:10.1f}{flag}")
    memory = "PSS summed over the process tree, sampled every 0.1 s" if psutil else "largest RSS"
    in_kernel = sum(bare["examples"].get(page.name, 0) for page in notebooks)
    print(f"\nbare total     {bare['seconds']:7.1f} s   peak memory {peak(bare):6.0f} MiB")
    print(f"  of which notebook pages in their kernel: {in_kernel:.1f} s")
    print(f"rebuild total  {rebuild['seconds']:7.1f} s   peak memory {peak(rebuild):6.0f} MiB")
    print(
        f"  {peak(rebuild) / peak(bare):.2f}× the bare run's peak: the frameworks and the heaviest"
        " page, run by themselves, set that floor"
    )
    print(f"  then the Chinese edition: {rebuild['chinese_seconds']:.1f} s")
    print(
        f"edit loop (EXAMPLE={EDITED}) {rebuild['edit_loop_seconds']:.1f} s; "
        f"that script alone {rebuild['edited_bare_seconds']:.1f} s "
        f"(medians of {EDIT_LOOP_RUNS} runs each, alternately)"
    )
    print(
        f"(peak memory: {memory}; the largest single process of the rebuild: "
        f"{rebuild['largest_process_mib']:.0f} MiB)\n"
    )
    for name, check in checks.items():
        verdict = "PASS" if check["pass"] else "FAIL"
        limit = (
            "at least " if check.get("at_least") else ""
        ) + f"{check['limit']:g} {check['unit']}"
        print(f"{verdict}  {name:28} {check['value']:8.2f} {check['unit']:3}  (limit {limit})")
    print(f"      slowest example: {slowest}")

    report = {
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
        "scripts": [str(path.relative_to(ROOT)) for path in scripts],
        "inductor_cache_was_warm": cache_was_warm,
        "peak_memory_method": memory,
        "bare": bare,
        "rebuild": rebuild,
        "targets": checks,
        "passed": all(check["pass"] for check in checks.values()),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.json}")
    if not report["passed"]:
        print("missed:", ", ".join(name for name, check in checks.items() if not check["pass"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
