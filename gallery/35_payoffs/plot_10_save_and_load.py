"""
Save a graph, and load it without the code that made it
=======================================================

A traced graph can outlive the program that traced it. TensorFlow saves a ``tf.Module`` as a
:term:`SavedModel`, a folder holding the graphs of its ``tf.function`` and its variables;
PyTorch exports a module with ``torch.export.export`` into an :term:`ExportedProgram`, one
graph with its weights, saved as a ``.pt2`` file. We load each in a fresh Python process that
never sees this script's classes, check that it computes the same numbers, look at what was
saved, and at what does not survive: a Python side effect, a branch on a Python value, an input
shape the saved graph does not accept.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. What this page saves
# goes into a temporary folder, removed at the end.
import pathlib
import tempfile

import sidebyside
from sidebyside.benchmark import fresh_python

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
folder = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
where = pathlib.Path(folder.name)
sidebyside.provenance()

# %%
# One small model, with two Python habits
# ---------------------------------------
# ``y = sum(relu(x W + b))`` over the last axis, with the same weights (drawn in NumPy) in both
# frameworks. Its Python code does two things a graph cannot keep: it *prints* (a side effect),
# and it *branches on a Python value*, the attribute ``use_relu``. Both accept any batch size:
# TensorFlow's :term:`input signature` (``input_signature=``) says ``(None, 3)``; PyTorch's
# ``dynamic_shapes`` names dimension 0 ``batch``, a ``torch.export.Dim``. The inputs go to an
# ``.npy`` file for the fresh processes.
rng = np.random.default_rng(0)
W_np = rng.standard_normal((3, 2), dtype=np.float32)
b_np = rng.standard_normal(2, dtype=np.float32)
x_np = rng.standard_normal((5, 3), dtype=np.float32)
np.save(where / "x.npy", x_np)

# %%
# **TensorFlow (tf.function)**: call it, then ``tf.saved_model.save``.
class TFModel(tf.Module):
    def __init__(self):
        super().__init__()
        self.W, self.b = tf.Variable(W_np), tf.Variable(b_np)
        self.use_relu = True  # a Python value

    @tf.function(input_signature=[tf.TensorSpec((None, 3))])
    def __call__(self, x):
        print("  Python ran: __call__ with", x.shape)
        z = x @ self.W + self.b
        if self.use_relu:  # decided while tracing
            z = tf.nn.relu(z)
        return tf.reduce_sum(z, axis=-1)

tf_model = TFModel()
print("call:")
tf_y = tf_model(tf.constant(x_np))
print("save:")
tf.saved_model.save(tf_model, str(where / "tf_model"))
print("call again:")
tf_model(tf.constant(x_np))
traces = tf_model.__call__.experimental_get_tracing_count()
print("traces:", traces)

# %%
# **PyTorch (torch.export)**: export, then ``torch.export.save``.
class TorchModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)
        self.use_relu = True  # a Python value

    def forward(self, x):
        print("  Python ran: forward with", tuple(x.shape))
        z = self.linear(x)
        if self.use_relu:  # decided while tracing
            z = torch.relu(z)
        return z.sum(dim=-1)

torch_model = TorchModel().to(torch_device)
with torch.no_grad():  # PyTorch stores W transposed
    torch_model.linear.weight.copy_(torch.from_numpy(W_np.T))
    torch_model.linear.bias.copy_(torch.from_numpy(b_np))
x = torch.from_numpy(x_np).to(torch_device)
batch = torch.export.Dim("batch")
print("export:")
program = torch.export.export(
    torch_model, (x,), dynamic_shapes=({0: batch},))
torch.export.save(program, where / "torch_model.pt2")
print("call:")
torch_y = program.module()(x)

# %%
# The ``print`` ran while each framework *traced* the Python code (:term:`tracing`), never when
# the graph ran. TensorFlow traced twice: at the first call, and in ``tf.saved_model.save``,
# which traces the function again for the file (a trace made while saving is cached apart from
# those made by calls). ``torch.export.export`` ran ``forward`` once, as ordinary Python with
# :term:`fake tensors <fake tensor>`, which have shapes but no data, recording the tensor
# operations; the batch size it printed is a symbol (an ``s`` and a number), not 5.

# %%
# The graphs, drawn: TensorFlow's concrete function reads its variables (``ReadVariableOp``);
# the exported graph takes the weights as *inputs* (``p_linear_weight``, grey like ``x``), read
# from the file. Both hold a ``relu``: ``use_relu`` was ``True``.

concrete = tf_model.__call__.get_concrete_function()  # drawn left
# sphinx_gallery_start_ignore
# sphinx_gallery_thumbnail_number = 1
from sidebyside.graphs import TF_NOTE, TORCH_COLOR, draw_dag, draw_tf_graph

import matplotlib.pyplot as plt
import networkx as nx

exported = nx.DiGraph()
for node in program.graph.nodes:
    op = str(node.target) if node.op == "call_function" else node.op
    label = f"{node.name}\n{op}"  # like TensorFlow's: name, then what
    exported.add_node(node.name, label=label, leaf=node.op == "placeholder")
    for source in node.all_input_nodes:
        exported.add_edge(source.name, node.name)
fig, (ax_tf, ax_torch) = plt.subplots(1, 2, figsize=(11, 2.3))
draw_tf_graph(concrete.graph, ax_tf, title="TensorFlow: the concrete function")
draw_dag(exported, ax_torch, title="PyTorch: the exported graph", color=TORCH_COLOR,
         note=TF_NOTE)
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore

# %%
# Load it in a fresh process
# --------------------------
# Each loader below is a complete program, run by ``fresh_python`` in a new Python process. It
# imports one framework and NumPy, never this script: the classes ``TFModel`` and
# ``TorchModel`` do not exist there. It reads the inputs, runs the loaded graph while catching
# anything it prints, and prints what it found as JSON; this page shows it and checks ``y``.
# (``FOLDER`` and ``DEVICE`` are filled in before it runs.)

# %%
# **TensorFlow (tf.saved_model.load)**: a loader that knows no ``TFModel``.
TF_LOADER = """
import contextlib, io, json
import numpy as np, tensorflow as tf
loaded = tf.saved_model.load(FOLDER + "/tf_model")
with contextlib.redirect_stdout(io.StringIO()) as printed:
    y = loaded(np.load(FOLDER + "/x.npy"))
