"""
Tensor cheatsheet: TensorFlow ↔ PyTorch
=======================================

Everyday tensor operations in TensorFlow and in PyTorch, one per row, with how the two
differ. Every row ran while this page was built, and a check proved what it claims
(memory really shared, gradients really off); if a row stops being true, the build fails.

The code behind the rows runs first, in the collapsed section just before the table.
"""

# %%
# Going deeper: the code behind every row
# ---------------------------------------
# A row is a TensorFlow function, a PyTorch function and a check. ``@cheatsheet.row``
# runs both functions, hands their results to the check it decorates, and records the
# row: the two functions' code, their commented lines and what they returned (the table
# code lives in ``sidebyside.cheatsheet``). A row whose check fails stops the page with
# the row's name in the error. This section runs before the table so that the table can
# show every row; read it for how a row's claim was proved. If you run this script
# yourself, ``cheatsheet.compact().html`` is the text of the page to print.
#
# Setup
# ^^^^^
# Both frameworks, the helpers of this site, and one seed for everything. The rows run
# on the CPU: the tensors are tiny, and the memory rows are about CPU memory. Only the
# device row uses the GPU, when there is one.
import io
import tempfile
import warnings

import sidebyside
from sidebyside.cheatsheet import Cheatsheet, refused

import numpy as np
import tensorflow as tf
import torch
from torch.utils.checkpoint import checkpoint

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
cheatsheet = Cheatsheet("Tensor cheatsheet: TensorFlow ↔ PyTorch")
GRADIENTS = "Gradient bookkeeping"
OPERATIONS = "Tensor operations"
MEMORY = "Memory: views, in-place changes, NumPy"
TYPES = "Shapes, dtypes and seeds"
PAYOFFS = "What a graph buys"
sidebyside.provenance()

# %%
# Gradient bookkeeping
# ^^^^^^^^^^^^^^^^^^^^
#
# tf.Variable ↔ requires_grad
# """""""""""""""""""""""""""


def tf_requires_grad():
    w = tf.Variable([1.0, 2.0])  # trainable=True
    with tf.GradientTape() as tape:  # record
        loss = tf.reduce_sum(w * w)
    grad = tape.gradient(loss, w)  # returned
    return grad


def torch_requires_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)  # record
    loss = (w * w).sum()
    loss.backward()  # stored in w.grad
    return w.grad


@cheatsheet.row(
    GRADIENTS,
    "tf.Variable ↔ requires_grad",
    tf=tf_requires_grad,
    torch=torch_requires_grad,
    note="PyTorch marks the tensor; TF records inside a GradientTape, which watches "
    "trainable Variables. torch.autograd.Variable is legacy (it returns a Tensor).",
)
def check_requires_grad(tf_grad, torch_grad):
    """Same gradient 2w; Variable(x) is a plain Tensor; a trainable=False Variable gets
    None."""
    sidebyside.assert_close(tf_grad, torch_grad, what="gradient of sum(w * w)")
    legacy = torch.autograd.Variable(torch.ones(1))
    assert type(legacy) is torch.Tensor, "Variable is a Tensor"
    frozen = tf.Variable([1.0], trainable=False)
    with tf.GradientTape() as tape:
        loss = frozen * 2.0
    not_watched = tape.gradient(loss, frozen)
    assert not_watched is None, "the tape must not watch a non-trainable Variable"


# %%
# training= ↔ model.train() / model.eval()
# """"""""""""""""""""""""""""""""""""""""


def tf_train_eval():
    model = tf.keras.layers.Dropout(0.5, seed=0)
    x = tf.ones(8)
    y_train = model(x, training=True)  # an argument per call
    y_eval = model(x, training=False)  # the default
    return y_train, y_eval


def torch_train_eval():
    model = torch.nn.Dropout(p=0.5)
    x = torch.ones(8)
    model.train()  # a mode stored on the module
    y_train = model(x)
    model.eval()  # until switched back; not no_grad()
    y_eval = model(x)
    return y_train, y_eval


@cheatsheet.row(
    GRADIENTS,
    "training= ↔ model.train() / eval()",
    tf=tf_train_eval,
    torch=torch_train_eval,
    note="PyTorch: a mode stored on the module, training by default. Keras: an "
    "argument per call, inference by default (fit() passes training=True). eval() "
    "changes what layers compute (dropout off, batch norm's running statistics); it "
    "is not no_grad(): it records as before.",
)
def check_train_eval(tf_out, torch_out):
    """Training drops, scaling by 2; eval is the identity yet still records; the
    defaults differ."""
    for name, (y_train, y_eval) in {"TensorFlow": tf_out, "PyTorch": torch_out}.items():
        kept = set(np.unique(sidebyside.parity.to_numpy(y_train)))
        assert kept <= {0.0, 2.0}, f"{name}: dropout keeps 0 or x / (1 - p)"
        ones = np.ones(8, np.float32)
        sidebyside.assert_close(y_eval, ones, what=f"{name} eval output")
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5)).eval()
    y = model(torch.ones(2))
    assert y.grad_fn is not None, "eval() must not stop recording"
    assert torch.nn.Dropout().training, "a new PyTorch module starts in training mode"
    keras_default = tf.keras.layers.Dropout(0.5)(tf.ones(8))
    sidebyside.assert_close(keras_default, np.ones(8), what="Keras")


# %%
# No tape / tape.stop_recording() ↔ torch.no_grad()
# """""""""""""""""""""""""""""""""""""""""""""""""


def tf_no_grad():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        with tape.stop_recording():  # nothing here is recorded
            y = w * 2
    grad = tape.gradient(y, w)
    return y, grad


def torch_no_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():  # nothing here is recorded
        y = w * 2
    return y, y.requires_grad


@cheatsheet.row(
    GRADIENTS,
    "tape.stop_recording() ↔ no_grad()",
    tf=tf_no_grad,
    torch=torch_no_grad,
    note="PyTorch records by default and no_grad() opts out; TF records only inside a "
    "tape, so code outside one is already 'no_grad'. no_grad() leaves layers as they "
    "are: a module in train() mode still drops out (evaluation usually wants eval() "
    "and no_grad()).",
)
def check_no_grad(tf_out, torch_out):
    """Same values; nothing recorded, grad mode back on; dropout still drops; TF grad is
    None."""
    (tf_y, tf_grad), (torch_y, requires_grad) = tf_out, torch_out
    sidebyside.assert_close(tf_y, torch_y, what="y = w * 2")
    assert requires_grad is False, "no_grad must record nothing"
    assert torch_y.grad_fn is None, "no_grad must record nothing"
    assert torch.is_grad_enabled(), "leaving no_grad() must switch gradients back on"
    assert tf_grad is None, "the tape must not have recorded y"
    dropout = torch.nn.Dropout(0.5).train()
    with torch.no_grad():
        dropped = dropout(torch.ones(1000))
    assert (dropped == 0).any(), "no_grad() must not switch dropout off"


