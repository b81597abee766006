"""
Tensors, storage and views
==========================

A PyTorch tensor is a window onto a block of memory, its *storage*: a shape, a stride
per dimension and an offset say where each element lives, and many tensors can look at
the same storage. Transposing, slicing and most reshaping make such :term:`views <view>`
without copying, and writing through a view changes every tensor that shares the storage. A
TensorFlow tensor is a value: it never changes, the only thing that does is a
``tf.Variable``, and how TensorFlow stores it is its own business. We look at strides
and views, at ``view`` against ``reshape``, at channels-last layouts, at in-place writes
and aliasing, and at which conversions to and from NumPy share memory and which copy.
Every claim about sharing is shown by writing to one side and printing the other.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. The sections
# on NumPy and on TensorFlow's buffers run on the CPU even where there is a GPU: NumPy can
# only share CPU memory.
import operator

import sidebyside
from sidebyside import show_error
from sidebyside.device import tf_onednn_enabled
from sidebyside.graphs import TORCH_COLOR

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
import torch
import torch.nn.functional as F
from matplotlib.colors import ListedColormap

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Two small helpers. ``same_storage`` compares the addresses of two PyTorch tensors'
# storages (the addresses change from run to run, so the page never prints them).
# ``set_item`` writes one element, as a call that ``sidebyside.show_error`` can make: it
# checks that the call raises and prints the error's first line.


def same_storage(a, b):
    """True if PyTorch tensors ``a`` and ``b`` share one storage."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def set_item(array, index, value):
    """``array[index] = value``, as a call."""
    array[index] = value


# %%
# Storage and strides
# -------------------
# ``torch.arange(12.0).reshape(3, 4)`` is one storage of 12 floats (48 bytes) and a
# description of how to walk it: the *stride* of a dimension is how many elements to
# skip to move one step along it. Moving down a row skips 4 elements, moving along a row
# skips 1, so element ``[i, j]`` sits at ``offset + 4 * i + 1 * j``. A TensorFlow tensor
# has a shape and a dtype but no strides or storage you can see.

# %%
# **TensorFlow (eager)**: shape and dtype, no strides.
with tf.device(tf_device):
    x = tf.reshape(tf.range(12.0), (3, 4))
print("shape:", x.shape, " dtype:", x.dtype.name)
print("has stride():", hasattr(x, "stride"),
      " has storage:", hasattr(x, "untyped_storage"))
print(x.numpy())

# %%
# **PyTorch (eager)**: a storage, walked with strides.
x = torch.arange(12.0, device=torch_device).reshape(3, 4)
print("shape:", tuple(x.shape), " stride:", x.stride())
print("storage:", x.untyped_storage().nbytes(), "bytes,",
      "offset:", x.storage_offset())
i, j = 2, 1
at = x.storage_offset() + i * x.stride(0) + j * x.stride(1)
print(f"x[{i}, {j}] is element {at} of the storage:",
      x[i, j].item())
assert x.stride() == (4, 1) and at == 9 and x[i, j] == 9.0

# %%
# Transposes and slices
# ---------------------
# In PyTorch, ``x.t()`` (short for ``x.transpose(0, 1)``) swaps the strides and
# ``x[1:, 2:]`` moves the offset: both are views of ``x``'s storage, made without
# copying a number. A transposed tensor is no longer *contiguous*: walking it row by row
# jumps back and forth in memory. Writing into a view writes into ``x``. In TensorFlow,
# ``tf.transpose`` and slicing return new tensors with the same values, and nothing can
# be written into either.

# %%
# **TensorFlow (eager)**: new tensors, the same values.
with tf.device(tf_device):
    x = tf.reshape(tf.range(12.0), (3, 4))
    t = tf.transpose(x)
    s = x[1:, 2:]
print("t:", t.shape, " s:", s.shape)
print("s =", s.numpy().tolist())
tf_t, tf_s = t, s

# %%
# **PyTorch (eager)**: views: new strides or offset, same storage.
x = torch.arange(12.0, device=torch_device).reshape(3, 4)
t = x.t()
s = x[1:, 2:]
print("t: stride", t.stride(), " contiguous", t.is_contiguous(),
      " shares x's storage", same_storage(t, x))
print("s: stride", s.stride(), " offset", s.storage_offset(),
      " shares x's storage", same_storage(s, x))
