"""A cheatsheet of checked rows: a TensorFlow and a PyTorch function, run and compared.

``Cheatsheet.row`` runs both functions, hands their results to the check it decorates and records
the row: the functions' own source, their commented ("key") lines and the values they returned.
``table()`` shows every row as one HTML table (TensorFlow on the left, PyTorch on the right): the
commented lines first, the whole code with its results and the check folded away under each row;
``compact()`` is a self-contained page to print, shown as a ``data:`` download link. Every phrase
of prose in that HTML is a ``<span class="sbs-t">`` of plain text, which a translated edition of
the site replaces (the row notes are written in code, outside the pages' own text).
"""

from __future__ import annotations

import ast
import base64
import contextlib
import html
import inspect
import io
import textwrap
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from sidebyside.parity import to_numpy
from sidebyside.show import prose

import numpy as np
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer


@dataclass(frozen=True)
class Side:
    """One framework's half of a row: code as it ran, its commented lines, named results."""

    code: str
    key: str
    results: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class Row:
    """One operation: where it goes, what differs, what was checked, and its two sides."""

    group: str
    title: str
    note: str
    checked: str
    tf: Side
    torch: Side


@contextlib.contextmanager
def refused(*errors: type[BaseException], claim: str):
    """The block must raise one of ``errors``: proof that the framework refuses it."""
    try:
        yield
    except errors:
        return
    raise AssertionError(f"expected {' or '.join(e.__name__ for e in errors)}: {claim}")


def key_lines(code: str) -> str:
    """The statements of ``code`` that carry a comment, each whole and without its indent.

    A statement over several lines is kept whole (``h = checkpoint(  # ...`` with its
    arguments); a block's header is kept without its body (``with tape:  # record``).
    """
    lines, spans, start = code.splitlines(), [], None
    commented = set()
    skipped = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            commented.add(token.start[0])
        elif token.type == tokenize.NEWLINE:
            spans.append((start, token.start[0]))
            start = None
        elif token.type not in skipped and start is None:
            start = token.start[0]
    kept = [(a, b) for a, b in spans if any(a <= c <= b for c in commented)]
    alone = [(c, c) for c in commented if not any(a <= c <= b for a, b in spans)]
    return "\n".join(textwrap.dedent("\n".join(lines[a - 1 : b])) for a, b in sorted(kept + alone))


def side_of(fn: Callable, returned) -> Side:
    """The body of ``fn`` as it ran, its commented lines, and ``(name, value)`` per result.

    The names are the expressions of the function's last statement, a ``return``.
    """
    source = textwrap.dedent(inspect.getsource(fn))
    definition = ast.parse(source).body[0]
    first = definition.body[0].lineno - 1
    code = textwrap.dedent("\n".join(source.splitlines()[first:]))
    key = key_lines(code)
    if not key:
        raise AssertionError(f"{fn.__name__} needs a comment on the lines that matter")
    last = definition.body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        raise AssertionError(f"{fn.__name__} must end with a return of what it shows")
    if isinstance(last.value, ast.Tuple):
        names = [ast.unparse(element) for element in last.value.elts]
        results = tuple(zip(names, returned, strict=True))
    else:
        results = ((ast.unparse(last.value), returned),)
    return Side(code=code, key=key, results=results)