# %%
# tf.stop_gradient ↔ detach()
# """""""""""""""""""""""""""


def tf_detach():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        w_const = tf.stop_gradient(w)  # no gradient
        loss = tf.reduce_sum(w * w_const)
    grad = tape.gradient(loss, w)
    return grad


def torch_detach():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    w_const = w.detach()  # same memory, no gradient
    loss = (w * w_const).sum()
    loss.backward()
    same_memory = w_const.data_ptr() == w.data_ptr()
    return w_const.requires_grad, same_memory, w.grad


@cheatsheet.row(
    GRADIENTS,
    "tf.stop_gradient ↔ detach()",
    tf=tf_detach,
    torch=torch_detach,
    note="Both make a factor constant for gradients; detach() also shares memory with "
    "the original, tf.stop_gradient is one op in the graph (StopGradient: identity "
    "forward, zero gradient).",
)
def check_detach(tf_grad, torch_out):
    """Same gradient (w, not 2w); the detached tensor requires no grad and shares
    memory."""
    requires_grad, same_memory, torch_grad = torch_out
    what = "gradient through a detached factor"
    sidebyside.assert_close(tf_grad, torch_grad, what=what)
    sidebyside.assert_close(torch_grad, [1.0, 2.0], what="gradient equals w")
    assert requires_grad is False, "a detached tensor must not require grad"
    assert same_memory, "detach() must share memory with the original tensor"
    graph = tf.function(tf.stop_gradient).get_concrete_function(tf.ones(2)).graph
    ops = [op.type for op in graph.get_operations()]
    assert ops == ["Placeholder", "StopGradient", "Identity"], "stop_gradient is one op"


# %%
# A fresh GradientTape per step ↔ zero_grad()
# """""""""""""""""""""""""""""""""""""""""""
# Three steps of gradient descent on the same linear model with the same starting
# weights. The TensorFlow step is a ``tf.function``: a graph, traced once and run three
# times.


def tf_zero_grad():
    init = tf.keras.initializers.Constant([[0.5], [-0.5]])
    model = tf.keras.layers.Dense(
        1, use_bias=False, kernel_initializer=init
    )
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.02)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    target = tf.constant([[1.0], [2.0]])

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:  # a new tape each step
            loss = tf.reduce_mean((model(x) - target) ** 2)
        variables = model.trainable_variables
        grads = tape.gradient(loss, variables)  # fresh each step
        pairs = zip(grads, variables, strict=True)
        optimizer.apply_gradients(pairs)  # step()

    for _ in range(3):
        train_step()
    return model.kernel


def torch_zero_grad():
    model = torch.nn.Linear(2, 1, bias=False)
    weight = torch.tensor([[0.5, -0.5]])
    model.load_state_dict({"weight": weight})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    target = torch.tensor([[1.0], [2.0]])
    for _ in range(3):
        model.zero_grad()  # backward() adds to .grad
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()  # into .grad
        optimizer.step()  # apply
    return model.weight


@cheatsheet.row(
    GRADIENTS,
    "tape.gradient() ↔ zero_grad(), backward()",
    tf=tf_zero_grad,
    torch=torch_zero_grad,
    note="A new tape each step returns fresh gradients and keeps none; backward() adds "
    "into .grad until zero_grad() clears it (to None; to zeros with set_to_none=False). "
    "Keras kernel: (in, out); Linear weight: (out, in).",
)
def check_zero_grad(tf_kernel, torch_weight):
    """Same weights after three steps (kernel = weight transposed); grads accumulate;
    zero_grad -> None."""
    tf_weight = tf.transpose(tf_kernel)
    sidebyside.assert_close(tf_weight, torch_weight, what="weights after 3 steps")
    w = torch.ones(1, requires_grad=True)
    (2 * w).sum().backward()
    (2 * w).sum().backward()
    assert w.grad.item() == 4.0, "two backward() calls must add up in .grad"
    model = torch.nn.Linear(1, 1)
    model(torch.ones(1)).sum().backward()
    model.zero_grad()
    assert model.weight.grad is None, "zero_grad() sets .grad to None"
    model(torch.ones(1)).sum().backward()
    model.zero_grad(set_to_none=False)
    assert torch.equal(model.weight.grad, torch.zeros(1, 1)), "set_to_none=False: zeros"


# %%
# output_gradients= / grad_ys= ↔ backward(gradient=…)
# """""""""""""""""""""""""""""""""""""""""""""""""""
# For a non-scalar ``y``, both compute the vector-Jacobian product: ``v`` has the shape
# of ``y`` and weighs each of its elements, and the gradient has the shape of ``x``.
# Here ``x`` has three elements and ``y`` two, so a ``v`` shaped like ``x`` is refused.
# ``tf.gradients`` (graph mode only) takes the same ``v`` as ``grad_ys``.


def tf_backward_gradient():
    x = tf.constant([1.0, 2.0, 3.0])
    v = tf.constant([1.0, 0.1])

    def f(x):  # y = [sum(x), sum(x**2)]
        sums = [tf.reduce_sum(x), tf.reduce_sum(x * x)]
        return tf.stack(sums)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    grad = tape.gradient(y, x, output_gradients=v)  # same v

    @tf.function
    def graph_grad(x):
        return tf.gradients(f(x), x, grad_ys=v)[0]  # graph only

    return grad, graph_grad(x)


def torch_backward_gradient():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = torch.tensor([1.0, 0.1])  # y's shape, not x's
    y = torch.stack([x.sum(), (x**2).sum()])
    y.backward(gradient=v)  # y is not a scalar
    return x.grad


@cheatsheet.row(
    GRADIENTS,
    "output_gradients= ↔ backward(gradient=)",
    tf=tf_backward_gradient,
    torch=torch_backward_gradient,
    note="gradient= (output_gradients=, grad_ys=) has y's shape; the result has x's. "
    "Without it, PyTorch refuses a non-scalar backward(); TF silently uses ones (the "
    "gradient of sum(y)). tf.gradients works only in graphs.",
)
def check_backward_gradient(tf_out, torch_grad):
    """Same v1 + v2 * 2x from tape and graph; v shaped like x, and no v at all, are
    refused."""
    tape_grad, graph_grad = tf_out
    what = "tape.gradient(output_gradients=v)"
    sidebyside.assert_close(tape_grad, torch_grad, what=what)
    sidebyside.assert_close(graph_grad, torch_grad, what="tf.gradients(grad_ys=v)")
    sidebyside.assert_close(torch_grad, [1.2, 1.4, 1.6], what="v1 * 1 + v2 * 2x")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with refused(RuntimeError, claim="gradient= must have y's shape, not x's"):
        torch.stack([x.sum(), (x**2).sum()]).backward(gradient=torch.ones(3))
    with refused(RuntimeError, claim="backward() on a non-scalar needs gradient="):
        (x**2).backward()
    with refused(RuntimeError, claim="tf.gradients does not work eagerly"):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    what = "TF default: gradient of sum(y)"
    sidebyside.assert_close(tape.gradient(y, x), 2 * x, what=what)


