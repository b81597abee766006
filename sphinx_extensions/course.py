"""The gallery as a course: a path from the landing page, and where a learner is on each lesson.

* ``course-map`` (directive, on the landing page): every section of the gallery with the sentence
  that says what it teaches, and its lessons as cards: thumbnail, title, a one-line summary and a
  reading time, visible without hovering. The core course first; the reference and the
  appendices (titles starting "Appendix") apart, after it.
* ``place_lesson`` (``html-page-context``): on a lesson, "Lesson 3 of 8" with its section, the
  section's lessons for the sidebar (``sbs-lessons.html``), and Previous/Next that walk the
  course from the landing page through every lesson in order (no index grid in between); the
  same links at the top of the page (``sbs-lesson-nav.html``) as at its bottom.

Titles, summaries and section sentences come from the pages themselves (the script's title and
first paragraph, the section's ``GALLERY_HEADER.rst``), translated from the catalogue on a
translated build, as the pages they link to are.
"""

from __future__ import annotations

import ast
import html
import math
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from sphinx_extensions import GALLERY_OUTPUT

#: Gallery folders that are reference material, not lessons of the course.
REFERENCE_SECTIONS = ("30_reference",)
APPENDIX = "Appendix"
THUMBS = "_images/lessons"  # the cards' thumbnails, in the built site
WORDS_PER_MINUTE, CODE_LINES_PER_MINUTE = 200, 25
LABELS = {
    "en": {"minutes": "{} min", "lesson": "Lesson {} of {}", "previous": "Previous",
           "next": "Next", "reference": "Reference and appendices", "section": "This section"},
    "zh_CN": {"minutes": "约 {} 分钟", "lesson": "第 {} 课，共 {} 课", "previous": "上一课",
              "next": "下一课", "reference": "参考与附录", "section": "本节课程"},
}


@dataclass(frozen=True)
class Lesson:
    section: str  # gallery folder, e.g. "10_graphs"
    stem: str  # file name without .py
    title: str
    intro: str  # the first paragraph, plain text
    minutes: int  # reading time as first shown ("Going deeper" parts folded)

    @property
    def docname(self) -> str:
        return f"{GALLERY_OUTPUT}/{self.section}/{self.stem}"

    @property
    def core(self) -> bool:
        return self.section not in REFERENCE_SECTIONS and not self.title.startswith(APPENDIX)


def _plain(rst: str) -> str:
    from sphinx_gallery.gen_rst import _sanitize_rst  # as sphinx-gallery makes its tooltips

    return " ".join(_sanitize_rst(rst).split())


def first_sentence(text: str) -> str:
    """The first sentence of plain text, English or Chinese."""
    match = re.match(r"(.+?(?:[.!?](?=\s+[A-Z`(\"'])|[。！？]))", text)
    return match[1] if match else text


def reading_minutes(source: str) -> int:
    """Minutes to read a gallery script as first shown: its prose and code, without the
    "Going deeper" sections and the lines hidden from the page."""
    source = re.sub(r"# sphinx_gallery_start_ignore.*?# sphinx_gallery_end_ignore", "", source,
                    flags=re.S)
    lines = source.splitlines()
    words = code = 0
    folded = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        underline = i + 1 < len(lines) and re.fullmatch(r"# -{3,}", lines[i + 1].strip())
        if underline:  # a section heading: is it a folded one?
            folded = stripped.startswith("# Going deeper")
        if folded or not stripped or stripped == "# %%":
            continue
        if stripped.startswith("#") or not line.startswith((" ", "\t")) and '"""' in line:
            words += len(stripped.lstrip("#").split())
        else:
            code += 1
    return max(1, math.ceil(words / WORDS_PER_MINUTE + code / CODE_LINES_PER_MINUTE))


def gallery_lessons(gallery: Path) -> list[Lesson]:
    """Every example of the gallery, in the course's order (section, then file name)."""
    lessons = []
    for script in sorted(gallery.glob("*/plot_*.py")):
        source = script.read_text(encoding="utf-8")
        docstring = ast.get_docstring(ast.parse(source)) or ""
        title, _, rest = docstring.strip().partition("\n")
        paragraphs = [p for p in re.split(r"\n\s*\n", rest.strip("= \n")) if p.strip()]
        lessons.append(Lesson(
            section=script.parent.name,
            stem=script.stem,
            title=title.strip(),
            intro=paragraphs[0] if paragraphs else "",
            minutes=reading_minutes(source),
        ))
    return lessons


def section_header(gallery: Path, section: str) -> tuple[str, str]:
    """(title, first paragraph) of a section's GALLERY_HEADER.rst."""
    text = (gallery / section / "GALLERY_HEADER.rst").read_text(encoding="utf-8")
    title, _, rest = text.strip().partition("\n")
    paragraphs = [p for p in re.split(r"\n\s*\n", rest.strip("-= \n")) if p.strip()]
    return title.strip(), paragraphs[0] if paragraphs else ""


