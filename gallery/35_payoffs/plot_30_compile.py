"""
What compiling buys
===================

A graph can be handed to a compiler: TensorFlow hands a ``tf.function`` to :term:`XLA` with
``jit_compile=True``, ``torch.compile`` hands the graphs it captures to :term:`Inductor`. On one
small block we read what each compiler made of it, time it eager, as a graph and compiled from
batch 1 to 4096, find the one operation behind TensorFlow's gap at large batches, and count the
calls after which compiling has paid, against what you would run instead.
"""

# %%
# Setup
# -----
# Both frameworks and this site's helpers; each framework computes on ``THREADS`` threads, as on
# :ref:`the benchmark page <sphx_glr_auto_examples_40_cost_plot_10_benchmark.py>`.
import functools
import math

import sidebyside
from sidebyside import benchmark
from sidebyside.benchmark import direction, duration, with_spread
from sidebyside.capture import CountingBackend
from sidebyside.timing import Timing

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
THREADS = 1
# sphinx_gallery_start_ignore
tf_pools, _ = benchmark.pin_threads(THREADS, show=False)  # before TF runs
torch_threads_before = torch.get_num_threads()  # restored at the end
torch.set_num_threads(THREADS)
# sphinx_gallery_end_ignore
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
to_numpy = sidebyside.parity.to_numpy
sidebyside.provenance()

# %%
# The block
# ---------
# A small MLP block of a transformer: ``h = gelu(x @ W1 + b1)`` widens each row of ``x``,
# ``y = h @ W2 + b2`` narrows it back, and ``x + tanh(y) * sigmoid(y)`` adds it to the input
# (GELU's tanh approximation in both frameworks). Eagerly, every operation is a kernel that reads
# its input from memory and writes its output back; a compiler can fuse the elementwise ones.
D, H = 128, 512
BATCHES = (64, 1, 16, 256, 4096)  # 64 first: the batch we read closely


def make_inputs(batches=BATCHES, seed=0):
    """The weights, and an x for each batch size (NumPy)."""
    normal = np.random.default_rng(seed).standard_normal
    weights = {"W1": normal((D, H)) / D**0.5, "b1": 0.1 * normal(H),
               "W2": normal((H, D)) / H**0.5, "b2": 0.1 * normal(D)}
    xs = {b: normal((b, D)) for b in batches}
    return ({k: a.astype(np.float32) for k, a in weights.items()},
            {b: a.astype(np.float32) for b, a in xs.items()})


weights_np, x_np = make_inputs()

# %%
# **TensorFlow**: the block, eager at every batch; as a ``tf.function``, and for XLA.


def tf_block(x, W1, b1, W2, b2):
    h = tf.nn.gelu(x @ W1 + b1, approximate=True)
    y = h @ W2 + b2
    return x + tf.tanh(y) * tf.sigmoid(y)


with tf.device(tf_device):
    tf_w = [tf.constant(w) for w in weights_np.values()]
    tf_x = {b: tf.constant(x) for b, x in x_np.items()}
tf_eager = {b: tf_block(tf_x[b], *tf_w) for b in BATCHES}
spec = [tf.TensorSpec([None, D])] + [  # None: any batch
    tf.TensorSpec(w.shape) for w in tf_w]
tf_graph = tf.function(tf_block, input_signature=spec)
tf_xla = tf.function(tf_block, input_signature=spec,
                     jit_compile=True)

# %%
# **PyTorch**: the same block, eager at every batch; for Inductor.
F = torch.nn.functional


def torch_block(x, W1, b1, W2, b2):
    h = F.gelu(x @ W1 + b1, approximate="tanh")
    y = h @ W2 + b2
    return x + torch.tanh(y) * torch.sigmoid(y)


to_torch = functools.partial(torch.tensor, device=torch_device)
torch_w = [to_torch(w) for w in weights_np.values()]
torch_x = {b: to_torch(x) for b, x in x_np.items()}
torch_eager = {b: torch_block(x, *torch_w)
               for b, x in torch_x.items()}
