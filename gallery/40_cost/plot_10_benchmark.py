"""
What a graph costs, measured on this build
==========================================

The usual summary says a static graph is built once and then runs efficiently, while a dynamic graph
is rebuilt on every run and costs more. This page does not repeat that: it times one training step
(forward and backward) of the same functions in seven ways, from PyTorch eager to a TensorFlow 1
``Session``, on workloads from a three-operation graph to one big enough that arithmetic dominates.
Every number below was measured while this page was built, on the machine named in the box under
Setup, and the sentences that read the numbers are generated from them.

You will see what calling a graph costs (the overhead per call), what building it costs (tracing and
compiling on the first call), where the overhead stops mattering, and what ``tf.function`` pays when
the sequence length of an RNN changes from batch to batch.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

import sidebyside
from sidebyside.timing import Timing

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Pinning the threads
# -------------------
# With both frameworks at their default thread counts on a small machine, their thread pools fight
# over the cores and a median can jump many times over between runs. So PyTorch runs on one thread
# while we time it (restored afterwards), and the TensorFlow 1 sessions get one thread per pool
# through ``ConfigProto``. Eager TensorFlow and ``tf.function`` share TensorFlow's global pools, which
# are sized once when TensorFlow starts (from ``TF_NUM_INTRAOP_THREADS`` and
# ``TF_NUM_INTEROP_THREADS``) and cannot be changed afterwards; the table says what they used.
BENCH_THREADS = 1
session_config = tf.compat.v1.ConfigProto(
    intra_op_parallelism_threads=BENCH_THREADS, inter_op_parallelism_threads=BENCH_THREADS
)


def tf_global_threads(variable):
    return os.environ.get(variable, f"TensorFlow's default (up to {os.cpu_count()})")


threads = {
    "PyTorch (all variants)": f"{BENCH_THREADS} (torch.set_num_threads while timing)",
    "TF2 eager, tf.function: intra-op": tf_global_threads("TF_NUM_INTRAOP_THREADS"),
    "TF2 eager, tf.function: inter-op": tf_global_threads("TF_NUM_INTEROP_THREADS"),
    "TF1 sessions": f"{BENCH_THREADS} intra-op, {BENCH_THREADS} inter-op (ConfigProto)",
}
for who, count in threads.items():
    print(f"{who:34} {count}")

# %%
# The workloads
# -------------
# Four functions of rising size, each written once per framework with the same names: the tiny
# graph ``y = (w + x) * (w + 1)`` of the first page (nothing but framework overhead), a small MLP
# with a batch of 64, the RNN of the gallery that reads a sine wave and predicts the cosine (one
# Python loop iteration per time step), and the same MLP made large enough that matrix products,
# not overhead, take the time. The PyTorch versions carry type hints so that TorchScript can compile
# them too.

# %%
# **TensorFlow**: the loss functions.


def tiny_loss(x, p):
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x, y, p):
    h = tf.tanh(x @ p["w1"] + p["b1"])
    return tf.reduce_mean((h @ p["w2"] + p["b2"] - y) ** 2)


def rnn_loss(x, y, p):
    h = tf.zeros_like(p["b_h"])
    loss = tf.zeros([])
    for t in range(x.shape[0]):  # one iteration per time step
        h = tf.tanh(x[t : t + 1] @ p["w_ih"] + h @ p["w_hh"] + p["b_h"])
        loss = loss + tf.reduce_sum((h @ p["w_out"] + p["b_out"] - y[t : t + 1]) ** 2)
    return loss / x.shape[0]


tf_losses = {"tiny": tiny_loss, "mlp": mlp_loss, "rnn": rnn_loss}

# %%
# **PyTorch**: the same loss functions.


def tiny_loss(x: torch.Tensor, p: dict[str, torch.Tensor]) -> torch.Tensor:
    return (p["w"] + x) * (p["w"] + 1.0)


def mlp_loss(x: torch.Tensor, y: torch.Tensor, p: dict[str, torch.Tensor]) -> torch.Tensor:
    h = torch.tanh(x @ p["w1"] + p["b1"])
    return torch.mean((h @ p["w2"] + p["b2"] - y) ** 2)


def rnn_loss(x: torch.Tensor, y: torch.Tensor, p: dict[str, torch.Tensor]) -> torch.Tensor:
    h = torch.zeros_like(p["b_h"])
    loss = torch.zeros(())
    for t in range(x.shape[0]):  # one iteration per time step
        h = torch.tanh(x[t : t + 1] @ p["w_ih"] + h @ p["w_hh"] + p["b_h"])
        loss = loss + torch.sum((h @ p["w_out"] + p["b_out"] - y[t : t + 1]) ** 2)
    return loss / x.shape[0]


torch_losses = {"tiny": tiny_loss, "mlp": mlp_loss, "rnn": rnn_loss}

# %%
# Identical inputs
# ----------------
# One set of NumPy arrays per workload: the inputs and the initial parameters. Every variant starts
# from these same numbers. The RNN inputs follow the source: ``sin`` of evenly spaced points, ten per
# half period, and the target is ``cos`` of the same points.
rng = np.random.default_rng(0)


def weights(*shape):
    return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def mlp_workload(batch, width, hidden):
    inputs = (weights(batch, width), weights(batch, 10))
    params = {"w1": weights(width, hidden), "b1": np.zeros(hidden, np.float32),
              "w2": weights(hidden, 10), "b2": np.zeros(10, np.float32)}  # fmt: skip
    return "mlp", inputs, params


def rnn_workload(steps, hidden=32):
    points = np.linspace(0, np.pi * steps / 10, steps, dtype=np.float32)[:, None]
    params = {"w_ih": weights(1, hidden), "w_hh": weights(hidden, hidden),
              "b_h": np.zeros((1, hidden), np.float32),
              "w_out": weights(hidden, 1), "b_out": np.zeros((1, 1), np.float32)}  # fmt: skip
    return "rnn", (np.sin(points), np.cos(points)), params


workloads = {
    "tiny graph": ("tiny", (np.float32(2.0),), {"w": np.float32(1.0)}),
    "MLP, batch 64": mlp_workload(batch=64, width=100, hidden=256),
    "RNN, 10 steps": rnn_workload(10),
    "RNN, 20 steps": rnn_workload(20),
    "RNN, 30 steps": rnn_workload(30),
    "large MLP, batch 256": mlp_workload(batch=256, width=1024, hidden=512),
}

# %%
# The seven variants
# ------------------
# Each variant turns a loss function into a training step that returns the loss and its gradients
# with respect to the parameters, and binds the inputs, so the timer calls ``run()`` with no
# arguments. TensorFlow 2 runs the step eagerly or, wrapped in ``tf.function``, as a traced graph.
# TensorFlow 1 style builds a ``tf.Graph`` with placeholders and ``tf.compat.v1.gradients`` and runs
# it with ``Session.run`` and a ``feed_dict``, or through a callable made once with
# ``Session.make_callable``, which skips re-reading the fetches and feeds on every call.
sessions = []  # closed at the end of the page


# %%
# **TensorFlow**: eager, ``tf.function``, and TensorFlow 1 sessions.
def tf2_variant(kind, arrays, params, *, graph=False):
    variables = {name: tf.Variable(value) for name, value in params.items()}
    inputs = [tf.constant(array) for array in arrays]
    loss_fn = tf_losses[kind]

    def step(*inputs):
        with tf.GradientTape() as tape:
            loss = loss_fn(*inputs, variables)
        return loss, tape.gradient(loss, list(variables.values()))

    if graph:
        step = tf.function(step)
    return lambda: step(*inputs)


def tf1_variant(kind, arrays, params, *, prebuilt=False):
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf_device):
        inputs = [tf.compat.v1.placeholder(tf.float32, array.shape) for array in arrays]
        variables = {name: tf.Variable(value) for name, value in params.items()}
        loss = tf_losses[kind](*inputs, variables)
        fetches = [loss, tf.compat.v1.gradients(loss, list(variables.values()))]
        initialize = tf.compat.v1.global_variables_initializer()
    session = tf.compat.v1.Session(graph=graph, config=session_config)
    sessions.append(session)
    session.run(initialize)
    if prebuilt:
        run = session.make_callable(fetches, feed_list=inputs)
        return lambda: run(*arrays)
    return lambda: session.run(fetches, feed_dict=dict(zip(inputs, arrays)))


# %%
# **PyTorch**: eager, ``torch.compile`` and TorchScript.
def torch_variant(kind, arrays, params, *, compiler=None):
    tensors = {
        name: torch.tensor(value, device=torch_device, requires_grad=True)
        for name, value in params.items()
    }
    inputs = [torch.tensor(array, device=torch_device) for array in arrays]
    loss_fn = torch_losses[kind] if compiler is None else compiler(torch_losses[kind])

    def step(*inputs):
        loss = loss_fn(*inputs, tensors)
        return loss, torch.autograd.grad(loss, list(tensors.values()))

    return lambda: step(*inputs)


def torchscript(fn):
    with warnings.catch_warnings():
        # torch.jit.script is deprecated in this PyTorch; we time it while it still runs, and the
        # warning would only repeat that.
        warnings.simplefilter("ignore", DeprecationWarning)
        return torch.jit.script(fn)


# %%
# Which variant runs where
# ------------------------
# A cold ``torch.compile`` of one workload takes many seconds on a small CPU, longer than the whole
# budget of this page, so it compiles one workload only, the small MLP. Inductor keeps the compiled
# kernels in its cache directory (``TORCHINDUCTOR_CACHE_DIR``); the build points it into the build
# folder, so a rebuild finds them there and only the first build after a clean pays the full compile.
# Every other variant runs every workload; a variant that fails says why in the tables.
COMPILED_WORKLOAD = "MLP, batch 64"
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
print("inductor cache:", os.environ.get("TORCHINDUCTOR_CACHE_DIR", "not set (PyTorch's default)"))

# %%
# How we time
# -----------
# ``sidebyside.time_call`` times a call the same way on every page: one cold call (for a graph
# variant, this is where the tracing or compiling happens), untimed warm-up calls, then samples read
# with ``time.perf_counter``, synchronising the GPU before every clock read when there is one. The
# cold cost reported below adds the time to build the variant (the graph and session for TensorFlow
# 1). Short steps are repeated ``number`` times per sample so a sample lasts about a millisecond.
# The variants take turns, round after round, so a slow moment of the machine hits all of them
# rather than one; the median of all samples is the steady-state time per step, and half the
# interquartile range is its spread.
ROUNDS, REPEAT, SAMPLE_SECONDS = 3, 5, 1e-3


def benchmark(label, workload):
    """Time every variant on one workload: {variant: Timing (first = build + first call)} or reason."""
    runs, results = {}, {}
    for name, (make, options) in variants.items():
        if name == "torch.compile" and label != COMPILED_WORKLOAD:
            results[name] = "not run: compiled on one workload only (build-time budget)"
            continue
        sync = torch_sync if make is torch_variant else tf_sync
        try:
            start = time.perf_counter()
            run = make(*workload, **options)
            built = time.perf_counter() - start
            cold = sidebyside.time_call(run, warmup=3, repeat=1, sync=sync)
        except Exception as error:  # shown on the page as the reason, never silently dropped
            results[name] = f"failed: {type(error).__name__}: {str(error).splitlines()[0]}"
            continue
        number = max(1, min(200, round(SAMPLE_SECONDS / cold.samples[0])))
        runs[name] = (run, sync, number, built + cold.first)
    samples = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, (run, sync, number, _) in runs.items():
            timing = sidebyside.time_call(run, warmup=1, repeat=REPEAT, number=number, sync=sync)
            samples[name].extend(timing.samples)
    for name, (run, _, _, first) in runs.items():
        results[name] = Timing(first=first, samples=tuple(samples[name]))
    return results, {name: run for name, (run, *_) in runs.items()}


torch_threads_before = torch.get_num_threads()
torch.set_num_threads(BENCH_THREADS)
try:
    results, outputs = {}, {}
    for label, workload in workloads.items():
        results[label], runs = benchmark(label, workload)
        outputs[label] = {name: run() for name, run in runs.items()}
finally:
    torch.set_num_threads(torch_threads_before)

# %%
# They agree
# ----------
# A fast wrong answer is worth nothing: every variant's loss and gradients must match PyTorch eager
# on every workload. Float32 sums in a different order differ in the last bits, and the 30-step RNN
# accumulates that over its loop, hence a relative tolerance of ``1e-4``.
for label, by_variant in outputs.items():
    reference_loss, reference_grads = by_variant["PyTorch eager"]
    for name, (loss, grads) in by_variant.items():
        sidebyside.assert_close(loss, reference_loss, what=f"{label}: loss, {name}", rtol=1e-4)
        for grad, reference in zip(grads, reference_grads, strict=True):
            sidebyside.assert_close(grad, reference, what=f"{label}: gradient, {name}", rtol=1e-4)
print(sidebyside.parity.parity_report())
