"""
What autograd keeps in memory
=============================

To compute a gradient later, a framework has to keep some results of the forward pass until then:
that is why training needs more memory than inference. For a small two-layer network we list
the :term:`saved tensors`, the tensors kept for the backward pass, and how many bytes they take,
watch them being released after the gradient, and see what each framework does when a saved
value is changed in place. :ref:`The next page <sphx_glr_auto_examples_10_graphs_plot_27_recording_off.py>`
switches recording off, takes a gradient of a gradient, and cuts the graph.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import operator

import sidebyside
from sidebyside import show_error
from sidebyside.graphs import TF_COLOR, TORCH_COLOR

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# The network
# -----------
# A batch ``x`` of shape ``(64, 32)`` goes through a two-layer network,
# ``z1 = x @ W1 + b1``, ``h = relu(z1)``, ``out = h @ W2 + b2``, and the loss is the mean of
# ``out**2``. We want the gradients for ``W1``, ``b1``, ``W2`` and ``b2``; ``x`` is data and needs
# none. Both frameworks start from the same NumPy arrays; ``tf_network()`` and
# ``torch_network()`` turn them into fresh tensors, so that each section starts clean.
rng = np.random.default_rng(0)
shapes = dict(x=(64, 32), W1=(32, 64), b1=64, W2=(64, 10), b2=10)
scales = dict(x=1.0, W1=0.2, b1=0.1, W2=0.2, b2=0.1)
arrays = {n: scales[n] * rng.standard_normal(shape, dtype=np.float32) for n, shape in shapes.items()}


def tf_network():  # x as a constant, the weights and biases as variables
    x, *weights = arrays.values()
    with tf.device(tf_device):
        return [tf.constant(x), *map(tf.Variable, weights)]


def torch_network():  # x as a tensor, the weights and biases requiring grad
    x, *weights = (torch.tensor(a, device=torch_device) for a in arrays.values())
    return [x, *(w.requires_grad_() for w in weights)]


def nbytes(shape):  # of a float32 tensor
    return int(np.prod(shape)) * 4

# %%
# What is saved for backward
# --------------------------
# The chain rule tells us what the backward pass will read: the gradient of ``out**2`` needs
# ``out``, the gradient for ``W2`` needs ``h``, the gradient flowing back into ``h`` needs ``W2``,
# ``relu`` needs to know where ``h`` was positive, and the gradient for ``W1`` needs ``x``. The
# additions and the mean need only shapes.
#
# In PyTorch, ``torch.autograd.graph.saved_tensors_hooks`` calls a *pack* hook every time an
# operation saves a tensor for backward; whatever the hook returns is what the graph keeps.
#
# A TensorFlow 2 training step usually runs as a ``tf.function``: the tape inside it is
# :term:`traced <tracing>` once, and ``tape.gradient`` adds the gradient operations to the same
# graph as ordinary operations (their names start with ``gradient_tape/``). Their inputs are
# edges of the graph, so we can list the *forward* tensors they read: those have to stay in
# memory until the gradient has run. A value read from a variable appears as a
# ``ReadVariableOp``; the graph's ``captures`` say which variable it reads.

# %%
# **TensorFlow (tf.function)**: the forward tensors the gradient operations read.
x, W1, b1, W2, b2 = tf_network()
weights = dict(W1=W1, b1=b1, W2=W2, b2=b2)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        z1 = tf.add(x @ W1, b1, name="z1")  # names: for lists
        h = tf.nn.relu(z1, name="h")
        out = tf.add(h @ W2, b2, name="out")
        loss = tf.reduce_mean(tf.square(out))
    return tape.gradient(loss, list(weights.values()))


graph = train_step.get_concrete_function(x).graph
grad_ops = [op for op in graph.get_operations()
            if op.name.startswith("gradient_tape/")]
variable_of = {id(inside): name  # graph input -> variable
               for outside, inside in graph.captures
               for name, w in weights.items()
               if outside is w.handle}


def tensor_name(t):  # a variable's value: a ReadVariableOp
    if t.op.type == "ReadVariableOp":
        return variable_of[id(t.op.inputs[0])]
    return t.op.name


read = {tensor_name(t): t for op in grad_ops for t in op.inputs
        if t.op not in grad_ops and t.op.type != "Const"}
function_bytes = {n: nbytes(t.shape) for n, t in read.items()}
print("read by the gradient:", sorted(read))
print("bytes:", sum(function_bytes.values()))
function_grads = train_step(x)

# %%
# **PyTorch (eager)**: a pack hook sees every tensor saved.
x, W1, b1, W2, b2 = torch_network()
saved = []  # every tensor an operation saves for backward


def pack(tensor):
    saved.append(tensor)
    return tensor  # the graph keeps what pack returns


hooks = torch.autograd.graph.saved_tensors_hooks
with hooks(pack, lambda t: t):
    z1 = x @ W1 + b1
    h = torch.relu(z1)
    out = h @ W2 + b2
    loss = torch.square(out).mean()

ours = dict(x=x, W1=W1, W2=W2, z1=z1, h=h, out=out)
names = {t.data_ptr(): name for name, t in ours.items()}
# which of ours each saved tensor is: the same memory
saved_names = [names[t.data_ptr()] for t in saved]
torch_bytes = {n: nbytes(t.shape)
               for n, t in zip(saved_names, saved, strict=True)}
print("saved for backward:", saved_names)
print(f"{len(torch_bytes)} distinct, bytes:",
      sum(torch_bytes.values()))
saved.clear()  # let go of our own references
loss.backward()
torch_grads = [W1.grad, b1.grad, W2.grad, b2.grad]

# %%
# PyTorch saved the tensors the chain rule names; the traced gradient reads the same four, the
# same bytes. ``h`` appears twice (saved by ``relu`` and by the second matrix product), but it is
# the same memory: saving does not copy. Neither keeps ``W1``, needed only for a gradient with
# respect to ``x``, which nobody asked for, nor ``z1``: ``relu``'s gradient is computed from its
# *output* ``h``. An eager tape keeps more ("Going deeper" below).
#
# ``x`` and ``W2`` exist anyway as input and parameter; what recording costs on top is the
# *activations*, here ``h`` and ``out``. They have one row per example of the batch, so this
# cost grows with the batch size, and with every layer that saves something.

# %%
# Changing a saved tensor in place
# --------------------------------
# PyTorch saves tensors without copying them, so an in-place operation after the forward pass
# could change a value the backward pass relies on. Every tensor carries a *version counter* that
# in-place operations increase; each saved tensor remembers the version it had when it was saved,
# and the backward pass refuses to use one that changed. In-place changes to tensors that were
# *not* saved are fine. TensorFlow tensors are immutable, so the question does not arise for
# them; a ``tf.Variable`` changed after the forward pass is in "Going deeper" below.

# %%
# **TensorFlow (tf.GradientTape)**: tensors can't change; variables can.
x, W1, b1, W2, b2 = tf_network()
h = tf.nn.relu(x @ W1 + b1)
# h[0, 0] = 0.0, as a call:
show_error(TypeError, operator.setitem, h, (0, 0), 0.0)

# %%
# **PyTorch (eager)**: the version counter catches it at ``backward()``.
x, W1, b1, W2, b2 = torch_network()
z1 = x @ W1 + b1
h = torch.relu(z1)
loss = torch.square(h @ W2 + b2).mean()
z1.add_(1.0)  # z1 was not saved
loss.backward(retain_graph=True)
print("after z1.add_(1.0), backward() works")
h.mul_(2.0)  # h was saved by relu and by h @ W2
show_error(RuntimeError, loss.backward, cut=" Hint:")

# %%
# Going deeper: more on saved tensors
# -----------------------------------
#
# Why the eager tape keeps more
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A :term:`gradient tape` (``tf.GradientTape``) holds ordinary Python references to the tensors
# its gradient functions will need. No public API lists them (the byte counter
# ``get_memory_info`` is documented for GPUs and TPUs only), but a ``weakref`` tells whether
# anyone still holds a tensor: we run the network inside the tape, return its results from a
# function so that no Python name holds them, and ask which are still alive. This sees only
# tensors we have a handle on: not, for example, the values the tape read from the variables.
import weakref

from sidebyside.capture import SavedTensorCounter, backward_nodes


def forward(x):  # TensorFlow's forward pass; names: for graphs
    xw = tf.matmul(x, W1, name="xw")
    z1 = tf.add(xw, b1, name="z1")
    h = tf.nn.relu(z1, name="h")
    hw = tf.matmul(h, W2, name="hw")
    out = tf.add(hw, b2, name="out")
    sq = tf.square(out, name="sq")
    loss = tf.reduce_mean(sq, name="loss")
    return loss, dict(xw=xw, z1=z1, h=h, hw=hw, out=out, sq=sq)


def alive(refs):
    return [n for n, ref in refs.items() if ref() is not None]


def record(x, persistent=False):
    x = tf.identity(x)  # held only here and by the tape
    with tf.GradientTape(persistent=persistent) as tape:
        loss, parts = forward(x)
    parts = {"x": x, **parts}
    kept = {name: weakref.ref(t) for name, t in parts.items()}
    return tape, loss, kept  # only the tape holds parts now


x, W1, b1, W2, b2 = tf_network()
eager_tape, loss, kept = record(x)
tape_kept = alive(kept)
tape_bytes = {n: nbytes(kept[n]().shape) for n in tape_kept}
print("kept by the tape:", tape_kept)
print("their bytes:", sum(tape_bytes.values()))
assert set(tape_kept) > {"h", "out"}  # more than the traced gradient reads

# %%
# The gradient of ``xw + b1`` sums over the batch for ``b1`` (to undo broadcasting), and that of
# the mean divides by the element count: both need shapes, which TensorFlow's gradient functions
# read from the operation's inputs. In the traced graph the shapes are known when the gradient is
# built, so they become constants, and nothing of ``xw``, ``hw`` or ``sq`` is read. The eager
# tape keeps, before anyone asks for a gradient, what the operation's *type* may need.
shapes = [op for op in grad_ops if "Shape" in op.name]
print("shape ops of the traced gradient:", [op.name.split("/", 1)[1] for op in shapes])
print("their types:", sorted({op.type for op in shapes}))

# %%
# A ``tf.function`` can also be *called* under an eager tape. Then TensorFlow splits its gradient
# into a forward and a backward function; the forward one returns, besides its result, the
# tensors the backward one reads: the traced gradient's set, not the eager tape's (plus the value
# read from ``W1``, as that backward function is built for every input, ``x`` included).
#
# PyTorch's hooks can also move what is saved: ``torch.autograd.graph.save_on_cpu()`` is a pack
# and unpack pair that copies each saved tensor to the CPU and back, freeing GPU memory between
# the passes; :ref:`checkpointing <sphx_glr_auto_examples_35_payoffs_plot_20_checkpoint_and_custom_gradient.py>`
# keeps fewer activations and computes them again.

# %%
# Kept until the gradient, then released
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The :ref:`autograd page <sphx_glr_auto_examples_10_graphs_plot_20_autograd.py>` showed that
# asking for the gradient twice is an error in both frameworks; here is what is behind it. In
# PyTorch, this site's ``SavedTensorCounter`` packs each saved tensor in a small box and keeps
# only a weak reference to it: a box is alive exactly as long as the graph holds it, and
# ``held()`` counts them. ``backward_nodes`` lists the backward nodes behind ``loss.grad_fn``.

# %%
# **TensorFlow (tf.GradientTape)**: ``gradient()`` releases them.
x, W1, b1, W2, b2 = tf_network()
tape, loss, kept = record(x)
print("kept before gradient():", alive(kept))
tape_grads = tape.gradient(loss, [W1, b1, W2, b2])
print("after gradient():", alive(kept))
tape_released = alive(kept) == []

show_error(RuntimeError, tape.gradient, loss, W1)

# %%
# **PyTorch (eager)**: a box per saved tensor, freed by ``backward()``.
x, W1, b1, W2, b2 = torch_network()
counter = SavedTensorCounter()
boxed = hooks(counter.pack, counter.unpack)


def forward_boxed(x):
    with boxed:
        loss = torch.square(torch.relu(x @ W1 + b1) @ W2 + b2)
        return loss.mean()


loss = forward_boxed(x)
nodes_before, held_before = backward_nodes(loss), counter.held()
print(f"saved tensors held: {held_before},",
      f"nodes: {len(nodes_before)}")
autograd_grads = torch.autograd.grad(loss, [W1, b1, W2, b2])
nodes_after, held_after = backward_nodes(loss), counter.held()
print(f"after backward:     {held_after},",
      f"nodes: {len(nodes_after)}")

show_error(RuntimeError, loss.backward, cut=" Saved")
assert tape_released and held_before > 0 and held_after == 0
assert len(nodes_after) == len(nodes_before)  # the nodes stay

# %%
# After the gradient, both have let go of what they saved, and a second request fails, while
# PyTorch's backward nodes are still there (the node count does not change): it is the freed
# saved tensors that make the second ``backward()`` fail. ``persistent=True`` and
# ``retain_graph=True`` keep them, and their memory, for another call (below).

# %%
# Keeping them for another call
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A persistent tape keeps its record until it is deleted; ``retain_graph=True`` keeps the saved
# tensors through one more ``backward()``. And a PyTorch graph that saved nothing, such as the
# one of ``y = w + 1``, survives ``backward()`` intact: a second call works, and ``.grad`` adds
# up. A non-persistent tape refuses a second call whatever it holds.

# %%
# **TensorFlow (tf.GradientTape)**: ``persistent=True``.
x, W1, b1, W2, b2 = tf_network()
tape, loss, kept = record(x, persistent=True)
tape.gradient(loss, [W1, b1])
tape.gradient(loss, [W2, b2])
print("persistent, after two gradient():")
print(" ", alive(kept))
del tape  # a persistent tape holds its record until then
print("after del tape:", alive(kept))

# %%
# **PyTorch (eager)**: ``retain_graph=True``, and a graph that saved nothing.
x, W1, b1, W2, b2 = torch_network()
loss = forward_boxed(x)
loss.backward(retain_graph=True)
print("held after backward(retain_graph=True):", counter.held())
loss.backward()
print("held after a plain backward():", counter.held())

counter.clear()
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
with boxed:
    y = w + 1
y.backward()
y.backward()  # nothing was saved, so nothing was freed
print(f"y = w + 1 saved {counter.saved()} tensors; after two"
      f" backward(): w.grad = {w.grad.item()}")

# %%
# The same question in a TensorFlow 1 graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tf.compat.v1.gradients`` adds the gradient operations for *every* input of the matrix
# products, the one for ``x`` included; ``Session.run`` then runs only the operations that the
# fetched gradients depend on. Walking back from the four gradients lists what is read.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x, W1, b1, W2, b2 = inputs = [  # named x, W1, ...
        tf.compat.v1.placeholder(tf.float32, a.shape, name=n)
        for n, a in arrays.items()]
    loss, _ = forward(x)  # the same function, on placeholders
    forward_ops = set(graph.get_operations())
    grads = tf.compat.v1.gradients(loss, [W1, b1, W2, b2])


def ops_run_for(fetches):  # what Session.run executes
    todo, needed = [t.op for t in fetches], set()
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo += [t.op for t in op.inputs] + op.control_inputs
    return needed


run = ops_run_for(grads) - forward_ops
skipped = set(graph.get_operations()) - forward_ops - run
graph_read = sorted({t.op.name for op in run for t in op.inputs
                     if t.op in forward_ops and t.op.type != "Const"})
skipped_read = sorted({t.op.name for op in skipped for t in op.inputs
                       if t.op in forward_ops} - set(graph_read))
print("read by the gradient ops Session.run runs:", graph_read)
print("read only by gradient ops it skips:", skipped_read)
with tf.compat.v1.Session(graph=graph) as session:
    feed = dict(zip(inputs, arrays.values(), strict=True))
    graph_grads = session.run(grads, feed_dict=feed)
assert graph_read == sorted(torch_bytes) and skipped_read == ["W1"]

# %%
# Which operation the error names
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's in-place error above said ``h`` "is output 0 of Mul": the matrix product saved ``h``
# as an *input*, and the message names whatever last wrote to ``h``, here ``mul_``. A tensor
# saved as an operation's *output* is named after that operation. With ``W2`` detached, only
# ``relu`` saves ``h`` (as its output), and the same write is reported against ``Relu``.
x, W1, b1, W2, b2 = torch_network()
h = torch.relu(x @ W1 + b1)
loss = torch.square(h @ W2.detach() + b2).mean()
h.mul_(2.0)
show_error(RuntimeError, loss.backward, cut=" Hint:")

# %%
# A variable changed after the forward pass
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# TensorFlow's only mutable state is a ``tf.Variable``: we change one after the forward pass and
# see which value the tape's gradient uses, and do the same to PyTorch's ``W2``.

# %%
# **TensorFlow (tf.GradientTape)**: a variable assigned after the forward pass.
x, W1, b1, W2, b2 = tf_network()
h = tf.nn.relu(x @ W1 + b1)
with tf.GradientTape() as tape:
    tape.watch(h)
    loss = tf.reduce_mean(tf.square(h @ W2 + b2))
W2.assign(5.0 * W2)  # after the forward pass
tf_dloss_dh = tape.gradient(loss, h)  # with W2 as it was read
with tf.GradientTape() as tape:
    tape.watch(h)
    loss = tf.reduce_mean(tf.square(h @ W2 + b2))
changed = not np.allclose(tape.gradient(loss, h), tf_dloss_dh)
print("gradient with the new W2 differs:", changed)

# %%
# **PyTorch (eager)**: a parameter changed after the forward pass.
x, W1, b1, W2, b2 = torch_network()
h = torch.relu(x @ W1 + b1)
loss = torch.square(h @ W2 + b2).mean()
torch_dloss_dh = torch.autograd.grad(loss, h,
                                     retain_graph=True)[0]
with torch.no_grad():
    W2.mul_(5.0)  # after the forward pass
show_error(RuntimeError, lambda: torch.autograd.grad(loss, h),
           cut=" Hint:")

# %%
# Opposite answers to the same mistake. TensorFlow's tape silently uses the ``W2`` it read during
# the forward pass, and the gradient is the one of the function that was actually computed (the
# "They agree" section checks it against PyTorch's gradient taken *before* the change). PyTorch
# refuses: its saved ``W2`` *is* the parameter, which has changed.

# %%
# The bytes, drawn
# ----------------
# What each one keeps for the backward pass of this network, tensor by tensor: the eager tape
# (what the weak references found, in "Going deeper" above), the traced gradient, and PyTorch's
# saved tensors. Solid parts are activations, the cost of recording; hatched parts (``x`` and
# ``W2``) are there anyway.
rows = {"TensorFlow\neager tape": (tape_bytes, TF_COLOR),
        "TensorFlow\ntf.function": (function_bytes, TF_COLOR),
        "PyTorch": (torch_bytes, TORCH_COLOR)}
order = ["x", "W2", "h", "out", "xw", "hw", "sq"]
fig, ax = plt.subplots(figsize=(8, 2.8), layout="tight")
for row, (parts, color) in enumerate(rows.values()):
    left = 0
    for name in sorted(parts, key=order.index):
        size, anyway = parts[name], name in ("x", "W2")
        ax.barh(row, size, left=left, color=color, edgecolor="white",
                hatch="//" if anyway else None, alpha=0.45 if anyway else 1.0)
        ax.text(left + size / 2, row, name, ha="center", va="center",
                fontsize=10 if size > 4000 else 7)
        left += size
ax.set(yticks=range(len(rows)), yticklabels=list(rows), xlabel="bytes kept until the gradient",
       title="Saved for the backward pass")
ax.invert_yaxis()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# They agree
# ----------
# The same gradients from TensorFlow's traced step, its TF1 graph, its tape and PyTorch, and
# the same saved tensors; then the lessons above, as assertions that run on every build.
check = sidebyside.assert_close
params = ["W1", "b1", "W2", "b2"]
pairs = [("tf.function", function_grads, torch_grads),
         ("TF1 graph", graph_grads, torch_grads),
         ("tape vs autograd.grad", tape_grads, autograd_grads)]
for how, tf_gs, torch_gs in pairs:
    for name, tf_g, torch_g in zip(params, tf_gs, torch_gs, strict=True):
        check(tf_g, torch_g, what=f"dloss/d{name} ({how})")
check(tf_dloss_dh, torch_dloss_dh, what="dloss/dh (tape after assign vs grad before)")
assert sorted(torch_bytes) == ["W2", "h", "out", "x"]
assert function_bytes == torch_bytes  # the same tensors, the same bytes
assert changed  # TF's tape used the W2 it had read
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Training costs memory because the backward pass needs results of the forward pass: mostly
#   activations, kept (without copying) until the gradient has been computed.
#   ``saved_tensors_hooks`` shows exactly what PyTorch saves; in a traced TensorFlow step, the
#   inputs of the gradient operations show it.
# * A traced gradient and PyTorch keep only what the requested gradients read: no ``W1`` when
#   ``x`` needs no gradient, and ``relu``'s output rather than its input. TensorFlow's eager tape
#   keeps more, whole inputs whose shapes are all its gradients need.
# * The saved tensors are released after the gradient. A second ``backward()`` fails because they
#   are gone, not because the graph is; ``retain_graph=True`` / ``persistent=True`` keep them,
#   and their memory, for another call.
# * Don't change a saved tensor in place: PyTorch's version counter turns that into an error at
#   ``backward()``. TensorFlow tensors can't change; a variable assigned after the forward pass
#   leaves the tape's gradient as it was.
#
# Next, :ref:`switching recording off <sphx_glr_auto_examples_10_graphs_plot_27_recording_off.py>`:
# ``no_grad``, ``inference_mode`` and ``eval()``, gradients of gradients, and ``detach()``; to keep
# fewer activations, :ref:`checkpointing <sphx_glr_auto_examples_35_payoffs_plot_20_checkpoint_and_custom_gradient.py>`.
#
# References: ``torch.autograd.graph.saved_tensors_hooks``, ``torch.autograd.graph.save_on_cpu``,
# ``torch.Tensor.backward`` (``retain_graph``), ``torch.autograd.grad``, ``tf.function``,
# ``tf.GradientTape`` (``persistent``, ``watch``), ``tf.compat.v1.gradients``,
# ``tf.compat.v1.Session``, ``tf.Variable.assign``, ``tf.config.experimental.get_memory_info``.