torch_compiled = torch.compile(torch_block,
                               isolate_recompiles=True)

# %%
# Going deeper: what each compiler made of it
# -------------------------------------------
# *Before*: the operations each framework captured (``input_signature`` leaves the batch
# ``None``: one trace for all); the ``CountingBackend`` of :ref:`the graphs-in-PyTorch page
# <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>` keeps Dynamo's graph.
# *After*: ``experimental_get_compiler_ir(*args)(stage="optimized_hlo")`` is the program XLA runs
# for those shapes (a ``fusion`` is one kernel); ``run_and_get_code`` (private) returns the module
# Inductor writes (``TORCH_LOGS=output_code`` prints it): its ``call`` runs library calls
# (``addmm``: a product and its bias) and Inductor's kernels, or the page says why it cannot.
import re

from sidebyside.capture import call_names

from torch._inductor.utils import run_and_get_code  # private

CONST = {"Placeholder", "Const", "Identity", "NoOp"}  # move no data
MOVE = {"parameter", "constant", "broadcast", "bitcast", "tuple", "get-tuple-element"}
HLO_OP = re.compile(r"= (?:\(.*?\)|\S+) ([a-z][\w-]*)\((?:.*calls=(%[\w.]+))?")  # op, fused


def hlo_runs(text):
    """What HLO's ENTRY runs: (operation, what it fuses), data moves left out."""
    hlo = dict(re.findall(r"^(ENTRY|%[\w.]+) .*?\{\n(.*?)\n\}", text, re.M | re.S))
    return [(op, sorted({o for o, _ in HLO_OP.findall(hlo.get(fused, ""))} - MOVE))
            for op, fused in HLO_OP.findall(hlo["ENTRY"]) if op not in MOVE]


# %%
# **TensorFlow (XLA)**: the graph's operations, then the HLO.
graph = tf_graph.get_concrete_function().graph
tf_before = [op.type for op in graph.get_operations()
             if op.type not in CONST]
print(sidebyside.wrap(f"{len(tf_before)} operations: "
                      + " ".join(tf_before), hang="  "))
ir = tf_xla.experimental_get_compiler_ir(tf_x[64], *tf_w)
tf_after = hlo_runs(ir(stage="optimized_hlo"))
print(f"On this machine ({tf_device}): ENTRY runs", *(
    " ".join([op, *inside]) for op, inside in tf_after),
    sep="\n  ")
tf_fusions = sum(op == "fusion" for op, _ in tf_after)
assert len(tf_after) < len(tf_before) and tf_fusions >= 1

# %%
# **PyTorch (Inductor)**: Dynamo's graph, then Inductor's code.
counting = CountingBackend()
torch.compile(torch_block, backend=counting,
              isolate_recompiles=True)(torch_x[64], *torch_w)
torch_before = call_names(counting.graphs[0])
print(sidebyside.wrap(f"{len(torch_before)} operations: "
                      + " ".join(torch_before), hang="  "))
try:
    _, codes = run_and_get_code(
        torch_compiled, torch_x[64], *torch_w)
    code, inductor_error = "\n".join(codes), None
except Exception as error:  # no C++ compiler? say so
    cause = getattr(error, "inner_exception", error)
    if type(cause).__name__ not in ("InvalidCxxCompiler",
                                    "CppCompileError"):
        raise  # another failure is a bug, not a missing tool
    inductor_error = f"{type(cause).__name__}: {cause}"
    print("On this machine (no C++ compiler): skipped below",
          sidebyside.wrap(inductor_error.splitlines()[0], "  "),
          sep="\n")
if inductor_error is None:
    kernels = re.findall(r"^(\w+) = async_compile\.", code,
                         re.M)
    pattern = "|".join([r"extern_kernels\.\w+", *kernels])
    torch_after = re.findall(rf"^[ ]+({pattern})\b", code, re.M)
    print(f"On this machine ({torch_device}): call() runs",
          *torch_after, sep="\n  ")
    assert len(torch_before) > len(torch_after) and kernels

