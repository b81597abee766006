"""
When is a graph rebuilt? Retracing vs recompiling
=================================================

``tf.function`` and ``torch.compile`` both turn a Python function into graphs and keep them for
later calls. At every call each one checks whether a graph it already has fits, or runs the
Python again to build a new graph: TensorFlow *retraces*, PyTorch *recompiles*. This page counts
new graphs in both, for Python numbers and tensors as arguments, a global the function reads,
new sizes, and other probes. The difference that matters most: ``tf.function`` checks only the
arguments, so a changed global goes unnoticed and the graph computes with its old value;
``torch.compile`` also checks what the function read, and recompiles.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import sidebyside
from sidebyside.capture import CountingBackend

import matplotlib.pyplot as plt
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
tf_results, torch_results, tf_counts, torch_counts = {}, {}, {}, {}
sidebyside.provenance()

# %%
# How we count
# ------------
# TensorFlow counts its traces (:term:`retracing`): ``experimental_get_tracing_count()``. PyTorch
# hands every graph Dynamo (:term:`TorchDynamo`) captures to a *backend*; ``CountingBackend``, from
# this site's helpers (:ref:`graphs in PyTorch
# <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>`), keeps each graph and runs it
# as it is, without compiling, so it counts :term:`recompilations <recompilation>`.
# ``torch.compiler.reset()`` makes Dynamo forget graphs and what changed, after each experiment.
counting_backend = CountingBackend()
graphs, graph_runs = counting_backend.graphs, counting_backend.runs


def graph_inputs(graph_module):
    """The names of a captured graph's inputs."""
    return [node.name for node in graph_module.graph.nodes if node.op == "placeholder"]


# %%
# Python numbers or tensors
# -------------------------
# The same function in both frameworks, ``scale(x, k) = x * k``, called with ``k`` = 2, 3, 4 and 2
# again, first as Python ints, then as Python floats (0.5, 1.5, 2.5, 0.5), then as tensors.
#
# In TensorFlow a Python number is part of the :term:`input signature` *by value*: each new value
# is a new trace, and a value seen before reuses its graph. A tensor is matched by dtype and shape
# only, never by value, so the tensors share one graph. The graph traced for ``k=2`` takes ``x``
# alone, with 2 baked in.
#
# ``torch.compile`` starts the same way: its first graph has ``k`` baked in, guarded on its value.
# But at another value Dynamo recompiles *and makes k an input* of the new graph (*automatic
# dynamic*, the default ``dynamic=None``), which serves every later value. So look for one trace
# per new value in TensorFlow's counts, and at most two graphs in PyTorch's.

# %%
# **TensorFlow (tf.function)**: a new Python value traces.


def scale(x, k):
    return x * k


x = tf.ones(3)
arguments = {
    "Python ints": [2, 3, 4, 2],
    "Python floats": [0.5, 1.5, 2.5, 0.5],
}
arguments["tensors"] = [tf.constant(k) for k in (2.0, 3.0, 4.0)]
graph_fns = {}
for kind, ks in arguments.items():
    graph_fn = tf.function(scale)
    for k in ks:
        y = graph_fn(x, k)
    tf_counts[kind] = graph_fn.experimental_get_tracing_count()
    graph_fns[kind] = graph_fn
    print(f"traces with {kind}: {tf_counts[kind]}")
examples = {"Python ints": 2, "tensors": tf.constant(2.0)}
for kind, k in examples.items():
    graph = graph_fns[kind].get_concrete_function(x, k)
    names = [tensor.op.name for tensor in graph.inputs]
    print(f"the graph for {kind} takes: {names}")
tf_results["x * k, k a tensor"] = y

# %%
# **PyTorch (torch.compile)**: ``k`` becomes an input.
x = torch.ones(3, device=torch_device)
arguments = {
    "Python ints": [2, 3, 4, 2],
    "Python floats": [0.5, 1.5, 2.5, 0.5],
}
arguments["tensors"] = [
    torch.tensor(k).to(torch_device) for k in (2.0, 3.0, 4.0)
]
graph_fns = {}
for kind, ks in arguments.items():
    graphs.clear()
    graph_fn = torch.compile(scale, backend=counting_backend)
    for k in ks:
        y = graph_fn(x, k)
    torch_counts[kind] = len(graphs)
    graph_fns[kind] = list(graphs)
    torch.compiler.reset()  # forget graphs and what changed
    print(f"graphs with {kind}: {torch_counts[kind]}")
