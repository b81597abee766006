"""A translated edition's downloads: the same scripts and notebooks, their text translated.

* ``write_translated_downloads`` (``build-finished``, on a translated build): Sphinx copied the
  English downloads into the build's ``_downloads/``; every example's script, notebook and zip
  there (and the galleries' zips holding them) is replaced by its translation, and the notebook
  Colab opens is written to ``colab/<language folder>/`` (``downloads.colab_folder``). The
  script's module docstring and ``# %%`` text cells are translated paragraph by paragraph from the
  catalogue the pages are translated with (an untranslated paragraph stays English); code, code
  comments and the download header stay as they are. The notebook is sphinx-gallery's own, made
  from the translated script as it makes the English one.
* ``add_translated_colab_link`` (``html-page-context``, after ``downloads.add_colab_link``): a
  translated page's "Open in Colab" opens that translated notebook.
"""

from __future__ import annotations

import ast
import io
import re
import tempfile
import textwrap
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path

import sidebyside

from sphinx_extensions import GALLERY_OUTPUT
from sphinx_extensions.downloads import (
    COLAB,
    COLAB_BRANCH,
    DOWNLOAD_HEADER,
    colab_folder,
    with_install_header,
)

# A section title's underline: one punctuation character repeated.
ADORNMENT = re.compile(r"([=\-`:.'\"~^_*+#<>])\1{2,}")
# A bullet or enumerated list item's marker, with the spaces after it.
LIST_ITEM = re.compile(r"(?:[-*+•]|\d+[.)]|#[.)]|\(\d+\)) +(?=\S)")
# sphinx-gallery's text cell: a `# %%` (or a line of 20 #) followed by comment lines.
CELL_START = re.compile(r"#{20,}.*|# ?%%.*")


def _width(text: str) -> int:
    """Columns ``text`` takes, as docutils counts them for a title's underline (CJK: two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def translate_rst(text: str, gettext: Callable[[str], str]) -> str:
    """reST ``text`` with each title, paragraph and list item replaced by ``gettext``'s
    translation of it, the message Sphinx's gettext builder extracts (the lines joined by
    spaces). A translation is one line (a line break inside Chinese would show as a space);
    what is untranslated keeps its lines. Literal blocks (after ``::``), directives, comments
    and tables stay as they are."""
    lines, out, keep = text.split("\n"), [], False
    while lines:
        n = next((k for k, line in enumerate(lines) if not line.strip()), len(lines))
        chunk, lines = lines[:n], lines[n:]  # lines up to the next blank one
        if not chunk:
            out.append(lines.pop(0))
        elif (keep and chunk[0][:1].isspace()) or chunk[0].startswith(("..", "+-", "|")):
            out, keep = out + chunk, True  # and the indented block after it
        else:
            out, keep = out + _translate_chunk(chunk, gettext), chunk[-1].rstrip().endswith("::")
    return "\n".join(out)


def _translate_chunk(chunk: list[str], gettext: Callable[[str], str]) -> list[str]:
    """Lines with no blank line among them: titles, then list items or a paragraph."""
    if not chunk:
        return []
    if len(chunk) > 1 and not chunk[0][:1].isspace() and ADORNMENT.fullmatch(chunk[1].rstrip()):
        title = gettext(chunk[0].strip())
        if title != chunk[0].strip():
            chunk = [title, chunk[1][0] * max(_width(title), 3), *chunk[2:]]
        return chunk[:2] + _translate_chunk(chunk[2:], gettext)
    n = next((k for k in range(1, len(chunk)) if not chunk[k][:1].isspace()), len(chunk))
    if chunk[0][:1].isspace():  # a block quote, or a list item's next paragraph
        body = textwrap.dedent("\n".join(chunk[:n]))
        indent = chunk[0][: len(chunk[0]) - len(body.split("\n")[0])]  # what dedent took off
        body = translate_rst(body, gettext) if indent else body
        return [indent + line if line else line for line in body.split("\n")] + _translate_chunk(
            chunk[n:], gettext
        )
    if marker := LIST_ITEM.match(chunk[0]):
        rest = textwrap.dedent("\n".join(chunk[1:n]))
        body = "\n".join([chunk[0][marker.end() :], rest]).rstrip("\n")
        translated = translate_rst(body, gettext)
        pad = " " * marker.end()
        lines = [marker[0] + line if k == 0 else pad + line if line else line
                 for k, line in enumerate(translated.split("\n"))]
        return (chunk[:n] if translated == body else lines) + _translate_chunk(chunk[n:], gettext)
    message = " ".join(line.strip() for line in chunk)
    translated = gettext(message)
    return chunk if translated == message else translated.split("\n")


def translate_script(source: str, gettext: Callable[[str], str]) -> str:
    """A sphinx-gallery script with its text translated: the module docstring and the comment
    lines of each text cell, as sphinx-gallery splits them
    (``sphinx_gallery.py_source_parser.split_code_and_text_blocks``). Every other line, code and
    code comments, stays as it is."""
    lines, out, i = source.split("\n"), [], 0
    body = ast.parse(source).body
    docstring = body[0] if body and isinstance(body[0], ast.Expr) else None
    if docstring and isinstance(getattr(docstring.value, "value", None), str):
        opening, i = docstring.lineno - 1, docstring.end_lineno - 1
        inner = "\n".join(lines[opening + 1 : i])
        out += lines[: opening + 1]
        # Translated where its lines are the docstring's text: no escape in them to undo.
        same = inner == docstring.value.value.strip("\n") and "\\" not in inner
        if lines[opening] == '"""' and same:
            out += translate_rst(inner, gettext).replace("\\", "\\\\").split("\n")
        else:
            out += lines[opening + 1 : i]
    while i < len(lines):
        out.append(lines[i])
        i += 1
        if CELL_START.fullmatch(out[-1]):
            end = i
            while end < len(lines) and lines[end].startswith("#"):
                end += 1
            text = [line[1:] for line in lines[i:end]]  # sphinx-gallery strips "#", then dedents
            block = textwrap.dedent("\n".join(text))
            translated = translate_rst(block, gettext)
            if translated == block:  # untranslated: the lines as they were
                out += lines[i:end]
            else:
                k, first = next((k, line) for k, line in enumerate(block.split("\n")) if line)
                indent = text[k][: len(text[k]) - len(first)]  # what dedent took off
                out += [f"#{indent}{line}" if line else "#" for line in translated.split("\n")]
            i = end
    return "\n".join(out)


