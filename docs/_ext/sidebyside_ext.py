"""Sphinx glue for the sidebyside gallery.

* ``wrap_panes``: on gallery pages, a cell whose text opens with **TensorFlow…** (bold), followed
  by a cell whose text opens with **PyTorch…**, become two panes of one grid: text, code and output
  each (CSS stacks them on phones). The example stays plain Python; only the HTML layout changes.
* ``reset_example``: sphinx-gallery calls it before and after every example (``reset_modules``).
  Before, it seeds everything; after, it fails the build if the example leaked global state.
* ``check_every_example_ran``: after the build, every gallery script must have an executed page.
* ``start_notebook_pages``: runs the MyST notebook pages in a process of their own while the
  gallery executes, and ``wait_for_notebook_pages`` makes Sphinx read them only when they are done.
* ``install-line`` (directive) and ``add_install_line_to_downloads``: the one ``pip install`` line
  a reader needs, on the pages and at the top of every downloaded script.
* ``write_robots_and_offline_zip``: ``robots.txt`` naming the sitemap, and a zip of the whole site
  that opens from disk.
* ``add_language_links``: the same page in the other language, for the header's language switch
  and the ``hreflang`` links; ``write_robots_and_offline_zip`` adds a translation to the sitemap.
* ``paint_early``: images after a page's first load lazily and scripts are deferred, so the text
  paints early on a slow network.
* ``bundle_stylesheets``: every page links one stylesheet, ``_static/site.css``, with all of them.
* ``name_sidebar_toggles``: the theme's expand/collapse buttons in the sidebar get an accessible
  name ("Pages under …"); the theme gives them only an icon.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import urlparse

from docutils import nodes
from docutils.transforms import Transform
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import sidebyside
from sidebyside.device import REQUIRED

logger = logging.getLogger(__name__)
GALLERY_OUTPUT = "auto_examples"
PANE_START = {"tensorflow": re.compile(r"TensorFlow\b"), "pytorch": re.compile(r"PyTorch\b")}


# --- side-by-side panes --------------------------------------------------------------------------


def _is_code(node: nodes.Node) -> bool:
    return isinstance(node, nodes.literal_block) and node.get("language", "").lower() == "python"


def _pane_framework(node: nodes.Node) -> str | None:
    """'tensorflow' / 'pytorch' if ``node`` is a paragraph opening with **TensorFlow…**/**PyTorch…**."""
    if isinstance(node, nodes.paragraph) and node.children:
        first = node.children[0]
        if isinstance(first, nodes.strong):
            for framework, marker in PANE_START.items():
                if marker.match(first.astext()):
                    return framework
    return None


def _is_cell_output(node: nodes.Node) -> bool:
    """Printed text, captured HTML reprs and figures that sphinx-gallery places after a code cell."""
    if isinstance(node, (nodes.comment, nodes.raw)):
        return True
    if "sphx-glr-script-out" in node.get("classes", []):
        return True
    return "image" in type(node).__name__.lower() or "img" in type(node).__name__.lower()


def _take_pane(siblings: list[nodes.Node], start: int) -> int:
    """Index just past the pane opening at ``start``: its text, its code cell, and the outputs."""
    end = start + 1
    while end < len(siblings) and not _is_code(siblings[end]):
        if _pane_framework(siblings[end]) or isinstance(siblings[end], nodes.section):
            return end  # text without code: not a pane after all
        end += 1
    if end == len(siblings):
        return end
    end += 1
    while end < len(siblings) and _is_cell_output(siblings[end]):
        end += 1
    return end


def wrap_panes(app, doctree: nodes.document) -> None:
    """Put each TensorFlow cell and the PyTorch cell right after it into one two-column grid."""
    if not app.env.docname.startswith(GALLERY_OUTPUT + "/"):
        return
    for parent in list(doctree.findall(nodes.Element)):
        children = list(parent.children)
        i, rebuilt, changed = 0, [], False
        while i < len(children):
            if _pane_framework(children[i]) == "tensorflow":
                tf_end = _take_pane(children, i)
                if tf_end < len(children) and _pane_framework(children[tf_end]) == "pytorch":
                    torch_end = _take_pane(children, tf_end)
                    grid = nodes.container(classes=["sbs-grid"])
                    grid += nodes.container("", *children[i:tf_end], classes=["sbs-pane", "sbs-tf"])
                    grid += nodes.container(
                        "", *children[tf_end:torch_end], classes=["sbs-pane", "sbs-torch"]
                    )
                    rebuilt.append(grid)
                    i, changed = torch_end, True
                    continue
            rebuilt.append(children[i])
            i += 1
        if changed:
            parent.children = []
            parent.extend(rebuilt)


# --- one example must not change the next one -----------------------------------------------------

_before: dict = {}
_saved: dict = {}


def _global_state() -> dict:
    """The process-wide settings an example could leak into the next one."""
    state = {}
    if "tensorflow" in sys.modules:
        tf = sys.modules["tensorflow"]
        state["TensorFlow executes eagerly"] = tf.executing_eagerly()
        state["TensorFlow default graph"] = id(tf.compat.v1.get_default_graph())
        state["TensorFlow runs functions eagerly"] = tf.config.functions_run_eagerly()
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        state["torch default dtype"] = torch.get_default_dtype()
        state["torch default device"] = str(torch.get_default_device())
        state["torch grad mode"] = torch.is_grad_enabled()
        state["torch threads"] = torch.get_num_threads()
    if "torch._dynamo" in sys.modules:
        state["torch.compile recompile limit"] = sys.modules["torch._dynamo"].config.recompile_limit
    if "matplotlib.pyplot" in sys.modules:
        state["open matplotlib figures"] = len(sys.modules["matplotlib.pyplot"].get_fignums())
    return state


def _refuse_exit(*args):
    raise RuntimeError(
        "examples must not exit (sys.exit, exit, quit): sphinx-gallery cannot catch it and the "
        "page would silently not be written. Print a notice on the page instead."
    )


def _imports_beyond_stdlib(gallery_conf, fname: str) -> bool:
    """Whether the example ``fname`` (a file name in the gallery) imports a module outside
    Python's standard library. One that imports none (the tests' throwaway galleries) loads no
    framework, short of importing one by name at run time, so its checks need not import them
    (8 s here); the leak test's example imports both, as every real example does."""
    gallery = Path(gallery_conf["src_dir"], gallery_conf["examples_dirs"][0])
    scripts = list(gallery.rglob(Path(fname).name))
    imported = set()
    for script in scripts:
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module or "")
    roots = {name.partition(".")[0] for name in imported}
    return not scripts or not roots <= sys.stdlib_module_names  # not found: it might


def reset_example(gallery_conf, fname, when) -> None:
    """Prepare each example and check it afterwards (sphinx-gallery's ``reset_modules`` hook).

    Before: seed everything, forget earlier parity checks, turn deprecation warnings raised by the
    example's own code into errors, and make ``sys.exit()`` raise an ordinary error. Then freeze
    what is alive (the frameworks' modules, mostly): sphinx-gallery runs ``gc.collect()`` before
    every example, which otherwise walks both frameworks' ~0.5 million objects each time (8 s of
    a full build here); frozen objects are never collected, and they are all still in use.
    After: restore those, and fail naming the example if it changed global state.
    """
    import builtins
    import gc
    import warnings

    import sidebyside
    from sidebyside.parity import reset_parity_log

    if fname is None:
        return
    if when == "before":
        # Both frameworks are loaded first, so that their state is compared afterwards; not for an
        # example that imports nothing beyond the standard library (the tests' throwaway ones).
        loaded = {"tensorflow", "torch"} <= sys.modules.keys()
        if not loaded and _imports_beyond_stdlib(gallery_conf, fname):
            import tensorflow  # noqa: F401
            import torch  # noqa: F401

        sidebyside.seed_everything(0)
        reset_parity_log()
        _before.clear()
        _before.update(_global_state())
        _saved.update(
            filters=warnings.filters[:],
            exit=sys.exit,
            builtins_exit=builtins.exit,
            quit=builtins.quit,
        )
        # The example runs as __main__: only warnings attributed to its own lines become errors.
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.filterwarnings("error", category=category, module="__main__")
        sys.exit = builtins.exit = builtins.quit = _refuse_exit
        if gc.get_freeze_count():  # the previous example's garbage goes, the survivors freeze
            gc.collect()
        gc.freeze()  # (before the first example, the imports' garbage is not worth a 0.4 s walk)
        return
    warnings.filters[:] = _saved["filters"]
    sys.exit, builtins.exit, builtins.quit = _saved["exit"], _saved["builtins_exit"], _saved["quit"]
    after = _global_state()
    leaked = [
        f"{key}: {_before[key]!r} before, {after[key]!r} after"
        for key in _before
        if key in after and after[key] != _before[key]
    ]
    if leaked:
        raise ExtensionError(
            f"{Path(fname).name} leaked global state into the examples after it: "
            + "; ".join(leaked)
            + ". Build TF1 graphs inside `with tf.Graph().as_default():` and restore any "
            "global setting you change."
        )


# --- no example may silently not run --------------------------------------------------------------

_build = {"started": False, "finished": False}


def _partial_build() -> bool:
    """The edit loop (``EXAMPLE=…``) or live preview: only some pages change, nothing is final."""
    return any(os.environ.get(v) for v in ("EXAMPLE", "SIDEBYSIDE_LIVE"))


def _exit_nonzero_if_unfinished() -> None:
    """Last line of defence: ``raise SystemExit`` in an example ends sphinx-build with status 0."""
    if _build["started"] and not _build["finished"]:
        sys.stderr.write(
            "sphinx-build stopped before the build finished (SystemExit in an example?)\n"
        )
        os._exit(1)


def check_every_example_ran(app, exception) -> None:
    """Every gallery script this build was to execute has a page, and sphinx-gallery recorded its
    run: executed without error now (``passing_examples``), or kept from an earlier run because
    its md5 is unchanged (``stale_examples``: the edit loop, merged shards). A failed one is
    reported by sphinx-gallery itself, with its traceback. Not a running time: a short example
    runs in "0.000 seconds" on a fast machine."""
    _build["finished"] = True
    if exception is not None:
        return
    conf = app.config.sphinx_gallery_conf
    recorded = {Path(p).name for p in [*conf["passing_examples"], *conf["stale_examples"]]}
    failed = {Path(p).name for p in conf["failing_examples"]}
    problems = []
    for examples_dir, gallery_dir in zip(conf["examples_dirs"], conf["gallery_dirs"], strict=True):
        examples_dir, gallery_dir = Path(app.srcdir, examples_dir), Path(app.srcdir, gallery_dir)
        for script in sorted(examples_dir.rglob("plot_*.py")):
            if not re.search(conf["filename_pattern"], str(script)) or script.name in failed:
                continue  # not to execute (the Chinese build), or reported by sphinx-gallery
            page = gallery_dir / script.relative_to(examples_dir).with_suffix(".rst")
            if not page.exists():
                problems.append(f"{script.name}: no page was written (did it call sys.exit()?)")
            elif script.name not in recorded:
                problems.append(f"{script.name}: sphinx-gallery recorded no run of it")
    if problems:
        raise ExtensionError("Examples that did not run:\n  " + "\n  ".join(problems))


# --- notebook pages run beside the gallery -------------------------------------------------------

_notebooks: dict = {}


def start_notebook_pages(app, config) -> None:
    """Start executing the MyST notebook pages in a process of their own, beside the gallery.

    The process (``python sidebyside_ext.py SRCDIR …``, see ``execute_notebook_pages``) runs each
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
    reuse = _partial_build() or config.language != "en"
    reuse = reuse or os.environ.get("SIDEBYSIDE_EXECUTE") == "0"
    if reuse:  # most often nothing to execute: checking the cache here is quicker than a process
        if execute_notebook_pages(Path(app.srcdir), str(cache), True, config.nb_execution_timeout):
            raise ExtensionError("a notebook page failed to execute (see above)")
        return
    log = tempfile.TemporaryFile("w+")
    command = [sys.executable, __file__, app.srcdir, cache, str(config.nb_execution_timeout)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
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


# --- the install line: on the pages and in every download -----------------------------------------

INSTALL_NOTE = (
    "On an NVIDIA GPU machine use ``[cuda]`` instead of ``[cpu]``. On Linux, PyPI's torch wheel is "
    "the CUDA build (several GB); for the small CPU-only build, first run "
    f"``pip install torch=={REQUIRED['torch']} --index-url https://download.pytorch.org/whl/cpu``. "
    "Where torch and TensorFlow are installed already (Colab, your own environment), "
    f"``pip install sidebyside=={sidebyside.__version__}`` adds the helpers and keeps them (a torch "
    "older than 2.13 is upgraded); each notebook's first cell does that, and prints the versions "
    "the page was built with."
)


def _install_block() -> nodes.literal_block:
    block = nodes.literal_block(sidebyside.INSTALL_LINE, sidebyside.INSTALL_LINE)
    block["language"] = "console"
    block["classes"].append("sbs-install")
    return block


class InstallLine(SphinxDirective):
    """``install-line``: the one command that makes every downloaded example run."""

    def run(self):
        return [_install_block(), *self.parse_text_to_nodes(INSTALL_NOTE)]


def add_install_line_to_example_footers(app, doctree: nodes.document) -> None:
    """The download area of every example page says what to install first."""
    if not app.env.docname.startswith(GALLERY_OUTPUT + "/"):
        return
    for footer in doctree.findall(nodes.container):
        if "sphx-glr-footer" in footer["classes"]:
            text = nodes.paragraph("", "To run the downloads on your machine, install first:")
            footer.insert(0, _install_block())
            footer.insert(0, text)


DOWNLOAD_HEADER = """
# Runs on your machine after one install (use [cuda] instead of [cpu] on an NVIDIA GPU):
#     {line}
import importlib.util  # noqa: E402
import sys  # noqa: E402

_missing = [m for m in ("sidebyside", "tensorflow", "torch") if not importlib.util.find_spec(m)]
if _missing:
    sys.exit(f"This example needs {{', '.join(_missing)}}. Install with: " + {line!r})
import sidebyside  # noqa: E402,F401  (before TensorFlow: it loads triton first, see its docs)
"""


def with_install_header(source: str) -> str:
    """``source`` with DOWNLOAD_HEADER inserted after its module docstring."""
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    docstring_end = first.end_lineno if isinstance(first, ast.Expr) else 0
    lines = source.splitlines(keepends=True)
    header = DOWNLOAD_HEADER.format(line=sidebyside.INSTALL_LINE)
    return "".join(lines[:docstring_end]) + header + "".join(lines[docstring_end:])


def add_install_line_to_downloads(app) -> None:
    """Give every downloadable gallery script (and the zips holding it) the install header.

    Runs after sphinx-gallery has copied the scripts into ``auto_examples`` and zipped them; the
    sources in ``gallery/`` stay plain. A reader without the package gets one line, not a traceback.
    """
    gallery = Path(app.srcdir) / GALLERY_OUTPUT
    sources = Path(app.srcdir) / app.config.sphinx_gallery_conf["examples_dirs"][0]
    patched, newest = {}, 0.0
    for script in gallery.rglob("plot_*.py"):
        text = script.read_text(encoding="utf-8")
        if sidebyside.INSTALL_LINE not in text:
            script.write_text(with_install_header(text), encoding="utf-8")
        patched[script.name] = script.read_bytes()
        # The copy keeps its source's time: Sphinx re-reads a page when a download it links to
        # is newer than the page, and the edit loop should re-read only the edited example's.
        source = sources / script.relative_to(gallery)
        if source.exists():
            mtime = source.stat().st_mtime
            os.utime(script, (mtime, mtime))
            newest = max(newest, mtime)
    for archive in gallery.rglob("*.zip"):
        with zipfile.ZipFile(archive) as old:
            members = [(info, old.read(info)) for info in old.infolist()]
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as new:
            for info, data in members:
                new.writestr(info, patched.get(Path(info.filename).name, data))
        if newest:
            os.utime(archive, (newest, newest))


# --- the gallery's thumbnails in the reader's language --------------------------------------------

THUMBNAIL_TITLE = re.compile(r'(<div class="sphx-glr-thumbnail-title">)(.*?)(</div>)')
TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer" tooltip=")(.*?)(">)')


def translate_thumbnails(app, docname: str, source: list[str]) -> None:
    """A translated gallery index: sphinx-gallery writes each thumbnail's title and tooltip as raw
    HTML, which gettext never sees; they come from the catalogue here (the page's own title and
    first paragraph are in it), as the pages they link to are translated."""
    if app.config.language == "en" or not re.fullmatch(rf"{GALLERY_OUTPUT}(/\w+)?/index", docname):
        return
    from sphinx.locale import init as init_locale
    from sphinx_gallery.gen_rst import _sanitize_rst  # how it made the tooltip from the text

    dirs = [str(Path(app.srcdir, folder)) for folder in app.config.locale_dirs]
    catalogue, _ = init_locale(dirs, app.config.language, app.config.gettext_compact)
    messages = getattr(catalogue, "_catalog", {})
    plain = {_sanitize_rst(k): _sanitize_rst(v) for k, v in messages.items() if isinstance(k, str)}

    def translated(match, table):
        text = html.unescape(match[2])
        return match[1] + html.escape(table.get(text, text)) + match[3]

    source[0] = THUMBNAIL_TITLE.sub(lambda m: translated(m, messages), source[0])
    source[0] = TOOLTIP.sub(lambda m: translated(m, plain), source[0])


# --- Colab: every example's notebook, opened from GitHub ------------------------------------------

COLAB = "https://colab.research.google.com/github/{repo}/blob/{branch}/{stem}.ipynb"
COLAB_BRANCH = "colab"  # site.yml's deploy job pushes the build's colab/ folder to this branch


def colab_folder(app) -> Path:
    """Where the build puts the notebooks Colab opens: ``colab/`` beside the site's folder."""
    return site_root(app).parent / "colab"


def add_colab_link(app, pagename, templatename, context, doctree) -> None:
    """An example page's "Open in Colab" link (the sidebar template shows it)."""
    folder, _, stem = pagename.rpartition("/")
    if folder.startswith(GALLERY_OUTPUT + "/") and stem.startswith("plot_"):
        repo, branch = app.config.sidebyside_repo, COLAB_BRANCH
        context["sbs_colab_url"] = COLAB.format(repo=repo, branch=branch, stem=stem)


def write_colab_notebooks(app, exception) -> None:
    """Copy every example's notebook (the download, install cell first) into colab_folder()."""
    if exception is not None or app.builder.format != "html" or app.config.language != "en":
        return
    out = colab_folder(app)
    out.mkdir(parents=True, exist_ok=True)
    for notebook in (Path(app.srcdir) / GALLERY_OUTPUT).rglob("plot_*.ipynb"):
        shutil.copy2(notebook, out / notebook.name)


# --- robots.txt and the offline copy --------------------------------------------------------------

OFFLINE_ZIP = "sidebyside-offline.zip"


def site_root(app) -> Path:
    """The folder of the whole site: this build's output, or its parent for a translation."""
    out = Path(app.outdir)
    return out.parent if app.config.language != "en" else out


def write_robots_and_offline_zip(app, exception) -> None:
    """``robots.txt`` naming the sitemap, and the whole site (every language built so far) zipped
    for reading from disk. A translation's build adds its pages to the site's one sitemap."""
    if exception is not None or app.builder.format != "html":
        return
    root = site_root(app)
    if app.config.language != "en":
        _merge_sitemap(root / "sitemap.xml", Path(app.outdir) / "sitemap.xml")
    else:
        (root / "robots.txt").write_text(
            f"User-agent: *\nAllow: /\n\nSitemap: {app.config.html_baseurl}sitemap.xml\n"
        )
    if _partial_build() or app.config.sidebyside_shard:
        return  # the edit loop, live preview and a shard leave the last full build's zip alone
    with zipfile.ZipFile(root / OFFLINE_ZIP, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            inside = path.relative_to(root)
            hidden = any(part.startswith(".") for part in inside.parts)  # .doctrees, .buildinfo
            if path.is_file() and not hidden and path.name != OFFLINE_ZIP:
                archive.write(path, Path("sidebyside") / inside)


def _merge_sitemap(site_map: Path, translation_map: Path) -> None:
    """Add the ``<url>`` entries of a translation's sitemap to the site's sitemap."""
    if not site_map.exists():
        return  # a translation built alone keeps its own sitemap only
    entries = re.findall(r"<url>.*?</url>", translation_map.read_text(encoding="utf-8"), re.S)
    text = site_map.read_text(encoding="utf-8")
    new = [entry for entry in entries if entry not in text]
    site_map.write_text(text.replace("</urlset>", "".join(new) + "</urlset>"), encoding="utf-8")


def _to_site_root(config, pagename: str) -> str:
    """The relative path from a page to the site root ("../" more for a translation's folder)."""
    folder = config.sidebyside_languages[config.language]  # {"en": "", "zh_CN": "zh_CN/"}
    return "../" * (pagename.count("/") + (1 if folder else 0))


def offline_zip_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{offline-zip}`label```: a download link to the site's zip, from any page, any language."""
    env = inliner.document.settings.env
    href = _to_site_root(env.config, env.docname) + OFFLINE_ZIP
    return [nodes.raw("", f'<a href="{href}" download>{text}</a>', format="html")], []


def add_language_links(app, pagename, templatename, context, doctree) -> None:
    """The same page in every language: for the header's switcher and the hreflang links."""
    languages = app.config.sidebyside_languages
    to_root = _to_site_root(app.config, pagename)
    site = app.config.html_baseurl[: -len(languages[app.config.language]) or None]
    context["sbs_languages"] = [
        {
            "code": code,
            "tag": code.replace("_", "-"),
            "name": LANGUAGE_NAMES[code],
            "url": f"{to_root}{folder}{pagename}.html",
            "absolute": f"{site}{folder}{pagename}.html",
            "current": code == app.config.language,
        }
        for code, folder in languages.items()
    ]


def fix_chinese_search(app, exception) -> None:
    """Sphinx 9.0.4's Chinese search names a stemmer that does not exist, so the search page
    finds nothing ("ChineseStemmer is not defined", sphinx-doc/sphinx#14229). Apply the fix
    Sphinx merged upstream (#14416): Chinese search uses the English stemmer it ships."""
    data = Path(app.outdir) / "_static" / "language_data.js"
    if exception is None and app.config.html_search_language == "zh" and data.exists():
        text = data.read_text(encoding="utf-8")
        broken = "window.Stemmer = ChineseStemmer;"
        if broken in text:
            data.write_text(text.replace(broken, "window.Stemmer = EnglishStemmer;"), "utf-8")


class RunningTimeIsNotText(Transform):
    """sphinx-gallery's "Total running time of the script: (0 minutes 1.4 seconds)" line changes
    at every build: keep it out of the catalogues, and label it in the page's language."""

    default_priority = 5  # before Sphinx's Locale transform (20) translates the page
    LABEL = {"zh_CN": "脚本总运行时间："}

    def apply(self) -> None:
        for strong in self.document.findall(nodes.strong):
            if strong.astext() == "Total running time of the script:":
                strong.parent["translatable"] = False
                label = self.LABEL.get(self.document.settings.env.config.language)
                if label:
                    strong.replace(strong[0], nodes.Text(label))


LANGUAGE_NAMES = {"en": "English", "zh_CN": "中文"}

STYLESHEET = re.compile(r'<link (?=[^>]*rel="stylesheet")[^>]*href="([^"]+)"[^>]*>\s*')
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*['"]?([^'")\s]+)['"]?\s*\)?\s*;""")
BUNDLE = "site.css"  # in _static/


def _inline_css(css: Path, static: Path) -> str:
    """A stylesheet's text with its @imports inlined and its url()s made relative to _static/."""

    def imported(match):
        return _inline_css((css.parent / match[1]).resolve(), static)

    def moved(match):
        quote, target = match[1], match[2]
        if re.match(r"[a-z]+:|/|#", target):
            return match[0]  # data:, another host, the host's root, an SVG fragment
        new = os.path.relpath((css.parent / target).resolve(), static)
        return f"url({quote}{Path(new).as_posix()}{quote})"

    text = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css.read_text(encoding="utf-8"))
    return CSS_URL.sub(moved, CSS_IMPORT.sub(imported, text))


def _purge(bundle: Path, out: Path) -> None:
    """Drop the rules no page and no script of this build uses (PurgeCSS, pinned in
    package.json; `make html` installs it): the theme ships Bootstrap's and Font Awesome's whole
    stylesheets, 64 of the bundle's 88 KB gzipped. Without Node the bundle stays whole."""
    purgecss = next(
        (p for p in (Path.cwd(), out.parent) if (p / "node_modules/.bin/purgecss").exists()), None
    )
    if purgecss is None or shutil.which("node") is None:
        logger.info("PurgeCSS not installed (npm install): the site's stylesheet stays whole")
        return
    with tempfile.TemporaryDirectory() as purged:
        subprocess.run(
            [
                purgecss / "node_modules/.bin/purgecss",
                "--css",
                bundle,
                "--output",
                purged,
                "--content",
                out / "**/*.html",
                out / "_static/**/*.js",
            ],
            check=True,
            capture_output=True,
        )
        shutil.copy(Path(purged) / bundle.name, bundle)


