"""
Graph breaks and the recompile limit
====================================

Python that a graph cannot hold, such as a ``print``, a counter or a loop whose length changes,
is where ``tf.function`` and ``torch.compile`` part ways. ``tf.function`` runs that Python once,
while tracing; then only the graph runs. ``torch.compile`` keeps Python's meaning: it breaks the
graph around what it cannot capture and runs that part as Python at every call, recompiles when
what it read changes, and after too many graphs runs the function as plain Python. This page
shows each in both frameworks, and a loop kept inside one graph, with what it costs in training.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed. PyTorch's graphs are counted as on
# :ref:`the previous page <sphx_glr_auto_examples_10_graphs_plot_50_retracing.py>`.
import contextlib
import io
import tempfile
from pathlib import Path

import sidebyside
from sidebyside.capture import CountingBackend, call_names

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs
tf_results, torch_results = {}, {}
# sphinx_gallery_start_ignore
import logging.handlers
import re

# Dynamo logs warnings to standard error at length; the page catches the one it shows itself, so
# standard error gets a NullHandler instead (without any, Python's last resort would print them).
dynamo_log = logging.getLogger("torch._dynamo")
quiet, dynamo_log.handlers = dynamo_log.handlers, [logging.NullHandler()]
# sphinx_gallery_end_ignore
sidebyside.provenance()

# %%
# A ``print``: a graph break
# --------------------------
# The Python body of a ``tf.function`` runs while tracing, so a ``print`` in it runs only then,
# once for three calls. ``tf.print`` is an operation in the graph and runs at every call (as the
# :ref:`debugging page <sphx_glr_auto_examples_10_graphs_plot_30_debugging.py>` shows; in a
# notebook its lines reach the cell, on this page we send them to a file and read it back).
#
# Dynamo (:term:`TorchDynamo`) cannot put a ``print`` into a graph, so it makes a
# :term:`graph break` there: it captures the ``mul`` before it and the ``add`` after it as two
# graphs, and Python runs the ``print`` between them, at every call, as eager PyTorch would.

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
tf_lines = len(printed.getvalue().splitlines()), len(tf_printed)
print("print lines:", tf_lines[0])
print("tf.print lines:", tf_lines[1])
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
torch_lines = len(printed.getvalue().splitlines())
print("print lines:", torch_lines)
print_graphs = [call_names(graph) for graph in graphs]
print("the graphs around the print call:", print_graphs)
torch.compiler.reset()
torch_results["noisy"] = y

# %%
# A loop over the length, and one loop inside the graph
# -----------------------------------------------------
# An RNN-style loop, ``for t in range(x.shape[0])``, runs once per time step. A tracer sees the
# length as a plain number and *unrolls* the loop, so every length is a new graph: a new trace in
# TensorFlow, which never stops and warns when it notices frequent retracing; a new graph in
# PyTorch, until the recompile limit, after which a length with a graph still runs it and the
# others run eagerly.
# Automatic dynamic shapes do not rescue this loop: ``range`` needs the length as a Python
# ``int``, so Dynamo guards on its exact value.
#
# The way out is a loop *inside* the graph. With an ``input_signature`` that leaves the length as
# ``None`` and a loop over ``tf.range``, :term:`AutoGraph` builds one graph with a ``While``
# operation in it. ``torch.while_loop`` (public, marked prototype) does the same for
# ``torch.compile``: the first length is compiled with exact shapes, the second with a dynamic
# length, which serves every length after it (lengths 1 to 10 below, then 3 again).
rng = np.random.default_rng(0)
w_np = (0.5 * rng.normal(size=(4, 4))).astype(np.float32)
xs_np = [rng.normal(size=(n, 4)).astype(np.float32) for n in range(1, 11)]
lengths = [len(x) for x in xs_np]

# %%
# **TensorFlow (tf.function)**: a loop over ``tf.range`` serves all.
xs, w = [tf.constant(x) for x in xs_np], tf.constant(w_np)
signature = [tf.TensorSpec((None, 4)), tf.TensorSpec((4, 4))]


def python_loop(x, w):
    h = tf.zeros(4)
    for t in range(x.shape[0]):  # a Python loop: unrolled
        h = tf.tanh(tf.linalg.matvec(w, h) + x[t])
    return h


def graph_loop(x, w):
    h = tf.zeros(4)
    for t in tf.range(tf.shape(x)[0]):  # AutoGraph: a While
        h = tf.tanh(tf.linalg.matvec(w, h) + x[t])
    return h


# sphinx_gallery_start_ignore
caught = logging.handlers.BufferingHandler(capacity=100)
tf.get_logger().addHandler(caught)
# sphinx_gallery_end_ignore
tf_new = {}
for name, loop in [("Python loop", tf.function(python_loop)),
                   ("tf.range loop", tf.function(
                       graph_loop, input_signature=signature))]:
    tf_new[name] = []
    for x in xs + xs[2:3]:  # then 3 steps again
        before = loop.experimental_get_tracing_count()
        y = loop(x, w)
        after = loop.experimental_get_tracing_count()
        tf_new[name].append(after - before)
    print(f"{name}: new traces {tf_new[name]}")
# sphinx_gallery_start_ignore
# TensorFlow's warnings, caught and shown in short (the first
# sentence, no address; in a notebook they reach the cell)
tf.get_logger().removeHandler(caught)
for record in caught.buffer:
    message = record.getMessage().split(". ")[0]
    message = re.sub(" at 0x[0-9a-f]+", "", message)
    print(sidebyside.wrap(f"WARNING: {message}", hang="  "))
assert caught.buffer  # TensorFlow warned of frequent retracing
# sphinx_gallery_end_ignore
tf_results["10-step loop"] = y

# %%
# **PyTorch (torch.compile)**: ``torch.while_loop`` serves all.
xs = [torch.from_numpy(x).to(torch_device) for x in xs_np]
w = torch.from_numpy(w_np).to(torch_device)


def python_loop(x, w):
    h = torch.zeros(4, device=w.device)
    for t in range(x.shape[0]):  # a Python loop: unrolled
        h = torch.tanh(w @ h + x[t])
    return h


def graph_loop(x, w):
    def cond_fn(t, h):
        return t < x.shape[0]

    def body_fn(t, h):
        x_t = x.index_select(0, t.reshape(1))[0]
        return t + 1, torch.tanh(w @ h + x_t)

    t0 = torch.tensor(0, device=x.device)
    h0 = torch.zeros(4, device=w.device)
    return torch.while_loop(cond_fn, body_fn, (t0, h0))[1]


torch_new, torch_ran = {}, {}
for name, loop in [("Python loop", python_loop),
                   ("torch.while_loop", graph_loop)]:
    compiled = torch.compile(loop, backend=counting_backend)
    torch_new[name], torch_ran[name] = [], []
    for x in xs + xs[2:3]:  # then 3 steps again
        before, runs = len(graphs), len(graph_runs)
        y = compiled(x, w)
        torch_new[name].append(len(graphs) - before)
        torch_ran[name].append(len(graph_runs) - runs)
    torch.compiler.reset()
    print(f"{name}: new graphs {torch_new[name]}")
    print(f"{name}: a graph ran {torch_ran[name]}")
torch_results["10-step loop"] = y

# %%
# Going deeper: in training, one graph still keeps every step
# -----------------------------------------------------------
# One graph serves every length, but training must keep what each step's gradient needs, which
# grows with the length in both frameworks, as the record of a Python loop does. In TensorFlow,
# asking for gradients of a ``While`` gives it extra outputs: lists with one entry per step (shown
# in a TensorFlow 1 graph, which we feed any length). In PyTorch, the backward node of
# ``torch.while_loop``, run eagerly, keeps every step's carried values, stacked (its documentation
# still says it does not support training; this eager backward works).

# %%
# **TensorFlow (graph)**: the ``While`` keeps a list entry per step.
graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, (None, 4))
    w = tf.constant(w_np)

    def step(t, h):
        return t + 1, tf.tanh(tf.linalg.matvec(w, h) + x[t])

    _, h = tf.while_loop(lambda t, h: t < tf.shape(x)[0], step,
                         (0, tf.zeros(4)))
    gradient = tf.gradients(tf.reduce_sum(h), w)[0]
    loop = next(op for op in graph.get_operations()
                if op.type.endswith("While"))
    kept = [(tf.raw_ops.TensorListLength(input_handle=t),
             tf.raw_ops.TensorListElementShape(
                 input_handle=t, shape_type=tf.int32))
            for t in loop.outputs if t.dtype == tf.variant]
tf_kept = {}
with tf.compat.v1.Session(graph=graph) as session:
    for n in (2, 4, 8):
        lists = session.run(kept, {x: xs_np[n - 1]})
        tf_kept[n] = sum(int(length) * int(np.prod(shape))
                         for length, shape in lists)
        print(f"{n} steps: {len(lists)} lists of {lists[0][0]}"
              f" entries, {tf_kept[n]} numbers")

# %%
# **PyTorch (eager)**: the backward node keeps every step.


def numbers_held(node):
    """How many numbers a backward node's tensors hold."""
    held = 0
    for value in vars(node).values():
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if isinstance(item, torch.Tensor):
                held += item.numel()
    return held


