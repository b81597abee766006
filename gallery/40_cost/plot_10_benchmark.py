"""
What a graph costs, measured on this build
==========================================

The usual summary says a static graph is built once and then runs efficiently, while a
dynamic graph is rebuilt on every run and costs more (one of the source posts credited
on :ref:`sources` says so). This page does not repeat that: it measures it. One training
step (loss and gradients) of the same functions runs in seven ways, from PyTorch eager
to a TensorFlow 1 ``Session``, on workloads from a three-operation graph to one where
arithmetic dominates. Every number was measured while this page was built, on the
machine named under Setup, and the sentences that read the numbers are generated from
them.

You will see what *calling* a graph costs per step, what *building* it costs on the
first call (tracing, compiling), where the overhead stops mattering, and what
``tf.function`` pays when the length of an RNN's input changes from batch to batch.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import contextlib
import functools
import os
import statistics
import tempfile
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch
from torch._dynamo.utils import counters  # private: inductor's cache statistics

import sidebyside
from sidebyside import benchmark
from sidebyside.benchmark import duration
from sidebyside.provenance import cpu_model
from sidebyside.timing import time_each

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Pinning the threads
# -------------------
# With both frameworks at their default thread counts on a small machine, their thread
# pools fight over the cores, and a median can jump many times over from one run to the
# next. So PyTorch runs on one thread while we time it (and gets its old setting back
# afterwards), and each TensorFlow 1 session gets one thread per pool through
# ``ConfigProto``. Eager TensorFlow and ``tf.function`` use TensorFlow's global pools.
# ``tf.config.threading.set_intra_op_parallelism_threads`` and
# ``set_inter_op_parallelism_threads`` size them, but only before TensorFlow's runtime
# starts, which its first operation does; the environment variables
# ``TF_NUM_INTRAOP_THREADS`` and ``TF_NUM_INTEROP_THREADS`` are read at that moment too.
# Here, as in the site's build, where the pages before this one ran TensorFlow, the
# runtime is already running: the setter refuses (below), so we report the sizes instead.
# The getters report what the setters configured, ``0`` when they never ran; the runtime
# then takes the environment variable if it is set (the site's build sets both to 1), and
# otherwise a size of its own choosing.
THREADS = 1
tf.zeros(())  # any TensorFlow operation starts the runtime, if nothing has yet
refused = False
try:
    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
except RuntimeError as error:
    refused = True
    print("set_intra_op_parallelism_threads:", error)
assert refused  # so nothing global was changed
session_config = tf.compat.v1.ConfigProto(
    intra_op_parallelism_threads=THREADS, inter_op_parallelism_threads=THREADS
)


@contextlib.contextmanager
def torch_threads(count):
    """PyTorch on ``count`` threads in the block, its old setting after it."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def tf_global_threads(size, variable):
    setting = os.environ.get(variable, "not set")
    return f"{size} (environment variable {variable}: {setting})"


threads_used = {
    "PyTorch, every variant": f"{THREADS} (torch.set_num_threads while timing)",
    "TF2 eager and tf.function, intra-op": tf_global_threads(
        tf.config.threading.get_intra_op_parallelism_threads(), "TF_NUM_INTRAOP_THREADS"
    ),
    "TF2 eager and tf.function, inter-op": tf_global_threads(
        tf.config.threading.get_inter_op_parallelism_threads(), "TF_NUM_INTEROP_THREADS"
    ),
    "TF1 sessions": f"{THREADS} intra-op, {THREADS} inter-op (ConfigProto)",
}
for who, count in threads_used.items():
    print(f"{who:36} {count}")

# %%
# The workloads
# -------------
# Three functions, each written once per framework with the same names: the tiny graph
# ``y = (w + x) * (w + 1)`` of the first page, where there is nothing to compute and all
# the time is framework overhead; an MLP with one hidden layer; and the RNN of the
# gallery, which reads ``sin(t)`` and predicts ``cos(t)``, written as a plain loop with
# one iteration per time step (the cell of ``torch.nn.RNN``, with its two biases folded
# into one). The PyTorch versions carry type hints so that TorchScript can compile them
# as well.

