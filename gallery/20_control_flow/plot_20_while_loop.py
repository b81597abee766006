"""
``while`` vs ``tf.while_loop``
==============================

A loop whose number of steps depends on the data: multiply a vector ``x`` by a scalar ``w`` until
its sum reaches a limit. PyTorch runs an ordinary Python ``while`` and records one multiplication
per step it took. A TensorFlow graph is built before ``x`` is known, so the loop itself must be an
operation in the graph: ``tf.while_loop``, or a Python ``while`` that ``tf.function``
(:term:`AutoGraph`) turns into one. We run one graph on two inputs that need different numbers of
steps, differentiate through the loop in both frameworks, and check the gradient against the
closed form.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared inputs, Matplotlib, the helpers of this site, and one
# seed.
import math

import sidebyside
from sidebyside.capture import backward_nodes

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# The loop and what to expect
# ---------------------------
# Starting from ``x0``, each step does ``x = x * w`` until ``sum(x) >= LIMIT``. After ``n`` steps
# ``y = sum(x) = sum(x0) * w ** n``, so ``dy/dw = n * sum(x0) * w ** (n - 1)``: the number of
# steps depends on the data, but for given data it is a fixed whole number, so the gradient is
# that of an ordinary power. Both frameworks get the same NumPy inputs.
LIMIT = 100.0
w_np = np.float32(1.5)
inputs = {
    "small x0": np.array([0.5, 1.0, 1.5], dtype=np.float32),  # sum 3: needs 9 steps
    "large x0": np.array([5.0, 10.0, 15.0], dtype=np.float32),  # sum 30: needs 3 steps
}
expected = {}
for name, x0 in inputs.items():
    total, w_value = float(x0.sum()), float(w_np)  # the reference in double precision
    n = math.ceil(math.log(LIMIT / total, w_value))
    expected[name] = (n, total * w_value**n, n * total * w_value ** (n - 1))
    print(f"{name}: {n} steps, y = {expected[name][1]:.4f}, dy/dw = {expected[name][2]:.4f}")

# %%
# A loop whose length comes from the data
# ---------------------------------------
# ``tf.while_loop(cond, body, loop_vars)`` puts the whole loop into the graph as one operation;
# ``cond`` and ``body`` are Python functions called once, while the graph is built, to describe a
# single step (``calls`` counts them). The step counter is a loop variable like ``x``.
# ``tf.compat.v1.gradients`` then adds a second loop that runs the steps backwards (we keep a copy
# of the graph from before, to draw it). In PyTorch the loop is plain Python.

# %%
# **TensorFlow (graph)**: one ``tf.while_loop``, run for both inputs.
graph = tf.Graph()
calls = {"cond": 0, "body": 0}


def cond(steps, x):
    calls["cond"] += 1  # Python: runs while building
    return tf.reduce_sum(x) < LIMIT

def body(steps, x):
    calls["body"] += 1
    return steps + 1, x * w

with graph.as_default(), tf.device(tf_device):
    x0 = tf.compat.v1.placeholder(tf.float32, [None], name="x0")
    w = tf.compat.v1.placeholder(tf.float32, (), name="w")
    steps, x = tf.while_loop(
        cond=cond, body=body, loop_vars=(tf.constant(0), x0))
    y = tf.reduce_sum(x)
forward = graph.as_graph_def()  # a copy, for the picture
with graph.as_default(), tf.device(tf_device):
    (dy_dw,) = tf.compat.v1.gradients(y, w)
print("calls while building:", calls)
tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for name, x0_np in inputs.items():
        feed = {x0: x0_np, w: w_np}
        result = session.run([steps, y, dy_dw], feed)
        tf_results[name] = result
        n, y_value, dw_value = result
        print(f"{name}: {n} steps, y = {y_value:.4f},",
              f"dy/dw = {dw_value:.4f}")
assert calls == {"cond": 1, "body": 1}  # not once per step

# %%
# **PyTorch (eager)**: a Python ``while``, then ``backward()``.
torch_results, torch_graphs = {}, {}
for name, x0_np in inputs.items():
    x0 = torch.from_numpy(x0_np).to(torch_device)
    w = torch.tensor(w_np, device=torch_device).requires_grad_()
    steps, x = 0, x0
    while x.sum() < LIMIT:
        steps, x = steps + 1, x * w
    y = x.sum()
    y.backward()
    torch_results[name] = (steps, y.detach(), w.grad)
    torch_graphs[name] = y, w
    print(f"{name}: {steps} steps, y = {y.item():.4f},",
          f"dy/dw = {w.grad.item():.4f}")

# %%
# What each graph holds
# ---------------------
# The TensorFlow graph has the same operations whatever the input: one loop forward and one loop
# backward, two ``StatelessWhile`` operations, their condition and body stored as small functions
# in the graph's :term:`function library`. PyTorch's record is as long as the loop that ran: one
# ``MulBackward0`` per step taken. A graph of one size is not memory of one size, though: to
# differentiate, TensorFlow's loop keeps every step's ``x`` too (the last section below shows how,
# and :ref:`the RNN step by step <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>`
# counts it for 1 to 15 steps).

# %%
# **TensorFlow (graph)**: two loop operations, for either input.
op_types = [op.type for op in graph.get_operations()]
loop_ops = [t for t in op_types if t.endswith("While")]
print("loop operations:", loop_ops)
print("operations in the whole graph:", len(op_types))
assert loop_ops == ["StatelessWhile", "StatelessWhile"]


# %%
# **PyTorch (eager)**: count the multiplications recorded on each run
# (``backward_nodes`` walks ``grad_fn`` as the autograd page shows).
for name, (y, _) in torch_graphs.items():
    names = [type(node).__name__ for node in backward_nodes(y)]
    products = names.count("MulBackward0")
    print(f"{name}: {products} MulBackward0 recorded")
    steps_taken = torch_results[name][0]
    assert products == steps_taken == expected[name][0]

# %%
# Drawn: left, the TensorFlow graph as it was before the gradient was added, one
# ``StatelessWhile`` for any number of steps; right, what PyTorch recorded on each run, a chain
# with one ``MulBackward0`` per step taken.
picture = tf.Graph()  # the graph before the gradient
with picture.as_default():
    tf.graph_util.import_graph_def(forward, name="")
# sphinx_gallery_start_ignore
mosaic = [["tf", "small x0"], ["tf", "large x0"]]
fig, axes = plt.subplot_mosaic(mosaic, figsize=(11, 4.5), width_ratios=(1, 1.3))
sidebyside.draw_tf_graph(picture, axes["tf"], title="TensorFlow: one loop operation")
for name, (y, w) in torch_graphs.items():
    title = f"PyTorch, {name}: {torch_results[name][0]} steps recorded"
    sidebyside.draw_autograd_graph(y, axes[name], names={"w": w}, title=title)
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore

# %%
# AutoGraph: a Python ``while`` inside ``tf.function``
# ----------------------------------------------------
# With ``tf.function`` you can write the loop in Python. Because its condition is a tensor,
# AutoGraph rewrites the ``while`` into a ``tf.while_loop`` (the counter ``steps`` becomes a loop
# variable), and ``tf.GradientTape`` differentiates through it. The loop body is the same on both
# sides; only the sum is spelled differently. (Eager TensorFlow, with no graph at all, runs the same
# Python ``while`` as plain Python, as PyTorch does: the last line of the TensorFlow pane.)


# %%
# **TensorFlow (tf.function)**: a Python ``while`` on a tensor, differentiated by a tape.
@tf.function
def grow(x, w):
    steps = 0
    while tf.reduce_sum(x) < LIMIT:
        steps, x = steps + 1, x * w
    return steps, x

tf2_results = {}
for name, x0_np in inputs.items():
    with tf.device(tf_device):
        x0, w = tf.constant(x0_np), tf.constant(w_np)
        with tf.GradientTape() as tape:
            tape.watch(w)
            steps, x = grow(x0, w)
            y = tf.reduce_sum(x)
        grad_w = tape.gradient(y, w)
        tf2_results[name] = (steps, y, grad_w)
    print(f"{name}: {int(steps)} steps, y = {y:.4f},",
          f"dy/dw = {grad_w:.4f}")
traces = grow.experimental_get_tracing_count()
print("traces:", traces)
eager_steps, _ = grow.python_function(x0, w)  # no graph at all
print("eager TensorFlow, the same while:", eager_steps, "steps")
assert type(eager_steps) is int and eager_steps == int(steps)
concrete = grow.get_concrete_function(x0, w)  # looked at below


# %%
# **PyTorch (eager)**: the same loop as a plain function.
def grow(x, w):
    steps = 0
    while x.sum() < LIMIT:
        steps, x = steps + 1, x * w
    return steps, x


torch2_results = {}
for name, x0_np in inputs.items():
    x0 = torch.from_numpy(x0_np).to(torch_device)
    w = torch.tensor(w_np, device=torch_device).requires_grad_()
    steps, x = grow(x0, w)
    y = x.sum()
    (grad_w,) = torch.autograd.grad(y, w)
    torch2_results[name] = (steps, y.detach(), grad_w)
    print(f"{name}: {steps} steps, y = {y.item():.4f},",
          f"dy/dw = {grad_w.item():.4f}")

# %%
# They agree
# ----------
# Steps, values and gradients: the graph loop, the traced loop, PyTorch, and the closed form.
# These assertions run on every build.
runs = {"TF1 graph": tf_results, "tf.function": tf2_results,
        "PyTorch backward": torch_results, "PyTorch autograd.grad": torch2_results}
for name in inputs:
    n, y_expected, dw_expected = expected[name]
    for label, (steps, y, dy_dw) in ((label, run[name]) for label, run in runs.items()):
        assert int(steps) == n, f"{name}, {label}: {int(steps)} steps, expected {n}"
        sidebyside.assert_close(y_expected, y, what=f"y for {name} (closed form vs {label})")
        sidebyside.assert_close(dw_expected, dy_dw, what=f"dy/dw for {name} (closed form vs {label})")
    for tf_run, torch_run in (("TF1 graph", "PyTorch backward"), ("tf.function", "PyTorch autograd.grad")):
        sidebyside.assert_close(runs[tf_run][name][2], runs[torch_run][name][2],
                                what=f"dy/dw for {name} ({tf_run} vs {torch_run})")
sidebyside.parity_report()

# %%
# Going deeper: more on the loop graphs
# -------------------------------------
# The contrast, a Python ``while`` against ``tf.while_loop``, is the one a source post credited
# on :ref:`sources` draws.
#
# What AutoGraph traced
# ~~~~~~~~~~~~~~~~~~~~~
# One trace served both inputs (they have the same shape and dtype), because the loop is an
# operation in the traced graph rather than unrolled Python: the graph has a ``StatelessWhile``
# and no ``Mul`` outside it. A ``while`` whose condition is a plain Python value instead runs
# while tracing, leaving its steps unrolled in the graph: below, a loop of three steps on a Python
# counter leaves one ``Mul`` per step and no loop.
import pprint

traced_ops = [op.type for op in concrete.graph.get_operations()]
print("operations in the traced graph:")
pprint.pp(traced_ops, width=64, compact=True)
assert "StatelessWhile" in traced_ops and "Mul" not in traced_ops
assert traces == 1


@tf.function
def grow_three_steps(x, w):
    steps = 0
    while steps < 3:  # a Python int: AutoGraph leaves the loop to Python
        steps, x = steps + 1, x * w
    return x


x0, w = tf.constant(inputs["small x0"]), tf.constant(w_np)
unrolled = grow_three_steps.get_concrete_function(x0, w)
unrolled_ops = [op.type for op in unrolled.graph.get_operations()]
print("operations in the unrolled graph:")
pprint.pp(unrolled_ops, width=64, compact=True)
print("Mul ops:", unrolled_ops.count("Mul"))
assert unrolled_ops.count("Mul") == 3 and "StatelessWhile" not in unrolled_ops

# %%
# Every step kept for the backward pass
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# One loop operation does not mean that memory stays the same whatever the length. The gradient of
# ``x * w`` with respect to ``w`` needs the ``x`` of every step. PyTorch's record keeps them: each
# ``MulBackward0`` saves the ``x`` it multiplied. TensorFlow keeps them too, which is why the
# traced graph above ends with an ``EmptyTensorList``: because ``grow`` ran while a tape was
# recording, TensorFlow rewrote the loop so that its body pushes ``x`` onto that list at every step
# (``TensorListPushBack``), for the backward loop to take off again. The loop body is a function in
# the graph's :term:`function library`, so we count the op there, and in the same loop traced
# without a tape. The
# TF1 graph from the top was rewritten the same way by ``tf.compat.v1.gradients``: its forward loop
# now also returns the list, and ``TensorListLength`` says how long it is after each run. In
# PyTorch, a pack hook of ``saved_tensors_hooks`` sees every tensor saved.


# %%
# **TensorFlow (tf.function, graph)**: a list that gets one ``x`` a step.
def library_ops(graph):
    """Op types inside the graph's functions (loop bodies)."""
    functions = graph.as_graph_def().library.function
    return [n.op for f in functions for n in f.node_def]


