"""One site in two languages: what gettext's translation of the pages leaves to do.

* ``add_language_links`` (``html-page-context``): the same page in every language, for the
  header's switch and the ``hreflang`` links (``sidebyside_languages``: language -> folder).
* ``translate_thumbnails`` (``source-read``): the gallery indexes' thumbnail titles and tooltips,
  raw HTML that gettext never sees, from the catalogue.
* ``RunningTimeIsNotText`` (a transform): sphinx-gallery's running-time line stays out of the
  catalogues and is labelled in the page's language.
* ``translate_output_prose`` (``doctree-read``): the prose inside executed outputs (the
  provenance box, the parity line, the cheatsheet's table), which the package marks as
  ``<span class="sbs-t">…</span>``: extracted into the catalogue by ``make gettext`` (as hidden
  messages of the page), and replaced by its translation on a translated page.
* ``fix_chinese_search`` (``build-finished``): Sphinx 9.0.4's Chinese search names a stemmer
  that does not exist; the fix Sphinx merged upstream.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform

from sphinx_extensions import GALLERY_OUTPUT, to_site_root

LANGUAGE_NAMES = {"en": "English", "zh_CN": "中文"}


def add_language_links(app, pagename, templatename, context, doctree) -> None:
    """The same page in every language: for the header's switcher and the hreflang links."""
    languages = app.config.sidebyside_languages
    to_root = to_site_root(app.config, pagename)
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


OUTPUT_PROSE = re.compile(r'<span class="sbs-t">(.*?)</span>', re.S)


def translate_output_prose(app, doctree: nodes.document) -> None:
    """Output prose (``sbs-t`` spans in raw HTML): messages for the gettext builder, translated
    text on a translated page."""
    raws = [raw for raw in doctree.findall(nodes.raw) if 'class="sbs-t"' in raw.astext()]
    if not raws:
        return
    if app.builder.name == "gettext":
        phrases = dict.fromkeys(
            html.unescape(m) for raw in raws for m in OUTPUT_PROSE.findall(raw.astext())
        )
        for phrase in phrases:  # the builder extracts them; no page shows them
            message = nodes.paragraph(phrase, phrase)
            message.source, message.line = doctree["source"], 1
            doctree += message
        return
    if app.config.language == "en":
        return
    from sphinx.locale import init as init_locale

    dirs = [str(Path(app.srcdir, folder)) for folder in app.config.locale_dirs]
    catalogue, _ = init_locale(dirs, app.config.language, app.config.gettext_compact)

    def translated(match) -> str:
        text = html.unescape(match[1])
        return f'<span class="sbs-t">{html.escape(catalogue.gettext(text))}</span>'

    for raw in raws:
        text = OUTPUT_PROSE.sub(translated, raw.astext())
        raw.parent.replace(raw, nodes.raw("", text, format=raw.get("format", "html")))


class RunningTimeIsNotText(Transform):
    """sphinx-gallery's "Total running time of the script: (0 minutes 1.4 seconds)" line changes
    at every build: keep it out of the catalogues, and label it in the page's language."""

    default_priority = 5  # before Sphinx's Locale transform (20) translates the page
    LABEL = {"zh_CN": "脚本总运行时间："}
    TIME = {"zh_CN": r"（\1 分 \2 秒）"}

    def apply(self) -> None:
        language = self.document.settings.env.config.language
        for strong in self.document.findall(nodes.strong):
            if strong.astext() == "Total running time of the script:":
                paragraph = strong.parent
                paragraph["translatable"] = False
                label = self.LABEL.get(language)
                if label:
                    strong.replace(strong[0], nodes.Text(label))
                    for text in list(paragraph.findall(nodes.Text)):
                        timed = re.sub(r"\((\d+) minutes ([\d.]+) seconds\)", self.TIME[language],
                                       str(text))
                        if timed != str(text):
                            text.parent.replace(text, nodes.Text(timed))


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


def setup(app):
    app.add_config_value("sidebyside_languages", {"en": ""}, "html")
    app.connect("html-page-context", add_language_links)
    app.connect("source-read", translate_thumbnails)
    app.add_transform(RunningTimeIsNotText)
    app.connect("doctree-read", translate_output_prose)
    app.connect("build-finished", fix_chinese_search, priority=800)  # before the offline zip
    return {"parallel_read_safe": True, "parallel_write_safe": True}
