"""Words drawn inside a gallery figure, in the page's language.

Titles, axis labels, legends and notes drawn in a figure are prose a Chinese reader should read
in Chinese; tick labels (numbers, code names) stay as drawn. The figures scraper
(:mod:`sphinx_extensions.figures`) calls :func:`save_translated` for each figure of the English
build, which executes the examples:

* the figure's words are listed on the page as hidden ``sbs-t`` spans (:func:`hidden_words`), so
  ``make gettext`` puts them in the catalogue (``languages.translate_output_prose``);
* where the catalogue translates any of them, the figure is saved once more with the
  translations, light and dark (``<name>_zh_CN.png``, ``<name>_dark_zh_CN.png``), in a CJK font
  (``fonts-noto-cjk``; without one, the Chinese pages keep the English figure);
* ``use_translated_figures`` (``doctree-read``) shows those on the Chinese pages.

A notebook page's figure (the landing page) is drawn in its Jupyter kernel: there
:func:`display_translated` shows the translated pair after the light and dark images, and
``use_translated_figures`` keeps the images of the page's language.
"""

from __future__ import annotations

import contextlib
import functools
import html
import os
import re
from pathlib import Path

from sphinx_extensions.dark_colors import dark_colors

TRANSLATED = ("zh_CN",)  # the languages whose figures are drawn again
WORD = re.compile(r"[^\W\d_]{2,}")  # two letters or more

HIDDEN = """
.. raw:: html

   {hidden}
"""


def language_path(path, language: str) -> Path:
    path = Path(path)
    return path.with_name(f"{path.stem}_{language}{path.suffix}")


