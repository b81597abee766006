"""
What compiling buys
===================

A graph can be handed to a compiler. TensorFlow hands a ``tf.function`` to XLA with
``jit_compile=True``; ``torch.compile`` hands the graphs it captures to Inductor. On one small
block, two matrix products with elementwise work after each, we read what each compiler made of
it (the operations before, the kernels after), time it eager, as a graph and compiled from batch
1 to 4096, and weigh the compile time against what each call saves: the number of calls after
which compiling pays.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. PyTorch runs on one
# thread while we time it (its old setting comes back afterwards), as on :ref:`the benchmark page
# <sphx_glr_auto_examples_40_cost_plot_10_benchmark.py>`; TensorFlow's thread pools take their
# size from ``TF_NUM_INTRAOP_THREADS``, which the site's build sets to 1.
import functools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import sidebyside
from sidebyside.benchmark import torch_threads  # PyTorch on n threads in a block
from sidebyside.capture import CountingBackend, call_names
from sidebyside.timing import Timing

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch
from torch._inductor.utils import run_and_get_code  # private

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
TOLERANCE = sidebyside.parity.TOLERANCES["cuda" if torch_device == "cuda" else "cpu"]
to_numpy = sidebyside.parity.to_numpy
print("On this machine (threads): TF_NUM_INTRAOP_THREADS =",
      os.environ.get("TF_NUM_INTRAOP_THREADS", "not set"))
sidebyside.provenance()


# %%
# The block
# ---------
# An MLP block of a transformer, small: ``h = gelu(x @ W1 + b1)`` widens each row of ``x`` from
# 128 to 512 numbers, ``y = h @ W2 + b2`` narrows it back, and an elementwise tail ``x +
# tanh(y) * sigmoid(y)`` adds the result to the input. GELU is the tanh approximation in both
# frameworks. Eagerly, every operation is a separate kernel that reads its input from memory and
# writes its output back; a compiler can fuse the elementwise operations into one loop each.
D, H = 128, 512
BATCHES = (64, 1, 16, 256, 4096)  # 64 first: the batch we read closely
rng = np.random.default_rng(0)
weights_np = {
    "W1": (rng.standard_normal((D, H)) / D**0.5).astype(np.float32),
    "b1": 0.1 * rng.standard_normal(H).astype(np.float32),
    "W2": (rng.standard_normal((H, D)) / H**0.5).astype(np.float32),
    "b2": 0.1 * rng.standard_normal(D).astype(np.float32),
}
x_np = {b: rng.standard_normal((b, D)).astype(np.float32) for b in BATCHES}

# %%
# **TensorFlow**: the block, and one eager call.


def tf_block(x, W1, b1, W2, b2):
    h = tf.nn.gelu(x @ W1 + b1, approximate=True)
    y = h @ W2 + b2
    return x + tf.tanh(y) * tf.sigmoid(y)


with tf.device(tf_device):
    tf_w = [tf.constant(w) for w in weights_np.values()]
    tf_x = {b: tf.constant(x) for b, x in x_np.items()}
tf_eager = {b: tf_block(tf_x[b], *tf_w) for b in BATCHES}
print("batch 64:", tf_eager[64].shape, tf_eager[64].dtype.name)

# %%
# **PyTorch**: the same block, and one eager call.
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
print("batch 64:", torch_eager[64].shape, torch_eager[64].dtype)

# %%
# What each compiler made of it
# -----------------------------
# *Before*: the operations of the graph each framework captured. A ``tf.function``'s graph holds
# TensorFlow operations; ``tf.nn.gelu`` is written in Python from several of them. The
# ``input_signature`` leaves the batch as ``None``, so one trace serves every batch size.
# ``torch.compile`` hands Dynamo's FX graph to a backend; the ``CountingBackend`` of :ref:`the
# graphs-in-PyTorch page <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>` keeps
# it, and ``call_names`` lists its calls (``F.gelu`` is one).
#
# *After*: ``experimental_get_compiler_ir(*args)(stage="optimized_hlo")`` returns the HLO program
# that XLA runs for those arguments' shapes. Its ``ENTRY`` computation is what runs, in order;
# a ``fusion`` instruction runs a fused computation, one kernel. On Inductor's side,
# ``TORCH_LOGS=output_code`` prints the Python module it generates; ``run_and_get_code`` from
# ``torch._inductor.utils`` (a private helper, used by PyTorch's own tests) returns its text. Its
# ``call`` function runs the kernels Inductor wrote (``cpp_fused_...`` on a CPU, ``triton_...``
# on a GPU) and library calls (``extern_kernels.addmm``: the product and the bias add in one call).
# A missing C++ compiler stops Inductor on a CPU; this page then says so and goes on without it.
CONST = {"Placeholder", "Const", "Identity", "NoOp"}  # move no data
HLO_LINE = re.compile(r"^\s*(?:ROOT )?%(\S+) = .*? ([a-z][\w-]*)\((.*)")


def hlo_computations(text):
    """{computation: [(name, opcode, rest of the line)]}, from HLO text."""
    computations, current = {}, None
    for line in text.splitlines():
        if line.endswith("{") and "->" in line:  # a computation's header
            current = "ENTRY" if line.startswith("ENTRY") else line.split()[0][1:]
            computations[current] = []
        elif current and (match := HLO_LINE.match(line)):
            computations[current].append(match.groups())
    return computations


# %%
# **TensorFlow (XLA)**: the graph's operations, then the HLO.
spec = [tf.TensorSpec([None, D])] + [
    tf.TensorSpec(w.shape) for w in tf_w]
tf_graph = tf.function(tf_block, input_signature=spec)
tf_xla = tf.function(tf_block, input_signature=spec,
                     jit_compile=True)
graph = tf_graph.get_concrete_function().graph
tf_before = [op.type for op in graph.get_operations()
             if op.type not in CONST]
print(sidebyside.wrap(f"{len(tf_before)} operations: "
                      + " ".join(tf_before), hang="  "))
args = (tf_x[64], *tf_w)
hlo = tf_xla.experimental_get_compiler_ir(*args)(
    stage="optimized_hlo")
computations = hlo_computations(hlo)
tf_after = [(op, rest) for _, op, rest in computations["ENTRY"]
            if op not in ("parameter", "tuple",
                          "get-tuple-element", "bitcast")]
print(len(tf_after), "instructions in ENTRY:")
MOVE = {"parameter", "constant", "broadcast"}
for op, rest in tf_after:
    called = re.search(r"calls=%([\w.]+)", rest)  # a fusion's
    fused = computations.get(called and called.group(1), [])
    inside = sorted({o for _, o, _ in fused} - MOVE)
    print(sidebyside.wrap(f"{op} {' '.join(inside)}",
                          indent="  ", hang="    "))
tf_fusions = sum(op == "fusion" for op, _ in tf_after)
assert len(tf_after) < len(tf_before) and tf_fusions >= 1

# %%
# **PyTorch (Inductor)**: Dynamo's graph, then Inductor's code.
counting = CountingBackend()
torch.compile(torch_block, backend=counting)(
    torch_x[64], *torch_w)
torch_before = call_names(counting.graphs[0])
print(sidebyside.wrap(f"{len(torch_before)} operations: "
                      + " ".join(torch_before), hang="  "))
torch_compiled = torch.compile(torch_block,
                               isolate_recompiles=True)
inductor_error = None  # why torch.compile cannot run here
try:
    with torch_threads(1):  # as when timed (Dynamo guards it)
        _, codes = run_and_get_code(
            torch_compiled, torch_x[64], *torch_w)
    code = "\n".join(codes)  # the generated module(s)
except torch._dynamo.exc.BackendCompilerFailed as error:
    cause = type(error.inner_exception).__name__
    if cause not in ("InvalidCxxCompiler", "CppCompileError"):
        raise  # another failure is a bug, not a missing tool
    inductor_error = f"{cause}: {error.inner_exception}"
    print(sidebyside.wrap(inductor_error.splitlines()[0]))
    print("torch.compile on a CPU needs one: skipped below")
if inductor_error is None:
    kernels = re.findall(r"^(\w+) = async_compile\.", code,
                         re.MULTILINE)
    pattern = "|".join([r"extern_kernels\.\w+", *kernels])
    torch_after = re.findall(rf"^[ ]+({pattern})\b", code,
                             re.MULTILINE)
    print(f"{len(torch_after)} calls in call():", *torch_after,
          sep="\n  ")
    assert len(torch_after) < len(torch_before)
    assert len(kernels) >= 1  # at least one fused kernel

# %%
# On a CPU, the two compilers did the same thing. Each kept the two matrix products apart
# (XLA's ``dot``; Inductor's ``extern_kernels.addmm``, which adds the bias in the same call) and
# fused the elementwise operations after each into one loop: one kernel for GELU, one for the
# tail. The tail's loop reads ``y`` and ``x`` once and writes the result once; eagerly,
# ``tanh(y)``, ``sigmoid(y)`` and their product are each written to memory and read back. The
# counts before differ because TensorFlow's GELU is eight operations and PyTorch's one. The
# lists depend on the device (a GPU gets other kernels); the assertions check only that fewer
# things run after compiling than before, and that something was fused.

# %%
# Eager, graph, compiled: from batch 1 to 4096
# --------------------------------------------
# Three ways to run the block in each framework. TensorFlow: eagerly, as a ``tf.function``
# graph, and compiled by XLA. PyTorch: eagerly, as Dynamo's graph run operation by operation
# (the ``CountingBackend`` again: capture without a compiler), and compiled by Inductor. Each
# ``torch.compile`` call keeps its own compiled graphs (``isolate_recompiles=True``); by default
# all calls on one function share them, eight at most. Each way is timed with
# ``sidebyside.time_call``, the ways taking turns round after round; the first call, which traces
# or compiles, is kept apart. Batch 64 goes first (Inductor compiled it above), then 1, 16, 256
# and 4096. XLA compiles a new program for each new batch size, from its one trace. Dynamo
# captures a new graph for batch 1, and for batch 16 one with the batch dimension dynamic
# (``s…`` below), which serves 256 and 4096 too: Dynamo always specialises a size of 0 or 1
# (:ref:`the graphs-in-PyTorch page
# <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>` shows automatic dynamic
# shapes). The times are this machine's, measured while the page was built, and not asserted.
ROUNDS, REPEAT, SAMPLE = 3, 5, 2e-3  # a sample: about SAMPLE s


def time_ways(ways, sync):
    """({name: Timing}, {name: output}); the ways take turns."""
    first, number, repeat, samples = {}, {}, {}, {}
    for name, run in ways.items():  # the first call compiles
        cold = sidebyside.time_call(run, warmup=1, repeat=1, sync=sync)
        first[name], seconds = cold.first, cold.samples[0]
        number[name] = max(1, min(200, round(SAMPLE / seconds)))
        repeat[name] = max(2, min(REPEAT, round(5 * SAMPLE / seconds)))
        samples[name] = []
    for _ in range(ROUNDS):  # a slow moment falls on every way
        for name, run in ways.items():
            timing = sidebyside.time_call(
                run, warmup=0, repeat=repeat[name], number=number[name], sync=sync)
            samples[name] += timing.samples
    timings = {n: Timing(first[n], tuple(samples[n])) for n in ways}
    return timings, {n: to_numpy(run()) for n, run in ways.items()}


def seconds(t):
    return f"{t:.2f} s" if t >= 0.1 else f"{t * 1e3:.1f} ms"


def table(results, compiled):
    """Median µs per call for each batch, then the first calls."""
    names = list(results[BATCHES[0]])
    print("On this machine (timed): µs per call, median")
    print("  batch" + "".join(f"{n:>14}" for n in names))
    for b in sorted(BATCHES):
        print(f"  {b:>5}" + "".join(f"{results[b][n].median * 1e6:>14,.1f}" for n in names))
    for name in compiled:
        firsts = ", ".join(f"{b}: {seconds(results[b][name].first)}" for b in BATCHES)
        print(sidebyside.wrap(f"first calls, {name}, batch {firsts}", "  ", "  "))


# %%
# **TensorFlow**: eager, ``tf.function``, ``jit_compile=True``.
tf_sync = (tf.test.experimental.sync_devices
           if tf_device.startswith("/GPU") else None)
tf_ways = {"eager": tf_block, "tf.function": tf_graph,
           "XLA": tf_xla}
tf_results, tf_outputs = {}, {}
for b in BATCHES:
    tf_results[b], tf_outputs[b] = time_ways(
        {name: lambda f=f, b=b: f(tf_x[b], *tf_w)
         for name, f in tf_ways.items()}, tf_sync)
table(tf_results, ["XLA"])
print("traces: tf.function",
      tf_graph.experimental_get_tracing_count(),
      "XLA", tf_xla.experimental_get_tracing_count())

# %%
# **PyTorch**: eager, Dynamo's graph, ``torch.compile``.
torch_sync = (torch.cuda.synchronize
              if torch_device == "cuda" else None)
capture = CountingBackend()  # runs each graph as it is
torch_graph = torch.compile(torch_block, backend=capture,
                            isolate_recompiles=True)
torch_ways = {"eager": torch_block, "graph": torch_graph}
if inductor_error is None:
    torch_ways["compiled"] = torch_compiled
if torch_device == "cuda" and inductor_error is None:
    torch_ways["CUDA graphs"] = torch.compile(  # see below
        torch_block, mode="reduce-overhead",
        isolate_recompiles=True)
torch_results, torch_outputs = {}, {}
with torch_threads(1):
    for b in BATCHES:
        torch_results[b], torch_outputs[b] = time_ways(
            {name: lambda f=f, b=b: f(torch_x[b], *torch_w)
             for name, f in torch_ways.items()}, torch_sync)
table(torch_results, [n for n in torch_ways if n != "eager"])
xs = [next(v for n in g.graph.nodes if isinstance(  # x
    v := n.meta.get("example_value"), torch.Tensor))
    for g in capture.graphs]
print(len(xs), "graphs; x:", *["({}, {})".format(*(
    d if isinstance(d, int) else "s…" for d in x.shape))
    for x in xs])
assert len(xs) == 3  # 64, then 1, then any batch

# %%
# The same medians as a chart, per row of the batch, with each measurement's range (min to max
# of its samples) as a bar. Time per row falls as the batch grows while a fixed cost per call
# (calling into the framework, launching kernels) dominates, and levels off once the arithmetic
# does.
fig, ax = plt.subplots(figsize=(9, 4.5))
styles = {"eager": "o-", "tf.function": "s--", "graph": "s--", "XLA": "^-",
          "compiled": "^-", "CUDA graphs": "v:"}
for who, results in [("TF", tf_results), ("PyTorch", torch_results)]:
    for name in results[BATCHES[0]]:
        timed = [(b, results[b][name].samples) for b in sorted(BATCHES)]
        low, mid, high = (np.array([f(t) / b for b, t in timed]) * 1e6
                          for f in (min, statistics.median, max))
        ax.errorbar(sorted(BATCHES), mid, yerr=[mid - low, high - mid], fmt=styles[name],
                    color="#ff8f00" if who == "TF" else "#ee4c2c", label=f"{who} {name}")
ax.set(xscale="log", yscale="log", xticks=sorted(BATCHES), xticklabels=sorted(BATCHES),
       xlabel="batch (rows of x)", ylabel="µs per row (median, min to max)")
ax.set_title("The block, eager, as a graph and compiled (this machine)", fontsize=10)
ax.legend(ncols=2, fontsize=8)
fig.tight_layout()
plt.show()

# %%
# Read from the same numbers, batch by batch: a way is called faster or slower than another only
# where the ranges of their samples do not overlap; otherwise the line says ``same``.


def versus(results, b, name, reference="eager"):
    """'2.10x faster', '1.30x slower' or 'same', at batch b."""
    ref, other = results[b][reference], results[b][name]
    ratio = ref.median / other.median
    if max(other.samples) < min(ref.samples):
        return f"{ratio:.2f}x faster"
    if min(other.samples) > max(ref.samples):
        return f"{1 / ratio:.2f}x slower"
    return "same"


print("On this machine (timed): against eager, per batch")
for who, results in [("TF", tf_results), ("PyTorch", torch_results)]:
    for name in list(results[BATCHES[0]])[1:]:
        cells = ", ".join(f"{b}: {versus(results, b, name)}" for b in sorted(BATCHES))
        print(f"  {who} {name}: {cells}")

# %%
# What compiling costs, and when it pays
# --------------------------------------
# TensorFlow keeps XLA's programs in memory (its folder for them,
# ``--tf_xla_persistent_cache_directory`` in ``TF_XLA_FLAGS``, is off by default), so each new
# process and each new shape compiles again: the first call at each batch above is XLA's compile
# and one run. Inductor also writes what it compiled to a folder, ``TORCHINDUCTOR_CACHE_DIR``
# (the site's build keeps it between builds), and a process that compiled before has its
# compiler loaded: the first calls above depend on what ran before. So we measure a *cold*
# compile where nothing has run: a fresh Python process, with ``TORCHINDUCTOR_CACHE_DIR`` (and
# ``TRITON_CACHE_DIR``, which a GPU uses) pointed at a new, empty temporary folder. It compiles
# the block for batch 64, forgets it (``torch.compiler.reset()``) and compiles it again: a *warm*
# compile, with Inductor's caches in that folder and in the process filled. Its result must match
# this page's eager one.
CHILD = r"""
import json, sys, time
import numpy as np, torch
F = torch.nn.functional

