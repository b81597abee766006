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
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from sidebyside.parity import assert_close
from sidebyside.provenance import PROSE_IN_VALUES
from sidebyside.show import hidden, marked, prose
from sidebyside.timing import NOISY, Timing, gc_paused, settle

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
    Garbage collection is paused while the clock runs (:func:`~sidebyside.timing.gc_paused`).
    On a GPU, ``sync`` runs before the clock is read, around a sample's ``number`` calls: they
    are queued back to back, so a sample measures throughput (the larger of launching a call
    and running it), not one call's latency.

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
            with gc_paused():
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
                with gc_paused():
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


#: The environment variables that size TensorFlow's intra-op and inter-op thread pools.
TF_POOLS = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")
#: Those and OpenMP's (PyTorch's threads on a CPU): what :func:`fresh_python` sets.
THREAD_VARIABLES = (*TF_POOLS, "OMP_NUM_THREADS")


def pin_threads(threads: int, *, show: bool = True):
    """Pin TensorFlow to ``threads`` threads per pool; return ``(tf_pools, session_config)``.

    What sizes which pool: TensorFlow runs the work *inside* an op on one intra-op pool for the
    whole process, sized once, when its first device is made, by whoever comes first: the eager
    runtime (sized by ``tf.config.threading`` before it starts, else ``TF_NUM_INTRAOP_THREADS``)
    or a TensorFlow 1 session (its ``ConfigProto``). Eager ops and ``tf.function`` run
    independent ops on the eager runtime's inter-op pool (``tf.config.threading``, else
    ``TF_NUM_INTEROP_THREADS``). TensorFlow 1 sessions share one more inter-op pool, sized by
    the first session's ``ConfigProto``; a later session's counts are ignored unless it asks for
    a pool of its own (``session_inter_op_thread_pool``).

    So this sizes the eager runtime's pools where it has not started, and starts it, so that its
    devices, and with them the intra-op pool, come before any session (``tf_pools`` is
    ``"N (set by this page)"``); where it had started, ``tf_pools`` says whether
    :data:`TF_POOLS` set both to ``threads`` (``"N (TF_NUM_INTRAOP_THREADS,
    TF_NUM_INTEROP_THREADS)"``) or ``"not pinned"``. ``session_config`` is a
    ``tf.compat.v1.ConfigProto`` that gives each session an inter-op pool of its own with
    ``threads`` threads. PyTorch is left alone (:func:`torch_threads` pins it while timing).
    With ``show``, prints the block ``On this machine (threads):`` that says all of it.
    """
    import tensorflow as tf

    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        tf.config.list_logical_devices("CPU")  # starts the runtime: its devices come first
        tf_pools = f"{threads} (set by this page)"
    except RuntimeError:  # the runtime started before this page
        pinned = {os.environ.get(variable) for variable in TF_POOLS} == {str(threads)}
        tf_pools = f"{threads} ({', '.join(TF_POOLS)})" if pinned else "not pinned"
    session_config = tf.compat.v1.ConfigProto(
        session_inter_op_thread_pool=[{"num_threads": threads}]
    )
    if show:
        print("On this machine (threads):")
        print("  PyTorch, every variant:", threads, "(set while timing)")
        print("  TensorFlow's intra-op pool, one per process:", tf_pools)
        print("  eager and tf.function's inter-op pool:", tf_pools)
        print("  each TF1 session's own inter-op pool:", threads, "(its ConfigProto)")
    return tf_pools, session_config