for number, graph in enumerate(graph_fns["Python ints"], 1):
    names = graph_inputs(graph)
    print(f"graph {number} for Python ints takes: {names}")
int_graphs = graph_fns["Python ints"]
torch_results["x * k, k a tensor"] = y

# %%
# A value read from outside the arguments
# ---------------------------------------
# Now the function reads a global, ``factor``, which we change between calls: where retracing and
# recompiling differ most. ``tf.function`` compares a call with its graphs' input signatures,
# which hold the arguments only. The global was read once, while tracing, and baked into the
# graph; nothing checks it again, so the graph silently keeps computing with the old value. To
# give a ``tf.function`` a value that changes, pass it as an argument (a tensor) or keep it in a
# ``tf.Variable``, which the graph reads at every call.
#
# Dynamo's :term:`guards <guard>` cover what the function read, globals included. Changing
# ``factor`` fails a guard, Dynamo recompiles, and the new graph takes ``factor`` as an input
# (automatic dynamic again), so the answers follow the global. Look at the values printed.
values = (2.0, 3.0, 4.0, 5.0)

# %%
# **TensorFlow (tf.function)**: the global's old value stays.


def scaled(x):
    return x * factor  # factor: a global


x = tf.ones(3)
graph_fn = tf.function(scaled)
tf_follow = {"global": [], "tf.Variable": []}
for value in values:
    factor = value  # change the global
    tf_follow["global"].append(float(graph_fn(x)[0]))
tf_counts["global"] = graph_fn.experimental_get_tracing_count()
print("factor 2, 3, 4, 5 gives", tf_follow["global"])
print("traces:", tf_counts["global"])
factor = tf.Variable(2.0)  # read by the graph at each call
graph_fn = tf.function(scaled)
for value in values:
    factor.assign(value)
    tf_follow["tf.Variable"].append(float(graph_fn(x)[0]))
print("a tf.Variable gives", tf_follow["tf.Variable"])
tf_results["x * factor"] = graph_fn(x)

# %%
# **PyTorch (torch.compile)**: a guard fails, and it recompiles.
x = torch.ones(3, device=torch_device)
graphs.clear()
graph_fn = torch.compile(scaled, backend=counting_backend)
torch_follow = {"global": []}
for value in values:
    factor = value  # change the global
    torch_follow["global"].append(float(graph_fn(x)[0]))
print("factor 2, 3, 4, 5 gives", torch_follow["global"])
print("graphs:", len(graphs))
print("graph 2 takes:", graph_inputs(graphs[1]))
torch_counts["global"] = len(graphs)
torch.compiler.reset()
torch_results["x * factor"] = graph_fn(x)

# %%
# The difference, drawn
# ---------------------
# The same four calls, the global changed before each. Left, TensorFlow's graph keeps returning
# what it computed for the value it traced with, while a ``tf.Variable`` follows; right,
# ``torch.compile`` follows, for one recompile.
fig, (ax_tf, ax_torch) = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
ax_tf.plot(values, tf_follow["tf.Variable"], "^:", lw=2, color=sidebyside.graphs.TF_COLOR,
           label="a tf.Variable")
ax_tf.plot(values, tf_follow["global"], "o-", lw=3, color=sidebyside.graphs.TF_COLOR,
           label="a global: stale")
ax_torch.plot(values, torch_follow["global"], "s--", lw=3, color=sidebyside.graphs.TORCH_COLOR,
              label="a global: recompiled")
for ax, title in [(ax_tf, "TensorFlow: tf.function"), (ax_torch, "PyTorch: torch.compile")]:
    ax.set(title=title, xlabel="factor at the call", xticks=values, yticks=values)
    ax.legend(fontsize=11, loc="upper left")
ax_tf.set_ylabel("(x * factor)[0]")
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 1

