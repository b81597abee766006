"""
Tensor cheatsheet: PyTorch ↔ TensorFlow
=======================================

A cheatsheet for translating between the two frameworks, one operation per row. Every row ran
while this page was built. The code in the table is the source of the two functions that ran,
the results beside it are what they returned, and a check compared the frameworks and proved
what the row claims: memory really shared, gradients really switched off, a tensor that really
cannot be changed in place. If a row stops being true, the build fails with the row's name in
the error. The rows come first, one short cell each; `The cheatsheet`_ at the end shows them as
one table, and you can download a compact version to print. Most rows follow the list of everyday
operations in one of the source posts credited on :ref:`sources`; where that list was wrong (the
shape of ``backward``'s ``gradient``, ``torch.from_num``), the row shows what really happens.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. The rows run on the
# CPU: the tensors are tiny, and the memory rows are about CPU memory. Only the device row uses
# the GPU, when there is one.
import ast
import base64
import contextlib
import html
import inspect
import io
import textwrap
import tokenize

import numpy as np
import tensorflow as tf
import torch
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

import sidebyside

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# How a row is made
# -----------------
# A row is two small functions, one per framework, and a check. ``@row(...)`` runs both
# functions at once and passes their results to the check it decorates. Then it records the row
# for the table: the code in the table is the functions' own source (``inspect.getsource``), and
# the results are the values named in their last ``return``. A failing check stops the build,
# and the message names the row. ``refused(...)`` proves that something is *not* allowed: its
# block must raise. The lines that carry a comment are the ones that matter: the compact version
# to print shows only those.
ROWS = []


def row(group, title, torch_fn, tf_fn, *, note):
    """Run ``torch_fn`` and ``tf_fn``, check their results with the decorated function, record."""

    def run_and_check(check):
        try:
            torch_out, tf_out = torch_fn(), tf_fn()
            check(torch_out, tf_out)
            torch_side = code_and_results(torch_fn, torch_out)
            tf_side = code_and_results(tf_fn, tf_out)
        except Exception as err:
            message = f"{type(err).__name__}: {str(err).strip()}"
            raise AssertionError(f"cheatsheet row '{title}': {message}") from err
        ROWS.append(
            {
                "group": group,
                "title": title,
                "note": note,
                "checked": check.__doc__,
                "torch": torch_side,
                "tf": tf_side,
            }
        )
        return check

    return run_and_check


def code_and_results(fn, returned):
    """The body of ``fn`` as it ran, its commented lines, and ``(name, value)`` per returned value."""
    source = textwrap.dedent(inspect.getsource(fn))
    definition = ast.parse(source).body[0]
    code = textwrap.dedent("\n".join(source.splitlines()[definition.body[0].lineno - 1 :]))
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    commented = {token.start[0] for token in tokens if token.type == tokenize.COMMENT}
    key = [line for number, line in enumerate(code.splitlines(), 1) if number in commented]
    assert key, f"{fn.__name__} needs a comment on the lines that matter"
    returned_expr = definition.body[-1].value
    if isinstance(returned_expr, ast.Tuple):
        results = list(zip(map(ast.unparse, returned_expr.elts), returned, strict=True))
    else:
        results = [(ast.unparse(returned_expr), returned)]
    return {"code": code, "key": "\n".join(line.strip() for line in key), "results": results}


@contextlib.contextmanager
def refused(*errors, claim):
    """The block must raise one of ``errors``: proof that the framework refuses it."""
    try:
        yield
    except errors:
        return
    raise AssertionError(f"expected {' or '.join(e.__name__ for e in errors)}: {claim}")


GRADIENTS = "Gradient bookkeeping"
OPERATIONS = "Tensor operations"
MEMORY = "Memory: views, in-place changes, NumPy"
TYPES = "Shapes, dtypes and seeds"

# %%
# Gradient bookkeeping
# --------------------
#
# requires_grad ↔ tf.Variable
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_requires_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)  # record
    loss = (w * w).sum()
    loss.backward()  # stored in w.grad
    return w.grad


def tf_requires_grad():
    w = tf.Variable([1.0, 2.0])  # trainable=True
    with tf.GradientTape() as tape:  # record
        loss = tf.reduce_sum(w * w)
    grad = tape.gradient(loss, w)  # returned
    return grad


@row(
    GRADIENTS,
    "requires_grad ↔ tf.Variable",
    torch_requires_grad,
    tf_requires_grad,
    note="PyTorch marks the tensor; TF records inside a GradientTape, which watches trainable "
    "Variables. torch.autograd.Variable is legacy (it returns a Tensor).",
)
def check_requires_grad(torch_grad, tf_grad):
    """Same gradient 2w; Variable(x) is a plain Tensor; a trainable=False Variable gets None."""
    sidebyside.assert_close(tf_grad, torch_grad, what="gradient of sum(w * w)")
    assert type(torch.autograd.Variable(torch.ones(1))) is torch.Tensor, "Variable is a Tensor"
    frozen = tf.Variable([1.0], trainable=False)
    with tf.GradientTape() as tape:
        loss = frozen * 2.0
    assert tape.gradient(loss, frozen) is None, "the tape must not watch a non-trainable Variable"


# %%
# model.train() / model.eval() ↔ training=
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_train_eval():
    model = torch.nn.Dropout(p=0.5)
    x = torch.ones(8)
    model.train()  # a mode stored on the module
    y_train = model(x)
    model.eval()  # until switched back; not no_grad()
    y_eval = model(x)
    return y_train, y_eval


def tf_train_eval():
    model = tf.keras.layers.Dropout(0.5, seed=0)
    x = tf.ones(8)
    y_train = model(x, training=True)  # an argument per call
    y_eval = model(x, training=False)  # the default
    return y_train, y_eval


@row(
    GRADIENTS,
    "model.train() / eval() ↔ training=",
    torch_train_eval,
    tf_train_eval,
    note="PyTorch: a mode stored on the module, training by default. Keras: an argument per call, "
    "inference by default (fit() passes training=True). eval() changes what layers compute "
    "(dropout off, batch norm's running statistics); it is not no_grad(): it records as before.",
)
def check_train_eval(torch_out, tf_out):
    """Training drops, scaling by 2; eval is the identity yet still records; the defaults differ."""
    for name, (y_train, y_eval) in {"PyTorch": torch_out, "TensorFlow": tf_out}.items():
        kept = sidebyside.parity.to_numpy(y_train)
        assert set(np.unique(kept)) <= {0.0, 2.0}, f"{name}: dropout keeps 0 or x / (1 - p)"
        sidebyside.assert_close(y_eval, np.ones(8, np.float32), what=f"{name} eval output")
    evaluating = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5)).eval()
    assert evaluating(torch.ones(2)).grad_fn is not None, "eval() must not stop recording"
    assert torch.nn.Dropout().training, "a new PyTorch module starts in training mode"
    sidebyside.assert_close(tf.keras.layers.Dropout(0.5)(tf.ones(8)), np.ones(8), what="Keras")


# %%
# torch.no_grad() ↔ no tape / tape.stop_recording()
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_no_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():  # nothing in here is recorded
        y = w * 2
    return y, y.requires_grad


def tf_no_grad():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        with tape.stop_recording():  # nothing in here is recorded
            y = w * 2
    grad = tape.gradient(y, w)
    return y, grad


@row(
    GRADIENTS,
    "no_grad() ↔ no tape / stop_recording()",
    torch_no_grad,
    tf_no_grad,
    note="PyTorch records by default and no_grad() opts out; TF records only inside a tape, so "
    "code outside one is already 'no_grad'. no_grad() leaves layers as they are: a module in "
    "train() mode still drops out (evaluation usually wants eval() and no_grad()).",
)
def check_no_grad(torch_out, tf_out):
    """Same values; nothing recorded, grad mode back on; dropout still drops; TF grad is None."""
    (torch_y, requires_grad), (tf_y, tf_grad) = torch_out, tf_out
    sidebyside.assert_close(tf_y, torch_y, what="y = w * 2")
    assert requires_grad is False and torch_y.grad_fn is None, "no_grad must record nothing"
    assert torch.is_grad_enabled(), "leaving no_grad() must switch gradients back on"
    assert tf_grad is None, "the tape must not have recorded y"
    dropout = torch.nn.Dropout(0.5).train()
    with torch.no_grad():
        dropped = dropout(torch.ones(1000))
    assert (dropped == 0).any(), "no_grad() must not switch dropout off"


# %%
# detach() ↔ tf.stop_gradient
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_detach():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    w_const = w.detach()  # same memory, no gradient
    loss = (w * w_const).sum()
    loss.backward()
    same_memory = w_const.data_ptr() == w.data_ptr()
    return w_const.requires_grad, same_memory, w.grad


def tf_detach():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        w_const = tf.stop_gradient(w)  # no gradient
        loss = tf.reduce_sum(w * w_const)
    grad = tape.gradient(loss, w)
    return grad


@row(
    GRADIENTS,
    "detach() ↔ tf.stop_gradient",
    torch_detach,
    tf_detach,
    note="Both make a factor constant for gradients; detach() also shares memory with the "
    "original, tf.stop_gradient is one op in the graph (StopGradient: identity forward, zero "
    "gradient).",
)
def check_detach(torch_out, tf_grad):
    """Same gradient (w, not 2w); the detached tensor requires no grad and shares memory."""
    requires_grad, same_memory, torch_grad = torch_out
    sidebyside.assert_close(tf_grad, torch_grad, what="gradient through a detached factor")
    sidebyside.assert_close(torch_grad, [1.0, 2.0], what="gradient equals w")
    assert requires_grad is False, "a detached tensor must not require grad"
    assert same_memory, "detach() must share memory with the original tensor"
    graph = tf.function(tf.stop_gradient).get_concrete_function(tf.ones(2)).graph
    ops = [op.type for op in graph.get_operations()]
    assert ops == ["Placeholder", "StopGradient", "Identity"], "stop_gradient is one op"


# %%
# zero_grad() ↔ a fresh GradientTape per step
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# Three steps of gradient descent on the same linear model with the same starting weights.
# The TensorFlow step is a ``tf.function``: a graph, traced once and run three times.


def torch_zero_grad():
    model = torch.nn.Linear(2, 1, bias=False)
    model.load_state_dict({"weight": torch.tensor([[0.5, -0.5]])})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    target = torch.tensor([[1.0], [2.0]])
    for _ in range(3):
        model.zero_grad()  # backward() adds to .grad
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()
        optimizer.step()  # apply
    return model.weight


def tf_zero_grad():
    model = tf.keras.layers.Dense(
        1, use_bias=False, kernel_initializer=tf.keras.initializers.Constant([[0.5], [-0.5]])
    )
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.02)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    target = tf.constant([[1.0], [2.0]])

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:  # new tape: nothing to zero
            loss = tf.reduce_mean((model(x) - target) ** 2)
        variables = model.trainable_variables
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables, strict=True))  # step()

    for _ in range(3):
        train_step()
    return model.kernel


@row(
    GRADIENTS,
    "zero_grad() ↔ a fresh tape per step",
    torch_zero_grad,
    tf_zero_grad,
    note="backward() adds into .grad until zero_grad() clears it (to None; to zeros with "
    "set_to_none=False); a tape returns fresh gradients and keeps none. Keras kernel: (in, out); "
    "Linear weight: (out, in).",
)
def check_zero_grad(torch_weight, tf_kernel):
    """Same weights after three steps (kernel = weight transposed); grads accumulate; zero_grad -> None."""
    sidebyside.assert_close(tf.transpose(tf_kernel), torch_weight, what="weights after 3 steps")
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
# backward(gradient=…) ↔ output_gradients= / grad_ys=
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# For a non-scalar ``y``, both compute the vector-Jacobian product: ``v`` has the shape of ``y``
# and weighs each of its elements, and the gradient has the shape of ``x``. Here ``x`` has three
# elements and ``y`` two, so a ``v`` shaped like ``x`` is refused. ``tf.gradients`` (graph mode
# only) takes the same ``v`` as ``grad_ys``.


def torch_backward_gradient():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = torch.tensor([1.0, 0.1])  # y's shape, not x's
    y = torch.stack([x.sum(), (x**2).sum()])
    y.backward(gradient=v)  # y is not a scalar
    return x.grad


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
        return tf.gradients(f(x), x, grad_ys=v)[0]  # graphs only

    return grad, graph_grad(x)


@row(
    GRADIENTS,
    "backward(gradient=) ↔ output_gradients=",
    torch_backward_gradient,
    tf_backward_gradient,
    note="gradient= (output_gradients=, grad_ys=) has y's shape; the result has x's. Without it, "
    "PyTorch refuses a non-scalar backward(); TF silently uses ones (the gradient of sum(y)). "
    "tf.gradients works only in graphs.",
)
def check_backward_gradient(torch_grad, tf_out):
    """Same v1 + v2 * 2x from tape and graph; v shaped like x, and no v at all, are refused."""
    tape_grad, graph_grad = tf_out
    sidebyside.assert_close(tape_grad, torch_grad, what="tape.gradient(output_gradients=v)")
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
    sidebyside.assert_close(tape.gradient(y, x), 2 * x, what="TF default: gradient of sum(y)")


# %%
# .cuda() / .to(device) ↔ tf.device
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# ``torch_device`` and ``tf_device`` come from the setup cell: the GPU when there is one.


def torch_to_device():
    x = torch.ones(3).to(torch_device)  # move
    y = torch.ones(3, device=torch_device)  # or create there
    z = x + y
    return z, z.device


def tf_device_scope():
    with tf.device(tf_device):  # ops in here run there
        x = tf.ones(3)
        y = tf.ones(3)
        z = x + y
    return z, z.device


@row(
    GRADIENTS,
    ".cuda() / .to(device) ↔ tf.device",
    torch_to_device,
    tf_device_scope,
    note="PyTorch tensors stay where you put them and mixing devices is an error; TF places each "
    "op itself (in the tf.device scope, else on a GPU when there is one) and copies its inputs "
    "there.",
)
def check_device(torch_out, tf_out):
    """Same values on the chosen device; PyTorch refuses mixed devices; TF places ops and copies."""
    (torch_z, torch_where), (tf_z, tf_where) = torch_out, tf_out
    sidebyside.assert_close(tf_z, torch_z, what="x + y")
    assert torch_where.type == torch_device, f"expected {torch_device}, got {torch_where}"
    assert tf_where.endswith("device:" + tf_device.lstrip("/")), f"expected {tf_device}"
    # "meta" is a PyTorch device without data: any other device would do
    with refused(RuntimeError, claim="PyTorch does not mix devices in one op"):
        torch.ones(3) + torch.ones(3, device="meta")
    unplaced = tf.ones(3) + 1  # no device asked for: a GPU when there is one
    assert unplaced.device.endswith("device:" + tf_device.lstrip("/")), "TF places ops itself"
    with tf.device("/CPU:0"):
        x_on_cpu = tf.ones(3)
    with tf.device(tf_device):
        copied = x_on_cpu + tf.ones(3)  # the input is copied over
    assert copied.device.endswith("device:" + tf_device.lstrip("/")), "TF copies inputs"


# %%
# Tensor operations
# -----------------
#
# narrow ↔ tf.slice
# ^^^^^^^^^^^^^^^^^


def torch_narrow():
    x = torch.arange(12.0).reshape(3, 4)
    y = x.narrow(1, 1, 2)  # dim 1, start 1, length 2
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared


def tf_narrow():
    x = tf.reshape(tf.range(12.0), (3, 4))
    y = tf.slice(x, begin=[0, 1], size=[3, 2])  # x[:, 1:3]
    return y


@row(
    OPERATIONS,
    "narrow ↔ tf.slice / x[:, 1:3]",
    torch_narrow,
    tf_narrow,
    note="narrow (like slicing) is a view: writing to it writes to x. A TF slice is a new tensor; "
    "TF tensors are never written to.",
)
def check_narrow(torch_out, tf_y):
    """Same values as x[:, 1:3] in both; narrow shares x's memory."""
    torch_y, shared = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="narrow vs tf.slice")
    x = tf.reshape(tf.range(12.0), (3, 4))
    sidebyside.assert_close(x[:, 1:3], tf_y, what="tf.slice vs slicing")
    assert shared, "narrow must return a view of x"


