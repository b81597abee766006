"""
Trade memory for compute, and write your own backward
=====================================================

Two ways to change a backward pass. *Activation checkpointing* (``torch.utils.checkpoint``,
``tf.recompute_grad``) keeps fewer of the activations that :ref:`the autograd-memory page
<sphx_glr_auto_examples_10_graphs_plot_25_autograd_memory.py>` counted and computes the others
again in the backward pass: on a stack of eight layers we count what each framework keeps with
and without it, check that the gradients stay the same, and count and time the extra work. A
*custom gradient* changes how a function is differentiated: the automatic gradient of ``log(1 +
exp(x))`` is ``nan`` at ``x = 100`` in float32, and that of its usual stable rewrite is wrong at
``x = 0``. We write the backward ourselves, with ``tf.custom_gradient`` and a
``torch.autograd.Function``, and check every version with ``tf.test.compute_gradient`` and
``torch.autograd.gradcheck``.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import functools
import statistics
import weakref

import sidebyside

import numpy as np
import tensorflow as tf
import torch
from torch.utils.checkpoint import checkpoint

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# A stack of eight blocks
# -----------------------
# Each *block* computes ``xw = h @ W``, ``z = xw + b`` and ``t = tanh(z)``, with ``W`` of shape
# ``(256, 256)``. Eight blocks turn a batch ``x`` of shape ``(64, 256)`` into ``h``; the loss is
# the mean of ``h**2``. Each intermediate result is a ``(64, 256)`` float32 tensor of 65,536
# bytes. Both frameworks start from the same NumPy arrays and run the stack three ways:
# ``plain``; ``per block``, a checkpoint around every block; ``per 4 blocks``, one around each
# half. A checkpointed function runs in the forward pass keeping only what it needs to run
# again; the backward pass runs it again, recorded, and takes its gradient from that run.
DEPTH, WIDTH, BATCH = 8, 256, 64
rng = np.random.default_rng(0)
x_np = rng.standard_normal((BATCH, WIDTH), dtype=np.float32)
W_np = [rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / 16 for _ in range(DEPTH)]
b_np = [0.1 * rng.standard_normal(WIDTH, dtype=np.float32) for _ in range(DEPTH)]
PLANS = {"plain": 0, "per block": 1, "per 4 blocks": 4}  # blocks per checkpoint
TOLERANCE = sidebyside.parity.TOLERANCES["cuda" if torch_device == "cuda" else "cpu"]
to_numpy = sidebyside.parity.to_numpy


def flat(grads):
    """A list of gradients as one NumPy vector."""
    return np.concatenate([to_numpy(g).ravel() for g in grads])


# %%
# What the backward pass keeps
# ----------------------------
# We count the *activations* kept: tensors the blocks computed (the input ``x`` and the weights
# exist anyway). In TensorFlow, as on the autograd-memory page, each block takes weak references
# to ``xw``, ``z`` and ``t``; after the forward pass only the tape (and what it holds) can keep
# them alive. That works on every machine, unlike ``tf.config.experimental.get_memory_info``,
# which reports the CPU allocator's bytes only where TensorFlow's oneDNN CPU ops are on (and
# raises ``ValueError`` where they are off). In PyTorch a pack hook of ``saved_tensors_hooks``
# sees every tensor saved for the backward pass; we count the distinct ones (by address) that an
# operation computed (with a ``grad_fn``). Both count block runs, backward pass included.

# %%
# **TensorFlow (tf.GradientTape)**: ``tf.recompute_grad``; weak references.
with tf.device(tf_device):
    tf_x = tf.constant(x_np)
    tf_W = [tf.Variable(w) for w in W_np]
    tf_b = [tf.Variable(b) for b in b_np]
tf_params = tf_W + tf_b
made, runs = [], [0]  # weak refs to block results; block runs


def tf_block(i, h):
    runs[0] += 1
    xw = h @ tf_W[i]
    z = xw + tf_b[i]
    t = tf.tanh(z)
    made.extend(weakref.ref(a) for a in (xw, z, t))
    return t


def tf_loss(size):  # size: blocks per checkpoint, 0: none
    h, step = tf_x, size or DEPTH
    for first in range(0, DEPTH, step):
        def run(h, blocks=range(first, first + step)):
            for i in blocks:
                h = tf_block(i, h)
            return h
        h = tf.recompute_grad(run)(h) if size else run(h)
    return tf.reduce_mean(tf.square(h))


def alive(refs):
    kept = [r() for r in refs if r() is not None]
    each = [t.shape.num_elements() * t.dtype.size for t in kept]
    return len(kept), sum(each)


tf_kept, tf_grads = {}, {}
for plan, size in PLANS.items():
    made.clear()
    runs[0] = 0
    with tf.GradientTape() as tape:
        loss = tf_loss(size)
    n, nbytes = alive(made)
    tf_grads[plan] = tape.gradient(loss, tf_params)
    tf_kept[plan] = n, nbytes, runs[0]
    print(f"{plan:<12} kept {n:>2} tensors, {nbytes:>7} bytes;",
          f"runs {runs[0]}")
    assert alive(made) == (0, 0)  # released by gradient()
assert [*tf_kept.values()] == [
    (16, 1048576, 8), (8, 524288, 16), (2, 131072, 16)]

# %%
# **PyTorch (eager)**: ``checkpoint(..., use_reentrant=False)``; a pack hook.
leaf = dict(device=torch_device, requires_grad=True)
torch_x = torch.tensor(x_np, device=torch_device)
torch_W = [torch.tensor(w, **leaf) for w in W_np]
torch_b = [torch.tensor(b, **leaf) for b in b_np]
torch_params = torch_W + torch_b
saved, runs = [], [0]  # (address, bytes, computed?) per save


def pack(t):
    nbytes = t.numel() * t.element_size()
    saved.append((t.data_ptr(), nbytes, t.grad_fn is not None))
    return t


def torch_block(i, h):
    runs[0] += 1
    xw = h @ torch_W[i]
    z = xw + torch_b[i]
    return torch.tanh(z)


def torch_loss(size):  # size: blocks per checkpoint, 0: none
    h, step = torch_x, size or DEPTH
    for first in range(0, DEPTH, step):
        def run(h, blocks=range(first, first + step)):
            for i in blocks:
                h = torch_block(i, h)
            return h
        h = (checkpoint(run, h, use_reentrant=False)
             if size else run(h))
    return h.square().mean()


hooks = torch.autograd.graph.saved_tensors_hooks
torch_kept, torch_grads = {}, {}
for plan, size in PLANS.items():
    saved.clear()
    runs[0] = 0
    with hooks(pack, lambda t: t):
        loss = torch_loss(size)
    computed = {ptr: n for ptr, n, c in saved if c}
    n, nbytes = len(computed), sum(computed.values())
    torch_grads[plan] = torch.autograd.grad(loss, torch_params)
    torch_kept[plan] = n, nbytes, runs[0]
    print(f"{plan:<12} kept {n:>2} tensors, {nbytes:>7} bytes;",
          f"runs {runs[0]}; saves {len(saved)}")
assert [*torch_kept.values()] == [
    (8, 524288, 8), (8, 524288, 16), (2, 131072, 16)]

# %%
# The counts are exact, the same on every machine. Per framework:
#
# * **plain**: PyTorch keeps the eight ``t``: ``tanh`` computes its gradient from its output,
#   ``h @ W`` saves its input ``h`` (the previous ``t``) for the gradient of ``W``, ``+ b`` saves
#   nothing. That is 24 saves of 8 distinct activations (the others are ``x``, the weights, and
#   the same ``t`` again). TensorFlow's tape keeps every ``xw`` too: the addition's gradient
#   function reads its inputs' shapes (``op.inputs`` in ``_AddGrad``, to sum ``b``'s gradient
#   over the batch), and the eager tape keeps those input tensors for it. Neither keeps ``z``.
# * **per block**: every block runs twice (16 runs instead of 8), and PyTorch gains *nothing*: a
#   checkpoint keeps its input, the previous block's output, which the plain run kept anyway.
#   TensorFlow drops the ``xw``: ``tf.recompute_grad`` holds each call's inputs, to run it again,
#   and its outputs (the ``tf.custom_gradient`` wrapper it builds refers to them); one block's
#   output is the next one's input (through an ``Identity``, which passes the buffer on).
# * **per 4 blocks**: both keep 2 activations, a quarter of PyTorch's plain run: the output of
#   the first half (the second half's input) and the last ``t``, which the loss's square needs.
#
# So checkpointing pays only where a segment keeps more inside than at its border. While the
# backward pass goes through a segment, its activations exist again: ``n`` blocks in segments of
# ``k`` keep about ``n / k + k`` alive at the peak, fewest near ``k = sqrt(n)``;
# ``torch.utils.checkpoint.checkpoint_sequential`` makes segments (the last without a checkpoint).

# %%
# The same gradients, for a second forward pass
# ---------------------------------------------
# Checkpointing changes what is kept, not what is computed: the gradients agree with and without
# it, within each framework (checked here) and across them (at the end). The cost is 16 forward
# block runs instead of 8: if a backward pass costs twice its forward pass, a step takes a third
# longer. We print the time of a step ``per 4 blocks`` over that of a plain step, timed back to
# back (the median of nine rounds): this machine's measurement, not checked. On tensors this
# small it includes each checkpoint's bookkeeping (Python calls, saving and restoring the random
# number generator's state).


def time_ratio(step, rounds=9):
    """Time of step(4) over time of step(0), timed back to back: the median of `rounds`."""
    ratios, time_call = [], sidebyside.time_call
    for _ in range(rounds):
        plain, per_4 = (time_call(lambda s=s: step(s), warmup=1, repeat=3).median for s in (0, 4))
        ratios.append(per_4 / plain)
    return statistics.median(ratios)

# %%
# **TensorFlow (tf.GradientTape)**: gradients agree; time a step.
plain = flat(tf_grads["plain"])
for grads in tf_grads.values():
    np.testing.assert_allclose(flat(grads), plain, **TOLERANCE)
print("every plan's gradients match plain")


def tf_step(size):
    with tf.GradientTape() as tape:
        loss = tf_loss(size)
    grads = tape.gradient(loss, tf_params)
    made.clear()
    return float(tf.add_n([tf.reduce_sum(g) for g in grads]))


print("On this machine (timed):", "per 4 blocks / plain:",
      f"{time_ratio(tf_step):.1f}x the time")

# %%
# **PyTorch (eager)**: gradients agree; time a step.
plain = flat(torch_grads["plain"])
for grads in torch_grads.values():
    np.testing.assert_allclose(flat(grads), plain, **TOLERANCE)
print("every plan's gradients match plain")


def torch_step(size):
    loss = torch_loss(size)
    grads = torch.autograd.grad(loss, torch_params)
    return sum(g.sum() for g in grads).item()  # waits for a GPU


print("On this machine (timed):", "per 4 blocks / plain:",
      f"{time_ratio(torch_step):.1f}x the time")

# %%
# Or keep it elsewhere: ``save_on_cpu``
# -------------------------------------
# PyTorch can also keep activations elsewhere: ``torch.autograd.graph.save_on_cpu`` is a
# ready-made pair of saved-tensor hooks. The pack hook keeps each saved tensor in host memory
# (pinned with ``pin_memory=True``, for faster copies), the unpack hook moves it back to its
# device for the backward pass. That frees GPU memory; on a CPU-only machine a tensor already
# lives in host memory, ``tensor.cpu()`` returns it as it is, and nothing changes (the line below
# says which happened here). A ``tf.GradientTape`` has no hook for what it keeps.
offload = torch.autograd.graph.save_on_cpu(pin_memory=torch.cuda.is_available())
with offload:
    loss = torch_loss(0)
offloaded = flat(torch.autograd.grad(loss, torch_params))
np.testing.assert_allclose(offloaded, flat(torch_grads["plain"]), **TOLERANCE)
t = torch.tanh(torch_x @ torch_W[0])
_, packed = offload.pack_hook(t)  # what the graph would keep
print(f"an activation on {t.device.type} is kept on {packed.device.type},",
      f"a copy: {packed.data_ptr() != t.data_ptr()}; the gradients are the same as plain")

# %%
# A gradient that overflows
# -------------------------
# ``softplus(x) = log(1 + exp(x))``, a smooth ``relu``, has the derivative ``exp(x) / (1 +
# exp(x)) = sigmoid(x)``. Written as it reads, it breaks in float32 above ``x`` of about 88.7,
# where ``exp(x)`` exceeds the largest float32 and becomes ``inf``. The usual rewrite ``max(x, 0)
# + log1p(exp(-|x|))`` computes it without overflow; a third form spells ``max(x, 0)`` as
# ``relu(x)``. We compute all three and their automatic gradients.
xs = np.array([-20, -2, 0, 2, 20, 100], dtype=np.float32)


def show(name, values, indent=""):
    """One row of the table: four decimals, nan and inf as such."""
    cells = " ".join(f"{float(v):8.4f}" for v in np.ravel(values))
    print(f"{indent}{name:<10}{cells}")


# %%
# **TensorFlow (tf.GradientTape)**: the values and their automatic gradients.
tf_forms = {  # three ways to write log(1 + exp(x))
    "naive": lambda x: tf.math.log(1.0 + tf.exp(x)),
    "stable": lambda x: (tf.maximum(x, 0.0)
                         + tf.math.log1p(tf.exp(-tf.abs(x)))),
    "relu form": lambda x: (
        tf.nn.relu(x) + tf.math.log1p(tf.exp(-tf.abs(x)))),
}
x = tf.constant(xs)
tf_auto = {}
show("x", xs)
for name, form in tf_forms.items():
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = form(x)
    tf_auto[name] = tape.gradient(y, x)
    show(name, y)
    show("  grad", tf_auto[name])

# %%
# **PyTorch (eager)**: the values and their automatic gradients.
torch_forms = {  # three ways to write log(1 + exp(x))
    "naive": lambda x: torch.log(1.0 + torch.exp(x)),
    "stable": lambda x: (x.clamp(min=0)
                         + torch.log1p(torch.exp(-x.abs()))),
    "relu form": lambda x: (
        torch.relu(x) + torch.log1p(torch.exp(-x.abs()))),
}
x = torch.tensor(xs, device=torch_device, requires_grad=True)
torch_auto = {}
# the slope an operation takes at its kink is the release's choice
print(sidebyside.on_this_version("torch"))
show("x", xs, "  ")
for name, form in torch_forms.items():
    y = form(x)
    (torch_auto[name],) = torch.autograd.grad(y.sum(), x)
    show(name, y.detach().cpu(), "  ")
    show("  grad", torch_auto[name].cpu(), "  ")
x0 = torch.zeros((), device=torch_device, requires_grad=True)
max_0 = torch.maximum(x0, torch.zeros_like(x0))
(tie,) = torch.autograd.grad(max_0, x0)
print("  torch.maximum(x, 0) at 0: grad", tie.item())

# %%
# At ``x = 100`` the naive form gives ``inf`` and a ``nan`` gradient in both: the backward pass
# of ``log`` divides the incoming gradient by ``1 + exp(x) = inf``, giving 0, and the backward
# pass of ``exp`` multiplies that by ``exp(x) = inf``: ``0 * inf = nan``. The stable form fixes
# the values, and its gradient is right everywhere except at ``x = 0``, where it is not
# ``sigmoid(0) = 0.5``: automatic differentiation differentiates the program, not the function.
# ``max`` and ``abs`` have a kink at 0, where each operation picks one slope: ``abs`` takes
# ``sign(0) = 0``, ``relu`` takes 0, ``tf.maximum`` passes the whole gradient to ``x`` (1, so
# 1 + 0 for the stable form), and ``torch.maximum`` splits a tie in halves (0.5, last line).
# Which slope ``clamp(min=0)`` takes has changed between PyTorch releases, so the PyTorch table
# is printed as this version's. The kinks cancel in the function, not in the chain rule. The
# cure is to state the derivative, ``sigmoid(x)``, which both frameworks compute without
# overflow.

# %%
# Writing the backward pass
# -------------------------
# ``tf.custom_gradient`` decorates a function that returns its value and a gradient function. A
# ``torch.autograd.Function`` has a ``forward`` and a ``backward``; ``ctx`` carries what the
# forward pass saves for the backward pass (``ctx.save_for_backward`` goes through the
# saved-tensor hooks like any save). Both gradient functions turn the gradient with respect to
# the output (``upstream``) into the one with respect to the input; both values come from the
# stable form. A TF1 graph gets an ``IdentityN`` operation whose gradient is replaced by ours.

# %%
# **TensorFlow (tf.custom_gradient)**: a graph and a tape use it.
@tf.custom_gradient
def softplus(x):
    def grad(upstream):
        return upstream * tf.sigmoid(x)
    return tf_forms["stable"](x), grad


tf_forms["custom"] = softplus
with tf.Graph().as_default() as graph:
    x = tf.compat.v1.placeholder(tf.float32, (None,), name="x")
    y = softplus(x)
    (dy_dx,) = tf.compat.v1.gradients(y, x)
with tf.compat.v1.Session(graph=graph) as session:
    tf_custom_y, tf_custom = session.run([y, dy_dx], {x: xs})
kind = y.op.get_attr("_gradient_op_type").decode().split("-")[0]
print(f"y comes from {y.op.type}; its gradient: {kind}")
ours = [op.type for op in graph.get_operations()
        if op.name.startswith(f"gradients/{y.op.name}_grad/")]
print("the ops our grad added to the graph:", sorted(ours))
x = tf.constant(xs)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = softplus(x)
tf_tape_custom = tape.gradient(y, x)
show("x", xs)
show("custom", y)
show("  grad", tf_tape_custom)

# %%
# **PyTorch (torch.autograd.Function)**: ``forward``, ``backward``, ``ctx``.
class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch_forms["stable"](x)

    @staticmethod
    def backward(ctx, upstream):
        (x,) = ctx.saved_tensors
        return upstream * torch.sigmoid(x)


softplus = torch_forms["custom"] = Softplus.apply
x = torch.tensor(xs, device=torch_device, requires_grad=True)
for name in ("naive", "custom"):
    saved.clear()
    with hooks(pack, lambda t: t):
        y = torch_forms[name](x)
    kind = type(y.grad_fn).__name__
    print(f"{name}: grad_fn {kind}, saves {len(saved)}")
torch_custom_y = y
(torch_custom,) = torch.autograd.grad(y.sum(), x)
show("x", xs)
show("custom", y.detach().cpu())
show("  grad", torch_custom.cpu())

# %%
# Inside ``forward`` autograd records nothing (``clamp`` and ``abs`` leave no trace): the graph
# gets one node, ``SoftplusBackward``, which saves one tensor, ``x``; the naive form saved two
# (``exp``'s output and ``log``'s input). In the TF1 graph our ``grad`` became two ordinary
# operations, ``Sigmoid`` and ``Mul`` (as it does in a ``tf.function``), run like any other.

# %%
# Checking a gradient against finite differences
# ----------------------------------------------
# ``torch.autograd.gradcheck`` and ``tf.test.compute_gradient`` compare the gradient a function
# claims with central differences, ``(f(x + h) - f(x - h)) / 2h``, in float64 (``gradcheck``
# warns about float32 inputs). ``gradcheck`` uses ``h = 1e-6`` and passes where the two differ by
# at most ``atol + rtol * |numerical|`` (``1e-5`` and ``1e-3``); ``compute_gradient`` uses ``h =
# 1/1024`` and returns both Jacobians, which we compare with a tolerance of ``1e-6``.

# %%
# **TensorFlow (tf.test.compute_gradient)**: both Jacobians, compared.
x64 = tf.constant(xs, tf.float64)
tf_passes = {}
for name, form in tf_forms.items():
    theory, numeric = tf.test.compute_gradient(form, [x64])
    gap = np.max(np.abs(theory[0] - numeric[0]))
    tf_passes[name] = bool(gap < 1e-6)
    print(f"{name:<10} Jacobians {theory[0].shape} agree:",
          tf_passes[name])

# %%
# **PyTorch (torch.autograd.gradcheck)**: in float64.
x64 = torch.tensor(xs, dtype=torch.float64, **leaf)
torch_passes = {}
for name, form in torch_forms.items():
    torch_passes[name] = torch.autograd.gradcheck(
        form, (x64,), raise_exception=False)
    print(f"{name:<10} gradcheck:", torch_passes[name])

# %%
# Both checks catch the wrong slope at 0 of the stable and ``relu`` forms, and pass the naive
# form: in float64 ``exp`` overflows only above ``x`` of about 709.8. A float64 check shows that
# a formula is right, not that float32 can compute it: test float32 inputs too, as above.

# %%
# They agree
# ----------
# The same gradients from both frameworks for every way of running the stack, and for the
# softplus; the custom gradients equal ``sigmoid(x)`` computed by NumPy in float64, and the
# automatic ones fail where the tables showed. These assertions run on every build.
check = functools.partial(sidebyside.assert_close, device=torch_device)
for plan in PLANS:
    check(flat(tf_grads[plan]), flat(torch_grads[plan]), what=f"stack gradients, {plan}")
check(tf_custom_y, torch_custom_y, what="softplus (TF1 graph vs Function)")
check(tf_custom, torch_custom, what="d softplus (TF1 graph vs Function)")
check(tf_tape_custom, torch_custom, what="d softplus (tape vs Function)")
sigmoid = 1 / (1 + np.exp(-xs.astype(np.float64)))
for custom in (tf_custom, tf_tape_custom, torch_custom):
    np.testing.assert_allclose(to_numpy(custom), sigmoid, rtol=1e-5)
for auto in (tf_auto, torch_auto):
    naive_g, stable_g, relu_g = (to_numpy(auto[k]) for k in ("naive", "stable", "relu form"))
    assert np.isnan(naive_g[-1]) and np.isfinite(naive_g[:-1]).all()  # nan at x = 100 only
    assert stable_g[2] != 0.5 and relu_g[2] != 0.5  # at the kink, x = 0: not sigmoid(0)
    np.testing.assert_allclose(np.delete(stable_g, 2), np.delete(sigmoid, 2), rtol=1e-5)
assert tie.item() == 0.5
assert tf_passes == torch_passes == {"naive": True, "stable": False, "relu form": False,
                                     "custom": True}
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Activation checkpointing (``torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)``,
#   ``tf.recompute_grad(fn)``) keeps a segment's inputs instead of everything inside it and runs
#   it again in the backward pass: the same gradients for more forward work (16 block runs, not 8).
# * It pays only where a segment keeps more inside than at its border: around one ``tanh(h @ W +
#   b)`` block PyTorch keeps as much as without, around four blocks a quarter as much.
# * Count: ``saved_tensors_hooks`` shows what PyTorch saves, weak references what a tape holds.
#   ``save_on_cpu``, ready-made hooks, moves saved tensors to host memory (a GPU's gain only).
# * Automatic differentiation differentiates the program: ``log(1 + exp(x))`` gives ``0 * inf =
#   nan`` at ``x = 100`` in float32, and a stable rewrite with ``max`` and ``abs`` gets a wrong
#   slope at their kink. ``tf.custom_gradient`` and ``torch.autograd.Function`` state the
#   derivative instead, and both then agree with ``sigmoid(x)``.
# * Check a hand-written gradient with ``torch.autograd.gradcheck`` or ``tf.test.compute_gradient``
#   in float64, and float32 at the inputs that matter: float64 cannot see a float32 overflow.
#
# References: ``torch.utils.checkpoint.checkpoint`` (``use_reentrant``),
# ``torch.utils.checkpoint.checkpoint_sequential``, ``tf.recompute_grad``,
# ``torch.autograd.graph.saved_tensors_hooks``, ``torch.autograd.graph.save_on_cpu``,
# ``tf.GradientTape``, ``tf.custom_gradient``, ``torch.autograd.Function``
# (``ctx.save_for_backward``), ``torch.autograd.gradcheck``, ``tf.test.compute_gradient``,
# ``tf.math.softplus`` and ``torch.nn.functional.softplus`` (the built-in versions, which avoid
# the overflow), ``weakref``; Chen et al., "Training Deep Nets with Sublinear Memory Cost" (2016).

