"""
Debugging a graph vs debugging eager code
=========================================

In eager code every line runs when Python reaches it, so the usual tools work: ``print``,
``pdb``, a debugger's breakpoint, a traceback that points at the line that failed. In a graph the
Python runs once, to *build* the graph, and the numbers flow later. That changes what each tool
shows you. This page looks at three everyday questions in both styles: when does my ``print``
run, can I look at an intermediate value, and which line does an error point to?

One of the source posts credited on :ref:`sources` names "easier to debug" as a strength of
dynamic graphs; this is what that means in practice.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. The tensors on this
# page are tiny, so PyTorch's stay on the CPU.
import re
import tempfile
import traceback
from pathlib import Path

import sidebyside

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
tf_device = sidebyside.tf_device()
sidebyside.provenance()

# %%
# ``print`` runs while tracing, ``tf.print`` runs every time
# ----------------------------------------------------------
# A ``tf.function`` runs its Python body only while :term:`tracing` a graph; later calls run the
# graph. A Python ``print`` is not an operation, so it is not in the graph: it prints once per
# trace. ``tf.print`` *is* an operation, so it prints at every call. We call each function three
# times with a float32 scalar, then once with an int32 one, which needs a new trace.
#
# ``tf.print`` writes from TensorFlow's C++ runtime, beneath Python, so a page that captures
# Python's output would miss its lines (Going deeper, below, says when it does not): we send them
# to a file and print the file.

# %%
# **TensorFlow (tf.function)**: ``print`` once per trace, ``tf.print`` once per call.
with tempfile.TemporaryDirectory() as folder:
    log = Path(folder) / "tf_print.txt"

    @tf.function
    def double(x):
        print("print:", x)
        tf.print("tf.print:", x, output_stream=f"file://{log}")
        return 2 * x

    for value in (1.0, 2.0, 3.0):
        double(tf.constant(value))
    double(tf.constant(4))  # int32: a new trace
    printed_by_graph = log.read_text().splitlines()
print(*printed_by_graph, sep="\n")
traces = double.experimental_get_tracing_count()
print("traces:", traces)
# the graph traced for float32 scalars, drawn below
float32_graph = double.get_concrete_function(
    tf.constant(1.0)).graph

# %%
# **PyTorch (eager)**: ``print`` runs at every call.


def double(x):
    print("print:", x)
    return 2 * x


for value in (1.0, 2.0, 3.0):
    double(torch.tensor(value))
y = double(torch.tensor(4))  # int64

# %%
# The graph ``tf.function`` traced for a float32 scalar, drawn from its ``graph``: ``tf.print``
# became two operations, ``StringFormat`` and ``PrintV2``, which run on every call; the Python
# ``print`` left nothing. (``NoOp`` ties ``PrintV2`` to the function's result, so that it runs:
# a control dependency, which the drawing does not show as an arrow.)
fig, ax = plt.subplots(figsize=(6, 3.2))
sidebyside.draw_tf_graph(float32_graph, ax, title="TensorFlow: the graph traced for double")
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# Looking at an intermediate value
# --------------------------------
# In a traced function, an intermediate result is a *symbolic* tensor: a name, a dtype and a
# shape, but no numbers yet, so ``.numpy()`` does not exist and a debugger stopped inside the
# function sees the same. ``tf.config.run_functions_eagerly(True)`` runs ``tf.function`` bodies as
# ordinary eager code, which brings ``print`` and breakpoints back; it is a global switch, so we
# turn it off again in a ``finally``. In PyTorch any line sees real numbers: put a ``print`` or a
# ``breakpoint()`` anywhere.
x_np = np.array([[1.0, -2.0]], np.float32)
w_np = np.array([[1.0, 0.5], [0.5, 1.0]], np.float32)

# %%
# **TensorFlow (tf.function)**: symbolic inside the graph, real when run eagerly.


@tf.function
def layer(x, w):
    hidden = x @ w
    print("hidden:", hidden)
    if not hasattr(hidden, "numpy"):
        print("  no value yet: it is a", type(hidden).__name__)
    return tf.nn.relu(hidden)


x, w = tf.constant(x_np), tf.constant(w_np)
y = layer(x, w)  # traced: symbolic
tf.config.run_functions_eagerly(True)
try:
    tf_y = layer(x, w)  # the same function, run line by line
finally:  # restore the global switch
    tf.config.run_functions_eagerly(False)

# %%
# **PyTorch (eager)**: every intermediate has its numbers.


def layer(x, w):
    hidden = x @ w
    print("hidden:", hidden)
    # breakpoint() here would stop with these numbers in hand
    return torch.relu(hidden)


x = torch.from_numpy(x_np)
w = torch.from_numpy(w_np)
torch_y = layer(x, w)

# %%
# Where an error is reported
# --------------------------
# Multiply a 2x3 matrix by another 2x3 matrix: the shapes do not fit. In a TensorFlow 1 graph whose
# placeholders have *unknown* shapes, building the product succeeds; the error only comes when
# ``Session.run`` executes it. The only line of this script in the Python traceback is then the
# ``session.run`` call, not the line that built the bad operation; TensorFlow's message helps by
# naming the operation (``product``) and where it was defined. PyTorch raises on the very line
# that multiplies.
a_np = np.ones((2, 3), np.float32)
b_np = np.ones((2, 3), np.float32)

# %%
# **TensorFlow (graph)**: builds fine, fails at ``session.run``.
graph = tf.Graph()
with graph.as_default():
    a = tf.compat.v1.placeholder(tf.float32, None, name="a")
    b = tf.compat.v1.placeholder(tf.float32, None, name="b")
    product = tf.matmul(a, b, name="product")  # no error
with tf.compat.v1.Session(graph=graph) as session:
    try:
        session.run(product, {a: a_np, b: b_np})
    except tf.errors.InvalidArgumentError as error:
        tf_error = error
reason = tf_error.message.splitlines()
print("InvalidArgumentError:", reason[0])
size = next(line for line in reason if "size" in line)
# oneDNN's kernel, where it is on, adds numbers after the shapes
print(" ", re.match(r".*In\[1\]: \[.*?\]", size)[0])
print(" ", next(line for line in reason if "Detected" in line))
tf_raised = traceback.extract_tb(tf_error.__traceback__)[0]
print(f"traceback points at line {tf_raised.lineno}:")
print(" ", tf_raised.line)

# %%
# **PyTorch (eager)**: fails on the line that multiplies.
a = torch.from_numpy(a_np)
b = torch.from_numpy(b_np)
try:
    product = torch.mm(a, b)
except RuntimeError as error:
    torch_error = error
reason = str(torch_error).splitlines()
print("RuntimeError:")
# the message's wording changed between releases
print(sidebyside.on_this_version("torch"))
print(" ", reason[0])
raised = traceback.extract_tb(torch_error.__traceback__)[0]
print(f"traceback points at line {raised.lineno}:")
print(" ", raised.line)

# %%
# Known shapes: caught while building
# -----------------------------------
# When the placeholders carry their shapes, TensorFlow checks them as each operation is added, so
# the same mistake is reported at build time, on the line that builds it, before any data exists.
with tf.Graph().as_default():
    a = tf.compat.v1.placeholder(tf.float32, (2, 3), name="a")
    b = tf.compat.v1.placeholder(tf.float32, (2, 3), name="b")
    try:
        product = tf.matmul(a, b, name="product")
    except ValueError as error:
        build_error = error
        print("ValueError:", str(error).split(" for ")[0])
build_raised = traceback.extract_tb(build_error.__traceback__)[0]
print(f"traceback points at line {build_raised.lineno}:")
print(" ", build_raised.line)

# %%
# Going deeper: where ``tf.print`` writes, and where an operation was built
# -------------------------------------------------------------------------
# ``tf.print`` is executed by TensorFlow's C++ runtime, which writes straight to the process's
# stderr (or stdout), underneath Python. Only when TensorFlow is imported inside IPython (Jupyter,
# Colab) does it route those lines into Python's ``sys.stdout``, so that a notebook cell shows
# them: TensorFlow decides this at import time, by looking for IPython's ``get_ipython``. Below,
# Python's output is redirected into a buffer: in a plain Python process (a terminal, or this
# page's build) the buffer stays empty and the line goes to the process's own standard output;
# in a Jupyter notebook the buffer receives it.
import builtins
import contextlib
import io
import sys

under_ipython = hasattr(builtins, "get_ipython")  # TensorFlow's own test
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    tf.print("tf.print to sys.stdout", output_stream=sys.stdout)
print("running under IPython:", under_ipython)
print("what Python's sys.stdout received:", repr(buffer.getvalue()))
assert (buffer.getvalue() != "") == under_ipython

# %%
# Every operation of a graph keeps the Python stack that created it, ``op.traceback``: the way
# back from a run-time error to the line that built the operation.
import linecache

op_stack = graph.get_operation_by_name("product").traceback
here = tf_raised.filename
built = next(f for f in op_stack if f.filename == here)
built_line = linecache.getline(here, built.lineno).strip()
print(f"product was built at line {built.lineno}:")
print(" ", built_line)
assert "tf.matmul" in built_line

# %%
# They agree
# ----------
# The same result from both layers, and what the text said about each tool.
sidebyside.assert_close(tf_y, torch_y, what="relu(x @ w)")
assert traces == 2 and len(printed_by_graph) == 4  # print per trace, tf.print per call
assert "PrintV2" in {op.type for op in float32_graph.get_operations()}
assert not tf.config.functions_run_eagerly()  # the switch is off again
assert "session.run" in tf_raised.line and tf_error.op.name == "product"
assert "torch.mm" in raised.line and "tf.matmul" in build_raised.line
assert "shapes cannot be multiplied" in str(torch_error)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Inside ``tf.function``, ``print`` runs once per trace and ``tf.print`` once per call; in
#   PyTorch (and eager TensorFlow) ``print`` simply runs every time.
# * Intermediate values inside a graph are symbolic. ``tf.config.run_functions_eagerly(True)``
#   brings back values, ``print`` and breakpoints while debugging; restore it afterwards.
# * A graph fails where it *runs*: the traceback ends at ``session.run``, and the operation's
#   name and definition site are in the message. Eager code fails on the line you wrote. Known
#   static shapes let a graph catch shape mistakes early, while it is built.
# * ``tf.print`` writes from C++, below Python: outside IPython, captured outputs do not show it.
#
# References: ``tf.function``, ``tf.print``, ``tf.config.run_functions_eagerly``,
# ``tf.compat.v1.placeholder``, ``tf.compat.v1.Session``, ``tf.errors.InvalidArgumentError``,
# ``tf.Operation.traceback``, ``torch.mm``, ``traceback.extract_tb``.
