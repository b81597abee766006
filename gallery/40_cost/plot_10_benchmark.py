"""
What a graph costs: small graphs and the price of a call
========================================================

The usual summary says a static graph is built once and then runs efficiently, while a
dynamic graph is rebuilt on every run and costs more (one of the source posts credited
on :ref:`sources` says so). This page measures it: one training step of the same
functions runs in seven ways, from PyTorch eager to a TensorFlow 1 ``Session``, on a
three-operation graph, a small MLP and a large one where arithmetic dominates. You will
see what *calling* a graph costs per step, what *building* it costs on the first call
(measured in a fresh Python), how long each variant takes to settle, and whether the
large MLP's gap between the frameworks comes from graphs or from the matrix library.
:ref:`The next lesson <sphx_glr_auto_examples_40_cost_plot_20_benchmark_loops.py>` times
loops: RNNs, and what ``tf.function`` pays when the length changes.
"""

# %%
# Setup
# -----
# Both frameworks and the helpers of this site; the seed comes after the threads.
import warnings

import sidebyside
from sidebyside import benchmark
from sidebyside.benchmark import duration
from sidebyside.timing import time_call

import numpy as np
import tensorflow as tf
import torch

# %%
# Pinning the threads
# -------------------
# With both frameworks at their default thread counts on a small machine, their thread
# pools fight over the cores, and a median can jump many times over from one run to the
# next. So PyTorch runs on one thread while we time it, and each TensorFlow 1 session
# gets one thread per pool through ``ConfigProto``. Eager TensorFlow and ``tf.function``
# use TensorFlow's global pools, which ``tf.config.threading`` sizes only before the
# runtime starts (its first operation starts it; ``TF_NUM_INTRAOP_THREADS`` and
# ``TF_NUM_INTEROP_THREADS`` are read then too). So this page sizes them before anything
# runs TensorFlow; where the runtime already runs (in the site's build, earlier pages
# started it), it says what the environment variables set.
THREADS = 1
# sizes TensorFlow's pools, or reads TF_NUM_*_THREADS; a ConfigProto
tf_pools, session_config = benchmark.pin_threads(THREADS)

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance(math=True)

# %%
# The workloads
# -------------
# Two functions, each written once per framework with the same names: the tiny graph
# ``y = (w + x) * (w + 1)`` of the first page, where there is nothing to compute and all
# the time is framework overhead; and an MLP with one hidden layer, small or large. The
# PyTorch versions carry type hints so that TorchScript can compile them as well.

# %%
# **TensorFlow**: the two losses.


def tiny_loss(x, p):
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x, y, p):
    h = tf.tanh(x @ p["W1"] + p["b1"])
    return tf.reduce_mean((h @ p["W2"] + p["b2"] - y) ** 2)


tf_losses = dict(tiny=tiny_loss, mlp=mlp_loss)

# %%
# **PyTorch**: the same two losses.
Tensor, Params = torch.Tensor, dict[str, torch.Tensor]


def tiny_loss(x: Tensor, p: Params) -> Tensor:
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x: Tensor, y: Tensor, p: Params) -> Tensor:
    h = torch.tanh(x @ p["W1"] + p["b1"])
    return torch.mean((h @ p["W2"] + p["b2"] - y) ** 2)


torch_losses = dict(tiny=tiny_loss, mlp=mlp_loss)

# %%
# Each workload is one set of NumPy arrays, the inputs and the starting parameters, from
# which every variant starts. The large MLP is big enough that its matrix products, not
# the calls into the framework, should take the time.
rng = np.random.default_rng(0)


def uniform(*shape):
    bound = 1 / np.sqrt(shape[0])
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def mlp(batch, width, hidden):
    inputs = (rng.standard_normal((batch, width), np.float32), uniform(batch, 10))
    params = {"W1": uniform(width, hidden), "b1": np.zeros(hidden, np.float32),
              "W2": uniform(hidden, 10), "b2": np.zeros(10, np.float32)}
    return "mlp", inputs, params


workloads = {
    "tiny graph": ("tiny", (np.float32(2.0),), {"w": np.float32(1.0)}),
    "MLP, batch 64": mlp(batch=64, width=100, hidden=256),
    "large MLP, batch 128": mlp(batch=128, width=1024, hidden=1024),
}

# %%
# Seven ways to run a training step
# ---------------------------------
# Each variant turns a loss into a step that returns the loss and its gradients with
# respect to the parameters, and binds the inputs, so that the timer calls ``run()``
# with no arguments. TensorFlow 2 runs the step eagerly under a ``GradientTape``, or
# traced into a graph by ``tf.function``. TensorFlow 1 style builds a ``tf.Graph`` with
# placeholders and ``tf.compat.v1.gradients`` once per workload: ``Session.run`` feeds it
# through a ``feed_dict``, and ``Session.make_callable`` prepares the same fetches and
# feeds once, for a cheaper call. PyTorch runs the loss eagerly, or compiled by
# ``torch.compile`` or TorchScript, and autograd computes the gradients in all three.
tf1_graphs = {}  # one graph and session per workload, for both TF1 variants


