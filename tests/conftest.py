"""Shared test setup: real frameworks, quiet TensorFlow, no display, and the built site."""

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import sidebyside
from sidebyside import benchmark

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
import run_downloads as run_downloads_tool  # noqa: E402  (tools/run_downloads.py)
import site_build  # noqa: E402  (tools/ is a folder of scripts: the one build recipe)
import site_server  # noqa: E402

from sphinx_extensions import shards  # noqa: E402  (building on several machines)
from sphinx_extensions.downloads import with_install_header  # noqa: E402

GALLERY_SCRIPTS = sorted((ROOT / "gallery").rglob("plot_*.py"))
# Pages that print timings, so their text differs from run to run.
MEASURED = ("benchmark", "padding_cost")
TINY_INDEX = "# tiny\n\n```{toctree}\nauto_examples/index\n```\n"  # a site of the gallery only


def make_project(dest: Path, gallery: Path = ROOT / "gallery", index: str | None = None) -> Path:
    """A copy of docs/ (sources only) beside a link to ``gallery``, so builds never touch docs/."""
    return site_build.copy_project(dest, gallery, index)


def tiny_gallery(folder: Path, runs: Path) -> Path:
    """Two examples, plot_alpha.py and plot_beta.py, that each add their file name to ``runs``
    when they execute: which ones ran, in which order. Each page reads "The first text."."""
    folder.mkdir()
    (folder / "GALLERY_HEADER.rst").write_text("Tiny\n====\n")
    for name in ("plot_alpha.py", "plot_beta.py"):
        log = f'with open({str(runs)!r}, "a") as log:\n    print("{name}", file=log)\n'
        title = f"{name}\n{'=' * len(name)}\n\nThe first text.\n"
        (folder / name).write_text(f'"""\n{title}"""\n{log}print(1)\n')
    return folder


def sphinx_build(docs: Path, out: Path, **modes) -> subprocess.CompletedProcess:
    """One language of the site, built as `make html` builds it (tools/site_build.py)."""
    return subprocess.run(
        site_build.command(docs, out, **modes),
        capture_output=True,
        text=True,
        env=site_build.environment(),
        cwd=ROOT,
    )


def _selected(request, fixture: str) -> bool:
    """Whether any selected test uses ``fixture``."""
    return any(fixture in item.fixturenames for item in request.session.items)


SHARDS = 2
# The shard-and-merge test builds the examples that execute fastest, from several sections: what
# makes a merge right (every example executed by one shard, in another order, its outputs copied)
# does not depend on which examples, and executing all of them a third time would.
MERGE_EXAMPLES = 5


def cheapest_gallery(dest: Path) -> Path:
    """A gallery of the MERGE_EXAMPLES examples with the shortest measured times, with their
    sections' headers, linked from ``gallery/``."""
    times = json.loads((ROOT / "docs" / "example_times.json").read_text())
    names = [n for n in times if (ROOT / "gallery" / n).exists()]
    chosen = sorted(names, key=lambda name: (times[name], name))[:MERGE_EXAMPLES]
    dest.mkdir()
    (dest / "GALLERY_HEADER.rst").symlink_to(ROOT / "gallery" / "GALLERY_HEADER.rst")
    for name in chosen:
        section = dest / Path(name).parent
        if not section.exists():
            section.mkdir()
            header = ROOT / "gallery" / Path(name).parent / "GALLERY_HEADER.rst"
            (section / "GALLERY_HEADER.rst").symlink_to(header)
        (dest / name).symlink_to(ROOT / "gallery" / name)
    return dest


@pytest.fixture(scope="session")
def shard_builds(request, tmp_path_factory) -> list[tuple[Path, subprocess.Popen]]:
    """`make html SHARD=k/2` for k = 1, 2, each in its own process, started before the site's
    build so that the three share the machine's cores (only when a test asks for merged_site)."""
    if not _selected(request, "merged_site"):
        return []
    builds = []
    gallery = cheapest_gallery(tmp_path_factory.mktemp("cheapest") / "gallery")
    for k in range(1, SHARDS + 1):
        tmp = tmp_path_factory.mktemp(f"shard{k}")
        docs = make_project(tmp, gallery=gallery, index=TINY_INDEX)
        with open(tmp / "build.log", "w") as log:
            process = subprocess.Popen(  # not strict: the lessons' links to other pages dangle
                site_build.command(docs, tmp / "html", shard=f"{k}/{SHARDS}", strict=False),
                stdout=log,
                stderr=subprocess.STDOUT,
                env=site_build.environment(),
                cwd=ROOT,
            )
        builds.append((docs, process))
    return builds


def build_site(tmp: Path, english: Future) -> Path:
    """The whole site, both languages, in ``tmp``, exactly as `make html` builds it; ``english``
    gets the site's folder once the English pages (and the downloads) are built."""
    docs = make_project(tmp)
    try:
        for language, out in (("en", tmp / "html"), ("zh_CN", tmp / "html" / "zh_CN")):
            result = sphinx_build(docs, out, language=language)
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
            if language == "en":
                english.set_result(out)
    except BaseException as error:
        if not english.done():
            english.set_exception(error)
        raise
    return tmp / "html"