print("s =", s.tolist())
torch_t, torch_s = t.clone(), s.clone()  # keep the values
s[0, 0] = -1.0  # write into the view ...
print("after s[0, 0] = -1: x[1, 2] =", x[1, 2].item())  # ... x
assert same_storage(t, x) and same_storage(s, x)
assert t.stride() == (1, 4) and not t.is_contiguous()
assert x[1, 2] == -1.0

# %%
# One storage, three ways to walk it
# ----------------------------------
# ``x = torch.arange(12.0).reshape(3, 4)`` holds each element's own position in the storage, so
# printing a view shows which storage elements it walks, and in what order. Top: the storage.
# Below: ``x`` with strides ``(4, 1)`` and ``x.t()`` with strides ``(1, 4)``. Coloured: the
# elements of the slice ``x[1:, 2:]`` (offset 6), the same four numbers in all three.
x = torch.arange(12.0).reshape(3, 4)
window = x[1:, 2:].flatten().tolist()
colors = ListedColormap(["white", TORCH_COLOR])
fig = plt.figure(figsize=(8, 4), layout="constrained")
grid = fig.add_gridspec(2, 2, height_ratios=(1, 4))
panels = [(grid[0, :], x.reshape(1, 12), "the storage: 12 floats"),
          (grid[1, 0], x, "x: stride (4, 1)"),
          (grid[1, 1], x.t(), "x.t(): stride (1, 4)")]
for where, tensor, title in panels:
    ax = fig.add_subplot(where, aspect="equal")
    values = tensor.numpy()
    ax.pcolormesh(np.isin(values, window), cmap=colors, edgecolors="black")
    for (i, j), value in np.ndenumerate(values):
        ax.text(j + 0.5, i + 0.5, int(value), ha="center", va="center", fontsize=13)
    ax.invert_yaxis()
    ax.set_axis_off()
    ax.set_title(title)
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# view, reshape and contiguous
# ----------------------------
# ``view`` only ever makes a view: it refuses when the new shape cannot be walked with
# strides over the existing storage, as for flattening a transposed tensor. ``reshape``
# returns a view when it can and a copy when it must, so whether a write through its
# result reaches the original depends on the input's layout. ``contiguous()`` returns
# the tensor itself if it is already contiguous, else a contiguous copy. ``tf.reshape``
# has none of these cases: it works on any tensor and returns a value.

# %%
# **TensorFlow (eager)**: ``tf.reshape`` takes any tensor.
with tf.device(tf_device):
    x = tf.reshape(tf.range(12.0), (3, 4))
    flat = tf.reshape(x, (12,))
    flat_t = tf.reshape(tf.transpose(x), (12,))
print("flat:  ", flat.numpy().astype(int).tolist())
print("flat_t:", flat_t.numpy().astype(int).tolist())
tf_flat_t = flat_t

# %%
# **PyTorch (eager)**: ``view`` refuses, ``reshape`` copies.
x = torch.arange(12.0, device=torch_device).reshape(3, 4)
t = x.t()
show_error(RuntimeError, t.view, 12)
flat = x.reshape(12)  # contiguous: a view
flat_t = t.reshape(12)  # not contiguous: a copy
print("flat shares x's storage:  ", same_storage(flat, x))
print("flat_t shares x's storage:", same_storage(flat_t, x))
torch_flat_t = flat_t.clone()
flat[0], flat_t[1] = 100.0, -1.0  # x[0, 0] and x[1, 0]
print("x[0, 0] =", x[0, 0].item(), " x[1, 0] =", x[1, 0].item())
print("x.contiguous() is x:", x.contiguous() is x)
c = t.contiguous()
print("t.contiguous(): stride", c.stride(),
      " shares x's storage", same_storage(c, x))
assert same_storage(flat, x)
assert not same_storage(flat_t, x) and not same_storage(c, x)
assert x[0, 0] == 100.0 and x[1, 0] == 4.0

# %%
# Channels last is a default, not a rule
# --------------------------------------
# A batch of images has four axes: batch, channels, height, width. TensorFlow's convolutions
# read them as ``(N, H, W, C)`` unless told otherwise, and Keras's ``image_data_format()`` is
# ``"channels_last"``. ``tf.nn.conv2d`` also takes ``data_format="NCHW"``, but whether it can
# run that depends on the machine: a GPU can, and so can a CPU where TensorFlow's oneDNN ops
# are on; with them off the CPU kernel refuses. The page shows this machine's case. PyTorch's
# convolutions always take the shape ``(N, C, H, W)``; how the numbers lie in memory is a
# separate matter. ``memory_format=torch.channels_last`` keeps the shape and changes the
# strides so that the channels of one pixel sit next to each other, as in NHWC: the values are
# the same, and a convolution of it returns its result in the same format.

