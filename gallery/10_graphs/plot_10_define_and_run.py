"""
Define-and-run vs define-by-run
===============================

TensorFlow's classic style *defines* a :term:`computation graph` first and *runs* it later, as
often as you like (:term:`define-and-run`); PyTorch *defines it by running* ordinary Python,
recording the graph while the arithmetic happens, anew on every call (:term:`define-by-run`). A
computation graph records which operations turn which inputs into which outputs; a framework runs
it, and walks it backwards to compute gradients.

Both compute the same function, ``y = (w + x) * (w + 1)``, at ``w = 1, x = 2``, and its gradients
``dy/dw = (w + 1) + (w + x) = 5`` and ``dy/dx = w + 1 = 2``. Then we draw the computation graph
each framework really built, straight from its objects. The function and its numbers come from one
of the source posts credited on :ref:`sources`.
"""

# %%
# How to read these pages
# -----------------------
# * **Two panes, one idea.** Each idea runs twice: TensorFlow in the left pane, PyTorch in the
#   right (one above the other on a phone). Under the code is what it printed when this page was
#   built. Code and outputs are the same in the English and the Chinese edition.
# * **Checks.** The pages run on every build of the site. Lines with ``assert`` or
#   ``sidebyside.assert_close`` check what the text claims (the two frameworks give the same
#   numbers; a count is what the text says), and a failed check stops the build. Most sit near
#   a lesson's end, under "They agree", where ``sidebyside.parity_report()`` counts them.
# * **Helpers.** ``sidebyside`` is this site's small package for setting up, drawing and
#   checking. ``start_lesson`` seeds every random generator and starts the page's count of
#   checks; ``torch_device`` and ``tf_device`` pick a GPU when there is one (and make both
#   frameworks compute in full float32 there); ``draw_tf_graph`` and ``draw_autograd_graph``
#   draw a graph from the framework's own objects; ``provenance`` shows the folded box "What
#   ran this page": the machine and the versions behind the outputs.
# * **Going deeper.** A section whose title starts with "Going deeper" is optional and folded:
#   open it when curious, skip it to stay on the lesson.

# %%
# Setup
# -----
# Both frameworks, the helpers, and one seed for everything.
import sidebyside

import matplotlib.pyplot as plt
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Build once, run many times / run to build
# -----------------------------------------
# TensorFlow 1 style (still available as ``tf.compat.v1``): a :term:`placeholder` is an empty
# slot. Nothing is computed while the graph is built; a :term:`session` feeds numbers in and
# pulls results out with ``Session.run``. The same graph serves every input.
# ``tf.compat.v1.gradients`` adds the backward operations to the graph, again without computing
# anything.
#
# PyTorch: every line computes immediately. ``requires_grad=True`` asks autograd to record the
# operations as they happen, so ``backward()`` can walk the record in reverse.

# %%
# **TensorFlow (graph)**: define, then run.
graph = tf.Graph()
with graph.as_default():  # build: nothing runs yet
    w = tf.compat.v1.placeholder(tf.float32, shape=(), name="w")
    x = tf.compat.v1.placeholder(tf.float32, shape=(), name="x")
    a = tf.add(w, x, name="a")
    b = tf.add(w, 1.0, name="b")
    y = tf.multiply(a, b, name="y")
    dy_dw, dy_dx = tf.compat.v1.gradients(y, [w, x])