(restored,) = loaded.__call__.concrete_functions
(spec,), _ = restored.structured_input_signature
print(json.dumps(dict(
    loaded=type(loaded).__name__, y=y.numpy().tolist(),
    printed=repr(printed.getvalue()),
    has_use_relu=hasattr(loaded, "use_relu"),
    input=str(spec), signatures=list(loaded.signatures))))
"""
folder_name = repr(str(where))
found = fresh_python(TF_LOADER.replace("FOLDER", folder_name))
tf_loaded = np.array(found.pop("y"), np.float32)
print(*(f"{k}: {v}" for k, v in found.items()), sep="\n")

# %%
# **PyTorch (torch.export.load)**: a loader that knows no ``TorchModel``.
TORCH_LOADER = """
import contextlib, io, json
import numpy as np, torch
program = torch.export.load(FOLDER + "/torch_model.pt2")
x = torch.from_numpy(np.load(FOLDER + "/x.npy")).to(DEVICE)
with contextlib.redirect_stdout(io.StringIO()) as printed:
    y = program.module()(x)
print(json.dumps(dict(
    loaded=type(program).__name__, y=y.tolist(),
    printed=repr(printed.getvalue()),
    has_use_relu=hasattr(program.module(), "use_relu"),
    range=str(program.range_constraints))))