# %%
# **TensorFlow**: the three losses.


def tiny_loss(x, p):
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x, y, p):
    h = tf.tanh(x @ p["W1"] + p["b1"])
    return tf.reduce_mean((h @ p["W2"] + p["b2"] - y) ** 2)


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


tf_losses = dict(tiny=tiny_loss, mlp=mlp_loss, rnn=rnn_loss)

# %%
# **PyTorch**: the same three losses.
Tensor, Params = torch.Tensor, dict[str, torch.Tensor]


def tiny_loss(x: Tensor, p: Params) -> Tensor:
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x: Tensor, y: Tensor, p: Params) -> Tensor:
    h = torch.tanh(x @ p["W1"] + p["b1"])
    return torch.mean((h @ p["W2"] + p["b2"] - y) ** 2)


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


torch_losses = dict(tiny=tiny_loss, mlp=mlp_loss, rnn=rnn_loss)

# %%
# Identical inputs, rising sizes
# ------------------------------
# Each workload is one set of NumPy arrays, the inputs and the starting parameters, from
# which every variant starts. The RNN keeps its weights and reads 10, 20 or 30 points of
# the sine wave, ten per half period as in the source post; the large MLP is big enough
# that its matrix products, not the calls into the framework, should take the time.
rng = np.random.default_rng(0)


def uniform(*shape):
    bound = 1 / np.sqrt(shape[0])
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def mlp(batch, width, hidden):
    inputs = (rng.standard_normal((batch, width), np.float32), uniform(batch, 10))
    params = {"W1": uniform(width, hidden), "b1": np.zeros(hidden, np.float32),
              "W2": uniform(hidden, 10), "b2": np.zeros(10, np.float32)}
    return "mlp", inputs, params


rnn_params = {"W_ih": uniform(1, 32), "W_hh": uniform(32, 32), "b_h": uniform(1, 32),
              "W_out": uniform(32, 1), "b_out": uniform(1, 1)}


def rnn(steps):
    t = np.linspace(0, steps / 10 * np.pi, steps, dtype=np.float32)[:, None]
    return "rnn", (np.sin(t), np.cos(t)), rnn_params


workloads = {
    "tiny graph": ("tiny", (np.float32(2.0),), {"w": np.float32(1.0)}),
    "MLP, batch 64": mlp(batch=64, width=100, hidden=256),
    "RNN, 10 steps": rnn(10),
    "RNN, 20 steps": rnn(20),
    "RNN, 30 steps": rnn(30),
    "large MLP, batch 128": mlp(batch=128, width=1024, hidden=1024),
}

# %%
# Seven ways to run a training step
# ---------------------------------
# Each variant turns a loss into a step that returns the loss and its gradients with
# respect to the parameters, and binds the inputs, so that the timer calls ``run()``
# with no arguments. TensorFlow 2 runs the step eagerly under a ``GradientTape``, or
# traced into a graph by ``tf.function``; the three RNN rows are one model, so they
# share one ``tf.function``, which traces a new graph for each new length. TensorFlow 1
# style builds a ``tf.Graph`` with placeholders and ``tf.compat.v1.gradients`` once per
# workload: ``Session.run`` feeds it through a ``feed_dict``, and
# ``Session.make_callable`` prepares the same fetches and feeds once, for a cheaper
# call. PyTorch runs the loss eagerly, or compiled by ``torch.compile`` or TorchScript,
# and autograd computes the gradients in all three.
tf2_steps = {}  # one step per model, eager or tf.function
tf1_graphs = {}  # one graph and session per workload, for both TF1 variants


