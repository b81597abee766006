"""
Static graphs in PyTorch, too
=============================

PyTorch is eager by default, but it can capture graphs too, as ``torch.fx`` graphs, two ways:
``torch.export`` produces a self-contained graph much like a TensorFlow ``ConcreteFunction``, and
``torch.compile`` captures graphs on the fly to hand them to a compiler. This page captures one
small model with each tool, draws the captured graph beside TensorFlow's, then looks at what
each does when the data decides the branch: ``torch.compile`` *breaks* the graph and lets Python
choose, and both frameworks can keep the branch inside the graph, with ``tf.cond`` and
``torch.cond``.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import sidebyside
from sidebyside.capture import CountingBackend, call_names

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# One small model
# ---------------
# ``y = sum(relu(x W + b))`` over the last axis, with the same weights (drawn in NumPy) in both
# frameworks, and a batch of 5 rows.
rng = np.random.default_rng(0)
W_np = rng.normal(size=(3, 2)).astype(np.float32)
b_np = rng.normal(size=2).astype(np.float32)
x_np = rng.normal(size=(5, 3)).astype(np.float32)
x_pos_np = np.abs(x_np[0])  # a vector with a positive sum, and its negative


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, x):
        return torch.relu(self.linear(x)).sum(dim=-1)


small_torch = Small().to(torch_device)
with torch.no_grad():  # PyTorch stores the weight matrix transposed
    small_torch.linear.weight.copy_(torch.from_numpy(W_np.T))
    small_torch.linear.bias.copy_(torch.from_numpy(b_np))
x_torch = torch.from_numpy(x_np).to(torch_device)

# %%
# A whole graph, ready to run without the Python
# ----------------------------------------------
# ``tf.function`` traces the Python function into a :term:`concrete function`;
# ``torch.export.export`` traces the module into an :term:`ExportedProgram`. Both are graphs of
# framework operations, with the Python gone (drawn below).
#
# By default (``strict=False``) ``torch.export`` traces much as ``tf.function`` does: it runs
# ``forward``'s Python once, with :term:`fake tensors <fake tensor>` (shapes and dtypes, no data),
# and records the operations they reach (*Going deeper* shows it).

# %%
# **TensorFlow (tf.function)**: a ``ConcreteFunction``.
W_tf, b_tf = tf.constant(W_np), tf.constant(b_np)


@tf.function
def small_tf(x):
    return tf.reduce_sum(tf.nn.relu(x @ W_tf + b_tf), axis=-1)


spec = tf.TensorSpec((None, 3))
tf_concrete = small_tf.get_concrete_function(spec)
tf_y = tf_concrete(tf.constant(x_np))

# %%
# **PyTorch (torch.export)**: an ``ExportedProgram``.
exported = torch.export.export(small_torch, (x_torch,))
torch_y = exported.module()(x_torch)

# %%
# The two graphs, drawn
# ---------------------
# Both hold the same three steps: a linear layer, ``relu``, and a sum. TensorFlow spells the
# linear layer as ``MatMul`` and ``AddV2`` and keeps the weights inside the graph as constants
# (``Const``); the exported program keeps ``aten.linear`` as one operation and takes the weights
# as inputs, grey like ``x`` (*Going deeper* below says why).
dag = nx.DiGraph()  # the FX graph: a node per FX node (its name and target), edges from inputs
for node in exported.graph.nodes:
    target = str(node.target).removeprefix("aten.").removesuffix(".default")
    label = node.name if node.op in ("placeholder", "output") else f"{node.name}\n{target}"
    dag.add_node(node.name, label=label, leaf=node.op == "placeholder")
    dag.add_edges_from((source.name, node.name) for source in node.all_input_nodes)
fig, (ax_tf, ax_torch) = plt.subplots(2, 1, figsize=(8, 4.2))
sidebyside.draw_tf_graph(tf_concrete.graph, ax_tf, title="TensorFlow: the concrete function's graph")
sidebyside.graphs.draw_dag(dag, ax_torch, title="PyTorch: the ExportedProgram's graph",
                           color=sidebyside.graphs.TORCH_COLOR, note=sidebyside.graphs.TF_NOTE)
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# ``torch.compile``: graphs captured on the fly
# ---------------------------------------------
# ``torch.compile``'s front end, TorchDynamo, traces too, but at the level of Python bytecode:
# at the first call it runs the function's bytecode symbolically, with fake tensors, puts the
# tensor operations it meets into an FX graph, and attaches :term:`guards <guard>` to it. At every
# later call it checks the guards: if they pass, the graph runs without tracing again; if not,
# it traces again (a :term:`recompilation`). ``tf.function`` checks every call too, against the
# :term:`input signature` of each graph it traced; the difference is *what* is checked.
# ``tf.function`` looks at the arguments only; Dynamo's guards also cover the Python values the
# function read, such as a global, so a changed global means a new graph in PyTorch and a stale
# one in TensorFlow (:ref:`next page <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`).
# And where Dynamo meets Python it cannot put into a graph, it *breaks* the graph there and lets
# Python run that part, at every call (below).
#
# Each graph goes to a *backend*: by default :term:`Inductor`, a compiler. A backend is just a
# function that receives Dynamo's graph: ``sidebyside.capture.CountingBackend`` below keeps each
# graph and runs it as it is, counting the runs. A second call with the same shapes passes the
# guards and reuses the graph; ``torch.compiler.reset()`` forgets everything compiled.
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs
compiled = torch.compile(small_torch, backend=counting_backend)
compiled_y = compiled(x_torch)
compiled(x_torch)  # same shapes: the cached graph is reused
print(f"graphs: {len(graphs)}, runs: {len(graph_runs)}, operations in it: {call_names(graphs[0])}")
first_compile = (len(graphs), len(graph_runs), graphs[0])
torch.compiler.reset()  # forget compiled code: the next examples start clean

# %%
# Both branches in the graph: ``tf.cond`` and ``torch.cond``
# ----------------------------------------------------------
# When the branch taken depends on a tensor's *value*, a tracer holding stand-ins cannot know which
# way to go: ``torch.export`` stops with an error, and ``torch.compile`` breaks the graph there
# (*Going deeper* below shows both). The way out is the same in both frameworks: put *both* branches
# into the graph and let the graph choose at run time. Inside ``tf.function``, :term:`AutoGraph`
# rewrites a Python ``if`` on a tensor into ``tf.cond`` by itself (the ``StatelessIf`` operation
# below). In PyTorch we write ``torch.cond`` ourselves (a public API, marked prototype), and
# ``torch.export`` captures it as a ``cond`` node whose two branches are subgraphs.

# %%
# **TensorFlow (tf.function)**: AutoGraph turns the ``if`` into ``tf.cond``.
@tf.function
def cond_branchy(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    return x - 1


x_pos = tf.constant(x_pos_np)
captured = cond_branchy.get_concrete_function(x_pos)
types = [op.type for op in captured.graph.get_operations()]
print(sidebyside.wrap(" ".join(["operations:", *types]),
                      hang="  "))
y_pos, y_neg = captured(x_pos), captured(-x_pos)
print("sum > 0:", y_pos.numpy())
print("sum < 0:", y_neg.numpy())
tf_cond_y = (y_pos, y_neg)

# %%
# **PyTorch (torch.export)**: ``torch.cond`` keeps both branches.
class Cond(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x * 2,
                          lambda x: x - 1, (x,))


x_pos = torch.from_numpy(x_pos_np).to(torch_device)
captured = torch.export.export(Cond(), (x_pos,))
nodes = [node.name for node in captured.graph.nodes]
print(sidebyside.wrap(" ".join(["nodes:", *nodes]),
                      hang="  "))
module = captured.module()
y_pos, y_neg = module(x_pos), module(-x_pos)
print("sum > 0:", y_pos.cpu().numpy())
print("sum < 0:", y_neg.cpu().numpy())
torch_cond_y = (y_pos, y_neg)

# %%
# Going deeper: a data branch without ``cond``
# --------------------------------------------
# When the branch taken depends on a tensor's *value*, a tracer holding stand-ins cannot know
# which way to go. ``torch.export`` traces with symbolic values and stops at the first Python
# ``bool`` it would have to guess (``torch.fx``'s tracer refuses outright: *Going deeper*).
import contextlib
import io

from sidebyside import show_error


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


branchy = Branchy()
with contextlib.redirect_stderr(io.StringIO()):  # export prints its partial graph there
    show_error(RuntimeError, torch.export.export, branchy, (x_torch[0],), cut=" (")

# %%
# ``torch.compile`` does not give up: it captures the part before the branch, lets Python decide
# on the real value, and captures the branch that runs as another graph. That is a
# :term:`graph break`. The first call, with a positive sum, captures the comparison and the
# ``then`` branch; a negative sum takes the other branch for the first time, which is captured
# then, so the count grows by one. Each call runs the comparison's graph, returns to Python for
# the ``if``, and runs a branch's graph. ``fullgraph=True`` refuses the break: its error names
# the reason on its first line and, further down, the line of our code.
x_pos = torch.from_numpy(x_pos_np).to(torch_device)
graphs.clear()
compiled = torch.compile(branchy, backend=counting_backend)
compiled(x_pos)
after_positive = len(graphs)
compiled(-x_pos)
print(f"graphs after a positive sum: {after_positive}, after a negative sum: {len(graphs)}")
break_graphs = [call_names(g) for g in graphs]
print("their operations:", *break_graphs)
torch.compiler.reset()
fullgraph_error = None
try:
    torch.compile(branchy, fullgraph=True, backend=counting_backend)(x_pos)
except RuntimeError as error:  # torch._dynamo.exc.Unsupported
    fullgraph_error = str(error).splitlines()
    at = next(line for line in fullgraph_error if "code:" in line).split("code:")[1].strip()
    print(f"fullgraph=True: {type(error).__name__}: {fullgraph_error[0]}\n  at: {at}")
torch.compiler.reset()
assert break_graphs == [["sum", "gt"], ["mul"], ["sub"]]
assert fullgraph_error is not None and "x.sum() > 0" in at

# %%
# ``torch.cond`` runs under ``torch.compile`` too, even with ``fullgraph=True``: there is no graph
# break any more. One graph holds the comparison and a ``cond`` node, both branches live in it as
# subgraphs, and data for either branch runs through that one graph.
graphs.clear()
compiled = torch.compile(Cond(), fullgraph=True, backend=counting_backend)
compiled_cond_y = (compiled(x_pos), compiled(-x_pos))
torch.compiler.reset()
print(f"graphs: {len(graphs)}; the graph: {call_names(graphs[0])}")
print("  its subgraphs:", *(f"{name} {call_names(branch)}"
                            for name, branch in graphs[0].named_children()))
assert len(graphs) == 1 and "cond" in call_names(graphs[0])
assert all(map(torch.equal, compiled_cond_y, torch_cond_y))

# %%
# Going deeper: tracing, shapes and weights
# -----------------------------------------
# ``torch.fx`` is the graph format of PyTorch 2, and a toolkit for graph transformations. Its
# ``symbolic_trace``, the older front end, calls ``forward`` once with ``Proxy`` objects instead
# of tensors and writes every operation on them down as a node: :term:`tracing`, as in
# ``tf.function``. It returns a ``GraphModule``, whose Python code is generated from the graph.
# The two tools above hand out FX graphs too. A ``Proxy`` holds no value, so ``symbolic_trace``
# refuses a branch on the data (``branchy``) outright.
import torch.fx

traced = torch.fx.symbolic_trace(small_torch)
print(traced.code.strip())
print("branchy:")
show_error(torch.fx.proxy.TraceError, torch.fx.symbolic_trace, branchy, indent="  ")
assert torch.equal(traced(x_torch), small_torch(x_torch))
assert isinstance(exported.graph, torch.fx.Graph)
assert isinstance(first_compile[2], torch.fx.GraphModule)

# %%
# The first page's ``y = (w + x) * (w + 1)``, exported, is a graph of two additions and a
# multiplication, as ATen operations (PyTorch's operator library). A Python line in ``forward``
# shows what export ran it with: one call, with fake tensors.
ran_with = []


class FirstPage(torch.nn.Module):
    def forward(self, w, x):
        ran_with.append(type(w).__name__)  # plain Python
        return (w + x) * (w + 1)


first_page = torch.export.export(FirstPage(), (torch.tensor(1.0), torch.tensor(2.0)))
aten_ops = [str(n.target) for n in first_page.graph.nodes if n.op == "call_function"]
print(aten_ops)
print("forward ran with:", ran_with)
assert aten_ops == ["aten.add.Tensor", "aten.add.Tensor", "aten.mul.Tensor"]
assert ran_with == ["FakeTensor"]

# %%
# ``strict=True`` has :term:`TorchDynamo`, the front end of ``torch.compile``, analyse the
# bytecode instead; by ``export``'s documentation, the default does not check some assumptions
# the graph bakes in (it does check shapes), strict mode makes the graph sound but fails on more
# Python. Here both give the same graph.
strict = torch.export.export(small_torch, (x_torch,), strict=True)
assert [n.target for n in strict.graph.nodes] == [n.target for n in exported.graph.nodes]
print("strict=True: the same graph")

# %%
# The two graphs above do not take the same inputs. The ``TensorSpec((None, 3))`` left the batch
# dimension open, so TensorFlow's graph takes any batch. ``torch.export`` specialises every
# dimension to the example it traced with (5 rows), and the exported module checks it at every
# call: a batch of 4 fails that check. ``dynamic_shapes=`` with a ``torch.export.Dim`` is the
# counterpart of TensorFlow's ``None``: it declares the dimension dynamic, and the new program
# takes any batch.

# %%
# **TensorFlow (tf.function)**: ``None`` in the signature takes any batch.
ys = {rows: tf_concrete(tf.constant(x_np[:rows]))
      for rows in (5, 4, 1)}
print("batches of 5, 4, 1: y has shapes",
      *[tuple(y.shape) for y in ys.values()])
tf_y4 = ys[4]

# %%
# **PyTorch (torch.export)**: batch 5 only, unless declared dynamic.
refused = None
try:
    exported.module()(x_torch[:4])
except Exception as error:  # AssertionError on this PyTorch
    refused = error
    print(f"batch of 4: {type(error).__name__}: {error}")
batch = torch.export.Dim("batch")
any_batch = torch.export.export(
    small_torch, (x_torch,), dynamic_shapes={"x": {0: batch}})
ys = {rows: any_batch.module()(x_torch[:rows])
      for rows in (5, 4, 1)}
print("Dim, batches of 5, 4, 1: y has shapes",
      *[tuple(y.shape) for y in ys.values()])
torch_y4 = ys[4]
assert refused is not None  # the error's class is a detail
sidebyside.assert_close(tf_y4, torch_y4, what="batch of 4",
                        device=torch_device)

# %%
# In the drawing, TensorFlow's graph holds ``W`` and ``b`` as ``Const`` operations, while the
# exported program takes its weights as inputs. A ``tf.function`` that reads an eager tensor
# from outside *captures* it, and a small one (up to 128 numbers in this TensorFlow) is copied
# into the graph as a constant; a bigger one, or a ``tf.Variable``, becomes an input that the
# concrete function is fed at every call. An ``ExportedProgram`` *lifts* every parameter and
# buffer to an input of its graph (the ``p_`` placeholders) and keeps their values in its
# ``state_dict``, so the weights can be replaced without tracing again.

# %%
# **TensorFlow (tf.function)**: captured tensors: constants or inputs.
small, big = tf.ones(2), tf.ones(200)
var = tf.Variable(tf.ones(2))


@tf.function
def reads(x):
    return x * small + big[:2] + var


graph = reads.get_concrete_function(tf.TensorSpec((2,))).graph
inside = {id(outer): inner for outer, inner in graph.captures}
kinds = {}
for name, outer in [("2 numbers", small), ("200 numbers", big),
                    ("a tf.Variable", var.handle)]:
    kinds[name] = inside[id(outer)].op.type
    print(f"{name}: {kinds[name]}")
assert kinds == {"2 numbers": "Const",
                 "200 numbers": "Placeholder",
                 "a tf.Variable": "Placeholder"}

# %%
# **PyTorch (torch.export)**: parameters lifted to inputs.
for spec in exported.graph_signature.input_specs:
    source = f", from {spec.target}" if spec.target else ""
    print(f"{spec.arg.name}: {spec.kind.name}{source}")
print("state_dict:", list(exported.state_dict))

# %%
# ``export`` returns the *training IR*: ``aten.linear`` is still one operation.
# ``run_decompositions()`` lowers a program to the smaller *core ATen* operator set that a backend
# or a runtime implements, where the linear layer becomes a transpose (``permute``) and ``addmm``,
# which adds the bias to a matrix product in one operation.
#
# Dynamo's graph is forward only, with the torch functions the code called, not yet ATen
# operations. Under Inductor (or the ``aot_eager`` backend), :term:`AOTAutograd` then traces the
# backward pass ahead of time into an ATen graph of its own: the static counterpart of the
# gradient functions ``tf.function`` adds to a graph when a tape asks for gradients.
# ``aot_autograd`` builds such a backend from two functions, handed the forward and the backward
# graph (here they note the operations and run the graphs as they are; ``make_boxed_func`` adapts
# a graph to AOTAutograd's calling convention).
import warnings

from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

with warnings.catch_warnings():  # torch's own pytree code warns
    warnings.simplefilter("ignore", FutureWarning)
    core = exported.run_decompositions()
ops = {}
for name, program in [("training IR", exported), ("core ATen", core)]:
    ops[name] = [str(n.target).removeprefix("aten.")
                 for n in program.graph.nodes if n.op == "call_function"]


def keeper(name):
    def compiler(graph_module, example_inputs):
        ops[name] = [str(n.target).removeprefix("aten.")
                     for n in graph_module.graph.nodes if n.op == "call_function"]
        return make_boxed_func(graph_module.forward)
    return compiler


joint = aot_autograd(fw_compiler=keeper("AOT forward"), bw_compiler=keeper("AOT backward"))
try:
    torch.compile(small_torch, backend=joint)(x_torch).sum().backward()
finally:
    torch.compiler.reset()
    small_torch.zero_grad()
for name, names in ops.items():
    print(sidebyside.wrap(f"{name}: {', '.join(names)}", hang="  "))
assert "addmm.default" in ops["core ATen"] and "linear.default" in ops["training IR"]
torch.testing.assert_close(core.module()(x_torch), torch_y)  # same numbers
assert "addmm.default" in ops["AOT forward"] and "mm.default" in ops["AOT backward"]

# %%
# They agree
# ----------
# Every capture computes what eager PyTorch and TensorFlow's graphs compute; and what the text
# said, checked: one graph reused at the second call, and both branches kept by ``torch.cond``.
sidebyside.assert_close(tf_y, torch_y, what="captured small model", device=torch_device)
assert torch.equal(torch_y, small_torch(x_torch)) and torch.equal(compiled_y, torch_y)
assert first_compile[:2] == (1, 2)  # one graph, reused at the second call
for tf_v, torch_v in zip(tf_cond_y, torch_cond_y, strict=True):
    sidebyside.assert_close(tf_v, torch_v, what="cond", device=torch_device)
assert np.allclose(torch_cond_y[0].cpu(), 2 * x_pos_np)  # the "then" branch
assert np.allclose(torch_cond_y[1].cpu(), -x_pos_np - 1)  # the "else" branch
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * PyTorch's graphs are ``torch.fx`` graphs. ``torch.export`` captures a self-contained program
#   (like a ``ConcreteFunction``), by default by running the Python once with fake tensors.
#   ``torch.compile`` captures graphs on the fly for a compiler. ``torch.fx.symbolic_trace`` is
#   the older front end.
# * An exported program is specialised to the shapes of its example; ``dynamic_shapes=`` with a
#   ``torch.export.Dim`` declares a dimension dynamic, as ``None`` does in a ``TensorSpec``.
# * ``tf.function`` and TorchDynamo both trace once and check every later call before reusing a
#   graph: ``tf.function`` checks the arguments, Dynamo's guards also check the Python values the
#   function read. What Dynamo cannot capture breaks the graph and runs in Python at every call
#   (``fullgraph=True`` makes that an error).
# * A branch on a tensor's value needs both branches in the graph (``tf.cond``, or AutoGraph's
#   rewrite of ``if``; ``torch.cond``), or ``torch.compile`` splits the graph at the branch.
# * Next: :ref:`when a graph is rebuilt <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`
#   (new values, shapes, globals, guards) and :ref:`graph breaks and the recompile limit
#   <sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`.
#
# References: ``torch.fx.symbolic_trace``, ``torch.export.export`` (``strict``,
# ``dynamic_shapes``), ``torch.export.Dim``, ``ExportedProgram.run_decompositions``,
# ``torch.cond``, ``torch.compile``, ``torch.compiler.reset``, ``tf.function``, ``tf.cond``,
# ``tf.TensorSpec``.