# %%
# t() / transpose ↔ tf.transpose
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# A transpose is a view with swapped strides, shown on :ref:`the storage page <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>`.


def torch_transpose():
    x = torch.arange(6.0).reshape(2, 3)
    y = x.t()  # = x.transpose(0, 1)
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared, y.is_contiguous()


def tf_transpose():
    x = tf.reshape(tf.range(6.0), (2, 3))
    y = tf.transpose(x)  # no perm: reverse all axes
    return y


@row(
    OPERATIONS,
    "t() / transpose(0, 1) ↔ tf.transpose",
    torch_transpose,
    tf_transpose,
    note="t() is a strided view (no copy, not contiguous) of at most 2 dims, where it equals "
    "transpose(0, 1); tf.transpose without perm reverses all axes. They agree on matrices.",
)
def check_transpose(torch_out, tf_y):
    """Same matrix; t() is a non-contiguous view; on 3 dims t() refuses, tf.transpose reverses."""
    torch_y, shared, contiguous = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="transpose of a matrix")
    assert shared and not contiguous, "t() must be a strided view of x"
    with refused(RuntimeError, claim="t() takes at most 2 dims"):
        torch.zeros(2, 3, 4).t()
    assert torch.zeros(2, 3, 4).transpose(0, 1).shape == (3, 2, 4), "transpose(0, 1) works"
    assert tf.transpose(tf.zeros((2, 3, 4))).shape == (4, 3, 2), "tf.transpose reverses all axes"