# %%
# **TensorFlow**: eager, ``tf.function``, and a TensorFlow 1
# graph run two ways.
def tf2_variant(workload, *, graph=False):
    kind, arrays, params = workloads[workload]
    model = workload.split(",")[0]  # "RNN, 20 steps" -> "RNN"
    if (model, graph) not in tf2_steps:
        variables = {k: tf.Variable(params[k]) for k in params}
        weights = list(variables.values())

        def step(*inputs):
            with tf.GradientTape() as tape:
                loss = tf_losses[kind](*inputs, variables)
            return loss, tape.gradient(loss, weights)

        if graph:
            step = tf.function(step)
        tf2_steps[model, graph] = step
    step = tf2_steps[model, graph]
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
    tensors = {
        k: torch.tensor(params[k], device=torch_device,
                        requires_grad=True)
        for k in params
    }
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


def torchscript(fn):
    with warnings.catch_warnings(record=True) as caught:
        # torch.jit.script is deprecated in this PyTorch: keep
        # its warning, to print once rather than per workload
        warnings.simplefilter("always", DeprecationWarning)
        scripted = torch.jit.script(fn)
    script_warnings.update(
        f"{w.category.__name__}: {w.message}" for w in caught
    )
    return scripted



# %%
# Which variant runs where
# ------------------------
# A cold ``torch.compile`` of even a small function takes seconds of compiling C++ on a
# small CPU, a large part of this page's budget, so it compiles one workload only, the
# small MLP. Inductor keeps what it compiled in its cache folder
# (``TORCHINDUCTOR_CACHE_DIR``) and, for the rest of the process, in memory, so a later
# compile can load it instead: the first call timed in the benchmark is a *warm*
# compile, and the line under the first-call table says how many graphs it loaded. The
# next section measures one *cold* compile. Every other variant runs every workload, and
# a variant that fails says why instead of disappearing.
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
torch_sync = torch.cuda.synchronize if torch_device == "cuda" else None
tf_sync = tf.test.experimental.sync_devices if tf_device.startswith("/GPU") else None
sync_for = {torch_variant: torch_sync, tf2_variant: tf_sync, tf1_variant: tf_sync}

# %%
# One cold compile
# ----------------
# Before anything else on this page compiles, the small MLP's step is compiled once with
# ``TORCHINDUCTOR_CACHE_DIR`` pointed at a new, empty temporary folder, so Inductor
# finds nothing to load and compiles its graphs from scratch. We time that first call
# (compiling included), then give the environment variable its old value back and drop
# the compiled code with ``torch.compiler.reset()``; the temporary folder is deleted.
# Inductor's cache hits and misses are read from ``torch._dynamo.utils.counters``, a
# private dictionary (PyTorch has no public API that reports them), only to print how
# many graphs each compile really compiled. A compile earlier in the same process
# (another page's) leaves Inductor's start-up already done, so in the site's build this
# number can come out lower than in a fresh Python.
CACHE_VARIABLE = "TORCHINDUCTOR_CACHE_DIR"
misses_before = counters["inductor"]["fxgraph_cache_miss"]
saved_cache_dir = os.environ.get(CACHE_VARIABLE)
with tempfile.TemporaryDirectory() as empty_cache, torch_threads(THREADS):
    os.environ[CACHE_VARIABLE] = empty_cache
    try:
        start = time.perf_counter()
        cold_run = torch_variant(COMPILED, compiler=torch.compile)
        cold_run()  # compiles, then runs once
        if torch_sync:
            torch_sync()
        cold_compile = time.perf_counter() - start
    finally:
        if saved_cache_dir is None:
            os.environ.pop(CACHE_VARIABLE, None)
        else:
            os.environ[CACHE_VARIABLE] = saved_cache_dir
        torch.compiler.reset()
cold_misses = counters["inductor"]["fxgraph_cache_miss"] - misses_before
print(f"cold torch.compile of the {COMPILED}: first call {cold_compile:.2f} s, "
      f"{cold_misses} graphs compiled from scratch")
assert os.environ.get(CACHE_VARIABLE) == saved_cache_dir and cold_misses > 0
cache_before = dict(counters["inductor"])  # the benchmark's compile counts from here