def notebook_of(script: str, gallery_conf: dict, target_dir: Path) -> str:
    """The notebook sphinx-gallery makes of ``script`` (first cell from the configuration, the
    ignore blocks and configuration comments dropped), as the text of an ``.ipynb`` file."""
    from sphinx_gallery import py_source_parser as parser
    from sphinx_gallery.notebook import jupyter_notebook, save_notebook

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "example.py")
        path.write_text(script, encoding="utf-8")
        _, blocks = parser.split_code_and_text_blocks(path)
        blocks = [  # as sphinx_gallery.gen_rst._clean_script_blocks does for the English one
            parser.Block(label, parser.remove_ignore_blocks(content), line)
            for label, content, line in blocks
        ]
        if gallery_conf["remove_config_comments"]:
            blocks = [
                parser.Block(label, parser.remove_config_comments(content), line)
                for label, content, line in blocks
            ]
        if blocks[-1].content.isspace():
            blocks = blocks[:-1]
        save_notebook(jupyter_notebook(blocks, gallery_conf, target_dir), path)
        return path.read_text(encoding="utf-8")


def _catalogue(app) -> Callable[[str], str]:
    from sphinx.locale import init as init_locale

    dirs = [str(Path(app.srcdir, folder)) for folder in app.config.locale_dirs]
    return init_locale(dirs, app.config.language, app.config.gettext_compact)[0].gettext


def translated_downloads(app) -> dict[str, bytes]:
    """Every example's translated script (with the download header) and notebook, by file name."""
    gettext = _catalogue(app)
    header = DOWNLOAD_HEADER.format(line=sidebyside.INSTALL_LINE)
    files = {}
    for script in sorted((Path(app.srcdir) / GALLERY_OUTPUT).rglob("plot_*.py")):
        # The English download is the source with the header after its docstring.
        source = script.read_text(encoding="utf-8").replace(header, "", 1)
        translated = translate_script(source, gettext)
        files[script.name] = with_install_header(translated).encode()
        notebook = notebook_of(translated, app.config.sphinx_gallery_conf, script.parent)
        files[script.with_suffix(".ipynb").name] = notebook.encode()
    return files


def _rezip(archive: Path, files: dict[str, bytes]) -> None:
    """``archive`` with each member named in ``files`` (by file name) replaced."""
    with zipfile.ZipFile(archive) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in members:
            new.writestr(info, files.get(Path(info.filename).name, data))
    archive.write_bytes(buffer.getvalue())


def write_translated_downloads(app, exception) -> None:
    """On a translated build: its downloads, and the notebooks Colab opens, translated."""
    if exception is not None or app.builder.format != "html" or app.config.language == "en":
        return
    files = translated_downloads(app)
    downloads = Path(app.outdir) / "_downloads"
    for source, (_, dest) in app.env.dlfiles.items():
        target = downloads / dest
        if not target.is_file():
            continue
        if target.name in files:
            target.write_bytes(files[target.name])
        elif target.suffix == ".zip" and Path(source).parts[0] == GALLERY_OUTPUT:
            _rezip(target, files)
    colab = colab_folder(app) / _language_folder(app)
    colab.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if name.endswith(".ipynb"):
            (colab / name).write_bytes(data)


def _language_folder(app) -> str:
    """The language's folder under the site root, e.g. ``zh_CN`` (sidebyside_languages)."""
    return app.config.sidebyside_languages[app.config.language].strip("/")


def add_translated_colab_link(app, pagename, templatename, context, doctree) -> None:
    """A translated example page opens its translated notebook in Colab."""
    if app.config.language != "en" and context.get("sbs_colab_url"):
        stem = f"{_language_folder(app)}/{pagename.rpartition('/')[2]}"
        context["sbs_colab_url"] = COLAB.format(
            repo=app.config.sidebyside_repo, branch=COLAB_BRANCH, stem=stem
        )


def setup(app):
    app.connect("html-page-context", add_translated_colab_link, priority=550)
    app.connect("build-finished", write_translated_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