w = torch.from_numpy(w_np).to(torch_device)
w.requires_grad_()
torch_kept = {}
for n in (2, 4, 8):
    h = graph_loop(xs[n - 1], w)
    torch_kept[n] = numbers_held(h.grad_fn)
    print(f"{n} steps: {torch_kept[n]} numbers")
h.sum().backward()  # the gradient flows through the loop
print("w.grad:", w.grad.shape)
for kept in (tf_kept, torch_kept):  # the same growth every step
    more = [(kept[b] - kept[a]) / (b - a)
            for a, b in [(2, 4), (4, 8)]]
    assert more[0] == more[1] > 0

# %%
# The loops, drawn
# ----------------
# Left, the graphs each framework built as the length grows (how many in all): the Python loops
# climb, TensorFlow's without end, PyTorch's until the recompile limit (shaded: the lengths it ran
# eagerly); the loops inside a graph stay flat. Right, what the one-graph loops keep for the
# backward pass: it grows by the same amount at every step, in both frameworks.
limit = torch.compiler.config.recompile_limit
fig, (ax_graphs, ax_kept) = plt.subplots(1, 2, figsize=(8, 3.6))
frameworks = [("TF", tf_new, tf_kept, sidebyside.graphs.TF_COLOR, "o-"),
              ("PyTorch", torch_new, torch_kept, sidebyside.graphs.TORCH_COLOR, "s--")]