@tf.function
def untaped(x, w):  # the same loop, never run under a tape
    while tf.reduce_sum(x) < LIMIT:
        x = x * w
    return x


loops = {
    "grow, under a tape": concrete.graph,
    "untaped": untaped.get_concrete_function(x0, w).graph,
}
print("TensorListPushBack in the loop body:")
pushes = {}
for name, traced in loops.items():
    ops = library_ops(traced)
    pushes[name] = ops.count("TensorListPushBack")
    print(f"  {name}: {pushes[name]}")
assert pushes == {"grow, under a tape": 1, "untaped": 0}
assert "EmptyTensorList" in traced_ops

forward_loop = next(op for op in graph.get_operations()
                    if op.type == "StatelessWhile")
(xs,) = [t for t in forward_loop.outputs
         if t.dtype == tf.variant]  # the list of x
with graph.as_default():
    length = tf.raw_ops.TensorListLength(input_handle=xs)
x0_in = graph.get_tensor_by_name("x0:0")  # the placeholders
w_in = graph.get_tensor_by_name("w:0")
tf_kept = {}
with tf.compat.v1.Session(graph=graph) as session:
    for name, x0_np in inputs.items():
        kept = session.run(length, {x0_in: x0_np, w_in: w_np})
        tf_kept[name] = kept
        print(f"TF1 graph, {name}: the list holds {kept} x")