# %%
# On a CPU both kept the matrix products apart and fused the elementwise operations after each
# into one loop that reads its inputs and writes its result once. A GPU gets other kernels; the
# assertions check only that fewer things run after compiling, and that something was fused.

# %%
# Eager, graph, compiled: from batch 1 to 4096
# --------------------------------------------
# Three ways in each framework: eager; a graph (``tf.function``; Dynamo's graph run operation by
# operation); compiled (XLA; Inductor). ``sidebyside.benchmark.time_variants`` times them in
# turns, round after round, and keeps each first call (a trace or a compile) apart.
torch_sync, tf_sync = benchmark.gpu_syncs(torch_device, tf_device)
tf_way, torch_way = (tf_x, tf_w, tf_sync), (torch_x, torch_w, torch_sync)
capture = CountingBackend()  # runs each graph as it is
ways = {
    "TF eager": (tf_block, *tf_way),
    "TF tf.function": (tf_graph, *tf_way),
    "TF XLA": (tf_xla, *tf_way),
    "PyTorch eager": (torch_block, *torch_way),
    "PyTorch graph": (torch.compile(torch_block, backend=capture,
                                    isolate_recompiles=True), *torch_way),
    "PyTorch compiled": (torch_compiled, *torch_way),
}
if torch_device == "cuda":  # Going deeper
    ways["PyTorch CUDA graphs"] = (
        torch.compile(torch_block, mode="reduce-overhead", isolate_recompiles=True),
        torch_x, [torch.nn.Parameter(w, requires_grad=False) for w in torch_w],
        torch_sync)  # parameters: the weights are not copied
results, outputs = {}, {}
for b in BATCHES:
    results[b], out = benchmark.time_variants({  # failing: why, not a time
        name: (lambda f=f, x=x[b], w=w: lambda: f(x, *w), sync)
        for name, (f, x, w, sync) in ways.items()})
    outputs[b] = {n: to_numpy(o) for n, o in out.items()}  # now: a CUDA graph reuses memory

# %%
# Per row of the batch: where a fixed cost per call dominates, the time per row falls as the batch
# grows; where the arithmetic does, it stays level, or rises once the data outgrow the caches.
# Under the chart, each way against what you would otherwise run: faster or slower only beyond the
# spreads (``sidebyside.benchmark.direction``). A compiled call can be slower than eager: a
# compiler removes work inside the kernels, of which a small batch has little, and adds work
# around them: each :term:`guard` checks the arguments, a Python wrapper calls the kernels and
# allocates the outputs, on a CPU too. And a ``tf.function`` is optimised code already:
# :term:`Grappler` rewrites its graph before it runs (*Going deeper* below shows the rewrite
# behind most of TensorFlow's gap at large batches, on a CPU).
def verdicts(name, reference):
    """At which batches `name` was faster or slower than `reference`."""
    found = {"faster": [], "slower": [], "no difference": []}
    for b in sorted(BATCHES):
        a, r = results[b][name], results[b][reference]
        if isinstance(a, Timing) and isinstance(r, Timing):
            found[("no difference", "slower", "faster")[direction(a, r)]].append(str(b))
    return "; ".join(f"{kind} at {', '.join(bs)}" for kind, bs in found.items() if bs)

AGAINST = [("TF tf.function", "TF eager"), ("TF XLA", "TF tf.function"),
           ("PyTorch graph", "PyTorch eager"), ("PyTorch compiled", "PyTorch eager")]