for who, new, kept, color, style in frameworks:
    for name, counts in new.items():  # a loop in the graph: dotted
        line = style if name == "Python loop" else style[0] + ":"
        ax_graphs.plot(lengths, np.cumsum(counts[:len(lengths)]), line, color=color, lw=2, label=f"{who}: {name}")
    ax_kept.plot(list(kept), list(kept.values()), style, color=color, lw=2, label=who)
ax_graphs.axvspan(limit + 0.5, lengths[-1] + 0.5, color="0.92")  # PyTorch ran eagerly
ax_graphs.set(xlabel="sequence length", ylabel="graphs built so far", xticks=lengths)
ax_kept.set(xlabel="steps", ylabel="numbers kept for backward", xticks=list(tf_kept), ylim=(0, None))
for ax in (ax_graphs, ax_kept):
    ax.legend(fontsize=9)
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# Going deeper: more on breaks, limits and tracers
# ------------------------------------------------

# %%
# ``fullgraph=True``, and a ``print`` out of the way
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# With ``fullgraph=True`` a graph break is an error instead. The error's first line is terse;
# its explanation, a line further, names ``print``. For ``print`` and logging functions there is
# also a public way to keep one graph: add the function to
# ``torch.compiler.config.reorderable_logging_functions``, and Dynamo captures the rest into one
# graph and runs the ``print`` after the graph, still at every call (a value changed after the
# ``print`` would be printed with its new value: the documented catch).
x = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
whole = torch.compile(noisy, fullgraph=True, backend=counting_backend)
try:
    whole(x)
    explained = None
except RuntimeError as error:  # torch._dynamo.exc.Unsupported
    lines = str(error).splitlines()
    explained = next(line for line in lines if "Explanation:" in line)
    print(f"{type(error).__name__}: {lines[0]}")
    print(sidebyside.wrap(explained.strip(), "  ", hang="  "))
torch.compiler.reset()
graphs.clear()
with torch.compiler.config.patch(reorderable_logging_functions={print}):
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        for _ in range(3):
            whole(x)  # fullgraph=True: one graph or an error
torch.compiler.reset()
reordered = len(graphs), len(printed.getvalue().splitlines())
print("print reorderable, fullgraph=True: graphs", reordered[0])
print("print lines:", reordered[1])
assert explained is not None and "print" in explained
assert reordered == (1, 3)  # one graph, and the print still at every call

