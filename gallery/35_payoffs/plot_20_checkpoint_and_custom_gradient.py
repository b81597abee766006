"""
Trade memory for compute, and write your own backward
=====================================================

Two ways to change a backward pass. *Activation checkpointing* (``tf.recompute_grad``,
``torch.utils.checkpoint``) keeps fewer of the activations that :ref:`the autograd-memory page
<sphx_glr_auto_examples_10_graphs_plot_25_autograd_memory.py>` counted and computes them again
in the backward pass: the same gradients for less memory, except where the recomputed part
draws random numbers (dropout), and there TensorFlow goes wrong. A *custom gradient* states how
a function is differentiated: here, without the ``nan`` of ``log(1 + exp(x))`` in float32.
"""

# %%
# Setup
# -----
# Both frameworks, Matplotlib, the helpers of this site, and one seed for everything.
import functools

import sidebyside

import numpy as np
import tensorflow as tf
import torch
from torch.utils.checkpoint import checkpoint

sidebyside.start_lesson()
# sphinx_gallery_start_ignore
import sidebyside.benchmark

tf_pools, _ = sidebyside.benchmark.pin_threads(1, show=False)
# sphinx_gallery_end_ignore
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
to_numpy = sidebyside.parity.to_numpy
def flat(grads):  # a list of gradients as one NumPy vector
    return np.concatenate([to_numpy(g).ravel() for g in grads])

def same(a, b):  # two lists of gradients, up to round-off
    return np.allclose(flat(a), flat(b), rtol=1e-4, atol=1e-6)

sidebyside.provenance()


# %%
# A stack of eight blocks, and what its backward pass keeps
# ---------------------------------------------------------
# Each *block* computes ``xw = h @ W``, ``z = xw + b`` and ``t = tanh(z)``; eight of them turn a
# batch ``x`` of shape ``(64, 256)`` into ``h``; the loss is the mean of ``h**2``. We run it
# ``plain``, with a checkpoint around every block (``per block``), and around each half (``per 4
# blocks``). A checkpointed function runs in the forward pass keeping only its inputs; the
# backward pass runs it again, recorded, and takes its gradient from that run. We count the
# *activations* kept, the ``(64, 256)`` tensors the blocks computed: in TensorFlow by weak
# references to ``xw``, ``z`` and ``t``, which after the forward pass only the tape keeps alive;
# in PyTorch by a pack hook of ``saved_tensors_hooks``, which sees each tensor the backward pass
# will hold (:term:`saved tensors`). We count block runs too, and compare gradients with plain.
DEPTH, WIDTH, BATCH = 8, 256, 64
rng = np.random.default_rng(0)
x_np = rng.standard_normal((BATCH, WIDTH), dtype=np.float32)
W_np = [rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / 16 for _ in range(DEPTH)]
b_np = [0.1 * rng.standard_normal(WIDTH, dtype=np.float32) for _ in range(DEPTH)]
PLANS = {"plain": 0, "per block": 1, "per 4 blocks": 4}  # blocks per checkpoint

# %%
# **TensorFlow (tf.GradientTape)**: ``tf.recompute_grad``; weak references.
import weakref

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

def tf_loss(size, drop=None):  # size: blocks per checkpoint
    h, step = tf_x, size or DEPTH
    for first in range(0, DEPTH, step):
        def run(h, blocks=range(first, first + step)):
            for i in blocks:
                h = tf_block(i, h)
                h = drop(h, i) if drop else h
            return h
        h = tf.recompute_grad(run)(h) if size else run(h)
    return tf.reduce_mean(tf.square(h))

tf_kept, tf_grads = {}, {}
for plan, size in PLANS.items():
    made[:], runs[0] = [], 0
    with tf.GradientTape() as tape:
        loss = tf_loss(size)
    kept = sum(r() is not None for r in made)
    tf_grads[plan] = grads = tape.gradient(loss, tf_params)
    tf_kept[plan] = kept, runs[0]  # backward pass included
    print(f"{plan:<12} kept {kept:>2}, runs {runs[0]:>2};",
          "same gradients:", same(grads, tf_grads["plain"]))
    assert all(r() is None for r in made)  # gradient() let go

