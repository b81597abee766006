"""The MyST notebook pages (the landing page, ...) execute beside the gallery.

``start_notebook_pages`` (``config-inited``) starts a process, ``python -m
sphinx_extensions.notebook_pages SRCDIR CACHE TIMEOUT``, that runs each page in a Jupyter kernel and
stores the outputs, without the frameworks' C++ log lines, in myst-nb's cache, on the second core
while sphinx-gallery executes the examples in this one. ``wait_for_notebook_pages``
(``env-before-read-docs``) waits for it before Sphinx reads any page; with
``nb_execution_mode = "cache"`` myst-nb then finds fresh outputs.
"""

from __future__ import annotations

import atexit
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from sphinx.errors import ExtensionError

from sphinx_extensions import partial_build

_notebooks: dict = {}


def start_notebook_pages(app, config) -> None:
    """Start executing the MyST notebook pages in a process of their own, beside the gallery.

    The process (``python -m sphinx_extensions.notebook_pages SRCDIR …``, see ``execute_notebook_pages``) runs each
    page in a Jupyter kernel and stores the outputs in myst-nb's cache, on the second core while
    sphinx-gallery executes the examples in this one. ``wait_for_notebook_pages`` waits for it
    before Sphinx reads any page; with ``nb_execution_mode = "cache"`` myst-nb then finds fresh
    outputs. A full build executes every page; the edit loop, live preview and the Chinese build
    only pages that changed since the cache was filled, and they do it here and now.
    """
    if config.sidebyside_shard:
        return  # a shard executes gallery scripts only; `make merge` executes the notebook pages
    cache = Path(app.srcdir) / "_build" / "jupyter_cache"
    config.nb_execution_cache_path = str(cache)
    reuse = partial_build(config) or config.language != "en" or not config.sidebyside_execute
    if reuse:  # most often nothing to execute: checking the cache here is quicker than a process
        if execute_notebook_pages(Path(app.srcdir), str(cache), True, config.nb_execution_timeout):
            raise ExtensionError("a notebook page failed to execute (see above)")
        return
    log = tempfile.TemporaryFile("w+")
    command = [sys.executable, "-m", __name__, app.srcdir, cache, str(config.nb_execution_timeout)]
    root = Path(__file__).resolve().parents[1]  # where `sphinx_extensions` is found
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    _notebooks.update(process=process, log=log)
    atexit.register(lambda: process.poll() is None and process.kill())


def wait_for_notebook_pages(app, env, docnames) -> None:
    """Before Sphinx reads the pages: the notebook pages' outputs must be in the cache."""
    if "process" not in _notebooks:
        return
    process, log = _notebooks.pop("process"), _notebooks.pop("log")
    if process.wait() != 0:
        log.seek(0)
        raise ExtensionError(log.read()[-6000:])


def execute_notebook_pages(srcdir: Path, cache_path: str, reuse: bool, timeout: int) -> int:
    """Execute the MyST notebook pages under ``srcdir`` into jupyter-cache; 1 if one fails."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.executors.utils import single_nb_execution
    from myst_nb.core.read import read_myst_markdown_notebook

    cache = get_cache(cache_path)
    if not reuse:
        cache.clear_cache()
    for page in sorted(srcdir.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if "file_format: mystnb" not in text or "_build" in page.parts:
            continue
        notebook = read_myst_markdown_notebook(text, path=page)
        if reuse and _cached(cache, notebook):
            continue
        result = single_nb_execution(
            notebook, cwd=str(page.parent), timeout=timeout, allow_errors=False
        )
        if result.err is not None:
            print(f"{page.relative_to(srcdir)} failed to execute: {result.err}", flush=True)
            return 1
        drop_native_log_lines(notebook)
        cache.cache_notebook_bundle(
            CacheBundleIn(notebook, str(page)), check_validity=False, overwrite=True
        )
    return 0


# A C++ log line (abseil's format: severity, date, time, thread, file:line]) and abseil's notice
# that precedes them. Jupyter's kernel sends everything written to its file descriptor 2 into the
# notebook, so TensorFlow's import-time lines ("oneDNN custom operations are on", on CPUs where
# oneDNN is on) would show on a page; TF_CPP_MIN_LOG_LEVEL does not silence them (they are
# written before abseil's logging starts).
NATIVE_LOG_LINE = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ [^\s:]+:\d+\] .*"
    r"|WARNING: All log messages before absl::InitializeLog\(\) is called .*)\n?",
    re.MULTILINE,
)


def drop_native_log_lines(notebook) -> None:
    """Remove the frameworks' C++ log lines from the notebook's stream outputs (see above)."""
    for cell in notebook.cells:
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output["text"] = NATIVE_LOG_LINE.sub("", output["text"])
                if not output["text"]:
                    continue
            outputs.append(output)
        if "outputs" in cell:
            cell["outputs"] = outputs


def _cached(cache, notebook) -> bool:
    """True if jupyter-cache holds outputs for exactly this notebook's code."""
    try:
        cache.match_cache_notebook(notebook)
    except KeyError:
        return False
    return True


def setup(app):
    app.connect("config-inited", start_notebook_pages)
    app.connect("env-before-read-docs", wait_for_notebook_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # the notebook pages' process, started by start_notebook_pages
    srcdir, cache_path, timeout = sys.argv[1:]
    sys.exit(execute_notebook_pages(Path(srcdir), cache_path, False, int(timeout)))
