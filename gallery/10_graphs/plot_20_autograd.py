"""
Autograd and the graph it records
=================================

What exactly does a framework keep when it computes a gradient? We take the small function
``y = (w + x) * (w + 1)`` at ``w = 1, x = 2`` and look inside: which tensors are *leaves*, which
operation made each of the others, how to get the gradient of an intermediate result, and what
happens when you ask a recorded graph for gradients twice.

The example, its leaves, ``grad_fn`` and ``retain_grad`` come from one of the source posts
credited on :ref:`sources`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import sidebyside
from sidebyside import show_error

import matplotlib.pyplot as plt
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Forward, backward, and where each tensor came from
# --------------------------------------------------
# In both pictures of a computation graph the *nodes are operations* (add, multiply) and the
# *edges carry tensors* from one operation to the next. Here ``a = w + x`` and ``b = w + 1`` are
# intermediate results and ``y = a * b``. By the chain rule ``dy/dw = b + a = 5`` and
# ``dy/dx = b = 2``.
#
# Every tensor remembers the operation that produced it. In a TensorFlow graph that is
# ``tensor.op``: placeholders have no inputs, they are where the graph starts. In PyTorch, a
# tensor computed (with recording on) from something that requires a gradient points, through
# ``grad_fn``, to the backward function of the operation that made it. Every other tensor is a
# *leaf* (``is_leaf``, a :term:`leaf tensor`) and has no ``grad_fn``: the tensors you created
# with ``requires_grad=True``, like ``w`` and ``x``, and every tensor that does not require a
# gradient at all.

# %%
# **TensorFlow (graph)**: build the graph, add the gradient operations, run; then each
# tensor's ``op.type`` and the operation's inputs.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    w = tf.compat.v1.placeholder(tf.float32, shape=(), name="w")
    x = tf.compat.v1.placeholder(tf.float32, shape=(), name="x")
    a = tf.add(w, x, name="a")
    b = tf.add(w, tf.constant(1.0, name="one"), name="b")
    y = tf.multiply(a, b, name="y")
    dy_dw, dy_dx = tf.compat.v1.gradients(y, [w, x])
feed = {w: 1.0, x: 2.0}
with tf.compat.v1.Session(graph=graph) as session:
    tf_y, tf_dw, tf_dx = session.run([y, dy_dw, dy_dx], feed)
print(f"y = {tf_y}, dy/dw = {tf_dw}, dy/dx = {tf_dx}")
tf_tensors = {"w": w, "x": x, "a": a, "b": b, "y": y}
tf_ops = {name: t.op for name, t in tf_tensors.items()}
for name, op in tf_ops.items():
    inputs = [t.op.name for t in op.inputs]
    print(f"{name}: op.type={op.type:<12} inputs={inputs}")

# %%
# **PyTorch (eager)**: compute, ``backward()`` fills ``.grad`` of the leaves; then each
# tensor's ``is_leaf`` and ``grad_fn``.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
a = w + x
b = w + 1
y = a * b
y.backward()
torch_y, torch_dw, torch_dx = y.detach(), w.grad, x.grad
print(f"y = {torch_y.item()}, dy/dw = {torch_dw.item()},",
      f"dy/dx = {torch_dx.item()}")
torch_tensors = {"w": w, "x": x, "a": a, "b": b, "y": y}
for name, tensor in torch_tensors.items():
    leaf, fn = tensor.is_leaf, tensor.grad_fn
    kind = type(fn).__name__ if fn is not None else None
    print(f"{name}: is_leaf={leaf!s:<5} grad_fn={kind}")

# %%
# Drawn, top, the record PyTorch kept for ``y``, read from ``y.grad_fn`` (it is still there after
# ``backward()``): one backward function per operation, and an ``AccumulateGrad`` node (grey)
# that writes each leaf's ``.grad``. Bottom, the TensorFlow graph: the forward operations
# (``w``, ``x``, ``one``, ``a``, ``b``, ``y``) plus the gradient operations that
# ``tf.compat.v1.gradients`` added to it.
fig, (ax_torch, ax_tf) = plt.subplots(2, 1, figsize=(6, 4.6), height_ratios=(3, 5))
sidebyside.draw_autograd_graph(y, ax_torch, names={"w": w, "x": x})
sidebyside.draw_tf_graph(graph, ax_tf)
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# Gradients of intermediate results
# ---------------------------------
# TensorFlow differentiates with respect to any tensor you name, intermediate ones included. A
# ``tf.GradientTape`` (a :term:`gradient tape`) records the operations run inside its block and
# returns the gradients you ask for; ``tape.watch`` is its version of ``requires_grad=True`` (a
# trainable ``tf.Variable`` is watched without it). PyTorch's ``backward()`` stores gradients only
# in the leaves' ``.grad``: the gradients of ``a``, ``b`` and ``y`` pass through and are dropped,
# which saves memory. ``a.retain_grad()`` before ``backward()`` asks PyTorch to keep the one for
# ``a``. (``dy/da = b = 2``.)

# %%
# **TensorFlow (tf.GradientTape)**: the tape returns ``dy/dw``, ``dy/dx`` and ``dy/da``.
w = tf.constant(1.0)
x = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch([w, x])
    a = w + x
    b = w + 1.0
    y = a * b
tape_dw, tape_dx, tape_da = tape.gradient(y, [w, x, a])
print(f"dy/dw = {tape_dw.numpy()}, dy/dx = {tape_dx.numpy()},",
      f"dy/da = {tape_da.numpy()}")

# %%
# **PyTorch (eager)**: of the intermediate results, only ``a``, which retains its gradient,
# gets a ``.grad``.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
a = w + x
a.retain_grad()
b = w + 1
y = a * b
y.backward()
print("a.retains_grad:", a.retains_grad,
      " a.grad:", a.grad.item())
print("b.retains_grad:", b.retains_grad)
torch_da = a.grad

# %%
# PyTorch can also *return* gradients, as the tape does: ``torch.autograd.grad`` stores nothing in
# ``.grad``. And a hook, ``register_hook``, calls a function with the gradient as it flows
# backwards through ``a``; here it keeps a copy.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
a = w + x
y = a * (w + 1)
seen = []
a.register_hook(lambda grad: seen.append(grad.detach().clone()))
grad_dw, grad_dx, grad_da = torch.autograd.grad(y, [w, x, a])
print(f"autograd.grad: dy/dw = {grad_dw.item()}, dy/dx = {grad_dx.item()}, dy/da = {grad_da.item()}")
stored = w.grad  # nothing was stored
print("w.grad:", stored, "   the hook saw dy/da =", seen[0].item())

# %%
# Asking twice
# ------------
# To save memory, a ``tf.GradientTape`` lets go of its record after the first ``gradient`` call.
# PyTorch's ``backward()`` frees the :term:`saved tensors`: the values that the backward
# functions kept from the forward pass (``MulBackward0`` keeps ``a`` and ``b``, it needs them for
# ``dy/dw``). The graph itself stays: after ``backward()``, ``y.grad_fn`` is still there, but a
# second ``backward()`` through it finds the saved values gone and raises. ``persistent=True``
# (TensorFlow) and ``retain_graph=True`` (PyTorch) keep what is needed for another question.

# %%
# **TensorFlow (tf.GradientTape)**: a second ``gradient`` call needs a persistent tape.
w = tf.constant(1.0)
x = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch(w)
    y = (w + x) * (w + 1.0)
tape.gradient(y, w)
print("second call:")
show_error(RuntimeError, tape.gradient, y, w,
           indent="  ", cut=" (")

with tf.GradientTape(persistent=True) as tape:
    tape.watch(w)
    y = (w + x) * (w + 1.0)
first = tape.gradient(y, w).numpy()
second = tape.gradient(y, w).numpy()
print("persistent tape:", first, "then", second)
del tape  # a persistent tape holds its record until then

# %%
# **PyTorch (eager)**: the graph survives ``backward()``, its saved tensors do not.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, device=torch_device)
y = (w + x) * (w + 1)
y.backward()
node = y.grad_fn  # still there after backward()
print("y.grad_fn:", type(node).__name__)
print("second call:")
show_error(RuntimeError, y.backward, indent="  ", cut=" (")

w.grad = None
y = (w + x) * (w + 1)
y.backward(retain_graph=True)  # keep the saved tensors
first = w.grad.item()
y.backward()  # adds to w.grad
second = w.grad.item() - first
print("retain_graph=True:", first, "then", second)

# %%
# Going deeper: more on leaves, hooks and the record
# --------------------------------------------------
#
# Leaves you did not make, and what a tape watches
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A tensor with ``requires_grad=False`` is a leaf wherever it came from: a constant, the result
# of arithmetic on constants, a ``detach()``-ed copy, or anything computed under
# ``torch.no_grad()``. Autograd records nothing about them, so they have no ``grad_fn``.
c = torch.tensor(3.0, device=torch_device)
with torch.no_grad():
    w_doubled = w * 2
more_leaves = {
    "c (a constant)": c,
    "c * 2": c * 2,
    "(w + x).detach()": (w + x).detach(),
    "w * 2 under no_grad": w_doubled,
}
for name, tensor in more_leaves.items():
    print(f"{name:20} is_leaf={tensor.is_leaf} requires_grad={tensor.requires_grad}")
assert all(t.is_leaf and t.grad_fn is None and not t.requires_grad for t in more_leaves.values())

# %%
# Reading the ``.grad`` of a tensor that is not a leaf, and does not retain its gradient, gives
# ``None`` and a warning: it is most likely a mistake.
import warnings

b = w + 1  # not a leaf, and retain_grad() was not called
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", UserWarning)
    b_grad = b.grad  # reading it warns: likely a bug
print("b.grad:", b_grad)
first_sentence = str(caught[0].message).split(". ")[0]
print(sidebyside.wrap(f"UserWarning: {first_sentence}"))
assert b_grad is None and issubclass(caught[0].category, UserWarning)  # dropped, and it warns

# %%
# A tape watches a trainable ``tf.Variable`` by itself; an unwatched constant it does not (its
# gradient comes back as ``None``).
w_variable, w_constant = tf.Variable(1.0), tf.constant(1.0)
with tf.GradientTape() as tape:
    y = w_variable * w_constant
watched = tape.gradient(y, [w_variable, w_constant])
print("dy/dw_variable =", watched[0].numpy(), " dy/dw_constant =", watched[1])
assert watched[0].numpy() == 1.0 and watched[1] is None

# %%
# Older PyTorch code wraps tensors in ``torch.autograd.Variable``. Since PyTorch 0.4 a plain tensor
# created with ``requires_grad=True`` does the same job; ``Variable`` survives only so that old
# code still runs, and what it returns is a plain tensor.
legacy = torch.autograd.Variable(torch.ones(1))
print("Variable(...) returns a", type(legacy).__name__)
assert type(legacy) is torch.Tensor

# %%
# A hook that changes the gradient, and a graph that saved nothing
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A hook that returns a tensor replaces the gradient flowing through. Here it replaces ``dy/da``
# by zero, so ``dy/dw = b + a`` keeps only the share that flows through ``b``, which is ``a``.
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
a = w + x
y = a * (w + 1)
a.register_hook(lambda grad: torch.zeros_like(grad))  # dy/da -> 0
(dw_without_a,) = torch.autograd.grad(y, w)
print("with dy/da replaced by 0, dy/dw =", dw_without_a.item())
assert dw_without_a.item() == 3.0

# %%
# A second ``backward()`` fails only because saved tensors were freed. An addition saves none
# (its gradient does not depend on its inputs' values), so a graph of one addition can be walked
# twice, and ``.grad`` adds up both calls.
w.grad = None
total = w + x  # AddBackward0 saves no tensors
total.backward()
total.backward()  # nothing was freed: no error
print("an addition, backward() twice: w.grad =", w.grad.item())
assert w.grad.item() == 2.0  # 1 from each call

# %%
# Walking the record by hand
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each node of PyTorch's record lists the nodes that made its inputs in ``next_functions``
# (pairs of a node and which of its outputs was used; ``None`` for an input that needs no
# gradient). Following them from ``y.grad_fn`` visits the whole record, the way ``backward()``
# does and the way the drawings on these pages are made. Later pages call this walk
# ``sidebyside.capture.backward_nodes``.
def backward_nodes(output):
    """Every node of the record behind ``output``, found by walking ``grad_fn``."""
    found, todo = [], [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None:
            found.append(node)
            todo.extend(fn for fn, _ in node.next_functions)
    return found


w = torch.tensor(1.0, requires_grad=True, device=torch_device)
x = torch.tensor(2.0, requires_grad=True, device=torch_device)
y = (w + x) * (w + 1)
parents = [type(fn).__name__ for fn, _ in y.grad_fn.next_functions]
print("y.grad_fn:", type(y.grad_fn).__name__, "<-", parents)
walked = [type(node).__name__ for node in backward_nodes(y)]
print(sidebyside.wrap(f"the whole record: {walked}", hang="  "))
from sidebyside.capture import backward_nodes as package_walk

assert walked == [type(node).__name__ for node in package_walk(y)]
assert sorted(walked) == sorted(["MulBackward0", "AddBackward0", "AddBackward0"]
                                + ["AccumulateGrad"] * 3)

# %%
# They agree
# ----------
# The same numbers from the graph, the tape and PyTorch, and what the text said about each.
pairs = {
    "y (TF1 graph vs PyTorch)": (tf_y, torch_y),
    "dy/dw (TF1 graph vs PyTorch backward)": (tf_dw, torch_dw),
    "dy/dx (TF1 graph vs PyTorch backward)": (tf_dx, torch_dx),
    "dy/da (GradientTape vs PyTorch retain_grad)": (tape_da, torch_da),
    "dy/dw (GradientTape vs autograd.grad)": (tape_dw, grad_dw),
    "dy/dx (GradientTape vs autograd.grad)": (tape_dx, grad_dx),
    "dy/da (GradientTape vs autograd.grad)": (tape_da, grad_da),
    "dy/da (GradientTape vs PyTorch hook)": (tape_da, seen[0]),
}
for what, (tf_value, torch_value) in pairs.items():
    sidebyside.assert_close(tf_value, torch_value, what=what)
assert (torch_dw.item(), torch_dx.item(), torch_da.item()) == (5.0, 2.0, 2.0)
assert [op.type for op in tf_ops.values()] == ["Placeholder"] * 2 + ["AddV2"] * 2 + ["Mul"]
assert [t.is_leaf for t in torch_tensors.values()] == [True, True, False, False, False]
assert [t.grad_fn is None for t in torch_tensors.values()] == [True, True, False, False, False]
assert stored is None and len(seen) == 1
assert type(node).__name__ == "MulBackward0" and first == second == 5.0  # asking twice
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Nodes are operations, edges carry tensors. ``tensor.op`` (TensorFlow) and ``tensor.grad_fn``
#   (PyTorch) name the operation behind each tensor; PyTorch's leaves have no ``grad_fn``.
# * ``backward()`` keeps gradients only for leaves. For an intermediate tensor use
#   ``retain_grad()``, ``torch.autograd.grad`` or a hook; TensorFlow differentiates with respect
#   to any tensor you name.
# * A recorded graph answers one gradient question by default: a tape forgets its record, and
#   ``backward()`` frees the saved tensors (the graph's nodes stay). ``persistent=True`` and
#   ``retain_graph=True`` keep them for more.
# * Leaves are the tensors without a ``grad_fn``: those you created with ``requires_grad=True``,
#   and every tensor that requires no gradient.
#
# References: ``tf.compat.v1.gradients``, ``tf.GradientTape``, ``tf.GradientTape.watch``,
# ``torch.Tensor.backward``, ``torch.Tensor.is_leaf``, ``torch.Tensor.grad_fn``,
# ``torch.Tensor.retain_grad``, ``torch.Tensor.register_hook``, ``torch.autograd.grad``.
