"""
When is a graph rebuilt? Retracing vs recompiling
=================================================

``tf.function`` and ``torch.compile`` both turn a Python function into graphs and keep them for
later calls. At every call each one decides whether a graph it already has fits the arguments, or
whether to run the Python again and build a new graph: TensorFlow *retraces*, PyTorch
*recompiles*. Their rules differ, and readers trip on them. This page counts new graphs, by
running both frameworks, for Python numbers and tensors as arguments, new sizes, dimensions
declared dynamic, a loop over the length, and the *guards* PyTorch checks before it reuses a
graph. Graph breaks, side effects and PyTorch's recompile limit are on :ref:`the next page
<sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import logging
import re
import warnings

import sidebyside
from sidebyside.capture import CountingBackend

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# How we count
# ------------
# In TensorFlow, a ``tf.function`` runs the Python body only while it traces a graph, so a Python
# counter in the body counts traces; ``experimental_get_tracing_count()`` counts them too, and the
# page asserts that the two agree.
#
# In PyTorch, ``torch.compile`` hands every graph it captures to a *backend*, and a backend can be
# any function ``(graph_module, example_inputs) -> callable`` (the documented custom-backend API).
# The one built on the page about graphs in PyTorch, ``sidebyside.capture.CountingBackend`` in this
# site's helpers, keeps each graph and returns a function that notes every run and runs the graph
# as it is. Nothing is compiled, so the page stays fast. Dynamo keeps its graphs per Python
# function and remembers which sizes and values changed, so ``torch.compiler.reset()`` (the public
# name of ``torch._dynamo.reset()``) wipes that memory after every experiment: each count below
# starts from nothing.
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs
tf_results, torch_results = {}, {}


def graph_inputs(graph_module):
    """The names of a captured graph's inputs."""
    return [node.name for node in graph_module.graph.nodes if node.op == "placeholder"]


# %%
# Python numbers or tensors
# -------------------------
# The same function in both frameworks, ``scale(x, k) = x * k``, called with ``k`` = 2, 3, 4 and 2
# again, first as Python ints, then as Python floats (0.5, 1.5, 2.5, 0.5), then as tensors.
#
# In TensorFlow a Python number is part of the input signature *by value*: each new value is a new
# trace, and a value seen before reuses its graph: ``traces with Python ints: 3`` and
# ``traces with Python floats: 3``. A tensor is matched by dtype and shape only, never by value:
# ``traces with tensors: 1``. The graph traced for ``k=2`` takes ``x`` alone, with 2 baked in.
#
# ``torch.compile`` starts the same way: its first graph has ``k`` baked in as a constant. But when
# a call brings another value, Dynamo recompiles *and makes k an input* of the new graph
# (*automatic dynamic*, the default ``dynamic=None``), and that graph serves every later value:
# ``graphs with Python ints: 2`` and ``graphs with Python floats: 2``. The PyTorch guide *Dealing
# with Recompilations* says ints and floats are guarded on their exact value; on this PyTorch that
# holds for the first graph only. Tensors: ``graphs with tensors: 1``.

# %%
# **TensorFlow (tf.function)**: a new Python value traces.
traced = []


def scale(x, k):
    traced.append(k)  # plain Python: runs while tracing only
    return x * k


x = tf.ones(3)
arguments = {
    "Python ints": [2, 3, 4, 2],
    "Python floats": [0.5, 1.5, 2.5, 0.5],
}
arguments["tensors"] = [tf.constant(k) for k in (2.0, 3.0, 4.0)]
counts, graph_fns = {}, {}
for kind, ks in arguments.items():
    traced.clear()
    graph_fn = tf.function(scale)
    for k in ks:
        y = graph_fn(x, k)
    counts[kind] = graph_fn.experimental_get_tracing_count()
    assert counts[kind] == len(traced)
    graph_fns[kind] = graph_fn
    print(f"traces with {kind}: {counts[kind]}")