print("after building:")
print(y)  # a symbolic tensor: no value yet

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
print("after computing:")
# already a number, and the operation that made it
print(f"y={y.item()}, grad_fn={type(y.grad_fn).__name__}")

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
# The graphs they built
# ---------------------
# Top, every operation in the TensorFlow graph: the forward ones (``w``, ``x``, ``a``, ``b``,
# ``y`` and the constant ``1.0``) and the gradient operations that ``tf.compat.v1.gradients``
# added. Bottom, the graph PyTorch recorded while computing ``y``, read from ``y.grad_fn``: one
# node per operation, and in grey the ``AccumulateGrad`` nodes that write the leaves' ``.grad``
# (``w`` and ``x``). In both pictures the *nodes are operations* and the *arrows* say which
# result feeds which operation: tensors flow along them in TensorFlow, and PyTorch's
# ``backward()`` walks them in reverse.
fig, (ax_tf, ax_torch) = plt.subplots(
    2, 1, figsize=(6, 4.6), height_ratios=(5, 3)
)
sidebyside.draw_tf_graph(graph, ax_tf)
sidebyside.draw_autograd_graph(y, ax_torch, names={"w": w, "x": x})
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# TensorFlow 2: a graph from a Python function
# --------------------------------------------
# Modern TensorFlow runs eagerly, like PyTorch, outside the ``with graph.as_default()`` blocks
# used above (the first line printed below says so). ``tf.function`` turns a Python function
# into a graph: it runs the function once to *trace* it (:term:`tracing`: the operations are
# recorded, not computed) and runs that graph on later calls. ``tf.GradientTape`` (a
# :term:`gradient tape`) records the operations for the gradient.
print("TensorFlow executes eagerly:", tf.executing_eagerly())


@tf.function
def y_and_gradients(w, x):
    with tf.GradientTape() as tape:
        tape.watch([w, x])
        y = (w + x) * (w + 1.0)
    return y, tape.gradient(y, [w, x])


tf2_y, (tf2_dw, tf2_dx) = y_and_gradients(tf.constant(1.0), tf.constant(2.0))
print(f"tf.function: y={tf2_y.numpy()}, dy/dw={tf2_dw.numpy()}, dy/dx={tf2_dx.numpy()}")

# %%
# ``tf.function`` keeps one graph per :term:`input signature`: the dtype and shape of each tensor
# argument, and the value of each plain Python argument. The Python body runs only while
# tracing, so a Python list inside it counts the traces. Watch the count: new values of the same
# kind reuse the graph; a new shape traces again, and so does each new Python number. Pass
# numbers that change as tensors (the page
# :ref:`When is a graph rebuilt? <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>` goes
# further).
traces = []


@tf.function
def scaled(x, k):
    traces.append(k)  # plain Python: runs while tracing only
    return x * k


scaled(tf.constant(1.0), tf.constant(2.0))
scaled(tf.constant(3.0), tf.constant(4.0))  # new values, same signature
print("two float32 scalars:  traces =", len(traces))
scaled(tf.constant([1.0, 2.0]), tf.constant(2.0))  # new shape
print("then a vector:        traces =", len(traces))
for k in (2.0, 3.0, 2.0):  # Python numbers: one trace per new value
    scaled(tf.constant(1.0), k)
print("then k=2.0, 3.0, 2.0: traces =", len(traces))

# %%
# Going deeper: a TensorFlow 1 graph can still grow
# -------------------------------------------------
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
print("after finalize():")
with growing.as_default():
    sidebyside.show_error(RuntimeError, tf.add, doubled, 2.0, indent="  ")

# %%
# They agree
# ----------
# The same numbers from all three, and the counts the text promised.
sidebyside.assert_close(tf_y, torch_y, what="y (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf_dw, torch_dw, what="dy/dw (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf_dx, torch_dx, what="dy/dx (TF1 graph vs PyTorch)")
sidebyside.assert_close(tf2_y, torch_y, what="y (tf.function vs PyTorch)")
sidebyside.assert_close(tf2_dw, torch_dw, what="dy/dw (tf.function vs PyTorch)")
sidebyside.assert_close(tf2_dx, torch_dx, what="dy/dx (tf.function vs PyTorch)")
assert (torch_y.item(), torch_dw.item(), torch_dx.item()) == (6.0, 5.0, 2.0)
# one trace for both float32 scalars, one for the vector, one per new Python number
assert len(traces) == scaled.experimental_get_tracing_count() == 4
assert traces[2:] == [2.0, 3.0]
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A computation graph records which operations turn which inputs into which outputs.
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
