"""
Graph breaks, side effects and the recompile limit
==================================================

What ``tf.function`` and ``torch.compile`` do with Python they cannot put into a graph, and when
they stop building graphs. This page counts, in both frameworks, the graphs around a branch, a
``print`` and a Python counter, and what each does after many new graphs, for a loop over the
length among others: ``tf.function`` keeps tracing, ``torch.compile`` stops at its recompile
limit and runs the Python eagerly.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. PyTorch's graphs are
# counted as on :ref:`the previous page <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`,
# with ``sidebyside.capture.CountingBackend``; ``torch.compiler.reset()`` forgets them after each
# experiment.
import contextlib
import io
import logging.handlers
import re
import tempfile
from pathlib import Path

import sidebyside
from sidebyside.capture import CountingBackend, call_names, failed_guard

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs
tf_results, torch_results = {}, {}
sidebyside.provenance()


# %%
# Graph breaks
# ------------
# A branch on a tensor's *value*. Inside ``tf.function``, AutoGraph rewrites the Python ``if`` into
# ``tf.cond`` (the ``StatelessIf`` operation), so the graph holds both branches and serves both
# signs. What AutoGraph cannot turn into a graph, it refuses while tracing: here, ``y`` exists only
# when the sum is positive, and ``tf.cond`` needs a value from both branches.
#
# Dynamo cannot put a Python ``if`` on a tensor into a graph either, and does not rewrite it: it
# *breaks* the graph there, lets Python decide, and captures what follows as another graph.
# ``torch._dynamo.explain(fn)(*args)`` runs the function once and reports the graphs and the reason
# for each break (``graph_count: 2``, ``graph_break_count: 1``). Its reason for this break is
# terse: a jump (the ``if``) that depends on a tensor. ``explain`` lives in the private
# ``torch._dynamo`` module; no public ``torch.compiler`` function reports break reasons in one
# object. The :ref:`page about graphs in PyTorch
# <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>` counts the graphs of both
# signs, shows ``fullgraph=True`` refusing such a break, and keeps the branch inside one graph with
# ``tf.cond`` and ``torch.cond``.

# %%
# **TensorFlow (tf.function)**: AutoGraph refuses while tracing.
@tf.function
def half_defined(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2
    return y  # no y when the sum is not positive


raised = False
try:
    half_defined(tf.constant([1.0, 2.0, 3.0]))
except ValueError as error:
    raised = True
    print(str(error).strip().splitlines()[-1].strip())

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

# %%
# The counts:
assert raised
assert (explanation.graph_count, explanation.graph_break_count) == (2, 1)

# %%
# Side effects: ``print`` and ``tf.print``
# ----------------------------------------
# The Python body of a ``tf.function`` runs while tracing, so a ``print`` in it runs only then:
# three calls with the same signature print ``print lines: 1``. ``tf.print`` is an operation in the
# graph (``PrintV2``) and runs at every call: ``tf.print lines: 3``. ``tf.print`` writes from
# TensorFlow's C++ runtime, by default to the process's standard error, past Python's ``sys``
# streams, so its lines would not reach this page (the
# :ref:`debugging page <sphx_glr_auto_examples_10_graphs_plot_30_debugging.py>` shows this); here
# it writes to a file in a temporary folder, which we read back.
#
# Dynamo cannot put a ``print`` into a graph, so it breaks the graph at the ``print``
# (``graphs around the print: 2``: the ``mul`` before it and the ``add`` after it), and Python runs
# the ``print`` at every call, as eager PyTorch would: ``print lines: 3``. With ``fullgraph=True``
# a graph break is an error instead, and the error says why.

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
whole = torch.compile(noisy, fullgraph=True,
                      backend=counting_backend)
sidebyside.show_error(RuntimeError, whole, x)  # Unsupported
torch.compiler.reset()
torch_results["noisy"] = y

# %%
# The counts:
assert tf_lines == (1, 3) and "PrintV2" in op_types
assert torch_lines == 3 and torch_graphs == 2
assert [call_names(graph) for graph in graphs[:2]] == [["mul"], ["add"]]

# %%
# Side effects: a Python counter
# ------------------------------
# A Python counter in the body, like the one the previous page counts traces with, is a side effect
# too. In TensorFlow it runs while tracing only: three calls, ``Python body runs: 1``. Dynamo keeps
# Python's meaning instead: the list grows at every call (``Python body runs: 3``). But the
# compiled code reads the list, so Dynamo guards on its length, every call fails that guard, and
# every call is a new graph (``graphs for a Python counter: 3``). That is why this site counts
# PyTorch's graphs in a backend, outside the compiled function.

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
# ``new traces per k: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]``. When it notices frequent retracing it logs
# a warning, which the page catches from TensorFlow's Python logger to show it. It warns at most
# twice per function, and it recognises a function by its code: an identical ``def`` earlier in a
# notebook would already have used up both warnings. So this experiment uses a function of its own,
# ``times``.
#
# ``torch.compile`` does stop. Once a function has ``torch._dynamo.config.recompile_limit`` graphs
# (``recompile_limit: 8``, read and not changed), Dynamo logs a warning and compiles that function
# no more. A call that passes the guards of one of its graphs still runs that graph; any other call
# runs as plain eager Python, with the right answer (checked in *They agree*). With the default
# ``dynamic=None``, ``k`` would become dynamic at the second value (previous page), so here
# ``dynamic=False`` makes Dynamo specialise on every value, as ``tf.function`` does:
# ``new graphs per k: [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]``, and a graph ran only for the values that
# got one: ``graph ran per k: [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]``. Calling ``k=3`` again runs its
# graph: ``graph ran for k=3 again: 1``.
#
# Dynamo keeps its graphs with the function's code object, not with what ``torch.compile`` returns,
# so every ``torch.compile`` of ``times`` shares one budget: a second one cannot compile ``k=8``
# (``second wrapper, k=8: new graphs 0, graph ran 0``), unless it is made with
# ``isolate_recompiles=True`` (``isolated, k=8: new graphs 1, graph ran 1``). To watch breaks and
# recompiles, set ``TORCH_LOGS="graph_breaks,recompiles"`` before Python starts; ``tlparse`` turns
# a log written with ``TORCH_TRACE`` into a report of every graph and break.

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
graph_fn = torch.compile(times, backend=counting_backend,
                         dynamic=False)
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
    budget = {}  # a new wrapper; then one that counts its own
    for name, isolate in [("second wrapper", False),
                          ("isolated", True)]:
        graph_fn = torch.compile(
            times, backend=counting_backend, dynamic=False,
            isolate_recompiles=isolate)
        before, runs = len(graphs), len(graph_runs)
        graph_fn(x, 8)
        budget[name] = (len(graphs) - before,
                        len(graph_runs) - runs)
finally:
    logging.getLogger("torch._dynamo").removeHandler(caught)
    torch.compiler.reset()
print("new graphs per k:", new)
print("graph ran per k:", ran)
print("graph ran for k=3 again:", ran_again)
for name, (made, used) in budget.items():
    print(f"{name}, k=8: new graphs {made}, graph ran {used}")
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
assert budget == {"second wrapper": (0, 0), "isolated": (1, 1)}

# %%
# One graph per length
# --------------------
# An RNN-style loop, ``for t in range(x.shape[0])``, unrolled by the trace, over lengths 1 to 8
# (the previous page shows the unrolling, and a new trace for every length). With an
# ``input_signature`` that leaves the length as ``None`` and a loop over ``tf.range``, AutoGraph
# builds one graph with a ``while`` loop inside, and it serves every length:
# ``input_signature: new traces [1, 0, 0, 0, 0, 0, 0, 0]``.
#
# In ``torch.compile``, automatic dynamic shapes do not rescue the Python loop: ``range`` needs the
# length as a Python ``int``, so Dynamo specialises on it and guards on the exact value. Every
# length is a new graph until the recompile limit, here 4 (``recompile_limit=4``):
# ``python loop: new graphs [1, 1, 1, 1, 0, 0, 0, 0]``. After the limit, a length with no graph
# runs as plain eager Python, and no captured graph runs at all:
# ``python loop: graph ran [1, 1, 1, 1, 0, 0, 0, 0]``. ``torch.while_loop`` (public, marked
# prototype; its documentation still says it does not support training, yet an eager ``backward()``
# through it works in PyTorch 2.13, shown at the end of the PyTorch pane) keeps the loop inside the
# graph, as ``tf.while_loop`` does: the first length is compiled with exact shapes, the second
# marks the length dynamic, and that graph serves every length after it:
# ``torch.while_loop: new graphs [1, 1, 0, 0, 0, 0, 0, 0]``.
rng = np.random.default_rng(0)
w_np = (0.5 * rng.normal(size=(4, 4))).astype(np.float32)
xs_np = [rng.normal(size=(n, 4)).astype(np.float32) for n in range(1, 9)]

# %%
# **TensorFlow (tf.function)**: a loop over ``tf.range`` serves all.
xs, w = [tf.constant(x) for x in xs_np], tf.constant(w_np)
signature = [tf.TensorSpec((None, 4)), tf.TensorSpec((4, 4))]


@tf.function(input_signature=signature)
def any_length(x, w):
    h = tf.zeros(4)
    # AutoGraph: a while loop
    for t in tf.range(tf.shape(x)[0]):
        h = tf.tanh(tf.linalg.matvec(w, h) + x[t])
    return h


new = []
for x in xs:
    before = any_length.experimental_get_tracing_count()
    y = any_length(x, w)
    after = any_length.experimental_get_tracing_count()
    new.append(after - before)
print("input_signature: new traces", new)
tf_y, tf_new = y, new

# %%
# **PyTorch (torch.compile)**: ``torch.while_loop`` serves all.
xs = [torch.from_numpy(x).to(torch_device) for x in xs_np]
w = torch.from_numpy(w_np).to(torch_device)


def rnn_loop(x, w):
    h = torch.zeros(w.shape[0], device=w.device)
    for t in range(x.shape[0]):  # a Python loop: unrolled
        h = torch.tanh(w @ h + x[t])
    return h


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
for name, loop in [("python loop", rnn_loop),
                   ("torch.while_loop", while_rnn_loop)]:
    graphs.clear()
    graph_loop = torch.compile(loop, backend=counting_backend,
                               recompile_limit=4)
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
# The counts (the answers for the last length are checked in *They agree*):
tf_results["8-step loop"], torch_results["8-step loop"] = tf_y, torch_y
assert tf_new == [1] + [0] * 7
up_to_limit = [1, 1, 1, 1, 0, 0, 0, 0]
assert torch_captures == {"python loop": up_to_limit, "torch.while_loop": [1, 1] + [0] * 6}
assert ran == {"python loop": up_to_limit, "torch.while_loop": [1] * 8}

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
# * AutoGraph turns a Python ``if`` on a tensor into ``tf.cond``, or refuses while
#   tracing; Dynamo breaks the graph and runs the ``if`` in Python.
#   ``torch._dynamo.explain`` lists the breaks and their reasons.
# * Python side effects run only while tracing in ``tf.function`` (use ``tf.print``); in
#   ``torch.compile`` they run at every call, through graph breaks or extra guards (a counter
#   in a list, or an ``int`` on a module, is a new graph at every call).
# * ``torch.compile`` stops compiling a function at ``recompile_limit`` graphs: a call
#   that one of them accepts still runs it, any other call runs eagerly. ``tf.function``
#   keeps tracing, and warns. The limit counts per function, across every ``torch.compile`` of
#   it, unless ``isolate_recompiles=True``; ``TORCH_LOGS="graph_breaks,recompiles"`` shows why.
# * A Python loop over the length is a graph per length; a loop *inside* the graph serves every
#   length: ``tf.while_loop`` (AutoGraph's ``tf.range`` loop) and ``torch.while_loop``.
#
# References: ``tf.function``, ``tf.function.experimental_get_tracing_count``, ``tf.TensorSpec``,
# ``tf.print``, ``tf.get_logger``, ``tf.range``, ``torch.compile`` (``fullgraph``,
# ``recompile_limit``, ``isolate_recompiles``), ``torch.compiler.reset``,
# ``torch.compiler.set_stance``, ``torch._dynamo.explain``, ``torch.while_loop``, ``TORCH_LOGS``.
