"""
Switching recording off, and recording the backward pass
========================================================

:ref:`What autograd keeps in memory <sphx_glr_auto_examples_10_graphs_plot_25_autograd_memory.py>`
counted the :term:`saved tensors` that recording keeps for the backward pass. This page switches
recording off in the ways both frameworks offer and tells those switches apart from
``model.eval()`` and ``training=False``, whose defaults are mirror images in the two frameworks;
then it records the backward pass itself to take a gradient of a gradient, and cuts the graph at
one value with ``tf.stop_gradient`` and ``detach()``.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import contextlib

import sidebyside
from sidebyside import show_error
from sidebyside.capture import SavedTensorCounter

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Both frameworks get the same batch ``x`` of shape ``(64, 32)``. As on the previous page,
# ``counter`` counts the tensors that PyTorch saves for backward (its ``pack`` hook runs whenever
# one is saved), and ``held()`` says how many of them the graph still holds.
rng = np.random.default_rng(0)
x_np = rng.standard_normal((64, 32), dtype=np.float32)
hooks = torch.autograd.graph.saved_tensors_hooks
counter = SavedTensorCounter()  # the previous page's boxes
pack, unpack, held = counter.pack, counter.unpack, counter.held


# %%
# Switching recording off
# -----------------------
# Three different switches in PyTorch, often mixed up:
#
# * ``model.eval()`` changes what some layers *compute*: dropout does nothing and batch
#   normalisation uses its running statistics instead of the batch's. It does not stop autograd
#   from recording. ``model.train()`` switches back.
# * ``torch.no_grad()`` stops recording: outputs have no :term:`grad_fn` and nothing is saved.
# * ``torch.inference_mode()`` stops recording too, and also skips bookkeeping that autograd
#   would need later (the version counter that catches in-place changes). The tensors it
#   creates are *inference tensors*: outside the mode, they may be read by recorded operations,
#   but not saved for backward.
#
# TensorFlow has the first switch as the ``training`` argument of Keras layers. For the others it
# needs none: nothing is recorded unless a :term:`gradient tape` is active, a tape records only
# what runs inside its block, and ``tape.stop_recording()`` pauses it.
#
# The *defaults* of the first switch are mirror images, a classic bug when porting: a Keras model
# called without ``training=`` computes as in inference (``fit`` passes ``training=True``
# itself), while a new ``nn.Module`` is in training mode until ``eval()``. Both models here are
# the same stack of layers, each with its own random initial weights: we compare behaviours, not
# numbers. "Same output twice" shows whether dropout is active.

# %%
# **TensorFlow (tf.GradientTape)**: ``training=`` vs recording.
layers = tf.keras.layers
with tf.device(tf_device):
    x = tf.constant(x_np)
    model = tf.keras.Sequential([
        tf.keras.Input((32,)), layers.Dense(64),
        layers.BatchNormalization(), layers.ReLU(),
        layers.Dropout(0.5), layers.Dense(10),
    ])


def n_grads(tape, loss):
    grads = tape.gradient(loss, model.trainable_variables)
    return f"{sum(g is not None for g in grads)}/{len(grads)}"


calls = {"model(x)": {}, "training=True": {"training": True},
         "training=False": {"training": False}}  # keywords
tf_same = {}
for name, kwargs in calls.items():
    with tf.GradientTape() as tape:
        out = model(x, **kwargs)
        loss = tf.reduce_mean(tf.square(out))
    tf_same[name] = np.allclose(out, model(x, **kwargs))
    print(f"{name:<15} gradients {n_grads(tape, loss)},",
          f"same output twice: {tf_same[name]}")

out = model(x, training=False)  # no tape is recording
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(out))
print("forward before the tape: gradients", n_grads(tape, loss))

# %%
# **PyTorch (eager)**: ``eval()`` vs ``no_grad`` vs ``inference_mode``.
x = torch.tensor(x_np, device=torch_device)
model = torch.nn.Sequential(
    torch.nn.Linear(32, 64), torch.nn.BatchNorm1d(64),
    torch.nn.ReLU(), torch.nn.Dropout(0.5),
    torch.nn.Linear(64, 10),
).to(torch_device)
modes = {  # how the model is set, what wraps the call
    "as built": (lambda: None, contextlib.nullcontext),
    "eval()": (model.eval, contextlib.nullcontext),
    "no_grad": (model.eval, torch.no_grad),
    "inference_mode": (model.eval, torch.inference_mode),
}
print("mode            training grad_fn         saved same")
n_saved, torch_same = {}, {}
for mode, (set_mode, switch) in modes.items():
    set_mode()
    counter.clear()
    with switch():
        with hooks(pack, unpack):
            out = model(x)
        torch_same[mode] = torch.equal(out, model(x))
    n_saved[mode] = held()
    fn = type(out.grad_fn).__name__ if out.grad_fn else None
    print(f"{mode:<15} {model.training!s:<8} {fn!s:<15}",
          f"{n_saved[mode]:>5} {torch_same[mode]}")

# %%
# ``eval()`` and ``training=False`` change what the layers compute and still record: gradients
# exist and tensors are saved. ``no_grad`` and ``inference_mode`` in PyTorch, and running outside
# a tape (or inside ``stop_recording()``) in TensorFlow, save nothing. For evaluation you usually
# want both switches: ``model.eval()`` *and* ``torch.no_grad()`` or ``torch.inference_mode()``.

# %%
# Gradients of gradients
# ----------------------
# A gradient is itself computed by operations, so it can be differentiated again, if those
# operations were recorded. In a TensorFlow graph they usually are: ``tf.compat.v1.gradients``
# adds ordinary operations to the graph, which can be differentiated like any others (a few
# gradients refuse a second derivative on purpose). In PyTorch the backward pass is recorded
# only with ``create_graph=True``, and then the backward pass itself saves tensors for the next
# one. We take ``y = x**3`` at ``x = 3``, so ``dy/dx = 3x²`` and ``d²y/dx² = 6x``.

# %%
# **TensorFlow (tf.GradientTape)**: an outer tape records the inner tape's gradient.
x = tf.constant(3.0)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = x**3
    dy_dx = inner.gradient(y, x)  # recorded by outer
d2y_dx2 = outer.gradient(dy_dx, x)
print(f"dy/dx = {dy_dx.numpy()}, d2y/dx2 = {d2y_dx2.numpy()}")
tape_dy, tape_d2y = dy_dx, d2y_dx2

# %%
# **PyTorch (eager)**: ``create_graph=True`` records the backward pass.
counter.clear()
x = torch.tensor(3.0, requires_grad=True, device=torch_device)
with hooks(pack, unpack):
    y = x**3
    saved_by_forward = counter.saved()
    (dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
    saved_by_backward = counter.saved() - saved_by_forward
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print(f"dy/dx = {dy_dx.item()}, d2y/dx2 = {d2y_dx2.item()},",
      "dy/dx.grad_fn:", type(dy_dx.grad_fn).__name__)
print(f"saved by the forward pass: {saved_by_forward},"
      f" by the backward pass: {saved_by_backward}")
torch_dy, torch_d2y = dy_dx, d2y_dx2

# %%
# Cutting the graph: ``tf.stop_gradient`` and ``detach()``
# --------------------------------------------------------
# Both treat a value as a constant for differentiation. With ``y = x² · stop(x)`` the gradient is
# ``2x · x`` instead of ``3x²``; at ``x = 3`` it is the same number as the second derivative
# above. ``tf.stop_gradient`` is an operation of its own (``StopGradient`` in a graph);
# ``detach()`` returns a new tensor that shares memory with the original, no copy. It also shares
# the version counter, so changing the detached tensor in place trips the check that
# :ref:`the previous page <sphx_glr_auto_examples_10_graphs_plot_25_autograd_memory.py>` showed.

# %%
# **TensorFlow (tf.function)**: ``StopGradient`` is an op in the graph.
@tf.function
def cut(x):
    return x**2 * tf.stop_gradient(x)


x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = cut(x)
tf_cut_dy_dx = tape.gradient(y, x)
print("dy/dx =", tf_cut_dy_dx.numpy())
cut_graph = cut.get_concrete_function(x).graph
op_types = [op.type for op in cut_graph.get_operations()]
print("ops:", ", ".join(op_types))

# %%
# **PyTorch (eager)**: ``detach()`` shares memory and the version counter.
x = torch.tensor(3.0, requires_grad=True, device=torch_device)
y = x**2 * x.detach()
(torch_cut_dy_dx,) = torch.autograd.grad(y, x)
print("dy/dx =", torch_cut_dy_dx.item())

x_const = x.detach()
print("same memory:", x_const.data_ptr() == x.data_ptr())
y = x**2 * x_const
x_const.add_(1.0)  # also changes x
print("x after x_const.add_(1.0):", x.item())
show_error(RuntimeError, y.backward, cut=" Hint:")

# %%
# Left, the graph ``tf.function`` traced for ``cut``: the ``StopGradient`` operation sits on one
# of the two paths from ``x`` to the product, and the gradient stops there. Right, the record
# PyTorch kept for ``x**2 * x.detach()``: the detached path is not in it at all, because
# ``x.detach()`` is a :term:`leaf <leaf tensor>` that requires no gradient, so there is nothing to
# walk back along.
x = torch.tensor(3.0, requires_grad=True, device=torch_device)
y = x**2 * x.detach()
fig, (ax_tf, ax_torch) = plt.subplots(1, 2, figsize=(9, 2.8), layout="tight")
sidebyside.draw_tf_graph(cut_graph, ax_tf, title="TensorFlow: cut's graph")
sidebyside.draw_autograd_graph(y, ax_torch, names={"x": x})
plt.show()
# %%
# Going deeper: more on recording
# -------------------------------
#
# What an inference tensor refuses
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# An inference tensor can still feed a recorded operation: ``out + b2`` needs nothing saved for
# its gradient, and ``b2`` gets one. ``out * b2`` would have to save ``out`` (the gradient of
# ``b2`` is ``out`` times the incoming gradient), and that is refused. A tensor made under
# ``no_grad`` has no such limits.
b2_np = 0.1 * rng.standard_normal(10, dtype=np.float32)
b2 = torch.tensor(b2_np, requires_grad=True, device=torch_device)
x = torch.tensor(x_np, device=torch_device)
with torch.inference_mode():
    out = model(x)
print("out.is_inference():", out.is_inference())
(out + b2).sum().backward()  # add saves neither input
print("(out + b2).sum().backward(): b2.grad[:3] =",
      b2.grad[:3].tolist())
show_error(RuntimeError, lambda: (out * b2).sum(),  # saves out
           cut=" Please")

with torch.no_grad():
    out = model(x)
(out * b2).sum().backward()  # fine: a normal tensor
print("no_grad output, (out * b2).sum().backward(): works")

# %%
# Outside inference mode an inference tensor also refuses in-place changes: it has no version
# counter, so autograd could not tell that it changed. ``clone()`` (outside the mode) gives a
# normal tensor with neither limit. Besides the switches above, ``torch.set_grad_enabled(False)``
# is ``no_grad`` as a function call, and an operation none of whose inputs requires a gradient
# records and saves nothing; ``tf.GradientTape(watch_accessed_variables=False)`` records only
# what ``watch`` names.
with torch.inference_mode():
    out = torch.ones(3, device=torch_device)
show_error(RuntimeError, out.add_, 1.0, cut="You can")
normal = out.clone()
print("out.clone().is_inference():", normal.is_inference())
normal.add_(1.0)  # fine

# %%
# ``tape.stop_recording()`` pauses a tape: what runs inside it is not recorded, so here the
# gradient sees only the ``+ w``.
w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    with tape.stop_recording():
        w_squared = w * w  # not recorded
    y = w_squared + w
paused_dy_dw = tape.gradient(y, w).numpy()
print("inside stop_recording(): dy/dw =", paused_dy_dw)
assert paused_dy_dw == 1.0  # 2 * w, the w * w part, was not recorded

# %%
# Freezing batch normalisation
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Fine-tuning often freezes a pretrained batch-normalisation layer, and the two frameworks read
# "frozen" differently. In Keras, ``trainable = False`` on a ``BatchNormalization`` layer also puts
# it in inference mode: it normalises with its moving statistics and stops updating them, even
# when called with ``training=True`` (as ``fit`` calls it). In PyTorch, ``requires_grad_(False)``
# only stops gradients for the layer's weights; in training mode the layer still normalises with
# the batch's statistics and updates ``running_mean``. Freezing it there also takes ``eval()``
# on that layer, after every ``model.train()``.

# %%
# **TensorFlow (Keras)**: ``trainable = False`` means inference mode.
with tf.device(tf_device):
    x = tf.constant(x_np)
    bn = layers.BatchNormalization()
    bn.build(x.shape)
    bn.trainable = False
    y = bn(x, training=True)
    tf_bn_inference = np.allclose(y, bn(x, training=False))
print("trainable=False, training=True: same as inference:",
      tf_bn_inference)
print("moving mean still at its start:",
      not np.any(bn.moving_mean.numpy()))

# %%
# **PyTorch (eager)**: ``requires_grad_(False)`` keeps training mode.
x = torch.tensor(x_np, device=torch_device)
bn = torch.nn.BatchNorm1d(32).to(torch_device)
bn.requires_grad_(False)
y = bn(x)
print("bn.training:", bn.training)
torch_bn_batch = bool(y.mean(0).abs().max() < 1e-5)
print("normalised with the batch's mean:", torch_bn_batch)
print("running_mean updated:", bool(bn.running_mean.any()))
bn.eval()
before = bn.running_mean.clone()
bn(x)
print("after bn.eval(), running_mean kept:",
      torch.equal(before, bn.running_mean))
assert tf_bn_inference and torch_bn_batch  # "frozen" BN differs

# %%
# Second derivatives in a TensorFlow 1 graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# **TensorFlow (graph)**: differentiate the gradient operations.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(tf.float32, (), name="x")
    y = x**3
    (dy_dx,) = tf.compat.v1.gradients(y, x)
    (d2y_dx2,) = tf.compat.v1.gradients(dy_dx, x)
with tf.compat.v1.Session(graph=graph) as session:
    graph_dy, graph_d2y = session.run(
        [dy_dx, d2y_dx2], feed_dict={x: 3.0}
    )
print(f"dy/dx = {graph_dy}, d2y/dx2 = {graph_d2y}")

# %%
# When the backward pass is not recorded
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

# %%
# **TensorFlow (tf.GradientTape)**: a gradient taken outside the tape's block.
x = tf.constant(3.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x**3
dy_dx = tape.gradient(y, x)  # outside the block: not recorded
print("d(dy/dx)/dx without an outer tape:",
      tape.gradient(dy_dx, x))
del tape

# %%
# **PyTorch (eager)**: without ``create_graph`` the gradient is a constant.
x = torch.tensor(3.0, requires_grad=True, device=torch_device)
y = x**3
(dy_dx,) = torch.autograd.grad(y, x)
print("dy/dx.grad_fn:", dy_dx.grad_fn)
show_error(RuntimeError, lambda: torch.autograd.grad(dy_dx, x),
           cut=" Hint:")

# %%
# When the gradient computation was not recorded, TensorFlow answers ``None`` (the tape never saw
# ``dy_dx`` being computed) and PyTorch raises, because the gradient has no ``grad_fn``. Recording
# the backward pass costs memory, as the saved-tensor count of the backward pass shows: ask for it
# only when you need a second derivative.

# %%
# They agree
# ----------
# The same first and second derivatives from TensorFlow's graph, its tapes and PyTorch, and the
# same cut gradient; then the lessons above, as assertions that run on every build.
check = sidebyside.assert_close
check(graph_dy, torch_dy, what="dy/dx of x**3 (TF1 graph vs create_graph)")
check(graph_d2y, torch_d2y, what="d2y/dx2 (TF1 graph vs create_graph)")
check(tape_dy, torch_dy, what="dy/dx of x**3 (nested tapes vs create_graph)")
check(tape_d2y, torch_d2y, what="d2y/dx2 (nested tapes vs create_graph)")
check(tf_cut_dy_dx, torch_cut_dy_dx, what="dy/dx (stop_gradient vs detach)")
assert torch_d2y.item() == 18.0 and torch_cut_dy_dx.item() == 18.0
assert tf_same["model(x)"] and not tf_same["training=True"]  # defaults: Keras infers,
assert not torch_same["as built"] and torch_same["eval()"]  # a new nn.Module trains
# eval() still records; no_grad and inference_mode save nothing
assert n_saved["eval()"] > 0 and n_saved["no_grad"] == n_saved["inference_mode"] == 0
assert saved_by_backward > 0  # create_graph: backward saves too
assert "StopGradient" in op_types
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``model.eval()`` / ``training=False`` change what layers compute, not whether they are
#   recorded. Stop recording with ``torch.no_grad()``, or ``torch.inference_mode()``, or by
#   running outside a tape.
# * The defaults are mirror images: a Keras model called without ``training=`` computes as in
#   inference, a new ``nn.Module`` is in training mode. Call ``eval()`` before evaluating in
#   PyTorch; pass ``training=True`` in a hand-written Keras training step.
# * Inference tensors can feed recorded operations that save nothing of them, but cannot be
#   saved for backward or changed in place outside the mode; ``clone()`` makes a normal tensor.
# * ``create_graph=True`` (PyTorch) and an outer tape (TensorFlow) record the backward pass so that
#   it can be differentiated again; in PyTorch that record saved tensors of its own.
# * ``tf.stop_gradient`` and ``detach()`` make a value a constant for differentiation.
#   ``detach()`` shares both the memory and the version counter, so an in-place change to the
#   detached tensor is caught at ``backward()``.
#
# References: ``torch.autograd.graph.saved_tensors_hooks``, ``torch.autograd.grad``
# (``create_graph``), ``torch.no_grad``, ``torch.inference_mode``, ``torch.Tensor.is_inference``,
# ``torch.nn.Module.eval``, ``torch.nn.BatchNorm1d``, ``torch.Tensor.detach``,
# ``tf.compat.v1.gradients``, ``tf.compat.v1.Session``, ``tf.GradientTape`` (``watch``,
# ``stop_recording``), ``tf.function``, ``tf.stop_gradient``, ``tf.keras.layers.Dropout`` and
# ``tf.keras.layers.BatchNormalization`` (``training``, ``trainable``).

# sphinx_gallery_thumbnail_number = 1
