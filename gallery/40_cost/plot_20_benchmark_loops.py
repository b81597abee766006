"""
What a graph costs in a loop: RNNs and changing lengths
=======================================================

:ref:`The first lesson <sphx_glr_auto_examples_40_cost_plot_10_benchmark.py>` timed
graphs with a handful of operations. A recurrent network is a loop: the same few small
operations once per time step, so the per-operation overhead that a graph saves is paid
ten, twenty, thirty times per step. This lesson times one training step of an RNN in six
ways, with the method of the first lesson, and then measures what ``tf.function`` pays
when the length of the input changes from batch to batch: :term:`retracing`.
"""

# %%
# Setup
# -----
# The threads are pinned as in the first lesson, before TensorFlow runs (shown in *Going deeper*).
import functools

import sidebyside
from sidebyside import benchmark
from sidebyside.timing import time_each

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
THREADS = 1
tf_pools, session_config = benchmark.pin_threads(THREADS, show=False)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance(math=True)

# %%
# The workload
# ------------
# The RNN of the gallery, which reads ``sin(t)`` and predicts ``cos(t)``, written as a
# plain loop with one iteration per time step (the cell of ``torch.nn.RNN``, with its two
# biases folded into one). The PyTorch version carries type hints so that TorchScript
# can compile it as well.

# %%
# **TensorFlow**: the loss, one iteration per time step.
def rnn_loss(x, y, p):
    h = tf.zeros_like(p["b_h"])
    loss = tf.zeros([])
    for t in range(x.shape[0]):  # one iteration per time step
        x_t, y_t = x[t : t + 1], y[t : t + 1]
        z = x_t @ p["W_ih"] + h @ p["W_hh"] + p["b_h"]
        h = tf.tanh(z)
        y_hat = h @ p["W_out"] + p["b_out"]
        loss = loss + tf.reduce_sum((y_hat - y_t) ** 2)
    return loss / x.shape[0]

tf_rnn_loss = rnn_loss

# %%
# **PyTorch**: the same loss.
Tensor, Params = torch.Tensor, dict[str, torch.Tensor]

def rnn_loss(x: Tensor, y: Tensor, p: Params) -> Tensor:
    h = torch.zeros_like(p["b_h"])
    loss = torch.zeros(())
    for t in range(x.shape[0]):  # one iteration per time step
        x_t, y_t = x[t : t + 1], y[t : t + 1]
        z = x_t @ p["W_ih"] + h @ p["W_hh"] + p["b_h"]
        h = torch.tanh(z)
        y_hat = h @ p["W_out"] + p["b_out"]
        loss = loss + torch.sum((y_hat - y_t) ** 2)
    return loss / x.shape[0]

torch_rnn_loss = rnn_loss

# %%
# The RNN keeps its weights and reads 10, 20 or 30 points of the sine wave, ten per half
# period as in the source post, from the same NumPy arrays in every variant.
rng = np.random.default_rng(0)
shapes = {"W_ih": (1, 32), "W_hh": (32, 32), "b_h": (1, 32), "W_out": (32, 1), "b_out": (1, 1)}
rnn_params = {k: rng.uniform(-1, 1, s).astype(np.float32) / s[0] ** 0.5  # within ±1/√rows
              for k, s in shapes.items()}
LENGTHS = (10, 20, 30)
times = {n: np.linspace(0, n / 10 * np.pi, n, dtype=np.float32)[:, None] for n in LENGTHS}
workloads = {f"RNN, {n} steps": (np.sin(times[n]), np.cos(times[n])) for n in LENGTHS}

# %%
# Six ways to run a training step
# -------------------------------
# The variants of the first lesson, written again for this loss (the panes name them).
# ``torch.compile`` is timed in the first lesson only: compiling each length from scratch
# would take more of the build than this page has.

# %%
# **TensorFlow**: eager and ``tf.function``.
tf2_steps = {}  # {graph?: step}: one model, so one tf.function