# %%
# **PyTorch (eager)**: ``checkpoint(..., use_reentrant=False)``; a pack hook.
leaf = dict(device=torch_device, requires_grad=True)
torch_x = torch.tensor(x_np, device=torch_device)
torch_W = [torch.tensor(w, **leaf) for w in W_np]
torch_b = [torch.tensor(b, **leaf) for b in b_np]
torch_params = torch_W + torch_b
saved, runs = [], [0]  # (address, computed?) per save

def pack(t):
    saved.append((t.data_ptr(), t.grad_fn is not None))
    return t

def torch_block(i, h):
    runs[0] += 1
    xw = h @ torch_W[i]
    z = xw + torch_b[i]
    return torch.tanh(z)

def torch_loss(size, drop=None, **options):  # for checkpoint
    h, step = torch_x, size or DEPTH
    for first in range(0, DEPTH, step):
        def run(h, blocks=range(first, first + step)):
            for i in blocks:
                h = torch_block(i, h)
                h = drop(h) if drop else h
            return h
        h = (checkpoint(run, h, use_reentrant=False, **options)
             if size else run(h))
    return h.square().mean()

hooks = torch.autograd.graph.saved_tensors_hooks
torch_kept, torch_grads = {}, {}
for plan, size in PLANS.items():
    saved[:], runs[0] = [], 0
    with hooks(pack, lambda t: t):
        loss = torch_loss(size)
    kept = len({ptr for ptr, computed in saved if computed})
    grads = torch.autograd.grad(loss, torch_params)
    torch_grads[plan], torch_kept[plan] = grads, (kept, runs[0])
    print(f"{plan:<12} kept {kept:>2}, runs {runs[0]:>2};",
          "same gradients:", same(grads, torch_grads["plain"]))

# %%
# The counts are exact, the same on every machine; the figure draws them.
counts = {"TensorFlow": tf_kept, "PyTorch": torch_kept}  # (kept, runs) per plan
# sphinx_gallery_start_ignore
# sphinx_gallery_thumbnail_number = 1
from sidebyside.graphs import TF_COLOR, TORCH_COLOR

import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(9, 2.6))
spots = np.arange(len(PLANS))
for (name, kept), (shift, color, hatch) in zip(counts.items(), (
        (-0.2, TF_COLOR, "//"), (0.2, TORCH_COLOR, "")), strict=True):
    for ax, column in zip(axes, (0, 1), strict=True):
        ax.bar(spots + shift, [k[column] for k in kept.values()], 0.4, label=name,
               color=color, hatch=hatch, edgecolor="black")
for ax, title in zip(axes, ("activations kept", "block runs"), strict=True):
    ax.set_xticks(spots, list(PLANS))
    ax.set(title=title, yticks=[0, 2, 8, 16])
axes[0].legend()
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore

# %%
# * **plain**: PyTorch keeps each ``t`` (``tanh``'s gradient reads its output, ``h @ W`` saves
#   ``h`` for ``W``'s gradient). TensorFlow's tape keeps every ``xw`` too: the gradient of ``xw
#   + b`` reads its inputs' shapes (to sum ``b``'s gradient over the batch).
# * **per block**: every block runs twice, and PyTorch keeps *nothing less*: a checkpoint keeps
#   its input, the previous block's output, which the plain run kept anyway.
# * **per 4 blocks**: both keep a quarter of PyTorch's plain run: the output of the first half
#   (the second half's input) and the last ``t``, which the loss needs.
#
# So checkpointing pays only where a segment keeps more inside than at its border, for a second
# forward pass of every checkpointed block. The gradients stay the same, because the rerun
# computes the same numbers. Unless the segment draws random numbers (dropout: *Going deeper*).

