"""
Save a graph, run it without the Python that made it
====================================================

A traced graph can outlive the program that traced it. TensorFlow saves a ``tf.Module`` whose
``tf.function`` has an ``input_signature`` as a *SavedModel*; PyTorch exports a module with
``torch.export.export`` and saves the ``ExportedProgram`` as a ``.pt2`` file. We load each in a
fresh Python process that never sees this script, check that it computes the same numbers, look
at what was saved (the functions, their signatures, a dynamic batch dimension), and at what does
not survive: a Python side effect, a branch on a Python value, an input shape the signature does
not allow.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything. Everything this page
# saves goes into a temporary folder, removed at the end.
import os
import pathlib
import subprocess
import sys
import tempfile
import warnings
import zipfile

import sidebyside
from sidebyside import show_error

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device = sidebyside.torch_device()
TOLERANCE = sidebyside.parity.TOLERANCES["cuda" if torch_device == "cuda" else "cpu"]
folder = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
where = pathlib.Path(folder.name)


def run_fresh(code, *args):
    """Run ``code`` in a new Python process (this interpreter, this environment, ``args`` as its
    ``sys.argv[1:]``) and return what it printed; fail with its stderr if it fails."""
    env = {**os.environ, "TF_FORCE_GPU_ALLOW_GROWTH": "true"}  # share a GPU
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)],
                          capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"the fresh process failed:\n{done.stderr}")
    return done.stdout


sidebyside.provenance()


# %%
# One small model, with two Python habits
# ---------------------------------------
# ``y = sum(relu(x W + b))`` over the last axis, with the same weights (drawn in NumPy) in both
# frameworks. Its Python code does two things a graph cannot keep: it *prints* (a side effect),
# and it *branches on a Python value*, the attribute ``use_relu``. Both functions accept any
# batch size: TensorFlow's ``input_signature`` says ``(None, 3)``, PyTorch's ``dynamic_shapes``
# names dimension 0 ``batch``, a ``torch.export.Dim``. The inputs go to an ``.npy`` file for the
# fresh processes.
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
        self.W = tf.Variable(W_np)
        self.b = tf.Variable(b_np)
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
print("saved:", type(program).__name__)

# %%
# The ``print`` ran while each framework *traced* the Python code, never when the graph ran.
# TensorFlow traced twice: at the first call, and in ``tf.saved_model.save``, which traces the
# function again for the file (a trace made while saving is cached apart from those made by
# calls). In this PyTorch ``torch.export.export`` defaults to ``strict=False``: it runs
# ``forward`` as ordinary Python with *fake* tensors, which have shapes but no data, and records
# the tensor operations; the batch size it printed is a symbol, ``s77``. (``strict=True`` has
# TorchDynamo analyse the bytecode instead, as ``torch.compile`` does: :ref:`the graphs-in-PyTorch
# page <sphx_glr_auto_examples_10_graphs_plot_40_graphs_in_pytorch.py>` explains both tools.)
assert traces == 2
assert torch.export.export.__kwdefaults__["strict"] is False

# %%
# What was saved
# --------------
# A SavedModel is a folder: ``saved_model.pb`` holds the graphs (every concrete function, and
# the objects that own them), ``variables/`` holds the weights as a checkpoint, and
# ``fingerprint.pb`` identifies the model. A ``.pt2`` file is
# a zip archive: the graph as JSON (``models/model.json``), each weight as raw bytes (``weight_0``
# is the 2 x 3 float32 matrix, 24 bytes), and the example inputs export traced with.

# %%
# **TensorFlow (tf.saved_model)**: files; the concrete function.
for path in sorted((where / "tf_model").rglob("*")):
    if path.is_file():
        print(path.relative_to(where).as_posix())
concrete = tf_model.__call__.get_concrete_function()
(spec,), _ = concrete.structured_input_signature
print("input: ", spec)
print("output:", concrete.output_shapes, concrete.output_dtypes)
ops = [op.type for op in concrete.graph.get_operations()]
ops = ", ".join(op for op in ops if op != "Placeholder")
print(sidebyside.wrap(f"ops: {ops}", hang="  "))

# %%
# **PyTorch (torch.export)**: files; the graph; the batch.
with zipfile.ZipFile(where / "torch_model.pt2") as archive:
    for info in archive.infolist():
        name = info.filename.partition("/")[2]
        if "weight_" in name:
            name += f" ({info.file_size} bytes)"
        print(name)
for node in program.graph.nodes:
    print(f"{node.op:14} {node.target}")
x_node = next(n for n in program.graph.nodes if n.name == "x")
print("x:", x_node.meta["val"].shape)
print("range constraints:", program.range_constraints)

# %%
# The concrete function takes ``x`` of shape ``(None, 3)``: any batch size, three features. The
# graph's ``x`` has shape ``[s77, 3]``, and the range constraints say ``s77`` may be any size
# from 0 up (``int_oo`` is a symbolic infinity). The weights are *inputs* of the exported graph
# (``placeholder`` ``p_linear_weight``), read from the file; TensorFlow's graph reads its
# variables (``ReadVariableOp``). Both graphs hold a ``relu``: ``use_relu`` was ``True``.

# %%
# Load it in a fresh process
# --------------------------
# Each loader below is a complete program, run by ``run_fresh`` in a new Python process (``python
# -c``, with the folder as its argument). It imports one framework and NumPy, never this script:
# the classes ``TFModel`` and ``TorchModel`` do not exist there. It reads the inputs, runs the
# loaded graph, writes its outputs to an ``.npy`` file, and prints what it loaded; this page
# shows what it printed and checks its outputs.

# %%
# **TensorFlow (tf.saved_model.load)**: a loader that knows no ``TFModel``.
TF_LOADER = """
import pathlib, sys
import numpy as np
import tensorflow as tf

