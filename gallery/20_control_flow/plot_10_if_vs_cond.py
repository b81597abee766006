"""
``if`` vs ``tf.cond``
=====================

A branch chosen by a value that is only known when the data arrives: ``y = x @ w1`` when
``z < 0``, else ``y = x @ w2``. PyTorch runs an ordinary Python ``if`` and records only the branch
it took. A TensorFlow graph is built before ``z`` has a value, so it must hold *both* branches and
let the graph choose at run time: that is ``tf.cond``. We run both for ``z = 10`` and ``z = -10``
on the same inputs, count what each graph really contains, and watch ``tf.function`` (AutoGraph)
turn a Python ``if`` on a tensor into a ``tf.cond`` for us. The comparison is the one of a source
post credited on :ref:`sources`. There, the PyTorch ``if`` tested ``z > 0`` where ``tf.cond``
tested ``z < 0``, and each framework drew its own random inputs, so the two printed results could
not agree; here both test ``z < 0`` on the same inputs, and we assert that they agree.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared inputs, the helpers of this site, and one seed.
import pprint

import sidebyside

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# One set of inputs
# -----------------
# The numbers are drawn once, with NumPy, and fed to both frameworks, so any difference in the
# results comes from the frameworks and not from their random generators.
rng = np.random.default_rng(0)
x_np = rng.standard_normal((3, 4), dtype=np.float32)
w1_np = rng.standard_normal((4, 5), dtype=np.float32)
w2_np = rng.standard_normal((4, 5), dtype=np.float32)
z_values = (10.0, -10.0)


def first_row(y):
    """The first row of a result, rounded, for printing."""
    return " ".join(f"{value:+.3f}" for value in y[0])


# %%
# A branch chosen at run time
# ---------------------------
# ``tf.cond(pred, true_fn, false_fn)`` calls *both* Python functions while the graph is built (the
# list ``called`` records it, before anything runs) and puts both branches into the graph;
# ``Session.run`` then evaluates ``pred`` and runs one of them. One graph serves both values of
# ``z``. In PyTorch the ``if`` is plain Python: it looks at ``z`` and runs one line.
#
# The source post's TensorFlow names, ``tf.placeholder``, ``tf.Session``, ``tf.random_uniform``
# and ``tf.global_variables_initializer``, are gone from TensorFlow 2's main namespace; they live
# on in ``tf.compat.v1``, and placeholders need a ``tf.Graph``, as in the pane below.
tf1_names = ["placeholder", "Session", "random_uniform", "global_variables_initializer"]
in_tf = [name for name in tf1_names if hasattr(tf, name)]
in_v1 = [name for name in tf1_names if hasattr(tf.compat.v1, name)]
print("in tf:", in_tf)
print("in tf.compat.v1:")
pprint.pp(in_v1, width=64, compact=True)
assert not any(hasattr(tf, name) for name in tf1_names)
assert all(hasattr(tf.compat.v1, name) for name in tf1_names)

# %%
# **TensorFlow (graph)**: both branches go into the graph, ``z`` picks one at run time.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(tf.float32, (3, 4), name="x")
    z = tf.compat.v1.placeholder(tf.float32, (), name="z")
    w1 = tf.compat.v1.placeholder(tf.float32, (4, 5), name="w1")
    w2 = tf.compat.v1.placeholder(tf.float32, (4, 5), name="w2")
    called = []

    def true_fn():
        called.append("true_fn")  # Python: runs while building
        return tf.matmul(x, w1)

    def false_fn():
        called.append("false_fn")
        return tf.matmul(x, w2)

    y = tf.cond(z < 0, true_fn, false_fn)
print("called while building:", called)
assert called == ["true_fn", "false_fn"]

tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for z_value in z_values:  # the same graph for both values
        feed = {x: x_np, z: z_value, w1: w1_np, w2: w2_np}
        tf_results[z_value] = session.run(y, feed_dict=feed)
        row = first_row(tf_results[z_value])
        print(f"z={z_value:+}: y[0] = {row}")

# %%
# **PyTorch (eager)**: a Python ``if``; each run records only the branch it took.
x = torch.from_numpy(x_np).to(torch_device)
w1 = torch.from_numpy(w1_np).to(torch_device).requires_grad_()
w2 = torch.from_numpy(w2_np).to(torch_device).requires_grad_()

torch_results, torch_graphs = {}, {}
for z_value in z_values:
    z = torch.tensor(z_value, device=torch_device)
    if z < 0:
        y = x @ w1
    else:
        y = x @ w2
    torch_results[z_value] = y.detach()
    torch_graphs[z_value] = y
    row = first_row(y.detach().cpu().numpy())
    print(f"z={z_value:+}: y[0] = {row}")

# %%
# What each graph holds
# ---------------------
# Count the matrix products. TensorFlow 2 builds ``tf.cond`` with *control flow v2*, and it does
# so in a ``tf.compat.v1`` graph like this one too (``control flow v2: True``): one functional
# operation, ``StatelessIf`` (``StatelessIf ops: 1``), whose two branches are small functions
# stored in the graph's function library. Both ``MatMul`` operations are in the graph, whatever
# ``z`` will be (``MatMul ops in the branch functions: 2``). (A branch with a side effect, such as
# drawing a random number, makes it ``If``; TensorFlow 1's ``Switch`` and ``Merge`` come further
# down.) PyTorch's record, walked back from ``y.grad_fn``, holds one matrix product per run,
# ``z=+10.0: 1 MmBackward0, the weight used is w2``, and it uses the weight of the branch that
# ran.

# %%
# **TensorFlow (graph)**: one ``StatelessIf`` op; both ``MatMul`` ops live in its branch
# functions.
top_level = [op.type for op in graph.get_operations()]
functions = graph.as_graph_def().library.function
branch_ops = [n.op for f in functions for n in f.node_def]
v2_on = tf.compat.v1.control_flow_v2_enabled()
print("control flow v2:", v2_on)
print("operations in the graph:")
pprint.pp(top_level, width=64, compact=True)
print("operations inside the branch functions:")
pprint.pp(sorted(branch_ops), width=64, compact=True)
if_ops = top_level.count("StatelessIf")
matmuls = branch_ops.count("MatMul")
print("StatelessIf ops:", if_ops)
print("MatMul ops in the branch functions:", matmuls)
assert v2_on and if_ops == 1 and matmuls == 2
with tf.Graph().as_default():  # a side effect in a branch: If
    flip = tf.compat.v1.placeholder(tf.bool, shape=())
    tf.cond(flip, lambda: tf.random.uniform(()), lambda: 0.0)
    stateful = [op.type for op in flip.graph.get_operations()]
print("with a random branch:", stateful)
assert "If" in stateful and "StatelessIf" not in stateful


# %%
# **PyTorch (eager)**: walk ``grad_fn``: one ``MmBackward0`` per run.
def backward_nodes(output):
    """Every node of the record behind ``output``.

    Found by walking ``grad_fn`` backwards.
    """
    found, todo = [], [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None:
            found.append(node)
            todo.extend(fn for fn, _ in node.next_functions)
    return found


for z_value, y in torch_graphs.items():
    nodes = backward_nodes(y)
    names = [type(node).__name__ for node in nodes]
    products = names.count("MmBackward0")
    # the AccumulateGrad nodes hold their leaf as .variable
    leaves = [getattr(n, "variable", None) for n in nodes]
    used_w1 = any(leaf is w1 for leaf in leaves)
    weight = "w1" if used_w1 else "w2"
    print(f"z={z_value:+}: {products} MmBackward0,",
          f"the weight used is {weight}")
    expected = "w1" if z_value < 0 else "w2"
    assert products == 1 and weight == expected

# %%
# Only the branch chosen runs
# ---------------------------
# Both branches are in the graph, but ``Session.run`` executes only the one ``pred`` picks. To see
# it, give a graph a second branch that fails whenever it runs: an assertion that is always false.
# With ``z = -10`` the run succeeds, because that branch is never executed; with ``z = 10`` it is,
# and the assertion fails.
with tf.Graph().as_default() as guarded, tf.device(tf_device):
    pick = tf.compat.v1.placeholder(tf.float32, shape=(), name="pick")

    def must_not_run():
        check = tf.debugging.Assert(False, ["the other branch ran"])
        with tf.control_dependencies([check]):
            return tf.constant(0.0)

    guarded_y = tf.cond(pick < 0, lambda: tf.constant(1.0), must_not_run)
failed = False
with tf.compat.v1.Session(graph=guarded) as session:
    print("z=-10:", session.run(guarded_y, {pick: -10.0}))
    try:
        session.run(guarded_y, {pick: 10.0})
    except tf.errors.InvalidArgumentError as error:
        failed = True
        reason = next(line for line in error.message.splitlines() if "assertion" in line)
        print("z=+10: InvalidArgumentError:")
        print(" ", reason)
assert failed

# %%
# The graphs, drawn
# -----------------
# Top, the TensorFlow graph: its ``StatelessIf`` node, with both branches folded inside it.
# Bottom, what PyTorch recorded on each run: a different graph each time, each with a single
# matrix product.
mosaic = [["tf", "tf"], [10.0, -10.0]]
fig, axes = plt.subplot_mosaic(mosaic, figsize=(11, 6.5), height_ratios=(2, 1))
sidebyside.draw_tf_graph(graph, axes["tf"])
for z_value, y in torch_graphs.items():
    title = f"PyTorch: grad_fn chain, z={z_value:+}"
    sidebyside.draw_autograd_graph(y, axes[z_value], names={"w1": w1, "w2": w2}, title=title)
fig.tight_layout()
plt.show()

# %%
# What TensorFlow 1 built: ``Switch`` and ``Merge``
# -------------------------------------------------
# The source post ran TensorFlow 1, whose ``tf.cond`` built no ``If`` at all: a ``Switch``
# operation sends a tensor to one of its two outputs, depending on ``pred``, the branch's
# operations sit in the main graph, and a ``Merge`` forwards whichever result arrives. TensorFlow 2
# still has that implementation behind ``tf.compat.v1.disable_control_flow_v2()``. It is a
# process-wide switch, so we turn it back on in a ``finally``. The same ``tf.cond`` then gives
# ``Switch`` and ``Merge`` and both ``MatMul`` operations at the top level, and the same numbers.
v2_was_on = tf.compat.v1.control_flow_v2_enabled()
tf.compat.v1.disable_control_flow_v2()
try:
    v1_graph = tf.Graph()
    with v1_graph.as_default(), tf.device(tf_device):
        x = tf.compat.v1.placeholder(tf.float32, shape=(3, 4), name="x")
        z = tf.compat.v1.placeholder(tf.float32, shape=(), name="z")
        w1 = tf.compat.v1.placeholder(tf.float32, shape=(4, 5), name="w1")
        w2 = tf.compat.v1.placeholder(tf.float32, shape=(4, 5), name="w2")
        y = tf.cond(z < 0, lambda: tf.matmul(x, w1), lambda: tf.matmul(x, w2))
finally:
    if v2_was_on:
        tf.compat.v1.enable_control_flow_v2()
v1_ops = sorted({op.type for op in v1_graph.get_operations()})
print("control flow v1 operations:")
pprint.pp(v1_ops, width=64, compact=True)
tf1_results = {}
with tf.compat.v1.Session(graph=v1_graph) as session:
    for z_value in z_values:
        feed = {x: x_np, z: z_value, w1: w1_np, w2: w2_np}
        tf1_results[z_value] = session.run(y, feed_dict=feed)
assert {"Switch", "Merge", "MatMul"} <= set(v1_ops) and "StatelessIf" not in v1_ops
assert tf.compat.v1.control_flow_v2_enabled() == v2_was_on

# %%
# AutoGraph: a Python ``if`` inside ``tf.function``
# ---------------------------------------------------
# Modern TensorFlow lets you write the ``if``. When ``tf.function`` traces a Python function,
# AutoGraph rewrites an ``if`` whose condition is a *tensor* into ``tf.cond``. The function body
# below is the same on both sides.


# %%
# **TensorFlow (tf.function)**: the ``if`` on a tensor becomes a ``tf.cond``.
@tf.function
def branch(x, z, w1, w2):
    if z < 0:
        y = x @ w1
    else:
        y = x @ w2
    return y


tf2_results = {}
with tf.device(tf_device):
    x = tf.constant(x_np)
    w1 = tf.constant(w1_np)
    w2 = tf.constant(w2_np)
    for z_value in z_values:
        z = tf.constant(z_value)
        tf2_results[z_value] = branch(x, z, w1, w2)
for z_value, y in tf2_results.items():
    print(f"z={z_value:+}: y[0] = {first_row(y.numpy())}")


# %%
# **PyTorch (eager)**: the same body, plain Python.
def branch(x, z, w1, w2):
    if z < 0:
        y = x @ w1
    else:
        y = x @ w2
    return y


torch2_results = {}
x = torch.from_numpy(x_np).to(torch_device)
w1 = torch.from_numpy(w1_np).to(torch_device)
w2 = torch.from_numpy(w2_np).to(torch_device)
for z_value in z_values:
    z = torch.tensor(z_value, device=torch_device)
    torch2_results[z_value] = branch(x, z, w1, w2)
for z_value, y in torch2_results.items():
    print(f"z={z_value:+}: y[0] = {first_row(y.cpu().numpy())}")

# %%
# What AutoGraph wrote
# --------------------
# ``tf.autograph.to_code`` shows the rewritten function: the two branches became ``if_body`` and
# ``else_body`` and the ``if`` became a call to ``ag__.if_stmt``, which builds a ``tf.cond`` when
# the condition is a tensor: one graph for every value of ``z``. When the condition is a plain
# Python value, ``if_stmt`` simply runs the branch it picks *while tracing*: the graph then holds
# one branch, and a different ``z`` makes ``tf.function`` trace a new graph. Two tensor values of
# ``z`` and two Python values give ``traces: 3``.
traced = tf.function(branch)  # the plain function of the PyTorch pane: the body is the same
code = tf.autograph.to_code(traced.python_function)
for line in code.splitlines():
    if "_body" in line or "if_stmt" in line:
        print(sidebyside.wrap(line, "    ").lstrip())  # a hanging indent

x, w1, w2 = tf.constant(x_np), tf.constant(w1_np), tf.constant(w2_np)
z_tensor = traced.get_concrete_function(x, tf.constant(1.0), w1, w2)
traced.get_concrete_function(x, tf.constant(-1.0), w1, w2)  # the same graph
z_python = traced.get_concrete_function(x, 10.0, w1, w2)
traced.get_concrete_function(x, -10.0, w1, w2)  # a new value: a new graph
ops_tensor = [op.type for op in z_tensor.graph.get_operations()]
ops_python = [op.type for op in z_python.graph.get_operations()]
print("z is a tensor:")
pprint.pp(ops_tensor, width=64, compact=True)
print("z is a Python float:")
pprint.pp(ops_python, width=64, compact=True)
print("traces:", traced.experimental_get_tracing_count())
assert "StatelessIf" in ops_tensor and "MatMul" not in ops_tensor
assert "StatelessIf" not in ops_python and ops_python.count("MatMul") == 1
assert traced.experimental_get_tracing_count() == 3

# %%
# They agree
# ----------
# Both branches, all three ways; these assertions run on every build. The reference is NumPy
# applied to the very same arrays.
for z_value in z_values:
    expected = x_np @ (w1_np if z_value < 0 else w2_np)
    label = f"y for z={z_value:+}"
    sidebyside.assert_close(
        tf_results[z_value], torch_results[z_value], what=f"{label} (TF1 vs PyTorch)"
    )
    sidebyside.assert_close(
        tf2_results[z_value], torch2_results[z_value], what=f"{label} (tf.function vs PyTorch)"
    )
    sidebyside.assert_close(expected, torch_results[z_value], what=f"{label} (NumPy vs PyTorch)")
    sidebyside.assert_close(
        tf1_results[z_value], torch_results[z_value], what=f"{label} (Switch/Merge vs PyTorch)"
    )
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A static graph is built before the data exists, so it must contain every branch;
#   ``tf.cond`` stores both and picks one at run time.
# * TensorFlow 2 builds ``tf.cond`` as one functional ``StatelessIf`` (or ``If``) operation with
#   the branches as functions, in ``tf.compat.v1`` graphs too (control flow v2); TensorFlow 1's
#   ``Switch`` and ``Merge`` are only what ``disable_control_flow_v2()`` brings back.
# * PyTorch's ``if`` is ordinary Python: each run records only the branch it took, and the next
#   run may record a different graph.
# * Inside ``tf.function``, AutoGraph turns an ``if`` on a tensor into ``tf.cond``; an ``if`` on a
#   Python value is decided once, while tracing.
#
# References: ``tf.cond``, ``tf.compat.v1.placeholder``, ``tf.compat.v1.Session``,
# ``tf.compat.v1.control_flow_v2_enabled``, ``tf.compat.v1.disable_control_flow_v2``,
# ``tf.function``, ``tf.autograph.to_code``, ``torch.Tensor.grad_fn``, ``torch.matmul``.