examples = {"Python ints": 2, "tensors": tf.constant(2.0)}
for kind, k in examples.items():
    graph = graph_fns[kind].get_concrete_function(x, k)
    names = [tensor.op.name for tensor in graph.inputs]
    print(f"the graph for {kind} takes: {names}")
tf_counts = counts
tf_results["x * k, k a tensor"] = y

# %%
# **PyTorch (torch.compile)**: ``k`` becomes an input.


def scale(x, k):
    return x * k


x = torch.ones(3, device=torch_device)
arguments = {
    "Python ints": [2, 3, 4, 2],
    "Python floats": [0.5, 1.5, 2.5, 0.5],
}
arguments["tensors"] = [
    torch.tensor(k).to(torch_device) for k in (2.0, 3.0, 4.0)
]
counts, graph_fns = {}, {}
for kind, ks in arguments.items():
    graphs.clear()
    graph_fn = torch.compile(scale, backend=counting_backend)
    for k in ks:
        y = graph_fn(x, k)
    counts[kind] = len(graphs)
    graph_fns[kind] = list(graphs)
    torch.compiler.reset()  # forget graphs and what changed
    print(f"graphs with {kind}: {counts[kind]}")
for number, graph in enumerate(graph_fns["Python ints"], 1):
    names = graph_inputs(graph)
    print(f"graph {number} for Python ints takes: {names}")
torch_counts = counts
torch_results["x * k, k a tensor"] = y

# %%
# The counts, asserted on every build:
assert tf_counts == {"Python ints": 3, "Python floats": 3, "tensors": 1}
assert torch_counts == {"Python ints": 2, "Python floats": 2, "tensors": 1}
assert graph_inputs(graph_fns["Python ints"][1]) == ["l_x_", "l_k_"]

# %%
# Declaring a dimension dynamic
# -----------------------------
# ``x`` now has lengths 2, 3, 4 and 5, and each list counts the new graphs at each call, for each
# way of saying "this dimension changes".
#
# TensorFlow: the default traces every length (``default: new traces [1, 1, 1, 1]``).
# ``reduce_retracing=True`` traces the second length with that dimension generalised to ``None``
# (printed below), and that graph serves the rest
# (``reduce_retracing=True: new traces [1, 1, 0, 0]``). An ``input_signature`` with ``None``
# declares it before the first call (``input_signature: new traces [1, 0, 0, 0]``).
#
# PyTorch: ``dynamic=False`` compiles every length (``dynamic=False: new graphs [1, 1, 1, 1]``).
# The default ``dynamic=None`` is automatic dynamic, like ``reduce_retracing=True``
# (``dynamic=None: new graphs [1, 1, 0, 0]``). ``dynamic=True`` makes sizes dynamic from the first
# call (``dynamic=True: new graphs [1, 0, 0, 0]``), and so does marking the dimension on the input
# (``mark_dynamic: new graphs [1, 0, 0, 0]``). ``mark_dynamic`` lives under ``torch._dynamo``;
# despite the underscore it is the documented way: PyTorch's *Dynamic Shapes* guide says that if
# you know ahead of time something will be dynamic, ``torch._dynamo.mark_dynamic(tensor, dim)``
# skips the first recompile.
lengths = (2, 3, 4, 5)

# %%
# **TensorFlow (tf.function)**: two ways to generalise.
signature = [tf.TensorSpec([None]), tf.TensorSpec([])]
variants = {
    "default": tf.function(scale),
    "reduce_retracing=True": tf.function(
        scale, reduce_retracing=True
    ),
    "input_signature": tf.function(
        scale, input_signature=signature
    ),
}
new = {}
for name, graph_fn in variants.items():
    new[name] = []
    for n in lengths:
        before = graph_fn.experimental_get_tracing_count()
        y = graph_fn(tf.ones(n), tf.constant(2.0))
        after = graph_fn.experimental_get_tracing_count()
        new[name].append(after - before)
    print(f"{name}: new traces {new[name]}")