def _figure_words(fig) -> list:
    """The figure's text artists that hold prose: titles, axis labels, legends, and notes of
    three words or more (a graph drawing's node labels are names, one per line)."""
    texts = [fig._suptitle] if getattr(fig, "_suptitle", None) else []
    for ax in fig.axes:
        texts += [ax._left_title, ax.title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        legend = ax.get_legend()
        texts += [*legend.get_texts(), legend.get_title()] if legend else []
        texts += [t for t in ax.texts if len(t.get_text().split(" ")) >= 3]  # spaced words
    return [t for t in texts if WORD.search(t.get_text())]


_catalogues: dict[str, dict[str, str]] = {}


def _catalogue(src_dir: Path, language: str) -> dict[str, str]:
    """The translated messages of ``language``'s catalogue (read once per build)."""
    if language not in _catalogues:
        from babel.messages.pofile import read_po

        po = src_dir / "locale" / language / "LC_MESSAGES" / "sidebyside.po"
        found = {}
        if po.exists():
            with po.open("rb") as file:
                found = {m.id: m.string for m in read_po(file) if m.string and not m.fuzzy}
        _catalogues[language] = found
    return _catalogues[language]


@functools.cache
def _cjk_font() -> str | None:
    """A font matplotlib knows that draws Chinese (``fonts-noto-cjk``), or None."""
    from matplotlib import font_manager

    known = font_manager.fontManager
    if not any("CJK" in f.name for f in known.ttflist):  # installed after matplotlib's font cache
        for path in font_manager.findSystemFonts():
            if "CJK" in Path(path).name:
                known.addfont(path)
    names = sorted({f.name for f in known.ttflist if "CJK" in f.name})
    return next((n for n in names if n.startswith("Noto Sans")), names[0] if names else None)


@contextlib.contextmanager
def _drawn_in(words, table: dict, font: str):
    """The figure's words translated by ``table`` while inside, restored after."""
    kept = [(t, t.get_text(), t.get_fontfamily()) for t in words]
    try:
        for text, english, family in kept:
            text.set_text(table.get(_one_line(english), english))
            text.set_fontfamily([*family, font])  # Latin letters keep their font
        yield
    finally:
        for text, english, family in kept:
            text.set_text(english)
            text.set_fontfamily(family)


def _tables(words, src_dir: Path):
    """(language, catalogue, font) for each language that translates any of the words."""
    font = _cjk_font()
    for language in TRANSLATED:
        table = _catalogue(src_dir, language)
        if font and any(table.get(_one_line(t.get_text())) for t in words):
            yield language, table, font


def save_translated(fig, light: Path, dark: Path, save: dict, src_dir: Path) -> list[str]:
    """Save ``fig`` with its words translated, beside ``light`` and ``dark``, for each language
    whose catalogue translates any of them; return the words (English)."""
    words = _figure_words(fig)
    for language, table, font in _tables(words, src_dir):
        with _drawn_in(words, table, font):
            fig.savefig(language_path(light, language), **save)
            with dark_colors(fig, drawn=True):
                dark_save = {**save, "facecolor": fig.get_facecolor()}
                fig.savefig(language_path(dark, language), **dark_save)
    return [_one_line(t.get_text()) for t in words]


def display_translated(fig, png_key: str, title: str, options: dict) -> None:
    """A notebook page's figure (figures' IPython extension, in the page's kernel, whose folder
    holds the catalogues): after its light and dark images, the translated pair of each language
    (PNG metadata ``Language``), then its words as hidden HTML for the catalogue."""
    from IPython.core.pylabtools import print_figure
    from IPython.display import publish_display_data

    words = _figure_words(fig)
    for language, table, font in _tables(words, Path.cwd()):
        with _drawn_in(words, table, font):
            for variant in ("light", "dark"):
                metadata = {png_key: variant, "Title": title, "Language": language}
                with dark_colors(fig) if variant == "dark" else contextlib.nullcontext():
                    data = print_figure(fig, "png", base64=True, metadata=metadata, **options)
                publish_display_data({"image/png": data, "text/plain": repr(fig)})
    if words:
        hidden = hidden_html(dict.fromkeys(_one_line(t.get_text()) for t in words))
        publish_display_data({"text/html": hidden})


def _one_line(text: str) -> str:
    """A figure's words as one message: line breaks drawn in a title are not part of it."""
    return " ".join(text.split())


def hidden_html(words) -> str:
    """The figures' words as hidden ``sbs-t`` spans (for the catalogue); "" for none."""
    spans = "".join(f'<span class="sbs-t">{html.escape(word)}</span>' for word in words)
    return f"<div hidden>{spans}</div>" if spans else ""


def hidden_words(words) -> str:
    """reST for a gallery page: :func:`hidden_html` as a raw block."""
    hidden = hidden_html(words)
    return HIDDEN.format(hidden=hidden) if hidden else ""


def use_translated_figures(app, doctree) -> None:
    """Each page shows its language's figures: a gallery figure's translated variant where one
    exists; of a notebook page's images (PNG metadata ``Language``), those of the page's
    language, or the English ones where a figure has none."""
    from docutils import nodes
    from PIL import Image

    language = app.config.language
    srcdir = Path(app.srcdir)
    here = Path(app.env.doc2path(app.env.docname)).parent
    notebook_images = []
    for image in list(doctree.findall(nodes.image)):
        uri = image["uri"]
        path = srcdir / uri.lstrip("/") if uri.startswith("/") else here / uri
        if language in TRANSLATED and language_path(path, language).exists():
            image["uri"] = str(language_path(Path(uri), language)).replace(os.sep, "/")
        elif path.suffix == ".png" and path.exists() and "sphx-glr" not in " ".join(image["classes"]):
            with Image.open(path) as png:
                notebook_images.append((image, png.info.get("Language", "en"), png.info.get("Title")))
    translated = {title for _, drawn_in, title in notebook_images if drawn_in == language}
    for image, drawn_in, title in notebook_images:
        if drawn_in != language and (drawn_in != "en" or title in translated):
            image.parent.remove(image)


def setup(app):
    # Before figures.add_dark_images (400) and Sphinx's image collector (500).
    app.connect("doctree-read", use_translated_figures, priority=390)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