def tf2_variant(workload, *, graph=False):
    if graph not in tf2_steps:  # one step for every length
        variables = {k: tf.Variable(v)
                     for k, v in rnn_params.items()}
        weights = list(variables.values())
        def step(*inputs):
            with tf.GradientTape() as tape:
                loss = tf_rnn_loss(*inputs, variables)
            return loss, tape.gradient(loss, weights)
        tf2_steps[graph] = tf.function(step) if graph else step
    step = tf2_steps[graph]
    inputs = [tf.constant(a) for a in workloads[workload]]
    return lambda: step(*inputs)


# %%
# **PyTorch**: eager and TorchScript.
def torch_variant(workload, *, compiler=None):
    tensors = {
        k: torch.tensor(v, device=torch_device,
                        requires_grad=True)
        for k, v in rnn_params.items()
    }
    weights = list(tensors.values())
    inputs = [torch.tensor(a, device=torch_device)
              for a in workloads[workload]]
    loss_fn = torch_rnn_loss
    if compiler is not None:
        loss_fn = compiler(loss_fn)
    def step(*inputs):
        loss = loss_fn(*inputs, tensors)
        return loss, torch.autograd.grad(loss, weights)
    return lambda: step(*inputs)


# %%
# Going deeper: the rest of the six variants
# ------------------------------------------
# A TensorFlow 1 graph per length, run two ways; TorchScript, its warning silenced.
tf1_graphs = {}  # per length, shared by both TF1 variants
tf1 = tf.compat.v1  # TensorFlow 1's API, inside TensorFlow 2


