"""Comparing ways to run one step: variants that take turns, and tables of what they measured.

Plumbing for the pages that measure what a graph costs (gallery/40_cost). The steps being
compared, and the sentences that read the numbers, stay on the pages.
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from sidebyside.parity import assert_close
from sidebyside.timing import Timing, settle

#: What one variant measured, or a sentence saying why it has no timing ("not run: ...",
#: "failed: ..."); the part before the first colon is what a table cell shows.
Result = Timing | str
Sync = Callable[[], object] | None


def time_variants(
    variants: Mapping[str, tuple[Callable[[], Callable[[], object]], Sync] | str],
    *,
    target: float = 0.03,
    min_rounds: int = 5,
    max_rounds: int = 10,
    sample_seconds: float = 2e-3,
    round_seconds: float = 0.03,
    settle_seconds: float = 10.0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, Result], dict[str, object]]:
    """Time several ways to run one step, the variants taking turns round after round.

    ``variants`` maps a name to ``(make, sync)``: ``make()`` builds the variant and returns its
    step, a callable with no arguments; ``sync`` runs before every clock read. A name mapped to
    a string is not run, and the string is its result.

    Each variant is built and called once, cold (``Timing.first``: building plus that call),
    then warmed up by :func:`~sidebyside.timing.settle` until its time per call is stable
    (``Timing.warmup``, ``Timing.settled``). From that settled time, a sample repeats the step
    ``number`` times (1 to 1000) to last about ``sample_seconds``, and a round takes as many
    samples (at least one) as fill ``round_seconds``, after one untimed call. Round after round
    every variant takes its turn, so a slow moment of the machine falls on all of them; a
    variant stops after ``min_rounds`` once its spread (half the range of its round medians,
    :attr:`Timing.spread`) is at most ``target``, and all stop after ``max_rounds``.
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
        wait = sync or (lambda: None)
        try:
            start = clock()
            run = make()
            run()
            wait()
            first = clock() - start
            warmup, settled = settle(run, sync=sync, max_seconds=settle_seconds, clock=clock)
        except Exception as error:  # the reason is shown; nothing is dropped silently
            results[name] = f"failed: {type(error).__name__}: {error}".splitlines()[0]
            continue
        seconds = max(statistics.median(warmup[-5:]), 1e-9)
        number = max(1, min(1000, round(sample_seconds / seconds)))
        per_round = max(1, round(round_seconds / (number * seconds)))
        runs[name] = dict(run=run, wait=wait, number=number, per_round=per_round, first=first,
                          warmup=tuple(warmup), settled=settled, samples=[], rounds=[])
    for done in range(max_rounds):
        active = [r for r in runs.values() if done < min_rounds or _spread(r) > target]
        if not active:
            break
        for r in active:
            r["run"]()  # untimed: the other variants ran since its last turn
            batch = []
            for _ in range(r["per_round"]):
                r["wait"]()
                start = clock()
                for _ in range(r["number"]):
                    r["run"]()
                r["wait"]()
                batch.append((clock() - start) / r["number"])
            r["samples"].extend(batch)
            r["rounds"].append(statistics.median(batch))
    for name, r in runs.items():
        results[name] = Timing(first=r["first"], samples=tuple(r["samples"]),
                               rounds=tuple(r["rounds"]), warmup=r["warmup"],
                               settled=r["settled"])
    ordered = {name: results[name] for name in variants}
    return ordered, {name: r["run"]() for name, r in runs.items()}


def _spread(run: dict) -> float:
    return Timing(first=0.0, samples=tuple(run["samples"]), rounds=tuple(run["rounds"])).spread