# %%
# permute ↔ tf.transpose(perm=…)
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_permute():
    x = torch.arange(24.0).reshape(2, 3, 4)
    y = x.permute(2, 0, 1)  # new order of the dims
    shared = np.shares_memory(x.numpy(), y.numpy())
    return y, shared


def tf_permute():
    x = tf.reshape(tf.range(24.0), (2, 3, 4))
    y = tf.transpose(x, perm=[2, 0, 1])  # same order
    return y


@row(
    OPERATIONS,
    "permute ↔ tf.transpose(perm=)",
    torch_permute,
    tf_permute,
    note="The same list of axes; permute returns a view, tf.transpose a new tensor.",
)
def check_permute(torch_out, tf_y):
    """Same values and shape (4, 2, 3); permute shares x's memory."""
    torch_y, shared = torch_out
    sidebyside.assert_close(tf_y, torch_y, what="permute vs transpose(perm)")
    assert tuple(torch_y.shape) == (4, 2, 3), "the dims in the new order"
    assert shared, "permute must return a view"


# %%
# squeeze ↔ tf.squeeze
# ^^^^^^^^^^^^^^^^^^^^


def torch_squeeze():
    x = torch.zeros(10, 1, 5)
    y = x.squeeze()  # (10, 5): every size-1 dim dropped
    kept = x.squeeze(0)  # size 10: left alone
    return y.shape, kept.shape


