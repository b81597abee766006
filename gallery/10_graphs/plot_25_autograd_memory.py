"""
What autograd keeps in memory
=============================

To compute a gradient later, a framework has to keep some results of the forward pass until then:
that is why training needs more memory than inference. For a small two-layer network we list
which tensors are saved for the backward pass and how many bytes they take, watch them being
released after the gradient, and see what each framework does when a saved value is changed in
place. :ref:`The next page <sphx_glr_auto_examples_10_graphs_plot_27_recording_off.py>` switches
recording off, takes a gradient of a gradient, and cuts the graph.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import weakref

import sidebyside
from sidebyside import show_error
from sidebyside.device import tf_onednn_enabled

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
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
x_np = rng.standard_normal((64, 32), dtype=np.float32)
W1_np = 0.2 * rng.standard_normal((32, 64), dtype=np.float32)
b1_np = 0.1 * rng.standard_normal(64, dtype=np.float32)
W2_np = 0.2 * rng.standard_normal((64, 10), dtype=np.float32)
b2_np = 0.1 * rng.standard_normal(10, dtype=np.float32)


def tf_network():
    """TensorFlow: ``x`` as a constant, the weights and biases as variables."""
    with tf.device(tf_device):
        weights = [tf.Variable(a) for a in (W1_np, b1_np, W2_np, b2_np)]
        return [tf.constant(x_np), *weights]


def torch_network():
    """PyTorch: ``x`` as a tensor, the weights and biases requiring grad."""
    weights = [
        torch.tensor(a, device=torch_device, requires_grad=True)
        for a in (W1_np, b1_np, W2_np, b2_np)
    ]
    return [torch.tensor(x_np, device=torch_device), *weights]


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
# A ``tf.GradientTape`` keeps the tensors its gradient functions will need by holding ordinary
# Python references to them. TensorFlow has no public API that lists them, and its memory
# counter, ``tf.config.experimental.get_memory_info``, counts an allocator's bytes, not tensors.
# On a CPU it depends on the machine: where TensorFlow's oneDNN CPU ops are on (the provenance box
# says whether), the CPU allocator keeps statistics and it returns them; where they are off, it
# raises ``ValueError`` (last lines of the pane). But a ``weakref`` can tell whether anyone still holds a
# tensor. We run the network inside the tape, return its intermediate results from a function so
# that no Python name holds them, and ask which are still alive. This sees only tensors we have a
# handle on: not, for example, the values the tape read from the variables.

# %%
# **TensorFlow (tf.GradientTape)**: weak references see what the tape holds.
x, W1, b1, W2, b2 = tf_network()


def forward(x):
    xw = x @ W1
    z1 = xw + b1
    h = tf.nn.relu(z1)
    hw = h @ W2
    out = hw + b2
    sq = tf.square(out)
    loss = tf.reduce_mean(sq)
    return loss, dict(xw=xw, z1=z1, h=h, hw=hw, out=out, sq=sq)


def alive(refs):
    return [n for n, ref in refs.items() if ref() is not None]


def record(x, persistent=False):
    with tf.GradientTape(persistent=persistent) as tape:
        loss, parts = forward(x)
    kept = {name: weakref.ref(t) for name, t in parts.items()}
    return tape, loss, kept  # only the tape holds parts now


tape, loss, kept = record(x)
tape_kept = alive(kept)
print("kept by the tape:", tape_kept)
tape_bytes = sum(ref().shape.num_elements() * ref().dtype.size
                 for ref in kept.values() if ref() is not None)
print("their bytes:", tape_bytes)
assert tape_kept == ["xw", "h", "hw", "out", "sq"]

memory_info = tf.config.experimental.get_memory_info
if tf_onednn_enabled():  # oneDNN's allocator keeps statistics
    stats = memory_info("CPU:0")
    print("On this machine (oneDNN on):")
    print("  CPU allocator statistics:", sorted(stats))
    assert min(stats.values()) >= 0
else:
    print("On this machine (oneDNN off):")
    show_error(ValueError, memory_info, "CPU:0", indent="  ")

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

names = dict(x=x, W1=W1, b1=b1, W2=W2, b2=b2, z1=z1, h=h,
             out=out)


def name_of(tensor):
    """Which of our tensors this is: same memory, same shape."""
    return next(
        name for name, t in names.items()
        if t.data_ptr() == tensor.data_ptr()
        and t.shape == tensor.shape
    )


for t in saved:
    nbytes = t.numel() * t.element_size()
    shape = tuple(t.shape)
    print(f"saved for backward: {name_of(t):<3} {shape}",
          f"{nbytes:>6} bytes")
torch_saved = {name_of(t): t for t in saved}
torch_bytes = {
    name: t.numel() * t.element_size()
    for name, t in torch_saved.items()
}
print(f"pack calls: {len(saved)}, distinct: {len(torch_bytes)}",
      f"tensors, {sum(torch_bytes.values())} bytes")
torch_activations = {
    name: nbytes for name, nbytes in torch_bytes.items()
    if torch_saved[name].grad_fn is not None  # not a leaf
}
print("activations:", sorted(torch_activations),
      sum(torch_activations.values()), "bytes")
saved.clear()  # let go of our own references
loss.backward()
torch_grads = [W1.grad, b1.grad, W2.grad, b2.grad]
assert sorted(torch_saved) == ["W2", "h", "out", "x"]
assert sum(torch_bytes.values()) == 29696

# %%
# PyTorch saved the tensors the chain rule names. The eager tape kept five of our six results,
# ``xw``, ``hw`` and ``sq`` among them: what does TensorFlow's gradient itself read?
#
# Aside: what a TF1 graph's gradient reads
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# In a TensorFlow graph nothing is hidden: ``tf.compat.v1.gradients`` adds the gradient operations
# to the graph, and their inputs are ordinary edges. ``Session.run`` runs only the operations that
# the fetched tensors depend on, so we walk back from the four gradients and list the *forward*
# tensors that the gradient operations read: those have to stay in memory until the gradient has
# run.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    ph = tf.compat.v1.placeholder
    x = ph(tf.float32, (64, 32), name="x")
    W1 = ph(tf.float32, (32, 64), name="W1")
    b1 = ph(tf.float32, (64,), name="b1")
    W2 = ph(tf.float32, (64, 10), name="W2")
    b2 = ph(tf.float32, (10,), name="b2")
    z1 = tf.add(x @ W1, b1, name="z1")
    h = tf.nn.relu(z1, name="h")
    out = tf.add(h @ W2, b2, name="out")
    loss = tf.reduce_mean(tf.square(out), name="loss")
    forward_ops = set(graph.get_operations())
    grads = tf.compat.v1.gradients(loss, [W1, b1, W2, b2])


def ops_run_for(fetches):
    """The operations Session.run executes for these fetches."""
    todo, needed = [t.op for t in fetches], set()
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo += [t.op for t in op.inputs]
            todo += op.control_inputs
    return needed


backward_ops = ops_run_for(grads) - forward_ops
read = {t for op in backward_ops for t in op.inputs}
tf_saved = {t.op.name: t for t in read if t.op in forward_ops}
tf_bytes = {
    name: t.shape.num_elements() * t.dtype.size
    for name, t in tf_saved.items()
}
for name, t in sorted(tf_saved.items()):
    print(f"read by backward: {name:<3} {t.shape}",
          f"{tf_bytes[name]:>6} bytes")
print(f"read by backward: {len(tf_bytes)} tensors,",
      f"{sum(tf_bytes.values())} bytes")
tf_activations = {
    name: nbytes for name, nbytes in tf_bytes.items()
    if tf_saved[name].op.type != "Placeholder"
}
print("activations:", sorted(tf_activations),
      sum(tf_activations.values()), "bytes")
all_ops = set(graph.get_operations())
skipped_ops = all_ops - forward_ops - backward_ops
skipped_reads = {
    t.op.name for op in skipped_ops for t in op.inputs
    if t.op in forward_ops and t.op.name not in tf_saved
}
print("read only by gradient ops Session.run skips:",
      sorted(skipped_reads))

feed = {x: x_np, W1: W1_np, b1: b1_np, W2: W2_np, b2: b2_np}
with tf.compat.v1.Session(graph=graph) as session:
    graph_grads = session.run(grads, feed_dict=feed)
assert sorted(tf_saved) == ["W2", "h", "out", "x"]
assert skipped_reads == {"W1"}

# %%
# The same tensors in the graph and in PyTorch. Neither keeps ``W1``: it would only be needed for a
# gradient with respect to ``x``, which nobody asked for (TensorFlow's graph contains that gradient
# operation, but ``Session.run`` never runs it; PyTorch does not even save ``W1``). Neither keeps
# ``z1`` either: ``relu``'s gradient is computed from its *output* ``h``. ``h`` appears twice in
# PyTorch's list (saved by ``relu`` and by the second matrix product), but both times it is the
# same memory: saving does not copy.
#
# ``x`` and ``W2`` exist anyway as input and parameter; what recording costs on top is the
# *activations*, here ``h`` and ``out``. They have one row per example of the batch, so this cost
# grows with the batch size, and with every layer that saves something.
#
# The eager tape held more than the graph's gradient reads: besides ``h`` and ``out`` it kept
# ``xw``, ``hw`` and ``sq``, the inputs of the two additions and of the mean. TensorFlow's
# registered gradients for addition and for the mean look at their inputs (for their shapes: to
# undo broadcasting, to divide by the element count). The eager tape decides what to keep per
# type of operation, so it keeps those inputs whole; the graph's gradient took the shapes from the
# graph instead, and PyTorch's addition and mean do not appear among its saved tensors at all.
# ``z1`` was kept by no one.

# %%
# Kept until the gradient, then released
# --------------------------------------
# On the PyTorch side the pack hook puts each saved tensor in a small box and keeps only a weak
# reference to the box: a box is alive exactly as long as the graph holds it. We also count the
# backward nodes that ``loss.grad_fn`` reaches.
#
# The :ref:`autograd page <sphx_glr_auto_examples_10_graphs_plot_20_autograd.py>` showed that
# asking for the gradient twice is an error in both frameworks; here we see what is behind it.
# ``persistent=True`` and ``retain_graph=True`` keep the saved tensors for another call, until the
# tape is deleted or a backward pass runs without ``retain_graph``.

# %%
# **TensorFlow (tf.GradientTape)**: ``gradient()`` releases them.
x, W1, b1, W2, b2 = tf_network()
tape, loss, kept = record(x)
print("kept before gradient():", alive(kept))
tape_grads = tape.gradient(loss, [W1, b1, W2, b2])
print("after gradient():", alive(kept))
assert alive(kept) == []

show_error(RuntimeError, lambda: tape.gradient(loss, W1))

tape, loss, kept = record(x, persistent=True)
tape.gradient(loss, [W1, b1])
tape.gradient(loss, [W2, b2])
print("persistent, after two gradient():", alive(kept))
assert alive(kept) == tape_kept
del tape  # a persistent tape holds its record until then
print("after del tape:", alive(kept))
assert alive(kept) == []

# %%
# **PyTorch (eager)**: a box per saved tensor, freed by ``backward()``.
x, W1, b1, W2, b2 = torch_network()


class Box:
    def __init__(self, tensor):
        self.tensor = tensor


boxes = []  # a weak reference to every box the graph holds


def pack(tensor):
    box = Box(tensor)
    boxes.append(weakref.ref(box))
    return box


def unpack(box):
    return box.tensor


def held():
    return sum(ref() is not None for ref in boxes)


def graph_nodes(tensor):
    """How many backward nodes tensor.grad_fn reaches."""
    todo, seen = [tensor.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [fn for fn, _ in node.next_functions]
    return len(seen)


def forward_boxed(x):
    with hooks(pack, unpack):
        loss = torch.square(torch.relu(x @ W1 + b1) @ W2 + b2)
        return loss.mean()


loss = forward_boxed(x)
nodes_before, held_before = graph_nodes(loss), held()
print(f"saved tensors held: {held_before},",
      f"nodes: {nodes_before}")
autograd_grads = torch.autograd.grad(loss, [W1, b1, W2, b2])
nodes_after, held_after = graph_nodes(loss), held()
print(f"after backward:     {held_after},",
      f"nodes: {nodes_after}")
assert held_before == 5  # as above: x, h, W2, h, out
assert held_after == 0 and nodes_after == nodes_before

show_error(RuntimeError, loss.backward, cut=" Hint:")

loss = forward_boxed(x)
loss.backward(retain_graph=True)
print("held after backward(retain_graph=True):", held())
loss.backward()
print("held after a plain backward():", held())
assert held() == 0

boxes.clear()
w = torch.tensor(1.0, requires_grad=True, device=torch_device)
with hooks(pack, unpack):
    y = w + 1
y.backward()
y.backward()  # nothing was saved, so nothing was freed
print(f"y = w + 1 saved {len(boxes)} tensors; after two"
      f" backward(): w.grad = {w.grad.item()}")

# %%
# After the gradient, both have let go of what they saved, while PyTorch's graph of backward
# nodes is still there to walk (the autograd page drew it). A second request then fails in both.
# The last PyTorch line shows what its error is really about: ``y = w + 1 saved 0 tensors``, so
# its graph survives ``backward()`` intact and a second call works (``.grad`` adds up). The error
# comes from the freed *saved tensors*, not from the graph's nodes; a non-persistent TensorFlow
# tape refuses a second call whatever it recorded.

# %%
# Changing a saved tensor in place
# --------------------------------
# PyTorch saves tensors without copying them, so an in-place operation after the forward pass
# could change a value the backward pass relies on. Every tensor carries a *version counter* that
# in-place operations increase; each saved tensor remembers the version it had when it was saved,
# and the backward pass refuses to use one that changed. The counter can be read as
# ``tensor._version``: the leading underscore marks it as private, so we print it here only to
# show the number the public error message talks about. In-place changes to tensors that were
# *not* saved are fine.
#
# TensorFlow tensors are immutable, so the question does not arise for them. The only mutable
# state is a ``tf.Variable``: we change one after the forward pass and see which value the tape's
# gradient uses.

# %%
# **TensorFlow (tf.GradientTape)**: tensors can't change; variables can.
x, W1, b1, W2, b2 = tf_network()
h = tf.nn.relu(x @ W1 + b1)

def assign(tensor):
    tensor[0, 0] = 0.0


show_error(TypeError, lambda: assign(h), cut=" Hint:")

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
assert changed

# %%
# **PyTorch (eager)**: the version counter catches it at ``backward()``.
x, W1, b1, W2, b2 = torch_network()
z1 = x @ W1 + b1
h = torch.relu(z1)
loss = torch.square(h @ W2 + b2).mean()
print("h._version:", h._version)
z1.add_(1.0)  # z1 was not saved
loss.backward(retain_graph=True)
print("after z1.add_(1.0), backward() works")
h.mul_(2.0)  # h was saved by relu and by h @ W2
print("h._version after h.mul_(2.0):", h._version)
show_error(RuntimeError, loss.backward, cut=" Hint:")
assert h._version == 1

h = torch.relu(x @ W1 + b1)
loss = torch.square(h @ W2 + b2).mean()
(torch_dloss_dh,) = torch.autograd.grad(
    loss, h, retain_graph=True
)
with torch.no_grad():
    W2.mul_(5.0)  # after the forward pass
show_error(RuntimeError, lambda: torch.autograd.grad(loss, h),
           cut=" Hint:")

# %%
# Opposite answers to the same mistake. TensorFlow's tape silently uses the ``W2`` it read during
# the forward pass, and the gradient is the one of the function that was actually computed (the
# "They agree" section checks it against PyTorch's gradient taken *before* the change). PyTorch
# refuses: its saved ``W2`` *is* the parameter, which has changed. Note which operation the first
# message names: it is the last one that wrote to ``h`` (``mul_``), not one that saved it.

# %%
# They agree
# ----------
# The same gradients from TensorFlow's graph, its tape and PyTorch, and the same list of saved
# tensors; these assertions run on every build.
check = sidebyside.assert_close
params = ["W1", "b1", "W2", "b2"]
for name, tf_g, torch_g in zip(params, graph_grads, torch_grads, strict=True):
    check(tf_g, torch_g, what=f"dloss/d{name} (TF1 graph vs backward)")
for name, tf_g, torch_g in zip(params, tape_grads, autograd_grads, strict=True):
    check(tf_g, torch_g, what=f"dloss/d{name} (tape vs autograd.grad)")
check(tf_dloss_dh, torch_dloss_dh, what="dloss/dh (tape after assign vs grad before)")
assert tf_bytes == torch_bytes  # the same four tensors, the same bytes
assert tf_activations == torch_activations  # h and out, the same bytes
assert set(tape_kept) > set(torch_activations)  # the eager tape held more
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Training costs memory because the backward pass needs results of the forward pass: mostly
#   activations, kept (without copying) until the gradient has been computed.
#   ``saved_tensors_hooks`` shows exactly what PyTorch saves; in a TensorFlow graph, the inputs of
#   the gradient operations show it. TensorFlow has no public API that lists what an eager tape
#   holds; weak references show it, and here the eager tape held more than the graph's gradient
#   reads.
# * The graph and PyTorch keep only what the requested gradients read: no ``W1`` when ``x`` needs
#   no gradient, and ``relu``'s output rather than its input.
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
# References: ``torch.autograd.graph.saved_tensors_hooks``, ``torch.Tensor.backward`` (``retain_graph``),
# ``torch.autograd.grad``, ``tf.compat.v1.gradients``, ``tf.compat.v1.Session``, ``tf.GradientTape``
# (``persistent``, ``watch``), ``tf.Variable.assign``, ``tf.config.experimental.get_memory_info``, ``weakref``.