CSS_CODEPOINT = re.compile(r'"\\([0-9a-fA-F]{1,6})"')


def _subset_icon_fonts(bundle: Path, static: Path) -> None:
    """Cut the icon fonts the bundle names down to the glyphs it uses (fontTools): Font Awesome's
    solid font is 115 KB, a reader downloads it before the first paint, and the site shows a
    dozen of its 2,000 icons."""
    import logging as python_logging

    from fontTools import subset

    python_logging.getLogger("fontTools").setLevel("WARNING")  # one INFO line per table

    css = bundle.read_text(encoding="utf-8")
    codepoints = {int(code, 16) for code in CSS_CODEPOINT.findall(css)}  # "\\f002"
    codepoints |= {ord(char) for char in css if 0xE000 <= ord(char) <= 0xF8FF}  # the glyph itself
    for url in sorted(set(re.findall(r"url\(([^)]+\.woff2)\)", css))):
        font_file = static / url.strip("'\"")
        if font_file.exists():
            options = subset.Options(flavor="woff2", layout_features=["*"])
            font = subset.load_font(str(font_file), options)
            cut = subset.Subsetter(options)
            cut.populate(unicodes=codepoints & set(font.getBestCmap()))
            cut.subset(font)
            subset.save_font(font, str(font_file), options)