def tf_squeeze():
    x = tf.zeros((10, 1, 5))
    y = tf.squeeze(x)  # (10, 5)
    return y.shape


@row(
    OPERATIONS,
    "squeeze ↔ tf.squeeze",
    torch_squeeze,
    tf_squeeze,
    note="squeeze(0) on a dim that is not 1 silently does nothing in PyTorch; tf.squeeze(x, "
    "axis=0) raises an error.",
)
def check_squeeze(torch_out, tf_shape):
    """10×1×5 → 10×5 in both; squeezing a size-10 dim is a no-op in PyTorch, an error in TF."""
    torch_shape, kept_shape = torch_out
    assert tuple(torch_shape) == tuple(tf_shape) == (10, 5), "10×1×5 squeezes to 10×5"
    assert tuple(kept_shape) == (10, 1, 5), "squeeze(0) must leave a size-10 dim alone"
    with refused(tf.errors.InvalidArgumentError, claim="tf.squeeze(axis=0) of size 10 fails"):
        tf.squeeze(tf.zeros((10, 1, 5)), axis=0)


# %%
# unsqueeze ↔ tf.expand_dims
# ^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_unsqueeze():
    x = torch.tensor([1.0, 2.0, 3.0])
    y = x.unsqueeze(0)  # or x[None]
    return y


def tf_unsqueeze():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.expand_dims(x, axis=0)  # or x[tf.newaxis]
    return y


@row(
    OPERATIONS,
    "unsqueeze ↔ tf.expand_dims",
    torch_unsqueeze,
    tf_unsqueeze,
    note="The same operation; x[None] (x[tf.newaxis]) works in both.",
)
def check_unsqueeze(torch_y, tf_y):
    """Same values, shape (1, 3); x[None] gives the same in both."""
    sidebyside.assert_close(tf_y, torch_y, what="unsqueeze vs expand_dims")
    sidebyside.assert_close(tf.constant([1.0, 2.0, 3.0])[tf.newaxis], torch_y, what="x[None]")
    assert torch.equal(torch.tensor([1.0, 2.0, 3.0])[None], torch_y), "x[None] in PyTorch"
    assert tuple(torch_y.shape) == (1, 3), "a new leading dim"


# %%
# torch.stack ↔ tf.stack
# ^^^^^^^^^^^^^^^^^^^^^^


def torch_stack():
    rows = [torch.full((5,), float(i)) for i in range(10)]
    y = torch.stack(rows, dim=0)  # a new first dim: (10, 5)
    return y


def tf_stack():
    rows = [tf.fill((5,), float(i)) for i in range(10)]
    y = tf.stack(rows, axis=0)  # (10, 5)
    return y


@row(
    OPERATIONS,
    "torch.stack ↔ tf.stack",
    torch_stack,
    tf_stack,
    note="dim= is axis=. stack adds a new dim (all shapes must match); cat / concat joins along an "
    "existing one.",
)
def check_stack(torch_y, tf_y):
    """Ten length-5 tensors → shape (10, 5) in both; cat of the same list is flat."""
    sidebyside.assert_close(tf_y, torch_y, what="stack")
    assert tuple(torch_y.shape) == (10, 5), "stack adds a dim of size 10"
    assert tuple(torch.cat(list(torch_y)).shape) == (50,), "cat joins, it adds no dim"
    with refused(RuntimeError, claim="stack needs tensors of one shape"):
        torch.stack([torch.zeros(2), torch.zeros(3)])


# %%
# torch.cat ↔ tf.concat
# ^^^^^^^^^^^^^^^^^^^^^


def torch_cat():
    a, b = torch.zeros(2, 3), torch.ones(2, 3)
    rows = torch.cat([a, b], dim=0)  # (4, 3)
    cols = torch.cat([a, b], dim=1)  # (2, 6)
    return rows, cols


def tf_cat():
    a, b = tf.zeros((2, 3)), tf.ones((2, 3))
    rows = tf.concat([a, b], axis=0)  # axis is required
    cols = tf.concat([a, b], axis=1)  # (2, 6)
    return rows, cols


@row(
    OPERATIONS,
    "torch.cat ↔ tf.concat",
    torch_cat,
    tf_cat,
    note="torch.concat is another name for torch.cat, whose dim defaults to 0; tf.concat requires "
    "axis.",
)
def check_cat(torch_out, tf_out):
    """Shapes (4, 3) and (2, 6) with the same values; tf.concat without axis is refused."""
    for torch_y, tf_y, what in zip(torch_out, tf_out, ("dim 0", "dim 1"), strict=True):
        sidebyside.assert_close(tf_y, torch_y, what=f"concatenate along {what}")
    assert [tuple(y.shape) for y in torch_out] == [(4, 3), (2, 6)], "rows, then columns"
    a, b = torch.zeros(2, 3), torch.ones(2, 3)
    assert torch.equal(torch.concat([a, b]), torch.cat([a, b], dim=0)), "concat is cat, dim 0"
    with refused(TypeError, claim="tf.concat needs an axis"):
        tf.concat([tf.zeros(2), tf.ones(2)])


# %%
# nn.Embedding ↔ tf.nn.embedding_lookup / keras Embedding
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# The same 10 × 3 table in both, so the looked-up vectors can be compared.


def torch_embedding():
    table = torch.arange(30.0).reshape(10, 3)
    embedding = torch.nn.Embedding(10, 3)  # a trainable table
    embedding.load_state_dict({"weight": table})
    ids = torch.tensor([[1, 2, 3, 4], [4, 5, 6, 9]])
    vectors = embedding(ids)  # (2, 4, 3)
    return vectors


def tf_embedding():
    table = tf.reshape(tf.range(30.0), (10, 3))
    ids = tf.constant([[1, 2, 3, 4], [4, 5, 6, 9]])
    vectors = tf.nn.embedding_lookup(table, ids)  # (2, 4, 3)
    init = tf.keras.initializers.Constant(table)
    layer = tf.keras.layers.Embedding(10, 3, embeddings_initializer=init)  # trainable
    return vectors, layer(ids)


