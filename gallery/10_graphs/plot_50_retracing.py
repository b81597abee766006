"""
When is a graph rebuilt? Retracing vs recompiling
=================================================

``tf.function`` and ``torch.compile`` both turn a Python function into graphs and keep
them for later calls. At every call each one decides whether a graph it already has fits
the arguments, or whether to run the Python again and build a new graph: TensorFlow
*retraces*, PyTorch *recompiles*. Their rules differ, and readers trip on them. This
page counts new graphs, by running both frameworks, for Python numbers and tensors as
arguments, new shapes and dtypes, dimensions declared dynamic, the *guards* PyTorch
checks before it reuses a graph, graph breaks, PyTorch's recompile limit, and Python
side effects such as ``print``.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import contextlib
import io
import logging
import logging.handlers
import re
import tempfile
from pathlib import Path

import tensorflow as tf
import torch

import sidebyside
from sidebyside.capture import CountingBackend, call_names

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# How we count
# ------------
# In TensorFlow, a ``tf.function`` runs the Python body only while it traces a graph, so
# a Python counter in the body counts traces; ``experimental_get_tracing_count()``
# counts them too, and the page asserts that the two agree.
#
# In PyTorch, ``torch.compile`` hands every graph it captures to a *backend*, and a
# backend can be any function ``(graph_module, example_inputs) -> callable`` (the
# documented custom-backend API). The one built on the page about graphs in PyTorch,
# ``sidebyside.capture.CountingBackend`` in this site's helpers, keeps each graph and
# returns a function that notes every run and runs the graph as it is. Nothing is
# compiled, so the page stays fast. Dynamo keeps its graphs per Python function and remembers which sizes and values
# changed, so ``torch.compiler.reset()`` (the public name of ``torch._dynamo.reset()``)
# wipes that memory after every experiment: each count below starts from nothing.
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs
tf_results, torch_results = {}, {}


def graph_inputs(graph_module):
    """The names of a captured graph's inputs."""
    return [node.name for node in graph_module.graph.nodes if node.op == "placeholder"]



# %%
# Python numbers or tensors
# -------------------------
# The same function in both frameworks, ``scale(x, k) = x * k``, called with ``k`` = 2,
# 3, 4 and 2 again, first as Python ints, then as Python floats (0.5, 1.5, 2.5, 0.5),
# then as tensors.
#
# In TensorFlow a Python number is part of the input signature *by value*: each new
# value is a new trace, and a value seen before reuses its graph:
# ``traces with Python ints: 3`` and ``traces with Python floats: 3``. A tensor is
# matched by dtype and shape only, never by value: ``traces with tensors: 1``. The graph
# traced for ``k=2`` takes ``x`` alone, with 2 baked in.
#
# ``torch.compile`` starts the same way: its first graph has ``k`` baked in as a
# constant. But when a call brings another value, Dynamo recompiles *and makes k an
# input* of the new graph (*automatic dynamic*, the default ``dynamic=None``), and that
# graph serves every later value: ``graphs with Python ints: 2`` and
# ``graphs with Python floats: 2``. The PyTorch guide *Dealing with Recompilations* says
# ints and floats are guarded on their exact value; on this PyTorch that holds for the
# first graph only. Tensors: ``graphs with tensors: 1``.

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
# New shapes and dtypes
# ---------------------
# Now ``k`` is a tensor and ``x`` changes: lengths 2, 3 and 4 in float32, then length 4
# in float64. By default ``tf.function`` traces for every new shape and every new dtype:
# ``new traces per call: [1, 1, 1, 1]``. ``torch.compile`` recompiles at the first new
# length, makes that dimension dynamic (a symbolic size, the ``s77`` input of its second
# graph), reuses that graph for length 4, and recompiles for the new dtype:
# ``new graphs per call: [1, 1, 0, 1]``.

# %%
# **TensorFlow (tf.function)**: every shape and dtype traces.
xs = [tf.ones(n) for n in (2, 3, 4)]
xs.append(tf.cast(xs[-1], tf.float64))
graph_fn = tf.function(scale)
new = []
for x in xs:
    before = graph_fn.experimental_get_tracing_count()
    y = graph_fn(x, tf.constant(2.0, x.dtype))
    after = graph_fn.experimental_get_tracing_count()
    new.append(after - before)