# sphinx_gallery_start_ignore
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
style = benchmark.styles(list(ways))
for ax, who in zip(axes, ("TF", "PyTorch"), strict=True):
    for name in (n for n in ways if n.startswith(who)):
        timed = [(b, t) for b in sorted(BATCHES) if isinstance(t := results[b][name], Timing)]
        if timed:
            rows, mid = np.array([(b, t.median / b * 1e6) for b, t in timed]).T
            ax.errorbar(rows, mid, yerr=mid * [t.spread for _, t in timed], lw=2, ms=7,
                        capsize=3, label=name[len(who) + 1:], **style[name])
    ax.set(xscale="log", yscale="log", xticks=sorted(BATCHES), xticklabels=sorted(BATCHES),
           xlabel="batch (rows of x)", title="TensorFlow" if who == "TF" else "PyTorch",
           ylabel="µs per row (median, this machine)" if who == "TF" else "")
    ax.legend(fontsize=10)
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore
print("On this machine (timed): against the alternative, beyond the spreads")
for name, reference in AGAINST:
    print(f"  {name} against {reference.split()[-1]}: {verdicts(name, reference) or 'not measured'}")

# %%
# What compiling costs, and when it pays
# --------------------------------------
# XLA keeps its programs in memory (its disk cache, ``--tf_xla_persistent_cache_directory`` in
# ``TF_XLA_FLAGS``, is off by default): its first call at each batch above compiled and ran.
# Against what you would run instead (``tf.function`` against eager code, XLA against
# ``tf.function``, ``torch.compile`` against eager code): ``n`` calls cost ``first + (n - 1) *
# median`` each way, so compiling has paid after ``n = 1 + (first - the other's first) / (the
# other's median - median)`` calls (a range from the ends of the spreads; ``never`` where it is
# not faster beyond them). Inductor's first calls, from a fresh Python, are in *Going deeper*.
def pays(fast, first, ref, ref_first):
    """'FIRST, after N (low to high)' or 'FIRST, never'."""
    if direction(fast, ref) >= 0:  # not faster beyond the spreads
        return f"{duration(first)}, never"
    n = [1 + math.ceil(max(0.0, first - ref_first) / (ref.median * (1 + s * ref.spread)
                                                     - fast.median * (1 - s * fast.spread)))
         for s in (0, 1, -1)]  # the medians, then the ends of the spreads
    return f"{duration(first)}, after {n[0]:,} ({n[1]:,} to {n[2]:,})"

print("On this machine (timed): first call, and the calls after which compiling has paid")
for b in BATCHES:
    r = results[b]
    print(f"  batch {b}: " + "; ".join(f"{n[3:]} {pays(r[n], r[n].first, r[ref], r[ref].first)}"
                                       for n, ref in AGAINST[:2]))

# %%
# Going deeper: more on the timings
# ---------------------------------
#
# The numbers in full
# ~~~~~~~~~~~~~~~~~~~
# Each way's median and spread, a row per batch: the numbers the chart draws.
for who in ("TF", "PyTorch"):
    names = [n for n in ways if n.startswith(who)]
    print(f"On this machine (timed): {who}, median ±spread")
    print("  batch" + "".join(f"{n[len(who) + 1:]:>19}" for n in names))
    for b in sorted(BATCHES):
        print(f"  {b:>5}" + "".join((with_spread(t) if isinstance(t, Timing) else t.split(":")[0])
                                    .rjust(19) for t in (results[b][n] for n in names)))
# sphinx_gallery_start_ignore
print(f"On this machine (threads):\n  PyTorch: {THREADS}\n  TensorFlow's pools: {tf_pools}")
# sphinx_gallery_end_ignore