reduced = variants["reduce_retracing=True"]
general = reduced.get_concrete_function(
    tf.ones(5), tf.constant(2.0)
)
print("the generalised graph's x:", general.inputs[0].shape)
tf_new = new
tf_results["x * k at length 5"] = y

# %%
# **PyTorch (torch.compile)**: three ways, and the default.
variants = {
    "dynamic=False": {"dynamic": False},
    "dynamic=None": {"dynamic": None},
    "dynamic=True": {"dynamic": True},
    "mark_dynamic": {},
}
new = {}
for name, options in variants.items():
    graphs.clear()
    graph_fn = torch.compile(
        scale, backend=counting_backend, **options
    )
    new[name] = []
    for n in lengths:
        x = torch.ones(n, device=torch_device)
        if name == "mark_dynamic":
            torch._dynamo.mark_dynamic(x, 0)  # dimension 0
        before = len(graphs)
        y = graph_fn(x, torch.tensor(2.0, device=torch_device))
        new[name].append(len(graphs) - before)
    torch.compiler.reset()
    print(f"{name}: new graphs {new[name]}")
torch_new = new
torch_results["x * k at length 5"] = y

# %%
# The counts:
assert tf_new == {
    "default": [1, 1, 1, 1],
    "reduce_retracing=True": [1, 1, 0, 0],
    "input_signature": [1, 0, 0, 0],
}
assert tuple(general.inputs[0].shape) == (None,)
assert torch_new == {
    "dynamic=False": [1, 1, 1, 1],
    "dynamic=None": [1, 1, 0, 0],
    "dynamic=True": [1, 0, 0, 0],
    "mark_dynamic": [1, 0, 0, 0],
}

# %%
# Two exceptions. Sizes 0 and 1 are always specialised, even with ``dynamic=True`` (a size of 1
# broadcasts, a size of 0 is empty): lengths 1, 2, 3 and 4 give
# ``dynamic=True from 1: new graphs [1, 1, 0, 0]``. And ``mark_dynamic`` is a promise: where the
# code needs the size's value (here ``x.shape[0] == 3``), the call raises, and the message names
# ``maybe_mark_dynamic``, which only suggests a dynamic size and lets Dynamo specialise it.
graphs.clear()
graph_fn = torch.compile(scale, backend=counting_backend, dynamic=True)
new = []
for n in (1, 2, 3, 4):
    before = len(graphs)
    graph_fn(torch.ones(n, device=torch_device), torch.tensor(2.0, device=torch_device))
    new.append(len(graphs) - before)
torch.compiler.reset()
print("dynamic=True from 1: new graphs", new)
outcome = {}
guards_log = logging.getLogger("torch._guards")  # logs the error at length, too
guards_log.disabled = True
try:
    for mark in (torch._dynamo.mark_dynamic, torch._dynamo.maybe_mark_dynamic):
        x = torch.ones(3, device=torch_device)
        mark(x, 0)
        needs_three = lambda x: x * 2 if x.shape[0] == 3 else x + 1  # noqa: E731
        try:
            torch.compile(needs_three, backend=counting_backend)(x)
            outcome[mark.__name__] = "compiled"
        except RuntimeError as error:
            outcome[mark.__name__] = type(error).__name__
            why = str(error).splitlines()[1].split(" If you're using Dim")[0]
        print(f"{mark.__name__}: {outcome[mark.__name__]}")
        torch.compiler.reset()
finally:
    guards_log.disabled = False
print(sidebyside.wrap(why.strip(" -"), "  "))
assert new == [1, 1, 0, 0]
assert outcome == {"mark_dynamic": "ConstraintViolationError", "maybe_mark_dynamic": "compiled"}