# %%
# **TensorFlow (eager)**: NHWC by default; NCHW where a kernel exists.
with tf.device(tf_device):
    nchw = tf.reshape(tf.range(48.0), (1, 3, 4, 4))
    nhwc = tf.transpose(nchw, (0, 2, 3, 1))
    kernel = tf.ones((3, 3, 3, 2))  # (H, W, in, out) either way
    out = tf.nn.conv2d(nhwc, kernel, 1, "VALID")
print("Keras's default:", tf.keras.config.image_data_format())
print("NHWC in", nhwc.shape, "out", out.shape)
on_cpu = tf_device == "/CPU:0"
onednn = "on" if tf_onednn_enabled() else "off"
where = f"CPU, oneDNN {onednn}" if on_cpu else "GPU"
print(f"On this machine ({where}):")
try:
    with tf.device(tf_device):
        out_nchw = tf.nn.conv2d(nchw, kernel, 1, "VALID",
                                data_format="NCHW")
    print("  NCHW in", nchw.shape, "out", out_nchw.shape)
    assert not on_cpu or onednn == "on"
    back = tf.transpose(out_nchw, (0, 2, 3, 1))  # to NHWC
    assert np.array_equal(back, out)
except tf.errors.UnimplementedError as error:
    why = error.message.split("}} ")[-1].split(" [Op")[0]
    print(sidebyside.wrap(f"UnimplementedError: {why}",
                          "  ", "  "))
    assert on_cpu and onednn == "off"
tf_conv = out

# %%
# **PyTorch (eager)**: NCHW shapes; ``channels_last`` changes strides.
nchw = torch.arange(48.0, device=torch_device).view(1, 3, 4, 4)
kernel = torch.ones(2, 3, 3, 3, device=torch_device)  # OIHW
last = nchw.to(memory_format=torch.channels_last)
for name, x in ("contiguous", nchw), ("channels_last", last):
    print(f"{name:<14}", tuple(x.shape), "strides", x.stride())
out = F.conv2d(last, kernel)
keeps = out.is_contiguous(memory_format=torch.channels_last)
print("same values:", torch.equal(last, nchw),
      " conv keeps channels_last:", keeps)
assert last.stride() == (48, 1, 12, 3) and keeps
assert torch.equal(last, nchw) and not same_storage(last, nchw)
torch_conv = out.permute(0, 2, 3, 1)  # NHWC, as TensorFlow's

# %%
# In-place changes and aliasing
# -----------------------------
# In PyTorch, ``x += 1``, ``x[0] = ...`` and the in-place arithmetic methods (``add_``,
# ``mul_``, ``zero_``) write into ``x``'s storage, so every name and every view that
# shares it sees the change. ``x = x + 1`` makes a new tensor and rebinds the name. A
# TensorFlow tensor refuses item assignment, and ``x += 1`` on it quietly means
# ``x = x + 1``. The mutable thing in TensorFlow is a ``tf.Variable``: ``assign``,
# ``assign_add`` and sliced ``v[0, 0].assign(...)`` change it, and every name for the
# variable sees that. But ``v += 1`` is refused, and a tensor computed from a variable
# (``tf.reshape(v, ...)``) is a value taken at that moment.

# %%
# **TensorFlow (eager)**: tensors refuse, variables ``assign``.
with tf.device(tf_device):
    x = tf.reshape(tf.range(12.0), (3, 4))
    y = x  # a second name
    show_error(TypeError, set_item, x, (0, 0), 100.0)
    x += 1  # x = x + 1: a new tensor
    print("y[0] after x += 1:", y[0].numpy())
    v = tf.Variable(y)
    alias = v  # a second name for the variable
    flat = tf.reshape(v, (12,))  # a value, taken now
    v[0, 0].assign(100.0)
    v.assign_add(tf.ones((3, 4)))
    print("alias[0]:", alias[0].numpy())
    print("flat[:4]:", flat[:4].numpy())
    show_error(RuntimeError, operator.iadd, v, 1)  # v += 1