# %%
# Going deeper: declaring a dimension dynamic
# -------------------------------------------
# ``x`` now has lengths 2, 3, 4 and 5; each list counts the new graphs at each call, for each way
# of saying "this dimension changes". TensorFlow: by default every length is a new trace.
# ``reduce_retracing=True`` traces the second length with that dimension generalised to ``None``
# (printed below), and that graph serves the rest. An ``input_signature`` with ``None`` declares it
# before the first call: one trace. PyTorch: ``dynamic=False`` compiles every length; the default
# ``dynamic=None`` is automatic dynamic, like ``reduce_retracing=True``; ``dynamic=True`` makes
# sizes dynamic from the first call, and so does ``torch._dynamo.mark_dynamic`` on the input
# (despite the underscore, the way PyTorch's *Dynamic Shapes* guide documents).
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
tf_new = {}
for name, graph_fn in variants.items():
    tf_new[name] = []
    for n in lengths:
        before = graph_fn.experimental_get_tracing_count()
        y = graph_fn(tf.ones(n), tf.constant(2.0))
        after = graph_fn.experimental_get_tracing_count()
        tf_new[name].append(after - before)
    print(f"{name}: new traces {tf_new[name]}")
reduced = variants["reduce_retracing=True"]
general = reduced.get_concrete_function(tf.ones(5),
                                        tf.constant(2.0))
print("the generalised graph's x:", general.inputs[0].shape)
tf_results["x * k at length 5"] = y
assert tf_new == {"default": [1, 1, 1, 1],
                  "reduce_retracing=True": [1, 1, 0, 0],
                  "input_signature": [1, 0, 0, 0]}
assert tuple(general.inputs[0].shape) == (None,)

# %%
# **PyTorch (torch.compile)**: three ways, and the default.
variants = {
    "dynamic=False": {"dynamic": False},
    "dynamic=None": {"dynamic": None},
    "dynamic=True": {"dynamic": True},
    "mark_dynamic": {},
}
torch_new = {}
for name, options in variants.items():
    graphs.clear()
    graph_fn = torch.compile(scale, backend=counting_backend,
                             **options)
    torch_new[name] = []
    for n in lengths:
        x = torch.ones(n, device=torch_device)
        if name == "mark_dynamic":
            torch._dynamo.mark_dynamic(x, 0)  # dimension 0
        before = len(graphs)
        y = graph_fn(x, torch.tensor(2.0, device=torch_device))
        torch_new[name].append(len(graphs) - before)
    torch.compiler.reset()
    print(f"{name}: new graphs {torch_new[name]}")
torch_results["x * k at length 5"] = y
assert torch_new == {"dynamic=False": [1, 1, 1, 1],
                     "dynamic=None": [1, 1, 0, 0],
                     "dynamic=True": [1, 0, 0, 0],
                     "mark_dynamic": [1, 0, 0, 0]}