class Cheatsheet:
    """Rows recorded in order; each ran in both frameworks and passed its check."""

    def __init__(self, title: str):
        self.title = title
        self.rows: list[Row] = []

    def row(self, group: str, title: str, *, tf: Callable, torch: Callable, note: str):
        """Decorator: run ``tf()`` and ``torch()``, call ``check(tf_out, torch_out)``, record.

        Any failure is raised as an ``AssertionError`` that names the row. The check's docstring
        (on one or more lines) is what the table says was checked.
        """

        def run_and_check(check):
            try:
                if not check.__doc__:
                    raise AssertionError(f"{check.__name__} needs a docstring: what it checks")
                tf_out, torch_out = tf(), torch()
                check(tf_out, torch_out)
                recorded = Row(
                    group=group,
                    title=title,
                    note=note,
                    checked=" ".join(check.__doc__.split()),
                    tf=side_of(tf, tf_out),
                    torch=side_of(torch, torch_out),
                )
            except Exception as err:
                message = f"{type(err).__name__}: {str(err).strip()}"
                raise AssertionError(f"cheatsheet row '{title}': {message}") from err
            self.rows.append(recorded)
            return check

        return run_and_check

    def table(self, printable: str | None = None) -> Table:
        """Every row in one table, grouped, TensorFlow on the left.

        With ``printable`` (a file name), the table opens with a link to :meth:`compact`'s page.
        """
        page = self.compact(filename=printable) if printable else None
        return Table(tuple(self.rows), page)

    def figure(self, titles: list[str]):
        """A picture of a few rows (by title): TensorFlow's name left, PyTorch's right.

        Large type, so that it still reads as the page's card picture (a thumbnail).
        """
        from sidebyside.graphs import TF_COLOR, TORCH_COLOR

        import matplotlib.pyplot as plt

        known = {r.title for r in self.rows}
        if missing := [t for t in titles if t not in known]:
            raise ValueError(f"no such rows: {missing}")
        figure, ax = plt.subplots(figsize=(8, 1.1 + 0.9 * len(titles)))
        ax.set_axis_off()
        ax.set(xlim=(0, 1), ylim=(len(titles) - 0.4, -1.2))
        box = {"boxstyle": "round,pad=0.3", "linewidth": 0}
        for x, name, color in ((0.45, "TensorFlow", TF_COLOR), (0.55, "PyTorch", TORCH_COLOR)):
            side = "right" if x < 0.5 else "left"
            ax.text(x, -0.8, name, ha=side, va="center", fontsize=24, weight="bold")
            ax.plot([0.03, 0.45] if x < 0.5 else [0.55, 0.97], [-0.4, -0.4], color=color, lw=6)
        for y, title in enumerate(titles):
            tf_name, torch_name = title.split(" ↔ ")
            for x, name, color in ((0.45, tf_name, TF_COLOR), (0.55, torch_name, TORCH_COLOR)):
                side = "right" if x < 0.5 else "left"
                ax.text(
                    x,
                    y + 0.1,
                    name,
                    ha=side,
                    va="center",
                    fontsize=20,
                    family="monospace",
                    bbox={**box, "facecolor": color},
                )
            ax.text(0.5, y + 0.1, "↔", ha="center", va="center", fontsize=22)
        return figure

    def compact(self, filename: str = "cheatsheet.html") -> CompactPage:
        """The key lines of every row on one printable page (offered as ``filename``)."""
        import tensorflow as tf
        import torch

        versions = f"TensorFlow {tf.__version__}, PyTorch {torch.__version__}"
        return CompactPage(self.title, tuple(self.rows), versions, filename)


# --- the table on the page ----------------------------------------------------------------------


def describe(value) -> str:
    """A short, stable text for one result: tensors, Variables and arrays as numbers."""
    if isinstance(value, np.ndarray) or hasattr(value, "numpy"):
        array = to_numpy(value)
        values = np.array2string(array, precision=4, threshold=12, edgeitems=2)
        if array.ndim == 0:
            return f"{array.dtype} {values}"
        return f"{array.dtype} {tuple(array.shape)}\n{values}"
    return repr(value)


def anchor(text: str) -> str:
    """``"tf.slice ↔ narrow"`` -> ``"tf-slice-narrow"``."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def code_block(code: str) -> str:
    highlighted = highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))
    return f'<div class="highlight"><pre>{highlighted}</pre></div>'


def key_cell(side: Side, framework: str) -> str:
    """The lines that matter (the commented ones), as the compact table shows them."""
    return f'<td data-framework="{framework}">{code_block(side.key)}</td>'


def full_side(side: Side, framework: str) -> str:
    """The whole function body as it ran, and what it returned."""
    shown = "\n".join(f"{name}: {describe(value)}" for name, value in side.results)
    return (
        f'<div data-framework="{framework}">{code_block(side.code)}'
        f'<pre class="sbs-result">{html.escape(shown)}</pre></div>'
    )


# Scoped to this table; the selectors are specific enough to win over the gallery's own table
# styles (centred cells, zebra rows, automatic column widths).
TABLE_CSS = """
.sbs-cheatsheet table.sbs-table { width: 100%; table-layout: fixed; border-collapse: collapse;
  margin: 0; font-size: 0.9rem; color: inherit; }