@row(
    OPERATIONS,
    "nn.Embedding ↔ embedding_lookup",
    torch_embedding,
    tf_embedding,
    note="The same lookup. nn.Embedding and keras Embedding own a trainable table; "
    "tf.nn.embedding_lookup indexes the table you pass (tf.gather).",
)
def check_embedding(torch_vectors, tf_out):
    """Shape (2, 4, 3) and the same vectors from all three; the PyTorch table is trainable."""
    lookup, keras_vectors = tf_out
    sidebyside.assert_close(lookup, torch_vectors, what="embedding_lookup vs nn.Embedding")
    sidebyside.assert_close(keras_vectors, torch_vectors, what="keras Embedding vs nn.Embedding")
    assert tuple(torch_vectors.shape) == (2, 4, 3), "one 3-vector per id"
    assert torch_vectors.requires_grad, "nn.Embedding's table is a trainable parameter"
    layer = tf.keras.layers.Embedding(10, 3)
    layer(tf.constant([1]))  # builds the table
    assert len(layer.trainable_weights) == 1, "keras Embedding's table is trainable"
    assert not hasattr(tf.nn, "embedding"), "the TF function is tf.nn.embedding_lookup"
    with refused(TypeError, claim="nn.Embedding needs a tensor of indices, not a list"):
        torch.nn.Embedding(10, 3)([[1, 2, 3, 4], [4, 5, 6, 9]])


# %%
# div ↔ tf.math.divide
# ^^^^^^^^^^^^^^^^^^^^


def torch_div():
    x = torch.tensor([1, 2, 3])
    y = x.div(2)  # true division, even of ints
    floor = x.div(2, rounding_mode="floor")  # or x // 2
    return y, floor


def tf_div():
    x = tf.constant([1, 2, 3])
    y = tf.math.divide(x, 2)  # int32 / int: float64
    floor = tf.math.floordiv(x, 2)  # = x // 2
    return y, floor


@row(
    OPERATIONS,
    "div ↔ tf.math.divide",
    torch_div,
    tf_div,
    note="Both divide ints exactly, into float32 in PyTorch but float64 in TF. Integer division: "
    "rounding_mode='floor' / tf.math.floordiv (// in both).",
)
def check_div(torch_out, tf_out):
    """Same values; true division gives float32 in PyTorch and float64 in TF; floor division."""
    (torch_y, torch_floor), (tf_y, tf_floor) = torch_out, tf_out
    sidebyside.assert_close(tf_y, torch_y, what="true division")
    sidebyside.assert_close(tf_floor, torch_floor, what="floor division")
    assert torch_y.dtype == torch.float32 and tf_y.dtype == tf.float64, "the dtypes differ"


# %%
# sum(dim=, keepdim=) ↔ tf.reduce_sum(axis=, keepdims=)
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# The same pattern holds for ``mean``, ``max`` and friends; ``item()`` is how a number leaves.


def torch_reduce():
    x = torch.arange(6.0).reshape(2, 3)
    per_row = x.sum(dim=1, keepdim=True)  # (2, 1)
    total = x.sum().item()  # a Python float
    return per_row, total


def tf_reduce():
    x = tf.reshape(tf.range(6.0), (2, 3))
    per_row = tf.reduce_sum(x, axis=1, keepdims=True)  # (2, 1)
    total = float(tf.reduce_sum(x))  # a float: eager only
    return per_row, total


@row(
    OPERATIONS,
    "sum(dim, keepdim) ↔ reduce_sum(axis, keepdims)",
    torch_reduce,
    tf_reduce,
    note="dim/keepdim are axis/keepdims. torch.max(x, dim) returns values and indices: "
    "tf.reduce_max and tf.argmax. float(t) gives a Python float in eager mode only: in a TF1 "
    "graph it raises, and in a tf.function AutoGraph makes it a cast, a tensor again.",
)
def check_reduce(torch_out, tf_out):
    """Same sums, shape (2, 1) and a Python float 15.0; max(dim) = reduce_max + argmax."""
    (torch_rows, torch_total), (tf_rows, tf_total) = torch_out, tf_out
    sidebyside.assert_close(tf_rows, torch_rows, what="sum per row, kept dim")
    assert torch_total == tf_total == 15.0 and isinstance(torch_total, float), "a Python float"
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
# --------------------------------------
# PyTorch tensors are buffers you may write to, and several tensors can share one buffer.
# TensorFlow tensors are values: nothing can change them, and the one mutable thing is a
# ``tf.Variable``. The page :ref:`Tensors, storage and views <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>` takes these rows
# further: storage, strides, when ``reshape`` copies, and aliasing.
#
# view / reshape ↔ tf.reshape
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_view():
    x = torch.arange(6.0)
    v = x.view(2, 3)  # same memory: writing to v writes to x
    v[0, 0] = 100.0
    r = v.t().reshape(6)  # not contiguous: a copy
    shared = np.shares_memory(x.numpy(), r.numpy())
    return x, v, shared


def tf_view():
    x = tf.range(6.0)
    v = tf.reshape(x, (2, 3))  # new shape
    v = tf.tensor_scatter_nd_update(v, [[0, 0]], [100.0])  # new tensor
    return x, v


@row(
    MEMORY,
    "view / reshape ↔ tf.reshape",
    torch_view,
    tf_view,
    note="view never copies (it fails instead); reshape copies when it must, so a write may or may "
    "not show through. TF never writes to a tensor.",
)
def check_view(torch_out, tf_out):
    """Same v; the write shows in x in PyTorch only; reshape of a transpose copies; view refuses."""
    (torch_x, torch_v, shared), (tf_x, tf_v) = torch_out, tf_out
    sidebyside.assert_close(tf_v, torch_v, what="v after setting v[0, 0]")
    assert torch_x[0].item() == 100.0, "x.view(2, 3) must share x's memory"
    assert tf_x[0].numpy() == 0.0, "a TF tensor never changes"
    assert not shared, "reshape of a transposed view must copy"
    with refused(RuntimeError, claim="view of a non-contiguous tensor"):
        torch.arange(6.0).view(2, 3).t().view(6)


# %%
# In-place ops (``add_``, ``t_``) ↔ tf.Variable.assign_add
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_in_place():
    x = torch.ones(2, 3)
    y = torch.zeros(2, 3)
    memory = y.data_ptr(), x.data_ptr()
    y.add_(x)  # trailing _: changes y itself
    x.t_()  # x itself is now 3×2: new strides, same data
    same_memory = (y.data_ptr(), x.data_ptr()) == memory
    return y, x.shape, same_memory, x.is_contiguous()