# %%
# How we time
# -----------
# ``sidebyside.time_call`` times every page's measurements the same way: one cold call
# (where a graph variant traces or compiles), untimed warm-up calls, then samples read
# with ``time.perf_counter``, with the GPU synchronised before every clock read when
# there is one. Here ``sidebyside.benchmark.time_variants`` calls it for each variant of
# a workload's step. A step shorter than about a millisecond is repeated ``number``
# times per sample; a step slower than 10 ms gets fewer samples per round (at least
# two), to keep the build fast. The variants take turns, round after round, so that a
# slow moment of the machine falls on all of them rather than on one. We report the
# median of all samples, with half their interquartile range as the spread; a result
# whose spread exceeds 10 % of its median is marked noisy. The first-call cost adds the
# time to build the variant (for TensorFlow 1, the graph and the session) to its cold
# call. A variant that raises is kept, as ``failed`` with its reason.
ROUNDS, REPEAT, SAMPLE_SECONDS, ROUND_SECONDS = 3, 5, 1e-3, 0.05


def steps(workload):
    """{variant: (make, sync)}: how to build each variant of this workload's step."""
    return {
        name: NOT_COMPILED
        if name == "torch.compile" and workload != COMPILED
        else (functools.partial(make, workload, **options), sync_for[make])
        for name, (make, options) in variants.items()
    }


results, outputs = {}, {}
with torch_threads(THREADS):
    for workload in workloads:
        results[workload], outputs[workload] = benchmark.time_variants(
            steps(workload),
            rounds=ROUNDS,
            repeat=REPEAT,
            sample_seconds=SAMPLE_SECONDS,
            round_seconds=ROUND_SECONDS,
        )

# %%
# All variants agree
# ------------------
# A fast wrong answer is worth nothing: on every workload, every variant's loss and
# gradients must match PyTorch eager's. Float32 sums taken in a different order differ
# in the last bits, and the RNN carries that through its loop, hence a relative
# tolerance of ``1e-4``.
for workload, by_variant in outputs.items():
    expected_loss, expected_grads = by_variant["PyTorch eager"]
    for name, (loss, grads) in by_variant.items():
        what = f"{workload}, {name}"
        sidebyside.assert_close(loss, expected_loss, what=f"{what}: loss", rtol=1e-4)
        for grad, expected in zip(grads, expected_grads, strict=True):
            sidebyside.assert_close(grad, expected, what=f"{what}: gradient", rtol=1e-4)
checked = sum(len(by_variant) for by_variant in outputs.values())
print(f"{checked} runs checked against PyTorch eager: the losses and gradients agree")
sidebyside.parity_report()

# %%
# The numbers
# -----------
# Steady-state time per training step, its spread, and its ratio to PyTorch eager on the
# same workload (below 1 is faster than PyTorch eager); then the cost of the first call.
# ``sidebyside.benchmark`` lays the results out as HTML tables.
hardware = f"{cpu_model()}, {os.cpu_count()} logical cores"
if torch_device == "cuda":
    hardware += f", {torch.cuda.get_device_name(0)}"
benchmark.step_table(
    results,
    list(variants),
    reference="PyTorch eager",
    caption="Time per training step: median, ±spread · ratio to PyTorch eager "
    f"({hardware})",
)

# %%
# The first call pays for the graph: tracing for ``tf.function``, building the graph and
# opening a session for TensorFlow 1 (the callable reuses that graph, so its first call
# is cheap), compiling for ``torch.compile`` and TorchScript. Eager variants pay only
# for warming up. The ``torch.compile`` figure is a warm compile: it ran after the cold
# compile above, with Inductor's caches filled.
loaded, fresh = (
    counters["inductor"][key] - cache_before.get(key, 0)
    for key in ("fxgraph_cache_hit", "fxgraph_cache_miss")
)
print(f"torch.compile: {loaded} compiled graphs loaded from inductor's cache, "
      f"{fresh} compiled anew")