# %%
# Sizes 0 and 1, and what ``mark_dynamic`` promises
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Sizes 0 and 1 are always specialised, even with ``dynamic=True`` (a size of 1 broadcasts, a size
# of 0 is empty): lengths 1 and 0 get graphs of their own. ``mark_unbacked`` (in the private
# ``torch._dynamo.decorators``) avoids that: the size becomes a symbol without an example value,
# and one graph serves 0 and 1 too, at the price of errors where the code branches on the size.
# And ``mark_dynamic`` is a promise: where the code needs the size's value (``x.shape[0] == 3``),
# the call raises, and the message names ``maybe_mark_dynamic``, which only suggests a dynamic
# size and lets Dynamo specialise it.
from torch._dynamo.decorators import mark_unbacked

small_sizes = {}
for name, options, mark in [("dynamic=True", {"dynamic": True}, None),
                            ("mark_unbacked", {}, mark_unbacked)]:
    graph_fn = torch.compile(scale, backend=counting_backend, **options)
    small_sizes[name] = []
    for n in (1, 2, 3, 4, 0):
        x = torch.ones(n, device=torch_device)
        if mark:
            mark(x, 0)
        before = len(graphs)
        graph_fn(x, torch.tensor(2.0, device=torch_device))
        small_sizes[name].append(len(graphs) - before)
    torch.compiler.reset()
    print(f"{name}, lengths 1, 2, 3, 4, 0: new graphs {small_sizes[name]}")

# sphinx_gallery_start_ignore
import logging

logging.getLogger("torch._guards").disabled = True  # it logs the error at length
# sphinx_gallery_end_ignore
outcome = {}
for mark in (torch._dynamo.mark_dynamic, torch._dynamo.maybe_mark_dynamic):
    x = torch.ones(3, device=torch_device)
    mark(x, 0)
    needs_three = lambda x: x * 2 if x.shape[0] == 3 else x + 1  # noqa: E731
    try:
        torch.compile(needs_three, backend=counting_backend)(x)
        outcome[mark.__name__] = "compiled"
    except RuntimeError as error:  # ConstraintViolationError
        outcome[mark.__name__] = f"raised {type(error).__name__}"
        why = str(error).splitlines()[1].split(" If you're using Dim")[0]
    print(f"{mark.__name__}: {outcome[mark.__name__]}")
    torch.compiler.reset()
print(sidebyside.wrap(why.strip(" -"), "  "))
# sphinx_gallery_start_ignore
logging.getLogger("torch._guards").disabled = False
# sphinx_gallery_end_ignore
assert small_sizes == {"dynamic=True": [1, 1, 0, 0, 1], "mark_unbacked": [1, 0, 0, 0, 0]}
assert outcome["mark_dynamic"].startswith("raised") and outcome["maybe_mark_dynamic"] == "compiled"

# %%
# Going deeper: what each checks before reusing a graph
# -----------------------------------------------------
# A ``tf.function`` with an ``input_signature`` never traces again: a call that fits the signature
# runs the traced graph (a Python ``3`` for a scalar ``TensorSpec`` becomes a tensor), and a call
# that does not fit raises ``TypeError``. ``torch.compile`` checks the guards of its graphs; the
# public ``torch.compiler.set_stance("fail_on_recompile")`` turns a recompile into a
# ``RuntimeError`` that names the guard that failed (``failed_guard``, from this site's helpers,
# picks it out). Below, probes against a graph for ``scale(x, 2)``, ``x`` float32 of length 3.

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
tf_refused = []
for name, args in probes.items():
    try:
        strict(*args)
        print(f"{name}: reused")
    except TypeError as error:
        tf_refused.append(name)
        cause = str(error).split("`")[1]  # "Can not cast ..."
        print(f"{name}: TypeError")
        print(sidebyside.wrap(cause, "  "))
tf_counts["probes"] = strict.experimental_get_tracing_count()
print("traces after the probes:", tf_counts["probes"])
tf_results["x * k, the probes' graph"] = y
assert tf_counts["probes"] == 1
assert tf_refused == ["x of dtype float64", "x of shape (3, 2)"]

# %%
# **PyTorch (torch.compile)**: a failed guard means a recompile.
from sidebyside.capture import failed_guard

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
torch_refused = []
with torch.compiler.set_stance("fail_on_recompile"):
    for name, args in probes.items():
        try:
            graph_fn(*args)
            print(f"{name}: reused")
        except RuntimeError as error:
            torch_refused.append(name)
            print(f"{name}: guard failed")
            print("  " + failed_guard(error))
torch_counts["probes"] = len(graphs)
print("graphs after the probes:", torch_counts["probes"])
torch.compiler.reset()
torch_results["x * k, the probes' graph"] = y
assert torch_counts["probes"] == 1
assert torch_refused == list(probes)[1:]

# %%
# A closure variable
# ~~~~~~~~~~~~~~~~~~
# A variable of an enclosing function, read through a *closure*, behaves like the global:
# ``tf.function`` keeps the value it traced with, Dynamo guards on it and recompiles.


def make_scaled(factor):
    def scaled(x):
        return x * factor  # factor: a closure variable

    def set_factor(value):
        nonlocal factor
        factor = value

    return scaled, set_factor


# %%
# **TensorFlow (tf.function)**: the closure's old value stays.
scaled, set_factor = make_scaled(2.0)
graph_fn = tf.function(scaled)
tf_follow["closure"] = []
for value in values:
    set_factor(value)
    tf_follow["closure"].append(float(graph_fn(tf.ones(3))[0]))
print("factor 2, 3, 4, 5 gives", tf_follow["closure"])
assert tf_follow["closure"] == [2.0] * 4

# %%
# **PyTorch (torch.compile)**: a guard fails, and it recompiles.
scaled, set_factor = make_scaled(2.0)
graph_fn = torch.compile(scaled, backend=counting_backend)
torch_follow["closure"] = []
for value in values:
    set_factor(value)
    y = graph_fn(torch.ones(3, device=torch_device))
    torch_follow["closure"].append(float(y[0]))
torch.compiler.reset()
print("factor 2, 3, 4, 5 gives", torch_follow["closure"])
assert torch_follow["closure"] == list(values)

# %%
# An ``int`` attribute of a module
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Dynamo specialises on the integer attributes of an ``nn.Module``: unlike a Python ``int``
# argument, which becomes dynamic at its first change, a step counter in ``self.step`` is a new
# graph at every step, until the recompile limit (:ref:`next page
# <sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`). The public switch
# ``torch.compiler.config.allow_unspec_int_on_nn_module`` (off by default) treats such an
# attribute like an ``int`` argument.


class Stepped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0  # a Python int on the module

    def forward(self, x):
        self.step += 1
        return x * self.step


print("allow_unspec_int_on_nn_module:", torch.compiler.config.allow_unspec_int_on_nn_module)
x = torch.ones(3, device=torch_device)
per_step = {}
for allow in (False, True):
    with torch.compiler.config.patch(allow_unspec_int_on_nn_module=allow):
        graph_fn = torch.compile(Stepped(), backend=counting_backend)
        per_step[allow] = []
        for _ in range(4):
            before = len(graphs)
            y = graph_fn(x)
            per_step[allow].append(len(graphs) - before)
        torch.compiler.reset()
    print(f"allowed={allow}: new graphs per step {per_step[allow]}")
assert per_step == {False: [1, 1, 1, 1], True: [1, 1, 0, 0]} and torch.equal(y, x * 4)

# %%
# They agree
# ----------
# However many graphs each framework built, the same calls give the same answers; and what the
# text said, checked: the counts, and the stale global.
assert tf_counts["Python ints"] == tf_counts["Python floats"] == 3  # one per new value
assert torch_counts["Python ints"] == torch_counts["Python floats"] == 2  # then k is an input
assert tf_counts["tensors"] == torch_counts["tensors"] == 1
assert len(graph_inputs(int_graphs[0])) == 1 and len(graph_inputs(int_graphs[1])) == 2
assert tf_follow["global"] == [2.0] * 4 and tf_counts["global"] == 1  # stale, no retrace
assert tf_follow["tf.Variable"] == torch_follow["global"] == list(values)  # they follow
assert torch_counts["global"] == 2  # one recompile
for what, tf_value in tf_results.items():
    sidebyside.assert_close(tf_value, torch_results[what], what=what, device=torch_device)
assert tf_results.keys() == torch_results.keys()
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``tf.function`` keys its graphs on the input signature: dtype and shape of each tensor
#   argument, and the *value* of each Python argument. Pass numbers that change as tensors.
# * A global or closure variable a ``tf.function`` reads is baked in at trace time and never
#   checked again: change it, and the graph silently computes with the old value. Pass it as an
#   argument or keep it in a ``tf.Variable``.
# * ``torch.compile`` guards each graph on its inputs *and* on what the function read (Python
#   numbers, globals, sizes, dtype, ``requires_grad``) and recompiles when a guard fails. By
#   default (``dynamic=None``) a size or a Python number that changes becomes dynamic at that
#   recompile, and the new graph serves the later values.
# * To skip even that extra trace or compile, declare the dimension dynamic up front: an
#   ``input_signature`` with ``None`` in TensorFlow, ``dynamic=True`` or
#   ``torch._dynamo.mark_dynamic`` in PyTorch.
# * Next: :ref:`graph breaks and the recompile limit
#   <sphx_glr_auto_examples_10_graphs_plot_55_graph_breaks.py>`, with loops over a length.
#
# References: ``tf.function`` (``reduce_retracing``, ``input_signature``), ``tf.TensorSpec``,
# ``tf.function.experimental_get_tracing_count``, ``tf.Variable``, ``torch.compile``,
# ``torch.compiler.reset``, ``torch.compiler.set_stance``, ``torch.compiler.config``,
# ``torch._dynamo.mark_dynamic``, ``torch._dynamo.maybe_mark_dynamic``, custom backends.