"""
loader = TORCH_LOADER.replace("FOLDER", folder_name)
loader = loader.replace("DEVICE", repr(torch_device))
found = fresh_python(loader)
torch_loaded = np.array(found.pop("y"), np.float32)
print(*(f"{k}: {v}" for k, v in found.items()), sep="\n")

# %%
# The fresh processes printed nothing while the graphs ran: the ``print`` was not saved, only
# the tensor operations. TensorFlow restored a generic ``_UserObject`` holding the variables and
# the function with its signature; ``signatures`` holds ``serving_default``, the entry point
# that TensorFlow Serving and the C++ API look up (``tf.saved_model.save``, given no
# ``signatures``, makes it from the object's only ``tf.function`` with an ``input_signature``).
# PyTorch restored an ``ExportedProgram`` with its symbolic batch. Neither kept ``use_relu``: it
# is not a tensor, and the graph no longer asks.

# %%
# What does not survive
# ---------------------
# To catch the errors on this page, we load both files in this process too: the loaded objects
# do not use the classes defined above either. First the branch: we set ``use_relu = False``.
# The Python models follow it at once (PyTorch) or at their next trace (TensorFlow); the saved
# graphs keep the ``relu`` they recorded. Then inputs of another batch size, which the saved
# graphs accept, and ``(2, 4)``, which they do not.
tf_reloaded = tf.saved_model.load(str(where / "tf_model"))
torch_reloaded = torch.export.load(where / "torch_model.pt2").module()
x7_np = rng.standard_normal((7, 3), dtype=np.float32)
x_bad_np = np.ones((2, 4), np.float32)
x7, x_bad = (torch.from_numpy(a).to(torch_device) for a in (x7_np, x_bad_np))
def row(name, values):  # a name, then values with two decimals
    print(f"{name:<10}", " ".join(f"{v:5.2f}" for v in np.ravel(values)))


# %%
# **TensorFlow (tf.saved_model.load)**: the branch; shapes.
tf_model.use_relu = False
row("saved", tf_reloaded(x_np))
row("function", tf_model(tf.constant(x_np)))
tf_y7 = tf_reloaded(x7_np)
print("batch of 7 ->", tf_y7.shape)
sidebyside.show_error(TypeError, tf_reloaded, x_bad_np,
                      cut=". Received args")

# %%
# **PyTorch (torch.export.load)**: the branch; shapes.
torch_model.use_relu = False
with torch.no_grad():
    row("saved", torch_reloaded(x).cpu())
    torch_eager = torch_model(x)
    row("eager", torch_eager.cpu())
    torch_y7 = torch_reloaded(x7)
    print("batch of 7 ->", tuple(torch_y7.shape))
    sidebyside.show_error(AssertionError, torch_reloaded, x_bad)

# %%
# The saved graphs still apply ``relu`` (no value below zero). Eager PyTorch no longer does: its
# Python runs at every call (its ``print`` says so). The ``tf.function`` still applies it: it
# reused its trace (``use_relu`` is not part of its input signature, so nothing made it trace
# again). Saving, though, traces once more: *Going deeper* saves a model after such a change.
#
# The wrong shape fails before anything runs, in both. A loaded SavedModel cannot trace again:
# it holds only the concrete functions that were saved, and ``(2, 4)`` matches none of them.
# The exported module checks its *guards* (:term:`guard`), the conditions recorded at export,
# here that the second dimension is 3; the batch dimension has no such guard, so 7 rows pass.

# %%
# Going deeper: the files, and other ways out
# -------------------------------------------
#
# Saving after a change
# ~~~~~~~~~~~~~~~~~~~~~
# Saving traces once more, apart from the calls: a new model is called with ``use_relu = True``
# and saved after the change, so in memory it applies ``relu`` and in its SavedModel it does not.
# A SavedModel holds what the Python said when it was saved.
print("a new model: call, set use_relu = False, save:")
other = TFModel()
other(tf.constant(x_np))
other.use_relu = False
tf.saved_model.save(other, str(where / "tf_model_2"))
resaved = tf.saved_model.load(str(where / "tf_model_2"))
row("its call", other(tf.constant(x_np)))
row("its save", resaved(x_np))
assert other.__call__.experimental_get_tracing_count() == 2
assert np.all(other(tf.constant(x_np)).numpy() >= 0) and not np.all(resaved(x_np).numpy() >= 0)

# %%
# What was saved
# ~~~~~~~~~~~~~~
# A SavedModel is a folder: ``saved_model.pb`` holds the graphs (each :term:`concrete function`,
# a graph traced for one input signature, and the objects that own them), ``variables/`` the
# weights, ``fingerprint.pb`` an identity. A ``.pt2`` file is a zip archive: the graph as JSON
# (``models/model.json``), each weight as raw bytes (``weight_0`` is the 2 x 3 float32 matrix,
# four bytes a number), and the example inputs the export ran with.

# %%
# **TensorFlow (tf.saved_model)**: files; the concrete function.
import zipfile

for path in sorted((where / "tf_model").rglob("*")):
    if path.is_file():
        print(path.relative_to(where).as_posix())
(spec,), _ = concrete.structured_input_signature
print("input: ", spec)
print("output:", concrete.output_shapes, concrete.output_dtypes)

# %%
# **PyTorch (torch.export)**: files; the graph's input; its range.
with zipfile.ZipFile(where / "torch_model.pt2") as archive:
    for info in archive.infolist():
        name = info.filename.partition("/")[2]
        if "weight_" in name:
            name += f" ({info.file_size} bytes)"
        print(name)
x_node = next(n for n in program.graph.nodes if n.name == "x")
print("x:", x_node.meta["val"].shape)
print("range constraints:", program.range_constraints)

# %%
# The concrete function takes ``x`` of shape ``(None, 3)``; the exported graph's ``x`` has a
# symbolic batch, which the range constraints let be any size from 0 up (``int_oo`` is a
# symbolic infinity).

# %%
# What the ``.pt2`` holds
# ~~~~~~~~~~~~~~~~~~~~~~~
# ``torch.export.export`` ran with its default, ``strict=False``, in the torch releases this site
# supports; ``strict=True`` has :term:`TorchDynamo` read the bytecode instead, as
# ``torch.compile`` does (:ref:`the graphs-in-PyTorch page
# <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>`).
#
# ``torch.export.export`` records the *training IR*: operations as the module called them, here
# ``aten.linear``. ``run_decompositions()`` lowers the program to *Core ATen*, a smaller set of
# operations (``linear`` becomes a transpose and an ``addmm``), which is what back ends such as
# AOTInductor and ExecuTorch read. The file also records the device of every weight, and
# ``torch.export.load`` puts each weight back there: a program exported on a GPU does not load
# on a machine without one. ``torch.export.passes.move_to_device_pass`` moves a program's
# weights, and the devices written into its graph, before it is saved. (A SavedModel places its
# operations when it is loaded.) ``Dim("batch")`` is one way to declare a dynamic dimension;
# ``Dim.AUTO`` lets export decide, ``Dim.DYNAMIC`` insists.
from torch.export.passes import move_to_device_pass

core = program.run_decompositions()
print("training IR:", [str(n.target) for n in program.graph.nodes if n.op == "call_function"])
print("Core ATen:  ", [str(n.target) for n in core.graph.nodes if n.op == "call_function"])


def loaded_on(path):
    """Where each weight of a saved program lands when it is loaded."""
    return {name: w.device.type for name, w in torch.export.load(path).state_dict.items()}


print(f"On this machine (PyTorch on {torch_device}):")
print("  exported here, loaded on:", loaded_on(where / "torch_model.pt2"))
torch.export.save(move_to_device_pass(program, "cpu"), where / "torch_model_cpu.pt2")
print("moved to the CPU, loaded on:", loaded_on(where / "torch_model_cpu.pt2"))

# %%
# Other ways out
# ~~~~~~~~~~~~~~
# The older way to save a PyTorch graph is TorchScript: ``torch.jit.script`` or
# ``torch.jit.trace`` make a ``ScriptModule``, and ``torch.jit.save`` writes it to a file that
# ``torch.jit.load`` reads (in Python or C++, with LibTorch). PyTorch deprecates that path:
# scripting and saving warn. The warning's class depends on the release (a
# ``DeprecationWarning``, hidden outside ``__main__``, in torch 2.13; a ``FutureWarning``, which
# Python always shows, in torch 2.15), so it is printed as this version's:
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = torch.jit.script(torch.nn.Linear(3, 2))
    torch.jit.save(legacy, str(where / "legacy.pt"))
print(sidebyside.on_this_version("torch"))
for warning in caught:
    print(f"  {warning.category.__name__}: {warning.message}")
assert caught and all("deprecated" in str(w.message) for w in caught)
assert all(issubclass(w.category, (DeprecationWarning, FutureWarning)) for w in caught)

# %%
# ``torch.export.load`` reads a ``.pt2`` file back into Python, where PyTorch's operators run the
# graph. To run an exported program without Python, PyTorch documents *AOTInductor*:
# ``torch._inductor.aoti_compile_and_package`` compiles an ``ExportedProgram`` ahead of time
# into C++ (and, for a GPU, Triton) kernels, builds a shared library with a C++ compiler, and
# packs it into a ``.pt2`` package, which ``torch::inductor::AOTIModelPackageLoader`` loads in
# C++ (``torch._inductor.aoti_load_package`` in Python). Compiling takes many seconds even for
# this model, so this page does not run it. A SavedModel needs no compiling: the C++ API
# (``tensorflow::LoadSavedModel``) and TensorFlow Serving read the folder itself, and so does
# the converter to LiteRT, the on-device runtime once called TensorFlow Lite (in TensorFlow 2.21
# still ``tf.lite.TFLiteConverter``, while ``tf.lite.Interpreter`` is deprecated for the one in
# the ``ai_edge_litert`` package). It writes a flatbuffer, whose bytes 4 to 8 name the format:
converter = tf.lite.TFLiteConverter.from_saved_model(str(where / "tf_model"))
flatbuffer = converter.convert()
print("a LiteRT model:", flatbuffer[4:8])

# %%
# They agree
# ----------
# The original graphs, the fresh processes and the reloaded graphs give the same numbers in both
# frameworks, for the batch of 5 they traced with and the batch of 7 they did not; the fresh
# processes printed nothing while running, and neither kept ``use_relu``; TensorFlow traced
# twice, once to call and once to save.
check = sidebyside.assert_close
check(tf_y, torch_y, what="y, traced", device=torch_device)
check(tf_loaded, torch_loaded, what="y, fresh process", device=torch_device)
check(tf_y7, torch_y7, what="y, batch of 7, reloaded", device=torch_device)
np.testing.assert_allclose(tf_loaded, tf_y, rtol=1e-5, atol=1e-6)  # a fresh process, the same y
np.testing.assert_allclose(torch_loaded, torch_y.detach().cpu(), rtol=1e-5, atol=1e-6)
assert traces == 2
assert np.all(tf_reloaded(x_np).numpy() >= 0) and not np.all(torch_eager.cpu().numpy() >= 0)
folder.cleanup()
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``tf.saved_model.save`` writes a folder: the graphs of the object's ``tf.function`` (with an
#   ``input_signature``, one concrete function), its variables, and here a ``serving_default``
#   signature. ``tf.saved_model.load`` needs no Python class: it returns a generic object.
# * ``torch.export.export`` (by default ``strict=False``: ordinary Python on fake tensors) makes
#   an ``ExportedProgram``; ``torch.export.save`` writes it, weights included, to a ``.pt2``
#   zip; ``torch.export.load`` reads it back, and ``.module()`` runs it.
# * Dynamic dimensions are declared: ``None`` in a ``tf.TensorSpec``, a ``torch.export.Dim`` in
#   ``dynamic_shapes``. Anything else is fixed: a shape outside the saved graph raises
#   ``TypeError`` (TensorFlow, which cannot trace again) or ``AssertionError`` (a guard).
# * A graph keeps tensor operations only: a ``print`` runs at trace time, a branch on a Python
#   value is decided then, and TensorFlow traces again *when saving*, so set such values first.
# * TorchScript (``torch.jit.save``) is the deprecated path; AOTInductor compiles an exported
#   program into a package that C++ can run without Python, given a compiler where it is built.
#
# References: the TensorFlow guide "Using the SavedModel format"; PyTorch's "torch.export" and
# "AOTInductor" documentation; the LiteRT documentation.