# %%
# A loop over the sequence length
# -------------------------------
# An RNN-style loop, ``for t in range(x.shape[0])``, runs once per time step. A tracer sees the
# length as a plain number and *unrolls* the loop: the graph has exactly that many steps. Both
# frameworks trace at length 10 and then get a sequence of length 20. ``tf.function`` notices the
# new shape and traces again (``traces: 2``). ``torch.jit.trace`` (TorchScript) does not check: it
# silently runs the 10-step graph. This PyTorch deprecates TorchScript (the warning is printed
# below); it is shown because its failure is instructive and because older code still uses it.
rng = np.random.default_rng(0)
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
tf_y20 = y20

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
print(sidebyside.on_this_version("torch"))
for warning in caught:
    print(f"  {warning.category.__name__}: {warning.message}")
torch_y20 = y20

# %%
# Eager PyTorch and ``tf.function`` agree at 20 steps; the traced TorchScript graph does not:
tf_results["20-step loop"], torch_results["20-step loop"] = tf_y20, eager20
assert not torch.allclose(torch_y20, eager20)
# deprecated (the class depends on the release), and no TracerWarning about the loop
assert caught and all("deprecated" in str(c.message) for c in caught)
assert all(issubclass(c.category, (DeprecationWarning, FutureWarning)) for c in caught)

# %%
# Guards: what is checked before a graph is reused
# ------------------------------------------------
# A ``tf.function`` compares each call with the input signatures of the graphs it has traced. With
# an ``input_signature`` it never traces again: a call that fits the signature runs the traced
# graph (a Python ``3`` for a scalar ``TensorSpec`` is converted to a tensor), and a call that does
# not fit raises ``TypeError`` (``traces after the probes: 1``).
#
# ``torch.compile`` attaches *guards* to every graph it captures: checks on the inputs that must
# all pass before the graph is reused. The public
# ``torch.compiler.set_stance("fail_on_recompile")`` turns a recompile into a ``RuntimeError``
# whose message names the guard that failed. Below, a graph captured for ``scale(x, 2)`` with a
# float32 ``x`` of length 3: new values in ``x`` pass every guard; a new ``k``, length, dtype or
# ``requires_grad`` each fail a guard (``graphs after the probes: 1``). The error message lists the
# failed guard on its third line, followed by the source line it came from; this helper picks the
# guard out.


def failed_guard(error):
    """The guard that a ``fail_on_recompile`` error names."""
    line = str(error).splitlines()[2]  # "    - 0/0: <guard>  # <source>"
    return line.split(": ", 1)[1].split("#")[0].strip()


# %%
# **TensorFlow (tf.function)**: a call that does not fit raises.
strict = tf.function(scale, input_signature=signature)
x = tf.ones(3)
y = strict(x, tf.constant(2.0))
probes = {
    "new values in x": (x * 5, tf.constant(2.0)),
    "k=3, a Python int": (x, 3),
    "x of length 4": (tf.ones(4), tf.constant(2.0)),
    "x of dtype float64": (tf.cast(x, tf.float64), 2.0),
    "x of shape (3, 2)": (tf.ones((3, 2)), tf.constant(2.0)),
}
refused = []
for name, args in probes.items():
    try:
        strict(*args)
        print(f"{name}: reused")
    except TypeError as error:
        refused.append(name)
        cause = re.search("`(.*)`", str(error)).group(1)
        print(f"{name}: TypeError")
        print(sidebyside.wrap(cause, "  "))
traces = strict.experimental_get_tracing_count()
print("traces after the probes:", traces)
tf_refused, tf_traces = refused, traces
tf_results["x * k, the probes' graph"] = y