# %%
# **TensorFlow**: eager, ``tf.function``, and a TensorFlow 1
# graph run two ways.
def tf2_variant(workload, *, graph=False):
    kind, arrays, params = workloads[workload]
    variables = {k: tf.Variable(params[k]) for k in params}
    weights = list(variables.values())

    def step(*inputs):
        with tf.GradientTape() as tape:
            loss = tf_losses[kind](*inputs, variables)
        return loss, tape.gradient(loss, weights)

    if graph:
        step = tf.function(step)
    inputs = [tf.constant(array) for array in arrays]
    return lambda: step(*inputs)


tf1 = tf.compat.v1  # TensorFlow 1's API, inside TensorFlow 2


def tf1_graph(kind, arrays, params):
    """Placeholders, variables, loss, grads: built, not run."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf_device):
        inputs = [tf1.placeholder(a.dtype, a.shape)
                  for a in arrays]
        variables = {k: tf.Variable(params[k]) for k in params}
        loss = tf_losses[kind](*inputs, variables)
        grads = tf1.gradients(loss, list(variables.values()))
        init = tf1.global_variables_initializer()
    session = tf1.Session(graph=graph, config=session_config)
    session.run(init)
    return session, inputs, [loss, grads]


def tf1_variant(workload, *, prebuilt=False):
    if workload not in tf1_graphs:  # both TF1 variants share it
        tf1_graphs[workload] = tf1_graph(*workloads[workload])
    session, inputs, fetches = tf1_graphs[workload]
    arrays = workloads[workload][1]
    if prebuilt:
        run = session.make_callable(fetches, feed_list=inputs)
        return lambda: run(*arrays)
    feed = dict(zip(inputs, arrays, strict=True))
    return lambda: session.run(fetches, feed_dict=feed)


# %%
# **PyTorch**: eager, ``torch.compile`` and TorchScript.
def torch_variant(workload, *, compiler=None):
    kind, arrays, params = workloads[workload]
    tensors = {k: torch.tensor(v, device=torch_device,
                               requires_grad=True)
               for k, v in params.items()}
    weights = list(tensors.values())
    inputs = [torch.tensor(a, device=torch_device)
              for a in arrays]
    loss_fn = torch_losses[kind]
    if compiler is not None:
        loss_fn = compiler(loss_fn)

    def step(*inputs):
        loss = loss_fn(*inputs, tensors)
        return loss, torch.autograd.grad(loss, weights)

    return lambda: step(*inputs)


script_warnings = set()  # printed once, after the benchmark


def torchscript(fn):  # deprecated: its warning is printed once
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        scripted = torch.jit.script(fn)
    script_warnings.update(str(w.message) for w in caught)
    return scripted


# %%
# A cold ``torch.compile`` of even a small function takes seconds of compiling C++ on a
# small CPU, a large part of this page's budget, so it compiles one workload only, the
# small MLP. Every other variant runs every workload; one that fails says why.
COMPILED = "MLP, batch 64"
NOT_COMPILED = "not run: compiled on one workload only (build-time budget)"
variants = {
    "PyTorch eager": (torch_variant, {}),
    "torch.compile": (torch_variant, {"compiler": torch.compile}),
    "TorchScript": (torch_variant, {"compiler": torchscript}),
    "TF2 eager": (tf2_variant, {}),
    "tf.function": (tf2_variant, {"graph": True}),
    "TF1 Session.run": (tf1_variant, {}),
    "TF1 callable": (tf1_variant, {"prebuilt": True}),
}
torch_sync, tf_sync = benchmark.gpu_syncs(torch_device, tf_device)
sync_for = {torch_variant: torch_sync, tf2_variant: tf_sync, tf1_variant: tf_sync}

# %%
# How we time
# -----------
# ``sidebyside.benchmark.time_variants`` builds each variant of a workload's step, calls
# it once, then one call at a time until its time per call has *settled*: the median of
# the last five calls no more than 5 % below that of the five before (its time stopped
# falling; ``sidebyside.timing.settle``, 10 s at most). A compiler that keeps optimising
# after its first call is never timed while it does; the warm-up table shows what that
# cost. A sample then repeats the step for about 2 ms, a round takes samples for about
# 30 ms, and the variants take turns, round after round, so that a slow moment of the
# machine falls on all of them. We report the median of all samples and, as its
# *spread*, half the range of the round medians: at least 5 rounds, and up to 10 until
# the spread is at most 3 %. Two variants *differ* only when their medians are further
# apart than their spreads reach; otherwise they tie. The clock is ``time.perf_counter``,
# the GPU synchronised before every read.
TARGET = 0.03


def not_run(workload, name):
    if name == "torch.compile" and workload != COMPILED:
        return NOT_COMPILED
    return None


results, outputs = benchmark.time_workloads(workloads, variants, sync_for,
                                            threads=THREADS, target=TARGET,
                                            not_run=not_run)

# %%
# A fast wrong answer is worth nothing: on every workload, every variant's loss and
# gradients must match PyTorch eager's. Float32 sums taken in a different order differ
# in the last bits, hence a relative tolerance of ``1e-4``.
checked = benchmark.check_outputs(outputs, "PyTorch eager", rtol=1e-4)
print(f"{checked} runs checked against PyTorch eager: the losses and gradients agree")
print(*(f"DeprecationWarning: {w}" for w in sorted(script_warnings)), sep="\n")

# %%
# The numbers
# -----------
# Steady-state time per training step, its spread, and its ratio to PyTorch eager on the
# same workload (below 1 is faster than PyTorch eager).
hardware = benchmark.hardware(torch_device)
benchmark.step_table(results, list(variants), reference="PyTorch eager", target=TARGET,
                     caption="Time per training step: median, ±spread · ratio to "
                     f"PyTorch eager ({hardware})")

# %%
# Warming up: after the first call, how many calls each variant took until its time per
# call settled, and how much longer they took than as many settled calls.
benchmark.warmup_table(results, list(variants), caption="Warm-up until settled: calls, "
                       f"and time beyond the steady state ({hardware})")

# %%
# The first call, in a fresh Python
# ---------------------------------
# The first call pays for the graph: tracing for ``tf.function``, building the graph and
# opening a session for TensorFlow 1, compiling for ``torch.compile`` and TorchScript.
# Timed here, it would depend on what ran before in this process: caches that earlier
# pages filled (Inductor keeps what it compiled in memory and in its cache folder) and
# machinery they set up. So this script runs in a new Python (``sidebyside.benchmark.fresh_python``), with one thread per pool and an empty
# ``TORCHINDUCTOR_CACHE_DIR``, so that ``torch.compile`` compiles from scratch. It starts
# both runtimes, untimed, then times the first call of each variant of the small MLP's
# step, building included, in the tables' order: a later one may find shared machinery
# already set up.
FRESH = '''
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

def tf_loss(x, y, p):  # mlp_loss, as above
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
    session = tf1.Session(graph=graph, config=tf1.ConfigProto(
        intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))
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

warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit
print(json.dumps({
    "PyTorch eager": first_call(torch_step),
    "torch.compile": first_call(torch_step, torch.compile),
    "TorchScript": first_call(torch_step, torch.jit.script),
    "TF2 eager": first_call(tf2_step),
    "tf.function": first_call(tf2_step, tf.function),
    "TF1 Session.run": first_call(tf1_step),
    "TF1 callable": first_call(tf1_step, True),
}))
'''
first_calls = {COMPILED: benchmark.fresh_python(FRESH, threads=THREADS)}
cold_compile = first_calls[COMPILED]["torch.compile"]
benchmark.first_call_table(first_calls, list(variants), caption="First call in a fresh "
                           f"Python: building plus one call ({hardware})")

# %%
# One matrix product
# ------------------
# Most of a large-MLP step is two matrix products of 128 × 1024 by 1024 × 1024 sizes:
# ``x @ W1`` forward and the gradient of ``W1`` backward. Neither framework writes them
# itself: PyTorch hands a float32 product on the CPU to the BLAS library it was built
# with, TensorFlow to its own kernels, or oneDNN's where its oneDNN ops are on (the
# provenance box names them). A gap between the frameworks there can say more about
# those libraries, and how well they suit this CPU, than about graphs. So we time one
# such product alone in each framework, on one thread, eagerly: no graph, no gradient.
a = rng.standard_normal((128, 1024), np.float32)
b = rng.standard_normal((1024, 1024), np.float32)
flops = 2 * 128 * 1024 * 1024  # a multiply and an add per term
ta, tb = (torch.tensor(m, device=torch_device) for m in (a, b))
with tf.device(tf_device):
    fa, fb = tf.constant(a), tf.constant(b)
with benchmark.torch_threads(THREADS):
    matmul = {"torch.mm": time_call(lambda: torch.mm(ta, tb), sync=torch_sync),
              "tf.matmul": time_call(lambda: tf.matmul(fa, fb), sync=tf_sync)}
sidebyside.assert_close(tf.matmul(fa, fb), torch.mm(ta, tb), rtol=1e-4, atol=1e-3,
                        what="one matrix product")
for name, timing in matmul.items():
    speed = flops / timing.median / 1e9
    print(f"On this machine (timed): {name} {duration(timing.median)}, "
          f"{speed:.0f} GFLOP/s")

# %%
# Reading the numbers
# -------------------
# These sentences are computed from the tables above on every build, so they describe
# this machine's numbers, whatever they turn out to be. A variant is called faster or
# slower only where the gap exceeds the spreads; otherwise the sentence says they tie.
timed = {w: benchmark.measured(by) for w, by in results.items()}  # variants that ran


def compare(workload, name, reference="PyTorch eager"):
    return benchmark.compare(results[workload], name, reference)


def per_step(workload, name):
    return benchmark.per_step(results[workload], name)


def fastest(workload):
    if len(names := benchmark.fastest(results[workload])) == 1:
        return f"the fastest is {names[0]} ({per_step(workload, names[0])})"
    return f"{', '.join(names[:-1])} and {names[-1]} tie for fastest (within the spreads)"


tiny, largest = "tiny graph", list(workloads)[-1]
readings = [
    f"Overhead: a whole PyTorch eager step of the tiny graph takes "
    f"{per_step(tiny, 'PyTorch eager')}. The same three operations take "
    f"{per_step(tiny, 'tf.function')} through tf.function "
    f"({compare(tiny, 'tf.function')}) and {per_step(tiny, 'TF1 Session.run')} "
    f"through Session.run ({compare(tiny, 'TF1 Session.run')}); the TF1 callable is "
    f"{compare(tiny, 'TF1 callable', 'TF1 Session.run')}.",
    *(f"{workload}: {fastest(workload)}." for workload in workloads),
]
families = {"PyTorch eager": ["torch.compile", "TorchScript"],
            "TF2 eager": ["tf.function", "TF1 Session.run", "TF1 callable"]}
for eager, graphs in families.items():
    readings.append(f"On the {largest}: " + "; ".join(
        f"{g} is {compare(largest, g, eager)}" for g in graphs if g in timed[largest]) + ".")
step_ratio = (timed[largest]["PyTorch eager"].median
              / timed[largest]["TF2 eager"].median)
mm_ratio = matmul["torch.mm"].median / matmul["tf.matmul"].median
readings.append(
    f"Between the frameworks, a PyTorch eager step of the {largest} takes "
    f"{step_ratio:.2f}× as long as a TF2 eager one, and one matrix product alone "
    f"{mm_ratio:.2f}× as long: " + (
        "the two ratios agree within a quarter, so the matrix libraries, not graphs, "
        "account for the gap." if abs(np.log(step_ratio / mm_ratio)) < np.log(1.25)
        else "the two ratios differ by more than a quarter: the matrix libraries are "
        "not the whole story.")
)
if compiled := timed[COMPILED].get("torch.compile"):
    eager = timed[COMPILED]["PyTorch eager"]
    saved = eager.median - compiled.median
    pays = (f"so a cold compile pays for itself after about {cold_compile / saved:,.0f} "
            "steps" if benchmark.differ(compiled, eager) and saved > 0
            else "so on this workload it does not pay for its compile time")
    readings.append(
        f"torch.compile on the {COMPILED}: its first call in a fresh Python took "
        f"{duration(cold_compile)}, and each settled step is "
        f"{compare(COMPILED, 'torch.compile')}, {pays}."
    )
benchmark.bullets(readings)

# %%
# Cleaning up
# -----------
# Close the TensorFlow 1 sessions and forget what ``torch.compile`` compiled
# (``torch.compiler.reset()``), so that nothing from this page lingers in the next one.
for session, _, _ in tf1_graphs.values():
    session.close()
torch.compiler.reset()

# %%
# What to take away
# -----------------
# * A call and the arithmetic inside it cost different things: the tiny graph measures
#   the call, the large MLP mostly the arithmetic. The tables above show both, on this
#   machine.
# * Where the arithmetic dominates, compare graph and eager *within* a framework: a gap
#   between the frameworks there can come from the matrix libraries they call; timing
#   one product alone tells.
# * Building is paid on the first call (tracing, compiling, opening a session), and a
#   compiler may keep optimising for a few calls more: time the first call in a fresh
#   process, and warm up until the time per call has settled.
# * To time things yourself: pin the threads in the script, warm up until settled, let
#   the variants take turns, take medians with a spread, call a difference only when it
#   exceeds the spread, and synchronise the GPU before reading the clock.
#
# What a compiler adds on top of a graph, XLA against Inductor, is timed on :ref:`what
# compiling buys <sphx_glr_auto_examples_35_payoffs_plot_30_compile.py>`.
#
# References: ``torch.compile``, ``torch.jit.script``, ``torch.set_num_threads``,
# ``tf.config.threading.set_intra_op_parallelism_threads``, ``tf.function``,
# ``tf.compat.v1.Session.make_callable``, ``tf.compat.v1.ConfigProto``,
# ``tf.test.experimental.sync_devices``, ``torch.__config__.show``.
sidebyside.parity_report()