print(*sorted(script_warnings), sep="\n")
benchmark.first_call_table(
    results,
    list(variants),
    caption="First call: building the variant plus its cold call; torch.compile's is "
    f"a warm compile (cold: {duration(cold_compile)}) ({hardware})",
)

# %%
# The same steady-state numbers as a chart, on a logarithmic axis: each step up is ten
# times slower.
timed = {w: benchmark.measured(by) for w, by in results.items()}  # variants that ran
colors = {
    "PyTorch eager": "#ee4c2c", "torch.compile": "#a8321c", "TorchScript": "#f59c87",
    "TF2 eager": "#ffc266", "tf.function": "#ff8f00", "TF1 Session.run": "#b36200",
    "TF1 callable": "#6b3b00",
}
fig, ax = plt.subplots(figsize=(12, 4.5))
width = 0.8 / len(variants)
for i, name in enumerate(variants):
    for j, workload in enumerate(workloads):
        if name in timed[workload]:
            x = j + (i - (len(variants) - 1) / 2) * width
            median = timed[workload][name].median
            ax.bar(x, median * 1e6, width, color=colors[name], label=name)
ax.set_yscale("log")
ax.set_xticks(range(len(workloads)), list(workloads))
ax.set_xlabel(f"workload (measured while building this page: {hardware})")
ax.set_ylabel("µs per training step (median)")
ax.set_title("Time per training step, each way of running it", fontsize=10)
handles, labels = ax.get_legend_handles_labels()
legend = dict(zip(labels, handles, strict=True))  # one entry per variant
ax.legend(legend.values(), legend.keys(), ncols=4, fontsize=8, loc="upper left")
fig.tight_layout()
plt.show()

# %%
# Reading the numbers
# -------------------
# These sentences are computed from the tables above on every build, so they describe
# this machine's numbers, whatever they turn out to be.


def per_step(workload, name):
    return benchmark.per_step(results[workload], name)


def compare(workload, name, reference="PyTorch eager"):
    return benchmark.compare(results[workload], name, reference)


readings = [
    "Overhead: a whole PyTorch eager step of the tiny graph takes "
    f"{per_step('tiny graph', 'PyTorch eager')}. The same three operations take "
    f"{per_step('tiny graph', 'tf.function')} through tf.function "
    f"({compare('tiny graph', 'tf.function')}) and "
    f"{per_step('tiny graph', 'TF1 Session.run')} through Session.run "
    f"({compare('tiny graph', 'TF1 Session.run')})."
]
for workload in (w for w in workloads if w.startswith("RNN")):
    best = min(timed[workload], key=lambda name: timed[workload][name].median)
    ratio = "" if best == "PyTorch eager" else f", {compare(workload, best)}"
    readings.append(
        f"{workload}: the fastest is {best} ({per_step(workload, best)}{ratio}); "
        f"tf.function is {compare(workload, 'tf.function')}, "
        f"TF2 eager {compare(workload, 'TF2 eager')}."
    )
largest = list(workloads)[-1]
families = {"PyTorch eager": ["torch.compile", "TorchScript"],
            "TF2 eager": ["tf.function", "TF1 Session.run", "TF1 callable"]}
for eager, graphs in families.items():
    if eager not in timed[largest]:
        continue
    ratios = {g: timed[largest][g].median / timed[largest][eager].median
              for g in graphs if g in timed[largest]}
    if ratios:
        close = all(0.9 <= ratio <= 1.1 for ratio in ratios.values())
        readings.append(
            f"On the {largest}, against {eager}: "
            + ", ".join(f"{g} {ratio:.2f}×" for g, ratio in ratios.items())
            + (". With or without a graph, the time is the same within 10 %: "
               "the arithmetic dominates." if close else
               ". Even there, the graph changes the time by more than 10 %: "
               "the calls into the framework still count.")
        )