# %%
# A gradient that overflows, and one written by hand
# --------------------------------------------------
# ``softplus(x) = log(1 + exp(x))`` has the derivative ``sigmoid(x)``. Written as it reads, it
# breaks in float32 above ``x`` of about 88.7, where ``exp(x)`` becomes ``inf``; the usual
# rewrite ``max(x, 0) + log1p(exp(-|x|))`` does not. The third form keeps the stable values and
# states the derivative: ``tf.custom_gradient`` wraps a function that returns its value and a
# gradient function; a ``torch.autograd.Function`` has a ``forward`` and a ``backward``, ``ctx``
# carrying what one saves for the other. Both turn the gradient with respect to the output
# (``upstream``) into the one with respect to the input.
xs = np.array([-20, -2, 0, 2, 20, 100], dtype=np.float32)

def show(name, values, indent=""):  # a row: four decimals
    cells = " ".join(f"{float(v):8.4f}" for v in np.ravel(values))
    print(f"{indent}{name:<8}{cells}")


# %%
# **TensorFlow (tf.custom_gradient)**: three forms, their gradients.
def tf_stable(x):
    return tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-abs(x)))

@tf.custom_gradient
def tf_custom(x):
    def grad(upstream):
        return upstream * tf.sigmoid(x)
    return tf_stable(x), grad

tf_forms = {"naive": lambda x: tf.math.log(1.0 + tf.exp(x)),
            "stable": tf_stable, "custom": tf_custom}
x = tf.constant(xs)
tf_values, tf_dx = {}, {}
show("x", xs)
for name, form in tf_forms.items():
    with tf.GradientTape() as tape:
        tape.watch(x)
        tf_values[name] = form(x)
    tf_dx[name] = tape.gradient(tf_values[name], x)
    show(name, tf_values[name])
    show("  grad", tf_dx[name])

# %%
# **PyTorch (torch.autograd.Function)**: three forms, their gradients.
def torch_stable(x):
    return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch_stable(x)

    @staticmethod
    def backward(ctx, upstream):
        (x,) = ctx.saved_tensors
        return upstream * torch.sigmoid(x)

torch_forms = {"naive": lambda x: torch.log(1.0 + torch.exp(x)),
               "stable": torch_stable, "custom": Softplus.apply}
x = torch.tensor(xs, device=torch_device, requires_grad=True)
torch_values, torch_dx = {}, {}
print(sidebyside.on_this_version("torch"))  # kinks' slopes
show("x", xs, "  ")
for name, form in torch_forms.items():
    torch_values[name] = y = form(x)
    (torch_dx[name],) = torch.autograd.grad(y.sum(), x)
    show(name, y.detach().cpu(), "  ")
    show("  grad", torch_dx[name].cpu(), "  ")
print("custom's grad_fn:", type(y.grad_fn).__name__)

# %%
# At ``x = 100`` the naive form gives ``inf`` and a ``nan`` gradient in both: the backward pass
# of ``log`` divides the incoming gradient by ``1 + exp(x) = inf``, giving 0, and that of
# ``exp`` multiplies it by ``exp(x) = inf``: ``0 * inf = nan``. The stable form fixes the
# values, and its gradient is right everywhere except at ``x = 0``, where it is not
# ``sigmoid(0) = 0.5``: :term:`automatic differentiation` differentiates the program, not the
# function, and ``max`` and ``abs`` have a kink at 0, where each operation picks a slope (which
# one ``clamp`` picks has changed between PyTorch releases: PyTorch's table is this version's).
# The custom form is right everywhere; PyTorch records it as one node, the whole ``Function``.