assert y[0, 0] == 0.0 and flat[0] == 0.0
assert alias[0, 0] == 101.0
tf_row = alias[0]

# %%
# **PyTorch (eager)**: writes reach every alias and view.
x = torch.arange(12.0, device=torch_device).reshape(3, 4)
y = x  # a second name
row = x[0]  # a view
row[0] = 100.0  # writes into x's storage
x += 1  # in place: y and row see it
print("y[0] after x += 1:", y[0].tolist())
flat = x.view(12)  # a view, not a value
x = x + 1  # a new tensor; y and flat keep the old
print("x[0]:", x[0].tolist())
print("flat[:4]:", flat[:4].tolist())
assert y[0, 0] == 101.0 and row[0] == 101.0
assert flat[0] == 101.0 and not same_storage(x, y)
torch_row = y[0]

# %%
# Autograd keeps watch over in-place writes
# -----------------------------------------
# A write into a tensor that backward still needs would silently give wrong gradients,
# so PyTorch counts the writes to every tensor and ``backward()`` refuses if a saved
# tensor was changed after it was saved. Here ``sigmoid`` saves its output to compute
# its gradient, and ``mul_`` overwrites that output. TensorFlow needs no such check:
# nothing a tape saved can change.
a = torch.ones(3, requires_grad=True, device=torch_device)
b = a.sigmoid()  # saves b for the backward pass
b.mul_(2)  # ... and overwrites it
show_error(RuntimeError, b.sum().backward, cut=" Hint:")

# %%
# What shares memory with NumPy
# -----------------------------
# On the CPU, ``torch.from_numpy(a)`` and ``tensor.numpy()`` share memory with the NumPy
# array both ways, as does ``torch.as_tensor(a)``; ``torch.tensor(a)`` copies.
# ``torch.as_tensor`` shares only when it needs to change nothing: asked for another dtype
# (``dtype=torch.float64`` for a float32 array) or another device (``device="cuda"``), it
# copies. ``tensor.numpy()`` refuses a tensor that requires a gradient or lives on a GPU;
# ``numpy(force=True)`` detaches it and copies it to the CPU where needed. In
# TensorFlow 2.21, ``tf.constant(a)`` and ``tf.convert_to_tensor(a)`` copy the array,
# and ``tensor.numpy()`` returns a writable copy: NumPy arrays can change and TensorFlow
# tensors must not, so TensorFlow copies (its documentation of ``numpy()`` says so). A
# copy-free look is possible, read-only: ``np.asarray(tensor)`` (or
# ``np.asarray(memoryview(tensor))``) is a NumPy view of the tensor's buffer that
# refuses writes. ``tf.experimental.numpy`` is NumPy's API on TensorFlow tensors, not on
# NumPy arrays: ``tnp.asarray(a)`` copies like ``tf.constant``, and what it returns is a
# plain ``tf.Tensor``. (Its ``experimental_enable_numpy_behavior()`` switches on
# NumPy-style methods and type promotion for every tensor in the process, so this page
# does not call it.)

# %%
# **TensorFlow (eager)**: ``tf.constant`` and ``numpy()`` copy.
with tf.device("/CPU:0"):
    a = np.zeros(3, np.float32)
    t = tf.constant(a)  # copies a
    d = tf.convert_to_tensor(a)  # copies too
    c = tnp.asarray(a)  # and so does tnp
    a[0] = 1.0
    print("t after a[0] = 1:  ", t.numpy())
    print("d after a[0] = 1:  ", d.numpy())
    print("c after a[0] = 1:  ", c.numpy())
    b = t.numpy()  # a writable copy
    b[1] = 2.0
    print("t after b[1] = 2:  ", t.numpy())
    print("tnp.ndarray is tf.Tensor:", tnp.ndarray is tf.Tensor)
    view = np.asarray(t)  # no copy, read-only
    print("np.asarray(t) twice, same memory:",
          np.shares_memory(view, np.asarray(t)))
    print("t.numpy() twice, same memory:    ",
          np.shares_memory(b, t.numpy()))
    show_error(ValueError, set_item, view, 0, 5.0)
for copied in (t, d, c):
    assert not copied.numpy().any()
assert b[1] == 2.0 and not view.flags.writeable
assert np.shares_memory(view, np.asarray(t))
tf_copy = t