def process_threads() -> int | None:
    """How many operating-system threads this process runs now (``/proc`` on Linux, else psutil
    where it is installed), or ``None`` where neither can tell."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        pass
    try:
        import psutil
    except ImportError:
        return None
    return psutil.Process().num_threads()


def load() -> str | None:
    """``"load average 1.23 over the last minute, 2 logical cores"``, or ``None`` where the
    system does not say (Windows): how busy the machine was around a timing."""
    try:
        one_minute = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    return f"load average {one_minute:.2f} over the last minute, {os.cpu_count()} logical cores"


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
        env.update(dict.fromkeys(THREAD_VARIABLES, str(threads)))
        done = subprocess.run(
            [sys.executable, script], env=env, capture_output=True, text=True,
            timeout=timeout, check=False, cwd=folder,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the fresh Python failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


#: The script that :func:`fresh_python` runs for the benchmark page's first-call table: the
#: small MLP's training step (``mlp_loss``, batch 64, 100 → 256 → 10) built and called once in
#: each of the page's seven ways, in the page's order, each timed from building to the end of
#: its first call. It prints ``{variant: seconds}``, or, for ``torch.compile`` where no C++
#: compiler works (Windows without MSVC, macOS without the command line tools),
#: ``"failed: InvalidCxxCompiler: ..."``; any other failure fails the script.
FIRST_CALLS_MLP = '''
import functools, json, time, warnings
import sidebyside  # before TensorFlow, as on every page
import numpy as np, tensorflow as tf, torch

torch.set_num_threads(1)
tf1, dev = tf.compat.v1, sidebyside.torch_device()
tf.zeros(()), torch.zeros(())  # both runtimes started, untimed
rng = np.random.default_rng(0)
x, y = rng.standard_normal((64, 100), np.float32), np.ones((64, 10), np.float32)
shapes = {"W1": (100, 256), "b1": (256,), "W2": (256, 10), "b2": (10,)}
params = {k: rng.uniform(-0.1, 0.1, s).astype(np.float32) for k, s in shapes.items()}

def tf_loss(x, y, p):  # the page's mlp_loss
    h = tf.tanh(x @ p["W1"] + p["b1"])
    return tf.reduce_mean((h @ p["W2"] + p["b2"] - y) ** 2)

def torch_loss(x: torch.Tensor, y: torch.Tensor, p: dict[str, torch.Tensor]):
    h = torch.tanh(x @ p["W1"] + p["b1"])
    return torch.mean((h @ p["W2"] + p["b2"] - y) ** 2)

def torch_step(compiler=lambda f: f):
    p = {k: torch.tensor(v, device=dev, requires_grad=True) for k, v in params.items()}
    xy, loss_fn = [torch.tensor(a, device=dev) for a in (x, y)], compiler(torch_loss)
    return lambda: torch.autograd.grad(loss_fn(*xy, p), list(p.values()))

def tf2_step(compiler=lambda f: f):
    p = {k: tf.Variable(v) for k, v in params.items()}
    def step(x, y):
        with tf.GradientTape() as tape:
            return tape.gradient(tf_loss(x, y, p), list(p.values()))
    return functools.partial(compiler(step), tf.constant(x), tf.constant(y))

def tf1_step(prebuilt=False):
    with tf.Graph().as_default() as graph:
        xy = [tf1.placeholder(tf.float32, a.shape) for a in (x, y)]
        p = {k: tf.Variable(v) for k, v in params.items()}
        grads = tf1.gradients(tf_loss(*xy, p), list(p.values()))
        init = tf1.global_variables_initializer()
    session = tf1.Session(graph=graph)  # its pools: TF_NUM_*_THREADS, set by fresh_python
    session.run(init)
    if prebuilt:
        return lambda: session.make_callable(grads, feed_list=xy)(x, y)
    return lambda: session.run(grads, dict(zip(xy, (x, y))))

def first_call(make, *args):
    start = time.perf_counter()
    make(*args)()  # build the variant, call it once
    if dev == "cuda":  # wait for the GPU, in both frameworks
        torch.cuda.synchronize(), tf.test.experimental.sync_devices()
    return time.perf_counter() - start

def compiled():  # torch.compile needs a C++ compiler for a CPU
    try:
        return first_call(torch_step, torch.compile)
    except RuntimeError as error:
        cause = getattr(error, "inner_exception", error)
        if type(cause).__name__ not in ("InvalidCxxCompiler", "CppCompileError"):
            raise  # another failure is a bug, not a missing tool
        return f"failed: {type(cause).__name__}: {cause}".splitlines()[0]

warnings.simplefilter("ignore")  # TorchScript's deprecation: the page shows it
print(json.dumps({
    "PyTorch eager": first_call(torch_step),
    "torch.compile": compiled(),
    "TorchScript": first_call(torch_step, torch.jit.script),
    "TF2 eager": first_call(tf2_step),
    "tf.function": first_call(tf2_step, tf.function),
    "TF1 Session.run": first_call(tf1_step),
    "TF1 callable": first_call(tf1_step, True),
}))
'''


def fastest_text(results: Mapping[str, Result]) -> str:
    """``the fastest is NAME (1.23 ms ±4.5%)``, or ``A, B and C tie for fastest`` where the
    fastest does not differ from the others beyond the spreads (:func:`fastest`)."""
    names = fastest(results)
    if len(names) == 1:
        return f"the fastest is {names[0]} ({per_step(results, names[0])})"
    return f"{', '.join(names[:-1])} and {names[-1]} tie for fastest"


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


def with_spread(timing: Timing) -> str:
    """``1.23 ms ±4.5%``: the median and its spread."""
    return f"{duration(timing.median)} ±{timing.spread:.1%}"


def per_step(results: Mapping[str, Result], name: str) -> str:
    """The median time per step of variant ``name`` with its spread (``1.23 ms ±4.5%``), or
    ``not measured``."""
    timing = measured(results).get(name)
    return with_spread(timing) if timing else "not measured"


def differ(a: Timing, b: Timing) -> bool:
    """True when the gap between the medians exceeds the sum of their spreads (each spread a
    fraction of its own median): a difference beyond the spreads. Otherwise they tie."""
    return abs(a.median - b.median) > a.median * a.spread + b.median * b.spread


def direction(a: Timing, b: Timing) -> int:
    """``1`` where ``a`` takes longer than ``b`` beyond the spreads, ``-1`` where it is faster,
    ``0`` where they tie (:func:`differ`)."""
    if not differ(a, b):
        return 0
    return 1 if a.median > b.median else -1


def gap_verdict(
    steps: Mapping[str, Timing], parts: Mapping[str, Timing], *, part: str, cause: str
) -> str:
    """Whether a part of a step explains the gap between two ways to run the step.

    ``steps`` and ``parts`` each map the same two names, in the same order, to timings of the
    whole step and of the part alone. The part is credited with (at least part of) the gap only
    where both gaps are beyond their spreads and point the same way (:func:`direction`);
    otherwise the sentence says there is no gap, or that the part does not explain it.
    ``part`` names the part (``"the products"``), ``cause`` what it stands for.
    """
    step_way, part_way = direction(*steps.values()), direction(*parts.values())
    if step_way == 0:
        return "There is no gap between the steps beyond their spreads: nothing to explain."
    if part_way == step_way:
        return (f"Both gaps are beyond their spreads and point the same way: {cause} account "
                "for at least part of the gap.")
    if part_way == 0:
        return f"{part.capitalize()} tie: the gap comes from the rest of the step."
    return f"{part.capitalize()} differ the other way: the rest of the step makes the gap."


def compare(results: Mapping[str, Result], name: str, reference: str) -> str:
    """``2.00× ±5% as long as REFERENCE``, ``1.50× ±3% faster than REFERENCE``, or, where the
    gap is within the spreads, ``no different from REFERENCE beyond the spreads (1.02× ±6%)``.
    The ratio's spread is the sum of the two timings' spreads."""
    timed = measured(results)
    if name not in timed or reference not in timed:
        return f"not comparable with {reference}"
    ratio = timed[name].median / timed[reference].median
    spread = f"±{timed[name].spread + timed[reference].spread:.0%}"
    if not differ(timed[name], timed[reference]):
        return f"no different from {reference} beyond the spreads ({ratio:.2f}× {spread})"
    if ratio >= 1:
        return f"{ratio:.2f}× {spread} as long as {reference}"
    return f"{1 / ratio:.2f}× {spread} faster than {reference}"


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


class Words(str):
    """Words of a table that a translated page replaces (:func:`sidebyside.show.prose`); the
    other text of a cell is data: names, numbers, an error's own message."""