if compiled := timed[COMPILED].get("torch.compile"):
    saved = timed[COMPILED]["PyTorch eager"].median - compiled.median
    pays = (
        f"so it pays for itself after about {compiled.first / saved:,.0f} steps "
        f"with warm caches and {cold_compile / saved:,.0f} steps compiled cold"
        if saved > 0
        else "so on this workload it never pays for its compile time"
    )
    readings.append(
        f"torch.compile on the {COMPILED}: its first call took "
        f"{duration(compiled.first)} with Inductor's caches warm and "
        f"{duration(cold_compile)} cold (empty cache folder), and each later step "
        f"is {compare(COMPILED, 'torch.compile')}, {pays}."
    )
noisy = sum(t.noisy for by in timed.values() for t in by.values())
readings.append(
    f"{noisy} of {sum(map(len, timed.values()))} measurements are noisy (spread above "
    "10 % of the median); the table marks them."
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
# (``sidebyside.timing.time_each``).
lengths = [10 * int(rng.integers(1, 4)) for _ in range(60)]
sequences = {n: workloads[f"RNN, {n} steps"][1] for n in (10, 20, 30)}


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


per_length_step = tf2_steps["RNN", True]  # the benchmark's tf.function: 3 traces
tensors = {
    k: torch.tensor(v, device=torch_device, requires_grad=True)
    for k, v in rnn_params.items()
}


def eager_step(x, y):
    loss = torch_losses["rnn"](x, y, tensors)
    return loss, torch.autograd.grad(loss, list(tensors.values()))


def batches(step, to_tensor):
    """One call of ``step`` per batch, in the order of ``lengths``."""
    inputs = {n: [to_tensor(a) for a in pair] for n, pair in sequences.items()}
    return [functools.partial(step, *inputs[n]) for n in lengths]


def to_torch(array):
    return torch.tensor(array, device=torch_device)


with torch_threads(THREADS):
    per_length = time_each(batches(per_length_step, tf.constant), sync=tf_sync)
    any_length = time_each(batches(any_length_step, tf.constant), sync=tf_sync)
    eager = time_each(batches(eager_step, to_torch), sync=torch_sync)
print("traces, no signature:", per_length_step.experimental_get_tracing_count())
print("traces, time dimension None:", any_length_step.experimental_get_tracing_count())
assert per_length_step.experimental_get_tracing_count() == len(set(lengths)) == 3
assert any_length_step.experimental_get_tracing_count() == 1  # its first call, above

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
# Close the TensorFlow 1 sessions and forget what ``torch.compile`` compiled
# (``torch.compiler.reset()``), so that nothing from this page lingers in the next one.
# (PyTorch's thread count was restored after each timing block,
# ``TORCHINDUCTOR_CACHE_DIR`` after the cold compile.)
for session, _, _ in tf1_graphs.values():
    session.close()
torch.compiler.reset()

# %%
# What to take away
# -----------------
# * A call and the arithmetic inside it cost different things: the tiny graph measures
#   the call, the large MLP mostly the arithmetic. The tables above show both, on this
#   machine.
# * A graph is built once and then saves per-operation work on every call; how much that
#   is worth depends on how many small operations one call holds, which is why the RNN
#   rows are the ones to read.
# * Building is paid on the first call (tracing, compiling, opening a session), and
#   again for every new input shape unless the graph is built for any shape. A
#   compiler's caches change that price a lot: compare the cold and the warm
#   ``torch.compile``.
# * To time things yourself: warm up, let the variants take turns, take medians with
#   their spread, pin the threads, and synchronise the GPU before reading the clock
#   (``sidebyside.time_call``).
#
# References: ``torch.compile``, ``torch.compiler.reset``, ``torch.jit.script``,
# ``torch.set_num_threads``, ``tf.config.threading.set_intra_op_parallelism_threads``,
# ``torch.autograd.grad``, ``tf.function``, ``tf.TensorSpec``, ``tf.GradientTape``,
# ``tf.compat.v1.Session``, ``tf.compat.v1.Session.make_callable``,
# ``tf.compat.v1.ConfigProto``, ``tf.test.experimental.sync_devices``,
# ``time.perf_counter``.