@pytest.fixture(scope="session")
def english_site() -> Future:
    """The site's folder once its English pages are built (the Chinese ones follow)."""
    return Future()


@pytest.fixture(scope="session")
def building_site(tmp_path_factory, background, shard_builds, english_site) -> Future:
    """The site's build, going on in the background from the session's start (after the shards'
    start, so that they share the cores) while the tests that need no site run.

    SIDEBYSIDE_SITE=docs/_build/html reuses a site built already (quick loops on page tests).
    """
    if os.environ.get("SIDEBYSIDE_SITE"):
        built = Future()
        built.set_result(Path(os.environ["SIDEBYSIDE_SITE"]).resolve())
        english_site.set_result(built.result())
        return built
    return background.submit(build_site, tmp_path_factory.mktemp("site"), english_site)


@pytest.fixture(scope="session")
def site(building_site) -> Path:
    """The whole site, both languages, built once per test session exactly as `make html` does."""
    return building_site.result()


@pytest.fixture(scope="session")
def server(site):
    """The built site on 127.0.0.1 (a free port) as a host serves it: under its URL prefix,
    gzip-compressed, with 404.html for a missing page. The URL has no trailing slash."""
    httpd, url = site_server.serve(site)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="session")
def merged_site(shard_builds, tmp_path_factory) -> Path:
    """English pages built as CI's matrix builds them: the shards' outputs merged (`make merge`)."""
    for docs, process in shard_builds:
        log = (docs.parent / "build.log").read_text()
        assert process.wait() == 0, f"{docs.parent.name} failed:\n{log[-6000:]}"
    tmp = tmp_path_factory.mktemp("merged")
    gallery = shard_builds[0][0].parent / "gallery"
    docs = make_project(tmp, gallery=gallery.resolve(), index=TINY_INDEX)
    shards.merge([d / "auto_examples" for d, _ in shard_builds], docs / "auto_examples",
                 gallery=gallery.resolve())
    result = sphinx_build(docs, tmp / "html", keep_outputs=True, strict=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    return tmp / "html"


# --- the reader's machine (tests/test_reader.py), prepared and run beside the other tests ---------

READER_TOOLS = ("ipykernel==7.4.0", "nbclient==0.11.0")  # a reader's Jupyter
#: Disk the reader's install takes at its peak: PyPI's CUDA torch installed (7.6 GB) and its
#: wheels while pip unpacks them (3.2 GB), measured on a fresh clone.
READER_DISK_GB = 11


def run(command, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def make_reader(tmp: Path):
    """(python, folder, env): a new venv in ``tmp`` where only the site's install line was run,
    with packages from PyPI alone (index_only) and this repository's wheel, not on PyPI yet.

    The line is sidebyside.INSTALL_LINE, the one every page states (test_reader.py checks), so this can
    start before the site is built (conftest.py starts it at once, beside the site's build).
    """
    free_gb = shutil.disk_usage(tmp).free / 1e9
    assert free_gb >= READER_DISK_GB, (
        f"The reader's install needs about {READER_DISK_GB} GB free under {tmp} (PyPI's CUDA "
        f"torch, and its wheels while pip unpacks them); {free_gb:.1f} GB are free. Old runs "
        f"may be taking it: /tmp/pytest-of-*, /tmp/torchinductor_*."
    )
    dist = tmp / "dist"
    built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)])
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    venv = tmp / "venv"
    assert run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    env = {
        key: value
        for key, value in run_downloads_tool.index_only(os.environ).items()
        if not key.startswith(("PYTHON", "VIRTUAL_ENV", "SIDEBYSIDE", "TF_"))
    }
    env |= {
        "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "PIP_FIND_LINKS": str(dist),  # the wheel the release will upload
        "MPLBACKEND": "Agg",
    }
    home = tmp / "home"  # the reader runs from a folder of their own, far from the repository
    home.mkdir()
    # A temporary folder of the reader's own, removed with the venv: what pip unpacks there, and
    # what torch leaves there for good (Inductor's precompiled header, 160 MB for each venv).
    env["TMPDIR"] = str(tmp / "tmp")
    Path(env["TMPDIR"]).mkdir()
    line = sidebyside.INSTALL_LINE
    installed = run(["bash", "-c", line], cwd=home, env=env)
    assert installed.returncode == 0, (
        f"`{line}` failed:\n{installed.stdout[-3000:]}{installed.stderr[-3000:]}"
    )
    tools = run(
        [venv / "bin/python", "-m", "pip", "install", "-q", *READER_TOOLS], cwd=home, env=env
    )
    assert tools.returncode == 0, tools.stderr[-3000:]
    return venv / "bin/python", home, env