print("new traces per call:", new)
tf_new = new
tf_results["x * k in float64"] = y

# %%
# **PyTorch (torch.compile)**: a changed size becomes dynamic.
xs = [torch.ones(n, device=torch_device) for n in (2, 3, 4)]
xs.append(xs[-1].double())
graphs.clear()
graph_fn = torch.compile(scale, backend=counting_backend)
new = []
for x in xs:
    before = len(graphs)
    y = graph_fn(x, x.new_tensor(2.0))  # x's dtype, device
    new.append(len(graphs) - before)
print("new graphs per call:", new)
print("graph 2 takes:", graph_inputs(graphs[1]))
torch.compiler.reset()
torch_new = new
torch_results["x * k in float64"] = y

# %%
# The counts:
assert tf_new == [1, 1, 1, 1]
assert torch_new == [1, 1, 0, 1]

# %%
# Declaring a dimension dynamic
# -----------------------------
# ``x`` now has lengths 2, 3, 4 and 5, and each list counts the new graphs at each call,
# for each way of saying "this dimension changes".
#
# TensorFlow: the default traces every length (``default: new traces [1, 1, 1, 1]``).
# ``reduce_retracing=True`` traces the second length with that dimension generalised to
# ``None`` (printed below), and that graph serves the rest
# (``reduce_retracing=True: new traces [1, 1, 0, 0]``). An ``input_signature`` with
# ``None`` declares it before the first call
# (``input_signature: new traces [1, 0, 0, 0]``).
#
# PyTorch: ``dynamic=False`` compiles every length
# (``dynamic=False: new graphs [1, 1, 1, 1]``). The default ``dynamic=None`` is
# automatic dynamic, like ``reduce_retracing=True``
# (``dynamic=None: new graphs [1, 1, 0, 0]``). ``dynamic=True`` makes sizes dynamic from
# the first call (``dynamic=True: new graphs [1, 0, 0, 0]``), and so does marking the
# dimension on the input (``mark_dynamic: new graphs [1, 0, 0, 0]``). ``mark_dynamic``
# lives under ``torch._dynamo``; despite the underscore it is the documented way:
# PyTorch's *Dynamic Shapes* guide says that if you know ahead of time something will be
# dynamic, ``torch._dynamo.mark_dynamic(tensor, dim)`` skips the first recompile.
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
# Guards: what is checked before a graph is reused
# ------------------------------------------------
# A ``tf.function`` compares each call with the input signatures of the graphs it has
# traced. With an ``input_signature`` it never traces again: a call that fits the
# signature runs the traced graph (a Python ``3`` for a scalar ``TensorSpec`` is
# converted to a tensor), and a call that does not fit raises ``TypeError``
# (``traces after the probes: 1``).
#
# ``torch.compile`` attaches *guards* to every graph it captures: checks on the inputs
# that must all pass before the graph is reused. The public
# ``torch.compiler.set_stance("fail_on_recompile")`` turns a recompile into a
# ``RuntimeError`` whose message names the guard that failed. Below, a graph captured
# for ``scale(x, 2)`` with a float32 ``x`` of length 3: new values in ``x`` pass every
# guard; a new ``k``, length, dtype or ``requires_grad`` each fail a guard
# (``graphs after the probes: 1``). The error message lists the failed guard on its
# third line, followed by the source line it came from; this helper picks the guard out.


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
# Graph breaks
# ------------
# A branch on a tensor's *value*. Inside ``tf.function``, AutoGraph rewrites the Python
# ``if`` into ``tf.cond`` (the ``StatelessIf`` operation), so the graph holds both
# branches and serves both signs (``traces after both signs: 1``). What AutoGraph cannot
# turn into a graph, it refuses while tracing: here, ``y`` exists only when the sum is
# positive, and ``tf.cond`` needs a value from both branches.
#
# Dynamo cannot put a Python ``if`` on a tensor into a graph either, and does not
# rewrite it: it *breaks* the graph there, lets Python decide, and captures what follows
# as another graph. ``torch._dynamo.explain(fn)(*args)`` runs the function once and
# reports the graphs and the reason for each break (``graph_count: 2``,
# ``graph_break_count: 1``). Its reason for this break is terse: a jump (the ``if``)
# that depends on a tensor. ``explain`` lives in the private ``torch._dynamo`` module;
# no public ``torch.compiler`` function reports break reasons in one object. The
# compiled function, called with both signs, captures the branch it had not taken yet as
# another graph (``graphs after both signs: 3``): the comparison, then each branch. The
# :ref:`previous page <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>`
# shows ``fullgraph=True`` refusing such a break, and ``torch.cond``, which avoids it.