# %%
# **TensorFlow**: a TensorFlow 1 graph run two ways.
def tf1_graph(arrays):
    """Placeholders, variables, loss, grads: built, not run."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf_device):
        inputs = [tf1.placeholder(a.dtype, a.shape)
                  for a in arrays]
        variables = {k: tf.Variable(v)
                     for k, v in rnn_params.items()}
        loss = tf_rnn_loss(*inputs, variables)
        grads = tf1.gradients(loss, list(variables.values()))
        init = tf1.global_variables_initializer()
    session = tf1.Session(graph=graph, config=session_config)
    session.run(init)
    return session, inputs, [loss, grads]

def tf1_variant(workload, *, prebuilt=False):
    arrays = workloads[workload]
    if workload not in tf1_graphs:  # both TF1 variants share it
        tf1_graphs[workload] = tf1_graph(arrays)
    session, inputs, fetches = tf1_graphs[workload]
    if prebuilt:
        run = session.make_callable(fetches, feed_list=inputs)
        return lambda: run(*arrays)
    feed = dict(zip(inputs, arrays, strict=True))
    return lambda: session.run(fetches, feed_dict=feed)


# %%
# **PyTorch**: TorchScript.
import warnings


def torchscript(fn):
    with warnings.catch_warnings():
        # deprecated: the first lesson shows its warning
        warnings.simplefilter("ignore")
        return torch.jit.script(fn)


# %%
# The six, and how each one waits for a GPU before the clock is read:
variants = {
    "PyTorch eager": (torch_variant, {}),
    "TorchScript": (torch_variant, {"compiler": torchscript}),
    "TF2 eager": (tf2_variant, {}),
    "tf.function": (tf2_variant, {"graph": True}),
    "TF1 Session.run": (tf1_variant, {}),
    "TF1 callable": (tf1_variant, {"prebuilt": True}),
}
torch_sync, tf_sync = benchmark.gpu_syncs(torch_device, tf_device)
sync_for = {torch_variant: torch_sync, tf2_variant: tf_sync, tf1_variant: tf_sync}


# %%
# Timing them, and they agree
# ---------------------------
# Timed as in the first lesson. Every variant's loss and gradients must match PyTorch
# eager's (the loop carries float32 round-off, hence a relative tolerance of ``1e-4``).
#
# Steady-state time per training step against the length, each framework in its colour,
# each variant with its own marker and line (the same numbers as a table, with their
# spreads: *Going deeper*). Look at the slopes: a variant that pays a price per operation
# grows steeply with the number of steps.
results, outputs = benchmark.time_workloads(workloads, variants, sync_for,
                                            threads=THREADS)
checked = benchmark.check_outputs(outputs, "PyTorch eager", rtol=1e-4)
print(f"{checked} runs checked against PyTorch eager: the losses and gradients agree")
# sphinx_gallery_start_ignore
# sphinx_gallery_thumbnail_number = 1
import matplotlib.pyplot as plt

timed = {w: benchmark.measured(by) for w, by in results.items()}
figure, ax = plt.subplots(figsize=(7.5, 2.7))
benchmark.plot_series(ax, {
    name: (LENGTHS, [timed[w][name].median * 1e3 for w in workloads])
    for name in variants if all(name in by for by in timed.values())},
    xlabel="time steps per sequence", ylabel="ms per training step (log)",
    title=f"One RNN training step ({THREADS} thread)")
ax.set_xticks(LENGTHS)
figure.tight_layout()
# sphinx_gallery_end_ignore

# %%
# Changing lengths: what retracing costs
# --------------------------------------
# A ``tf.function`` graph is traced for one input shape: with the Python loop above, one
# graph per length, its loop unrolled. An :term:`input signature` that leaves the time
# dimension as ``None`` gives one graph for every length; the loop must then live in the
# graph, where :term:`AutoGraph` turns ``for t in tf.range(...)`` into a
# ``tf.while_loop``. Both, each a new ``tf.function``, now run the 60 batches of the
# source post, whose lengths are ``10 * randint(1, 4)``, and so does PyTorch eager, which
# has nothing to trace. Each batch is timed on its own (``sidebyside.timing.time_each``),
# traces included, in a process that has already run TensorFlow, as in a training run
# that meets a new length. The three must agree on every length, and the counts are the
# lesson: one trace per length without a signature, one in all with the time dimension
# left as ``None``.
lengths = [10 * int(rng.integers(1, 4)) for _ in range(60)]
sequences = {n: workloads[f"RNN, {n} steps"] for n in LENGTHS}

def rnn_loss_any_length(x, y, p):
    h = tf.zeros_like(p["b_h"])
    loss = tf.zeros([])
    for t in tf.range(tf.shape(x)[0]):  # AutoGraph: a tf.while_loop in the graph
        x_t, y_t = x[t][tf.newaxis], y[t][tf.newaxis]  # shape (1, 1) at any t
        h = tf.tanh(x_t @ p["W_ih"] + h @ p["W_hh"] + p["b_h"])
        y_hat = h @ p["W_out"] + p["b_out"]
        loss = loss + tf.reduce_sum((y_hat - y_t) ** 2)
    return loss / tf.cast(tf.shape(x)[0], tf.float32)

variables = {name: tf.Variable(value) for name, value in rnn_params.items()}
sequence = tf.TensorSpec([None, 1], tf.float32)

@tf.function(input_signature=[sequence, sequence])
def any_length_step(x, y):
    with tf.GradientTape() as tape:
        loss = rnn_loss_any_length(x, y, variables)
    return loss, tape.gradient(loss, list(variables.values()))

per_length_step = tf.function(tf2_steps[False])  # the eager step, traced anew
eager = {n: torch_variant(f"RNN, {n} steps") for n in LENGTHS}  # nothing to trace
tf_inputs = {n: [tf.constant(a) for a in pair] for n, pair in sequences.items()}
def batches(step):  # one call per batch, in the order of lengths
    return [functools.partial(step, *tf_inputs[n]) for n in lengths]

with benchmark.torch_threads(THREADS):
    seconds = {
        "tf.function, no signature": time_each(batches(per_length_step), sync=tf_sync),
        "tf.function, time dimension None": time_each(batches(any_length_step), sync=tf_sync),
        "PyTorch eager": time_each([eager[n] for n in lengths], sync=torch_sync)}
print("traces, no signature:", per_length_step.experimental_get_tracing_count())
print("traces, time dimension None:", any_length_step.experimental_get_tracing_count())
for n, pair in tf_inputs.items():
    expected, _ = eager[n]()
    for step in (per_length_step, any_length_step):
        loss, _ = step(*pair)
        sidebyside.assert_close(loss, expected, rtol=1e-4, what=f"{n} steps: loss")
assert per_length_step.experimental_get_tracing_count() == len(set(lengths)) == 3
assert any_length_step.experimental_get_tracing_count() == 1

# %%
# Every batch's time, in order, read: the calls that traced stand out, once per new
# length without a signature, once in all with one (*Going deeper* draws them).
traced = {"tf.function, no signature": sorted({lengths.index(n) for n in set(lengths)}),
          "tf.function, time dimension None": [0], "PyTorch eager": []}
retracing = []
for name, s in seconds.items():
    after = benchmark.duration(np.median(np.delete(s, traced[name])))
    calls = f"{len(traced[name])} call{'s' * (len(traced[name]) > 1)}"
    retracing.append(f"{name}: " + (
        f"{calls} traced, in {benchmark.duration(sum(s[i] for i in traced[name]))}; the "
        f"median batch after tracing took {after}" if traced[name]
        else f"nothing to trace; the median batch took {after}")
        + f"; all 60 batches {benchmark.duration(sum(s))}.")
benchmark.say(retracing)
sidebyside.parity_report()

# %%
# Going deeper: the numbers in full, and more
# -------------------------------------------
#
# Every batch's time, drawn
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# The 60 batches in order: the calls that traced stand out.
import matplotlib.pyplot as plt

figure, ax = plt.subplots(figsize=(7.5, 3.3))
benchmark.plot_series(ax, {name: (range(1, 61), [t * 1e3 for t in s])
                           for name, s in seconds.items()},
                      xlabel="batch", ylabel="ms per batch (log)",
                      title="60 RNN batches of changing length", markevery=5)
figure.tight_layout()

# %%
# The numbers in full
# ~~~~~~~~~~~~~~~~~~~
# Steady-state time per training step, its spread, and its ratio to PyTorch eager on the
# same length (below 1 is faster than PyTorch eager), and the threads they ran on.
hardware = benchmark.hardware(torch_device)
print("On this machine (threads):")
print(f"  PyTorch, every variant: {THREADS} (set while timing)")
print(f"  TensorFlow's intra-op pool, one per process: {tf_pools}")
print(f"  eager and tf.function's inter-op pool: {tf_pools}")
print(f"  each TF1 session's own inter-op pool: {THREADS} (its ConfigProto)")
benchmark.step_table(results, list(variants), reference="PyTorch eager",
                     caption="Time per training step: median, ±spread · ratio to "
                     "PyTorch eager", machine=hardware)

# %%
# Read from the same numbers, each with its spread (a variant is called faster or slower
# only where the gap exceeds the spreads):
benchmark.say(f"{w}: {benchmark.fastest_text(by)}." for w, by in results.items())

# %%
# TensorFlow 2 eager trails PyTorch eager by far on the RNN, and graphs have nothing to
# do with it: an RNN step runs hundreds of small operations, and each eager operation
# has a fixed price of its own in each framework. One of the step's products, alone:
h_row, w_hh = np.ones((1, 32), np.float32), rnn_params["W_hh"]
tf_h, tf_w = tf.constant(h_row), tf.constant(w_hh)
torch_h, torch_w = (torch.tensor(a, device=torch_device) for a in (h_row, w_hh))
with benchmark.torch_threads(THREADS):
    one_op, _ = benchmark.time_variants({
        "PyTorch eager": (lambda: lambda: torch_h @ torch_w, torch_sync),
        "TF2 eager": (lambda: lambda: tf_h @ tf_w, tf_sync)})
benchmark.say([f"one 1 × 32 by 32 × 32 product: PyTorch eager "
               f"{benchmark.per_step(one_op, 'PyTorch eager')}, TF2 eager "
               f"{benchmark.per_step(one_op, 'TF2 eager')}, which is "
               f"{benchmark.compare(one_op, 'TF2 eager', 'PyTorch eager')}"])

# %%
# Warming up: after the first call, how many calls each variant took until its time per
# call settled, and how much longer they took than as many settled calls. TorchScript's
# profiling executor runs a function once as it is, recording the shapes it sees, then
# optimises it; a call with shapes it has not seen makes it profile and optimise again.
# And ``torch.jit.script`` keeps one compiled function per Python function: the three
# rows share ``rnn_loss``'s, so the 10-step row pays its first optimisation and the 20-
# and 30-step rows pay for specialising it to new lengths (the next section shows both).
benchmark.warmup_table(results, list(variants), caption="Warm-up until settled: calls, "
                       "and time beyond the steady state", machine=hardware)

# %%
# What TorchScript compiled
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tf.function`` and TensorFlow 1 unroll the Python loop at tracing time: their graphs
# grow with the length. TorchScript compiles the ``for`` loop into a ``prim::Loop`` node,
# whose trip count is read at run time, and its optimiser unrolls a few iterations inside
# that loop; ``graph_for`` shows the graph it runs for given inputs, a differentiated
# graph for the backward included (on a CPU it fuses no operations by default: what it
# saves here is interpreter work). Its graph holds as many products for 10 steps as for
# 30, while ``tf.function``'s count of ``MatMul`` ops grows with the length. And scripting ``rnn_loss`` again returns the
# function compiled and optimised by the benchmark (no ``prim::profile`` node, the
# profiling run's), while a copy of the function, with the same code, starts over.
import types

script = torchscript(torch_rnn_loss)  # the one the benchmark optimised
copy = torchscript(types.FunctionType(torch_rnn_loss.__code__, globals()))
tensors = {k: torch.tensor(v, device=torch_device, requires_grad=True)
           for k, v in rnn_params.items()}
torch_inputs = {n: [torch.tensor(a, device=torch_device) for a in sequences[n]]
                for n in (10, 30)}
optimised = {n: str(script.graph_for(*torch_inputs[n], tensors)) for n in (10, 30)}
fresh = str(copy.graph_for(*torch_inputs[10], tensors))
traced_graph = {n: per_length_step.get_concrete_function(
    *map(tf.constant, sequences[n])).graph for n in (10, 30)}
tf_matmuls = {n: sum(op.type == "MatMul" for op in g.get_operations())
              for n, g in traced_graph.items()}
print(sidebyside.on_this_version("torch", "tensorflow"))
for n in (10, 30):
    print(f"  {n} steps: TorchScript, {optimised[n].count('prim::Loop')} loops holding "
          f"{optimised[n].count('aten::matmul')} products; tf.function's graph, "
          f"{tf_matmuls[n]} MatMul ops")
print(f"  a copy of rnn_loss, first graph: {fresh.count('prim::profile')} profiling nodes")
assert all("prim::Loop" in g and "prim::profile" not in g for g in optimised.values())
assert optimised[10].count("aten::matmul") == optimised[30].count("aten::matmul")
assert tf_matmuls[30] > tf_matmuls[10] and "prim::profile" in fresh

# %%
# Why ``reduce_retracing`` is not enough
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Can ``tf.function`` relax the shape by itself? With ``reduce_retracing=True`` it
# traces a new length with the time dimension as ``None``, as Dynamo's automatic dynamic
# shapes do; but the Python loop above needs a number of steps, and ``range(None)``
# fails. That is why the loop must move into the graph.
relaxed = tf.function(tf2_steps[False], reduce_retracing=True)
relaxed(*map(tf.constant, sequences[10]))  # the first length: traced as it is
try:
    relaxed(*map(tf.constant, sequences[20]))  # the second: traced with None
    raise AssertionError("the relaxed trace ran")
except TypeError as error:
    print("TypeError:", str(error).strip().splitlines()[-1].split("TypeError: ")[-1])

# %%
# What to take away
# -----------------
# * A graph is built once and then saves per-operation work on every call; how much that
#   is worth depends on how many small operations one call holds, which is why an RNN,
#   a loop of small operations, is the workload to read.
# * A compiler may keep optimising after its first call: TorchScript's profiling
#   executor does, again for each new shape, and it keeps one compiled function per
#   Python function. Time it only once its time per call has settled, and count what
#   settling cost, as the warm-up table does.
# * Building is paid on the first call, and again for every new input shape unless the
#   graph is built for any shape: an ``input_signature`` with ``None`` in it, and the
#   loop inside the graph (``reduce_retracing`` cannot move a Python loop there).
#
# What a compiler adds on top of a graph, XLA against Inductor, is timed on :ref:`what
# compiling buys <sphx_glr_auto_examples_35_payoffs_plot_30_compile.py>`.
#
# References: ``torch.jit.script``, ``torch.autograd.grad``, ``tf.function``,
# ``tf.TensorSpec``, ``tf.GradientTape``, ``tf.compat.v1.Session.make_callable``.

# sphinx_gallery_start_ignore
for session, _, _ in tf1_graphs.values():  # nothing lingers in the next page
    session.close()
# sphinx_gallery_end_ignore
