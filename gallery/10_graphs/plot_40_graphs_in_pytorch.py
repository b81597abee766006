"""
Static graphs in PyTorch, too
=============================

PyTorch is eager by default, but it can capture graphs too, and its graphs are ``torch.fx``
graphs. PyTorch 2 captures them two ways: ``torch.export`` produces a self-contained graph much
like a TensorFlow ``ConcreteFunction``, and ``torch.compile`` captures graphs on the fly to hand
them to a compiler. This page captures one small model with each tool (and with
``torch.fx.symbolic_trace``, the older front end), then looks at what each does when the data
decides the branch: ``torch.compile`` *breaks* the graph and lets Python choose, and both
frameworks can keep the branch inside the graph, with ``tf.cond`` and ``torch.cond``. Loops over a
length and new shapes are on :ref:`the next page
<sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import contextlib
import io
import warnings

import sidebyside
from sidebyside import show_error

import numpy as np
import tensorflow as tf
import torch
import torch.fx

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# One small model
# ---------------
# ``y = sum(relu(x W + b))`` over the last axis, with the same weights (drawn in NumPy) in both
# frameworks.
rng = np.random.default_rng(0)
W_np = rng.normal(size=(3, 2)).astype(np.float32)
b_np = rng.normal(size=2).astype(np.float32)
x_np = rng.normal(size=(5, 3)).astype(np.float32)


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
# ``torch.fx``: PyTorch's graph format
# ------------------------------------
# ``torch.fx`` is the graph format of PyTorch 2, and a toolkit for writing graph transformations.
# Its ``symbolic_trace``, the older front end, calls ``forward`` once with ``Proxy`` objects
# instead of tensors; every operation on a proxy is written down as a node. That is tracing in the
# same sense as ``tf.function``. The result is a ``GraphModule`` whose Python code is generated
# from that graph. The two tools below hand out FX graphs too: an ``ExportedProgram`` keeps one in
# ``.graph``, and ``torch.compile`` gives its backend a ``GraphModule`` (both checked below).
traced = torch.fx.symbolic_trace(small_torch)
print(traced.code.strip())
assert torch.equal(traced(x_torch), small_torch(x_torch))

# %%
# A whole graph, ready to run without the Python
# ----------------------------------------------
# ``tf.function`` traces the Python function into a ``ConcreteFunction``; ``torch.export.export``
# traces the module into an ``ExportedProgram``. Both are graphs of framework operations, with the
# Python gone. Below, every operation each one recorded.
#
# By default (``strict=False`` in this PyTorch) ``torch.export`` traces much as ``tf.function``
# does: it runs ``forward``'s Python once, with *fake tensors* that have shapes and dtypes but no
# data, and records the operations they reach. (``strict=True`` has TorchDynamo, the front end of
# ``torch.compile``, analyse the bytecode instead; the graph it returns is the same kind.)

# %%
# **TensorFlow (tf.function)**: a ``ConcreteFunction``.
W_tf, b_tf = tf.constant(W_np), tf.constant(b_np)


@tf.function
def small_tf(x):
    return tf.reduce_sum(tf.nn.relu(x @ W_tf + b_tf), axis=-1)


spec = tf.TensorSpec((None, 3))
captured = small_tf.get_concrete_function(spec)
for op in captured.graph.get_operations():
    print(f"{op.type:12s} {op.name}")
y = captured(tf.constant(x_np))
tf_y = y

# %%
# **PyTorch (torch.export)**: an ``ExportedProgram``.
captured = torch.export.export(small_torch, (x_torch,))
for node in captured.graph.nodes:
    print(f"{node.op:14s} {node.target}")
print("FX graph:", isinstance(captured.graph, torch.fx.Graph))
y = captured.module()(x_torch)
torch_y = y
exported = captured

# %%
# The same numbers from the captured graphs, and from eager PyTorch:
sidebyside.assert_close(tf_y, torch_y, what="captured small model", device=torch_device)
assert torch.equal(torch_y, small_torch(x_torch))
assert isinstance(exported.graph, torch.fx.Graph)

# %%
# The first page's ``y = (w + x) * (w + 1)``, exported, is a graph of two additions and a
# multiplication, as ATen operations (``ATen operations: 3``). A Python line in ``forward`` shows
# what export ran it with: one call, with fake tensors.
ran_with = []


class FirstPage(torch.nn.Module):
    def forward(self, w, x):
        ran_with.append(type(w).__name__)  # plain Python
        return (w + x) * (w + 1)


first_page = torch.export.export(FirstPage(), (torch.tensor(1.0), torch.tensor(2.0)))
aten_ops = [str(n.target) for n in first_page.graph.nodes if n.op == "call_function"]
print(aten_ops)
print("ATen operations:", len(aten_ops))
print("forward ran with:", ran_with)
assert aten_ops == ["aten.add.Tensor", "aten.add.Tensor", "aten.mul.Tensor"]
assert ran_with == ["FakeTensor"]

# %%
# ``export`` returns the *training IR*: in the small model's graph ``aten.linear`` is still one
# operation. ``run_decompositions()`` lowers a program to the smaller *core ATen* operator set
# that a backend or a runtime implements, where the linear layer is a transpose and a fused
# multiply-add:
with warnings.catch_warnings():  # torch's own pytree code warns
    warnings.simplefilter("ignore", FutureWarning)
    core = exported.run_decompositions()
ops = {}
for name, program in [("training IR", exported), ("core ATen", core)]:
    ops[name] = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    print(sidebyside.wrap(f"{name}: {', '.join(ops[name])}", hang="  "))
core_ops = ops["core ATen"]
assert core_ops[:2] == ["aten.permute.default", "aten.addmm.default"]
torch.testing.assert_close(core.module()(x_torch), torch_y)  # same numbers

# %%
# ``torch.compile``: graphs captured on the fly
# ---------------------------------------------
# ``torch.compile``'s front end, TorchDynamo, traces too, but at the level of Python bytecode:
# at the first call it runs the function's bytecode symbolically, with fake tensors, puts the
# tensor operations it meets into an FX graph, and *guards* the graph with checks on the inputs
# (shapes, dtypes, Python values it read). It keeps the result with the function's code object,
# and at every later call it checks the guards: if they pass, the graph runs without tracing
# again; if not, it traces again (it *recompiles*). Where it meets Python it cannot put into a
# graph, it does not give up as a tracer would: it *breaks* the graph there and lets Python run
# that part, at every call (below). Those two, guards and graph breaks, are what set it apart
# from ``tf.function``.
#
# Each graph goes to a *backend*, normally the Inductor compiler. A backend is just a function
# that receives the captured graph; this one collects the graphs and runs them as they are, so
# nothing is compiled and the example stays fast. It also counts how often a captured graph
# runs. Two calls with the same shapes pass the graph's guards, so the second reuses it:
# ``graphs: 1``. ``torch.compiler.reset()`` then forgets everything compiled, so each example
# starts clean.
graphs, graph_runs = [], []


def counting_backend(graph_module, example_inputs):
    graphs.append(graph_module)

    def run(*args):
        graph_runs.append(graph_module)
        return graph_module.forward(*args)  # the captured graph, as is

    return run


def call_names(graph_module):
    """The operations a captured graph calls, by name."""
    return [getattr(node.target, "__name__", str(node.target))
            for node in graph_module.graph.nodes if node.op.startswith("call")]


compiled = torch.compile(small_torch, backend=counting_backend)
try:
    assert torch.equal(compiled(x_torch), small_torch(x_torch))
    compiled(x_torch)  # same shapes: the cached graph is reused
    print("graphs:", len(graphs))
    calls = [n.name for n in graphs[0].graph.nodes if n.op.startswith("call")]
    print("operations in it:", calls)
    print("an FX GraphModule:",
          isinstance(graphs[0], torch.fx.GraphModule))
finally:
    torch.compiler.reset()  # forget compiled code: the next examples start clean
assert len(graphs) == 1 and len(graph_runs) == 2
assert isinstance(graphs[0], torch.fx.GraphModule)

# %%
# A branch that depends on the data
# ---------------------------------
# When the branch taken depends on a tensor's *value*, a tracer holding stand-ins cannot know
# which way to go. ``torch.fx`` refuses outright; ``torch.export`` traces with symbolic values and
# stops at the first Python ``bool`` it would have to guess.


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


class Branchy(torch.nn.Module):
    def forward(self, x):
        return branchy(x)


print("torch.fx:")
show_error(torch.fx.proxy.TraceError, torch.fx.symbolic_trace, branchy,
           indent="  ")
print("torch.export:")
# on failure, export also prints the partial graph to stderr: keep it off the page
with contextlib.redirect_stderr(io.StringIO()):
    try:
        torch.export.export(Branchy(), (x_torch[0],))
    except RuntimeError as error:  # GuardOnDataDependentSymNode
        name, lines = type(error).__name__, str(error).splitlines()
    else:
        raise AssertionError("torch.export traced a data-dependent branch")
print(sidebyside.wrap(f"{name}: {lines[0]}", "  ", hang="  "))
# the message also names the line of our code that raised
call = lines.index("The following call raised this error:")
print("  at:", lines[call + 2].strip())
x_pos_np = np.abs(x_np[0])  # a vector with a positive sum, and its negative

# %%
# ``torch.compile`` breaks the graph instead
# ------------------------------------------
# ``torch.compile`` does not give up: it captures the part before the branch, lets Python decide
# on the real value, and captures the branch that runs as another graph. That is a *graph break*.
# The first call, with a positive sum, leaves ``graphs: 2``; a negative sum takes the other branch
# for the first time, which is captured then: ``graphs: 3``. Each call runs the comparison's
# graph, returns to Python for the ``if``, and runs a branch's graph. ``fullgraph=True`` refuses
# the break and names it.
x_pos = torch.from_numpy(x_pos_np).to(torch_device)
graphs.clear()
compiled = torch.compile(branchy, backend=counting_backend)
compiled(x_pos)
print("graphs:", len(graphs))
compiled(-x_pos)
print("graphs:", len(graphs))
for number, graph_module in enumerate(graphs, 1):
    print(f"graph {number}:", call_names(graph_module))
torch.compiler.reset()
raised = False
try:
    torch.compile(branchy, fullgraph=True, backend=counting_backend)(x_pos)
except RuntimeError as error:  # torch._dynamo.exc.Unsupported
    raised = True
    print(f"fullgraph=True: {type(error).__name__}:", str(error).splitlines()[0])
torch.compiler.reset()
assert raised and [call_names(g) for g in graphs[:3]] == [["sum", "gt"], ["mul"], ["sub"]]

# %%
# Both branches in the graph: ``tf.cond`` and ``torch.cond``
# ----------------------------------------------------------
# The way out is the same in both frameworks: put *both* branches into the graph and let the
# graph choose at run time. Inside ``tf.function``, AutoGraph rewrites a Python ``if`` on a tensor
# into ``tf.cond`` by itself (the ``StatelessIf`` operation below). In PyTorch we write
# ``torch.cond`` ourselves (a public API, marked prototype), and ``torch.export`` captures it as a
# ``cond`` node whose two branches are subgraphs.

# %%
# **TensorFlow (tf.function)**: AutoGraph turns the ``if`` into ``tf.cond``.
@tf.function
def branchy(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    return x - 1


captured = branchy.get_concrete_function(tf.TensorSpec((3,)))
for op in captured.graph.get_operations():
    print(f"{op.type:12s} {op.name}")
x_pos = tf.constant(x_pos_np)
y_pos, y_neg = captured(x_pos), captured(-x_pos)
print("sum > 0:", y_pos.numpy())
print("sum < 0:", y_neg.numpy())
tf_cond_y = (y_pos, y_neg)

# %%
# **PyTorch (torch.export)**: ``torch.cond`` keeps both branches.


def cond_branchy(x):
    return torch.cond(
        x.sum() > 0, lambda x: x * 2, lambda x: x - 1, (x,)
    )


class Cond(torch.nn.Module):
    def forward(self, x):
        return cond_branchy(x)


captured = torch.export.export(Cond(), (x_torch[0],))
for node in captured.graph.nodes:
    print(f"{node.op:14s} {node.target}")
x_pos = torch.from_numpy(x_pos_np).to(torch_device)
module = captured.module()
y_pos, y_neg = module(x_pos), module(-x_pos)
print("sum > 0:", y_pos.cpu().numpy())
print("sum < 0:", y_neg.cpu().numpy())
torch_cond_y = (y_pos, y_neg)

# %%
# Both graphs take either branch, and agree:
for tf_value, torch_value in zip(tf_cond_y, torch_cond_y, strict=True):
    sidebyside.assert_close(tf_value, torch_value, what="cond", device=torch_device)
assert np.allclose(torch_cond_y[0].cpu(), 2 * x_pos_np)  # the "then" branch
assert np.allclose(torch_cond_y[1].cpu(), -x_pos_np - 1)  # the "else" branch

# %%
# ``torch.cond`` runs under ``torch.compile`` too, even with ``fullgraph=True``: there is no graph
# break any more. One graph holds the comparison and a ``cond`` node, both branches live in it as
# subgraphs, and data for either branch runs through that one graph: ``graphs: 1``.
graphs.clear()
compiled = torch.compile(cond_branchy, fullgraph=True, backend=counting_backend)
compiled_y = (compiled(x_pos), compiled(-x_pos))
torch.compiler.reset()
print("graphs:", len(graphs))
print("the graph:", call_names(graphs[0]))
for name, branch in graphs[0].named_children():
    print(f"  {name}:", call_names(branch))
assert len(graphs) == 1 and "cond" in call_names(graphs[0])
for compiled_value, exported_value in zip(compiled_y, torch_cond_y, strict=True):
    assert torch.equal(compiled_value, exported_value)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * PyTorch's graphs are ``torch.fx`` graphs. ``torch.export`` captures a self-contained program
#   (like a ``ConcreteFunction``), by default by running the Python once with fake tensors, in
#   the training IR (``run_decompositions()`` lowers it to core ATen). ``torch.compile`` captures
#   graphs on the fly for a compiler. ``torch.fx.symbolic_trace`` is the older front end.
# * ``tf.function`` and TorchDynamo both trace once and reuse the graph, but Dynamo guards each
#   graph with checks on its inputs, and what it cannot capture breaks the graph and runs in
#   Python at every call (``fullgraph=True`` makes that an error).
# * A branch on a tensor's value needs both branches in the graph (``tf.cond``, or AutoGraph's
#   rewrite of ``if``; ``torch.cond``), or ``torch.compile`` splits the graph at the branch.
# * Next: :ref:`when a graph is rebuilt <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`
#   (new values, shapes, loops over a length, guards) and :ref:`graph breaks, side effects and the
#   recompile limit <sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`.
#
# References: ``torch.fx.symbolic_trace``, ``torch.export.export`` (``strict``),
# ``ExportedProgram.run_decompositions``, ``torch.cond``, ``torch.compile``,
# ``torch.compiler.reset``, ``tf.function``, ``tf.cond``, ``tf.TensorSpec``.
