"""
What a graph costs: small graphs and the price of a call
========================================================

The usual summary says a static graph is built once and then runs efficiently, while a
dynamic graph is rebuilt on every run and costs more (one of the source posts credited
on :ref:`sources` says so). This lesson measures it: one training step of the same
functions, run seven ways, from PyTorch eager to a TensorFlow 1 :term:`session`, on a
graph of three operations, where all the time is the price of a call, and on two MLPs,
where more and more of it is arithmetic. You will see what *calling* a graph costs per
step, and what *building* it costs on the first call.
:ref:`The next lesson <sphx_glr_auto_examples_40_cost_plot_20_benchmark_loops.py>` times
loops, and what ``tf.function`` pays when the length of the input changes.
"""

# %%
# Setup
# -----
# Timings compare only on pinned threads: PyTorch runs on one while it is timed, and
# TensorFlow's pools are sized to one before its runtime starts (which pool takes its
# size from where: *Going deeper* below). The seed comes after the threads.
import sidebyside
from sidebyside import benchmark

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
THREADS = 1
tf_pools, session_config = benchmark.pin_threads(THREADS, show=False)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance(math=True)

# %%
# The workloads
# -------------
# Two functions, written once per framework with the same names: the tiny graph
# ``y = (w + x) * (w + 1)`` of the first page, where there is nothing to compute and all
# the time is framework overhead; and an MLP with one hidden layer, small or large (the
# type hints let TorchScript compile the PyTorch versions).

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
def mlp(batch, width, hidden):
    x = rng.standard_normal((batch, width), np.float32)
    y, W1, W2 = (rng.uniform(-1, 1, (n, m)).astype(np.float32) / n**0.5  # within ±1/√rows
                 for n, m in [(batch, 10), (width, hidden), (hidden, 10)])
    params = {"W1": W1, "b1": np.zeros(hidden, np.float32),
              "W2": W2, "b2": np.zeros(10, np.float32)}
    return "mlp", (x, y), params

workloads = {
    "tiny graph": ("tiny", (np.float32(2.0),), {"w": np.float32(1.0)}),
    "MLP, batch 64": mlp(batch=64, width=100, hidden=256),
    "large MLP, batch 128": mlp(batch=128, width=1024, hidden=1024),
}
tiny, largest = "tiny graph", "large MLP, batch 128"

# %%
# Seven ways to run a training step
# ---------------------------------
# Each variant turns a loss into a step that returns the loss and its gradients, with
# the inputs bound, so that the timer calls ``run()`` with no arguments. TensorFlow 2 runs the step eagerly under a ``GradientTape``, or
# traced into a graph by ``tf.function``. TensorFlow 1 style builds a ``tf.Graph`` with
# :term:`placeholders <placeholder>` and ``tf.compat.v1.gradients`` once per workload and
# runs it through ``Session.run`` with a ``feed_dict``, or through
# ``Session.make_callable``, which checks the feeds and fetches once instead of on every
# call (whether that shows in a step's time, the tiny graph tells). PyTorch runs the loss
# eagerly, compiled by ``torch.compile``, or by TorchScript. Autograd runs the backward
# pass in all three; under ``torch.compile`` that backward was compiled along with the
# forward, and under TorchScript, once it has optimised, it is a differentiated graph.

# %%
# **TensorFlow**: eager and ``tf.function``.
def tf2_variant(workload, *, graph=False):
    kind, arrays, params = workloads[workload]
    variables = {k: tf.Variable(params[k]) for k in params}
    weights = list(variables.values())
    def step(*inputs):
        with tf.GradientTape() as tape:
            loss = tf_losses[kind](*inputs, variables)
        return loss, tape.gradient(loss, weights)
    step = tf.function(step) if graph else step
    inputs = [tf.constant(array) for array in arrays]
    return lambda: step(*inputs)

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


# %%
# Going deeper: the TF1 and TorchScript code
# ------------------------------------------
# A TensorFlow 1 graph, built once per workload and run two ways; TorchScript, which warns.
tf1_graphs = {}  # one graph and session per workload, for both TF1 variants
tf1 = tf.compat.v1  # TensorFlow 1's API, inside TensorFlow 2


