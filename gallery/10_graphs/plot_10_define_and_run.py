"""
Define-and-run vs define-by-run
===============================

TensorFlow's classic style *defines* a graph first and *runs* it later, as often as you like, by
feeding it numbers. PyTorch *defines the graph by running* ordinary Python: the graph is recorded
while the arithmetic happens and is rebuilt on every call.

Both compute the same function, ``y = (w + x) * (w + 1)``, at ``w = 1, x = 2``, and its
gradients ``dy/dw = (w + 1) + (w + x) = 5`` and ``dy/dx = w + 1 = 2``. At the end we draw the graph each framework really
built, straight from its objects. The function and its numbers come from one of the source posts
credited on :ref:`sources`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import sidebyside

import matplotlib.pyplot as plt
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Build once, run many times / run to build
# -----------------------------------------
# TensorFlow 1 style (still available as ``tf.compat.v1``): placeholders are empty slots. Nothing
# is computed while the graph is built; ``Session.run`` feeds numbers in and pulls results out.
# The same graph serves every input. ``tf.compat.v1.gradients`` adds the backward operations to the
# graph, again without computing anything.
#
# PyTorch: every line computes immediately. ``requires_grad=True`` asks autograd to record the
# operations as they happen, so ``backward()`` can walk the record in reverse.

# %%
# **TensorFlow (graph)**: define, then run.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    w = tf.compat.v1.placeholder(tf.float32, shape=(), name="w")
    x = tf.compat.v1.placeholder(tf.float32, shape=(), name="x")
    a = tf.add(w, x, name="a")
    b = tf.add(w, 1.0, name="b")
    y = tf.multiply(a, b, name="y")
    dy_dw, dy_dx = tf.compat.v1.gradients(y, [w, x])
# a symbolic tensor: no value yet
print("after building:")
print(y)

feed = {w: 1.0, x: 2.0}
with tf.compat.v1.Session(graph=graph) as session:
    tf_y, tf_dw, tf_dx = session.run([y, dy_dw, dy_dx], feed)
    print(f"run with w=1, x=2: y={tf_y}")
    print(f"gradients: dy/dw={tf_dw}, dy/dx={tf_dx}")
    # the same graph, new numbers: nothing is rebuilt
    for w_value in (2.0, 3.0):
        y_value = session.run(y, {w: w_value, x: 2.0})
        print(f"run with w={w_value}, x=2: y={y_value}")
print("operations in the graph:", len(graph.get_operations()))

# %%
# **PyTorch (eager)**: run, and the graph is recorded.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
a = w + x
b = w + 1
y = a * b
# already a number, with the function that made it
print("after computing:")
print(y)

y.backward()
torch_y, torch_dw, torch_dx = y.detach(), w.grad, x.grad
print(f"run with w=1, x=2: y={torch_y.item()}")
print(f"gradients: dy/dw={torch_dw.item()},",
      f"dy/dx={torch_dx.item()}")
# every call runs the Python again and records a fresh graph
for w_value in (2.0, 3.0):
    w_new = torch.tensor(w_value, requires_grad=True)
    y_value = ((w_new + 2.0) * (w_new + 1)).item()
    print(f"run with w={w_value}, x=2: y={y_value}")

# %%
# A graph can still grow
# ----------------------
# Built ahead of time does not mean frozen: operations can be added to a ``tf.Graph`` after a
# session has run it, and the same session runs them too. Only ``graph.finalize()`` locks a graph;
# after it, adding an operation raises.
growing = tf.Graph()
with growing.as_default():
    v = tf.compat.v1.placeholder(tf.float32, shape=(), name="v")
    doubled = tf.multiply(v, 2.0, name="doubled")
with tf.compat.v1.Session(graph=growing) as session:
    print("doubled:", session.run(doubled, {v: 3.0}))
    with growing.as_default():
        plus_one = tf.add(doubled, 1.0, name="plus_one")  # added after a run
    print("plus_one, same session:", session.run(plus_one, {v: 3.0}))
growing.finalize()
refused = False
try:
    with growing.as_default():
        tf.add(doubled, 2.0)
except RuntimeError as error:
    refused = True
    print("after finalize():")
    print(f"  {type(error).__name__}: {error}")
assert refused

# %%
# TensorFlow 2: a graph from a Python function
# --------------------------------------------
# Modern TensorFlow runs eagerly, like PyTorch (``TensorFlow executes eagerly: True``; the
# TensorFlow 1 graphs above were built inside ``with graph.as_default()`` blocks). ``tf.function``
# runs the Python function once to *trace* it into a graph (a ``ConcreteFunction``) and runs that
# graph on later calls with the same kind of arguments (see the next section);
# ``tf.GradientTape`` records the operations for the gradient.
print("TensorFlow executes eagerly:", tf.executing_eagerly())


@tf.function
def y_and_gradients(w, x):
    with tf.GradientTape() as tape:
        tape.watch([w, x])
        y = (w + x) * (w + 1.0)
    return y, tape.gradient(y, [w, x])


tf2_y, (tf2_dw, tf2_dx) = y_and_gradients(tf.constant(1.0), tf.constant(2.0))
concrete = y_and_gradients.get_concrete_function(tf.constant(1.0), tf.constant(2.0))
print(f"tf.function: y={tf2_y.numpy()}, dy/dw={tf2_dw.numpy()}, dy/dx={tf2_dx.numpy()}")
print("operations in its traced graph:", len(concrete.graph.get_operations()))

# %%
# One graph per input signature, not one graph
# --------------------------------------------
# ``tf.function`` keeps one graph per *input signature*: the dtype and shape of each tensor
# argument, and the value of each plain Python argument. The Python body runs only while
# tracing, so a Python counter inside it counts the traces. Two calls with float32 scalars share
# one graph: ``traces: 1``. A float64 scalar is a new signature (``traces: 2``), and so is a
# float32 vector (``traces: 3``). A Python number is part of the signature by *value*: ``k=2.0``
# and ``k=3.0`` trace again, a second ``k=2.0`` reuses its graph (``traces: 5``). Pass numbers
# that change as tensors.
traces = []


@tf.function
def scaled(x, k):
    traces.append(k)  # plain Python: runs while tracing only
    return x * k


scaled(tf.constant(1.0), tf.constant(2.0))
scaled(tf.constant(3.0), tf.constant(4.0))  # new values, same signature
print("traces:", len(traces))
assert len(traces) == 1
scaled(tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64))  # new dtype
print("traces:", len(traces))
assert len(traces) == 2
scaled(tf.constant([1.0, 2.0]), tf.constant(2.0))  # new shape
print("traces:", len(traces))
assert len(traces) == 3
for k in (2.0, 3.0, 2.0):  # Python numbers: one trace per new value
    scaled(tf.constant(1.0), k)
print("traces:", len(traces))
assert len(traces) == scaled.experimental_get_tracing_count() == 5

# %%
# They agree
# ----------
# The same numbers from all three; this assertion runs on every build of the site.
sidebyside.assert_close(tf_y, torch_y, what="y (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf_dw, torch_dw, what="dy/dw (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf_dx, torch_dx, what="dy/dx (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf2_y, torch_y, what="y (tf.function vs PyTorch)")
sidebyside.assert_close(tf2_dw, torch_dw, what="dy/dw (tf.function vs PyTorch)")
sidebyside.assert_close(tf2_dx, torch_dx, what="dy/dx (tf.function vs PyTorch)")
assert (torch_y.item(), torch_dw.item(), torch_dx.item()) == (6.0, 5.0, 2.0)
sidebyside.parity_report()

# %%
# The graphs they built
# ---------------------
# Left, every operation in the TensorFlow graph: the forward ops (``w``, ``x``, ``a``, ``b``,
# ``y`` and the constant ``1.0``) and the gradient ops that ``tf.compat.v1.gradients`` added.
# Right, the backward graph PyTorch recorded while computing ``y``, read from ``y.grad_fn``: one
# node per operation, and in grey the ``AccumulateGrad`` nodes that write the leaves' ``.grad``
# (``w`` and ``x``). In both pictures the *nodes are operations* and the *edges* say which
# result feeds which operation: tensors flow along them in TensorFlow, gradients flow back along
# them in PyTorch.
fig, (ax_tf, ax_torch) = plt.subplots(1, 2, figsize=(12, 5))
sidebyside.draw_tf_graph(graph, ax_tf)
sidebyside.draw_autograd_graph(y, ax_torch, names={"w": w, "x": x})
fig.tight_layout()
plt.show()

# %%
# What to take away
# -----------------
# * A TensorFlow 1 graph is a program built ahead of time: placeholders are filled in at
#   ``Session.run``, and the same graph serves every input.
# * PyTorch computes as it goes and records a fresh graph on every call, so ordinary Python
#   decides what the graph looks like.
# * Modern TensorFlow gets its graphs from ``tf.function``, which traces Python into a graph
#   once per input signature: a new dtype, shape or Python value means a new trace.
# * A graph built ahead of time is an object you can keep: :ref:`save it and run it without
#   the Python that made it <sphx_glr_auto_examples_35_payoffs_plot_10_save_and_load.py>`,
#   :ref:`hand it to a compiler <sphx_glr_auto_examples_35_payoffs_plot_30_compile.py>`, or
#   :ref:`trade memory for compute in its backward pass
#   <sphx_glr_auto_examples_35_payoffs_plot_20_checkpoint_and_custom_gradient.py>`.
#
# References: ``tf.compat.v1.placeholder``, ``tf.compat.v1.Session``, ``tf.compat.v1.gradients``,
# ``tf.function``, ``tf.GradientTape``, ``torch.Tensor.backward``, ``torch.Tensor.grad_fn``.