# %%
# **PyTorch (torch.compile)**: a failed guard means a recompile.
graphs.clear()
graph_fn = torch.compile(scale, backend=counting_backend)
x = torch.ones(3, device=torch_device)
y = graph_fn(x, 2)
probes = {
    "new values in x": (x * 5, 2),
    "k=3": (x, 3),
    "x of length 4": (x.new_ones(4), 2),
    "x of dtype float64": (x.double(), 2),
    "x requires grad": (x.clone().requires_grad_(), 2),
}
refused = []
with torch.compiler.set_stance("fail_on_recompile"):
    for name, args in probes.items():
        try:
            graph_fn(*args)
            print(f"{name}: reused")
        except RuntimeError as error:
            assert "Detected recompile" in str(error)
            refused.append(name)
            print(f"{name}: guard failed")
            print("  " + failed_guard(error))
print("graphs after the probes:", len(graphs))
torch_refused, torch_graphs = refused, len(graphs)
torch.compiler.reset()
torch_results["x * k, the probes' graph"] = y

# %%
# The counts, and which probes each framework refused:
assert tf_traces == 1 and torch_graphs == 1
assert tf_refused == ["x of dtype float64", "x of shape (3, 2)"]
assert torch_refused == list(probes)[1:]


# %%
# One more guard: Dynamo specialises on the integer attributes of an ``nn.Module``
# (``torch._dynamo.config.allow_unspec_int_on_nn_module`` is ``False``). Unlike a Python ``int``
# argument, which becomes dynamic at its first change (first section), a step counter in
# ``self.step`` is a new graph at every step, ``new graphs per step: [1, 1, 1, 1]``, until the
# recompile limit (:ref:`next page <sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`).


class Stepped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0  # a Python int on the module

    def forward(self, x):
        self.step += 1
        return x * self.step


graphs.clear()
x = torch.ones(3, device=torch_device)
graph_fn = torch.compile(Stepped(), backend=counting_backend)
new = []
for _ in range(4):
    before = len(graphs)
    y = graph_fn(x)
    new.append(len(graphs) - before)
torch.compiler.reset()
print("allow_unspec_int_on_nn_module:", torch._dynamo.config.allow_unspec_int_on_nn_module)
print("new graphs per step:", new)
assert new == [1, 1, 1, 1] and torch.equal(y, x * 4)

# %%
# They agree
# ----------
# However many graphs each framework built, and whether PyTorch ran a graph or fell back to eager
# Python, the answers are the same:
for what, tf_value in tf_results.items():
    sidebyside.assert_close(tf_value, torch_results[what], what=what, device=torch_device)
assert tf_results.keys() == torch_results.keys()
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``tf.function`` keys its graphs on the input signature: dtype and shape of each
#   tensor, and the *value* of each Python argument. Pass numbers that change as
#   tensors.
# * ``torch.compile`` guards each graph with checks on its inputs (values of Python
#   numbers, sizes, dtype, ``requires_grad``, the length of a global list it read) and
#   recompiles when one fails. By default (``dynamic=None``) a size or a Python number
#   that changes becomes dynamic at that recompile, and the new graph serves the later
#   values.
# * To skip even that extra trace or compile, declare the dimension dynamic up front: an
#   ``input_signature`` with ``None`` in TensorFlow, ``dynamic=True`` or
#   ``torch._dynamo.mark_dynamic`` in PyTorch. ``reduce_retracing=True`` and
#   ``dynamic=None`` generalise at the first change.
# * Sizes 0 and 1 are specialised even then; ``mark_dynamic`` raises where the code needs the
#   size, ``maybe_mark_dynamic`` does not.
# * A Python loop over the length is unrolled into the graph, so every length needs its own;
#   TorchScript's ``torch.jit.trace`` silently reuses the old graph and gives wrong answers.
# * Integer attributes of an ``nn.Module`` are guarded on their value: a step counter there
#   recompiles at every step.
#
# References: ``tf.function``, ``tf.function.experimental_get_tracing_count``,
# ``tf.TensorSpec``, ``torch.compile``, ``torch.compiler.reset``, ``torch.compiler.set_stance``,
# ``torch._dynamo.mark_dynamic``, ``torch._dynamo.maybe_mark_dynamic``, ``torch.jit.trace``,
# PyTorch's custom backends.