@contextlib.contextmanager
def torch_threads(count: int):
    """PyTorch on ``count`` threads (``torch.set_num_threads``) in the block, its old setting
    after it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


#: The environment variables that size TensorFlow's two global thread pools.
TF_POOLS = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")


def pin_threads(threads: int, *, show: bool = True):
    """Pin TensorFlow to ``threads`` threads per pool; return ``(tf_pools, session_config)``.

    Eager TensorFlow and ``tf.function`` use TensorFlow's global pools, which
    ``tf.config.threading`` sizes only before the runtime starts. Where it has not started,
    they are sized here (``tf_pools`` is ``"N each (set by this page)"``); where it has,
    ``tf_pools`` says whether :data:`TF_POOLS` set them to ``threads``
    (``"N each (TF_NUM_INTRAOP_THREADS and TF_NUM_INTEROP_THREADS)"``) or ``"not pinned"``.
    ``session_config`` is a ``tf.compat.v1.ConfigProto`` with ``threads`` threads per pool, for
    TensorFlow 1 sessions. PyTorch is left alone (:func:`torch_threads` pins it while timing).
    With ``show``, prints the block ``On this machine (threads):`` that says all three.
    """
    import tensorflow as tf

    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        tf_pools = f"{threads} each (set by this page)"
    except RuntimeError:  # the runtime started before this page
        pinned = {os.environ.get(variable) for variable in TF_POOLS} == {str(threads)}
        tf_pools = f"{threads} each ({' and '.join(TF_POOLS)})" if pinned else "not pinned"
    session_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                              inter_op_parallelism_threads=threads)
    if show:
        print("On this machine (threads):")
        print("  PyTorch, every variant:", threads, "(set while timing)")
        print("  TF2 eager and tf.function pools:", tf_pools)
        print("  TF1 sessions:", threads, "per pool (ConfigProto)")
    return tf_pools, session_config


def gpu_syncs(torch_device: str, tf_device: str) -> tuple[Sync, Sync]:
    """``(torch_sync, tf_sync)``: what waits for each framework's GPU before the clock is read
    (``torch.cuda.synchronize``, ``tf.test.experimental.sync_devices``), or ``None`` for a
    framework on the CPU."""
    torch_sync = tf_sync = None
    if torch_device == "cuda":
        import torch

        torch_sync = torch.cuda.synchronize
    if tf_device.startswith("/GPU"):
        import tensorflow as tf

        tf_sync = tf.test.experimental.sync_devices
    return torch_sync, tf_sync


def time_workloads(
    workloads: Iterable[str],
    variants: Mapping[str, tuple[Callable[..., Callable[[], object]], Mapping[str, object]]],
    sync_for: Mapping[Callable, Sync],
    *,
    threads: int,
    target: float = 0.03,
    not_run: Callable[[str, str], str | None] = lambda workload, name: None,
) -> tuple[dict[str, dict[str, Result]], dict[str, dict[str, object]]]:
    """:func:`time_variants` on every workload in turn, PyTorch on ``threads`` threads.

    ``variants`` maps a name to ``(make, options)``: ``make(workload, **options)`` builds the
    step, and ``sync_for[make]`` is its sync. Where ``not_run(workload, name)`` returns a
    sentence, that variant is not run on that workload and the sentence is its result.

    Returns ``({workload: {name: Timing or str}}, {workload: {name: what its step returned}})``.
    """
    results, outputs = {}, {}
    with torch_threads(threads):
        for workload in workloads:
            steps = {name: not_run(workload, name)
                     or (functools.partial(make, workload, **options), sync_for[make])
                     for name, (make, options) in variants.items()}
            results[workload], outputs[workload] = time_variants(steps, target=target)
    return results, outputs


def check_outputs(
    outputs: Mapping[str, Mapping[str, tuple[object, Sequence[object]]]],
    reference: str,
    *,
    rtol: float,
) -> int:
    """Assert that on every workload every variant's ``(loss, gradients)`` match those of
    ``reference`` (``sidebyside.assert_close`` with ``rtol``); return how many runs were
    checked."""
    for workload, by_variant in outputs.items():
        expected_loss, expected_grads = by_variant[reference]
        for name, (loss, grads) in by_variant.items():
            what = f"{workload}, {name}"
            assert_close(loss, expected_loss, what=f"{what}: loss", rtol=rtol)
            for grad, expected in zip(grads, expected_grads, strict=True):
                assert_close(grad, expected, what=f"{what}: gradient", rtol=rtol)
    return sum(len(by_variant) for by_variant in outputs.values())


def hardware(torch_device: str) -> str:
    """What the tables ran on: the CPU model, its logical cores, and the GPU where PyTorch
    runs on one (``torch_device == "cuda"``)."""
    from sidebyside.provenance import cpu_model

    described = f"{cpu_model()}, {os.cpu_count()} logical cores"
    if torch_device == "cuda":
        import torch

        described += f", {torch.cuda.get_device_name(0)}"
    return described


def fresh_python(source: str, *, threads: int = 1, timeout: float = 600) -> dict:
    """Run ``source`` (as a script file) in a new Python and return the JSON object it prints
    last.

    Nothing from this process carries over: no module imported, no runtime started, no graph
    traced or compiled. The child gets ``threads`` threads in TensorFlow's pools
    (``TF_NUM_INTRAOP_THREADS``, ``TF_NUM_INTEROP_THREADS``) and in OpenMP
    (``OMP_NUM_THREADS``), and an empty ``TORCHINDUCTOR_CACHE_DIR``, so that ``torch.compile``
    compiles from scratch. Raises ``RuntimeError`` with the end of its stderr if it fails.
    """
    with tempfile.TemporaryDirectory() as folder:
        script, empty_cache = os.path.join(folder, "fresh.py"), os.path.join(folder, "cache")
        with open(script, "w", encoding="utf-8") as file:  # a file: TorchScript reads source
            file.write(source)
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=empty_cache, TF_CPP_MIN_LOG_LEVEL="2")
        for variable in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS"):
            env[variable] = str(threads)
        done = subprocess.run(
            [sys.executable, script], env=env, capture_output=True, text=True,
            timeout=timeout, check=False, cwd=folder,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the fresh Python failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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


def differ(a: Timing, b: Timing) -> bool:
    """True when the medians are further apart than their spreads reach: a real difference."""
    return abs(a.median - b.median) > a.median * a.spread + b.median * b.spread


def compare(results: Mapping[str, Result], name: str, reference: str) -> str:
    """``2.00× as long as REFERENCE``, ``1.50× faster than REFERENCE``, or, where the gap is
    within the spreads, ``as fast as REFERENCE within the spread (1.02×)``."""
    timed = measured(results)
    if name not in timed or reference not in timed:
        return f"not comparable with {reference}"
    ratio = timed[name].median / timed[reference].median
    if not differ(timed[name], timed[reference]):
        return f"as fast as {reference} within the spread ({ratio:.2f}×)"
    if ratio >= 1:
        return f"{ratio:.2f}× as long as {reference}"
    return f"{1 / ratio:.2f}× faster than {reference}"


def fastest(results: Mapping[str, Result]) -> list[str]:
    """The variant with the lowest median, and every other one that does not differ from it
    (:func:`differ`): a list of one name when there is a clear fastest, else the tie."""
    timed = measured(results)
    if not timed:
        return []
    best = min(timed, key=lambda name: timed[name].median)
    return [best] + [n for n in timed if n != best and not differ(timed[n], timed[best])]


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


def _reasons(results: Mapping[str, Mapping[str, Result]]) -> list[str]:
    """A note per variant without a timing: on which workloads, and why."""
    reasons: dict[tuple[str, str], list[str]] = {}  # {(variant, reason): [workloads]}
    for workload, by_variant in results.items():
        for name, result in by_variant.items():
            if isinstance(result, str):
                reasons.setdefault((name, result), []).append(workload)
    return [f"{name} on {', '.join(where)}: {why}" for (name, why), where in reasons.items()]


def step_table(
    results: Mapping[str, Mapping[str, Result]],
    variants: Sequence[str],
    *,
    reference: str,
    caption: str,
    target: float = 0.03,
) -> HTML:
    """Steady state: a row per workload, a column per variant.

    A cell holds the median, the spread, the ratio to ``reference`` on the same workload (``=``
    after it when the two do not differ beyond their spreads), and ``noisy`` when the spread
    exceeds ``target``. A variant without a timing shows ``not run`` or ``failed``, and a note
    under the table says on which workloads and why.
    """

    def cell(by_variant: Mapping[str, Result], name: str) -> str:
        result, base = by_variant[name], by_variant.get(reference)
        if isinstance(result, str):
            return _short(result)
        ratio = ""
        if isinstance(base, Timing) and name != reference:
            tie = "" if differ(result, base) else " (tie)"
            ratio = f" · {result.median / base.median:.2f}×{tie}"
        noisy = "\nnoisy" if result.spread > target else ""
        return f"{duration(result.median)}\n±{result.spread:.1%}{ratio}{noisy}"

    notes = _reasons(results)
    notes.append(
        f"±: half the range of the round medians. (tie): the gap to {reference} is within "
        f"the spreads. noisy: the spread stayed above {target:.0%} after the last round."
    )
    rows = [[w, *(cell(by, name) for name in variants)] for w, by in results.items()]
    return table(caption, ["workload", *variants], rows, notes)


def warmup_table(
    results: Mapping[str, Mapping[str, Result]], variants: Sequence[str], *, caption: str
) -> HTML:
    """Warming up, after the first call: a row per workload, a column per variant.

    A cell holds how many calls it took until the time per call settled (``Timing.warmup``),
    and the time they took beyond as many steady-state calls (``Timing.warmup_extra``);
    ``not settled`` when the time per call was still changing when warm-up gave up.
    """

    def cell(result: Result) -> str:
        if isinstance(result, str):
            return _short(result)
        settled = "" if result.settled else "\nnot settled"
        return f"{len(result.warmup)} calls\n+{duration(result.warmup_extra)}{settled}"

    rows = [[w, *(cell(by[name]) for name in variants)] for w, by in results.items()]
    return table(caption, ["workload", *variants], rows, _reasons(results))


def first_call_table(
    first_calls: Mapping[str, Mapping[str, float | str]],
    variants: Sequence[str],
    *,
    caption: str,
) -> HTML:
    """First calls in seconds (or why there is none): a row per workload, a column per
    variant."""

    def cell(result: float | str) -> str:
        return _short(result) if isinstance(result, str) else duration(result)

    rows = [[w, *(cell(by.get(name, "not run")) for name in variants)]
            for w, by in first_calls.items()]
    return table(caption, ["workload", *variants], rows)