def bundle_stylesheets(app, exception) -> None:
    """One stylesheet per page instead of eleven (the theme's, Sphinx's, each extension's),
    without the rules nothing uses: on a slow network every extra file and kilobyte delays the
    first paint (Lighthouse, slow 4G: 2.9 s -> 1.3 s). ``_static/site.css`` holds them all, in
    their order; each page links it instead of them."""
    if exception is not None or app.builder.format != "html":
        return
    out, static = Path(app.outdir), Path(app.outdir) / "_static"
    prefix = urlparse(app.config.html_baseurl).path  # the 404 page links from the host's root
    other_languages = {f.strip("/") for f in app.config.sidebyside_languages.values() if f}
    bundle, sources = static / BUNDLE, None
    for page in sorted(out.rglob("*.html")):
        inside = page.relative_to(out).parts
        if "_static" in inside or (app.config.language == "en" and inside[0] in other_languages):
            continue
        html = page.read_text(encoding="utf-8")
        links = list(STYLESHEET.finditer(html))
        if not links:
            continue  # bundled already (a page the edit loop did not rewrite)
        files = []
        for link in links:
            href = urlparse(link[1]).path
            path = out / href[len(prefix) :] if href.startswith(prefix) else page.parent / href
            files.append(path.resolve())
        if any(static not in f.parents for f in files):
            continue  # a stylesheet from elsewhere: leave the page as it is
        if sources is None:
            sources = files
            bundle.write_text("\n".join(_inline_css(css, static) for css in files), "utf-8")
            if not _partial_build():
                _purge(bundle, out)  # the edit loop keeps every rule: a second saved
                _subset_icon_fonts(bundle, static)
            digest = hashlib.sha256(bundle.read_bytes()).hexdigest()[:8]
        elif files != sources:
            continue  # a page with other stylesheets keeps them
        to_static = os.path.relpath(static, page.parent)
        if links[0][1].startswith(prefix):
            to_static = prefix + "_static"
        tag = f'<link rel="stylesheet" href="{Path(to_static).as_posix()}/{BUNDLE}?v={digest}" />\n'
        start, end = links[0].start(), links[-1].end()
        middle = STYLESHEET.sub("", html[start:end])  # anything between the links stays
        page.write_text(html[:start] + tag + middle + html[end:], encoding="utf-8")


