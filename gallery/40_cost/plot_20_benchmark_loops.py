"""
What a graph costs in a loop: RNNs and changing lengths
=======================================================

:ref:`The first lesson <sphx_glr_auto_examples_40_cost_plot_10_benchmark.py>` timed
graphs with a handful of operations. A recurrent network is a loop: the same few small
operations once per time step, so the per-operation overhead that a graph saves is paid
ten, twenty, thirty times per step. This page times one training step of an RNN in six
ways, with the method of the first lesson, shows what a compiler that keeps optimising
after its first call costs before it settles, and measures what ``tf.function`` pays
when the length of the input changes from batch to batch.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. The threads are
# pinned as in the first lesson, before anything runs TensorFlow.
import functools
import statistics
import warnings

import sidebyside
from sidebyside import benchmark
from sidebyside.benchmark import duration
from sidebyside.timing import time_each

import numpy as np
import tensorflow as tf
import torch

THREADS = 1
tf_pools, session_config = benchmark.pin_threads(THREADS)  # as in the first lesson

sidebyside.seed_everything(0)
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


def uniform(*shape):
    bound = 1 / np.sqrt(shape[0])
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


rnn_params = {"W_ih": uniform(1, 32), "W_hh": uniform(32, 32), "b_h": uniform(1, 32),
              "W_out": uniform(32, 1), "b_out": uniform(1, 1)}


def sine(steps):
    t = np.linspace(0, steps / 10 * np.pi, steps, dtype=np.float32)[:, None]
    return np.sin(t), np.cos(t)


workloads = {f"RNN, {n} steps": sine(n) for n in (10, 20, 30)}

# %%
# Six ways to run a training step
# -------------------------------
# The variants of the first lesson, written again for this loss: TensorFlow 2 eager under
# a ``GradientTape`` or traced by ``tf.function``; a TensorFlow 1 graph run through
# ``Session.run`` or a ``Session.make_callable``; PyTorch eager or TorchScript, with
# autograd's gradients. ``torch.compile`` is timed in the first lesson only: compiling
# each length from scratch would take more of the build than this page has.
tf2_steps = {}  # {graph?: step}: one model, so one tf.function
tf1_graphs = {}  # one graph and session per length, for both TF1 variants
tf1 = tf.compat.v1  # TensorFlow 1's API, inside TensorFlow 2


# %%
# **TensorFlow**: eager, ``tf.function``, and a TensorFlow 1
# graph run two ways.
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


def torchscript(fn):
    with warnings.catch_warnings():
        # torch.jit.script is deprecated in this PyTorch; the
        # first lesson prints its warning
        warnings.simplefilter("ignore", DeprecationWarning)
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
# Timing, and checking
# --------------------
# As in the first lesson: each variant is built, called once, and warmed up until its
# time per call has settled (the median of the last five calls no more than 5 % below
# that of the five before); then the variants take turns, at least 5 rounds of about
# 30 ms each, and up to 10 until the spread, half the range of the round medians, is at
# most 3 %. Every variant's loss and gradients must then match PyTorch eager's; the RNN
# carries the last bits of float32 round-off through its loop, hence a relative
# tolerance of ``1e-4``.
TARGET = 0.03
results, outputs = benchmark.time_workloads(workloads, variants, sync_for,
                                            threads=THREADS, target=TARGET)
checked = benchmark.check_outputs(outputs, "PyTorch eager", rtol=1e-4)
print(f"{checked} runs checked against PyTorch eager: the losses and gradients agree")

# %%
# The numbers
# -----------
# Steady-state time per training step, its spread, and its ratio to PyTorch eager on the
# same length (below 1 is faster than PyTorch eager).
hardware = benchmark.hardware(torch_device)
benchmark.step_table(
    results,
    list(variants),
    reference="PyTorch eager",
    target=TARGET,
    caption="Time per training step: median, ±spread · ratio to PyTorch eager "
    f"({hardware})",
)

# %%
# Warming up: after the first call, how many calls each variant took until its time per
# call settled, and how much longer they took than as many settled calls. TorchScript's
# profiling executor runs the first calls of a function as they are, recording the
# shapes it sees, and optimises the graph in the calls that follow: its cost lands
# here, not in the steady state above.
benchmark.warmup_table(
    results,
    list(variants),
    caption=f"Warm-up until settled: calls, and time beyond the steady state ({hardware})",
)

# %%
# Read from the same numbers (a variant is called faster or slower only where the gap
# exceeds the spreads):
timed = {w: benchmark.measured(by) for w, by in results.items()}


def compare(workload, name, reference="PyTorch eager"):
    return benchmark.compare(results[workload], name, reference)


readings = []
for workload in workloads:
    names = benchmark.fastest(results[workload])
    best = (f"the fastest is {names[0]} ({duration(timed[workload][names[0]].median)})"
            if len(names) == 1
            else f"{', '.join(names[:-1])} and {names[-1]} tie for fastest")
    readings.append(
        f"{workload}: {best}; tf.function is {compare(workload, 'tf.function')}, "
        f"TF2 eager {compare(workload, 'TF2 eager')}, "
        f"TorchScript {compare(workload, 'TorchScript')}."
    )
if script := timed["RNN, 10 steps"].get("TorchScript"):
    readings.append(
        f"TorchScript on the RNN, 10 steps: {len(script.warmup)} calls to settle, "
        f"{duration(script.warmup_extra)} more than as many settled calls: what its "
        "optimisation cost."
    )
benchmark.bullets(readings)

# %%
# Changing lengths: what retracing costs
# --------------------------------------
# A graph is traced for one input shape. The benchmark above ran one ``tf.function`` for
# the RNN at 10, 20 and 30 steps, so it traced a graph for each length
# (``traces, no signature: 3``): its first calls in the RNN rows are those traces. An
# ``input_signature`` that leaves the time dimension as ``None`` gives one graph for
# every length (``traces, time dimension None: 1``); the loop must then live in the
# graph, where AutoGraph turns ``for t in tf.range(...)`` into a ``tf.while_loop``. Both
# now run the 60 batches of the source post, whose lengths are ``10 * randint(1, 4)``,
# and so does PyTorch eager, which has nothing to trace. Each batch is timed on its own
# (``sidebyside.timing.time_each``). These traces happen in a process that has already
# run TensorFlow, as in a training run that meets a new length.
lengths = [10 * int(rng.integers(1, 4)) for _ in range(60)]
sequences = {n: workloads[f"RNN, {n} steps"] for n in (10, 20, 30)}


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


per_length_step = tf2_steps[True]  # the benchmark's tf.function: 3 traces
tensors = {
    k: torch.tensor(v, device=torch_device, requires_grad=True)
    for k, v in rnn_params.items()
}


def eager_step(x, y):
    loss = torch_rnn_loss(x, y, tensors)
    return loss, torch.autograd.grad(loss, list(tensors.values()))


def batches(step, to_tensor):
    """One call of ``step`` per batch, in the order of ``lengths``."""
    inputs = {n: [to_tensor(a) for a in pair] for n, pair in sequences.items()}
    return [functools.partial(step, *inputs[n]) for n in lengths]


def to_torch(array):
    return torch.tensor(array, device=torch_device)


with benchmark.torch_threads(THREADS):
    per_length = time_each(batches(per_length_step, tf.constant), sync=tf_sync)
    any_length = time_each(batches(any_length_step, tf.constant), sync=tf_sync)
    eager = time_each(batches(eager_step, to_torch), sync=torch_sync)
print("traces, no signature:", per_length_step.experimental_get_tracing_count())
print("traces, time dimension None:", any_length_step.experimental_get_tracing_count())
assert per_length_step.experimental_get_tracing_count() == len(set(lengths)) == 3
assert any_length_step.experimental_get_tracing_count() == 1  # its first call

for n, pair in sequences.items():  # the three ways agree on every length
    expected, _ = eager_step(*map(to_torch, pair))
    for step in (per_length_step, any_length_step):
        loss, _ = step(*map(tf.constant, pair))
        sidebyside.assert_close(loss, expected, rtol=1e-4, what=f"{n} steps: loss")
# traces, time in the calls that traced, median batch after tracing, total with tracing
traced = sum(results[f"RNN, {n} steps"]["tf.function"].first for n in set(lengths))
retracing = {
    "tf.function, no signature": (
        len(set(lengths)), traced, statistics.median(per_length),
        traced + sum(per_length),
    ),
    "tf.function, time dimension None": (
        1, any_length[0], statistics.median(any_length[1:]), sum(any_length)
    ),
    "PyTorch eager": (0, 0.0, statistics.median(eager), sum(eager)),
}
benchmark.table(
    f"60 RNN batches of {', '.join(map(str, sorted(set(lengths))))} steps ({hardware})",
    ["variant", "traces", "calls that traced", "median batch after tracing", "total"],
    [[name, str(count), duration(tracing) if count else "none", duration(median),
      duration(total)]
     for name, (count, tracing, median, total) in retracing.items()],
)

# %%
# Read from the same numbers:
no_signature, any_shape, by_torch = retracing.values()
benchmark.bullets([
    f"Without a signature, tf.function traced {no_signature[0]} graphs, one per "
    f"length, in {duration(no_signature[1])}; with the time dimension left as None it "
    f"traced 1 graph in {duration(any_shape[1])}.",
    f"After tracing, a batch took {duration(no_signature[2])} in the unrolled graphs "
    f"and {duration(any_shape[2])} in the graph with the loop inside, against "
    f"{duration(by_torch[2])} for PyTorch eager.",
    f"All 60 batches, tracing included: {duration(no_signature[3])} without a "
    f"signature, {duration(any_shape[3])} with one, {duration(by_torch[3])} for "
    "PyTorch eager.",
])

# %%
# Cleaning up
# -----------
# Close the TensorFlow 1 sessions, so that nothing from this page lingers in the next
# one. (PyTorch's thread count was restored after each timing block.)
for session, _, _ in tf1_graphs.values():
    session.close()

# %%
# What to take away
# -----------------
# * A graph is built once and then saves per-operation work on every call; how much that
#   is worth depends on how many small operations one call holds, which is why an RNN,
#   a loop of small operations, is the workload to read.
# * A compiler may keep optimising after its first call: TorchScript's profiling
#   executor does. Time it only once its time per call has settled, and count what
#   settling cost, as the warm-up table does.
# * Building is paid on the first call, and again for every new input shape unless the
#   graph is built for any shape: an ``input_signature`` with ``None`` in it, and the
#   loop inside the graph.
#
# What a compiler adds on top of a graph, XLA against Inductor, is timed on :ref:`what
# compiling buys <sphx_glr_auto_examples_35_payoffs_plot_30_compile.py>`.
#
# References: ``torch.jit.script``, ``torch.set_num_threads``,
# ``torch.autograd.grad``, ``tf.function``, ``tf.TensorSpec``, ``tf.GradientTape``,
# ``tf.compat.v1.Session.make_callable``, ``tf.compat.v1.ConfigProto``,
# ``tf.test.experimental.sync_devices``, ``time.perf_counter``.
sidebyside.parity_report()