where = pathlib.Path(sys.argv[1])
loaded = tf.saved_model.load(str(where / "tf_model"))
y = loaded(np.load(where / "x.npy"))
np.save(where / "tf_loaded.npy", y.numpy())
print("loaded:", type(loaded).__name__)
print("has use_relu:", hasattr(loaded, "use_relu"))
print("W:", loaded.W.shape)
(restored,) = loaded.__call__.concrete_functions
(spec,), _ = restored.structured_input_signature
print("input:", spec)
print("signatures:", list(loaded.signatures))
"""
printed = run_fresh(TF_LOADER, where)
print(printed, end="")
tf_loaded = np.load(where / "tf_loaded.npy")
np.testing.assert_allclose(tf_loaded, tf_y, **TOLERANCE)
assert "Python ran" not in printed
print("the fresh process computed the same y")

# %%
# **PyTorch (torch.export.load)**: a loader that knows no ``TorchModel``.
TORCH_LOADER = """
import pathlib, sys
import numpy as np
import torch

where, device = pathlib.Path(sys.argv[1]), sys.argv[2]
program = torch.export.load(where / "torch_model.pt2")
x = torch.from_numpy(np.load(where / "x.npy")).to(device)
y = program.module()(x)
np.save(where / "torch_loaded.npy", y.detach().cpu().numpy())
print("loaded:", type(program).__name__)
print("has use_relu:", hasattr(program.module(), "use_relu"))
print("range constraints:", program.range_constraints)
"""
printed = run_fresh(TORCH_LOADER, where, torch_device)
print(printed, end="")
torch_loaded = np.load(where / "torch_loaded.npy")
np.testing.assert_allclose(
    torch_loaded, torch_y.detach().cpu(), **TOLERANCE)
assert "Python ran" not in printed
print("the fresh process computed the same y")

# %%
# The fresh processes printed no ``Python ran``: the ``print`` was not saved, only the tensor
# operations. TensorFlow restored a generic ``_UserObject`` holding the variables and the
# function with its signature; ``signatures`` holds ``serving_default``, the entry point that
# TensorFlow Serving and the C++ API look up (``tf.saved_model.save``, given no ``signatures``,
# makes it from the saved object's only ``tf.function`` with an ``input_signature``). PyTorch restored an ``ExportedProgram`` with its
# symbolic batch. Neither kept ``use_relu``: it is not a tensor, and the graph no longer asks.

# %%
# What does not survive
# ---------------------
# To catch the errors on this page, we load both files in this process too: the loaded objects
# do not use the classes defined above either. First the branch: we set ``use_relu = False``.
# The Python models follow it at once (PyTorch) or at their next trace (TensorFlow); the saved
# graphs keep the ``relu`` they recorded. Then inputs of another batch size, which the
# signatures allow, and ``(2, 4)``, which they do not.
tf_reloaded = tf.saved_model.load(str(where / "tf_model"))
torch_reloaded = torch.export.load(where / "torch_model.pt2").module()
x7_np = rng.standard_normal((7, 3), dtype=np.float32)
x_bad_np = np.ones((2, 4), np.float32)


def row(name, values):
    """One line: a name, then values with two decimals."""
    print(f"{name:<10}", " ".join(f"{v:5.2f}" for v in np.ravel(values)))


# %%
# **TensorFlow (tf.saved_model.load)**: the branch; shapes.
tf_model.use_relu = False
row("saved", tf_reloaded(x_np))
row("function", tf_model(tf.constant(x_np)))
print("a new model: call, set use_relu = False, save:")
other = TFModel()
other(tf.constant(x_np))
other.use_relu = False
tf.saved_model.save(other, str(where / "tf_model_2"))
resaved = tf.saved_model.load(str(where / "tf_model_2"))
row("its call", other(tf.constant(x_np)))
row("its save", resaved(x_np))
tf_y7 = tf_reloaded(x7_np)
print("batch of 7 ->", tf_y7.shape)
show_error(TypeError, tf_reloaded, x_bad_np,
           cut=". Received args")

# %%
# **PyTorch (torch.export.load)**: the branch; shapes.
torch_model.use_relu = False
x_bad = torch.from_numpy(x_bad_np).to(torch_device)
with torch.no_grad():
    row("saved", torch_reloaded(x).cpu())
    torch_eager = torch_model(x)
    row("eager", torch_eager.cpu())
    x7 = torch.from_numpy(x7_np).to(torch_device)
    torch_y7 = torch_reloaded(x7)
    print("batch of 7 ->", tuple(torch_y7.shape))
    show_error(AssertionError, torch_reloaded, x_bad)

# %%
# The saved graphs still apply ``relu`` (no value below zero). Eager PyTorch no longer does: its
# Python runs at every call (its ``print`` says so). The ``tf.function`` still applies it: it
# reused its trace (``use_relu`` is not part of its signature, so nothing made it trace again).
# But saving traces the function once more, apart from the calls: the new model was called with
# ``use_relu = True`` and saved after the change, so in memory it applies ``relu`` and in its
# SavedModel it does not. A SavedModel holds what the Python said when it was saved, not when
# the function was first called.
#
# The wrong shape fails before anything runs, in both: TensorFlow cannot match ``(2, 4)`` to the
# only signature the loaded function has, ``(None, 3)``, and the exported module checks its
# *guards*, the conditions recorded at export, here that the second dimension is 3. The batch
# dimension has no such guard, so 7 rows pass.
assert other.__call__.experimental_get_tracing_count() == 2
assert np.all(tf_reloaded(x_np).numpy() >= 0)
assert np.all(other(tf.constant(x_np)).numpy() >= 0)
assert not np.all(resaved(x_np).numpy() >= 0)
assert not np.all(torch_eager.cpu().numpy() >= 0)

# %%
# Other ways out
# --------------
# ``torch.export`` is PyTorch's current way to save a graph. The older way is TorchScript:
# ``torch.jit.script`` or ``torch.jit.trace`` make a ``ScriptModule``, and ``torch.jit.save``
# writes it to a file that ``torch.jit.load`` reads (in Python or C++, with LibTorch). PyTorch
# deprecates that path: scripting and saving warn. Which warning class says so depends on the
# release (a ``DeprecationWarning``, hidden outside ``__main__``, in torch 2.13; a
# ``FutureWarning``, which Python always shows, in torch 2.15), so the class is printed as
# this version's:
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
# into C++ (and, for a GPU, Triton) kernels, builds them into a shared library with a C++
# compiler, and packs it into a ``.pt2`` package, which ``torch._inductor.aoti_load_package``
# loads in Python and ``torch::inductor::AOTIModelPackageLoader`` in C++. That needs a compiler
# toolchain where the package is built, so this page does not run it. A SavedModel needs no
# compiling: the C++ API (``tensorflow::LoadSavedModel``), TensorFlow Serving and the TFLite
# converter read the folder itself.

# %%
# They agree
# ----------
# The original graphs, the fresh processes and the reloaded graphs give the same numbers in both
# frameworks, for the batch of 5 they traced with and the batch of 7 they did not.
check = sidebyside.assert_close
check(tf_y, torch_y, what="y, traced", device=torch_device)
check(tf_loaded, torch_loaded, what="y, fresh process", device=torch_device)
check(tf_y7, torch_y7, what="y, batch of 7, reloaded", device=torch_device)
folder.cleanup()
sidebyside.parity_report()

# %%
# Takeaways
# ---------
# * ``tf.saved_model.save`` writes a folder: the graphs of the object's ``tf.function`` (with an
#   ``input_signature``, one concrete function), its variables, and here a ``serving_default``
#   signature. ``tf.saved_model.load`` needs no Python class: it returns a generic object.
# * ``torch.export.export`` (in this PyTorch ``strict=False`` by default: ordinary Python, fake
#   tensors) makes an ``ExportedProgram``; ``torch.export.save`` writes it, weights included, to a
#   ``.pt2`` zip; ``torch.export.load`` reads it back, and ``.module()`` runs it.
# * Dynamic dimensions are declared: ``None`` in a ``tf.TensorSpec``, a ``torch.export.Dim`` in
#   ``dynamic_shapes``, which the range constraints then show. Anything else is fixed: a shape
#   outside the signature raises ``TypeError`` (TensorFlow) or ``AssertionError`` (a guard).
# * A graph keeps tensor operations only: a ``print`` runs at trace time, a branch on a Python
#   value is decided then, and TensorFlow traces again *when saving*, so set such values first.
# * TorchScript (``torch.jit.save``) is the deprecated path; AOTInductor compiles an exported
#   program into a package that C++ can run without Python, given a compiler where it is built.
#
# References: ``tf.saved_model.save``, ``tf.saved_model.load``, ``tf.function``
# (``input_signature``), ``tf.Module``, ``torch.export.export`` (``dynamic_shapes``, ``strict``),
# ``torch.export.Dim``, ``torch.export.save``, ``torch.export.load``,
# ``torch._inductor.aoti_compile_and_package``, ``torch.jit.save``; the TensorFlow guide "Using
# the SavedModel format" and PyTorch's "torch.export" and "AOTInductor" documentation.
