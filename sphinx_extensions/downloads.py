"""What a reader takes home: the install line, the downloads' header, and Colab.

* ``install-line`` (directive) and ``add_install_line_to_example_footers`` (``doctree-read``):
  the one ``pip install`` line a reader needs, on the landing page and in every example's
  download area.
* ``add_install_line_to_downloads`` (``builder-inited``, after sphinx-gallery wrote them): every
  downloadable script, and the zips holding it, starts with that line and imports ``sidebyside``
  first.
* ``add_colab_link`` (``html-page-context``) and ``write_colab_notebooks`` (``build-finished``):
  an "Open in Colab" link on each example page, to the notebook the workflow publishes from the
  build's ``colab/`` folder on the repository's ``colab`` branch (``sidebyside_repo``).
"""

from __future__ import annotations

import ast
import os
import shutil
import zipfile
from pathlib import Path

import sidebyside
from sidebyside.device import REQUIRED, SUPPORTED

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from sphinx_extensions import GALLERY_OUTPUT, site_root

INSTALL_NOTE = (
    "On an NVIDIA GPU machine use ``[cuda]`` instead of ``[cpu]``. On Linux, PyPI's torch wheel is "
    "the CUDA build (several GB); for the small CPU-only build, first run "
    f"``pip install torch=={REQUIRED['torch']} --index-url https://download.pytorch.org/whl/cpu``. "
    "Where torch and TensorFlow are installed already (Colab, your own environment), "
    f"``pip install sidebyside=={sidebyside.__version__}`` adds the helpers and keeps them (a torch "
    f"older than {'.'.join(map(str, SUPPORTED['torch'][0]))} is upgraded); each notebook's first "
    "cell does that, and prints the versions the page was built with."
)
#: The footer's words before the install line, per language (added after the page's text was
#: translated, so not from the catalogue).
INSTALL_FIRST = {
    "en": "To run the downloads on your machine, install first:",
    "zh_CN": "在你的机器上运行下载的文件之前，先安装：",
}


def _install_block() -> nodes.literal_block:
    block = nodes.literal_block(sidebyside.INSTALL_LINE, sidebyside.INSTALL_LINE)
    block["language"] = "console"
    block["classes"].append("sbs-install")
    return block


class InstallLine(SphinxDirective):
    """``install-line``: the one command that makes every downloaded example run."""

    def run(self):
        return [_install_block(), *self.parse_text_to_nodes(INSTALL_NOTE)]


def _with_literals(text: str) -> nodes.paragraph:
    """A paragraph from text whose only markup is ``literal``."""
    paragraph = nodes.paragraph()
    for i, part in enumerate(text.split("``")):
        paragraph += nodes.literal(part, part) if i % 2 else nodes.Text(part)
    return paragraph


def add_install_line_to_example_footers(app, doctree: nodes.document) -> None:
    """The download area of every example page says what to install first, and what that
    installs on Linux (the note the landing page gives beside the same line)."""
    if not app.env.docname.startswith(GALLERY_OUTPUT + "/"):
        return
    language = app.config.language
    note = INSTALL_NOTE
    if language != "en":
        from sphinx.locale import init as init_locale

        dirs = [str(Path(app.srcdir, folder)) for folder in app.config.locale_dirs]
        note = init_locale(dirs, language, app.config.gettext_compact)[0].gettext(INSTALL_NOTE)
    for footer in doctree.findall(nodes.container):
        if "sphx-glr-footer" in footer["classes"]:
            text = nodes.paragraph("", INSTALL_FIRST.get(language, INSTALL_FIRST["en"]))
            footer.insert(0, _with_literals(note))
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


def setup(app):
    app.add_directive("install-line", InstallLine)
    app.connect("builder-inited", add_install_line_to_downloads, priority=600)
    app.connect("doctree-read", add_install_line_to_example_footers)
    app.add_config_value("sidebyside_repo", "sidebyside/sidebyside", "html")
    app.connect("html-page-context", add_colab_link)
    app.connect("build-finished", write_colab_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