#: A caption, header, cell or note: text, or pieces of it, each ``Words``, ``HTML`` or data.
Cell = str | Sequence[str]
#: Every word a table's cells may show, those a run did not need too ("not settled"): each table
#: lists them, hidden, so that the catalogue of translations does not depend on what a run measured.
TABLE_WORDS = ("workload", "calls", "(tie)", "noisy", "not settled", "not run", "failed")


def _html(cell: Cell) -> str:
    pieces = (cell,) if isinstance(cell, str) else cell
    return "".join(
        prose(piece) if isinstance(piece, Words)
        else piece if isinstance(piece, HTML)
        else html.escape(piece).replace("\n", "<br>")
        for piece in pieces
    )


def table(
    caption: Cell,
    header: Sequence[Cell],
    rows: Iterable[Sequence[Cell]],
    notes: Iterable[Cell] = (),
) -> HTML:
    """An HTML table with notes under it; a newline in a cell starts a new line. Under it, hidden,
    :data:`TABLE_WORDS` for the catalogue."""
    head = "".join(f"<th>{_html(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{_html(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    items = "".join(f"<li>{_html(note)}</li>" for note in notes)
    return HTML(  # a wide table scrolls in the theme's container, not the page with it (phones)
        '<div class="pst-scrollable-table-container">'
        f'<table class="sbs-bench"><caption>{_html(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div><ul>{items}</ul>"
        f"{hidden(TABLE_WORDS)}"
    )


def _caption(caption: str, machine: str) -> Cell:
    """The page's caption, translated; under it, what ran it (its words translated)."""
    if not machine:
        return Words(caption)
    return Words(caption), "\n", HTML(marked(machine, PROSE_IN_VALUES))


def bullets(sentences: Iterable[str]) -> HTML:
    """A bulleted list, one sentence per item."""
    return HTML("<ul>" + "".join(f"<li>{_html(s)}</li>" for s in sentences) + "</ul>")


def say(sentences: Iterable[str], *, condition: str = "timed", width: int = 80) -> None:
    """Print sentences read from timings as the block ``On this machine (timed):``, each a
    ``- `` item wrapped to ``width`` (the lines that differ by machine, set aside when runs on
    other machines are compared)."""
    print(f"On this machine ({condition}):")
    for sentence in sentences:
        print(textwrap.fill(" ".join(sentence.split()), width, initial_indent="  - ",
                            subsequent_indent="    "))


def _short(result: str) -> Words:
    return Words(result.split(":")[0])  # "not run: why" -> "not run"


def _reasons(results: Mapping[str, Mapping[str, Result]]) -> list[Cell]:
    """A note per variant without a timing: on which workloads, and why. The page's reason for
    not running it is translated; a failure's own message is shown as Python wrote it."""
    reasons: dict[tuple[str, str], list[str]] = {}  # {(variant, reason): [workloads]}
    for workload, by_variant in results.items():
        for name, result in by_variant.items():
            if isinstance(result, str):
                reasons.setdefault((name, result), []).append(workload)
    notes: list[Cell] = []
    for (name, why), where in reasons.items():
        status, _, detail = why.partition(": ")
        reason = (Words(why),) if status == "not run" else (Words(status), ": ", detail)
        notes.append((f"{name} ({'; '.join(where)}): ", *reason))
    return notes


def step_table(
    results: Mapping[str, Mapping[str, Result]],
    variants: Sequence[str],
    *,
    reference: str,
    caption: str,
    machine: str = "",
    target: float = 0.03,
) -> HTML:
    """Steady state: a row per workload, a column per variant; ``caption`` in words, and under
    it ``machine`` (:func:`hardware`).

    A cell holds the median, the spread, the ratio to ``reference`` on the same workload
    (``(tie)`` under it when the two do not differ beyond their spreads), and ``noisy`` when
    the spread exceeds :data:`~sidebyside.timing.NOISY` (:attr:`Timing.noisy`, the one
    threshold of the site). ``target`` is accepted for callers written before, and unused:
    :func:`time_variants` aims at it, but a spread between ``target`` and ``NOISY`` is shown,
    not flagged. A variant without a timing shows ``not run`` or ``failed``, and a note under
    the table says on which workloads and why.
    """

    def cell(by_variant: Mapping[str, Result], name: str) -> Cell:
        result, base = by_variant[name], by_variant.get(reference)
        if isinstance(result, str):
            return _short(result)
        pieces = [f"{duration(result.median)}\n±{result.spread:.1%}"]
        if isinstance(base, Timing) and name != reference:
            pieces.append(f" · {result.median / base.median:.2f}×")
            if not differ(result, base):
                pieces += ["\n", Words("(tie)")]
        if result.noisy:
            pieces += ["\n", Words("noisy")]
        return pieces

    notes = _reasons(results)
    notes.append((Words("±: half the range of the round medians."), " ",
                  Words(f"(tie): the gap to {reference} is within the spreads."), " ",
                  Words(f"noisy: a spread above {NOISY:.0%}, too wide to read much into.")))
    rows = [[w, *(cell(by, name) for name in variants)] for w, by in results.items()]
    return table(_caption(caption, machine), [Words("workload"), *variants], rows, notes)


def warmup_table(
    results: Mapping[str, Mapping[str, Result]],
    variants: Sequence[str],
    *,
    caption: str,
    machine: str = "",
) -> HTML:
    """Warming up, after the first call: a row per workload, a column per variant; the caption
    as :func:`step_table`'s.

    A cell holds how many calls it took until the time per call settled (``Timing.warmup``),
    and the time they took beyond as many steady-state calls (``Timing.warmup_extra``);
    ``not settled`` when the time per call was still changing when warm-up gave up.
    """

    def cell(result: Result) -> Cell:
        if isinstance(result, str):
            return _short(result)
        settled = () if result.settled else ("\n", Words("not settled"))
        return (f"{len(result.warmup)} ", Words("calls"), f"\n+{duration(result.warmup_extra)}",
                *settled)

    rows = [[w, *(cell(by[name]) for name in variants)] for w, by in results.items()]
    return table(_caption(caption, machine), [Words("workload"), *variants], rows,
                 _reasons(results))


def first_call_table(
    first_calls: Mapping[str, Mapping[str, float | str]],
    variants: Sequence[str],
    *,
    caption: str,
    machine: str = "",
) -> HTML:
    """First calls in seconds (or why there is none, ``"failed: why"``, explained in a note
    under the table): a row per workload, a column per variant; the caption as
    :func:`step_table`'s."""

    def cell(result: float | str) -> Cell:
        return _short(result) if isinstance(result, str) else duration(result)

    rows = [[w, *(cell(by.get(name, "not run")) for name in variants)]
            for w, by in first_calls.items()]
    return table(_caption(caption, machine), [Words("workload"), *variants], rows,
                 _reasons(first_calls))


#: Markers and line styles, in order, for the variants of one framework: the colour says which
#: framework (:data:`sidebyside.graphs.TF_COLOR`, :data:`~sidebyside.graphs.TORCH_COLOR`), the
#: marker and line style which variant, so that neither colour alone carries the difference.
_MARKERS = {"tf": ("s", "v", "P", "X", "D"), "torch": ("o", "^", "d", "*", "h")}
_LINES = ("-", "--", "-.", ":", (0, (1, 4)))


def is_tensorflow(name: str) -> bool:
    """Whether a variant's name says TensorFlow (``TF…``, ``tf.…``); the others are PyTorch's."""
    return name.startswith(("TF", "tf.", "TensorFlow"))


def styles(names: Sequence[str]) -> dict[str, dict]:
    """``{name: matplotlib keywords}``: the framework's colour, and a marker and line style of
    its own for each variant of that framework, in the order given."""
    from sidebyside.graphs import TF_COLOR, TORCH_COLOR

    seen = {"tf": 0, "torch": 0}
    out = {}
    for name in names:
        side = "tf" if is_tensorflow(name) else "torch"
        index, seen[side] = seen[side], seen[side] + 1
        out[name] = dict(color=TF_COLOR if side == "tf" else TORCH_COLOR,
                         marker=_MARKERS[side][index % 5], linestyle=_LINES[index % 5])
    return out


def plot_steps(
    results: Mapping[str, Mapping[str, Result]], variants: Sequence[str], *, title: str
):
    """A dot plot per workload, side by side: each variant's median time per step (log scale)
    with its spread as an error bar, in its framework's colour and marker. Returns the figure."""
    import matplotlib.pyplot as plt

    style = styles(variants)
    figure, axes = plt.subplots(1, len(results), figsize=(3.4 * len(results), 3.6),
                                sharey=True, squeeze=False)
    for ax, (workload, by_variant) in zip(axes[0], results.items(), strict=True):
        timed = measured(by_variant)
        for row, name in enumerate(variants):
            if name in timed:
                t, ms = timed[name], timed[name].median * 1e3
                keywords = {k: v for k, v in style[name].items() if k != "linestyle"}
                low = ms * min(t.spread, 0.9)  # a spread over 100 % stays on a log axis
                ax.errorbar([ms], [row], xerr=[[low], [ms * t.spread]], markersize=8,
                            capsize=3, **keywords)
        ax.set_xscale("log")
        _log_ticks(ax.xaxis)
        ax.margins(x=0.15)
        ax.set_title(workload, fontsize=11)
        ax.set_xlabel("ms per step (log)")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(range(len(variants)), variants)
    axes[0][0].invert_yaxis()
    figure.suptitle(title, fontsize=12)
    figure.tight_layout()
    return figure


def _log_ticks(axis) -> None:
    """Ticks at 1, 2 and 5 times a power of ten, labelled plainly, and no minor labels: a log
    axis that spans less than a decade stays readable."""
    from matplotlib import ticker

    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def plot_series(
    ax, series: Mapping[str, tuple[Sequence[float], Sequence[float]]], *, xlabel: str,
    ylabel: str, title: str, log: bool = True, **keywords,
):
    """Lines on ``ax``, one per ``{name: (xs, ys)}``, in each variant's framework colour, marker
    and line style (:func:`styles`), with a legend on the right; ``keywords`` go to every
    ``ax.plot``."""
    style = styles(list(series))
    for name, (xs, ys) in series.items():
        ax.plot(xs, ys, label=name, **{"markersize": 6, **style[name], **keywords})
    if log:
        ax.set_yscale("log")
        _log_ticks(ax.yaxis)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