# %%
# A Python counter: a new graph at every call, until the limit
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A Python counter in the body is a side effect too, called ten times. In TensorFlow it runs while
# tracing only. Dynamo keeps Python's meaning instead, and the list grows at every call. But the
# code reads the list, so Dynamo :term:`guards <guard>` the graph on the list's length (printed
# below): every call fails that guard and is a new graph.
#
# Not forever. Once a function has ``torch.compiler.config.recompile_limit`` graphs, Dynamo logs a
# warning and compiles that function no more: a call that passes the guards of one of its graphs
# still runs that graph, any other call runs as plain eager Python, with the right answer. So look
# at where the new graphs stop and the graphs stop running; the counter keeps counting.

# %%
# **TensorFlow (tf.function)**: the counter runs at the trace.
body_runs = []


@tf.function
def counted(x):
    body_runs.append(1)
    return x * 2 + 1


x = tf.constant([1.0, 2.0, 3.0])
for _ in range(10):
    y = counted(x)
traces = counted.experimental_get_tracing_count()
print("Python body runs:", len(body_runs))
print("traces:", traces)
assert (len(body_runs), traces) == (1, 1)
tf_results["counted"] = y

# %%
# **PyTorch (torch.compile)**: every call, a new graph, then eager.
body_runs = []


def counted(x):
    body_runs.append(1)
    return x * 2 + 1


x = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
# sphinx_gallery_start_ignore
caught = logging.handlers.BufferingHandler(capacity=100)
logging.getLogger("torch._dynamo").addHandler(caught)
# sphinx_gallery_end_ignore
graph_fn = torch.compile(counted, backend=counting_backend)
new, ran = [], []
for _ in range(10):
    before, runs = len(graphs), len(graph_runs)
    y = graph_fn(x)
    new.append(len(graphs) - before)
    ran.append(len(graph_runs) - runs)
torch.compiler.reset()
print("Python body runs:", len(body_runs))
print("recompile_limit:", torch.compiler.config.recompile_limit)
print("new graph per call:", new)
print("a graph ran per call:", ran)
# sphinx_gallery_start_ignore
# Dynamo's warning, caught and shown in short (in a notebook it
# reaches the cell by itself)
logging.getLogger("torch._dynamo").removeHandler(caught)
warned = [r.getMessage() for r in caught.buffer]
for message in warned:
    print("WARNING:", message.splitlines()[0])
    guard = re.search(r"last reason: \S+ (.*?)\s+#", message)
    print("  the last guard that failed:", guard[1])
assert warned  # Dynamo warned when it hit the limit
# sphinx_gallery_end_ignore
assert len(body_runs) == 10  # Python ran every call
assert new == ran == [1] * limit + [0] * (10 - limit)
torch_results["counted"] = y

# %%
# Finding the breaks, and whose budget
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``torch._dynamo.explain(fn)(*args)`` runs a function once and reports its graphs and the reason
# for each break (private: no public ``torch.compiler`` function reports break reasons).
# ``TORCH_LOGS="graph_breaks,recompiles"``, set before Python starts, logs every break and
# recompile, and ``tlparse`` turns a log written with ``TORCH_TRACE`` into a report.
#
# With ``fullgraph=True`` (or ``torch.compiler.config.fail_on_recompile_limit_hit``) hitting the
# limit raises instead of running eagerly. Dynamo keeps its graphs with the function's *code
# object*, not with what ``torch.compile`` returns, so every ``torch.compile`` of ``counted``
# shares one budget: a new wrapper compiles nothing more, unless it is made with
# ``isolate_recompiles=True``. Beside the limit per function, ``accumulated_recompile_limit`` caps
# all of them together.
with contextlib.redirect_stdout(io.StringIO()):  # noisy prints
    explanation = torch._dynamo.explain(noisy)(torch.ones(3, device=torch_device))
explained_counts = explanation.graph_count, explanation.graph_break_count
print("graphs: {}, breaks: {}".format(*explained_counts))
print("break:", explanation.break_reasons[0].reason.splitlines()[0])
del explanation  # it holds the graphs
torch.compiler.reset()
x = torch.tensor([1.0, 2.0, 3.0], device=torch_device)
whole = torch.compile(counted, backend=counting_backend, fullgraph=True)
calls = []
try:
    while len(calls) < 10:
        calls.append(whole(x))
except Exception as error:  # FailOnRecompileLimitHit
    print(f"fullgraph=True, after {len(calls)} calls: {type(error).__name__}")