# %%
# tf.device ↔ .cuda() / .to(device)
# """""""""""""""""""""""""""""""""
# ``torch_device`` and ``tf_device`` come from the setup cell: the GPU when there is
# one.


def tf_device_scope():
    with tf.device(tf_device):  # ops in here run there
        x = tf.ones(3)
        y = tf.ones(3)
        z = x + y
    return z, z.device


def torch_to_device():
    x = torch.ones(3).to(torch_device)  # move
    y = torch.ones(3, device=torch_device)  # or create there
    z = x + y
    return z, z.device


@cheatsheet.row(
    GRADIENTS,
    "tf.device ↔ .cuda() / .to(device)",
    tf=tf_device_scope,
    torch=torch_to_device,
    note="PyTorch tensors stay where you put them and mixing devices is an error; TF "
    "places each op itself (in the tf.device scope, else on a GPU when there is one) "
    "and copies its inputs there.",
)
def check_device(tf_out, torch_out):
    """Same values on the chosen device; PyTorch refuses mixed devices; TF places ops
    and copies."""
    (tf_z, tf_where), (torch_z, torch_where) = tf_out, torch_out
    on_device = "device:" + tf_device.lstrip("/")
    sidebyside.assert_close(tf_z, torch_z, what="x + y")
    assert tf_where.endswith(on_device), f"expected {tf_device}"
    assert torch_where.type == torch_device, f"expected {torch_device}"
    # "meta" is a PyTorch device without data: any other device would do
    with refused(RuntimeError, claim="PyTorch does not mix devices in one op"):
        torch.ones(3) + torch.ones(3, device="meta")
    unplaced = tf.ones(3) + 1  # no device asked for: a GPU when there is one
    assert unplaced.device.endswith(on_device), "TF places ops itself"
    with tf.device("/CPU:0"):
        x_on_cpu = tf.ones(3)
    with tf.device(tf_device):
        copied = x_on_cpu + tf.ones(3)  # the input is copied over
    assert copied.device.endswith(on_device), "TF copies inputs"


# %%
# Tensor operations
# ^^^^^^^^^^^^^^^^^
#
# tf.slice ↔ narrow
# """""""""""""""""


def tf_narrow():
    x = tf.reshape(tf.range(12.0), (3, 4))
    y = tf.slice(x, begin=[0, 1], size=[3, 2])  # x[:, 1:3]
    return y


def torch_narrow():
    x = torch.arange(12.0).reshape(3, 4)
    y = x.narrow(1, 1, 2)  # dim 1, start 1, length 2
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared


@cheatsheet.row(
    OPERATIONS,
    "tf.slice / x[:, 1:3] ↔ narrow",
    tf=tf_narrow,
    torch=torch_narrow,
    note="narrow (like slicing) is a view: writing to it writes to x. A TF slice is a "
    "new tensor; TF tensors are never written to.",
)
def check_narrow(tf_y, torch_out):
    """Same values as x[:, 1:3] in both; narrow shares x's memory."""
    torch_y, shared = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="narrow vs tf.slice")
    x = tf.reshape(tf.range(12.0), (3, 4))
    sidebyside.assert_close(x[:, 1:3], tf_y, what="tf.slice vs slicing")
    assert shared, "narrow must return a view of x"


# %%
# tf.transpose ↔ t() / transpose
# """"""""""""""""""""""""""""""
# A transpose is a view with swapped strides, shown on :ref:`the storage page
# <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>`.


def tf_transpose():
    x = tf.reshape(tf.range(6.0), (2, 3))
    y = tf.transpose(x)  # no perm: reverse all axes
    return y


def torch_transpose():
    x = torch.arange(6.0).reshape(2, 3)
    y = x.t()  # = x.transpose(0, 1)
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared, y.is_contiguous()


@cheatsheet.row(
    OPERATIONS,
    "tf.transpose ↔ t() / transpose(0, 1)",
    tf=tf_transpose,
    torch=torch_transpose,
    note="t() is a strided view (no copy, not contiguous) of at most 2 dims, where it "
    "equals transpose(0, 1); tf.transpose without perm reverses all axes. They agree "
    "on matrices.",
)
def check_transpose(tf_y, torch_out):
    """Same matrix; t() is a non-contiguous view; on 3 dims t() refuses, tf.transpose
    reverses."""
    torch_y, shared, contiguous = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="transpose of a matrix")
    assert shared and not contiguous, "t() must be a strided view of x"
    with refused(RuntimeError, claim="t() takes at most 2 dims"):
        torch.zeros(2, 3, 4).t()
    swapped = torch.zeros(2, 3, 4).transpose(0, 1)
    assert swapped.shape == (3, 2, 4), "transpose(0, 1) works"
    reversed_axes = tf.transpose(tf.zeros((2, 3, 4)))
    assert reversed_axes.shape == (4, 3, 2), "tf.transpose reverses all axes"


# %%
# tf.transpose(perm=…) ↔ permute
# """"""""""""""""""""""""""""""


def tf_permute():
    x = tf.reshape(tf.range(24.0), (2, 3, 4))
    y = tf.transpose(x, perm=[2, 0, 1])  # same order
    return y


def torch_permute():
    x = torch.arange(24.0).reshape(2, 3, 4)
    y = x.permute(2, 0, 1)  # new order of the dims
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared


@cheatsheet.row(
    OPERATIONS,
    "tf.transpose(perm=) ↔ permute",
    tf=tf_permute,
    torch=torch_permute,
    note="The same list of axes; permute returns a view, tf.transpose a new tensor.",
)
def check_permute(tf_y, torch_out):
    """Same values and shape (4, 2, 3); permute shares x's memory."""
    torch_y, shared = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="permute vs transpose(perm)")
    assert tuple(torch_y.shape) == (4, 2, 3), "the dims in the new order"
    assert shared, "permute must return a view"


# %%
# tf.squeeze ↔ squeeze
# """"""""""""""""""""


def tf_squeeze():
    x = tf.zeros((10, 1, 5))
    y = tf.squeeze(x)  # (10, 5)
    return y.shape