#: A kernel's start and the install cell: what a notebook adds to its script's time.
NOTEBOOK_EXTRA_SECONDS = 10
#: Runs share the machine's cores, one run per core: each framework computes on one thread, as
#: in the site's build (TensorFlow's and OpenMP's pools would otherwise take every core each).
ONE_THREAD = dict.fromkeys(benchmark.THREAD_VARIABLES, "1")
#: The runs take what the other tests leave of the cores: those finish first, and the runs,
#: which take longest, keep every core busy until the end.
READER_NICE = 10


def run_downloads(reader, english_site: Future) -> list[dict]:
    """Run every downloaded script (``python plot_x.py``) and the notebooks a reader runs (every
    cell, in a Jupyter kernel), each in a process of its own from the reader's folder, one per
    core, the longest first (docs/example_times.json), at a lower priority than the other tests
    (READER_NICE): tools/run_downloads.py's results.

    The scripts are made as the build makes them (``with_install_header``: test_reader checks
    that the site's downloads are these bytes), so they start at once; a notebook, once the
    English pages are built (``english_site``)."""
    python, home, env = reader
    times = json.loads((ROOT / "docs" / "example_times.json").read_text())
    by_name = {Path(name).stem: seconds for name, seconds in times.items()}
    made = home.parent / "downloads"
    made.mkdir()
    runs = []  # (expected seconds, a script made here or a notebook's name)
    for source in GALLERY_SCRIPTS:
        script = made / source.name
        script.write_text(with_install_header(source.read_text(encoding="utf-8")),
                          encoding="utf-8")
        runs.append((by_name.get(source.stem, 0), script))
    runs += [(by_name.get(source.stem, 0) + NOTEBOOK_EXTRA_SECONDS, source.stem + ".ipynb")
             for source in run_downloads_tool.notebooks_to_run(GALLERY_SCRIPTS)]
    env = {**env, **ONE_THREAD}

    def run(download: Path | str) -> dict:
        if isinstance(download, str):  # a notebook: the site's own download
            download = downloads_of(english_site.result())[download]
        return run_downloads_tool.run_one(download, str(python), home, env, nice=READER_NICE)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(run, [file for _, file in sorted(runs, key=lambda r: -r[0])]))


@pytest.fixture(scope="session")
def background():
    """Threads for work that waits on processes of its own while the tests go on: the site's
    build, the reader's install, the reader's runs."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        yield pool


@pytest.fixture(scope="session")
def reader_setup(tmp_path_factory, background) -> Future:
    """A reader's new environment where only the install line is run, installing meanwhile."""
    return background.submit(make_reader, tmp_path_factory.mktemp("reader"))


@pytest.fixture(scope="session")
def reader(reader_setup):
    """(python, folder, env) of the reader's environment, once it is installed."""
    python, home, env = reader_setup.result()
    yield python, home, env
    # Some GB (PyPI's CUDA torch), not kept by pytest: removed by a process that outlives the
    # session rather than in its last seconds, with the reader's temporary folder.
    venv = Path(python).parents[1]
    subprocess.Popen(["rm", "-rf", str(venv), env["TMPDIR"]], start_new_session=True)


def downloads_of(site: Path) -> dict[str, Path]:
    """Every downloadable gallery file of a built site, by file name."""
    return {path.name: path for path in site.glob("_downloads/*/plot_*") if path.suffix != ".zip"}


@pytest.fixture(scope="session")
def downloads(site) -> dict[str, Path]:
    """Every downloadable gallery file of the built site, by file name."""
    return downloads_of(site)


@pytest.fixture(scope="session")
def reader_runs(building_site, english_site, reader_setup, background) -> Future:
    """Every download run by the reader (run_downloads), in the background as soon as the
    reader's environment is ready (``building_site``: the notebooks wait for its English pages)."""
    return background.submit(
        lambda: run_downloads(reader_setup.result(), english_site)
    )


# Fixtures a test waits for, in the order they become ready: such tests run after the others.
READY_LATER = (("reader", "reader_setup"), ("site", "building_site", "merged_site", "reader_runs"))


def pytest_collection_modifyitems(items):
    """Tests that need no built site and no reader run first, while those build in the
    background; then those that need the reader's environment; then the rest (a stable sort:
    each group keeps its files' order)."""

    def waits_for(item) -> int:
        needs = set(item.fixturenames)
        return max((i + 1 for i, names in enumerate(READY_LATER) if needs & set(names)), default=0)

    items.sort(key=waits_for)


@pytest.fixture(scope="session", autouse=True)
def start_early(request, background):
    """Before the first test: the shards' builds, the site's build and the reader's install start
    in the background (each only where a selected test needs it), and the reader's runs follow
    them; the tests that need none of these run meanwhile (pytest_collection_modifyitems)."""
    for fixture in ("shard_builds", "building_site", "reader_setup", "reader_runs"):
        if _selected(request, fixture):
            request.getfixturevalue(fixture)