# --- pages that paint early on a slow network -----------------------------------------------------

_IMG = re.compile(r"<img (?![^>]*\bloading=)")
BLOCKING_SCRIPTS = ("documentation_options.js",)  # the theme's inline scripts read its object


def paint_early(app, pagename, templatename, context, doctree) -> None:
    """Let the text paint before images and scripts arrive (Lighthouse, slow 4G).

    * Images load when they come near the screen (``loading="lazy"``): thumbnails and figures
      below the fold, and the hidden variant of each light/dark figure pair, no longer share the
      reader's bandwidth with the text.
    * Scripts run after the page is parsed (``defer``; deferred scripts keep their order), except
      the one the theme's inline scripts need at once.
    """
    if "body" in context:
        context["body"] = _IMG.sub('<img loading="lazy" ', context["body"])
    if pagename == "search":
        return  # its search script runs at once and needs doctools.js before it
    from sphinx.builders.html._assets import _JavaScript

    context["script_files"] = [
        _JavaScript(js.filename, priority=js.priority, **{**js.attributes, "defer": "defer"})
        if isinstance(js, _JavaScript)
        and js.filename
        and not js.filename.endswith(BLOCKING_SCRIPTS)
        and not {"async", "defer"} & set(js.attributes)
        else js
        for js in context.get("script_files", [])
    ]


