"""Side-by-side panes on the gallery pages.

On an example page, a cell whose text opens with **TensorFlow…** (bold), followed by a cell whose
text opens with **PyTorch…**, become two panes of one grid: text, code and output each (CSS stacks
them on phones). The example stays plain Python; only the HTML layout changes.

Events: ``doctree-read`` (``wrap_panes``).
"""

from __future__ import annotations

import re

from docutils import nodes

from sphinx_extensions import GALLERY_OUTPUT

PANE_START = {"tensorflow": re.compile(r"TensorFlow\b"), "pytorch": re.compile(r"PyTorch\b")}


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


def setup(app):
    app.connect("doctree-read", wrap_panes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
