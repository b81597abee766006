"""Comparing ways to run one step: variants that take turns, and tables of what they measured.

Plumbing for the page that measures what a graph costs (gallery/40_cost). The steps being
compared, and the sentences that read the numbers, stay on the page.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from sidebyside.timing import Timing, time_call

#: What one variant measured, or a sentence saying why it has no timing ("not run: ...",
#: "failed: ..."); the part before the first colon is what a table cell shows.
Result = Timing | str
Sync = Callable[[], object] | None


def time_variants(
    variants: Mapping[str, tuple[Callable[[], Callable[[], object]], Sync] | str],
    *,
    rounds: int = 3,
    repeat: int = 5,
    sample_seconds: float = 1e-3,
    round_seconds: float = 0.05,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, Result], dict[str, object]]:
    """Time several ways to run one step, the variants taking turns round after round.

    ``variants`` maps a name to ``(make, sync)``: ``make()`` builds the variant and returns its
    step, a callable with no arguments; ``sync`` goes to :func:`time_call`. A name mapped to a
    string is not run, and the string is its result.

    Each variant is built and called once, cold: its ``Timing.first`` is the building plus that
    call. A sample repeats the step ``number`` times (1 to 200) so that it lasts about
    ``sample_seconds``; each round takes ``repeat`` samples of a variant, fewer (at least two)
    where they would last longer than ``round_seconds``. In each of ``rounds`` rounds every
    variant takes its samples in turn, so a slow moment of the machine falls on all of them.
    A variant whose building or cold call raises gets ``"failed: Type: message"`` (first line).

    Returns ``({name: Timing or str}, {name: what one more call of its step returned})``.
    """
    results: dict[str, Result] = {}
    runs = {}
    for name, variant in variants.items():
        if isinstance(variant, str):
            results[name] = variant
            continue
        make, sync = variant
        try:
            start = clock()
            run = make()
            built = clock() - start
            cold = time_call(run, warmup=1, repeat=1, sync=sync, clock=clock)
        except Exception as error:  # the reason is shown; nothing is dropped silently
            results[name] = f"failed: {type(error).__name__}: {error}".splitlines()[0]
            continue
        seconds = max(cold.samples[0], 1e-9)
        number = max(1, min(200, round(sample_seconds / seconds)))
        repeats = max(2, min(repeat, round(round_seconds / (number * seconds))))
        runs[name] = run, sync, number, repeats, built + cold.first
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):  # time_call's cold call warms each variant up again every round
        for name, (run, sync, number, repeats, _) in runs.items():
            timing = time_call(
                run, warmup=0, repeat=repeats, number=number, sync=sync, clock=clock
            )
            samples[name].extend(timing.samples)
    for name, (*_, first) in runs.items():
        results[name] = Timing(first=first, samples=tuple(samples[name]))
    return results, {name: run() for name, (run, *_) in runs.items()}


def duration(seconds: float) -> str:
    """``1.23 s``, ``4.56 ms`` or ``78.9 µs``: three significant digits or so."""
    if seconds >= 0.1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds * 1e6:,.1f} µs"


def measured(results: Mapping[str, Result]) -> dict[str, Timing]:
    """The variants that have a timing (the others said why not)."""
    return {name: r for name, r in results.items() if isinstance(r, Timing)}


def per_step(results: Mapping[str, Result], name: str) -> str:
    """The median time per step of variant ``name``, or ``not measured``."""
    timing = measured(results).get(name)
    return duration(timing.median) if timing else "not measured"


def compare(results: Mapping[str, Result], name: str, reference: str) -> str:
    """``2.0× as long as REFERENCE`` or ``1.5× faster than REFERENCE``, from the medians."""
    timed = measured(results)
    if name not in timed or reference not in timed:
        return f"not comparable with {reference}"
    ratio = timed[name].median / timed[reference].median
    if ratio >= 1:
        return f"{ratio:.1f}× as long as {reference}"
    return f"{1 / ratio:.1f}× faster than {reference}"


class HTML(str):
    """A string that the gallery page shows as HTML."""

    def _repr_html_(self) -> str:
        return self


def _escape(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def table(
    caption: str,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    notes: Iterable[str] = (),
) -> HTML:
    """An HTML table with notes under it; a newline in a cell starts a new line."""
    head = "".join(f"<th>{_escape(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{_escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    items = "".join(f"<li>{_escape(note)}</li>" for note in notes)
    return HTML(
        f'<table class="sbs-bench"><caption>{_escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table><ul>{items}</ul>"
    )


def bullets(sentences: Iterable[str]) -> HTML:
    """A bulleted list, one sentence per item."""
    return HTML("<ul>" + "".join(f"<li>{_escape(s)}</li>" for s in sentences) + "</ul>")


def _short(result: str) -> str:
    return result.split(":")[0]  # "not run: why" -> "not run"


def step_table(
    results: Mapping[str, Mapping[str, Result]],
    variants: Sequence[str],
    *,
    reference: str,
    caption: str,
) -> HTML:
    """Steady state: a row per workload, a column per variant.

    A cell holds the median, the spread, the ratio to ``reference`` on the same workload, and
    ``noisy`` when the spread exceeds 10 % of the median. A variant without a timing shows
    ``not run`` or ``failed``, and a note under the table says on which workloads and why.
    """

    def cell(by_variant: Mapping[str, Result], name: str) -> str:
        result, base = by_variant[name], by_variant.get(reference)
        if isinstance(result, str):
            return _short(result)
        ratio = f" · {result.median / base.median:.2f}×" if isinstance(base, Timing) else ""
        noisy = "\nnoisy" if result.noisy else ""
        return f"{duration(result.median)}\n±{result.spread:.0%}{ratio}{noisy}"

    reasons: dict[tuple[str, str], list[str]] = {}  # {(variant, reason): [workloads]}
    for workload, by_variant in results.items():
        for name, result in by_variant.items():
            if isinstance(result, str):
                reasons.setdefault((name, result), []).append(workload)
    notes = [f"{name} on {', '.join(where)}: {why}" for (name, why), where in reasons.items()]
    notes.append("noisy: the spread exceeds 10 % of the median; read that number with care.")
    rows = [[w, *(cell(by, name) for name in variants)] for w, by in results.items()]
    return table(caption, ["workload", *variants], rows, notes)


def first_call_table(
    results: Mapping[str, Mapping[str, Result]], variants: Sequence[str], *, caption: str
) -> HTML:
    """The first call (``Timing.first``): a row per workload, a column per variant."""

    def cell(result: Result) -> str:
        return _short(result) if isinstance(result, str) else duration(result.first)

    rows = [[w, *(cell(by[name]) for name in variants)] for w, by in results.items()]
    return table(caption, ["workload", *variants], rows)
