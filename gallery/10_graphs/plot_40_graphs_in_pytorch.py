"""
Static graphs in PyTorch, too
=============================

PyTorch is eager by default, but since PyTorch 2 it can also capture a whole graph ahead of time:
``torch.fx.symbolic_trace`` records a module with stand-in values, ``torch.export`` produces a
self-contained graph much like a TensorFlow ``ConcreteFunction``, and ``torch.compile`` captures
graphs on the fly to hand them to a compiler. They capture by *tracing* Python, just as
``tf.function`` does, so they run into the same walls: a branch that depends on the data, and a
loop whose length is the data's shape. This page captures one small model with each tool, then
looks at what each framework does when the data decides the shape of the graph.
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
# ``symbolic_trace`` calls ``forward`` once with ``Proxy`` objects instead of tensors; every
# operation on a proxy is written down as a node. The result is a ``GraphModule`` whose Python
# code is generated from that graph.
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


captured = small_tf.get_concrete_function(tf.TensorSpec((None, 3)))
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
# ``torch.compile``: graphs captured on the fly
# ---------------------------------------------
# ``torch.compile`` captures graphs the first time the function runs and hands each one to a
# *backend*, normally the Inductor compiler. A backend is just a function that receives the
# captured graph; this one collects the graphs and runs them as they are, so nothing is
# compiled and the example stays fast.
graphs = []


def counting_backend(graph_module, example_inputs):
    graphs.append(graph_module)
    return graph_module.forward  # run the captured graph as is


compiled = torch.compile(small_torch, backend=counting_backend)
try:
    assert torch.equal(compiled(x_torch), small_torch(x_torch))
    compiled(x_torch)  # same shapes: the cached graph is reused
    print(f"graphs captured for two calls: {len(graphs)}")
    calls = [n.name for n in graphs[0].graph.nodes if n.op.startswith("call")]
    print("operations in it:", calls)
finally:
    torch._dynamo.reset()  # forget compiled code: the next examples start clean
assert len(graphs) == 1

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


try:
    torch.fx.symbolic_trace(branchy)
except torch.fx.proxy.TraceError as error:
    print("torch.fx: TraceError:", error)
try:
    # on failure, export also prints the partial graph to stderr: keep it off the page
    with contextlib.redirect_stderr(io.StringIO()):
        torch.export.export(Branchy(), (x_torch[0],))
except RuntimeError as error:  # GuardOnDataDependentSymNode
    lines = str(error).splitlines()
    print(f"torch.export: {type(error).__name__}:", lines[0])
    print("  at:", lines[lines.index("The following call raised this error:") + 2].strip())
x_pos_np = np.abs(x_np[0])  # a vector with a positive sum, and its negative

# %%
# ``torch.compile`` breaks the graph instead
# ------------------------------------------
# ``torch.compile`` does not give up: it captures the part before the branch, lets Python decide,
# and captures the rest as another graph. That is a *graph break*. ``torch._dynamo.explain``
# reports them.
explanation = torch._dynamo.explain(branchy)(x_torch[0])
torch._dynamo.reset()
print("graphs:", explanation.graph_count, " graph breaks:", explanation.graph_break_count)
for reason in explanation.break_reasons:
    print("reason:", reason.reason.splitlines()[0])
    print("at:", reason.user_stack[-1].line)
assert (explanation.graph_count, explanation.graph_break_count) == (2, 1)

# %%
# Both branches in the graph: ``tf.cond`` and ``torch.cond``
# ----------------------------------------------------------
# The way out is the same in both frameworks: put *both* branches into the graph and let the
# graph choose at run time. Inside ``tf.function``, AutoGraph rewrites a Python ``if`` on a tensor
# into ``tf.cond`` by itself (the ``StatelessIf`` operation below). In PyTorch we write
# ``torch.cond`` ourselves, and ``torch.export`` captures it.

# %%
# **TensorFlow (tf.function)**: AutoGraph turns the ``if`` into ``tf.cond``.
@tf.function
def branchy(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    return x - 1


captured = branchy.get_concrete_function(tf.TensorSpec((3,)))
print([op.type for op in captured.graph.get_operations()])
x_pos = tf.constant(x_pos_np)
y_pos, y_neg = captured(x_pos), captured(-x_pos)
print("sum > 0:", y_pos.numpy(), " sum < 0:", y_neg.numpy())
tf_cond_y = (y_pos, y_neg)

# %%
# **PyTorch (torch.export)**: ``torch.cond`` keeps both branches.


class Cond(torch.nn.Module):
    def forward(self, x):
        return torch.cond(
            x.sum() > 0, lambda x: x * 2, lambda x: x - 1, (x,)
        )


captured = torch.export.export(Cond(), (x_torch[0],))
print([str(node.target) for node in captured.graph.nodes])
x_pos = torch.from_numpy(x_pos_np).to(torch_device)
y_pos, y_neg = captured.module()(x_pos), captured.module()(-x_pos)
print("sum > 0:", y_pos.cpu().numpy(), " sum < 0:", y_neg.cpu().numpy())
torch_cond_y = (y_pos, y_neg)

# %%
# Both graphs take either branch, and agree:
for tf_value, torch_value in zip(tf_cond_y, torch_cond_y, strict=True):
    sidebyside.assert_close(tf_value, torch_value, what="cond", device=torch_device)
assert np.allclose(torch_cond_y[0].cpu(), 2 * x_pos_np)  # the "then" branch
assert np.allclose(torch_cond_y[1].cpu(), -x_pos_np - 1)  # the "else" branch

# %%
# A loop over the sequence length
# -------------------------------
# An RNN-style loop, ``for t in range(x.shape[0])``, runs once per time step. A tracer sees the
# length as a plain number and *unrolls* the loop: the graph has exactly that many steps. Both
# frameworks trace at length 10 and then get a sequence of length 20. ``tf.function`` notices the
# new shape and traces again. ``torch.jit.trace`` (TorchScript) does not check: it silently runs
# the 10-step graph. TorchScript is deprecated in current PyTorch; it is shown because its failure
# is instructive and because older code still uses it.
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
print("right at 20 steps:", np.allclose(y20, rnn_loop(x20, w)))
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
print("right at 20 steps:", torch.allclose(y20, rnn_loop(x20, w)))
print("it ran only 10:", torch.allclose(y20, rnn_loop(x20[:10], w)))
warned = sorted({c.category.__name__ for c in caught})
print("warnings while tracing:", warned)
print(caught[0].message)
torch_y20, torch_rnn_loop = y20, rnn_loop

# %%
# Eager PyTorch and ``tf.function`` agree at 20 steps; the traced TorchScript graph does not:
eager_y20 = torch_rnn_loop(x20, w)
sidebyside.assert_close(tf_y20, eager_y20, what="20-step loop", device=torch_device)
assert not torch.allclose(torch_y20, eager_y20)
assert warned == ["DeprecationWarning"]  # no TracerWarning about the loop

# %%
# One graph per length
# --------------------
# ``tf.function`` and ``torch.compile`` both check the shapes a graph was captured for and
# capture again when they change. We feed lengths 1 to 8 and count new graphs per call.
# ``tf.function`` traces one per length (and, from the fifth, logs a warning about retracing to
# the terminal). With an ``input_signature`` that leaves the length as ``None`` and a loop over
# ``tf.range``, AutoGraph builds one graph with a ``while`` loop inside, and it serves every
# length. ``torch.compile`` (``dynamic=False``) recompiles for each length until it reaches its
# recompile limit (8 by default, 4 here), logs ``torch._dynamo hit config.recompile_limit`` and
# runs that function eagerly from then on. Marking shapes as dynamic (``dynamic=True``) does not
# help: a Python loop over the length is unrolled, so every length still needs its own graph.
xs_np = [rng.normal(size=(n, 4)).astype(np.float32) for n in range(1, 9)]

# %%
# **TensorFlow (tf.function)**: 8 traces, or 1 with ``input_signature``.
xs, w = [tf.constant(x) for x in xs_np], tf.constant(w_np)
per_length = tf.function(tf_rnn_loop)
signature = [tf.TensorSpec((None, 4)), tf.TensorSpec((4, 4))]


@tf.function(input_signature=signature)
def any_length(x, w):
    h = tf.zeros(4)
    for t in tf.range(tf.shape(x)[0]):  # AutoGraph: a while loop
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
    print(f"new traces, {name:15s}", counts)
tf_y, tf_captures = y, captures

# %%
# **PyTorch (torch.compile)**: a graph per length, up to the limit.
xs = [torch.from_numpy(x).to(torch_device) for x in xs_np]
w = torch.from_numpy(w_np).to(torch_device)
captures = {}
old_limit = torch._dynamo.config.recompile_limit
try:
    torch._dynamo.config.recompile_limit = 4
    for dynamic in (False, True):
        graph_loop = torch.compile(
            torch_rnn_loop, dynamic=dynamic, backend=counting_backend
        )
        name = f"dynamic={dynamic}"
        captures[name] = []
        for x in xs:
            before = len(graphs)
            y = graph_loop(x, w)
            after = len(graphs)
            captures[name].append(after - before)
        torch._dynamo.reset()
finally:
    torch._dynamo.config.recompile_limit = old_limit
    torch._dynamo.reset()
for name, counts in captures.items():
    print(f"new graphs, {name:13s}", counts)
torch_y, torch_captures = y, captures

# %%
# Whichever way they got there, the answers for the last length agree:
sidebyside.assert_close(tf_y, torch_y, what="8-step loop", device=torch_device)
assert tf_captures == {"per length": [1] * 8, "input_signature": [1] + [0] * 7}
up_to_limit = [1, 1, 1, 1, 0, 0, 0, 0]
assert torch_captures == {"dynamic=False": up_to_limit, "dynamic=True": up_to_limit}
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * PyTorch can capture static graphs too: ``torch.fx.symbolic_trace`` (a graph of proxies),
#   ``torch.export`` (a self-contained program, like a ``ConcreteFunction``) and
#   ``torch.compile`` (graphs captured on the fly for a compiler).
# * Capture is tracing, in both frameworks: a branch on a tensor's value needs both branches in the
#   graph (``tf.cond``, or AutoGraph's rewrite of ``if``; ``torch.cond``), or ``torch.compile``
#   splits the graph at the branch.
# * A Python loop over the length is unrolled into the graph. ``tf.function`` and
#   ``torch.compile`` capture again for each new length; TorchScript's ``torch.jit.trace``
#   (deprecated) silently reuses the old graph and gives wrong answers.
# * Only a loop *inside* the graph serves every length with one capture, as ``tf.range`` under
#   AutoGraph does here.
#
# References: ``torch.fx.symbolic_trace``, ``torch.export.export``, ``torch.cond``,
# ``torch.compile``, ``torch._dynamo.explain``, ``torch._dynamo.config.recompile_limit``,
# ``torch.jit.trace``, ``tf.function``, ``tf.cond``, ``tf.TensorSpec``, ``tf.range``.