# %%
# Going deeper: dropout, timings and more
# ---------------------------------------
#
# Dropout inside a checkpoint
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Dropout zeroes a random half of the activations (and doubles the rest). Inside a checkpoint,
# the rerun must draw the *same* mask as the forward pass, or the gradient belongs to another
# network than the loss. We add dropout after every block, seed the random generator alike
# before each run, and compare the gradients of ``per 4 blocks`` with plain ones.

# %%
# **TensorFlow (tf.GradientTape)**: stateful and stateless dropout.
stateless_dropout = tf.nn.experimental.stateless_dropout
drops = {  # drop(t, i): dropout after block i
    "stateful": lambda t, i: tf.nn.dropout(t, rate=0.5),
    "stateless": lambda t, i: stateless_dropout(  # from a seed
        t, rate=0.5, seed=[0, i])}

def tf_dropout(size, drop):
    tf.random.set_seed(1)  # the same draws, run after run
    with tf.GradientTape() as tape:
        loss = tf_loss(size, drop)
    return float(loss), tape.gradient(loss, tf_params)

tf_same = {}
for kind, drop in drops.items():
    loss, plain = tf_dropout(0, drop)
    loss_4, per_4 = tf_dropout(4, drop)
    agree = tf_same[kind] = same(per_4, plain)
    print(f"{kind}: same loss {loss_4 == loss},",
          f"same gradients {agree}")

# %%
# **PyTorch (eager)**: ``preserve_rng_state``, on by default.
def torch_dropout(size, **options):
    torch.manual_seed(1)  # the same draws, run after run
    drop = functools.partial(torch.nn.functional.dropout, p=0.5)
    loss = torch_loss(size, drop, **options)
    return loss.item(), torch.autograd.grad(loss, torch_params)

loss, plain = torch_dropout(0)
torch_same = {}
for keep in (True, False):
    loss_4, per_4 = torch_dropout(4, preserve_rng_state=keep)
    agree = torch_same[keep] = same(per_4, plain)
    print(f"preserve_rng_state={keep}: same loss",
          f"{loss_4 == loss}, same gradients {agree}")

# %%
# The losses agree, the gradients do not all agree. ``tf.recompute_grad`` saves nothing of the
# random generator's state: the rerun draws new masks, and the gradient is computed, silently,
# for a network that never produced the loss. A stateless op (``tf.random.stateless_*``) draws
# its mask from a seed, so the rerun draws the same one (in training, pass a new seed into the
# segment every step). PyTorch's ``checkpoint`` saves the generator's state and restores it for
# the rerun (``preserve_rng_state=True``, the default); turned off, it goes wrong as TF does.
assert tf_same == {"stateful": False, "stateless": True} and torch_same == {True: True, False: False}

# %%
# What the extra time is made of
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The steps take turns on this machine (``sidebyside.benchmark.time_variants``), on one thread
# each. ``per block`` and ``per 4 blocks`` rerun the same eight blocks: what sets them apart is
# the number of checkpoints, each with its bookkeeping (Python calls; in PyTorch, hooks at every
# saved tensor). The last variant saves no random generator state (a few kilobytes on a CPU; on
# a GPU, each GPU's generator too). The sentences are computed from the numbers and spreads.
from sidebyside.benchmark import compare, duration, time_variants


def tf_step(size, backward=True):
    with tf.GradientTape() as tape:
        loss = tf_loss(size)
    if backward:
        tape.gradient(loss, tf_params)
    made.clear()


def torch_step(size, **options):
    torch.autograd.grad(torch_loss(size, **options), torch_params)


steps = {"TF forward": lambda: tf_step(0, backward=False),
         "PyTorch forward": lambda: torch_loss(0)}  # recorded
for plan, size in PLANS.items():
    steps[f"TF {plan}"] = functools.partial(tf_step, size)
    steps[f"PyTorch {plan}"] = functools.partial(torch_step, size)
steps["PyTorch per 4 blocks, no RNG state"] = functools.partial(
    torch_step, 4, preserve_rng_state=False)
