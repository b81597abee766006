"""
``if`` vs ``tf.cond``
=====================

A branch chosen by a value that is only known when the data arrives: ``y = x @ w1`` when
``z < 0``, else ``y = x @ w2``. PyTorch runs an ordinary Python ``if`` and records only the branch
it took. A TensorFlow graph is built before ``z`` has a value, so it must hold *both* branches and
let the graph choose at run time: that is ``tf.cond``.

We run both for ``z = 10`` and ``z = -10`` on the same inputs, draw what each graph holds, and
watch ``tf.function`` turn a Python ``if`` on a tensor into a ``tf.cond`` for us. The comparison
comes from a source post credited on :ref:`sources`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, one seed, and the inputs: drawn once with NumPy and
# fed to both frameworks, so any difference in the results comes from the frameworks.
import sidebyside

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
rng = np.random.default_rng(0)
x_np = rng.standard_normal((3, 4), dtype=np.float32)
w1_np = rng.standard_normal((4, 5), dtype=np.float32)
w2_np = rng.standard_normal((4, 5), dtype=np.float32)
z_values = (10.0, -10.0)


def first_row(y):
    """The first row of a result, rounded, for printing."""
    return " ".join(f"{value:+.3f}" for value in y[0])


sidebyside.provenance()

# %%
# A branch chosen at run time
# ---------------------------
# ``tf.cond(pred, true_fn, false_fn)`` calls *both* Python functions while the graph is built (the
# list ``called`` records it, before anything runs) and puts both branches into the graph.
# ``Session.run`` then evaluates ``pred`` and runs one of them: one graph serves both values of
# ``z``. In PyTorch the ``if`` is plain Python: it looks at ``z`` and runs one line, and autograd
# records only that line.

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
# What each graph holds, drawn
# ----------------------------
# In TensorFlow 2, ``tf.cond`` adds one operation for the whole choice, ``StatelessIf`` (and an
# ``Identity`` for its result): an "if" that is one operation (*stateless*: its branches have no
# side effects, such as drawing a random number; a branch with one makes it ``If``). Each branch is a small graph of its own, a
# *function*, stored beside the main graph in its :term:`function library`, and the
# ``StatelessIf`` names the two it may call (``then_branch`` and ``else_branch``). So both matrix
# products are in the graph, whatever ``z`` will be. PyTorch's record differs from run to run:
# each holds only the product that ran.
#
# Top, TensorFlow's main graph. Middle, the two functions its ``StatelessIf`` names, drawn from
# the function library; both receive all of its inputs (grey) and multiply the two they need.
# Bottom, PyTorch's record of each run, under the branch that computes the same thing.
if_op = next(op for op in graph.get_operations() if op.type == "StatelessIf")
library = graph.as_graph_def().library.function  # the graph's function library
functions = {function.signature.name: function for function in library}
# sphinx_gallery_start_ignore
from sidebyside.graphs import TF_COLOR, TF_NOTE, draw_dag, tf_graph_to_networkx

from tensorflow.python.framework.function_def_to_graph import function_def_to_graph

mosaic = [["tf", "tf"], ["else_branch", "then_branch"], [10.0, -10.0]]
fig, axes = plt.subplot_mosaic(mosaic, figsize=(8, 5.8), height_ratios=(4, 3, 2))
drawn = {"main": sidebyside.draw_tf_graph(graph, axes["tf"], title="TensorFlow: the main graph")}
for attr, when in (("then_branch", "z < 0"), ("else_branch", "z ≥ 0")):
    function = functions[if_op.get_attr(attr).name]  # the function the op names
    dag = tf_graph_to_networkx(function_def_to_graph(function))
    for argument, tensor in zip(function.signature.input_arg, if_op.inputs[1:], strict=True):
        dag.nodes[argument.name]["label"] = f"{tensor.op.name}\nargument"  # what it receives
    draw_dag(dag, axes[attr], title=f"TensorFlow: {attr} ({when})", color=TF_COLOR, note=TF_NOTE)
    drawn[attr] = dag
for z_value, y in torch_graphs.items():
    title = f"PyTorch: grad_fn chain, z={z_value:+}"
    names = {"w1": w1, "w2": w2}
    drawn[z_value] = sidebyside.draw_autograd_graph(y, axes[z_value], names=names, title=title)
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore
# sphinx_gallery_thumbnail_number = 1

# %%
# Only the branch chosen runs
# ---------------------------
# Both branches are in the graph, but ``Session.run`` executes only the one ``pred`` picks. To see
# it, give a graph a second branch that fails whenever it runs: an assertion that is always false.
# With ``z = -10`` the run succeeds, because that branch is never executed; with ``z = 10`` it is,
# and the assertion fails.
with tf.Graph().as_default() as guarded:
    pick = tf.compat.v1.placeholder(tf.float32, shape=(), name="pick")

    def must_not_run():
        check = tf.debugging.Assert(False, ["the other branch ran"])
        with tf.control_dependencies([check]):
            return tf.constant(0.0)

    guarded_y = tf.cond(pick < 0, lambda: tf.constant(1.0), must_not_run)
failure = None
with tf.compat.v1.Session(graph=guarded) as session:
    print("z=-10:", session.run(guarded_y, {pick: -10.0}))
    try:
        session.run(guarded_y, {pick: 10.0})
    except tf.errors.InvalidArgumentError as error:
        failure = next(line for line in error.message.splitlines() if "assertion" in line)
print("z=+10: InvalidArgumentError:", failure)

# %%
# AutoGraph: a Python ``if`` inside ``tf.function``
# -------------------------------------------------
# Modern TensorFlow lets you write the ``if``. Before ``tf.function`` traces a Python function,
# its :term:`AutoGraph` step rewrites the function's source, and an ``if`` whose condition is a
# *tensor* becomes a ``tf.cond``. Below is one plain Python function, and both panes run that
# very function.


def branch(x, z, w1, w2):
    if z < 0:
        y = x @ w1
    else:
        y = x @ w2
    return y


# %%
# **TensorFlow (tf.function)**: the ``if`` on a tensor becomes a ``tf.cond``.
branch_tf = tf.function(branch)
x = tf.constant(x_np)
w1, w2 = tf.constant(w1_np), tf.constant(w2_np)
tf2_results = {}
for z_value in z_values:
    z = tf.constant(z_value)
    y = tf2_results[z_value] = branch_tf(x, z, w1, w2)
    print(f"z={z_value:+}: y[0] = {first_row(y.numpy())}")

# %%
# **PyTorch (eager)**: the same function, plain Python.
x = torch.from_numpy(x_np).to(torch_device)
w1 = torch.from_numpy(w1_np).to(torch_device)
w2 = torch.from_numpy(w2_np).to(torch_device)
torch2_results = {}
for z_value in z_values:
    z = torch.tensor(z_value, device=torch_device)
    y = torch2_results[z_value] = branch(x, z, w1, w2)
    print(f"z={z_value:+}: y[0] = {first_row(y.cpu().numpy())}")

# %%
# Going deeper: more on branches in graphs
# ----------------------------------------
#
# What AutoGraph wrote, and an ``if`` on a Python value
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``get_concrete_function`` returns the graph ``tf.function`` traced for one input signature (a
# :term:`concrete function`): for a tensor ``z`` it holds the ``StatelessIf``. An ``if`` on a
# plain Python value is not rewritten: it runs while tracing, so the graph holds only the branch
# taken, and each new value of ``z`` means a new trace (:term:`retracing`). Watch the trace count
# grow by one per Python value, while the tensor values shared one graph.
x, w1, w2 = tf.constant(x_np), tf.constant(w1_np), tf.constant(w2_np)
traced = branch_tf.get_concrete_function(x, tf.constant(1.0), w1, w2)
traced_ops = [op.type for op in traced.graph.get_operations()]
print("z a tensor, the graph holds StatelessIf:", "StatelessIf" in traced_ops)
print("traces after two tensor values of z:", branch_tf.experimental_get_tracing_count())
for z_value in z_values:
    by_value = branch_tf.get_concrete_function(x, z_value, w1, w2)
print("traces after two Python values too: ", branch_tf.experimental_get_tracing_count())
python_ops = [op.type for op in by_value.graph.get_operations()]
print("the graph for z=-10.0 (a Python float):")
print(sidebyside.wrap(" ".join(python_ops), "  "))
assert "StatelessIf" in traced_ops and "MatMul" not in traced_ops
assert "StatelessIf" not in python_ops and python_ops.count("MatMul") == 1
assert branch_tf.experimental_get_tracing_count() == 3  # 1 for tensors, 1 per Python value

# %%
# ``tf.autograph.to_code`` shows the rewritten function (printed from ``get_state`` to the
# ``if``). The two branches became the functions ``if_body`` and ``else_body``, each assigning
# ``y``, and the ``if`` became a call to ``ag__.if_stmt``, which builds a ``tf.cond`` when the
# condition is a tensor and simply calls one of the two otherwise. ``get_state`` and
# ``set_state`` read and write the variables the branches assign (``y``, named in ``('y',)``),
# so that ``if_stmt`` can collect each branch's ``y``; ``ag__.ld`` just reads a variable.
code = tf.autograph.to_code(branch).splitlines()
start = next(i for i, line in enumerate(code) if "def get_state" in line)
end = next(i for i, line in enumerate(code) if "if_stmt" in line)
for line in code[start:end]:
    if line.strip() and "Undefined" not in line:
        print(line[8:])  # without the indent of the function's body
print(sidebyside.wrap(code[end], hang="    "))

# %%
# Control flow v2, and TensorFlow 1's ``Switch`` and ``Merge``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The functional ``StatelessIf`` (or ``If``) with its branches as functions is what TensorFlow
# calls :term:`control flow v2`. TensorFlow 2 uses it in ``tf.compat.v1`` graphs too, and a branch
# with a side effect, such as a random number, turns ``StatelessIf`` into ``If``. The source post
# ran TensorFlow 1 (its names, such as ``tf.placeholder`` and ``tf.Session``, are gone from
# TensorFlow 2's main namespace and live on in ``tf.compat.v1``), and TensorFlow 1's ``tf.cond``
# built no ``If`` at all: a ``Switch`` operation sends a tensor to one of its two outputs,
# depending on ``pred``, the branches' operations sit in the main graph, and a ``Merge`` forwards
# whichever result arrives. TensorFlow 2 still has that implementation behind
# ``tf.compat.v1.disable_control_flow_v2()``, a process-wide switch, so we turn it back on in a
# ``finally``. The same ``tf.cond`` then gives ``Switch``, ``Merge`` and both ``MatMul``
# operations in the main graph, and the same numbers.
tf1_names = ["placeholder", "Session", "random_uniform", "global_variables_initializer"]
print("the post's names in tf:", [n for n in tf1_names if hasattr(tf, n)])
in_v1 = [n for n in tf1_names if hasattr(tf.compat.v1, n)]
print("in tf.compat.v1:", len(in_v1), "of", len(tf1_names))
print("control flow v2:", tf.compat.v1.control_flow_v2_enabled())
with tf.Graph().as_default():  # a side effect in a branch: If
    flip = tf.compat.v1.placeholder(tf.bool, shape=())
    tf.cond(flip, lambda: tf.random.uniform(()), lambda: 0.0)
    stateful = [op.type for op in flip.graph.get_operations()]
print("with a random branch:", " ".join(stateful))

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
print(sidebyside.wrap("control flow v1 operations: " + " ".join(v1_ops), hang="  "))
tf1_results = {}
with tf.compat.v1.Session(graph=v1_graph) as session:
    for z_value in z_values:
        feed = {x: x_np, z: z_value, w1: w1_np, w2: w2_np}
        tf1_results[z_value] = session.run(y, feed_dict=feed)
assert not any(hasattr(tf, n) for n in tf1_names) and in_v1 == tf1_names
assert "If" in stateful and "StatelessIf" not in stateful
assert {"Switch", "Merge", "MatMul"} <= set(v1_ops) and "StatelessIf" not in v1_ops
assert tf.compat.v1.control_flow_v2_enabled() == v2_was_on
for z_value in z_values:
    what = f"y for z={z_value:+} (Switch/Merge vs PyTorch)"
    sidebyside.assert_close(tf1_results[z_value], torch_results[z_value], what=what)

# %%
# They agree
# ----------
# What the text said, checked: both branches built and both in the graph, one product recorded
# per run, only the chosen branch run; and the same numbers all ways, against NumPy on the very
# same arrays.
assert called == ["true_fn", "false_fn"]
# sphinx_gallery_start_ignore
labels = {key: [dag.nodes[node]["label"] for node in dag] for key, dag in drawn.items()}
kinds = {key: [label.split("\n")[-1] for label in found] for key, found in labels.items()}
assert "MatMul" not in kinds["main"] and kinds["main"].count("StatelessIf") == 1
assert kinds["then_branch"].count("MatMul") == kinds["else_branch"].count("MatMul") == 1
for z_value, used, unused in ((10.0, "w2", "w1"), (-10.0, "w1", "w2")):
    assert kinds[z_value].count("MmBackward0") == 1
    assert f"{used}\nAccumulateGrad" in labels[z_value]
    assert f"{unused}\nAccumulateGrad" not in labels[z_value]
# sphinx_gallery_end_ignore
assert failure == "assertion failed: [the other branch ran]"
for z_value in z_values:
    label = f"y for z={z_value:+}"
    numpy_y = x_np @ (w1_np if z_value < 0 else w2_np)
    for name, y in (("TF1", tf_results[z_value]), ("NumPy", numpy_y)):
        sidebyside.assert_close(y, torch_results[z_value], what=f"{label} ({name} vs PyTorch)")
    y, torch_y = tf2_results[z_value], torch2_results[z_value]
    sidebyside.assert_close(y, torch_y, what=f"{label} (tf.function vs PyTorch)")
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A static graph is built before the data exists, so it must contain every branch;
#   ``tf.cond`` stores both and runs only the one ``pred`` picks.
# * PyTorch's ``if`` is ordinary Python: each run records only the branch it took, and the next
#   run may record a different graph.
# * Inside ``tf.function``, AutoGraph turns an ``if`` on a tensor into ``tf.cond``; an ``if`` on a
#   Python value is decided once, while tracing, and a new value traces a new graph.
#
# References: ``tf.cond``, ``tf.compat.v1.placeholder``, ``tf.compat.v1.Session``,
# ``tf.function``, ``tf.autograph.to_code``, ``tf.compat.v1.disable_control_flow_v2``,
# ``torch.Tensor.grad_fn``, ``torch.matmul``.