# %%
# More on Inductor
# ~~~~~~~~~~~~~~~~
# Inductor keeps what it compiled in ``TORCHINDUCTOR_CACHE_DIR``, so we measure it in a fresh
# Python (``sidebyside.benchmark.fresh_python``) with an empty one, on as many threads as here
# (Inductor writes the count into its code): what a process's first ``torch.compile`` pays once
# (Dynamo's start-up and first capture; loading Inductor), the first call at each batch in the
# order above (*cold*), and after ``torch.compiler.reset()`` the same from full caches (*warm*).
# Against eager code, as above: for Inductor, ``first`` is the fresh Python's first call for the
# graph that serves the batch, cold and warm; the once-per-process start-up is shown apart and
# not counted in it.
#
# XLA compiles a program per batch size from its one trace. Dynamo captures a graph for batch 64,
# one for 1 (a size of 1 is always specialised), and at 16 one with a dynamic batch (``s…``
# below) for 256 and 4096 too (:ref:`automatic dynamic shapes
# <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`).
import inspect
import json

print("traces: tf.function", tf_graph.experimental_get_tracing_count(),
      "XLA", tf_xla.experimental_get_tracing_count())
xs = [next(v for n in g.graph.nodes  # each graph's x
           if isinstance(v := n.meta.get("example_value"), torch.Tensor)) for g in capture.graphs]
print(len(xs), "graphs; x:", *["({}, {})".format(*(d if isinstance(d, int) else "s…" for d in x.shape))
                               for x in xs])
assert len(xs) == 3  # 64, then 1, then any batch
CHILD = r"""
import json, os, time
os.environ["TRITON_CACHE_DIR"] = os.path.abspath("triton")  # empty
import numpy as np, torch
F = torch.nn.functional
D, H, BATCHES, device = json.loads('PARAMETERS')  # threads: OMP_NUM_THREADS
SOURCES  # make_inputs and torch_block, from above
weights, xs = make_inputs()
w = [torch.tensor(a, device=device) for a in weights.values()]
x = {b: torch.tensor(a, device=device) for b, a in xs.items()}
sync = torch.cuda.synchronize if device == "cuda" else lambda: None
def seconds(call):
    start = time.perf_counter()
    call(), sync()
    return time.perf_counter() - start
torch_block(x[64], *w)  # eager first: device and libraries ready
out = {"threads": torch.get_num_threads()}
for step in ("start", "capture"):  # Dynamo alone, twice
    torch.compiler.reset()
    f = torch.compile(torch_block, backend="eager")
    out[step] = seconds(lambda: f(x[64], *w))
out["load"] = seconds(lambda: __import__("torch._inductor.compile_fx"))
for run in ("cold", "warm"):
    torch.compiler.reset()
    f = torch.compile(torch_block)
    out[run] = [seconds(lambda: f(x[b], *w)) for b in BATCHES]
print(json.dumps({**out, "output": f(x[64], *w).cpu().tolist()}))
"""
child = None
if inductor_error is None:
    child = benchmark.fresh_python(CHILD.replace(
        "PARAMETERS", json.dumps([D, H, BATCHES, torch_device])).replace(
        "SOURCES", "\n".join(inspect.getsource(f) for f in (make_inputs, torch_block))),
        threads=torch.get_num_threads())
    np.testing.assert_allclose(np.array(child["output"], np.float32),
                               to_numpy(torch_eager[64]),
                               **sidebyside.parity.tolerance(torch_eager[64]))
    assert child["threads"] == torch.get_num_threads()  # it compiled the code we timed
    print("the fresh Python's result matches eager; it ran on as many threads as here")
    dynamic = next(i for i, x in enumerate(xs) if not isinstance(x.shape[0], int))
    serves = {b: next((i for i, x in enumerate(xs) if x.shape[0] == b), dynamic) for b in BATCHES}
    compiled_at = {b: next(a for a in BATCHES if serves[a] == serves[b]) for b in BATCHES}
    print("On this machine (timed): in a fresh Python\n  once per process: Dynamo's start-up and"
          f" first capture {duration(child['start'])} (a capture after it:"
          f" {duration(child['capture'])}), loading Inductor {duration(child['load'])}")
    for b, cold, warm in zip(BATCHES, child["cold"], child["warm"], strict=True):
        what = (f"the graph from batch {compiled_at[b]}" if compiled_at[b] != b else
                "compiles a graph for " + ("any batch" if serves[b] == dynamic else f"batch {b}"))
        print(f"  first call, batch {b:>4}: cold {duration(cold)}, warm {duration(warm)} ({what})")
    print("On this machine (timed): torch.compile's first call, and the calls after which it paid")
    for b in BATCHES:  # the first call, cold and warm, of the graph that serves b
        c, e, at = results[b]["PyTorch compiled"], results[b]["PyTorch eager"], compiled_at[b]
        firsts = {run: child[run][BATCHES.index(at)] for run in ("cold", "warm")}
        print(f"  batch {b}: " + "; ".join(f"{run} {pays(c, first, e, e.first)}"
                                           for run, first in firsts.items()))