def tf_in_place():
    x = tf.ones((2, 3))
    y = tf.Variable(tf.zeros((2, 3)))
    y.assign_add(x)  # like y.add_(x)
    x = tf.transpose(x)  # a new tensor, same name
    return y, x.shape


@row(
    MEMORY,
    "add_(), t_() ↔ Variable.assign_add",
    torch_in_place,
    tf_in_place,
    note="A trailing _ changes the tensor itself: add_ writes into y's memory; t_ changes x's "
    "shape and strides, its data stays where it is. TF tensors never change: rebind the name, or "
    "keep state in a tf.Variable (assign, assign_add).",
)
def check_in_place(torch_out, tf_out):
    """Same y and shapes; y and x kept their memory, x now strided; a TF tensor refuses writes."""
    (torch_y, torch_x_shape, same_memory, contiguous), (tf_y, tf_x_shape) = torch_out, tf_out
    sidebyside.assert_close(tf_y, torch_y, what="y after adding x in place")
    assert tuple(torch_x_shape) == tuple(tf_x_shape) == (3, 2), "x transposed"
    assert same_memory, "add_ and t_ must keep y's and x's memory"
    assert not contiguous, "t_() swaps strides, it does not move the data"
    x = tf.ones((2, 3))
    assert not hasattr(x, "assign_add"), "only a tf.Variable has assign_add"
    with refused(TypeError, claim="a TF tensor cannot be changed in place"):
        x[0, 0] = 5.0


# %%
# The NumPy bridge: numpy() / from_numpy ↔ .numpy() / tf.convert_to_tensor
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# The same code on both sides: change the NumPy array, then look at the tensor. More on what
# shares memory with NumPy: :ref:`Tensors, storage and views <sphx_glr_auto_examples_30_reference_plot_20_tensors_and_storage.py>`.


def torch_numpy_bridge():
    a = torch.ones(5)
    b = a.numpy()  # shared memory: b += 1 changes a
    b += 1
    c = np.zeros(5, dtype=np.float32)
    d = torch.from_numpy(c)  # shared memory: c += 1 changes d
    c += 1
    return a, d


def tf_numpy_bridge():
    a = tf.ones(5)
    b = a.numpy()  # a copy: b += 1 leaves a alone
    b += 1
    c = np.zeros(5, dtype=np.float32)
    d = tf.convert_to_tensor(c)  # a copy: c += 1 leaves d alone
    c += 1
    return a, d


@row(
    MEMORY,
    "numpy() / from_numpy ↔ convert_to_tensor",
    torch_numpy_bridge,
    tf_numpy_bridge,
    note="PyTorch shares memory both ways (CPU only; detach() first if it requires grad); TF "
    "copies both ways, and .numpy() needs eager mode.",
)
def check_numpy_bridge(torch_out, tf_out):
    """Changing the array shows in the PyTorch tensor and not in the TF one; .numpy() needs eager."""
    (torch_a, torch_d), (tf_a, tf_d) = torch_out, tf_out
    assert np.all(torch_a.numpy() == 2.0), "a.numpy() must share a's memory: a missed b += 1"
    assert np.all(torch_d.numpy() == 1.0), "torch.from_numpy must share c's memory: d missed c += 1"
    assert np.all(tf_a.numpy() == 1.0), "TF's .numpy() must copy: a changed with b"
    assert np.all(tf_d.numpy() == 0.0), "tf.convert_to_tensor must copy: d changed with c"
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
# clone() ↔ tf.identity
# ^^^^^^^^^^^^^^^^^^^^^


def torch_clone():
    x = torch.ones(3)
    y = x.clone()  # new memory
    y.add_(1)  # x is unchanged
    return x, y


def tf_clone():
    x = tf.ones(3)
    y = tf.identity(x)  # rarely needed
    y = y + 1
    return x, y


@row(
    MEMORY,
    "clone() ↔ tf.identity",
    torch_clone,
    tf_clone,
    note="clone() copies, and gradients flow through it, to guard against in-place changes; TF "
    "tensors never change, so copies are rarely needed.",
)
def check_clone(torch_out, tf_out):
    """Same x and y; the clone does not share the original's memory."""
    for torch_value, tf_value, what in zip(torch_out, tf_out, "xy", strict=True):
        sidebyside.assert_close(tf_value, torch_value, what=what)
    x, y = torch_out
    assert not np.shares_memory(x.numpy(), y.numpy()), "clone() must copy"
    w = torch.ones(3, requires_grad=True)
    w.clone().sum().backward()
    assert torch.equal(w.grad, torch.ones(3)), "gradients flow through clone()"


# %%
# Shapes, dtypes and seeds
# ------------------------
#
# x.shape / size() ↔ x.shape and tf.shape(x)
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# Here the difference is a graph one: the TensorFlow function is traced once for any number of
# rows.


def torch_shape():
    x = torch.zeros(4, 3)
    return x.shape, x.size(0)  # always known


def tf_shape():
    x = tf.zeros((4, 3))

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def rows(x):
        unknown = x.shape[0] is None  # while tracing
        return tf.shape(x)[0], unknown  # at run time

    n, unknown = rows(x)
    return x.shape, n, unknown


@row(
    TYPES,
    "x.shape / size() ↔ x.shape and tf.shape(x)",
    torch_shape,
    tf_shape,
    note="PyTorch shapes are concrete ints. In a TF graph, x.shape is the static shape (None where "
    "unknown) and tf.shape(x) the size at run time.",
)
def check_shape(torch_out, tf_out):
    """Same eager shape (4, 3); in the traced graph x.shape[0] was None, tf.shape(x)[0] is 4."""
    (torch_shape, torch_rows), (tf_shape, tf_rows, unknown) = torch_out, tf_out
    assert tuple(torch_shape) == tuple(tf_shape) == (4, 3), "the eager shapes agree"
    assert torch_rows == int(tf_rows) == 4, "the run-time number of rows"
    assert bool(unknown), "the static shape in the graph must not know the number of rows"


# %%
# .to(dtype) ↔ tf.cast, and type promotion
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^


def torch_cast():
    x = torch.tensor([1.7, -1.7])
    n = torch.tensor([1, 2])
    as_int = x.to(torch.int32)  # toward zero
    mixed = n + x  # promoted to float32
    return as_int, mixed


def tf_cast():
    x = tf.constant([1.7, -1.7])
    n = tf.constant([1, 2])
    as_int = tf.cast(x, tf.int32)  # toward zero
    mixed = tf.cast(n, tf.float32) + x  # cast first
    return as_int, mixed