def name_sidebar_toggles(app, pagename, templatename, context, doctree) -> None:
    """Give each ``<summary>`` of the theme's sidebar navigation a name a screen reader can say."""
    make_toctree = context.get("generate_toctree_html")
    if make_toctree is None:
        return

    def named_toctree(*args, **kwargs):
        from bs4 import BeautifulSoup  # pydata-sphinx-theme's own dependency

        html = make_toctree(*args, **kwargs)
        soup = BeautifulSoup(str(html), "html.parser")
        for summary in soup.select("details > summary"):
            link = summary.find_parent("li").find("a", recursive=False)
            if not summary.get_text(strip=True) and link is not None:
                summary["aria-label"] = f"Pages under {link.get_text(' ', strip=True)}"
        return str(soup)

    context["generate_toctree_html"] = named_toctree


def _skip_code_links(app) -> None:
    """sphinx-gallery re-tokenises every code block to link names to API pages; this site has
    none, so no link is ever made (a test checks), and the pass costs ~0.2 s a page."""
    post_transforms = app.registry.post_transforms  # Sphinx's list; no public way to remove one
    post_transforms[:] = [t for t in post_transforms if t.__name__ != "CodeLinksTransform"]


def setup(app):
    _build["started"] = True
    _skip_code_links(app)
    app.add_directive("install-line", InstallLine)
    app.add_role("offline-zip", offline_zip_role)
    app.connect("builder-inited", add_install_line_to_downloads, priority=600)
    app.connect("doctree-read", add_install_line_to_example_footers)
    app.connect("source-read", translate_thumbnails)
    app.connect("build-finished", write_robots_and_offline_zip, priority=900)
    app.connect("config-inited", start_notebook_pages)
    app.connect("env-before-read-docs", wait_for_notebook_pages)
    atexit.register(_exit_nonzero_if_unfinished)
    app.connect("doctree-read", wrap_panes)
    app.connect("build-finished", check_every_example_ran)
    app.connect("html-page-context", name_sidebar_toggles, priority=600)  # after the theme's
    app.add_config_value("sidebyside_languages", {"en": ""}, "html")
    app.connect("html-page-context", add_language_links)
    app.add_config_value("sidebyside_repo", "sidebyside/sidebyside", "html")
    app.connect("html-page-context", add_colab_link)
    app.connect("build-finished", write_colab_notebooks)
    app.connect("html-page-context", paint_early)
    app.add_transform(RunningTimeIsNotText)
    app.connect("build-finished", fix_chinese_search, priority=800)  # before the offline zip
    app.connect("build-finished", bundle_stylesheets, priority=850)  # before the offline zip
    app.add_css_file("sidebyside.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # the notebook pages' process, started by start_notebook_pages
    srcdir, cache_path, timeout = sys.argv[1:]
    sys.exit(execute_notebook_pages(Path(srcdir), cache_path, False, int(timeout)))