# %%
# On a GPU the CPU also launches every kernel, a few microseconds each, and a small batch's
# kernels can finish before the next launch. ``torch.compile(mode="reduce-overhead")`` records
# the launches as a *CUDA graph* and replays them with one. A replay reads its inputs where it
# recorded them, so each call copies its arguments there, except parameters and tensors passed to
# ``torch._dynamo.mark_static_address``: the weights go in as ``nn.Parameter``, only ``x`` is
# copied. A graph with a dynamic batch records one CUDA graph per batch size. This runs where there is a GPU.
#
# On a CPU, Inductor can write the Python wrapper around its kernels in C++ instead, for a longer
# compile: ``torch.compile(..., options={"cpp_wrapper": True})``.
if "PyTorch CUDA graphs" in ways:
    print("On this machine (timed): CUDA graphs against compiled:",
          verdicts("PyTorch CUDA graphs", "PyTorch compiled") or "not measured")
else:
    print("On this machine (no CUDA GPU): CUDA graphs not run")

# %%
# One operation behind TensorFlow's gap
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Grappler's *arithmetic optimizer* turns the ``Pow(x, 3)`` in ``tf.nn.gelu(...,
# approximate=True)`` into ``Square`` and ``Mul``, and eager ``Pow`` with a float exponent can be
# slow on a CPU. We read the graph Grappler leaves (``enable_run_metadata``, private) with that
# optimizer on and off (``tf.config.optimizer.set_experimental_options``, process-wide: restored
# after), and time GELU alone on the hidden layer of batch 4096 on the CPU. XLA gets the traced
# graph, ``power`` and all, and rewrites it itself. On the last line, compare the gaps: where the
# block's is mostly GELU's, one rewritten operation explains it, not running a graph. (PyTorch's
# ``F.gelu`` is one kernel, eager or not.)
import contextlib

from tensorflow.python.eager import context  # private


@contextlib.contextmanager
def arithmetic_optimizer(on):
    """Grappler's arithmetic optimizer on or off in the block."""
    key, options = "arithmetic_optimization", tf.config.optimizer
    before = options.get_experimental_options().get(key, True)
    options.set_experimental_options({key: on})
    try:
        yield
    finally:  # process-wide: as it was (True: the default)
        options.set_experimental_options({key: before})


def grappler_ops(fn, *args):
    """The operations Grappler leaves in a new tf.function of fn."""
    ctx = context.context()
    ctx.enable_run_metadata()  # records each new function's graphs
    tf.function(fn)(*args)
    graphs = ctx.export_run_metadata().function_graphs
    ctx.disable_run_metadata()
    return [n.op for g in graphs for n in g.post_optimization_graph.node
            if n.op not in CONST | {"_Arg", "_Retval"}]