def torch_squeeze():
    x = torch.zeros(10, 1, 5)
    y = x.squeeze()  # (10, 5): every size-1 dim dropped
    kept = x.squeeze(0)  # size 10: left alone
    return y.shape, kept.shape


@cheatsheet.row(
    OPERATIONS,
    "tf.squeeze ↔ squeeze",
    tf=tf_squeeze,
    torch=torch_squeeze,
    note="squeeze(0) on a dim that is not 1 silently does nothing in PyTorch; "
    "tf.squeeze(x, axis=0) raises an error.",
)
def check_squeeze(tf_shape, torch_out):
    """10×1×5 → 10×5 in both; squeezing a size-10 dim is a no-op in PyTorch, an error
    in TF."""
    torch_shape, kept_shape = torch_out
    assert tuple(tf_shape) == tuple(torch_shape) == (10, 5), "10×1×5 squeezes to 10×5"
    assert tuple(kept_shape) == (10, 1, 5), "squeeze(0) must leave a size-10 dim alone"
    claim = "tf.squeeze(axis=0) of size 10 fails"
    with refused(tf.errors.InvalidArgumentError, claim=claim):
        tf.squeeze(tf.zeros((10, 1, 5)), axis=0)


# %%
# tf.expand_dims ↔ unsqueeze
# """"""""""""""""""""""""""


def tf_unsqueeze():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.expand_dims(x, axis=0)  # or x[tf.newaxis]
    return y


def torch_unsqueeze():
    x = torch.tensor([1.0, 2.0, 3.0])
    y = x.unsqueeze(0)  # or x[None]
    return y


@cheatsheet.row(
    OPERATIONS,
    "tf.expand_dims ↔ unsqueeze",
    tf=tf_unsqueeze,
    torch=torch_unsqueeze,
    note="The same operation; x[None] (x[tf.newaxis]) works in both.",
)
def check_unsqueeze(tf_y, torch_y):
    """Same values, shape (1, 3); x[None] gives the same in both."""
    sidebyside.assert_close(tf_y, torch_y, what="unsqueeze vs expand_dims")
    tf_indexed = tf.constant([1.0, 2.0, 3.0])[tf.newaxis]
    sidebyside.assert_close(tf_indexed, torch_y, what="x[None]")
    torch_indexed = torch.tensor([1.0, 2.0, 3.0])[None]
    assert torch.equal(torch_indexed, torch_y), "x[None] in PyTorch"
    assert tuple(torch_y.shape) == (1, 3), "a new leading dim"


# %%
# tf.stack ↔ torch.stack
# """"""""""""""""""""""


def tf_stack():
    rows = [tf.fill((5,), float(i)) for i in range(10)]
    y = tf.stack(rows, axis=0)  # (10, 5)
    return y


def torch_stack():
    rows = [torch.full((5,), float(i)) for i in range(10)]
    y = torch.stack(rows, dim=0)  # a new first dim: (10, 5)
    return y


@cheatsheet.row(
    OPERATIONS,
    "tf.stack ↔ torch.stack",
    tf=tf_stack,
    torch=torch_stack,
    note="dim= is axis=. stack adds a new dim (all shapes must match); cat / concat "
    "joins along an existing one.",
)
def check_stack(tf_y, torch_y):
    """Ten length-5 tensors → shape (10, 5) in both; cat of the same list is flat."""
    sidebyside.assert_close(tf_y, torch_y, what="stack")
    assert tuple(torch_y.shape) == (10, 5), "stack adds a dim of size 10"
    assert tuple(torch.cat(list(torch_y)).shape) == (50,), "cat joins, it adds no dim"
    with refused(RuntimeError, claim="stack needs tensors of one shape"):
        torch.stack([torch.zeros(2), torch.zeros(3)])


# %%
# tf.concat ↔ torch.cat
# """""""""""""""""""""


def tf_cat():
    a, b = tf.zeros((2, 3)), tf.ones((2, 3))
    rows = tf.concat([a, b], axis=0)  # axis is required
    cols = tf.concat([a, b], axis=1)  # (2, 6)
    return rows, cols


def torch_cat():
    a, b = torch.zeros(2, 3), torch.ones(2, 3)
    rows = torch.cat([a, b], dim=0)  # (4, 3)
    cols = torch.cat([a, b], dim=1)  # (2, 6)
    return rows, cols


@cheatsheet.row(
    OPERATIONS,
    "tf.concat ↔ torch.cat",
    tf=tf_cat,
    torch=torch_cat,
    note="torch.concat is another name for torch.cat, whose dim defaults to 0; "
    "tf.concat requires axis.",
)
def check_cat(tf_out, torch_out):
    """Shapes (4, 3) and (2, 6) with the same values; tf.concat without axis is
    refused."""
    for tf_y, torch_y, what in zip(tf_out, torch_out, ("dim 0", "dim 1"), strict=True):
        sidebyside.assert_close(tf_y, torch_y, what=f"concatenate along {what}")
    assert [tuple(y.shape) for y in torch_out] == [(4, 3), (2, 6)], "rows, then columns"
    a, b = torch.zeros(2, 3), torch.ones(2, 3)
    same = torch.equal(torch.concat([a, b]), torch.cat([a, b], dim=0))
    assert same, "concat is cat, dim 0"
    with refused(TypeError, claim="tf.concat needs an axis"):
        tf.concat([tf.zeros(2), tf.ones(2)])


# %%
# tf.nn.embedding_lookup / keras Embedding ↔ nn.Embedding
# """""""""""""""""""""""""""""""""""""""""""""""""""""""
# The same 10 × 3 table in both, so the looked-up vectors can be compared.


def tf_embedding():
    table = tf.reshape(tf.range(30.0), (10, 3))
    ids = tf.constant([[1, 2, 3, 4], [4, 5, 6, 9]])
    vectors = tf.nn.embedding_lookup(table, ids)  # (2, 4, 3)
    init = tf.keras.initializers.Constant(table)
    layer = tf.keras.layers.Embedding(  # a trainable table
        10, 3, embeddings_initializer=init
    )
    return vectors, layer(ids)


def torch_embedding():
    table = torch.arange(30.0).reshape(10, 3)
    embedding = torch.nn.Embedding(10, 3)  # a trainable table
    embedding.load_state_dict({"weight": table})
    ids = torch.tensor([[1, 2, 3, 4], [4, 5, 6, 9]])
    vectors = embedding(ids)  # (2, 4, 3)
    return vectors


