"""A cheatsheet of checked rows: a TensorFlow and a PyTorch function, run and compared.

``Cheatsheet.row`` runs both functions, hands their results to the check it decorates and records
the row: the functions' own source, their commented ("key") lines and the values they returned.
``table()`` shows every row as one HTML table (TensorFlow on the left, PyTorch on the right);
``compact()`` is a self-contained page to print, shown as a ``data:`` download link.
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


def side_of(fn: Callable, returned) -> Side:
    """The body of ``fn`` as it ran, its commented lines, and ``(name, value)`` per result.

    The names are the expressions of the function's last statement, a ``return``.
    """
    source = textwrap.dedent(inspect.getsource(fn))
    definition = ast.parse(source).body[0]
    first = definition.body[0].lineno - 1
    code = textwrap.dedent("\n".join(source.splitlines()[first:]))
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    commented = {token.start[0] for token in tokens if token.type == tokenize.COMMENT}
    key = [line.strip() for number, line in enumerate(code.splitlines(), 1) if number in commented]
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
    return Side(code=code, key="\n".join(key), results=results)


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

    def table(self) -> Table:
        """Every row in one table, grouped, TensorFlow on the left."""
        return Table(tuple(self.rows))

    def compact(self, filename: str = "cheatsheet.html") -> CompactPage:
        """The key lines of every row on one printable page (offered as ``filename``)."""
        import tensorflow as tf
        import torch

        versions = f"TensorFlow {tf.__version__} and PyTorch {torch.__version__}"
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


def side_cell(side: Side, framework: str) -> str:
    shown = "\n".join(f"{name}: {describe(value)}" for name, value in side.results)
    return (
        f'<td data-framework="{framework}">{code_block(side.code)}'
        f'<pre class="sbs-result">{html.escape(shown)}</pre></td>'
    )


# Scoped to this table; the selectors are specific enough to win over the gallery's own table
# styles (centred cells, zebra rows, automatic column widths).
TABLE_CSS = """
.sbs-cheatsheet table.sbs-table { width: 100%; table-layout: fixed; border-collapse: collapse;
  margin: 0; font-size: 0.9rem; color: inherit; }
.sbs-cheatsheet table.sbs-table tbody tr, .sbs-cheatsheet table.sbs-table tbody tr:hover {
  background: none; }
.sbs-cheatsheet table.sbs-table th, .sbs-cheatsheet table.sbs-table td { text-align: left;
  vertical-align: top; padding: 0.3rem 0.4rem; white-space: normal; }
.sbs-cheatsheet table.sbs-table thead th { border-bottom: 4px solid; font-size: 1rem; }
.sbs-cheatsheet table.sbs-table thead th.sbs-tf { border-bottom-color: #e69f00; }
.sbs-cheatsheet table.sbs-table thead th.sbs-torch { border-bottom-color: #56b4e9; }
.sbs-cheatsheet table.sbs-table tr.sbs-group th { font-size: 1.15rem; padding-top: 1.5rem;
  border-bottom: 2px solid var(--pst-color-text-base, #222); }
.sbs-cheatsheet table.sbs-table tr.sbs-op th { font-weight: normal; padding-top: 0.9rem;
  border-top: 1px solid var(--pst-color-border, #ccc); }
.sbs-cheatsheet table.sbs-table tr.sbs-op strong { font-size: 1rem; margin-right: 0.5rem; }
.sbs-cheatsheet .sbs-checked { display: block; font-size: 0.8rem;
  color: var(--pst-color-text-muted, #555); }
.sbs-cheatsheet table.sbs-table div.highlight { margin: 0 0 0.3rem; }
.sbs-cheatsheet table.sbs-table div.highlight pre, .sbs-cheatsheet table.sbs-table pre.sbs-result {
  font-size: 0.75rem; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere;
  margin: 0; padding: 0.4rem; }
.sbs-cheatsheet table.sbs-table pre.sbs-result { background: none; color: inherit;
  border: none; border-left: 3px solid var(--pst-color-border, #ccc); }
@media (max-width: 720px) {  /* phones: the two sides one below the other, each labelled */
  .sbs-cheatsheet table.sbs-table thead { display: none; }
  .sbs-cheatsheet table.sbs-table tr, .sbs-cheatsheet table.sbs-table th,
  .sbs-cheatsheet table.sbs-table td { display: block; width: 100%; }
  .sbs-cheatsheet table.sbs-table td::before { content: attr(data-framework); font-weight: bold; }
}
"""


@dataclass(frozen=True)
class Table:
    """Displays as the HTML table (sphinx-gallery and Jupyter call ``_repr_html_``)."""

    rows: tuple[Row, ...]

    def __repr__(self) -> str:
        return f"Cheatsheet table: {len(self.rows)} rows"

    def _repr_html_(self) -> str:
        body, group = [], None
        for r in self.rows:
            if r.group != group:
                group = r.group
                body.append(
                    f'<tr class="sbs-group" id="cheatsheet-{anchor(group)}">'
                    f'<th colspan="2">{html.escape(group)}</th></tr>'
                )
            body.append(
                f'<tr class="sbs-op" id="cheatsheet-{anchor(r.title)}"><th colspan="2">'
                f"<strong>{html.escape(r.title)}</strong>{html.escape(r.note)}"
                f'<span class="sbs-checked">✓ Checked: {html.escape(r.checked)}</span></th></tr>'
                f"<tr>{side_cell(r.tf, 'TensorFlow')}{side_cell(r.torch, 'PyTorch')}</tr>"
            )
        return (
            f'<div class="sbs-cheatsheet"><style>{TABLE_CSS}</style><table class="sbs-table">'
            '<thead><tr><th class="sbs-tf">TensorFlow</th><th class="sbs-torch">PyTorch</th>'
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
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
    """A standalone, print-friendly HTML page (``.html``); displays as a download link."""

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
                lines.append(f'<tr class="group"><th colspan="4">{html.escape(group)}</th></tr>')
            lines.append(
                f"<tr><td><b>{html.escape(r.title)}</b></td>"
                f"<td><pre>{html.escape(r.tf.key)}</pre></td>"
                f"<td><pre>{html.escape(r.torch.key)}</pre></td>"
                f'<td class="note">{html.escape(r.note)}</td></tr>'
            )
        title = html.escape(self.title)
        return (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{title}</title><style>{COMPACT_CSS}</style></head><body>"
            f"<header><h1>{title}</h1> <span class=\"meta\">Every row was executed and checked "
            f"with {html.escape(self.versions)}.</span></header>"
            '<table><colgroup><col style="width: 12%"><col style="width: 30%">'
            '<col style="width: 30%"><col style="width: 28%"></colgroup>'
            "<thead><tr><th>Operation</th><th>TensorFlow</th><th>PyTorch</th>"
            f"<th>How they differ</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
            "</body></html>"
        )

    def __repr__(self) -> str:
        return f"Compact cheatsheet: {len(self.rows)} rows, {self.filename}"

    def _repr_html_(self) -> str:
        page = self.html.encode("utf-8")
        data = base64.b64encode(page).decode("ascii")
        return (
            f'<p class="sbs-download"><a download="{html.escape(self.filename)}" '
            f'href="data:text/html;charset=utf-8;base64,{data}">'
            f"Download the one-page cheatsheet</a> (one HTML file, {len(page) / 1024:.0f} KiB, "
            f"{len(self.rows)} rows; open it in a browser and print it: A4 landscape).</p>"
        )