# %%
# **TensorFlow**: a TensorFlow 1 graph run two ways.
def tf1_graph(kind, arrays, params, config=session_config):
    """Placeholders, variables, loss, grads: built, not run."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf_device):
        inputs = [tf1.placeholder(a.dtype, a.shape)
                  for a in arrays]
        variables = {k: tf.Variable(params[k]) for k in params}
        loss = tf_losses[kind](*inputs, variables)
        grads = tf1.gradients(loss, list(variables.values()))
        init = tf1.global_variables_initializer()
    session = tf1.Session(graph=graph, config=config)
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
# **PyTorch**: TorchScript, which warns (shown below).
import warnings

script_warnings = set()  # (class, message): printed once

def torchscript(fn):  # deprecated: it warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scripted = torch.jit.script(fn)
    script_warnings.update(
        (w.category, str(w.message)) for w in caught)
    return scripted


# %%
# Timing them, and they agree
# ---------------------------
# A cold ``torch.compile`` of even a small function takes seconds of compiling C++ on a
# small CPU, a large part of this page's budget, so it compiles one workload only, the
# small MLP. Every other variant runs every workload; one that fails says why.
COMPILED = "MLP, batch 64"
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
def not_run(workload, name):
    if name == "torch.compile" and workload != COMPILED:
        return "not run: compiled on one workload only (build-time budget)"


# %%
# ``benchmark.time_workloads`` builds each variant's step, calls it once, then until its
# time per call has *settled* (a compiler that keeps optimising is not timed while it
# does). Then the variants take turns, round after round, so that a slow moment of the
# machine falls on all of them. Each gets the median of its samples and a *spread*: half
# the range of its round medians. Two variants *differ* only where the gap between their
# medians exceeds the sum of their spreads; otherwise they tie (more in *Going deeper*).
results, outputs = benchmark.time_workloads(workloads, variants, sync_for,
                                            threads=THREADS, not_run=not_run)

# %%
# A fast wrong answer is worth nothing: on every workload, every variant's loss and
# gradients must match PyTorch eager's. Float32 sums taken in a different order differ
# in the last bits, hence a relative tolerance of ``1e-4``.
checked = benchmark.check_outputs(outputs, "PyTorch eager", rtol=1e-4)
print(f"{checked} runs checked against PyTorch eager: the losses and gradients agree")
sidebyside.parity_report()

# %%
# The numbers
# -----------
# Steady-state time per training step, drawn: one row per variant, coloured by framework,
# each variant with a marker of its own, the bar its spread (the same numbers as a table:
# *Going deeper*). Read across the three panels: where the step is all call (the tiny
# graph) the ways to run it are far apart; where it is mostly arithmetic (the large MLP)
# they close up, since all of them run the same kind of kernels.
figure = benchmark.plot_steps(results, list(variants),
                              title="Time per training step (log scale)")
# sphinx_gallery_thumbnail_number = 1

# %%
# Read from the numbers above, each with its spread (a variant is called faster or
# slower only where the gap exceeds the spreads):
call = results[tiny]  # the tiny graph: all call
benchmark.say([
    f"The price of a call: a whole PyTorch eager step of the tiny graph takes "
    f"{benchmark.per_step(call, 'PyTorch eager')}. Through tf.function the same three "
    f"operations take {benchmark.per_step(call, 'tf.function')}, which is "
    f"{benchmark.compare(call, 'tf.function', 'PyTorch eager')}; through Session.run "
    f"{benchmark.per_step(call, 'TF1 Session.run')}. The TF1 callable is "
    f"{benchmark.compare(call, 'TF1 callable', 'TF1 Session.run')}.",
    *(f"{w}: {benchmark.fastest_text(by)}." for w, by in results.items()),
])

# %%
# Going deeper: the first call, and more numbers
# -----------------------------------------------
#
# The first call, in a fresh Python
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The first call pays for the graph: :term:`tracing` for ``tf.function``, building the
# graph and opening a session for TensorFlow 1, compiling for ``torch.compile``.
# Timed here, a first call would depend on what ran before in this process
# (caches that earlier pages filled), so a script runs in a new Python, with one thread
# per pool and an empty Inductor cache, and times the first call of each variant of the
# small MLP's step, building included, in the tables' order (the seven variants written
# again, in ``benchmark.FIRST_CALLS_MLP``). Without a C++ compiler (Windows without MSVC,
# a Mac without the command line tools), ``torch.compile`` cannot compile for a CPU: its
# cell then says why.
hardware = benchmark.hardware(torch_device)
first_calls = {COMPILED: benchmark.fresh_python(benchmark.FIRST_CALLS_MLP,
                                                threads=THREADS)}
benchmark.first_call_table(first_calls, list(variants), caption="First call in a fresh "
                           "Python: building plus one call", machine=hardware)

# %%
# The numbers in full
# ~~~~~~~~~~~~~~~~~~~
# Steady-state time per training step, its spread, and its ratio to PyTorch eager on the
# same workload (below 1 is faster than PyTorch eager).
benchmark.step_table(results, list(variants), reference="PyTorch eager",
                     caption="Time per training step: median, ±spread · ratio to "
                     "PyTorch eager", machine=hardware)

# %%
# Where the arithmetic dominates, each graph variant against its own framework's eager
# step:
timed = {w: benchmark.measured(by) for w, by in results.items()}
families = {"PyTorch eager": ["torch.compile", "TorchScript"],
            "TF2 eager": ["tf.function", "TF1 Session.run", "TF1 callable"]}
benchmark.say(f"On the {largest}: " + "; ".join(
    f"{g} is {benchmark.compare(results[largest], g, eager)}"
    for g in graphs if g in timed[largest]) + "." for eager, graphs in families.items())

# %%
# TorchScript's first call compiles the function to its own graph and runs it once to
# record the shapes it sees; it optimises in the calls after, which the warm-up table
# below counts.
#
# Warming up: after the first call, how many calls each variant took until its time per
# call settled, and how much longer they took than as many settled calls. TorchScript
# keeps one compiled function per Python function (:ref:`the next lesson
# <sphx_glr_auto_examples_40_cost_plot_20_benchmark_loops.py>` shows it), so both MLPs
# share ``mlp_loss``'s: the large MLP's row is TorchScript specialising again for new
# shapes, not optimising from scratch.
benchmark.warmup_table(results, list(variants), caption="Warm-up until settled: calls, "
                       "and time beyond the steady state", machine=hardware)

# %%
# Whether ``torch.compile`` pays for its first call: the surplus of that call over
# PyTorch eager's, set against what each settled step saves, with its spread.
cold, compiled = first_calls[COMPILED]["torch.compile"], timed[COMPILED].get("torch.compile")
if isinstance(cold, str) or not compiled:  # no C++ compiler here, say
    why = cold if isinstance(cold, str) else results[COMPILED]["torch.compile"]
    reading = f"torch.compile on the {COMPILED}: {why}"
else:
    eager = timed[COMPILED]["PyTorch eager"]
    extra = cold - first_calls[COMPILED]["PyTorch eager"]  # its first call's surplus
    pays = (f"so its first call's surplus is paid back after about "
            f"{extra / (eager.median - compiled.median):,.0f} steps"
            if benchmark.direction(compiled, eager) < 0
            else "so on this workload it does not pay for its compile time")
    reading = (f"torch.compile on the {COMPILED}: its first call in a fresh Python took "
               f"{benchmark.duration(cold)}, and each settled step is "
               f"{benchmark.compare(results[COMPILED], 'torch.compile', 'PyTorch eager')}, "
               f"{pays}.")
benchmark.say([reading])

# %%
# The gap between the frameworks
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Most of a large-MLP step's arithmetic is two products with the same number of
# multiply-adds: ``x @ W1`` forward (128 × 1024 by 1024 × 1024) and, backward, the
# gradient of ``W1``, ``xᵀ @ dz`` (1024 × 128 by 128 × 1024, where ``dz`` is the gradient
# at the hidden layer). Neither framework writes them itself: PyTorch hands a float32
# product on a CPU to the BLAS library it was built with, TensorFlow to its own kernels,
# or to oneDNN's where its oneDNN ops are on (the provenance box names both). Which
# library runs, and how well it suits the CPU, depends on the platform: TensorFlow turns
# its oneDNN ops on by default only on some x86 CPUs under Linux, and PyTorch's wheels for
# ARM CPUs call another BLAS library than the x86 wheels' MKL, so a gap between the
# frameworks can flip on another machine. Timed alone, eagerly, on one thread, the two products say whether
# they explain the gap between the eager steps: only where both gaps are beyond their
# spreads and point the same way.
x, w1 = workloads[largest][1][0], workloads[largest][2]["W1"]
dz = rng.standard_normal((128, 1024), np.float32)

# %%
# **TensorFlow**: forward and backward product, as ``MatMul``
# and its gradient compute them.
with tf.device(tf_device):
    tf_x, tf_w1, tf_dz = map(tf.constant, (x, w1, dz))


def tf_products():
    return (tf.matmul(tf_x, tf_w1),
            tf.matmul(tf_x, tf_dz, transpose_a=True))


# %%
# **PyTorch**: the same two, as ``mm`` and its gradient
# compute them.
torch_x, torch_w1, torch_dz = (
    torch.tensor(a, device=torch_device) for a in (x, w1, dz))


def torch_products():
    return (torch.mm(torch_x, torch_w1),
            torch.mm(torch_x.T, torch_dz))


# %%
# Both products, timed as the steps were, and read against the eager steps:
with benchmark.torch_threads(THREADS):
    products, out = benchmark.time_variants({
        "PyTorch": (lambda: torch_products, torch_sync),
        "TensorFlow": (lambda: tf_products, tf_sync)})
for ours, theirs in zip(out["TensorFlow"], out["PyTorch"], strict=True):
    sidebyside.assert_close(ours, theirs, rtol=1e-4, atol=1e-3, what="products")
steps = {"PyTorch": timed[largest]["PyTorch eager"],
         "TensorFlow": timed[largest]["TF2 eager"]}
flops = 2 * 2 * 128 * 1024 * 1024  # two products, a multiply and an add per term
benchmark.say([
    *(f"{side}: both products {benchmark.with_spread(t)}, {flops / t.median / 1e9:.0f} "
      f"GFLOP/s, {t.median / steps[side].median:.0%} of its eager step"
      for side, t in products.items()),
    f"PyTorch against TensorFlow, the eager step: "
    f"{benchmark.compare(steps, 'PyTorch', 'TensorFlow')}; the products: "
    f"{benchmark.compare(products, 'PyTorch', 'TensorFlow')}. "
    + benchmark.gap_verdict(steps, products, part="the products",
                            cause="the matrix libraries, not graphs,"),
])

# %%
# How the timer measures
# ~~~~~~~~~~~~~~~~~~~~~~
# Warm-up ends once the median of the last five calls is no more than 5 % below that of
# the five before (10 s at most). A sample repeats the step for about 2 ms, a round takes
# samples for about 30 ms, and every variant runs 5 rounds, up to 10 until its spread is
# at most 3 %; a spread above 10 % is marked *noisy*. Were the rounds independent, the
# true median would lie outside the range of 5 round medians with a chance of about 6 %,
# another run's median with a chance of about a third. Garbage collection is paused while
# the clock runs, as ``timeit`` does. On a GPU each framework waits for its device before
# the clock is read, around a sample's calls, not between them: a sample measures steps
# queued back to back, the larger of the host's time to launch one and the GPU's time to
# run it, not one step's latency. Nothing pins the process to cores or stops other
# programs; how busy the machine was:
benchmark.say([benchmark.load() or "not reported by this system"], condition="load")

# %%
# What pins TensorFlow's threads: TensorFlow runs the work *inside* an op (a matrix
# product split over cores) on an intra-op pool, and independent ops side by side on an
# inter-op pool. The intra-op pool is one for the whole process, sized when TensorFlow makes its first device: by the
# eager runtime (``tf.config.threading`` before it starts, else ``TF_NUM_INTRAOP_THREADS``)
# or by a first TensorFlow 1 session's ``ConfigProto``. Eager code and ``tf.function`` use
# the eager runtime's inter-op pool. TensorFlow 1 sessions share one more inter-op pool,
# sized by the *first* session's ``ConfigProto`` (by ``TF_NUM_INTEROP_THREADS`` where it
# says 0). A later session's counts size nothing, unless it asks for an inter-op pool of
# its own (``session_inter_op_thread_pool``), as the sessions timed above did. Counting
# this process's threads shows it: the second session below asks ``ConfigProto`` for six
# threads per pool and starts no pool; the third asks for a pool of its own, and gets one.
print("On this machine (threads):")  # as Setup pinned them
print("  PyTorch, every variant:", THREADS, "(set while timing)")
print("  TensorFlow's intra-op pool, one per process:", tf_pools)
print("  eager and tf.function's inter-op pool:", tf_pools)
print("  each TF1 session's own inter-op pool:", THREADS, "(its ConfigProto)")


def new_threads(config):
    """Threads that opening and running a session started."""
    before = benchmark.process_threads()
    session, inputs, fetches = tf1_graph(*workloads[tiny], config=config)
    session.run(fetches, dict(zip(inputs, workloads[tiny][1], strict=True)))
    started = benchmark.process_threads() - before
    session.close()
    return started


if benchmark.process_threads() is not None:  # Linux, or psutil installed
    per_pool = {n: tf1.ConfigProto(intra_op_parallelism_threads=n,
                                   inter_op_parallelism_threads=n) for n in (1, 6)}
    started = {
        "a session, ConfigProto 1 per pool": new_threads(per_pool[1]),
        "then one, ConfigProto 6 per pool": new_threads(per_pool[6]),
        "one with its own inter-op pool of 6": new_threads(tf1.ConfigProto(
            session_inter_op_thread_pool=[{"num_threads": 6}])),
    }
    print("On this machine (threads a new session started):")
    for name, count in started.items():
        print(f"  {name}: {count}")
    _, asked, own = started.values()
    assert asked < 6 <= own  # the shared pools stayed as they were

# %%
# TorchScript's warning
# ~~~~~~~~~~~~~~~~~~~~~
# TorchScript is deprecated: scripting warns in torch 2.13 and 2.15, with a warning whose class
# differs.
print(sidebyside.on_this_version("torch"))
for category, message in sorted(script_warnings, key=str):
    print(f"  {category.__name__}: {message}")
assert script_warnings and all(
    issubclass(category, DeprecationWarning | FutureWarning) and "deprecated" in message
    for category, message in script_warnings)

# %%
# What to take away
# -----------------
# * A call and the arithmetic inside it cost different things: the tiny graph measures
#   the call, the large MLP mostly the arithmetic. A graph saves per-call work, so it
#   shows where there is little else (the tables and the figure show where, here).
# * Where the arithmetic dominates, compare graph and eager *within* a framework: across
#   frameworks, the matrix libraries they call differ by platform, and a gap is theirs
#   only where timing the products alone points the same way beyond the spreads.
# * Building is paid on the first call (tracing, compiling, opening a session), and a
#   compiler may keep optimising for a few calls more: time the first call in a fresh
#   process, and warm up until the time per call has settled.
# * To time things yourself: pin the threads (TensorFlow's before its runtime starts; a
#   later session's ``ConfigProto`` sizes no shared pool), warm up until settled, let the
#   variants take turns, take medians with a spread, call a difference only beyond the
#   spreads, and synchronise the GPU before reading the clock.
#
# What a compiler adds on top of a graph, XLA against Inductor, is timed on :ref:`what
# compiling buys <sphx_glr_auto_examples_35_payoffs_plot_30_compile.py>`.
#
# References: ``torch.compile``, ``torch.jit.script``, ``tf.function``,
# ``tf.config.threading``, ``tf.compat.v1.ConfigProto``, ``Session.make_callable``.

# sphinx_gallery_start_ignore
for session, _, _ in tf1_graphs.values():  # nothing lingers in the next page
    session.close()
torch.compiler.reset()
# sphinx_gallery_end_ignore
