"""What does a build cost? Run all gallery scripts bare, then rebuild the site, and compare.

Back to back, in one run, alternately, ``RUNS`` times each (one run varies by ±15 % here, so
every ratio compares medians):

1. *bare*: everything the build executes, without Sphinx: the MyST notebook pages of ``docs/``, each
   in a Jupyter kernel as the build runs them, then every ``gallery/**/plot_*.py`` in file-name
   order in ONE fresh Python process (each in its own folder, seeded, figures closed after it);
2. *rebuild*: the full ``make html`` command (``sphinx-build -b html -n -W --keep-going -E``), every
   example re-executed, then the Chinese edition, which reuses the executed outputs. By default it
   builds a private copy of ``docs/`` in a temporary folder, so it never clashes with a build in
   ``docs/_build``; ``--in-place`` builds ``docs/_build/html``.

Then, on the last rebuild: Lighthouse (npm, headless Chromium) on two pages served with gzip, and
the edit loop. It prints the wall times, their ratios, the time of every example, the peak memory
of each process tree, and PASS/FAIL against the targets below; writes it all to a JSON file; and
exits non-zero if a target is missed. Usage: ``make bench`` or
``.venv/bin/python tools/bench_build.py [--json PATH] [--in-place]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import site_build  # beside this script in tools/: the one build recipe
import site_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sidebyside.provenance import cpu_model  # noqa: E402

from sphinx_extensions.shards import measured_times  # noqa: E402  (the build's own record)

try:
    import psutil  # sums the memory of every process in the tree (the notebook kernel too)
except ImportError:
    psutil = None

TARGETS = {  # name: (limit, unit): the project's standing build-loop targets
    "rebuild / bare": (1.10, "×"),
    "rebuild": (180.0, "s"),
    # Relative: both frameworks alone take ~770 MiB, so no absolute number holds on every page.
    "peak memory, rebuild / bare": (1.10, "×"),
    "both languages / English": (1.25, "×"),  # the Chinese build reuses the executed outputs
    # `make html EXAMPLE=…` after a full build, minus `python <that script>` in its folder
    "edit loop − script alone": (2.5, "s"),
    # make test's suite, caches warm, against the two-language rebuild it proves: each example
    # runs at most twice there (the site's build and the reader's download)
    "tests / both languages": (3.0, "×"),
}
#: Not a target: an example over it is flagged in the table of examples. A lesson about what a
#: compiler costs pays that cost on the page (the compile lesson compiles in a fresh Python from an
#: empty cache), and a shorter lesson would raise "tests / both languages", where it runs twice.
SLOW_EXAMPLE = 30.0
EDITED = "20_autograd"  # the example the edit loop rebuilds: plot_20_autograd.py only
EDIT_LOOP_RUNS = 3  # a 10-second run varies by ±20 % here: the ratio compares medians
RUNS = 3  # bare and rebuild, alternately: their ratio compares medians too
# Reading a process's PSS walks its page tables: ~20 ms of CPU for one holding both frameworks.
# Sampled ten times a second, the rebuild's two or three processes took half a core and the
# rebuild ran ~10 % slower (62 s → 69 s, 56 s → 62 s, measured here); twice a second costs ~2 %.
SAMPLE_SECONDS = 0.5
# The build's own environment (tools/site_build.py: the one recipe), the inductor cache with it.
ENV = site_build.ENV

# Runs inside the bare process: writes {"times": {file: seconds}} to the file named first. Notebook pages (.md) run first, each in a Jupyter kernel, exactly as the
# build runs them; then the scripts (each prepares itself: sidebyside.start_lesson()).
BARE = """
import contextlib, io, json, os, runpy, sys, time
import matplotlib.pyplot as plt
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import read_myst_markdown_notebook
import sidebyside  # first, as every page (it loads triton before TensorFlow)
times = {}
for path in sys.argv[2:]:
    name, start = os.path.basename(path), time.perf_counter()
    if path.endswith(".md"):
        notebook = read_myst_markdown_notebook(open(path).read(), path=path)
        result = single_nb_execution(notebook, os.path.dirname(path), 120, allow_errors=False)
        assert result.err is None, (path, result.err)
    else:
        os.chdir(os.path.dirname(path))
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
        plt.close("all")
    times[name] = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    json.dump({"times": times}, out)
"""

def measured_run(command: list[str], *, sample_memory: bool = True, **kwargs) -> dict:
    """Run ``command``; its wall time, output, and peak memory (tree sum and largest process).

    ``sample_memory=False`` skips the tree's sum, whose sampling costs CPU time that a run
    keeping every core busy would lose."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, text=True, **kwargs
        )
        peak, stop = [0], threading.Event()
        if psutil and sample_memory:
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
            "tree_peak_mib": peak[0] / 2**20 if psutil and sample_memory else None,
        }