def catalogue(app) -> dict[str, str]:
    """The project's translations (msgid -> msgstr), empty on the English build."""
    if app.config.language == "en":
        return {}
    from sphinx.locale import init as init_locale

    dirs = [str(Path(app.srcdir, folder)) for folder in app.config.locale_dirs]
    translator, _ = init_locale(dirs, app.config.language, app.config.gettext_compact)
    messages = getattr(translator, "_catalog", {})
    return {" ".join(k.split()): v for k, v in messages.items() if isinstance(k, str) and v}


def _gallery(app) -> Path:
    return (Path(app.srcdir) / app.config.sphinx_gallery_conf["examples_dirs"][0]).resolve()


def lessons_of(app) -> list[Lesson]:
    if not hasattr(app.env, "sbs_lessons"):
        app.env.sbs_lessons = gallery_lessons(_gallery(app))
    return app.env.sbs_lessons


class CourseMap(SphinxDirective):
    """``course-map``: the course by section, each lesson a card with a visible summary."""

    def run(self):
        app, gallery = self.env.app, _gallery(self.env.app)
        words = LABELS.get(app.config.language, LABELS["en"])
        translated = catalogue(app)

        def tr(rst: str) -> str:
            text = translated.get(" ".join(rst.split()), rst)
            return _plain(text)

        lessons = lessons_of(app)
        for lesson in lessons:
            self.env.note_dependency(str(gallery / lesson.section / f"{lesson.stem}.py"))
        parts, sections = [], list(dict.fromkeys(lesson.section for lesson in lessons))
        for core in (True, False):
            if not core:
                parts.append(f'<h2 class="sbs-course-apart">{html.escape(words["reference"])}</h2>')
            for section in sections:
                chosen = [x for x in lessons if x.section == section and x.core == core]
                if not chosen:
                    continue
                title, sentence = section_header(gallery, section)
                parts.append(f'<section class="sbs-course-section"><h3>{html.escape(tr(title))}'
                             f'</h3><p>{html.escape(tr(sentence))}</p><ol class="sbs-cards">')
                for lesson in chosen:
                    summary = first_sentence(tr(lesson.intro))
                    link = f"{lesson.docname}.html"
                    thumb = f"{THUMBS}/{lesson.stem}.png"  # copy_thumbnails puts it there
                    parts.append(
                        f'<li class="sbs-card"><a href="{link}">'
                        f'<img src="{thumb}" alt="" loading="lazy" width="160" height="112"/>'
                        f'<span class="sbs-card-title">{html.escape(tr(lesson.title))}</span>'
                        f'<span class="sbs-card-summary">{html.escape(summary)}</span>'
                        f'<span class="sbs-card-time">'
                        f'{html.escape(words["minutes"].format(lesson.minutes))}</span></a></li>')
                parts.append("</ol></section>")
        return [nodes.raw("", "\n".join(parts), format="html")]


def copy_thumbnails(app, exception) -> None:
    """The cards' thumbnails (sphinx-gallery's, made from each lesson's figure) into the site."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / THUMBS
    target.mkdir(parents=True, exist_ok=True)
    for lesson in lessons_of(app):
        thumb = (Path(app.srcdir) / GALLERY_OUTPUT / lesson.section / "images" / "thumb"
                 / f"sphx_glr_{lesson.stem}_thumb.png")
        if thumb.exists():
            shutil.copyfile(thumb, target / f"{lesson.stem}.png")


def place_lesson(app, pagename, templatename, context, doctree) -> None:
    """Lesson position, the section's lessons, and Previous/Next along the course."""
    lessons = lessons_of(app)
    chain = ["index", *(lesson.docname for lesson in lessons)]
    words = LABELS.get(app.config.language, LABELS["en"])
    context["sbs_words"] = words
    if pagename not in chain:
        return
    i = chain.index(pagename)
    translated = catalogue(app) if app.config.language != "en" else {}

    def link(docname: str) -> dict:
        if docname == "index":
            title = context.get("docstitle") or "sidebyside"
        else:
            lesson = next(x for x in lessons if x.docname == docname)
            title = _plain(translated.get(" ".join(lesson.title.split()), lesson.title))
        return {"link": app.builder.get_relative_uri(pagename, docname), "title": title}

    context["prev"] = link(chain[i - 1]) if i > 0 else None
    if i + 1 < len(chain):
        context["next"] = link(chain[i + 1])
    if pagename == "index":
        return
    lesson = lessons[i - 1]
    siblings = [x for x in lessons if x.section == lesson.section]
    title, _ = section_header(_gallery(app), lesson.section)
    context["sbs_lesson"] = {
        "position": siblings.index(lesson) + 1,
        "count": len(siblings),
        "section": _plain(translated.get(title, title)),
        "section_link": app.builder.get_relative_uri(
            pagename, f"{GALLERY_OUTPUT}/{lesson.section}/index"),
        "siblings": [{**link(x.docname), "current": x == lesson} for x in siblings],
    }


def setup(app):
    app.add_directive("course-map", CourseMap)
    app.connect("html-page-context", place_lesson)
    app.connect("build-finished", copy_thumbnails, priority=700)  # before the offline zip (800)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