gelu = functools.partial(tf.nn.gelu, approximate=True)
with tf.device("/CPU:0"):
    h = tf.constant(x_np[4096] @ weights_np["W1"] + weights_np["b1"])
    on = grappler_ops(gelu, h)
    with arithmetic_optimizer(False):
        off = grappler_ops(gelu, h)
    print("GELU after Grappler:", *on)
    print("  arithmetic optimizer off:", *off)
    assert "Pow" not in on and "Pow" in off
    print("XLA's power op: in the HLO it gets", "power(" in ir(stage="hlo"),
          "| after optimising", "power(" in ir(stage="optimized_hlo"))
    tf_gelu = tf.function(gelu)
    gelus, _ = benchmark.time_variants({
        "eager pow(h, 3)": (lambda: lambda: tf.pow(h, 3.0), None),
        "eager h * h * h": (lambda: lambda: h * h * h, None),
        "eager gelu": (lambda: lambda: gelu(h), None),
        "tf.function gelu": (lambda: lambda: tf_gelu(h), None),
        "arithmetic optimizer off": (lambda: lambda: arithmetic_optimizer(
            False)(tf_gelu)(h), None)})  # off in each call
print("On this machine (timed): GELU of the hidden layer, batch 4096, on the CPU")
for name, t in gelus.items():
    print(f"  {name}: {with_spread(t)}")
for name, reference in [("eager pow(h, 3)", "eager h * h * h"), ("tf.function gelu", "eager gelu"),
                        ("arithmetic optimizer off", "eager gelu")]:
    print(f"  {name}: {benchmark.compare(gelus, name, reference)}")
if tf_device == "/CPU:0":  # the table above ran on the CPU too
    print("  eager minus tf.function, ± the spreads:", *(
        f"{what} {duration(e.median - g.median)} ±{duration(e.median * e.spread + g.median * g.spread)}"
        for what, (e, g) in [("the block at 4096", [results[4096]["TF eager"], results[4096][
            "TF tf.function"]]), ("| its GELU", [gelus["eager gelu"], gelus["tf.function gelu"]])]))

# %%
# They agree
# ----------
# A fast wrong answer is worth nothing. At every batch, every way of running the block gives its
# framework's eager result, and the two frameworks agree: eager with eager, XLA with Inductor.
for b in BATCHES:
    for name, out in outputs[b].items():
        eager = tf_eager[b] if name.startswith("TF") else torch_eager[b]
        np.testing.assert_allclose(out, to_numpy(eager),
                                   **sidebyside.parity.tolerance(eager))
    sidebyside.assert_close(tf_eager[b], torch_eager[b], what=f"eager, batch {b}",
                            device=torch_device)
    if "PyTorch compiled" in outputs[b]:
        sidebyside.assert_close(outputs[b]["TF XLA"], outputs[b]["PyTorch compiled"],
                                what=f"XLA vs Inductor, batch {b}", device=torch_device)
# sphinx_gallery_start_ignore
torch.compiler.reset()  # nothing compiled lingers in the next page
torch.set_num_threads(torch_threads_before)
# sphinx_gallery_end_ignore
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * On a CPU, XLA and Inductor did the same thing to this block: the matrix products stayed
#   library calls, the elementwise operations after each became one fused loop.
#   ``experimental_get_compiler_ir`` and ``TORCH_LOGS=output_code`` show what they made of yours.
# * A ``tf.function`` graph is optimised code already (Grappler). A large gap between eager code
#   and a graph can be one rewritten operation, as ``pow(x, 3)`` here.
# * A compiler removes work inside the kernels and adds work around them, on a CPU too: compiled
#   code can be slower than eager code at small batches. Compare with what you would run
#   instead, with the spread.
# * XLA compiles once per process and batch size; Inductor once per graph (batch 1 gets its own,
#   a second size one for any batch) after a start-up per process, and warm from its disk cache.
#   Compiling has paid after its cost divided by what a call saves.
#
# References: ``tf.function`` (``jit_compile``, ``input_signature``),
# ``experimental_get_compiler_ir``, ``tf.config.optimizer``, TensorFlow's Grappler guide,
# ``torch.compile`` (``backend``, ``mode``, ``options``, ``isolate_recompiles``),
# ``torch.compiler.reset``, ``TORCH_LOGS``, ``TORCHINDUCTOR_CACHE_DIR``; XLA's HLO.

# sphinx_gallery_thumbnail_number = 1