.sbs-cheatsheet table.sbs-table tbody tr, .sbs-cheatsheet table.sbs-table tbody tr:hover {
  background: none; }
.sbs-cheatsheet table.sbs-table th, .sbs-cheatsheet table.sbs-table td { text-align: left;
  vertical-align: top; padding: 0.2rem 0.4rem; white-space: normal; box-sizing: border-box; }
.sbs-cheatsheet table.sbs-table thead th { border-bottom: 4px solid; font-size: 1rem; }
.sbs-cheatsheet table.sbs-table thead th.sbs-tf { border-bottom-color: #e69f00; }
.sbs-cheatsheet table.sbs-table thead th.sbs-torch { border-bottom-color: #56b4e9; }
.sbs-cheatsheet table.sbs-table tr.sbs-group th { font-size: 1.15rem; padding-top: 1.2rem;
  border-bottom: 2px solid var(--pst-color-text-base, #222); }
.sbs-cheatsheet table.sbs-table tr.sbs-op th { font-weight: normal; padding-top: 0.7rem;
  border-top: 1px solid var(--pst-color-border, #ccc); }
.sbs-cheatsheet table.sbs-table tr.sbs-op strong { font-size: 1rem; margin-right: 0.5rem; }
.sbs-cheatsheet table.sbs-table div.highlight { margin: 0; }
.sbs-cheatsheet table.sbs-table div.highlight pre, .sbs-cheatsheet table.sbs-table pre.sbs-result {
  font-size: 0.75rem; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere;
  margin: 0; padding: 0.3rem 0.4rem; }
.sbs-cheatsheet table.sbs-table pre.sbs-result { background: none; color: inherit;
  border: none; border-left: 3px solid var(--pst-color-border, #ccc); margin-top: 0.2rem; }
.sbs-cheatsheet details summary { font-size: 0.8rem; cursor: pointer;
  color: var(--pst-color-text-muted, #555); }
.sbs-cheatsheet .sbs-checked { font-size: 0.8rem; margin: 0.3rem 0; }
.sbs-cheatsheet .sbs-sides { display: grid; grid-template-columns: 1fr 1fr; gap: 0.8rem; }
.sbs-cheatsheet .sbs-sides > div { min-width: 0; }
.sbs-cheatsheet p.sbs-print { margin: 0 0 0.8rem; }
@media (max-width: 720px) {  /* phones: the two sides one below the other, each labelled */
  .sbs-cheatsheet table.sbs-table thead { display: none; }
  .sbs-cheatsheet table.sbs-table tr, .sbs-cheatsheet table.sbs-table th,
  .sbs-cheatsheet table.sbs-table td { display: block; width: 100%; }
  .sbs-cheatsheet .sbs-sides { grid-template-columns: 1fr; }
  .sbs-cheatsheet table.sbs-table td[data-framework]::before,
  .sbs-cheatsheet .sbs-sides > div::before { content: attr(data-framework); font-weight: bold;
    font-size: 0.8rem; }
  .sbs-cheatsheet [data-framework="TensorFlow"] { border-left: 3px solid #e69f00; }
  .sbs-cheatsheet [data-framework="PyTorch"] { border-left: 3px solid #56b4e9; }
}
"""


@dataclass(frozen=True)
class Table:
    """Displays as the HTML table (sphinx-gallery and Jupyter call ``_repr_html_``).

    Each row: its title and how the frameworks differ, then the commented lines of each side;
    a collapsed part holds the whole code as it ran, what it returned and what was checked.
    With ``printable``, a link to the one-page version comes first.
    """

    rows: tuple[Row, ...]
    printable: CompactPage | None = None

    def __repr__(self) -> str:
        return f"Cheatsheet table: {len(self.rows)} rows"

    def _repr_html_(self) -> str:
        body, group = [], None
        for r in self.rows:
            if r.group != group:
                group = r.group
                body.append(
                    f'<tr class="sbs-group" id="cheatsheet-{anchor(group)}">'
                    f'<th colspan="2">{prose(group)}</th></tr>'
                )
            body.append(
                f'<tr class="sbs-op" id="cheatsheet-{anchor(r.title)}"><th colspan="2">'
                f"<strong>{html.escape(r.title)}</strong> {prose(r.note)}</th></tr>"
                f'<tr class="sbs-key">{key_cell(r.tf, "TensorFlow")}'
                f"{key_cell(r.torch, 'PyTorch')}</tr>"
                f'<tr class="sbs-more"><td colspan="2"><details><summary>'
                f"{prose('The whole code, what it returned, and the check')}</summary>"
                f'<p class="sbs-checked">✓ {prose("Checked:")} {prose(r.checked)}</p>'
                f'<div class="sbs-sides">{full_side(r.tf, "TensorFlow")}'
                f"{full_side(r.torch, 'PyTorch')}</div></details></td></tr>"
            )
        link = self.printable.link() if self.printable else ""
        return (
            f'<div class="sbs-cheatsheet"><style>{TABLE_CSS}</style>{link}'
            '<table class="sbs-table"><thead><tr><th class="sbs-tf">TensorFlow</th>'
            f'<th class="sbs-torch">PyTorch</th></tr></thead><tbody>{"".join(body)}</tbody>'
            "</table></div>"
        )


# --- the compact page to print ------------------------------------------------------------------

COMPACT_CSS = """
@page { size: A4 landscape; margin: 7mm; }
body { font: 6.6pt/1.15 system-ui, sans-serif; margin: 0 auto; max-width: 283mm; color: #000; }
header { margin: 0 0 2pt; } h1 { font-size: 10pt; margin: 0; display: inline; }
.meta { margin-left: 1em; color: #444; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
th, td { text-align: left; vertical-align: top; padding: 1pt 3pt; border-bottom: 0.4pt solid #bbb; }
tr { break-inside: avoid; }
tr.group th { font-size: 7.5pt; padding-top: 3pt; border-bottom: 0.8pt solid #000; }
pre { font: 6.2pt/1.15 ui-monospace, Menlo, Consolas, monospace; margin: 0; white-space: pre-wrap; }
td.note { font-size: 6pt; color: #333; }
"""


@dataclass(frozen=True)
class CompactPage:
    """A standalone, print-friendly HTML page (``.html``); displays as a download link.

    Its prose is marked as on the page (``sbs-t`` spans), so a translation step can replace it
    inside the link too (decode the ``data:`` URL, replace, encode again).
    """

    title: str
    rows: tuple[Row, ...]
    versions: str
    filename: str

    @property
    def html(self) -> str:
        lines, group = [], None
        for r in self.rows:
            if r.group != group:
                group = r.group
                lines.append(f'<tr class="group"><th colspan="4">{prose(group)}</th></tr>')
            lines.append(
                f"<tr><td><b>{html.escape(r.title)}</b></td>"
                f"<td><pre>{html.escape(r.tf.key)}</pre></td>"
                f"<td><pre>{html.escape(r.torch.key)}</pre></td>"
                f'<td class="note">{prose(r.note)}</td></tr>'
            )
        return (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{COMPACT_CSS}</style></head><body>"
            f'<header><h1>{prose(self.title)}</h1> <span class="meta">'
            f"{prose('Every row was executed and checked:')} "
            f"{html.escape(self.versions)}</span></header>"
            '<table><colgroup><col style="width: 12%"><col style="width: 30%">'
            '<col style="width: 30%"><col style="width: 28%"></colgroup>'
            f"<thead><tr><th>{prose('Operation')}</th><th>TensorFlow</th><th>PyTorch</th>"
            f"<th>{prose('How they differ')}</th></tr></thead><tbody>{''.join(lines)}</tbody>"
            "</table></body></html>"
        )

    def __repr__(self) -> str:
        return f"Compact cheatsheet: {len(self.rows)} rows, {self.filename}"

    def link(self) -> str:
        """A paragraph with the whole page in its link (a ``data:`` URL): works offline."""
        data = base64.b64encode(self.html.encode("utf-8")).decode("ascii")
        return (
            f'<p class="sbs-print"><a download="{html.escape(self.filename)}" '
            f'href="data:text/html;charset=utf-8;base64,{data}">'
            f"{prose('Download the cheatsheet as one page to print')}</a> "
            f"{prose('(one HTML file: open it in a browser and print it, A4 landscape)')}</p>"
        )

    def _repr_html_(self) -> str:
        return self.link()
