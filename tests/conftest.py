"""Shared test setup: real frameworks, quiet TensorFlow, no display, and the built site."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import site_server  # noqa: E402  (tools/ is a folder of scripts, not a package)
from bench_build import generated_outputs  # noqa: E402

GALLERY_SCRIPTS = sorted((ROOT / "gallery").rglob("plot_*.py"))
# Pages that print timings, so their text differs from run to run.
MEASURED = ("benchmark", "padded_batches")
# Same command as `make html`: warnings are errors, nitpicky, keep going, fresh environment.
SPHINX = [sys.executable, "-m", "sphinx", "-b", "html", "-n", "-W", "--keep-going", "-E"]


def make_project(dest: Path, gallery: Path = ROOT / "gallery", index: str | None = None) -> Path:
    """A copy of docs/ (sources only) beside a link to ``gallery``, so builds never touch docs/."""
    docs = dest / "docs"
    shutil.copytree(
        ROOT / "docs",
        docs,
        ignore=generated_outputs,
    )
    (dest / "gallery").symlink_to(gallery)
    if index is not None:
        for page in docs.glob("*.md"):
            page.unlink()
        (docs / "index.md").write_text(index)
    return docs


def sphinx_build(
    docs: Path, out: Path, example: str = "", language: str = "en"
) -> subprocess.CompletedProcess:
    env = {**os.environ, "EXAMPLE": example, "SIDEBYSIDE_LANG": language}
    return subprocess.run(
        [*SPHINX, str(docs), str(out)], capture_output=True, text=True, env=env, cwd=ROOT
    )


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The whole site, both languages, built once per test session exactly as `make html` does.

    SIDEBYSIDE_SITE=docs/_build/html reuses a site built already (quick loops on page tests).
    """
    if os.environ.get("SIDEBYSIDE_SITE"):
        return Path(os.environ["SIDEBYSIDE_SITE"]).resolve()
    tmp = tmp_path_factory.mktemp("site")
    docs = make_project(tmp)
    for language, out in (("en", tmp / "html"), ("zh_CN", tmp / "html" / "zh_CN")):
        result = sphinx_build(docs, out, language=language)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    return tmp / "html"


@pytest.fixture(scope="session")
def server(site):
    """The built site on 127.0.0.1 (a free port) as a host serves it: under its URL prefix,
    gzip-compressed, with 404.html for a missing page. The URL has no trailing slash."""
    httpd, url = site_server.serve(site)
    yield url
    httpd.shutdown()