# %%
# **PyTorch (eager)**: one saved ``x`` a step.
saved = []


def pack(tensor):
    saved.append(tensor)
    return tensor


hooks = torch.autograd.graph.saved_tensors_hooks
torch_kept = {}
for name, x0_np in inputs.items():
    x0 = torch.from_numpy(x0_np).to(torch_device)
    w = torch.tensor(w_np, device=torch_device).requires_grad_()
    saved.clear()
    with hooks(pack, lambda t: t):
        steps, x = grow(x0, w)
    n_x = sum(t.shape == x0.shape for t in saved)
    torch_kept[name] = n_x
    print(f"{name}: {steps} steps, {n_x} x saved",
          f"({len(saved)} tensors with w)")
saved.clear()

# %%
# The list holds one ``x`` per step taken, and PyTorch saved as many: training memory grows with
# the number of steps in TensorFlow as in PyTorch. (PyTorch also saves ``w`` at every step but the
# first, without copying it; TensorFlow's loop takes ``w`` in once and pushes only ``x``.) One loop
# operation keeps the graph small whatever the length, not the memory of training.
for name in inputs:
    assert tf_kept[name] == torch_kept[name] == expected[name][0], name

# %%
# What to take away
# -----------------
# * A static graph cannot contain "as many steps as the data needs", so the loop becomes one
#   operation, ``tf.while_loop``, that repeats its body at run time: one graph, any number of steps.
# * PyTorch's ``while`` is ordinary Python, and the record grows by one operation per step taken.
# * Gradients flow through both: TensorFlow adds a backward loop to the graph, PyTorch walks the
#   record it kept. Both match ``n * sum(x0) * w ** (n - 1)``.
# * Inside ``tf.function``, AutoGraph turns a ``while`` on a tensor into ``tf.while_loop``; a
#   ``while`` on a Python value is unrolled while tracing.
# * One loop operation is a graph of constant size, not constant memory: for the gradient,
#   TensorFlow's loop pushes every step's ``x`` onto a list, as PyTorch's record saves it, so
#   training memory grows with the number of steps in both.
#
# References: ``tf.while_loop``, ``tf.compat.v1.gradients``, ``tf.function``,
# ``tf.GradientTape``, ``tf.raw_ops.TensorListLength``, ``torch.Tensor.backward``,
# ``torch.autograd.grad``, ``torch.autograd.graph.saved_tensors_hooks``.

# sphinx_gallery_thumbnail_number = 1