torch_sync, tf_sync = sidebyside.benchmark.gpu_syncs(torch_device, tf_device)
variants = {name: (lambda s=s: s, tf_sync if name[:2] == "TF" else torch_sync)
            for name, s in steps.items()}
# sphinx_gallery_start_ignore
threads = torch.get_num_threads()
torch.set_num_threads(1)  # as TensorFlow's pools: one thread each
# sphinx_gallery_end_ignore
timed, _ = time_variants(variants)
print("On this machine (timed):")
# sphinx_gallery_start_ignore
print(f"  PyTorch threads 1, TensorFlow pools: {tf_pools}")
torch.set_num_threads(threads)
# sphinx_gallery_end_ignore
for name, t in timed.items():
    print(f"  {name:<35}{duration(t.median):>9} ±{t.spread:6.1%}")
for fw in ("TF", "PyTorch"):
    per_4, plain, forward = (timed[f"{fw} {v}"] for v in ("per 4 blocks", "plain", "forward"))
    gap = per_4.median - plain.median
    within = per_4.median * per_4.spread + plain.median * plain.spread
    low, high = forward.median * (1 - forward.spread), forward.median * (1 + forward.spread)
    than = ("more than" if gap - within > high else "less than" if gap + within < low
            else "within the spreads, as much as")
    print(f"  {fw}: per 4 blocks adds {duration(gap)} ±{duration(within)},", than, "a forward pass")
    print(f"  {fw}: per block is", compare(timed, f"{fw} per block", f"{fw} per 4 blocks"))
print("  PyTorch without saving the RNG state is", compare(
    timed, "PyTorch per 4 blocks, no RNG state", "PyTorch per 4 blocks"))

# %%
# ``use_reentrant``, and what the pack hook saw
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Left out, ``use_reentrant`` is ``True``, the older implementation, and ``checkpoint`` warns
# (in words that change between releases). The reentrant form needs an input that requires a
# gradient: with an ``x`` that needs none, the weights inside get no gradient.
import warnings

