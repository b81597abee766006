"""What a lesson page shows first: the lesson, with its optional parts folded away.

* ``fold_going_deeper`` (``doctree-read``, after ``panes``): a section whose title starts with
  "Going deeper" (its translation: ``GOING_DEEPER``) keeps its heading, and its content is folded
  into a ``<details>`` that the reader opens. A link to an anchor inside opens it (browsers
  open a ``<details>`` that holds the target of a fragment or a find-in-page match).
* the same pass drops sphinx-gallery's "Go to the end to download the full example code" box:
  the downloads are in the page's sidebar and at its end.
* ``link_figures_to_full_size`` (``doctree-resolved``): a lesson's figure opens full size on a
  tap or click (on a phone a graph's labels are too small at the column's width).
"""

from __future__ import annotations

from docutils import nodes

from sphinx_extensions import GALLERY_OUTPUT

#: How a "Going deeper" section's title starts, per language (a test checks the catalogue).
GOING_DEEPER = {"en": "Going deeper", "zh_CN": "深入"}
#: The label of the fold's toggle.
OPEN_LABEL = {"en": "Show this part", "zh_CN": "展开这一部分"}


def _fold(section: nodes.section, label: str) -> None:
    """Keep the section's title first (the table of contents reads it there); fold the rest."""
    title, body = section[0], list(section.children[1:])
    opening = f'<details class="sbs-going-deeper"><summary>{label}</summary>'
    section.children = []
    section.extend([title, nodes.raw("", opening, format="html"), *body])
    section += nodes.raw("", "</details>", format="html")


def fold_going_deeper(app, doctree: nodes.document) -> None:
    if not app.env.docname.startswith(GALLERY_OUTPUT + "/"):
        return
    language = app.config.language
    prefix = GOING_DEEPER.get(language, GOING_DEEPER["en"])
    for section in list(doctree.findall(nodes.section)):
        if isinstance(section[0], nodes.title) and section[0].astext().startswith(prefix):
            _fold(section, OPEN_LABEL.get(language, OPEN_LABEL["en"]))
    for note in list(doctree.findall(nodes.note)):
        if "sphx-glr-download-link-note" in note["classes"]:
            note.parent.remove(note)


def link_figures_to_full_size(app, doctree, docname) -> None:
    """A figure of a lesson opens full size on a tap or click: on a phone a graph's labels are
    too small at the column's width, and a link to the image itself lets the reader zoom."""
    from docutils import nodes

    if not docname.startswith("auto_examples/"):
        return
    to_root = "../" * docname.count("/")
    for image in list(doctree.findall(nodes.image)):
        if isinstance(image.parent, nodes.reference) or not any(
            c.startswith("sphx-glr-") and c.endswith("-img") for c in image["classes"]
        ):
            continue
        found = app.env.images.get(image["uri"])
        if not found:
            continue
        link = nodes.reference("", "", refuri=f"{to_root}_images/{found[1]}",
                               classes=["sbs-full-size", *[c for c in image["classes"]
                                                            if c.startswith("only-")]])
        image.replace_self(link)
        link += image


def setup(app):
    app.connect("doctree-read", fold_going_deeper, priority=600)  # after panes (500)
    app.connect("doctree-resolved", link_figures_to_full_size)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