@cheatsheet.row(
    OPERATIONS,
    "embedding_lookup ↔ nn.Embedding",
    tf=tf_embedding,
    torch=torch_embedding,
    note="The same lookup. nn.Embedding and keras Embedding own a trainable table; "
    "tf.nn.embedding_lookup indexes the table you pass (tf.gather).",
)
def check_embedding(tf_out, torch_vectors):
    """Shape (2, 4, 3) and the same vectors from all three; the PyTorch table is
    trainable."""
    lookup, keras_vectors = tf_out
    what = "embedding_lookup vs nn.Embedding"
    sidebyside.assert_close(lookup, torch_vectors, what=what)
    what = "keras Embedding vs nn.Embedding"
    sidebyside.assert_close(keras_vectors, torch_vectors, what=what)
    assert tuple(torch_vectors.shape) == (2, 4, 3), "one 3-vector per id"
    assert torch_vectors.requires_grad, "nn.Embedding's table is a trainable parameter"
    layer = tf.keras.layers.Embedding(10, 3)
    layer(tf.constant([1]))  # builds the table
    assert len(layer.trainable_weights) == 1, "keras Embedding's table is trainable"
    assert not hasattr(tf.nn, "embedding"), "the TF function is tf.nn.embedding_lookup"
    with refused(TypeError, claim="nn.Embedding needs a tensor of indices, not a list"):
        torch.nn.Embedding(10, 3)([[1, 2, 3, 4], [4, 5, 6, 9]])


# %%
# tf.math.divide ↔ div
# """"""""""""""""""""


def tf_div():
    x = tf.constant([1, 2, 3])
    y = tf.math.divide(x, 2)  # int32 / int: float64
    floor = tf.math.floordiv(x, 2)  # = x // 2
    return y, floor


def torch_div():
    x = torch.tensor([1, 2, 3])
    y = x.div(2)  # true division, even of ints
    floor = x.div(2, rounding_mode="floor")  # or x // 2
    return y, floor


@cheatsheet.row(
    OPERATIONS,
    "tf.math.divide ↔ div",
    tf=tf_div,
    torch=torch_div,
    note="Both divide ints exactly, into float32 in PyTorch but float64 in TF. "
    "Integer division: rounding_mode='floor' / tf.math.floordiv (// in both).",
)
def check_div(tf_out, torch_out):
    """Same values; true division gives float64 in TF and float32 in PyTorch; floor
    division."""
    (tf_y, tf_floor), (torch_y, torch_floor) = tf_out, torch_out
    sidebyside.assert_close(tf_y, torch_y, what="true division")
    sidebyside.assert_close(tf_floor, torch_floor, what="floor division")
    assert tf_y.dtype == tf.float64, "TF: int32 / int gives float64"
    assert torch_y.dtype == torch.float32, "PyTorch: int / int gives float32"


# %%
# tf.reduce_sum(axis=, keepdims=) ↔ sum(dim=, keepdim=)
# """""""""""""""""""""""""""""""""""""""""""""""""""""
# The same pattern holds for ``mean``, ``max`` and friends; ``item()`` is how a number
# leaves.


def tf_reduce():
    x = tf.reshape(tf.range(6.0), (2, 3))
    per_row = tf.reduce_sum(x, axis=1, keepdims=True)  # (2, 1)
    total = float(tf.reduce_sum(x))  # a float: eager only
    return per_row, total


def torch_reduce():
    x = torch.arange(6.0).reshape(2, 3)
    per_row = x.sum(dim=1, keepdim=True)  # (2, 1)
    total = x.sum().item()  # a Python float
    return per_row, total


@cheatsheet.row(
    OPERATIONS,
    "reduce_sum(axis, keepdims) ↔ sum(dim, keepdim)",
    tf=tf_reduce,
    torch=torch_reduce,
    note="dim/keepdim are axis/keepdims. torch.max(x, dim) returns values and "
    "indices: tf.reduce_max and tf.argmax. float(t) gives a Python float in eager "
    "mode only: in a TF1 graph it raises, and in a tf.function AutoGraph makes it a "
    "cast, a tensor again.",
)
def check_reduce(tf_out, torch_out):
    """Same sums, shape (2, 1) and a Python float 15.0; max(dim) = reduce_max +
    argmax."""
    (tf_rows, tf_total), (torch_rows, torch_total) = tf_out, torch_out
    sidebyside.assert_close(tf_rows, torch_rows, what="sum per row, kept dim")
    assert tf_total == torch_total == 15.0, "the same total"
    assert isinstance(torch_total, float), "a Python float"
    values, indices = torch.arange(6.0).reshape(2, 3).max(dim=1)
    x = tf.reshape(tf.range(6.0), (2, 3))
    sidebyside.assert_close(tf.reduce_max(x, axis=1), values, what="max values")
    sidebyside.assert_close(tf.argmax(x, axis=1), indices, what="max indices")
    with tf.Graph().as_default(), refused(TypeError, claim="float() of a graph tensor"):
        float(tf.reduce_sum(tf.ones(2)))
    in_function = tf.function(lambda x: float(tf.reduce_sum(x)))(tf.ones(2))
    assert isinstance(in_function, tf.Tensor), "AutoGraph turns float() into a cast"


# %%
# Memory: views, in-place changes, NumPy
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# PyTorch tensors are buffers you may write to, and several tensors can share one
# buffer. TensorFlow tensors are values: nothing can change them, and the one mutable
# thing is a ``tf.Variable``. The page :ref:`Tensors, storage and views
# <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>` takes these rows
# further: storage, strides, when ``reshape`` copies, and aliasing.
#
# tf.reshape ↔ view / reshape
# """""""""""""""""""""""""""


def tf_view():
    x = tf.range(6.0)
    v = tf.reshape(x, (2, 3))  # new shape
    at, value = [[0, 0]], [100.0]
    v = tf.tensor_scatter_nd_update(v, at, value)  # new tensor
    return x, v


def torch_view():
    x = torch.arange(6.0)
    v = x.view(2, 3)  # same memory: writing to v writes to x
    v[0, 0] = 100.0
    r = v.t().reshape(6)  # not contiguous: a copy
    shared = np.shares_memory(x.numpy(), r.numpy())
    return x, v, shared


@cheatsheet.row(
    MEMORY,
    "tf.reshape ↔ view / reshape",
    tf=tf_view,
    torch=torch_view,
    note="view never copies (it fails instead); reshape copies when it must, so a "
    "write may or may not show through. TF never writes to a tensor.",
)
def check_view(tf_out, torch_out):
    """Same v; the write shows in x in PyTorch only; reshape of a transpose copies;
    view refuses."""
    (tf_x, tf_v), (torch_x, torch_v, shared) = tf_out, torch_out
    sidebyside.assert_close(tf_v, torch_v, what="v after setting v[0, 0]")
    assert tf_x[0].numpy() == 0.0, "a TF tensor never changes"
    assert torch_x[0].item() == 100.0, "x.view(2, 3) must share x's memory"
    assert not shared, "reshape of a transposed view must copy"
    with refused(RuntimeError, claim="view of a non-contiguous tensor"):
        torch.arange(6.0).view(2, 3).t().view(6)