def torch_block(x, W1, b1, W2, b2):  # the block above
    h = F.gelu(x @ W1 + b1, approximate="tanh")
    y = h @ W2 + b2
    return x + torch.tanh(y) * torch.sigmoid(y)

folder, device = sys.argv[1:]
arrays = np.load(f"{folder}/inputs.npz")
args = [torch.tensor(arrays[k], device=device)
        for k in ("x", "W1", "b1", "W2", "b2")]
torch_block(*args)  # eager first: device and libraries ready
seconds = {}
for compile_ in ("cold", "warm"):
    torch.compiler.reset()
    start = time.perf_counter()
    out = torch.compile(torch_block)(*args)  # compiles, runs
    if device == "cuda":
        torch.cuda.synchronize()
    seconds[compile_] = time.perf_counter() - start
np.save(f"{folder}/output.npy", out.cpu().numpy())
print(json.dumps(seconds))
"""
compile_seconds = {}
if inductor_error is None:
    with tempfile.TemporaryDirectory() as folder:
        np.savez(f"{folder}/inputs.npz", x=x_np[64], **weights_np)
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": f"{folder}/inductor",
               "TRITON_CACHE_DIR": f"{folder}/triton"}
        child = subprocess.run([sys.executable, "-c", CHILD, folder, torch_device],
                               env=env, capture_output=True, text=True, timeout=600)
        if child.returncode:
            raise RuntimeError(f"the cold compile failed:\n{child.stderr[-3000:]}")
        compile_seconds = json.loads(child.stdout.splitlines()[-1])
        child_output = np.load(f"{folder}/output.npy")
    np.testing.assert_allclose(child_output, to_numpy(torch_eager[64]), **TOLERANCE)
    print("the fresh process's result matches eager")

# %%
# Where the compiled call is faster (the ranges apart, as above), ``n`` calls cost ``first + (n -
# 1) * compiled`` against ``n * eager``: the compile has paid for itself after ``n = (first -
# compiled) / (eager - compiled)`` calls. For XLA, ``first`` is its first call at that batch; for
# Inductor, we take the fresh process's cold and warm compiles (of batch 64) as the first call.
# Where the compiled call is not faster, the line says ``never``.


def pays(first, results, b, name):
    eager, fast = results[b]["eager"], results[b][name]
    if max(fast.samples) >= min(eager.samples):
        return f"{seconds(first)}, never"
    calls = (first - fast.median) / (eager.median - fast.median)
    return f"{seconds(first)}, after {calls:,.0f} calls"


print("On this machine (timed): first call or compile, and when it has paid")
for b in sorted(BATCHES):
    print(f"  batch {b:>4}: XLA {pays(tf_results[b]['XLA'].first, tf_results, b, 'XLA')}")
    if compile_seconds:
        print(" " * 14 + "torch.compile " + "; ".join(
            f"{c} {pays(first, torch_results, b, 'compiled')}" for c, first in compile_seconds.items()))
if inductor_error:
    print("  torch.compile: not measured, no working C++ compiler here")

# %%
# CUDA graphs
# -----------
# On a GPU the CPU launches every kernel, at a few microseconds each, and a small batch's kernels
# can finish faster than the next launch comes. ``torch.compile(mode="reduce-overhead")``
# records the compiled kernels' launches as a *CUDA graph* and replays the recording with one
# launch. A CPU has nothing to record (its kernels are plain function calls), and CUDA graphs
# need a CUDA device: this part runs only where PyTorch sees one (Setup names the device), and
# adds a ``CUDA graphs`` column to the PyTorch table above, compared here with the default mode.
if "CUDA graphs" in torch_ways:
    print("On this machine (timed): CUDA graphs against compiled")
    for b in sorted(BATCHES):
        print(f"  batch {b:>4}:", versus(torch_results, b, "CUDA graphs", "compiled"))
else:
    print("On this machine (no CUDA GPU): CUDA graphs not run")

# %%
# They agree
# ----------
# A fast wrong answer is worth nothing. At every batch, every way of running the block gives its
# framework's eager result, and the two frameworks agree: eager with eager, XLA with Inductor.
# These assertions run on every build.
for b in BATCHES:
    for out in tf_outputs[b].values():
        np.testing.assert_allclose(out, to_numpy(tf_eager[b]), **TOLERANCE)
    for out in torch_outputs[b].values():
        np.testing.assert_allclose(out, to_numpy(torch_eager[b]), **TOLERANCE)
    check = dict(device=torch_device)
    sidebyside.assert_close(tf_eager[b], torch_eager[b], what=f"eager, batch {b}", **check)
    if "compiled" in torch_outputs[b]:
        sidebyside.assert_close(tf_outputs[b]["XLA"], torch_outputs[b]["compiled"],
                                what=f"XLA vs Inductor, batch {b}", **check)
print("every way agrees with eager, and TensorFlow with PyTorch")
torch.compiler.reset()  # nothing compiled lingers in the next page
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * On a CPU, ``tf.function(jit_compile=True)`` and ``torch.compile`` did the same thing to this
#   block: the matrix products stayed separate calls, and the elementwise operations after each
#   became one fused loop. ``experimental_get_compiler_ir(...)(stage="optimized_hlo")`` and
#   ``TORCH_LOGS=output_code`` show what a compiler made of your code.
# * A graph and a compiler save work per call; whether that is a large part of a call depends on
#   the batch, on the device and on the framework's eager overhead: measure it, as above, with
#   the spread, before calling anything faster.
# * Compiling is paid once per process and shape with XLA, once per graph with Inductor (a second
#   batch size brings a graph for any batch, and batch 1 one of its own), whose disk cache makes a
#   later compile warm. Divide it by what a call saves: that is how many calls it takes to pay.
# * CUDA graphs (``mode="reduce-overhead"``) replace a GPU's launch per kernel with one launch per
#   recorded graph; a CPU has no launches to save.
#
# References: ``tf.function`` (``jit_compile``, ``input_signature``),
# ``experimental_get_compiler_ir``, ``torch.compile`` (``backend``, ``mode``,
# ``isolate_recompiles``), ``torch.compiler.reset``, ``TORCH_LOGS`` (``output_code``),
# ``TORCHINDUCTOR_CACHE_DIR``, ``torch.cuda.graphs``; XLA's operation semantics (HLO).