W0, x2 = torch_W[0], torch_x[:2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = checkpoint(lambda h: torch.tanh(h @ W0), x2)
assert any("use_reentrant" in str(w.message) for w in caught)
print(sidebyside.on_this_version("torch"))
for w in caught:
    print(sidebyside.wrap(f"{w.category.__name__}: {w.message}", "  ", "  "))
print("the output requires a gradient:", y.requires_grad)
sidebyside.show_error(RuntimeError, torch.autograd.grad, y.sum(), W0)

# %%
# Our pack hook saw less with checkpoints than without: inside a non-reentrant
# checkpoint, the checkpoint's own saved-tensor hooks are the innermost ones; they take the
# segment's saves and keep nothing, so ours sees what the backward pass holds, the checkpoint's
# inputs. (``torch.autograd.graph.save_on_cpu`` is a pair of such hooks that keeps saved tensors
# in host memory, freeing GPU memory; a ``tf.GradientTape`` has no such hook.) The counts are
# taken after the forward pass; while the backward pass goes through a segment, its activations
# exist again, so ``n`` blocks in segments of ``k`` hold about ``n / k + k`` at the peak (Chen
# et al., below; not measured here). A compiler can choose what to recompute: ``torch.compile``'s
# :term:`AOTAutograd` partitioner recomputes cheap operations in the backward pass instead of
# saving them, and selective checkpointing (``create_selective_checkpoint_contexts``, as
# ``checkpoint``'s ``context_fn``) says operation by operation what a checkpoint saves.

# %%
# Checking a gradient against finite differences
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tf.test.compute_gradient`` and ``torch.autograd.gradcheck`` compare the gradient a function
# claims with central differences, ``(f(x + h) - f(x - h)) / 2h``, in float64 (we compare
# ``compute_gradient``'s two Jacobians with a tolerance of ``1e-6``).

# %%
# **TensorFlow (tf.test.compute_gradient)**: both Jacobians, compared.
x64 = tf.constant(xs, tf.float64)
tf_passes = {}
for name, form in tf_forms.items():
    theory, numeric = tf.test.compute_gradient(form, [x64])
    gap = np.max(np.abs(theory[0] - numeric[0]))
    tf_passes[name] = bool(gap < 1e-6)
    print(f"{name:<8} Jacobians agree: {tf_passes[name]}")

# %%
# **PyTorch (torch.autograd.gradcheck)**: in float64.
x64 = torch.tensor(xs, dtype=torch.float64, **leaf)
torch_passes = {}
for name, form in torch_forms.items():
    torch_passes[name] = torch.autograd.gradcheck(
        form, (x64,), raise_exception=False)
    print(f"{name:<8} gradcheck: {torch_passes[name]}")

# %%
# Both catch the stable form's slope at 0, and pass the naive form: in float64 ``exp``
# overflows only above ``x`` of about 709.8. Test float32 inputs too, as above.
assert tf_passes == torch_passes == {"naive": True, "stable": False, "custom": True}

# %%
# They agree
# ----------
# The same gradients in both frameworks for every way of running the stack. The custom gradients
# equal ``sigmoid(x)`` (NumPy, float64); the automatic ones fail where the tables showed.
check = functools.partial(sidebyside.assert_close, device=torch_device)
for plan in PLANS:
    check(flat(tf_grads[plan]), flat(torch_grads[plan]), what=f"stack gradients, {plan}")
    assert same(tf_grads[plan], tf_grads["plain"]) and same(torch_grads[plan], torch_grads["plain"])
assert [*tf_kept.values()] == [(16, 8), (8, 16), (2, 16)]  # (kept, runs)
assert [*torch_kept.values()] == [(8, 8), (8, 16), (2, 16)]
check(tf_values["custom"], torch_values["custom"], what="softplus, custom")
check(tf_dx["custom"], torch_dx["custom"], what="d softplus, custom")
sigmoid = 1 / (1 + np.exp(-xs.astype(np.float64)))
for dx in (tf_dx, torch_dx):
    np.testing.assert_allclose(to_numpy(dx["custom"]), sigmoid, rtol=1e-5)
    naive_g, stable_g = to_numpy(dx["naive"]), to_numpy(dx["stable"])
    assert np.isnan(naive_g[-1]) and np.isfinite(naive_g[:-1]).all()  # nan at x = 100 only
    assert stable_g[2] != 0.5  # at the kink, x = 0: not sigmoid(0)
    np.testing.assert_allclose(np.delete(stable_g, 2), np.delete(sigmoid, 2), rtol=1e-5)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Checkpointing (``tf.recompute_grad(fn)``, ``checkpoint(fn, x, use_reentrant=False)``) keeps
#   a segment's inputs, not everything inside it, and reruns it in the backward pass: the same
#   gradients for more forward work. It pays where a segment keeps more inside than at its border.
# * Random numbers inside a segment must be drawn alike twice: PyTorch replays the generator's
#   state (``preserve_rng_state=True``); ``tf.recompute_grad`` does not, so use stateless ops
#   with a seed there, or the gradient is silently wrong.
# * Automatic differentiation differentiates the program: ``log(1 + exp(x))`` gives ``nan`` at
#   ``x = 100`` in float32, a stable rewrite a wrong slope at its kink; ``tf.custom_gradient``
#   and ``torch.autograd.Function`` state the derivative instead.
# * Check a hand-written gradient with ``tf.test.compute_gradient`` or ``torch.autograd.gradcheck``
#   in float64, and float32 at the inputs that matter.
#
# References: ``torch.utils.checkpoint.checkpoint_sequential``, ``tf.math.softplus`` and
# ``torch.nn.functional.softplus`` (built in, without the overflow); Chen et al., "Training Deep
# Nets with Sublinear Memory Cost" (2016).