# %%
# tf.Variable.assign_add ↔ in-place ops (``add_``, ``t_``)
# """"""""""""""""""""""""""""""""""""""""""""""""""""""""


def tf_in_place():
    x = tf.ones((2, 3))
    y = tf.Variable(tf.zeros((2, 3)))
    y.assign_add(x)  # like y.add_(x)
    x = tf.transpose(x)  # a new tensor, same name
    return y, x.shape


def torch_in_place():
    x = torch.ones(2, 3)
    y = torch.zeros(2, 3)
    memory = y.data_ptr(), x.data_ptr()
    y.add_(x)  # trailing _: changes y itself
    x.t_()  # x itself is now 3×2: new strides, same data
    same_memory = (y.data_ptr(), x.data_ptr()) == memory
    return y, x.shape, same_memory, x.is_contiguous()


@cheatsheet.row(
    MEMORY,
    "Variable.assign_add ↔ add_(), t_()",
    tf=tf_in_place,
    torch=torch_in_place,
    note="A trailing _ changes the tensor itself: add_ writes into y's memory; t_ "
    "changes x's shape and strides, its data stays where it is. TF tensors never "
    "change: rebind the name, or keep state in a tf.Variable (assign, assign_add).",
)
def check_in_place(tf_out, torch_out):
    """Same y and shapes; y and x kept their memory, x now strided; a TF tensor refuses
    writes."""
    tf_y, tf_x_shape = tf_out
    torch_y, torch_x_shape, same_memory, contiguous = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="y after adding x in place")
    assert tuple(tf_x_shape) == tuple(torch_x_shape) == (3, 2), "x transposed"
    assert same_memory, "add_ and t_ must keep y's and x's memory"
    assert not contiguous, "t_() swaps strides, it does not move the data"
    x = tf.ones((2, 3))
    assert not hasattr(x, "assign_add"), "only a tf.Variable has assign_add"
    with refused(TypeError, claim="a TF tensor cannot be changed in place"):
        x[0, 0] = 5.0


# %%
# The NumPy bridge: .numpy() / tf.convert_to_tensor ↔ numpy() / from_numpy
# """"""""""""""""""""""""""""""""""""""""""""""""""""""""""""""""""""""""
# The same code on both sides: change the NumPy array, then look at the tensor. More on
# what shares memory with NumPy: :ref:`Tensors, storage and views
# <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>`.


def tf_numpy_bridge():
    a = tf.ones(5)
    b = a.numpy()  # a copy: b += 1 leaves a alone
    b += 1
    c = np.zeros(5, dtype=np.float32)
    d = tf.convert_to_tensor(c)  # a copy: c += 1 leaves d alone
    c += 1
    return a, d


def torch_numpy_bridge():
    a = torch.ones(5)
    b = a.numpy()  # shared memory: b += 1 changes a
    b += 1
    c = np.zeros(5, dtype=np.float32)
    d = torch.from_numpy(c)  # shared memory: c += 1 changes d
    c += 1
    return a, d


@cheatsheet.row(
    MEMORY,
    "convert_to_tensor ↔ numpy() / from_numpy",
    tf=tf_numpy_bridge,
    torch=torch_numpy_bridge,
    note="PyTorch shares memory both ways (CPU only; detach() first if it requires "
    "grad); TF copies both ways, and .numpy() needs eager mode.",
)
def check_numpy_bridge(tf_out, torch_out):
    """Changing the array shows in the PyTorch tensor and not in the TF one; .numpy()
    needs eager."""
    (tf_a, tf_d), (torch_a, torch_d) = tf_out, torch_out
    assert np.all(tf_a.numpy() == 1.0), "TF's .numpy() must copy: a changed with b"
    d_copied = np.all(tf_d.numpy() == 0.0)
    assert d_copied, "tf.convert_to_tensor must copy: d changed with c"
    a_shared = np.all(torch_a.numpy() == 2.0)
    assert a_shared, "a.numpy() must share a's memory: a missed b += 1"
    d_shared = np.all(torch_d.numpy() == 1.0)
    assert d_shared, "torch.from_numpy must share c's memory: d missed c += 1"
    with refused(RuntimeError, claim="numpy() of a tensor that requires grad"):
        torch.ones(1, requires_grad=True).numpy()
    with refused(TypeError, claim="numpy() of a tensor outside CPU memory"):
        torch.ones(1, device="meta").numpy()  # any non-CPU device

    @tf.function
    def numpy_in_a_graph(x):
        return x.numpy()

    with refused(AttributeError, claim="a tensor in a tf.function has no value yet"):
        numpy_in_a_graph(tf.ones(1))
    assert not hasattr(torch, "from_num"), "the PyTorch function is torch.from_numpy"


# %%
# tf.identity ↔ clone()
# """""""""""""""""""""


def tf_clone():
    x = tf.ones(3)
    y = tf.identity(x)  # rarely needed
    y = y + 1
    return x, y


def torch_clone():
    x = torch.ones(3)
    y = x.clone()  # new memory
    y.add_(1)  # x is unchanged
    return x, y


@cheatsheet.row(
    MEMORY,
    "tf.identity ↔ clone()",
    tf=tf_clone,
    torch=torch_clone,
    note="clone() copies, and gradients flow through it, to guard against in-place "
    "changes; TF tensors never change, so copies are rarely needed.",
)
def check_clone(tf_out, torch_out):
    """Same x and y; the clone does not share the original's memory."""
    for tf_value, torch_value, what in zip(tf_out, torch_out, "xy", strict=True):
        sidebyside.assert_close(tf_value, torch_value, what=what)
    x, y = torch_out
    assert not np.shares_memory(x.numpy(), y.numpy()), "clone() must copy"
    w = torch.ones(3, requires_grad=True)
    w.clone().sum().backward()
    assert torch.equal(w.grad, torch.ones(3)), "gradients flow through clone()"


# %%
# Shapes, dtypes and seeds
# ^^^^^^^^^^^^^^^^^^^^^^^^
#
# x.shape and tf.shape(x) ↔ x.shape / size()
# """"""""""""""""""""""""""""""""""""""""""
# Here the difference is a graph one: the TensorFlow function is traced once for any
# number of rows.


def tf_shape():
    x = tf.zeros((4, 3))

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def rows(x):
        unknown = x.shape[0] is None  # while tracing
        return tf.shape(x)[0], unknown  # at run time

    n, unknown = rows(x)
    return x.shape, n, unknown


def torch_shape():
    x = torch.zeros(4, 3)
    return x.shape, x.size(0)  # always known