def _sample_tree(pid: int, peak: list[int], stop: threading.Event) -> None:
    """Every ``SAMPLE_SECONDS``, add up the memory of ``pid`` and all its descendants; keep the max.

    Each process counts its proportional set size (PSS: its own pages, plus its share of pages it
    shares), so a child forked from the build, whose pages are the build's until it writes to them,
    is not counted twice, as a sum of resident sizes would."""
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.wait(SAMPLE_SECONDS):
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


def private_docs(tmp: Path) -> Path:
    """A copy of docs/ (sources only) beside a link to the gallery, as the tests build it."""
    return site_build.copy_project(tmp)


def example_times(docs: Path) -> dict[str, float]:
    """Each example's running time, by file name, as sphinx-gallery recorded it (shards.py)."""
    return {Path(name).name: t for name, t in measured_times(docs / "auto_examples").items()}


def notebook_pages() -> list[Path]:
    """The MyST pages that the build executes in a Jupyter kernel."""
    pages = sorted((ROOT / "docs").glob("*.md"))
    return [page for page in pages if "file_format: mystnb" in page.read_text(encoding="utf-8")]


def run_bare(scripts: list[Path], env: dict) -> dict:
    """Notebook pages, then all scripts in one fresh Python process: wall time, memory, times."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        command = [sys.executable, "-c", BARE, report.name, *map(str, scripts)]
        bare = measured_run(command, cwd=ROOT, env=env)
        if bare["returncode"] == 0:
            bare["examples"] = json.load(report)["times"]
    return bare


LIGHTHOUSE_PAGES = ("index.html", "auto_examples/10_graphs/plot_20_autograd.html")
LIGHTHOUSE_RUNS = 3  # Lighthouse's scores vary from run to run: each page reports the median
# Lighthouse category: minimum score; and largest contentful paint in seconds at most.
LIGHTHOUSE_TARGETS = {"performance": 90, "accessibility": 98, "best-practices": 100, "seo": 100}
LCP_LIMIT = 2.5
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --no-first-run --disable-sync "
    "--disable-background-networking --disable-component-update"
)


def lighthouse(site: Path) -> dict:
    """Lighthouse scores of two pages, served as a host serves them (gzip, under the prefix):
    for each page, the median of ``LIGHTHOUSE_RUNS`` runs, metric by metric."""
    cli = ROOT / "node_modules/lighthouse/cli/index.js"
    chrome = os.environ.get("SIDEBYSIDE_CHROMIUM", "/usr/bin/chromium")
    if not cli.exists() or not Path(chrome).exists():
        print("  (Lighthouse skipped: run `npm ci` and install chromium)")
        return {}
    httpd, url = site_server.serve(site)
    scores = {}
    try:
        for page in LIGHTHOUSE_PAGES:
            runs = []
            for _ in range(LIGHTHOUSE_RUNS):
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
                run = {k: round(v["score"] * 100) for k, v in result["categories"].items()}
                run["lcp_s"] = result["audits"]["largest-contentful-paint"]["numericValue"] / 1000
                runs.append(run)
            scores[page] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
            scores[page]["lcp_runs_s"] = [r["lcp_s"] for r in runs]
    finally:
        httpd.shutdown()
    return scores


def run_rebuild(docs: Path, out: Path, env: dict) -> dict:
    """The full `make html` command: every example re-executed; their times from the pages."""
    rebuild = measured_run(site_build.command(docs, out), cwd=ROOT, env=env)
    rebuild["examples"] = example_times(docs)
    return rebuild


def run_chinese(docs: Path, out: Path, env: dict) -> dict:
    """The Chinese edition after the English one, reusing its executed outputs (as `make html`)."""
    return measured_run(
        site_build.command(docs, out / site_build.LANGUAGES["zh_CN"], language="zh_CN"),
        cwd=ROOT,
        env=env,
    )


def run_edit_loop(docs: Path, out: Path, env: dict) -> dict:
    """`make html EXAMPLE=…` after the full build, and that script alone, taking turns."""
    script = next((ROOT / "gallery").rglob(f"plot_*{EDITED}*.py"))
    runs = {"edit loop": [], "script alone": []}
    for _ in range(EDIT_LOOP_RUNS):
        edit = measured_run(site_build.command(docs, out, example=EDITED), cwd=ROOT, env=env)
        if edit["returncode"] != 0:
            return edit
        runs["edit loop"].append(edit["seconds"])
        alone = measured_run([sys.executable, script.name], cwd=script.parent, env=env)
        runs["script alone"].append(alone["seconds"])
    return {"returncode": 0, "output": "", "runs": runs}


def run_matrix() -> dict | None:
    """`make matrix` (tools/matrix.py), for its wall time: its report, or None if it broke."""
    print("make matrix: every example under each variant ...", flush=True)
    report = ROOT / "docs" / "_build" / "matrix.json"
    report.unlink(missing_ok=True)
    done = subprocess.run(["make", "-s", "matrix"], cwd=ROOT, capture_output=True, text=True)
    if not report.exists():
        print(done.stdout[-3000:], done.stderr[-3000:], "make matrix wrote no report")
        return None
    return json.loads(report.read_text(encoding="utf-8"))


def run_tests() -> dict:
    """make test's suite (pytest), once, in make test's environment (not the build's: the build's
    thread pins are the build's own), its wall time: the suite keeps both cores busy, so its
    memory is not sampled (reading the PSS of a tree of browsers and frameworks takes CPU time)."""
    print("the tests: pytest, as make test runs it (caches warm) ...", flush=True)
    return measured_run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                        cwd=ROOT, env={**os.environ, "SIDEBYSIDE_SITE": ""}, sample_memory=False)


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


def medians(runs: list[dict]) -> dict:
    """Several runs of one kind as one: median seconds and example times, the highest peaks."""
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "runs_seconds": [r["seconds"] for r in runs],
        "largest_process_mib": max(r["largest_process_mib"] for r in runs),
        "tree_peak_mib": max(r["tree_peak_mib"] or 0 for r in runs) if psutil else None,
        "examples": {
            name: statistics.median(r["examples"].get(name, 0) for r in runs)
            for name in runs[-1]["examples"]
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "_build" / "bench.json")
    parser.add_argument("--in-place", action="store_true", help="build docs/_build/html itself")
    parser.add_argument("--no-matrix", action="store_true", help="skip `make matrix`'s run")
    parser.add_argument("--no-tests", action="store_true", help="skip timing the test suite")
    args = parser.parse_args()
    env = site_build.environment()  # the caller's settings win, as with make
    cache = Path(env["TORCHINDUCTOR_CACHE_DIR"])
    cache_was_warm = cache.is_dir() and any(cache.iterdir())
    scripts = sorted((ROOT / "gallery").rglob("plot_*.py"))
    notebooks = notebook_pages()
    print(
        f"{len(scripts)} gallery scripts, {len(notebooks)} notebook page(s); "
        f"inductor cache {'warm' if cache_was_warm else 'COLD'}"
    )

    bares, rebuilds, chineses = [], [], []
    with tempfile.TemporaryDirectory(prefix="sidebyside-bench-") as tmp:
        if args.in_place:
            docs, out = ROOT / "docs", ROOT / "docs" / "_build" / "html"
        else:
            docs, out = private_docs(Path(tmp)), Path(tmp) / "html"
        for run in range(1, RUNS + 1):
            print(
                f"{run}/{RUNS} bare: notebook pages in a kernel, then all scripts in one process",
                flush=True,
            )
            bares.append(run_bare(notebooks + scripts, env))
            if failed(bares[-1], "the bare run"):
                return 1
            print(f"{run}/{RUNS} rebuild: sphinx-build, every example re-executed", flush=True)
            rebuilds.append(run_rebuild(docs, out, env))
            if failed(rebuilds[-1], "the rebuild"):
                return 1
            print(f"{run}/{RUNS} the Chinese edition, reusing the executed outputs", flush=True)
            chineses.append(run_chinese(docs, out, env))
            if failed(chineses[-1], "the Chinese edition"):
                return 1
        print(f"Lighthouse on the rebuilt site, {LIGHTHOUSE_RUNS} runs a page ...", flush=True)
        scores = lighthouse(out)
        print(f"the edit loop: EXAMPLE={EDITED} after the full build ...", flush=True)
        edit_loop = run_edit_loop(docs, out, env)
        if failed(edit_loop, "the edit loop"):
            return 1
    tests = None if args.no_tests else run_tests()
    if tests is not None and failed(tests, "the tests"):
        print("(the tests failed: their time is reported anyway)")
    matrix = None if args.no_matrix else run_matrix()
    bare, rebuild = medians(bares), medians(rebuilds)
    chinese = statistics.median(run["seconds"] for run in chineses)
    edit_seconds, alone_seconds = map(statistics.median, edit_loop["runs"].values())
    rebuild.update(
        command=" ".join(site_build.command(docs, out)[3:]),
        chinese_seconds=chinese,
        chinese_runs_seconds=[run["seconds"] for run in chineses],
        lighthouse=scores,
        edit_loop_seconds=edit_seconds,
        edited_bare_seconds=alone_seconds,
        edit_loop_runs=edit_loop["runs"],
    )

    examples = {*bare["examples"], *rebuild["examples"]}
    slowest = max(
        examples, key=lambda n: max(bare["examples"].get(n, 0), rebuild["examples"].get(n, 0))
    )
    values = {
        "rebuild / bare": rebuild["seconds"] / bare["seconds"],
        "rebuild": rebuild["seconds"],
        "peak memory, rebuild / bare": peak(rebuild) / peak(bare),
        "both languages / English": (rebuild["seconds"] + chinese) / rebuild["seconds"],
        "edit loop − script alone": edit_seconds - alone_seconds,
    }
    if tests is not None:
        values["tests / both languages"] = tests["seconds"] / (rebuild["seconds"] + chinese)
        rebuild.update(tests_seconds=tests["seconds"])
    checks = {
        name: {"value": values[name], "limit": limit, "unit": unit, "pass": values[name] <= limit}
        for name, (limit, unit) in TARGETS.items()
        if name in values
    }
    for page, page_scores in scores.items():
        for category, minimum in LIGHTHOUSE_TARGETS.items():
            checks[f"{page} {category}"] = {
                "value": page_scores[category],
                "limit": minimum,
                "unit": "pts",
                "pass": page_scores[category] >= minimum,
                "at_least": True,
            }
        checks[f"{page} largest paint"] = {
            "value": page_scores["lcp_s"],
            "limit": LCP_LIMIT,
            "unit": "s",
            "pass": page_scores["lcp_s"] <= LCP_LIMIT,
        }

    print(f"\n{'example (medians)':40} {'bare s':>8} {'rebuild s':>10}")
    for name in sorted(examples):
        b, r = bare["examples"].get(name, float("nan")), rebuild["examples"].get(name, float("nan"))
        flag = f"  > {SLOW_EXAMPLE:g} s" if max(b, r) > SLOW_EXAMPLE else ""
        print(f"{name:40} {b:8.1f} {r:10.1f}{flag}")
    memory = (
        f"PSS summed over the process tree, sampled every {SAMPLE_SECONDS} s"
        if psutil
        else "largest RSS"
    )
    in_kernel = sum(bare["examples"].get(page.name, 0) for page in notebooks)

    def each(run):
        return ", ".join(f"{s:.1f}" for s in run["runs_seconds"])

    print(f"\nbare total     {bare['seconds']:7.1f} s   (median of {each(bare)})")
    print(f"  peak memory {peak(bare):6.0f} MiB; notebook pages in their kernel: {in_kernel:.1f} s")
    print(f"rebuild total  {rebuild['seconds']:7.1f} s   (median of {each(rebuild)})")
    print(
        f"  peak memory {peak(rebuild):6.0f} MiB, {peak(rebuild) / peak(bare):.2f}× the bare run's:"
        " the frameworks and the heaviest page, run by themselves, set that floor"
    )
    print(f"  then the Chinese edition: {chinese:.1f} s (median)")
    print(
        f"edit loop (EXAMPLE={EDITED}) {edit_seconds:.1f} s; that script alone "
        f"{alone_seconds:.1f} s (medians of {EDIT_LOOP_RUNS} runs each, alternately)"
    )
    if "tests_seconds" in rebuild:
        print(f"the tests (make test's suite, once): {rebuild['tests_seconds']:.1f} s")
    print(
        f"(peak memory: {memory}, the highest of {RUNS} runs; the largest single process of the "
        f"rebuild: {rebuild['largest_process_mib']:.0f} MiB)\n"
    )
    for name, check in checks.items():
        verdict = "PASS" if check["pass"] else "FAIL"
        limit = (
            "at least " if check.get("at_least") else ""
        ) + f"{check['limit']:g} {check['unit']}"
        print(f"{verdict}  {name:28} {check['value']:8.2f} {check['unit']:3}  (limit {limit})")
    slowest_seconds = max(bare["examples"].get(slowest, 0), rebuild["examples"].get(slowest, 0))
    print(f"      slowest example: {slowest}, {slowest_seconds:.1f} s (flagged over "
          f"{SLOW_EXAMPLE:g} s, not a target)")
    if matrix:
        print(
            f"make matrix: {matrix['wall_seconds']:.0f} s wall for {matrix['runs']} runs, "
            f"{len(matrix['findings'])} findings (not a target; CI runs it on pull requests)"
        )

    report = {
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
        "scripts": [str(path.relative_to(ROOT)) for path in scripts],
        "inductor_cache_was_warm": cache_was_warm,
        "peak_memory_method": memory,
        "runs": RUNS,
        "bare": bare,
        "rebuild": rebuild,
        "targets": checks,
        "slowest_example": {"name": slowest, "seconds": slowest_seconds, "flag_over": SLOW_EXAMPLE},
        "matrix": matrix,
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