@row(
    TYPES,
    ".to(dtype) ↔ tf.cast",
    torch_cast,
    tf_cast,
    note="Both casts round toward zero. PyTorch promotes int + float to float; TF refuses mixed "
    "dtypes, so cast first.",
)
def check_cast(torch_out, tf_out):
    """Same values; int + float promotes in PyTorch and is refused by TF."""
    for torch_value, tf_value, what in zip(torch_out, tf_out, ("cast", "sum"), strict=True):
        sidebyside.assert_close(tf_value, torch_value, what=what)
    assert torch_out[1].dtype == torch.float32, "int + float32 promotes to float32"
    with refused(tf.errors.InvalidArgumentError, claim="TF does not promote int32 + float32"):
        tf.constant([1, 2]) + tf.constant([1.7, -1.7])


# %%
# Seeds: torch.Generator ↔ tf.random.Generator
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# Local generators, so the global seeds of this page stay as they are.


def torch_seed():
    generator = torch.Generator().manual_seed(0)  # seed 0
    x = torch.rand(3, generator=generator)  # uniform in [0, 1)
    return x


def tf_seed():
    generator = tf.random.Generator.from_seed(0)  # seed 0
    x = generator.uniform((3,))  # uniform in [0, 1)
    return x


@row(
    TYPES,
    "torch.Generator ↔ tf.random.Generator",
    torch_seed,
    tf_seed,
    note="The same seed gives different numbers in the two frameworks: compare them on shared "
    "data or weights, not on seeds.",
)
def check_seed(torch_x, tf_x):
    """Both uniform in [0, 1) and reproducible; the two frameworks' numbers differ."""
    for x in (sidebyside.parity.to_numpy(torch_x), sidebyside.parity.to_numpy(tf_x)):
        assert x.shape == (3,) and np.all((0 <= x) & (x < 1)), "uniform numbers in [0, 1)"
    sidebyside.assert_close(torch_seed(), torch_x, what="PyTorch, same seed again")
    sidebyside.assert_close(tf_seed(), tf_x, what="TensorFlow, same seed again")
    assert not np.allclose(torch_x.numpy(), tf_x.numpy()), "the same seed, different numbers"


# %%
# Rendering the table
# -------------------
# Plumbing, not part of the lesson: every recorded row becomes a heading line (the operation,
# how the two differ, what was checked) over two columns of code, each with what it returned.
# Pygments highlights the code; every other string is escaped. A result shows its dtype and
# shape, then its values (NumPy's formatting, long arrays shortened).
def describe(value):
    """A short, stable text for one returned value: tensors, Variables and arrays as numbers."""
    if isinstance(value, torch.Tensor | np.ndarray) or hasattr(value, "numpy"):
        array = sidebyside.parity.to_numpy(value)
        values = np.array2string(array, precision=4, threshold=12, edgeitems=2)
        if array.ndim == 0:
            return f"{array.dtype} {values}"
        return f"{array.dtype} {tuple(array.shape)}\n{values}"
    return repr(value)


def code_block(code):
    return f'<div class="highlight"><pre>{highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))}</pre></div>'


def side_cell(side, framework):
    shown = "\n".join(f"{name}: {describe(value)}" for name, value in side["results"])
    return (
        f'<td data-framework="{framework}">{code_block(side["code"])}'
        f'<pre class="sbs-result">{html.escape(shown)}</pre></td>'
    )


def anchor(text):
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


# Scoped to this table; the selectors are specific enough to win over the gallery's own table
# styles (centred cells, zebra rows, automatic column widths).
TABLE_CSS = """
.sbs-cheatsheet table.sbs-table { width: 100%; table-layout: fixed; border-collapse: collapse;
  margin: 0; font-size: 0.9rem; color: inherit; }
.sbs-cheatsheet table.sbs-table tbody tr, .sbs-cheatsheet table.sbs-table tbody tr:hover {
  background: none; }
.sbs-cheatsheet table.sbs-table th, .sbs-cheatsheet table.sbs-table td { text-align: left;
  vertical-align: top; padding: 0.3rem 0.4rem; white-space: normal; }
.sbs-cheatsheet table.sbs-table thead th { border-bottom: 4px solid; font-size: 1rem; }
.sbs-cheatsheet table.sbs-table thead th.sbs-torch { border-bottom-color: #ee4c2c; }
.sbs-cheatsheet table.sbs-table thead th.sbs-tf { border-bottom-color: #ff8f00; }
.sbs-cheatsheet table.sbs-table tr.sbs-group th { font-size: 1.15rem; padding-top: 1.5rem;
  border-bottom: 2px solid var(--pst-color-text-base, #222); }
.sbs-cheatsheet table.sbs-table tr.sbs-op th { font-weight: normal; padding-top: 0.9rem;
  border-top: 1px solid var(--pst-color-border, #ccc); }
.sbs-cheatsheet table.sbs-table tr.sbs-op strong { font-size: 1rem; margin-right: 0.5rem; }
.sbs-cheatsheet .sbs-checked { display: block; font-size: 0.8rem;
  color: var(--pst-color-text-muted, #555); }
.sbs-cheatsheet table.sbs-table div.highlight { margin: 0 0 0.3rem; }
.sbs-cheatsheet table.sbs-table div.highlight pre, .sbs-cheatsheet table.sbs-table pre.sbs-result {
  font-size: 0.75rem; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere;
  margin: 0; padding: 0.4rem; }
.sbs-cheatsheet table.sbs-table pre.sbs-result { background: none; color: inherit;
  border: none; border-left: 3px solid var(--pst-color-border, #ccc); }
@media (max-width: 720px) {  /* phones: the two sides one below the other, each labelled */
  .sbs-cheatsheet table.sbs-table thead { display: none; }
  .sbs-cheatsheet table.sbs-table tr, .sbs-cheatsheet table.sbs-table th,
  .sbs-cheatsheet table.sbs-table td { display: block; width: 100%; }
  .sbs-cheatsheet table.sbs-table td::before { content: attr(data-framework); font-weight: bold; }
}
"""