budget = {}
for name, isolate in [("another wrapper", False), ("isolated", True)]:
    graph_fn = torch.compile(counted, backend=counting_backend,
                             isolate_recompiles=isolate)
    before = len(graphs)
    graph_fn(x)
    budget[name] = len(graphs) - before
    print(f"{name}: new graphs {budget[name]}")
torch.compiler.reset()
print("accumulated_recompile_limit:", torch.compiler.config.accumulated_recompile_limit)
assert explained_counts == (2, 1)
assert len(calls) == limit and budget == {"another wrapper": 0, "isolated": 1}

# %%
# A tracer that does not check (``torch.jit.trace``)
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# TorchScript's ``torch.jit.trace`` (deprecated: the warning is printed below; older code still
# uses it) traces once and checks nothing later: traced at 10 steps, it silently runs the 10-step
# graph on a sequence of 20. ``torch.compile`` guards on the length, and compiles a second graph.
import warnings

x10, x20 = xs[9], torch.cat([xs[9], xs[0], xs[8]])  # 10 and 20 steps
w = torch.from_numpy(w_np).to(torch_device)
with warnings.catch_warnings(record=True) as deprecations:
    warnings.simplefilter("always")
    traced = torch.jit.trace(python_loop, (x10, w))
print("jit.trace, right at 20 steps:", torch.allclose(traced(x20, w), python_loop(x20, w)))
print("it ran only 10:", torch.allclose(traced(x20, w), python_loop(x20[:10], w)))
graphs.clear()
compiled = torch.compile(python_loop, backend=counting_backend)
print("torch.compile, right at 20 steps:",
      all(torch.allclose(compiled(x, w), python_loop(x, w)) for x in (x10, x20)))
print("torch.compile, graphs:", len(graphs))
torch.compiler.reset()
print(sidebyside.on_this_version("torch"))
for warning in deprecations:
    print(f"  {warning.category.__name__}: {warning.message}")
assert deprecations and all("deprecated" in str(d.message) for d in deprecations)
# sphinx_gallery_start_ignore
dynamo_log.handlers = quiet  # standard error gets Dynamo's warnings again
# sphinx_gallery_end_ignore

# %%
# They agree
# ----------
# However many graphs each framework built, and whether PyTorch ran a graph or fell back to eager
# Python, the answers are the same; and what the text said, checked.
for what, tf_value in tf_results.items():
    sidebyside.assert_close(tf_value, torch_results[what], what=what, device=torch_device)
assert tf_results.keys() == torch_results.keys()
assert tf_lines == (1, 3) and torch_lines == 3 and print_graphs == [["mul"], ["add"]]
assert tf_new == {"Python loop": [1] * 10 + [0], "tf.range loop": [1] + [0] * 10}
assert torch_new["Python loop"] == [1] * limit + [0] * (11 - limit)  # the last: 3 steps again
assert torch_ran["Python loop"] == [1] * limit + [0] * (10 - limit) + [1]  # ran its graph
assert torch_new["torch.while_loop"] == [1, 1] + [0] * 9 and torch_ran["torch.while_loop"] == [1] * 11
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``tf.function`` runs the Python in its body once, while tracing: a ``print`` or a counter
#   there runs once, and only graph operations (``tf.print``) run at every call.
# * ``torch.compile`` keeps Python's meaning: what it cannot capture (a ``print``) breaks the graph
#   and runs in Python at every call; what it reads (a list's length) is guarded, and a changed
#   value is a new graph. ``fullgraph=True`` turns a break into an error that names its cause;
#   ``reorderable_logging_functions`` keeps a ``print`` out of the way.
# * After ``recompile_limit`` graphs ``torch.compile`` stops compiling a function: calls that fit
#   one of its graphs still run it, the others run eagerly. ``tf.function`` traces on, and warns.
# * A Python loop over the length is a graph per length. A loop inside the graph
#   (``tf.while_loop``, or AutoGraph's ``tf.range`` loop; ``torch.while_loop``) serves every
#   length with one graph, but for training it still keeps what every step's gradient needs, so
#   memory grows with the length.
#
# References: ``tf.function``, ``tf.print``, ``tf.while_loop``, ``tf.gradients``, ``torch.compile``
# (``fullgraph``, ``isolate_recompiles``), ``torch.compiler.config``, ``torch.while_loop``,
# ``torch._dynamo.explain``, ``torch.jit.trace``, ``TORCH_LOGS``.