@cheatsheet.row(
    TYPES,
    "x.shape, tf.shape(x) ↔ x.shape, size()",
    tf=tf_shape,
    torch=torch_shape,
    note="PyTorch shapes are concrete ints. In a TF graph, x.shape is the static "
    "shape (None where unknown) and tf.shape(x) the size at run time.",
)
def check_shape(tf_out, torch_out):
    """Same eager shape (4, 3); in the traced graph x.shape[0] was None, tf.shape(x)[0]
    is 4."""
    (tf_shape, tf_rows, unknown), (torch_shape, torch_rows) = tf_out, torch_out
    assert tuple(tf_shape) == tuple(torch_shape) == (4, 3), "the eager shapes agree"
    assert int(tf_rows) == torch_rows == 4, "the run-time number of rows"
    assert bool(unknown), "the static shape in the graph must not know the rows"


# %%
# tf.cast ↔ .to(dtype), and type promotion
# """"""""""""""""""""""""""""""""""""""""


def tf_cast():
    x = tf.constant([1.7, -1.7])
    n = tf.constant([1, 2])
    as_int = tf.cast(x, tf.int32)  # toward zero
    mixed = tf.cast(n, tf.float32) + x  # cast first
    return as_int, mixed


def torch_cast():
    x = torch.tensor([1.7, -1.7])
    n = torch.tensor([1, 2])
    as_int = x.to(torch.int32)  # toward zero
    mixed = n + x  # promoted to float32
    return as_int, mixed


@cheatsheet.row(
    TYPES,
    "tf.cast ↔ .to(dtype)",
    tf=tf_cast,
    torch=torch_cast,
    note="Both casts round toward zero. PyTorch promotes int + float to float; TF "
    "refuses mixed dtypes, so cast first.",
)
def check_cast(tf_out, torch_out):
    """Same values; int + float promotes in PyTorch and is refused by TF."""
    pairs = zip(tf_out, torch_out, ("cast", "sum"), strict=True)
    for tf_value, torch_value, what in pairs:
        sidebyside.assert_close(tf_value, torch_value, what=what)
    assert torch_out[1].dtype == torch.float32, "int + float32 promotes to float32"
    claim = "TF does not promote int32 + float32"
    with refused(tf.errors.InvalidArgumentError, claim=claim):
        tf.constant([1, 2]) + tf.constant([1.7, -1.7])


# %%
# Seeds: tf.random.Generator ↔ torch.Generator
# """"""""""""""""""""""""""""""""""""""""""""
# Local generators, so the global seeds of this page stay as they are.


def tf_seed():
    generator = tf.random.Generator.from_seed(0)  # seed 0
    x = generator.uniform((3,))  # uniform in [0, 1)
    return x


def torch_seed():
    generator = torch.Generator().manual_seed(0)  # seed 0
    x = torch.rand(3, generator=generator)  # uniform in [0, 1)
    return x


@cheatsheet.row(
    TYPES,
    "tf.random.Generator ↔ torch.Generator",
    tf=tf_seed,
    torch=torch_seed,
    note="The same seed gives different numbers in the two frameworks: compare them "
    "on shared data or weights, not on seeds.",
)
def check_seed(tf_x, torch_x):
    """Both uniform in [0, 1) and reproducible; the two frameworks' numbers differ."""
    for x in (sidebyside.parity.to_numpy(tf_x), sidebyside.parity.to_numpy(torch_x)):
        assert x.shape == (3,), "three numbers"
        assert np.all((0 <= x) & (x < 1)), "uniform numbers in [0, 1)"
    sidebyside.assert_close(tf_seed(), tf_x, what="TensorFlow, same seed again")
    sidebyside.assert_close(torch_seed(), torch_x, what="PyTorch, same seed again")
    differ = not np.allclose(tf_x.numpy(), torch_x.numpy())
    assert differ, "the same seed, different numbers"


# %%
# What a graph buys: save, recompute, custom gradients
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# The section :ref:`what a graph buys <sphx_glr_auto_examples_35_payoffs_plot_10_save_and_load.py>`
# teaches these three; each row here is the smallest version that runs.
#
# tf.saved_model ↔ torch.export: save, load
# """""""""""""""""""""""""""""""""""""""""


def tf_save_load():
    model = tf.Module()
    model.w = tf.Variable([1.0, 2.0])
    model.f = tf.function(  # a graph for any batch size
        lambda x: x * model.w, input_signature=[tf.TensorSpec([None, 2])]
    )
    with tempfile.TemporaryDirectory() as folder:
        tf.saved_model.save(model, folder)  # graphs + weights
        loaded = tf.saved_model.load(folder)  # no Python code needed
        y = loaded.f(tf.ones((5, 2)))  # traced with None: 5 is fine
    return y


def torch_save_load():
    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

        def forward(self, x):
            return x * self.w

    batch = torch.export.Dim("batch")  # any batch size
    program = torch.export.export(  # traced once, batch symbolic
        Scale(), (torch.ones(3, 2),), dynamic_shapes=({0: batch},)
    )
    file = io.BytesIO()
    torch.export.save(program, file)  # graph + weights (.pt2)
    file.seek(0)
    loaded = torch.export.load(file)  # no Scale class needed
    y = loaded.module()(torch.ones(5, 2))  # traced with 3: 5 is fine
    return y


@cheatsheet.row(
    PAYOFFS,
    "tf.saved_model.save ↔ torch.export.save",
    tf=tf_save_load,
    torch=torch_save_load,
    note="Both save the graph with its weights, and loading needs none of the Python "
    "that made it. TF keeps one graph per input signature; torch.export keeps one graph "
    "whose sizes may be symbolic. torch.jit.save (TorchScript) is deprecated: it warns "
    "to switch to torch.export.",
)
def check_save_load(tf_y, torch_y):
    """Same outputs after loading, for a batch size other than the traced one;
    torch.jit.save warns that it is deprecated."""
    sidebyside.assert_close(tf_y, torch_y, what="reloaded x * w")
    sidebyside.assert_close(torch_y, [[1.0, 2.0]] * 5, what="x * w")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.jit.save(torch.jit.script(torch.nn.Identity()), io.BytesIO())
    said = [str(w.message) for w in caught if "jit.save" in str(w.message)]
    assert any("deprecated" in m for m in said), "torch.jit.save warns it is deprecated"


# %%
# tf.recompute_grad ↔ checkpoint()
# """"""""""""""""""""""""""""""""


def tf_recompute():
    w = tf.Variable([[0.5, -1.0], [2.0, 0.1]])
    block = tf.recompute_grad(lambda h: tf.tanh(h @ w))  # run again
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(block(tf.ones((3, 2))) ** 2)
    return tape.gradient(loss, w)