class CheatsheetTable:
    """All rows in one table, grouped; sphinx-gallery shows it through ``_repr_html_``."""

    def __init__(self, rows):
        self.rows = rows

    def _repr_html_(self):
        body, group = [], None
        for r in self.rows:
            if r["group"] != group:
                group = r["group"]
                body.append(
                    f'<tr class="sbs-group" id="cheatsheet-{anchor(group)}">'
                    f'<th colspan="2">{html.escape(group)}</th></tr>'
                )
            body.append(
                f'<tr class="sbs-op" id="cheatsheet-{anchor(r["title"])}"><th colspan="2">'
                f"<strong>{html.escape(r['title'])}</strong>{html.escape(r['note'])}"
                f'<span class="sbs-checked">✓ Checked: {html.escape(r["checked"])}</span>'
                f"</th></tr><tr>{side_cell(r['torch'], 'PyTorch')}{side_cell(r['tf'], 'TensorFlow')}</tr>"
            )
        return (
            f'<div class="sbs-cheatsheet"><style>{TABLE_CSS}</style><table class="sbs-table">'
            '<thead><tr><th class="sbs-torch">PyTorch</th><th class="sbs-tf">TensorFlow</th>'
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        )


# %%
# The cheatsheet
# --------------
# Every row above, as one table: the code as it ran and what it returned, under a line that
# says how the two frameworks differ and what the build checked.
print(f"{len(ROWS)} rows ran in both frameworks and passed their checks.")
print(sidebyside.parity_report())
CheatsheetTable(ROWS)

# %%
# A compact version to print
# --------------------------
# Every row on one A4 landscape page: the commented lines of each side and how the two differ,
# as one self-contained HTML file (inline styles, nothing fetched from the network). The link below carries the whole file in its
# address (a ``data:`` URL), so it works offline and needs no file beside this page. If you run
# this script yourself, save the file with
# ``pathlib.Path("tensor_cheatsheet.html").write_text(CompactCheatsheet(ROWS).html)``.
COMPACT_CSS = """
@page { size: A4 landscape; margin: 7mm; }
body { font: 6.6pt/1.15 system-ui, sans-serif; margin: 0 auto; max-width: 283mm; color: #000; }
header { margin: 0 0 2pt; } h1 { font-size: 10pt; margin: 0; display: inline; }
.meta { margin-left: 1em; color: #444; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
th, td { text-align: left; vertical-align: top; padding: 1pt 3pt; border-bottom: 0.4pt solid #bbb; }
tr { break-inside: avoid; }
tr.group th { font-size: 7.5pt; padding-top: 3pt; border-bottom: 0.8pt solid #000; }
pre { font: 6.2pt/1.15 ui-monospace, Menlo, Consolas, monospace; margin: 0; white-space: pre-wrap; }
td.note { font-size: 6pt; color: #333; }
"""


class CompactCheatsheet:
    """The rows as a standalone, print-friendly HTML page; displays as a download link."""

    def __init__(self, rows):
        lines, group = [], None
        for r in rows:
            if r["group"] != group:
                group = r["group"]
                lines.append(f'<tr class="group"><th colspan="4">{html.escape(group)}</th></tr>')
            lines.append(
                f"<tr><td><b>{html.escape(r['title'])}</b></td>"
                f"<td><pre>{html.escape(r['torch']['key'])}</pre></td>"
                f"<td><pre>{html.escape(r['tf']['key'])}</pre></td>"
                f'<td class="note">{html.escape(r["note"])}</td></tr>'
            )
        versions = f"PyTorch {torch.__version__} and TensorFlow {tf.__version__}"
        self.rows = len(rows)
        self.html = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            "<title>Tensor cheatsheet: PyTorch ↔ TensorFlow</title>"
            f"<style>{COMPACT_CSS}</style></head><body>"
            "<header><h1>Tensor cheatsheet: PyTorch ↔ TensorFlow</h1> "
            f'<span class="meta">Every row was executed and checked with {versions}.</span>'
            "</header>"
            '<table><colgroup><col style="width: 12%"><col style="width: 30%">'
            '<col style="width: 30%"><col style="width: 28%"></colgroup>'
            "<thead><tr><th>Operation</th><th>PyTorch</th><th>TensorFlow</th>"
            f"<th>How they differ</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
            "</body></html>"
        )

    def _repr_html_(self):
        data = base64.b64encode(self.html.encode("utf-8")).decode("ascii")
        kib = len(self.html.encode("utf-8")) / 1024
        return (
            '<p class="sbs-download"><a download="tensor_cheatsheet.html" '
            f'href="data:text/html;charset=utf-8;base64,{data}">'
            f"Download the one-page cheatsheet</a> (one HTML file, {kib:.0f} KiB, {self.rows} "
            "rows; open it in a browser and print it: A4 landscape).</p>"
        )


CompactCheatsheet(ROWS)

# %%
# What to take away
# -----------------
# * Most operations translate name for name. The differences that bite are in meaning: views
#   and shared memory in PyTorch against values that never change in TensorFlow, a training
#   mode stored on the module against a ``training=`` argument, and gradients that add up in
#   ``.grad`` against a tape that keeps nothing.
# * Check a translation by comparing results on the same data, as every row here does. The
#   same seed does not give the same random numbers.
# * In a TensorFlow graph, ask ``tf.shape`` for sizes, and leave ``.numpy()`` and ``float()``
#   to eager code (in a ``tf.function``, AutoGraph turns ``float()`` into a tensor cast).
#
# References: ``torch.Tensor.requires_grad``, ``torch.nn.Module.train``, ``torch.no_grad``,
# ``torch.Tensor.detach``, ``torch.nn.Module.zero_grad``, ``torch.Tensor.backward``,
# ``torch.Tensor.to``, ``torch.Tensor.narrow``, ``torch.Tensor.t``, ``torch.Tensor.permute``,
# ``torch.Tensor.squeeze``, ``torch.nn.Embedding``, ``torch.stack``, ``torch.cat``,
# ``torch.Tensor.div``, ``torch.Tensor.view``, ``torch.from_numpy``, ``torch.Tensor.clone``,
# ``tf.Variable``, ``tf.GradientTape``, ``tf.stop_gradient``, ``tf.gradients``, ``tf.device``,
# ``tf.slice``, ``tf.transpose``, ``tf.squeeze``, ``tf.expand_dims``, ``tf.nn.embedding_lookup``,
# ``tf.keras.layers.Embedding``, ``tf.stack``, ``tf.concat``, ``tf.math.divide``,
# ``tf.reduce_sum``, ``tf.reshape``, ``tf.convert_to_tensor``, ``tf.identity``, ``tf.shape``,
# ``tf.cast``, ``tf.random.Generator``.