# %%
# **PyTorch (eager)**: ``from_numpy`` and ``numpy()`` share.
a = np.zeros(3, np.float32)
t = torch.from_numpy(a)  # shares a's memory
c = torch.as_tensor(a)  # shares too
d = torch.as_tensor(a, dtype=torch.float64)  # a copy
copy = torch.tensor(a)  # copies a
print("as_tensor shares a's memory:", np.shares_memory(a, c),
      " as float64:", np.shares_memory(a, d))
a[0] = 1.0
print("t after a[0] = 1:  ", t.numpy())
print("c after a[0] = 1:  ", c.numpy())
b = t.numpy()  # shares t's memory
b[1] = 2.0
print("t after b[1] = 2:  ", t.numpy())
t.add_(10.0)
print("a after t.add_(10):", a)
print("copy after all that:", copy.numpy())
assert a.tolist() == b.tolist() == c.tolist() == [11, 12, 10]
assert not copy.any() and not d.any()
w = torch.ones(3, requires_grad=True)
show_error(RuntimeError, w.numpy)
print("w.numpy(force=True):", w.numpy(force=True))
if torch_device == "cuda":  # another device: always a copy
    g = torch.as_tensor(a, device=torch_device)
    g.zero_()
    print("On this machine (CUDA):")
    print("  a after as_tensor(a, device='cuda').zero_():", a)
    assert a.tolist() == [11, 12, 10]
torch_copy = copy

# %%
# Going deeper: underneath, TensorFlow shares buffers too
# -------------------------------------------------------
# Because nobody may write into a TensorFlow tensor, TensorFlow is free to let tensors
# share memory behind the scenes. ``np.asarray`` shows it: on the CPU, the result of
# ``tf.reshape`` uses the very buffer of its input, while ``tf.transpose`` has to move
# the numbers and writes a new one. DLPack, the standard for handing tensors between
# frameworks without copying, makes the sharing visible: ``torch.from_dlpack(x)`` is a
# PyTorch tensor on ``x``'s own buffer. Writing into it (shown here only to prove the
# point; never do this to a TensorFlow tensor) changes ``x``, and with it the reshaped
# tensor and the NumPy view, but not the transposed copy.
with tf.device("/CPU:0"):
    x = tf.reshape(tf.range(12.0), (3, 4))
    reshaped = tf.reshape(x, (12,))
    transposed = tf.transpose(x)
view = np.asarray(x)  # a read-only NumPy view of x's buffer
view_too = np.asarray(memoryview(x))  # the same, as TensorFlow's docs suggest
print("tf.reshape shares x's buffer:  ", np.shares_memory(view, np.asarray(reshaped)))
print("tf.transpose shares x's buffer:", np.shares_memory(view, np.asarray(transposed)))
through_torch = torch.from_dlpack(x)  # x's buffer, seen by PyTorch, writable
through_torch[0, 0] = -100.0
print("after writing -100 through PyTorch:")
print("  x[0, 0] =", x[0, 0].numpy(), " reshaped[0] =", reshaped[0].numpy())
print("  np.asarray views:", view[0, 0], view_too[0, 0])
print("  transposed[0, 0] =", transposed[0, 0].numpy())
assert x[0, 0] == reshaped[0] == view[0, 0] == view_too[0, 0] == -100.0
assert transposed[0, 0] == 0.0

# %%
# Going deeper: methods ending in ``_`` that change the shape
# -----------------------------------------------------------
# Not every PyTorch method ending in ``_`` writes data. ``t_`` and ``squeeze_`` change the
# tensor's own shape and strides over the same storage: an earlier view keeps its shape and
# values. ``resize_`` changes the shape too, and when the tensor grows past its storage it
# allocates a bigger block and copies the old elements over: the tensor's address changes, and
# views of the old storage follow it to the new block. ``requires_grad_`` only sets a flag.
x = torch.arange(12.0).reshape(3, 4)
flat = x.view(12)
x.t_()  # x's own shape and strides
print("after x.t_(): x", tuple(x.shape), "stride", x.stride(),
      " flat[:4]", flat[:4].tolist())
address = x.data_ptr()
x.resize_(100_000)  # grows: a new, bigger storage
moved = x.data_ptr() != address
print("after x.resize_(100_000): moved to a new block:", moved,
      " flat still shares it:", same_storage(flat, x))
print("x[:4] after resize_:", x[:4].tolist())
assert x.stride() == (1,) and moved and same_storage(flat, x)

