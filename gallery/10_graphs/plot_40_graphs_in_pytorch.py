"""
Static graphs in PyTorch, too
=============================

PyTorch is eager by default, but it can capture graphs too. PyTorch 2 does it two ways:
``torch.export`` produces a self-contained graph much like a TensorFlow ``ConcreteFunction``, and
``torch.compile`` captures graphs on the fly to hand them to a compiler. ``torch.compile``'s
front end, TorchDynamo, is *not* a tracer like ``tf.function``: it analyses your function's Python
bytecode as it runs, puts the tensor operations it understands into graphs, guards each graph with
checks on its inputs, and where it cannot capture something it *breaks* the graph and lets Python
run that part, at every call. (``torch.fx.symbolic_trace``, a toolkit for graph transformations,
and TorchScript, which this PyTorch deprecates, are older ways to get a graph.) This page captures
one small model with each tool, compares the two contracts, then looks at what each framework does
when the data decides the shape of the graph: a branch on a value, and a loop over the length.
Both frameworks can keep such a branch or loop *inside* the graph: ``tf.cond`` and
``tf.while_loop``, ``torch.cond`` and ``torch.while_loop``.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import contextlib
import io
import warnings

import numpy as np
import tensorflow as tf
import torch
import torch.fx

import sidebyside
from sidebyside import show_error

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
# ``torch.fx``: a graph recorded with stand-ins
# ---------------------------------------------
# ``torch.fx`` is a toolkit for writing graph transformations. Its ``symbolic_trace`` calls
# ``forward`` once with ``Proxy`` objects instead of tensors; every operation on a proxy is written
# down as a node. That is tracing in the same sense as ``tf.function``. The result is a
# ``GraphModule`` whose Python code is generated from that graph.
traced = torch.fx.symbolic_trace(small_torch)
print(traced.code.strip())
assert torch.equal(traced(x_torch), small_torch(x_torch))

# %%
# A whole graph, ready to run without the Python
# ----------------------------------------------
# ``tf.function`` traces the Python function into a ``ConcreteFunction``; ``torch.export.export``
# traces the module into an ``ExportedProgram``. Both are graphs of framework operations, with the
# Python gone. Below, every operation each one recorded.

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
y = captured.module()(x_torch)
torch_y = y

# %%
# The same numbers from the captured graphs, and from eager PyTorch:
sidebyside.assert_close(tf_y, torch_y, what="captured small model", device=torch_device)
assert torch.equal(torch_y, small_torch(x_torch))

# %%
# The first page's ``y = (w + x) * (w + 1)``, exported, is a graph of two additions and a
# multiplication, as ATen operations (``ATen operations: 3``).


class FirstPage(torch.nn.Module):
    def forward(self, w, x):
        return (w + x) * (w + 1)


first_page = torch.export.export(FirstPage(), (torch.tensor(1.0), torch.tensor(2.0)))
aten_ops = [str(n.target) for n in first_page.graph.nodes if n.op == "call_function"]
print(aten_ops)
print("ATen operations:", len(aten_ops))
assert aten_ops == ["aten.add.Tensor", "aten.add.Tensor", "aten.mul.Tensor"]

# %%
# ``torch.compile``: graphs captured on the fly
# ---------------------------------------------
# ``torch.compile`` captures graphs the first time the function runs and hands each one to a
# *backend*, normally the Inductor compiler. A backend is just a function that receives the
# captured graph; this one collects the graphs and runs them as they are, so nothing is
# compiled and the example stays fast. It also counts how often a captured graph runs. Two calls
# with the same shapes pass the graph's guards, so the second reuses it: ``graphs: 1``.
# ``torch.compiler.reset()`` then forgets everything compiled, so each example starts clean.
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
finally:
    torch.compiler.reset()  # forget compiled code: the next examples start clean
assert len(graphs) == 1 and len(graph_runs) == 2

# %%
# Two contracts: a trace, or the bytecode at every call
# -----------------------------------------------------
# The same function in both frameworks, with a Python ``print`` between two tensor operations,
# called three times. ``tf.function`` runs the Python once, with symbolic tensors, and keeps only
# the graph: the ``print`` ran at the trace and never again (``traces: 1``). ``torch.compile`` keeps
# Python's meaning at every call: it cannot put a ``print`` into a graph, so it breaks the graph
# there (``graphs: 2``: one before the ``print``, one after) and Python runs the ``print``, with a
# real tensor, on every call. With ``fullgraph=True`` a graph break is an error instead, and the
# error says why.

# %%
# **TensorFlow (tf.function)**: the Python runs once, at the trace.


@tf.function
def noisy(x):
    y = x * 2
    print("Python ran, y is a", type(y).__name__)
    return y + 1


for _ in range(3):
    y = noisy(tf.constant([1.0, 2.0]))
traces = noisy.experimental_get_tracing_count()
print("traces:", traces)
tf_noisy_y = y

# %%
# **PyTorch (torch.compile)**: the Python runs every call.


def noisy(x):
    y = x * 2
    print("Python ran, y is a", type(y).__name__)
    return y + 1


graphs.clear()
compiled = torch.compile(noisy, backend=counting_backend)
for _ in range(3):
    y = compiled(torch.tensor([1.0, 2.0], device=torch_device))
print("graphs:", len(graphs))
for number, graph_module in enumerate(graphs, 1):
    print(f"graph {number}:", call_names(graph_module))
torch.compiler.reset()
raised = False
try:
    torch.compile(
        noisy, fullgraph=True, backend=counting_backend
    )(y)
except RuntimeError as error:  # torch._dynamo.exc.Unsupported
    raised = True
    reason = str(error).splitlines()[0]
    print(f"fullgraph=True: {type(error).__name__}: {reason}")
torch.compiler.reset()
torch_noisy_y = y

# %%
# The same values; ``traces: 1`` against ``graphs: 2`` and a Python ``print`` at every call:
sidebyside.assert_close(tf_noisy_y, torch_noisy_y, what="noisy(x)", device=torch_device)
assert traces == 1 and raised
assert [call_names(g) for g in graphs[:2]] == [["mul"], ["add"]]

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

# %%
# A loop over the sequence length
# -------------------------------
# An RNN-style loop, ``for t in range(x.shape[0])``, runs once per time step. A tracer sees the
# length as a plain number and *unrolls* the loop: the graph has exactly that many steps. Both
# frameworks trace at length 10 and then get a sequence of length 20. ``tf.function`` notices the
# new shape and traces again (``traces: 2``). ``torch.jit.trace`` (TorchScript) does not check:
# it silently runs the 10-step graph. This PyTorch deprecates TorchScript (the warning is printed
# below); it is shown because its failure is instructive and because older code still uses it.
w_np = (0.5 * rng.normal(size=(4, 4))).astype(np.float32)
x10_np = rng.normal(size=(10, 4)).astype(np.float32)
x20_np = rng.normal(size=(20, 4)).astype(np.float32)

# %%
# **TensorFlow (tf.function)**: one trace per length; right at both.
w = tf.constant(w_np)
x10 = tf.constant(x10_np)
x20 = tf.constant(x20_np)


def rnn_loop(x, w):
    h = tf.zeros(w.shape[0])
    for t in range(x.shape[0]):  # a Python loop: unrolled
        h = tf.tanh(tf.linalg.matvec(w, h) + x[t])
    return h


graph_loop = tf.function(rnn_loop)
y10, y20 = graph_loop(x10, w), graph_loop(x20, w)
print("traces:", graph_loop.experimental_get_tracing_count())
eager20 = rnn_loop(x20, w)
print("right at 20 steps:", np.allclose(y20, eager20))
tf_y20, tf_rnn_loop = y20, rnn_loop

# %%
# **PyTorch (torch.jit.trace)**: one trace; wrong at length 20.
w = torch.from_numpy(w_np).to(torch_device)
x10 = torch.from_numpy(x10_np).to(torch_device)
x20 = torch.from_numpy(x20_np).to(torch_device)


def rnn_loop(x, w):
    h = torch.zeros(w.shape[0], device=w.device)
    for t in range(x.shape[0]):  # a Python loop: unrolled
        h = torch.tanh(w @ h + x[t])
    return h


# torch.jit is deprecated: record its warnings, print them below
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    graph_loop = torch.jit.trace(rnn_loop, (x10, w))
y10, y20 = graph_loop(x10, w), graph_loop(x20, w)
eager20, eager10 = rnn_loop(x20, w), rnn_loop(x20[:10], w)
print("right at 20 steps:", torch.allclose(y20, eager20))
print("it ran only 10:", torch.allclose(y20, eager10))
warned = sorted({c.category.__name__ for c in caught})
print("warnings while tracing:", warned)
print(sidebyside.wrap(str(caught[0].message)))
torch_y20, torch_rnn_loop = y20, rnn_loop

# %%
# Eager PyTorch and ``tf.function`` agree at 20 steps; the traced TorchScript graph does not:
eager_y20 = torch_rnn_loop(x20, w)
sidebyside.assert_close(tf_y20, eager_y20, what="20-step loop", device=torch_device)
assert not torch.allclose(torch_y20, eager_y20)
assert warned == ["DeprecationWarning"]  # no TracerWarning about the loop

# %%
# A new shape: capture again, or generalise
# -----------------------------------------
# Both frameworks check the shapes a graph was captured for. Feed the small model batches of 2, 3,
# 4 and 5 rows and count new graphs per call. By default ``tf.function`` traces once per shape.
# With ``reduce_retracing=True`` its second trace generalises the shape that changed to ``None``
# and serves every batch after it: ``reduce_retracing=True: new traces [1, 1, 0, 0]``.
# ``torch.compile`` has the same idea built in: its default, ``dynamic=None``, compiles the first
# call for exact shapes, and when a size changes it recompiles with that dimension marked
# *dynamic*, a symbolic size (*automatic dynamic shapes*):
# ``dynamic=None: new graphs [1, 1, 0, 0]``.
# ``dynamic=False`` specialises on every shape instead. (An ``input_signature`` with ``None``
# makes a dimension dynamic from the very first trace; the next section uses one.)
batches_np = [rng.normal(size=(n, 3)).astype(np.float32) for n in (2, 3, 4, 5)]

# %%
# **TensorFlow (tf.function)**: ``reduce_retracing=True`` generalises.
captures = {}
for reduce in (False, True):
    step = tf.function(
        small_tf.python_function, reduce_retracing=reduce
    )
    name = f"reduce_retracing={reduce}"
    captures[name] = []
    for x in batches_np:
        before = step.experimental_get_tracing_count()
        y = step(tf.constant(x))
        after = step.experimental_get_tracing_count()
        captures[name].append(after - before)
    print(f"{name}: new traces {captures[name]}")
general = step.get_concrete_function(tf.constant(x))
print("the general graph's x:", general.inputs[0].shape)
tf_y, tf_captures = y, captures

# %%
# **PyTorch (torch.compile)**: ``dynamic=None``, the default, too.
captures = {}
for dynamic in (False, None):
    graphs.clear()
    step = torch.compile(
        small_torch, dynamic=dynamic, backend=counting_backend
    )
    name = f"dynamic={dynamic}"
    captures[name] = []
    for x in batches_np:
        before = len(graphs)
        y = step(torch.from_numpy(x).to(torch_device))
        captures[name].append(len(graphs) - before)
    print(f"{name}: new graphs {captures[name]}")
    torch.compiler.reset()
torch_y, torch_captures = y, captures

# %%
# The same answers, and the same pattern of captures:
sidebyside.assert_close(tf_y, torch_y, what="small model, batch of 5", device=torch_device)
assert tf_captures == {"reduce_retracing=False": [1] * 4, "reduce_retracing=True": [1, 1, 0, 0]}
assert torch_captures == {"dynamic=False": [1] * 4, "dynamic=None": [1, 1, 0, 0]}
assert tuple(general.inputs[0].shape) == (None, 3)

# %%
# One graph per length
# --------------------
# Now the RNN-style loop over lengths 1 to 8. Without a signature, ``tf.function`` traces once per
# length: ``per length: new traces [1, 1, 1, 1, 1, 1, 1, 1]``. With an ``input_signature`` that
# leaves the length as ``None`` and a loop over ``tf.range``, AutoGraph builds one graph with a
# ``while`` loop inside, and it serves every length:
# ``input_signature: new traces [1, 0, 0, 0, 0, 0, 0, 0]``.
#
# In ``torch.compile``, automatic dynamic shapes do not rescue the Python loop: ``range`` needs
# the length as a Python ``int``, so Dynamo specialises on it and guards on the exact value. Every
# length is a new graph until the recompile limit, which we set to 4 with
# ``torch.compile(..., recompile_limit=4)`` to keep the page fast:
# ``python loop: new graphs [1, 1, 1, 1, 0, 0, 0, 0]``. After the limit, a length with no graph
# runs as plain eager Python, and no captured graph runs at all:
# ``python loop: graph ran [1, 1, 1, 1, 0, 0, 0, 0]``. ``torch.while_loop`` (public, marked
# prototype; its documentation still says it does not support training, yet an eager
# ``backward()`` through it works in PyTorch 2.13, shown at the end of the PyTorch pane)
# keeps the loop inside the graph, as ``tf.while_loop`` does: the
# first length is compiled with exact shapes, the second marks the length dynamic, and that graph
# serves every length after it: ``torch.while_loop: new graphs [1, 1, 0, 0, 0, 0, 0, 0]``.
xs_np = [rng.normal(size=(n, 4)).astype(np.float32) for n in range(1, 9)]

# %%
# **TensorFlow (tf.function)**: a loop over ``tf.range`` serves all.
xs, w = [tf.constant(x) for x in xs_np], tf.constant(w_np)
per_length = tf.function(tf_rnn_loop)
signature = [tf.TensorSpec((None, 4)), tf.TensorSpec((4, 4))]


@tf.function(input_signature=signature)
def any_length(x, w):
    h = tf.zeros(4)
    # AutoGraph: a while loop
    for t in tf.range(tf.shape(x)[0]):
        h = tf.tanh(tf.linalg.matvec(w, h) + x[t])
    return h


captures = {}
for name, graph_loop in [("per length", per_length),
                         ("input_signature", any_length)]:
    captures[name] = []
    for x in xs:
        before = graph_loop.experimental_get_tracing_count()
        y = graph_loop(x, w)
        after = graph_loop.experimental_get_tracing_count()
        captures[name].append(after - before)
for name, counts in captures.items():
    print(f"{name}: new traces {counts}")
tf_y, tf_captures = y, captures

# %%
# **PyTorch (torch.compile)**: ``torch.while_loop`` serves all.
xs = [torch.from_numpy(x).to(torch_device) for x in xs_np]
w = torch.from_numpy(w_np).to(torch_device)


def while_rnn_loop(x, w):
    def cond_fn(t, h):
        return t < x.shape[0]

    def body_fn(t, h):
        x_t = x.index_select(0, t.reshape(1))[0]
        return t + 1, torch.tanh(w @ h + x_t)

    t0 = torch.tensor(0, device=x.device)
    h0 = torch.zeros(w.shape[0], device=w.device)
    _, h = torch.while_loop(cond_fn, body_fn, (t0, h0))
    return h


captures, ran = {}, {}
for name, loop in [("python loop", torch_rnn_loop),
                   ("torch.while_loop", while_rnn_loop)]:
    graphs.clear()
    graph_loop = torch.compile(
        loop, backend=counting_backend, recompile_limit=4
    )
    captures[name], ran[name] = [], []
    for x in xs:
        before, runs = len(graphs), len(graph_runs)
        y = graph_loop(x, w)
        captures[name].append(len(graphs) - before)
        ran[name].append(len(graph_runs) - runs)
    torch.compiler.reset()
    print(f"{name}: new graphs {captures[name]}")
    print(f"{name}: graph ran {ran[name]}")
torch_y, torch_captures = y, captures
# a gradient through torch.while_loop: h0 * 2 three times
h0 = torch.ones(2, requires_grad=True, device=torch_device)
_, h3 = torch.while_loop(
    lambda t, h: t < 3, lambda t, h: (t + 1, h * 2),
    (torch.tensor(0, device=torch_device), h0))
h3.sum().backward()
print("d sum(h3) / d h0:", h0.grad.tolist())
assert h0.grad.tolist() == [8.0, 8.0]

# %%
# Whichever way they got there, the answers for the last length agree:
sidebyside.assert_close(tf_y, torch_y, what="8-step loop", device=torch_device)
assert tf_captures == {"per length": [1] * 8, "input_signature": [1] + [0] * 7}
up_to_limit = [1, 1, 1, 1, 0, 0, 0, 0]
assert torch_captures == {"python loop": up_to_limit, "torch.while_loop": [1, 1] + [0] * 6}
assert ran == {"python loop": up_to_limit, "torch.while_loop": [1] * 8}
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * PyTorch 2 captures graphs with ``torch.export`` (a self-contained program, like a
#   ``ConcreteFunction``) and ``torch.compile`` (graphs captured on the fly for a compiler).
#   ``torch.fx.symbolic_trace`` records a graph of proxies; TorchScript is deprecated.
# * ``tf.function`` and ``torch.fx`` trace: the Python runs once. ``torch.compile`` (TorchDynamo)
#   keeps Python's meaning at every call: guards decide when a graph can be reused, and what it
#   cannot capture breaks the graph and runs in Python (``fullgraph=True`` makes that an error).
# * A branch on a tensor's value needs both branches in the graph (``tf.cond``, or AutoGraph's
#   rewrite of ``if``; ``torch.cond``), or ``torch.compile`` splits the graph at the branch.
# * A new shape means a new graph, unless a dimension is made dynamic: ``reduce_retracing=True``
#   or an ``input_signature`` with ``None`` in TensorFlow, ``dynamic=None`` (the default, after
#   one recompile) or ``dynamic=True`` in ``torch.compile``.
# * A Python loop over the length is unrolled into the graph, so every length needs its own;
#   TorchScript's ``torch.jit.trace`` silently reuses the old graph and gives wrong answers. A
#   loop *inside* the graph serves every length: ``tf.while_loop`` (AutoGraph's ``tf.range``
#   loop) and ``torch.while_loop``.
#
# References: ``torch.fx.symbolic_trace``, ``torch.export.export``, ``torch.cond``,
# ``torch.while_loop``, ``torch.compile``, ``torch.compiler.reset``, ``torch.jit.trace``,
# ``tf.function``, ``tf.function.experimental_get_tracing_count``, ``tf.cond``,
# ``tf.TensorSpec``, ``tf.range``.