# %%
# **TensorFlow (tf.function)**: the ``if`` becomes ``tf.cond``.
@tf.function
def branchy(x):
    y = x * 2
    if tf.reduce_sum(y) > 0:  # AutoGraph: tf.cond
        return y + 1
    return y - 1


x_pos = tf.constant([1.0, 2.0, 3.0])
y_pos, y_neg = branchy(x_pos), branchy(-x_pos)
graph = branchy.get_concrete_function(x_pos).graph
op_types = [op.type for op in graph.get_operations()]
print("StatelessIf in the graph:", "StatelessIf" in op_types)
traces = branchy.experimental_get_tracing_count()
print("traces after both signs:", traces)


@tf.function
def half_defined(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2
    return y  # no y when the sum is not positive


raised = False
try:
    half_defined(x_pos)
except ValueError as error:
    raised = True
    print(str(error).strip().splitlines()[-1].strip())
tf_traces, tf_raised = traces, raised
tf_results["branchy, sum > 0"] = y_pos
tf_results["branchy, sum < 0"] = y_neg

# %%
# **PyTorch (torch.compile)**: the ``if`` breaks the graph.


def branchy(x):
    y = x * 2
    if y.sum() > 0:  # Python needs a bool here
        return y + 1
    return y - 1


x_pos = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
explanation = torch._dynamo.explain(branchy)(x_pos)
print("graph_count:", explanation.graph_count)
print("graph_break_count:", explanation.graph_break_count)
for reason in explanation.break_reasons:
    print("break:", reason.reason.splitlines()[0])
    print("  at:", reason.user_stack[-1].line)
torch.compiler.reset()
graphs.clear()
graph_fn = torch.compile(branchy, backend=counting_backend)
y_pos, y_neg = graph_fn(x_pos), graph_fn(-x_pos)
print("graphs after both signs:", len(graphs))
for number, graph in enumerate(graphs, 1):
    print(f"graph {number} calls:", call_names(graph))
torch_graphs = len(graphs)
torch.compiler.reset()
torch_results["branchy, sum > 0"] = y_pos
torch_results["branchy, sum < 0"] = y_neg

# %%
# The counts:
assert tf_traces == 1 and "StatelessIf" in op_types and tf_raised
assert (explanation.graph_count, explanation.graph_break_count) == (2, 1)
assert torch_graphs == 3

# %%
# Side effects: ``print`` and ``tf.print``
# ----------------------------------------
# The Python body of a ``tf.function`` runs while tracing, so a ``print`` in it runs
# only then: three calls with the same signature print ``print lines: 1``. ``tf.print``
# is an operation in the graph (``PrintV2``) and runs at every call:
# ``tf.print lines: 3``. ``tf.print`` writes from TensorFlow's C++ runtime, by default
# to the process's standard error, past Python's ``sys`` streams, so its lines would not
# reach this page (the
# :ref:`debugging page <sphx_glr_auto_examples_10_graphs_plot_30_debugging.py>` shows
# this); here it writes to a file in a temporary folder, which we read back.
#
# Dynamo cannot put a ``print`` into a graph, so it breaks the graph at the ``print``
# (``graphs around the print: 2``: the ``mul`` before it and the ``add`` after it), and
# Python runs the ``print`` at every call, as eager PyTorch would: ``print lines: 3``.

# %%
# **TensorFlow (tf.function)**: ``print`` runs at the trace.
with tempfile.TemporaryDirectory() as folder:
    log = Path(folder) / "tf_print.txt"

    @tf.function
    def noisy(x):
        y = x * 2
        print("print: Python ran")
        tf.print("tf.print: the graph ran",
                 output_stream=f"file://{log}")
        return y + 1

    x = tf.constant([1.0, 2.0, 3.0])
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        for _ in range(3):
            y = noisy(x)
    tf_printed = log.read_text().splitlines()
    graph = noisy.get_concrete_function(x).graph
    op_types = [op.type for op in graph.get_operations()]
lines = len(printed.getvalue().splitlines())
print(printed.getvalue(), end="")
print(*tf_printed, sep="\n")
print("print lines:", lines)
print("tf.print lines:", len(tf_printed))
print("PrintV2 in the graph:", "PrintV2" in op_types)
tf_lines = lines, len(tf_printed)
tf_results["noisy"] = y

# %%
# **PyTorch (torch.compile)**: ``print`` runs every call.


def noisy(x):
    y = x * 2
    print("print: Python ran")
    return y + 1


graphs.clear()
graph_fn = torch.compile(noisy, backend=counting_backend)
x = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
with contextlib.redirect_stdout(io.StringIO()) as printed:
    for _ in range(3):
        y = graph_fn(x)
lines = len(printed.getvalue().splitlines())
print(printed.getvalue(), end="")
print("print lines:", lines)
print("graphs around the print:", len(graphs))
for number, graph in enumerate(graphs, 1):
    print(f"graph {number} calls:", call_names(graph))
torch_lines, torch_graphs = lines, len(graphs)
torch.compiler.reset()
torch_results["noisy"] = y

# %%
# The counts:
assert tf_lines == (1, 3) and "PrintV2" in op_types
assert torch_lines == 3 and torch_graphs == 2
assert [call_names(graph) for graph in graphs] == [["mul"], ["add"]]

# %%
# Side effects: a Python counter
# ------------------------------
# A Python counter in the body, like the one this page counts traces with, is a side
# effect too. In TensorFlow it runs while tracing only: three calls,
# ``Python body runs: 1``. Dynamo keeps Python's meaning instead: the list grows at
# every call (``Python body runs: 3``). But the compiled code reads the list, so Dynamo
# guards on its length, every call fails that guard, and every call is a new graph
# (``graphs for a Python counter: 3``). That is why this page counts PyTorch's graphs in
# a backend, outside the compiled function.

# %%
# **TensorFlow (tf.function)**: the counter runs at the trace.
body_runs = []


@tf.function
def counted(x):
    body_runs.append(1)
    return x * 2 + 1


x = tf.constant([1.0, 2.0, 3.0])
for _ in range(3):
    y = counted(x)
print("Python body runs:", len(body_runs))
traces = counted.experimental_get_tracing_count()
print("traces for a Python counter:", traces)
tf_runs, tf_traces = len(body_runs), traces
tf_results["counted"] = y

# %%
# **PyTorch (torch.compile)**: the counter runs every call.
body_runs = []


def counted(x):
    body_runs.append(1)
    return x * 2 + 1


graphs.clear()
graph_fn = torch.compile(counted, backend=counting_backend)
x = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
for _ in range(3):
    y = graph_fn(x)
print("Python body runs:", len(body_runs))
print("graphs for a Python counter:", len(graphs))
with torch.compiler.set_stance("fail_on_recompile"):
    try:
        graph_fn(x)
    except RuntimeError as error:
        print("the guard that fails next:", failed_guard(error))
torch_runs, torch_graphs = len(body_runs), len(graphs)
torch.compiler.reset()
torch_results["counted"] = y

# %%
# The counts:
assert tf_runs == 1 and tf_traces == 1
assert torch_runs == 3 and torch_graphs == 3

# %%
# The recompile limit
# -------------------
# ``tf.function`` does not stop: ten Python values of ``k`` give
# ``new traces per k: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]``. When it notices frequent
# retracing it logs a warning, which the page catches from TensorFlow's Python logger to
# show it. It warns at most twice per function, and it recognises a function by its code:
# an identical ``def`` earlier in a notebook would already have used up both warnings. So
# this experiment uses a function of its own, ``times``.
#
# ``torch.compile`` does stop. Once a function has
# ``torch._dynamo.config.recompile_limit`` graphs (``recompile_limit: 8``, read from a
# private module and not changed), Dynamo logs a warning and compiles that function no
# more. A call that passes the guards of one of its graphs still runs that graph; any
# other call runs as plain eager Python, with the right answer (checked in *They
# agree*). With the default ``dynamic=None``, ``k`` would become dynamic at the second
# value (first section), so here ``dynamic=False`` makes Dynamo specialise on every
# value, as ``tf.function`` does: ``new graphs per k: [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]``,
# and a graph ran only for the values that got one:
# ``graph ran per k: [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]``. Calling ``k=3`` again runs its
# graph: ``graph ran for k=3 again: 1``. The
# :ref:`previous page <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>`
# lowers the limit for one function with ``torch.compile(..., recompile_limit=4)``.

# %%
# **TensorFlow (tf.function)**: no limit, a warning.


def times(x, k):  # a new function: no earlier call counts
    return x * k


x = tf.ones(3)
graph_fn = tf.function(times)
caught = logging.handlers.BufferingHandler(capacity=100)
tf.get_logger().addHandler(caught)
try:
    new = []
    for k in range(10):
        before = graph_fn.experimental_get_tracing_count()
        y = graph_fn(x, k)
        after = graph_fn.experimental_get_tracing_count()
        new.append(after - before)
finally:
    tf.get_logger().removeHandler(caught)
print("new traces per k:", new)
for record in caught.buffer:
    message = record.getMessage().split(". ")[0]
    message = re.sub(" at 0x[0-9a-f]+", "", message)
    print(sidebyside.wrap(f"{record.levelname}: {message}"))
tf_new, tf_warnings = new, len(caught.buffer)
tf_results["x * 9"] = y

# %%
# **PyTorch (torch.compile)**: a limit, then eager.


def times(x, k):  # a new function: no earlier call counts
    return x * k


x = torch.ones(3, device=torch_device)
print("recompile_limit:", torch._dynamo.config.recompile_limit)
graphs.clear()
graph_fn = torch.compile(
    times, backend=counting_backend, dynamic=False
)
caught = logging.handlers.BufferingHandler(capacity=100)
logging.getLogger("torch._dynamo").addHandler(caught)
try:
    new, ran = [], []
    for k in range(10):
        before, runs = len(graphs), len(graph_runs)
        y = graph_fn(x, k)
        new.append(len(graphs) - before)
        ran.append(len(graph_runs) - runs)
    runs = len(graph_runs)
    graph_fn(x, 3)
    ran_again = len(graph_runs) - runs
finally:
    logging.getLogger("torch._dynamo").removeHandler(caught)
    torch.compiler.reset()
print("new graphs per k:", new)
print("graph ran per k:", ran)
print("graph ran for k=3 again:", ran_again)
for record in caught.buffer:
    message = record.getMessage().splitlines()[0]
    print(record.levelname + ":", message)
torch_new, torch_ran = new, ran
torch_warnings = len(caught.buffer)
torch_results["x * 9"] = y

# %%
# The counts:
assert tf_new == [1] * 10 and tf_warnings == 2
assert torch._dynamo.config.recompile_limit == 8
assert torch_new == [1] * 8 + [0, 0] and torch_ran == [1] * 8 + [0, 0]
assert ran_again == 1 and torch_warnings == 1

# %%
# They agree
# ----------
# However many graphs each framework built, and whether PyTorch ran a graph or fell back
# to eager Python, the answers are the same:
for what, tf_value in tf_results.items():
    sidebyside.assert_close(
        tf_value, torch_results[what], what=what, device=torch_device
    )
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
# * AutoGraph turns a Python ``if`` on a tensor into ``tf.cond``, or refuses while
#   tracing; Dynamo breaks the graph and runs the ``if`` in Python.
#   ``torch._dynamo.explain`` lists the breaks and their reasons.
# * Python side effects run only while tracing in ``tf.function`` (use ``tf.print``); in
#   ``torch.compile`` they run at every call, through graph breaks or extra guards.
# * ``torch.compile`` stops compiling a function at ``recompile_limit`` graphs: a call
#   that one of them accepts still runs it, any other call runs eagerly. ``tf.function``
#   keeps tracing, and warns.
#
# References: ``tf.function``, ``tf.function.experimental_get_tracing_count``,
# ``tf.TensorSpec``, ``tf.print``, ``tf.get_logger``, ``torch.compile``,
# ``torch.compiler.reset``, ``torch.compiler.set_stance``,
# ``torch._dynamo.mark_dynamic``, ``torch._dynamo.explain``,
# ``torch._dynamo.config.recompile_limit``, PyTorch's custom backends.