# %%
# Going deeper: ``.data``, the write autograd does not see
# --------------------------------------------------------
# ``.data`` is an old way to reach a tensor without autograd: it shares the storage but not
# the version counter, so a write through it goes unseen. ``backward()`` runs on the zeroed
# output and returns a gradient of zeros without a word. The same write through ``detach()``,
# which shares both, is refused. Use ``detach()``.
a = torch.ones(2, requires_grad=True, device=torch_device)
b = a.sigmoid()
b.data.zero_()  # unseen by autograd
b.sum().backward()
print("a.grad after b.data.zero_():", a.grad.tolist())
assert a.grad.tolist() == [0.0, 0.0]  # sigmoid's gradient from a zeroed output
b = a.sigmoid()
b.detach().zero_()  # the same write, seen
show_error(RuntimeError, b.sum().backward, cut=" Hint:")

# %%
# They agree
# ----------
# Where the two frameworks compute the same thing, they give the same numbers: the
# transpose and the slice, flattening a transposed matrix, the row after the writes (a
# ``tf.Variable`` on one side, a tensor written in place on the other), and the copies
# taken of a NumPy array before it changed; the sharing claims are asserted in their cells.
sidebyside.assert_close(tf_t, torch_t, what="transpose")
sidebyside.assert_close(tf_s, torch_s, what="slice x[1:, 2:]")
sidebyside.assert_close(tf_flat_t, torch_flat_t, what="transposed, then flattened")
sidebyside.assert_close(tf_row, torch_row, what="row 0 after the writes")
sidebyside.assert_close(tf_copy, torch_copy, what="copy of a NumPy array")
sidebyside.assert_close(tf_conv, torch_conv, what="convolution, NHWC", device=torch_device)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A PyTorch tensor is a storage plus shape, strides and offset. Transposes, slices,
#   ``view`` and (when it can) ``reshape`` are views: writing through one writes into
#   the original. Compare ``untyped_storage().data_ptr()`` to know whether two tensors
#   share.
# * ``view`` never copies and refuses instead; ``reshape`` copies when it must;
#   ``contiguous()`` copies only if the tensor is not contiguous already.
# * Channels last is a default on both sides: TensorFlow's convolutions take NHWC unless
#   given ``data_format="NCHW"`` (run on a GPU, or a CPU with oneDNN on); PyTorch's take NCHW
#   shapes, and ``torch.channels_last`` changes the strides, not the shape.
# * In-place operations (``x += 1``, ``x[i] = ...``, ``add_``) reach every alias and
#   view; ``x = x + 1`` does not. Autograd refuses a backward pass through a tensor that
#   was changed after it was saved.
# * TensorFlow tensors never change: item assignment is a ``TypeError``, ``x += 1``
#   rebinds the name, and a ``tf.Variable`` changes only through ``assign`` and its
#   relatives (``assign_add``, sliced ``assign``). ``tf.reshape`` and ``tf.transpose``
#   return new tensors (``tf.reshape`` may reuse the buffer; that is safe because nobody
#   writes).
# * With NumPy on the CPU, PyTorch shares (``from_numpy``, ``numpy()``, and ``as_tensor``
#   when dtype and device stay the same) and TensorFlow copies (``tf.constant``,
#   ``tf.convert_to_tensor``, ``numpy()``, ``tnp.asarray``); ``np.asarray(tf_tensor)`` is a
#   read-only view without a copy. ``numpy(force=True)`` takes any PyTorch tensor.
#
# References: ``torch.Tensor.stride``, ``torch.Tensor.storage_offset``, ``torch.Tensor.view``,
# ``torch.Tensor.untyped_storage``, ``torch.Tensor.reshape``, ``torch.Tensor.contiguous``,
# ``torch.Tensor.is_contiguous``, ``torch.Tensor.t_``, ``torch.Tensor.resize_``,
# ``torch.from_numpy``, ``torch.Tensor.numpy`` (``force``), ``torch.as_tensor``, ``torch.tensor``,
# ``torch.from_dlpack``, ``torch.channels_last``, ``torch.nn.functional.conv2d``, ``tf.nn.conv2d``,
# ``tf.reshape``, ``tf.transpose``, ``tf.Variable.assign``, ``tf.Variable.assign_add``,
# ``tf.constant``, ``tf.convert_to_tensor``, ``tf.Tensor.numpy``, ``tf.experimental.numpy``.
