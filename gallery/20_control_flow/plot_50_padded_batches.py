"""
Batches of different lengths
============================

Real sequences do not come in one length, but a batch is one tensor: the short ones are
*padded* (:term:`padding`) to the length of the longest, and a :term:`mask` says which
time steps are real. This page shows how each framework keeps the padding out of the
results, in the way its graphs allow. A TensorFlow graph, built before any batch
exists, leaves both the batch and the time dimension ``None``, runs every row for the
padded length, and keeps a row's state unchanged once the mask says it has ended.
PyTorch, deciding as it runs, *packs* the batch: the padding is never computed. Four
sequences of 6, 2, 4 and 3 steps go through one GRU: without a mask the result is
wrong; masked or packed, whatever sits in the padding changes nothing, and the batch
gives what the four sequences give alone.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy, Matplotlib, PyTorch's packing helpers, the helpers of this
# site, and one seed for everything.
import sidebyside
from sidebyside.capture import keras_layout  # taught on the GRU gate-order appendix
from sidebyside.graphs import TF_COLOR, TORCH_COLOR
from sidebyside.parity import to_numpy

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Four sequences, one padded batch
# --------------------------------
# Each sequence has 2 features per time step, and a target of 3 numbers for the GRU's
# last hidden state: the loss is the squared distance between each sequence's *last
# real* state and its target, summed over the batch (as when a sequence is classified
# from its final state), so that it is exactly the sum of the four sequences' losses.
# Zeros pad the short sequences to 6 steps. A second copy of the batch has *garbage*
# (numbers around 1000) in the padding: a correct model must not notice the difference.
FEATURES, HIDDEN = 2, 3
lengths = [6, 2, 4, 3]
rng = np.random.default_rng(0)
sequences = [rng.normal(size=(n, FEATURES)).astype(np.float32) for n in lengths]
targets = rng.uniform(-0.5, 0.5, size=(len(lengths), HIDDEN)).astype(np.float32)
max_len = max(lengths)
x_padded = np.zeros((len(lengths), max_len, FEATURES), np.float32)
for row, sequence in enumerate(sequences):
    x_padded[row, : len(sequence)] = sequence
mask = np.arange(max_len)[None, :] < np.array(lengths)[:, None]  # (batch, time)
x_garbage = x_padded.copy()
x_garbage[~mask] = rng.normal(1000.0, 100.0, size=(np.sum(~mask), FEATURES))
print("padded batch:", x_padded.shape, " mask (1 = a real time step):")
print(mask.astype(int))

# %%
# Without a mask
# --------------
# Both frameworks get the same GRU weights, the ones ``nn.GRU`` draws (seeded above).
# Keras stacks the three gates in another order and transposed; ``keras_layout``
# rearranges PyTorch's arrays, or their gradients, into Keras's, as :ref:`the appendix on
# the gate order <sphx_glr_auto_examples_20_control_flow_plot_55_gru_gate_order.py>`
# explains and checks. Run on the padded batch as it is, the GRU keeps going through the
# padding, and the "last" state of a short sequence is the state after its padding: the
# loss depends on what the padding holds, so at least one of the two below is wrong.
torch_weights = {name: p.detach().numpy().copy() for name, p
                 in torch.nn.GRU(FEATURES, HIDDEN).named_parameters()}
keras_weights = dict(zip(("kernel", "recurrent_kernel", "bias"),
                         keras_layout(*torch_weights.values()), strict=True))

# %%
# **TensorFlow (Keras)**: the GRU layer on the padded batch.
with tf.device(tf_device):
    keras_gru = tf.keras.layers.GRU(
        HIDDEN, return_sequences=True, return_state=True)
    keras_gru.build((None, None, FEATURES))
    keras_gru.set_weights(list(keras_weights.values()))
unmasked_tf = {}
for name, x_np in (("zeros", x_padded), ("garbage", x_garbage)):
    with tf.device(tf_device):
        _, h_last = keras_gru(x_np)
    unmasked_tf[name] = tf.reduce_sum((h_last - targets) ** 2)
    print(f"{name}: loss {unmasked_tf[name].numpy():.6f}")

# %%
# **PyTorch (eager)**: ``nn.GRU`` on the padded tensor, not packed.
torch_gru = torch.nn.GRU(FEATURES, HIDDEN, batch_first=True)
torch_gru.load_state_dict(
    {k: torch.from_numpy(v) for k, v in torch_weights.items()})
torch_gru = torch_gru.to(torch_device)
unmasked_torch = {}
y = torch.from_numpy(targets).to(torch_device)
for name, x_np in (("zeros", x_padded), ("garbage", x_garbage)):
    x = torch.from_numpy(x_np).to(torch_device)
    with torch.no_grad():
        _, h_n = torch_gru(x)
    unmasked_torch[name] = torch.sum((h_n[0] - y) ** 2)
    print(f"{name}: loss {unmasked_torch[name].item():.6f}")

# %%
# Masked in a graph, packed in PyTorch
# ------------------------------------
# With the loop written as ``tf.scan``, both the batch and the time dimension can be
# ``None``: the graph below takes the lengths as a third input, builds the mask with
# ``tf.sequence_mask``, and at every step keeps the old state (``tf.where``) in the rows
# whose sequence has ended, so after the last step each row holds the state of its own
# last real step. It runs every row for the padded length; the mask only decides which
# results to keep. We feed it the padded batch, the garbage batch, and each sequence alone:
# batches of 4 and of 1, of 6 steps and of 2, into one graph.
#
# PyTorch packs the batch instead: ``pack_padded_sequence`` keeps the real time steps
# and nothing else (``enforce_sorted=False``: in any order of lengths; the last line of
# the pane counts them), and ``h_n``, the last hidden state, holds each sequence's state
# after its own last step. The lengths go in as a list (or a CPU tensor, even for a
# batch on a GPU).
runs = {"padded": (x_padded, lengths, targets),
        "garbage": (x_garbage, lengths, targets)}
for i, sequence in enumerate(sequences):
    runs[f"alone {i}"] = (sequence[None], [len(sequence)], targets[i : i + 1])

# %%
# **TensorFlow (graph)**: batch and time are both ``None``.
def gru_step(h, x_t, w):  # Keras's layout (gates z, r, n)
    xz, xr, xn = tf.split(
        x_t @ w["kernel"] + w["bias"][0], 3, axis=1)
    hz, hr, hn = tf.split(
        h @ w["recurrent_kernel"] + w["bias"][1], 3, axis=1)
    z, r = tf.sigmoid(xz + hz), tf.sigmoid(xr + hr)
    return z * h + (1 - z) * tf.tanh(xn + r * hn)

def masked_gru(x, lengths, w):  # ended rows keep their state
    mask = tf.sequence_mask(lengths, tf.shape(x)[1])

    def step(h, inputs):
        x_t, m_t = inputs
        return tf.where(m_t[:, None], gru_step(h, x_t, w), h)

    h0 = tf.zeros((tf.shape(x)[0], HIDDEN))
    by_time = (tf.transpose(x, [1, 0, 2]), tf.transpose(mask))
    states = tf.scan(step, by_time, initializer=h0)
    return tf.transpose(states, [1, 0, 2])

graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(
        tf.float32, (None, None, FEATURES), name="x")
    n = tf.compat.v1.placeholder(tf.int32, (None,), name="n")
    y = tf.compat.v1.placeholder(tf.float32, (None, HIDDEN))
    w = {k: tf.constant(v) for k, v in keras_weights.items()}
    states = masked_gru(x, n, w)
    h_last = states[:, -1]
    loss = tf.reduce_sum(tf.square(h_last - y))
    grads = tf.compat.v1.gradients(loss, list(w.values()))
print("x:", x.shape, " lengths:", n.shape)
tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for name, (x_np, n_np, y_np) in runs.items():
        feed = {x: x_np, n: n_np, y: y_np}
        fetches = [loss, grads, h_last, states]
        tf_results[name] = session.run(fetches, feed)
        print(f"{name:<8} fed {x_np.shape}:"
              f" loss {tf_results[name][0]:.6f}")


# %%
# **PyTorch (eager)**: ``h_n`` of the packed batch.
def packed_loss(x_np, lengths, y_np):
    """Loss, gradients, last states, all states of a batch."""
    x = torch.from_numpy(x_np).to(torch_device)
    y = torch.from_numpy(y_np).to(torch_device)
    packed = pack_padded_sequence(  # lengths: list, CPU tensor
        x, lengths, batch_first=True, enforce_sorted=False)
    out, h_n = torch_gru(packed)
    loss = torch.sum((h_n[0] - y) ** 2)
    weights = list(torch_gru.parameters())
    grads = torch.autograd.grad(loss, weights)
    states, _ = pad_packed_sequence(out, batch_first=True)
    return loss.detach(), grads, h_n[0].detach(), states


torch_results = {}
for name, (x_np, n_np, y_np) in runs.items():
    torch_results[name] = packed_loss(x_np, n_np, y_np)
    print(f"{name:<8} fed {x_np.shape}:"
          f" loss {torch_results[name][0].item():.6f}")
packed = pack_padded_sequence(
    torch.from_numpy(x_padded), lengths,
    batch_first=True, enforce_sorted=False)
print("time steps computed:", packed.data.shape[0],
      " per step:", packed.batch_sizes.tolist())

# %%
# The state of the 2-step sequence at each time step: without a mask it keeps changing
# through the padding; the graph's masked loop runs all 6 steps but holds the state
# after the second; the packed batch stops there, as nothing was computed after it.
with tf.device(tf_device):
    unmasked_states = keras_gru(x_padded)[0].numpy()  # no mask
# sphinx_gallery_start_ignore
steps = np.arange(1, max_len + 1)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.axvspan(lengths[1] + 0.5, max_len + 0.5, color="0.9", label="padding")
ax.plot(steps, unmasked_states[1, :, 0], "x:", color="0.45", ms=8,
        lw=2, label="no mask (either)")
ax.plot(steps, tf_results["padded"][3][1, :, 0], "o-", color=TF_COLOR,
        ms=8, lw=2, label="TensorFlow graph, masked")
n_real = lengths[1]
ax.plot(steps[:n_real], to_numpy(torch_results["padded"][3])[1, :n_real, 0],
        "s--", color=TORCH_COLOR, ms=9, lw=2, label="PyTorch, packed")
ax.set_title("sequence 1: 2 real steps, then padding", fontsize=13)
ax.set(xlabel="time step", ylabel="first state number")
ax.legend(fontsize=10, loc="center right")
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore

# %%
# They agree
# ----------
# With the mask or packing, the garbage batch gives the same loss and gradients as the
# zero-padded one, in each framework: packing never reads the padding; ``tf.where`` reads
# it and throws it away, and the gradient flowing into the discarded branch is exactly
# zero. The batch gives the sums over the sequences alone, TensorFlow agrees with
# PyTorch, and without the mask the loss is wrong, in both frameworks alike.
def same_result(run, other, exact):
    """The loss and gradients of two runs: equal bits, or float32 rounding."""
    pairs = [(run[0], other[0]), *zip(run[1], other[1], strict=True)]
    if exact:
        return all(np.array_equal(to_numpy(a), to_numpy(b)) for a, b in pairs)
    return all(np.allclose(to_numpy(a), to_numpy(b), **sidebyside.parity.tolerance(a))
               for a, b in pairs)


exact = {"TF1 graph": tf_device == "/CPU:0", "PyTorch": torch_device == "cpu"}
for framework, results in (("TF1 graph", tf_results), ("PyTorch", torch_results)):
    assert same_result(results["padded"], results["garbage"], exact[framework])
# sphinx_gallery_start_ignore
alone = [f"alone {i}" for i in range(len(sequences))]


def summed(results):
    """The four sequences alone: their losses and gradients added up."""
    losses, grads = zip(*(results[name][:2] for name in alone), strict=True)
    return sum(map(to_numpy, losses)), [sum(map(to_numpy, g)) for g in zip(*grads, strict=True)]


for results in (tf_results, torch_results):  # the batch is the sum of the sequences alone
    assert same_result(results["padded"], summed(results), exact=False)
    assert all(abs(summed(results)[0] - to_numpy(u)) > 1e-3 for u in unmasked_tf.values())
checks = {}
for batch in ("padded", *alone):
    tf_loss, tf_grads, tf_h, _ = tf_results[batch]
    torch_loss, torch_grads, torch_h, _ = torch_results[batch]
    checks[f"loss, {batch}"] = tf_loss, torch_loss
    checks[f"last states, {batch}"] = tf_h, torch_h
    for name, tf_grad, torch_grad in zip(
        keras_weights, tf_grads, keras_layout(*torch_grads), strict=True
    ):
        checks[f"d loss/d {name}, {batch}"] = tf_grad, torch_grad
for name in ("zeros", "garbage"):
    checks[f"unmasked loss, {name}"] = unmasked_tf[name], unmasked_torch[name]
for what, (tf_value, torch_value) in checks.items():
    sidebyside.assert_close(tf_value, torch_value, what=what, device=torch_device)
# sphinx_gallery_end_ignore
sidebyside.parity_report()

# %%
# Going deeper: more on masks and padding
# ---------------------------------------
# A post credited on :ref:`sources` says that a TensorFlow RNN's input ``[batch_size,
# time_step, inputs]`` cannot leave both ``batch_size`` and ``time_step`` open, so the
# batch size must be fixed. The ``tf.scan`` graph above leaves both ``None``.
#
# Masks in Keras, and what sits in the padding
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Keras can derive the mask from the data: a ``Masking`` layer marks a time step as
# padding when *all* its features equal ``mask_value``, so a real step that happens to
# be all zeros is masked too; an ``Embedding`` with ``mask_zero=True`` treats token 0 as
# padding; or you pass ``mask=`` yourself, as here for the garbage batch. The GRU runs
# one of two programs. Its own loop (on a CPU, or with ``use_cudnn=False``) keeps an
# ended row's state as our ``tf.scan`` does, so its per-step output *repeats the last
# real state* in the padding. cuDNN's GRU kernel (on an NVIDIA GPU, by default) writes
# *zeros* there, and takes only right-padded masks with no empty row (Keras checks them
# with a ``tf.Assert``). Which of the two ran here is read from the output.
# ``pad_packed_sequence`` pads PyTorch's outputs again with zeros. Either way the padded
# positions of the per-step outputs are not results: a loss over them must use the mask.

# %%
# **TensorFlow (Keras)**: ``Masking``, or an explicit ``mask=``.
masking = tf.keras.layers.Masking(mask_value=0.0)
real_zero = np.ones((1, 4, FEATURES), np.float32)
real_zero[0, 2] = 0.0  # a real step that is all zeros
print("Masking, real_zero:",
      masking.compute_mask(real_zero).numpy())
tokens = np.array([[7, 3, 9, 0], [5, 0, 0, 0]])
embedding = tf.keras.layers.Embedding(10, 4, mask_zero=True)
print("Embedding:")
print(embedding.compute_mask(tokens).numpy())


def keras_loss(x, y, mask=None):
    with tf.device(tf_device), tf.GradientTape() as tape:
        inputs = masking(x) if mask is None else x
        states, h_last = keras_gru(inputs, mask=mask)
        loss = tf.reduce_sum(tf.square(h_last - y))
    grads = tape.gradient(loss, keras_gru.trainable_weights)
    return loss, grads, h_last, states


explicit_mask = tf.sequence_mask(lengths, max_len)
keras_results = {
    "padded": keras_loss(x_padded, targets),
    "garbage": keras_loss(x_garbage, targets, explicit_mask),
}
keras_states = keras_results["padded"][3].numpy()
pads = [(keras_states[r, n:], keras_states[r, n - 1])
        for r, n in enumerate(lengths)]  # padding, last real
repeats = all(np.all(pad == last) for pad, last in pads)
zeros = all(np.all(pad == 0.0) for pad, _ in pads)
own_loop = repeats and not zeros  # else cuDNN
ran = "its own loop" if own_loop else "cuDNN"
print(f"On this machine (Keras ran {ran}):")
print("  sequence 1 (2 steps), first state number:")
print("  ", np.round(keras_states[1, :, 0], 4))

# %%
# **PyTorch (eager)**: ``pad_packed_sequence`` fills the padding with 0.
from sidebyside import show_error

torch_states = torch_results["padded"][3]
print("sequence 1 (2 steps), first state number:")
print(np.round(to_numpy(torch_states)[1, :, 0], 4))
off_cpu = torch.tensor([6, 4, 3, 2], device="meta")  # not a CPU
show_error(RuntimeError, pack_padded_sequence,
           torch.zeros(4, 6, FEATURES), off_cpu,
           batch_first=True)

# %%
# Keras's masked GRU agrees with the graph and with PyTorch, for either padding; the
# padding holds the repeated state or zeros, and PyTorch's holds zeros.
assert repeats != zeros  # one program or the other, in every row
assert np.all(to_numpy(torch_states)[~mask] == 0.0)
assert same_result(keras_results["padded"], keras_results["garbage"], exact["TF1 graph"])
keras_grads = keras_results["padded"][1]
for name, tf_grad, torch_grad in zip(
    keras_weights, keras_grads, keras_layout(*torch_results["padded"][1]), strict=True
):
    sidebyside.assert_close(tf_grad, torch_grad, what=f"d loss/d {name}, Keras", device=torch_device)
sidebyside.assert_close(keras_results["padded"][2], torch_results["padded"][2],
                        what="last states, Keras vs packed", device=torch_device)
sidebyside.assert_close(keras_states[mask], to_numpy(torch_states)[mask],
                        what="per-step states, real steps", device=torch_device)

# %%
# A ``nan`` in the padding
# ~~~~~~~~~~~~~~~~~~~~~~~~
# Missing values often arrive as ``nan``. Masked, the loss stays right: the forward pass
# keeps the old state. But masking with ``where``, in either framework, sends a zero
# gradient into the discarded new state, and the step multiplies that zero with what it
# computed from the padded ``x_t``: ``0 * nan = nan``, which spreads to every weight's
# gradient. ``tf.where``'s documentation warns of it, and ``torch.where`` does the same
# (last line of its pane). Keras's own loop masks with ``tf.where`` too. Packing puts no
# padding into any arithmetic, so the packed gradients stay finite. The fix is to never
# compute with the ``nan``: set the padded inputs to zero *before* the RNN, with the same
# mask; the result is then the zero-padded batch's. (``Masking`` is no help: ``nan``
# equals no ``mask_value``.)
x_nan = x_padded.copy()
x_nan[~mask] = np.nan


def nan_counts(grads):
    return [int(np.isnan(to_numpy(g)).sum()) for g in grads]


# %%
# **TensorFlow (graph and Keras)**: ``nan`` gradients; zeroed first.
with tf.compat.v1.Session(graph=graph) as session:
    feed = {x: x_nan, n: lengths, y: targets}
    nan_tf = session.run([loss, grads], feed)
    zeroed = np.where(mask[:, :, None], x_nan, 0.0)  # the fix
    feed = {x: zeroed, n: lengths, y: targets}
    fixed_tf = session.run([loss, grads], feed)
print("graph, loss:", np.round(nan_tf[0], 6),
      " nan in the gradients:", nan_counts(nan_tf[1]))
print("graph, zeroed first, nan:", nan_counts(fixed_tf[1]))
nan_keras = keras_loss(x_nan, targets, explicit_mask)
print(f"On this machine (Keras ran {ran}):")
print("  Keras, nan in gradients:", nan_counts(nan_keras[1]))

# %%
# **PyTorch (eager)**: packing never reads the ``nan``; ``where`` does.
nan_torch = packed_loss(x_nan, lengths, targets)
print("packed, loss:", np.round(nan_torch[0].item(), 6),
      " nan in the gradients:", nan_counts(nan_torch[1]))
w1 = torch.tensor(1.0, requires_grad=True)
x_t = torch.tensor([2.0, float("nan")])  # the 2nd is padding
picked = torch.where(torch.tensor([True, False]), w1 * x_t, 0.0)
(d_w1,) = torch.autograd.grad(picked.sum(), w1)
print("torch.where:", picked.tolist(), " d/dw:", d_w1.item())

# %%
# Every gradient element of the masked graph is ``nan`` (and of Keras's own loop); the
# zeroed batch gives the zero-padded results; the packed batch needs no fix.
sizes = [int(np.size(g)) for g in nan_tf[1]]
assert np.isfinite(nan_tf[0]) and nan_counts(nan_tf[1]) == sizes
if own_loop:  # Keras's own loop masks with tf.where, as our graph does
    assert nan_counts(nan_keras[1]) == sizes
assert same_result(fixed_tf, tf_results["padded"], exact["TF1 graph"])
assert same_result(nan_torch, torch_results["padded"], exact["PyTorch"])
assert np.isnan(d_w1.item())
assert not np.any(masking.compute_mask(x_nan).numpy() == 0)

# %%
# What to take away
# -----------------
# * A batch of sequences of different lengths is a padded tensor plus a mask (or the
#   lengths). Without one, the RNN runs through the padding and the result is wrong;
#   with it, whatever finite values sit in the padding change nothing.
# * A TensorFlow graph is built before it sees a batch: both the batch and the time
#   dimension can be ``None``, the loop (``tf.scan``, ``tf.while_loop``) takes its length
#   from the data, every row runs for the padded length, and ``tf.where`` keeps finished
#   rows unchanged. Keras does the same from a ``Masking`` layer, an
#   ``Embedding(mask_zero=True)`` or an explicit ``mask=``.
# * PyTorch decides at run time, so it can leave the padding out: ``pack_padded_sequence``
#   keeps the real steps only, and ``h_n`` holds each sequence's own last state.
# * Masking with ``where`` reads the padding: a ``nan`` there makes every gradient
#   ``nan``, in either framework. Zero the padded inputs before the RNN.
# * Next: :ref:`what padding costs <sphx_glr_auto_examples_40_cost_plot_30_padding_cost.py>`
#   (counted and timed); :ref:`the RNN step by step
#   <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>` (one sequence at a
#   time, in chunks); :ref:`the dynamic RNN
#   <sphx_glr_auto_examples_20_control_flow_plot_30_dynamic_rnn.py>` (a new length each step).
#
# References: ``tf.compat.v1.placeholder``, ``tf.scan``, ``tf.sequence_mask``, ``tf.where``
# (its note on ``NaN`` gradients), ``tf.compat.v1.gradients``, ``tf.keras.layers.GRU``
# (``use_cudnn``), ``tf.keras.layers.Masking``, ``tf.keras.layers.Embedding``
# (``mask_zero``), ``tf.GradientTape``, ``torch.nn.GRU``, ``torch.where``,
# ``torch.nn.utils.rnn`` (``pack_padded_sequence``, ``pad_packed_sequence``).

# sphinx_gallery_thumbnail_number = 1