def torch_recompute():
    w = torch.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
    h = checkpoint(  # keep the input, run again in backward
        lambda h: torch.tanh(h @ w), torch.ones(3, 2), use_reentrant=False
    )
    (h**2).sum().backward()
    return w.grad


@cheatsheet.row(
    PAYOFFS,
    "tf.recompute_grad ↔ checkpoint()",
    tf=tf_recompute,
    torch=torch_recompute,
    note="Both keep a block's inputs instead of its inner results, and run the block "
    "again in the backward pass: less memory, more compute. use_reentrant=False is the "
    "variant PyTorch recommends.",
)
def check_recompute(tf_grad, torch_grad):
    """Same gradient in both, and the same as without checkpointing."""
    sidebyside.assert_close(tf_grad, torch_grad, what="gradient through a checkpoint")
    w = torch.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
    (torch.tanh(torch.ones(3, 2) @ w) ** 2).sum().backward()
    sidebyside.assert_close(torch_grad, w.grad, what="with and without checkpointing")


# %%
# tf.custom_gradient ↔ autograd.Function
# """"""""""""""""""""""""""""""""""""""
# Rounding has no useful gradient; the *straight-through* trick used in quantised training
# rounds in the forward pass and passes the gradient through unchanged.


def tf_custom_gradient():
    @tf.custom_gradient  # returns the value and grad
    def round_through(x):
        def grad(upstream):  # the backward pass, written by hand
            return upstream

        return tf.round(x), grad

    x = tf.Variable([0.4, 1.6])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(round_through(x) * [1.0, 3.0])
    return tape.gradient(y, x)


def torch_custom_gradient():
    class RoundThrough(torch.autograd.Function):  # a subclass
        @staticmethod
        def forward(ctx, x):
            return torch.round(x)

        @staticmethod
        def backward(ctx, upstream):  # written by hand
            return upstream

    x = torch.tensor([0.4, 1.6], requires_grad=True)
    rounded = RoundThrough.apply(x)  # called through apply()
    y = (rounded * torch.tensor([1.0, 3.0])).sum()
    y.backward()
    return x.grad


@cheatsheet.row(
    PAYOFFS,
    "tf.custom_gradient ↔ autograd.Function",
    tf=tf_custom_gradient,
    torch=torch_custom_gradient,
    note="TF decorates a function that returns its value and its gradient function; "
    "PyTorch subclasses Function with a static forward and backward, called through "
    "apply(). Without them, rounding gives no gradient (TF: None) or zeros (PyTorch). "
    "For an op that torch.compile and torch.export must keep whole, without tracing "
    "into it, PyTorch has torch.library.custom_op with register_autograd.",
)
def check_custom_gradient(tf_grad, torch_grad):
    """Same gradient, [1, 3]; plain rounding gives None in TF and zeros in PyTorch."""
    sidebyside.assert_close(tf_grad, torch_grad, what="straight-through gradient")
    sidebyside.assert_close(torch_grad, [1.0, 3.0], what="the upstream gradient")
    x = tf.Variable([0.4, 1.6])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.round(x))
    assert tape.gradient(y, x) is None, "tf.round must have no gradient"
    x = torch.tensor([0.4, 1.6], requires_grad=True)
    torch.round(x).sum().backward()
    assert torch.equal(x.grad, torch.zeros(2)), "torch.round's gradient must be zero"


# %%
# Every row passed
# ^^^^^^^^^^^^^^^^
# Each row's check compared the two frameworks' results, and every row above passed.
# The picture shows a few of them at a glance, TensorFlow left and PyTorch right.
print(f"{len(cheatsheet.rows)} rows ran in both frameworks and passed their checks.")
print(sidebyside.parity_report())
glance = cheatsheet.figure(
    [
        "tf.Variable ↔ requires_grad",
        "tf.stop_gradient ↔ detach()",
        "tf.expand_dims ↔ unsqueeze",
        "tf.concat ↔ torch.cat",
        "tf.identity ↔ clone()",
    ]
)
# sphinx_gallery_thumbnail_number = 1

# %%
# The cheatsheet
# --------------
# How the two differ, over the lines that matter. Under each row, folded away: the whole
# code as it ran, what it returned, and what its check proved. The link above the table
# saves all the rows as one page to print.
cheatsheet.table(printable="tensor_cheatsheet.html")

# %%
# What to take away
# -----------------
# * Most operations translate name for name. The differences that bite are in meaning:
#   views and shared memory in PyTorch against values that never change in TensorFlow, a
#   training mode stored on the module against a ``training=`` argument, and gradients
#   that add up in ``.grad`` against a tape that keeps nothing.
# * Check a translation by comparing results on the same data, as every row here does.
#   The same seed does not give the same random numbers.
# * In a TensorFlow graph, ask ``tf.shape`` for sizes, and leave ``.numpy()`` and
#   ``float()`` to eager code (in a ``tf.function``, AutoGraph turns ``float()`` into a
#   tensor cast).
#
# Most rows follow the list of everyday operations in one of the source posts credited
# on :ref:`sources`; where that list was wrong (the shape of ``backward``'s ``gradient``,
# ``torch.from_num``), the row shows what really happens.
#
# References: ``tf.Variable``, ``tf.GradientTape``, ``tf.stop_gradient``,
# ``tf.gradients``, ``tf.device``, ``tf.slice``, ``tf.transpose``, ``tf.squeeze``,
# ``tf.expand_dims``, ``tf.nn.embedding_lookup``, ``tf.keras.layers.Embedding``,
# ``tf.stack``, ``tf.concat``, ``tf.math.divide``, ``tf.reduce_sum``, ``tf.reshape``,
# ``tf.convert_to_tensor``, ``tf.identity``, ``tf.shape``, ``tf.cast``,
# ``tf.random.Generator``, ``tf.saved_model.save``, ``tf.recompute_grad``,
# ``tf.custom_gradient``; ``torch.Tensor.requires_grad``, ``torch.nn.Module.train``,
# ``torch.no_grad``, ``torch.Tensor.detach``, ``torch.nn.Module.zero_grad``,
# ``torch.Tensor.backward``, ``torch.Tensor.to``, ``torch.Tensor.narrow``,
# ``torch.Tensor.t``, ``torch.Tensor.permute``, ``torch.Tensor.squeeze``,
# ``torch.nn.Embedding``, ``torch.stack``, ``torch.cat``, ``torch.Tensor.div``,
# ``torch.Tensor.view``, ``torch.from_numpy``, ``torch.Tensor.clone``, ``torch.export.export``,
# ``torch.utils.checkpoint.checkpoint``, ``torch.autograd.Function``,
# ``torch.library.custom_op``.
