"""
Batches of different lengths
============================

Real sequences do not come in one length, but a batch is one tensor. The usual answer is
to *pad* the short sequences to the length of the longest and carry a *mask* that says
which time steps are real. Here four sequences of 6, 2, 4 and 3 steps go through a GRU
in one batch: in a TensorFlow graph whose batch *and* time dimensions are both ``None``,
in Keras with masking, and in PyTorch with ``pack_padded_sequence``, which skips the
padding altogether. We check that the padding changes nothing (not the loss, not the
gradients, not even when it is filled with garbage) by comparing with each sequence run
alone, and that both frameworks agree. The last section measures what padding costs
against packing as the lengths spread apart.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared weights and data, PyTorch's packing helpers, the
# helpers of this site, and one seed for everything.
import re

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import sidebyside
from sidebyside.parity import to_numpy
from sidebyside.timing import Timing

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Four sequences, one padded batch
# --------------------------------
# Each sequence has 2 features per time step, and a target of 3 numbers for the GRU's
# last hidden state: the loss is the squared distance between each sequence's *last
# real* state and its target, summed over the batch, as when a whole sequence is
# classified from its final state. A sum, so that the batch's loss is exactly the sum of
# the four sequences' losses. Padding fills the short sequences with zeros up to 6
# steps; the mask marks the real steps. A second copy of the batch has *garbage*
# (numbers around 1000) in place of the zeros: a correct model must not notice the
# difference.
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
print("padded batch:", x_padded.shape)
print("mask (1 = a real time step):")
print(mask.astype(int))

# %%
# One GRU, two layouts
# --------------------
# A GRU has three gates, each with its own input weights, recurrent weights and two
# biases: reset ``r``, update ``z`` and the new candidate state ``n``. We draw them once
# per gate, in NumPy. Both frameworks stack the three gates into one matrix, but in a
# different order, and transposed: Keras's ``kernel`` is ``(features, 3 * hidden)`` with
# the gates in the order ``z, r, n``; PyTorch's ``weight_ih_l0`` is ``(3 * hidden,
# features)`` in the order ``r, z, n``. Keras's GRU (with ``reset_after=True``, the
# default) has both biases, stacked into one ``(2, 3 * hidden)`` array, and applies the
# reset gate after the recurrent matrix product, exactly as PyTorch does: ``n = tanh(x
# W_in + b_in + r * (h W_hn + b_hn))``.
bound = 1 / np.sqrt(HIDDEN)  # PyTorch's default range for GRU weights


def uniform(*shape):
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


gates = {
    gate: {
        "W_ih": uniform(FEATURES, HIDDEN),
        "W_hh": uniform(HIDDEN, HIDDEN),
        "b_ih": uniform(HIDDEN),
        "b_hh": uniform(HIDDEN),
    }
    for gate in ("r", "z", "n")
}


def stacked(name, order):
    """One weight of all three gates, side by side, in ``order``."""
    return np.concatenate([gates[gate][name] for gate in order], axis=-1)


# %%
# **TensorFlow (Keras)**: gates ``z, r, n``; ``kernel`` is ``(F, 3H)``.
order = ("z", "r", "n")
keras_weights = {
    "kernel": stacked("W_ih", order),
    "recurrent_kernel": stacked("W_hh", order),
    "bias": np.stack([stacked("b_ih", order),
                      stacked("b_hh", order)]),
}
with tf.device(tf_device):
    keras_gru = tf.keras.layers.GRU(
        HIDDEN, return_sequences=True, return_state=True
    )
    keras_gru.build((None, None, FEATURES))
    keras_gru.set_weights(list(keras_weights.values()))
for weight in keras_gru.weights:
    name = weight.path.split("/")[-1]
    print(f"{name:<17}{tuple(weight.shape)}")

# %%
# **PyTorch (eager)**: gates ``r, z, n``; ``weight_ih_l0`` is ``(3H, F)``.
order = ("r", "z", "n")
torch_weights = {
    "weight_ih_l0": stacked("W_ih", order).T,
    "weight_hh_l0": stacked("W_hh", order).T,
    "bias_ih_l0": stacked("b_ih", order),
    "bias_hh_l0": stacked("b_hh", order),
}
torch_gru = torch.nn.GRU(FEATURES, HIDDEN, batch_first=True)
torch_gru = torch_gru.to(torch_device)
with torch.no_grad():
    for name, parameter in torch_gru.named_parameters():
        parameter.copy_(torch.from_numpy(torch_weights[name]))
for name, parameter in torch_gru.named_parameters():
    print(f"{name:<17}{tuple(parameter.shape)}")

# %%
# Where the mask comes from
# -------------------------
# Keras can derive the mask from the data: a ``Masking`` layer marks a time step as
# padding when *all* its features equal ``mask_value``, and an ``Embedding`` with
# ``mask_zero=True`` treats token id 0 as padding. The catch of ``Masking``: a real time
# step that happens to be all zeros is masked too, as the third step of ``real_zero``
# shows below. (An explicit mask, built from the lengths, has no such catch; we use one
# for the garbage batch.) In PyTorch the lengths themselves are the mask: they go to
# ``pack_padded_sequence`` directly.

# %%
# **TensorFlow (Keras)**: ``Masking``, ``Embedding(mask_zero=True)``.
masking = tf.keras.layers.Masking(mask_value=0.0)
keras_mask = masking.compute_mask(x_padded)
print("Masking:")
print(keras_mask.numpy().astype(int))
real_zero = np.ones((1, 4, FEATURES), np.float32)
real_zero[0, 2] = 0.0  # a real step that is all zeros
print("real_zero:", masking.compute_mask(real_zero).numpy())
tokens = np.array([[7, 3, 9, 0], [5, 0, 0, 0]])
embedding = tf.keras.layers.Embedding(10, 4, mask_zero=True)
print("Embedding:")
print(embedding.compute_mask(tokens).numpy().astype(int))

# %%
# **PyTorch (eager)**: the lengths are the mask.
torch_mask = (torch.arange(max_len)[None, :]
              < torch.tensor(lengths)[:, None])
print("from the lengths:")
print(torch_mask.int().numpy())
assert np.array_equal(torch_mask.numpy(), keras_mask.numpy())

# %%
# Two ways not to pad at all
# --------------------------
# ``tf.RaggedTensor`` stores sequences of different lengths without padding: one flat
# tensor of all 15 real time steps, sequence after sequence, plus the length of each
# row; its shape reads ``(4, None, 2)``. PyTorch's ``PackedSequence`` also keeps only
# the 15 real steps, but *time step after time step*: first step 0 of all four
# sequences, then step 1 of all of them, ..., the last steps of the longest alone.
# ``batch_sizes`` says how many sequences are still running at each step, so the RNN
# computes exactly that many rows per step. ``enforce_sorted=False`` lets the batch come
# in any order: PyTorch sorts it by length and remembers how to undo that. Keras 3, the
# Keras that ``tf.keras`` is in TensorFlow 2.21, does not accept ragged tensors in its
# RNN layers (Keras 2 did): the ragged batch has to be padded again, with
# ``to_tensor()``, before the GRU can read it.

# %%
# **TensorFlow (tf.RaggedTensor)**: rows of different lengths.
ragged = tf.RaggedTensor.from_row_lengths(
    np.concatenate(sequences), row_lengths=lengths
)
print("shape:", ragged.shape)
print("stored time steps:", ragged.values.shape[0])
print("row lengths:", ragged.row_lengths().numpy())
assert np.array_equal(ragged.to_tensor().numpy(), x_padded)
raised = False
try:
    keras_gru(ragged)
except ValueError as error:
    lines = str(error).splitlines()
    message = next(line for line in lines if "ragged" in line)
    message = re.sub(r"\x1b\[\d+m", "", message)  # Keras: bold
    print(f"{type(error).__name__}: {message}")
    raised = True
assert raised

# %%
# **PyTorch (eager)**: ``pack_padded_sequence``, time step by step.
packed = pack_padded_sequence(
    torch.from_numpy(x_padded), lengths,
    batch_first=True, enforce_sorted=False,
)
print("stored time steps:", packed.data.shape[0])
print("batch_sizes:", packed.batch_sizes.tolist())
print("sorted_indices:", packed.sorted_indices.tolist())
assert packed.data.shape[0] == sum(lengths) == 15

# %%
# One graph for any batch
# -----------------------
# One of the source posts says that an RNN's input ``[batch_size, time_step, inputs]``
# cannot leave both ``batch_size`` and ``time_step`` open in TensorFlow, so truly
# different lengths need a fixed batch size. With the loop written as ``tf.scan``, both
# can be ``None``: the graph below gets the lengths as a third input, builds the mask
# with ``tf.sequence_mask``, and at every step keeps the old state (``tf.where``) for
# the rows whose sequence has ended. So after the last step, each row holds the state of
# its own last real step. We run it on the padded batch, on the garbage batch, and on
# each sequence alone: batches of 4 and of 1, of 6 steps and of 2.
#
# PyTorch runs the packed batch: ``h_n``, the last hidden state, comes back in the
# original order and holds each sequence's state after its own last step. The padding is
# never read.


# %%
# **TensorFlow (graph)**: batch and time are both ``None``.
def gru_step(h, x_t, w):
    """One GRU step in Keras's layout (gates z, r, n)."""
    xz, xr, xn = tf.split(
        x_t @ w["kernel"] + w["bias"][0], 3, axis=1)
    hz, hr, hn = tf.split(
        h @ w["recurrent_kernel"] + w["bias"][1], 3, axis=1)
    z, r = tf.sigmoid(xz + hz), tf.sigmoid(xr + hr)
    return z * h + (1 - z) * tf.tanh(xn + r * hn)


def masked_gru(x, lengths, w):
    """All states; past its end, a row keeps its last state."""
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
    y = tf.compat.v1.placeholder(
        tf.float32, (None, HIDDEN), name="y")
    w = {k: tf.constant(v) for k, v in keras_weights.items()}
    h_last = masked_gru(x, n, w)[:, -1]
    loss = tf.reduce_sum(tf.square(h_last - y))
    grads = tf.compat.v1.gradients(loss, list(w.values()))
print("x:", x.shape, " lengths:", n.shape)

runs = {"padded": (x_padded, lengths, targets),
        "garbage": (x_garbage, lengths, targets)}
for i, sequence in enumerate(sequences):
    runs[f"alone {i}"] = (
        sequence[None], [len(sequence)], targets[i:i + 1])
tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for name, (x_np, n_np, y_np) in runs.items():
        feed = {x: x_np, n: n_np, y: y_np}
        fetches = [loss, grads, h_last]
        tf_results[name] = session.run(fetches, feed)
        print(f"{name:<8} fed {x_np.shape}:"
              f" loss {tf_results[name][0]:.6f}")

# %%
# **PyTorch (eager)**: ``h_n`` of the packed batch.
def packed_loss(x_np, lengths, y_np):
    """Loss, gradients and last states of one batch."""
    x = torch.from_numpy(x_np).to(torch_device)
    y = torch.from_numpy(y_np).to(torch_device)
    packed = pack_padded_sequence(
        x, lengths, batch_first=True, enforce_sorted=False)
    _, h_n = torch_gru(packed)
    loss = torch.sum((h_n[0] - y) ** 2)
    parameters = list(torch_gru.parameters())
    grads = torch.autograd.grad(loss, parameters)
    return loss.detach(), grads, h_n[0].detach()


torch_results = {}
for name, (x_np, n_np, y_np) in runs.items():
    torch_results[name] = packed_loss(x_np, n_np, y_np)
    print(f"{name:<8} fed {x_np.shape}:"
          f" loss {torch_results[name][0].item():.6f}")

# %%
# Keras masking, and what sits in the padding
# -------------------------------------------
# The Keras GRU takes the mask the ``Masking`` layer attached to its output, or an
# explicit ``mask=`` (here from ``tf.sequence_mask``, for the garbage batch, where
# ``Masking`` could not tell garbage from data). On a CPU, like our ``tf.scan``, it
# keeps a finished row's state unchanged, so its per-step output *repeats the last real
# state* in the padded positions (unless ``zero_output_for_mask=True``). On a GPU, Keras
# runs cuDNN's GRU kernel instead, which writes *zeros* there. PyTorch's
# ``pad_packed_sequence`` turns the packed outputs back into a padded tensor and puts
# *zeros* in the padding (``padding_value=0.0``). Either way the padded positions of the
# per-step outputs are not results; a loss over them must use the mask.

# %%
# **TensorFlow (Keras)**: ``Masking``, or an explicit ``mask=``.
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
for name, (loss, *_) in keras_results.items():
    print(f"{name}: loss {loss.numpy():.6f}")
states = keras_results["padded"][3].numpy()
print("sequence 1 (2 steps), first state coordinate:")
print(np.round(states[1, :, 0], 4))

# %%
# **PyTorch (eager)**: ``pad_packed_sequence`` fills the padding with 0.
x = torch.from_numpy(x_padded).to(torch_device)
packed = pack_padded_sequence(
    x, lengths, batch_first=True, enforce_sorted=False)
with torch.no_grad():
    packed_states, h_n = torch_gru(packed)
states, state_lengths = pad_packed_sequence(
    packed_states, batch_first=True)
print("padded again:", tuple(states.shape),
      " lengths:", state_lengths.tolist())
print("sequence 1 (2 steps), first state coordinate:")
print(np.round(states[1, :, 0].cpu().numpy(), 4))
torch_states = states

# %%
# Without the mask
# ----------------
# What goes wrong without a mask or packing: the GRU keeps running through the padding,
# and the "last" state of a short sequence is the state after its padding. With zeros as
# padding the loss is off; with garbage, more so. (A loss taken per time step, over the
# real steps only, would survive right-padding in a one-directional RNN, since no real
# step comes after the padding; anything that reads the final state, or runs backwards,
# does not.)

# %%
# **TensorFlow (Keras)**: no ``Masking``, no ``mask=``.
unmasked_tf = {}
for name, x_np in (("zeros", x_padded), ("garbage", x_garbage)):
    with tf.device(tf_device):
        _, h_last = keras_gru(x_np)
    error = h_last - targets
    unmasked_tf[name] = tf.reduce_sum(tf.square(error))
    print(f"{name}: loss {unmasked_tf[name].numpy():.6f}")

# %%
# **PyTorch (eager)**: the padded tensor, not packed.
unmasked_torch = {}
y = torch.from_numpy(targets).to(torch_device)
for name, x_np in (("zeros", x_padded), ("garbage", x_garbage)):
    x = torch.from_numpy(x_np).to(torch_device)
    with torch.no_grad():
        _, h_n = torch_gru(x)
    unmasked_torch[name] = torch.sum((h_n[0] - y) ** 2)
    print(f"{name}: loss {unmasked_torch[name].item():.6f}")

# %%
# The padding changes nothing
# ---------------------------
# With the mask or packing, the garbage batch gives *bit for bit* the same loss and
# gradients as the zero-padded one, in each framework: packing never reads the padding;
# ``tf.where`` reads it and throws it away, and the gradient flowing into the discarded
# branch is exactly zero. And the batch's loss and gradients equal the sums over the
# four sequences run alone, up to float32 rounding (the same numbers, added in another
# order). Without the mask, the loss is wrong.
same = dict(rtol=1e-5, atol=1e-6)  # float32 tolerances (looser on a GPU), as the site's
if torch_device != "cpu":
    same = dict(rtol=1e-3, atol=1e-5)
alone = [f"alone {i}" for i in range(len(sequences))]
for framework, results in (
    ("TF1 graph", tf_results),
    ("Keras", keras_results),
    ("PyTorch", torch_results),
):
    (loss_zeros, grads_zeros, *_), (loss_garbage, grads_garbage, *_) = (
        results["padded"],
        results["garbage"],
    )
    assert to_numpy(loss_zeros) == to_numpy(loss_garbage), framework
    for grad_zeros, grad_garbage in zip(grads_zeros, grads_garbage, strict=True):
        assert np.array_equal(to_numpy(grad_zeros), to_numpy(grad_garbage)), framework
    if framework == "Keras":
        continue  # Keras ran the padded batches only
    loss_alone = sum(to_numpy(results[name][0]) for name in alone)
    np.testing.assert_allclose(to_numpy(loss_zeros), loss_alone, **same)
    for i, grad_zeros in enumerate(grads_zeros):
        grad_alone = sum(to_numpy(results[name][1][i]) for name in alone)
        np.testing.assert_allclose(to_numpy(grad_zeros), grad_alone, **same)
    assert abs(loss_alone - to_numpy(unmasked_tf["zeros"])) > 1e-3  # no mask: wrong
print(f"with the mask or packing, any padding: {to_numpy(loss_zeros):.6f}")
print(f"the four sequences alone, summed:      {loss_alone:.6f}")
for name, loss in unmasked_torch.items():
    print(f"no mask, {name} in the padding:".ljust(38), f"{to_numpy(loss):.6f}")


# %%
# They agree
# ----------
# TensorFlow (the graph and Keras) against PyTorch: the losses, the last states and the
# gradients, for the batch and for each sequence alone; the per-step states at the real
# time steps (what sits in the padding differs, as shown above); and even the wrong,
# unmasked losses. The PyTorch gradients are compared after rearranging them into
# Keras's layout: gates reordered from ``r, z, n`` to ``z, r, n``, matrices transposed.
def keras_layout(weight_ih, weight_hh, bias_ih, bias_hh):
    """PyTorch's GRU weights (or their gradients) as Keras's three arrays."""

    def z_r_n(a):  # PyTorch stacks the gates r, z, n along the first axis
        r, z, n = np.split(to_numpy(a), 3)
        return np.concatenate([z, r, n])

    kernel, recurrent_kernel = z_r_n(weight_ih).T, z_r_n(weight_hh).T
    return [kernel, recurrent_kernel, np.stack([z_r_n(bias_ih), z_r_n(bias_hh)])]


# the rearrangement is right: it turns PyTorch's weights into Keras's
for keras_array, rearranged in zip(
    keras_weights.values(), keras_layout(*torch_weights.values()), strict=True
):
    assert np.array_equal(keras_array, rearranged)

checks = {}
runs_compared = [("TF1 graph", tf_results, batch) for batch in ("padded", *alone)]
runs_compared.append(("Keras", keras_results, "padded"))
for tf_name, tf_run, batch in runs_compared:
    tf_loss, tf_grads, tf_h, *_ = tf_run[batch]
    torch_loss, torch_grads, torch_h = torch_results[batch]
    where = f"{batch}, {tf_name} vs packed nn.GRU"
    checks[f"loss, {where}"] = tf_loss, torch_loss
    checks[f"last states, {where}"] = tf_h, torch_h
    for name, tf_grad, torch_grad in zip(
        keras_weights, tf_grads, keras_layout(*torch_grads), strict=True
    ):
        checks[f"d loss/d {name}, {where}"] = tf_grad, torch_grad
keras_states = keras_results["padded"][3].numpy()
real = torch.from_numpy(mask).to(torch_device)
checks["per-step states, Keras vs PyTorch"] = keras_states[mask], torch_states[real]
for what, (tf_value, torch_value) in checks.items():
    sidebyside.assert_close(tf_value, torch_value, what=what, device=torch_device)
assert np.all(torch_states.cpu().numpy()[~mask] == 0.0)  # PyTorch: zeros in the padding
if tf_device == "/CPU:0":  # Keras's own loop: the last real state, repeated
    for row, length in enumerate(lengths):
        assert np.all(keras_states[row, length:] == keras_states[row, length - 1])
else:  # on a GPU, Keras runs cuDNN's kernel, which writes zeros
    assert np.all(keras_states[~mask] == 0.0)
for name in ("zeros", "garbage"):
    sidebyside.assert_close(
        unmasked_tf[name],
        unmasked_torch[name],
        what=f"unmasked loss, {name} padding",
        device=torch_device,
    )
sidebyside.parity_report()

# %%
# What padding costs: the count
# -----------------------------
# Padding makes every sequence as long as the longest: a padded batch computes ``batch x
# max_len`` GRU steps, a packed one only ``sum(lengths)``. Our ``tf.scan`` with
# ``tf.where`` computes every padded step and throws the padded ones away, and so does
# the Keras GRU with a mask on a CPU (its loop runs the cell on the whole batch, then
# selects); masking keeps padding out of the *results*, not out of the *work*. How much
# work that is depends on how far the lengths spread. Here, batches of 32 sequences of
# 50 steps on average, their lengths spread evenly over ``50 +- spread``; the count of
# steps is read from ``PackedSequence.batch_sizes``, the rows PyTorch computes at each
# step.
BATCH, MEAN = 32, 50
spreads = [0, 10, 25, 49]
batches = {}
print("spread  lengths  padded steps  packed steps  padded/packed")
for spread in spreads:
    spread_lengths = np.linspace(MEAN - spread, MEAN + spread, BATCH)
    spread_lengths = spread_lengths.round().astype(int)
    x = torch.zeros(BATCH, spread_lengths.max(), FEATURES)
    packed = pack_padded_sequence(
        x, spread_lengths, batch_first=True, enforce_sorted=False
    )
    padded_steps = x.shape[0] * x.shape[1]
    packed_steps = int(packed.batch_sizes.sum())
    assert packed_steps == spread_lengths.sum() == BATCH * MEAN
    batches[spread] = spread_lengths, padded_steps, packed_steps
    span = f"{spread_lengths.min()}-{spread_lengths.max()}"
    ratio = padded_steps / packed_steps
    counts = f"{padded_steps:>12}  {packed_steps:>12}  {ratio:>13.2f}"
    print(f"{spread:>6}  {span:>7}  {counts}")

# %%
# What padding costs: the clock (varies from build to build)
# ----------------------------------------------------------
# The count is not the time. Packing saves arithmetic, but the packed GRU still takes
# one step per time step of the *longest* sequence, pays for ``pack_padded_sequence`` (a
# sort), and works on fewer and fewer rows towards the end. So we time it: PyTorch's
# ``nn.GRU`` (32 features in, 128 hidden) on each padded batch above, and on the same
# batch packed (packing included), forward only. ``sidebyside.time_call`` takes the
# samples; the two variants take turns, so that a busy moment of the machine falls on
# both, and PyTorch runs on one thread while we time it, as on :ref:`the benchmark page
# <sphx_glr_auto_examples_40_cost_plot_10_benchmark.py>` (its own setting comes back
# afterwards). **The numbers in this section are measurements on the machine that built
# this page (see "What ran this page" at the top): they change from build to build, and
# unlike everything above they are not checked.**
timed_gru = torch.nn.GRU(32, 128, batch_first=True).to(torch_device)
sync = torch.cuda.synchronize if torch_device == "cuda" else None


def packed_forward(x, lengths):
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    return timed_gru(packed)


def time_padded_and_packed(lengths, rounds=5):
    """Seconds per forward call, padded and packed, the two taking turns."""
    x = torch.randn(BATCH, max(lengths), 32, device=torch_device)
    variants = {
        "padded": lambda: timed_gru(x),
        "packed": lambda: packed_forward(x, lengths),
    }
    samples = {name: [] for name in variants}
    for _ in range(rounds):
        for name, run in variants.items():
            timing = sidebyside.time_call(run, warmup=1, repeat=3, sync=sync)
            samples[name] += timing.samples
    return {name: Timing(first=0.0, samples=tuple(s)) for name, s in samples.items()}


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad():
        timings = {s: time_padded_and_packed(batches[s][0]) for s in spreads}
finally:
    torch.set_num_threads(threads)

print("spread  padded ms  packed ms  padded/packed  steps padded/packed")
for spread, timing in timings.items():
    padded, packed = timing["padded"], timing["packed"]
    noisy = " (noisy)" if padded.noisy or packed.noisy else ""
    time_ratio = padded.median / packed.median
    step_ratio = batches[spread][1] / batches[spread][2]
    print(
        f"{spread:>6}  {padded.median * 1e3:>9.2f}  {packed.median * 1e3:>9.2f}"
        f"  {time_ratio:>13.2f}  {step_ratio:>19.2f}{noisy}"
    )

fig, (ax_steps, ax_time) = plt.subplots(1, 2, figsize=(11, 3.6))
for name, color, index in (("padded", "0.45", 1), ("packed", "#ee4c2c", 2)):
    steps = [batches[spread][index] for spread in spreads]
    medians = [timings[spread][name].median * 1e3 for spread in spreads]
    ax_steps.plot(spreads, steps, "o-", color=color, label=name)
    ax_time.plot(spreads, medians, "o-", color=color, label=name)
ax_steps.set_title("GRU steps computed (exact)")
ax_time.set_title("measured forward time in ms (this build)")
for ax in (ax_steps, ax_time):
    ax.set_xlabel("spread of the lengths around 50")
    ax.set_ylim(bottom=0)
    ax.legend()
fig.tight_layout()
plt.show()

# %%
# What to take away
# -----------------
# * A batch of sequences of different lengths is a padded tensor plus a mask (or the
#   lengths). The mask is what keeps the padding out of the results: with it, the
#   padding can hold garbage and the loss and gradients do not change by a single bit.
# * In a TensorFlow graph both the batch and the time dimension can be ``None``: the
#   loop (``tf.scan``, ``tf.while_loop``) takes its length from the data and
#   ``tf.where`` keeps finished rows unchanged. Keras does the same from a ``Masking``
#   layer, an ``Embedding(mask_zero=True)`` or an explicit ``mask=``; Keras 3's RNN
#   layers do not take ``tf.RaggedTensor``.
# * PyTorch's ``pack_padded_sequence`` removes the padding instead: the GRU computes
#   ``sum(lengths)`` steps rather than ``batch x max_len``, and ``h_n`` holds each
#   sequence's own last state. ``pad_packed_sequence`` pads the outputs again, with
#   zeros, as Keras does on a GPU (cuDNN's kernel); Keras's own loop, on a CPU, repeats
#   the last real state.
# * Masking (on a CPU) saves no arithmetic; packing saves it in proportion to the
#   padding. Whether that saves time depends on the sizes and the machine: measure, as
#   in the last section.
# * One sequence at a time, and cutting long sequences into chunks: :ref:`the RNN step
#   by step <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>`; a
#   window of a different length at every training step: :ref:`the dynamic RNN
#   <sphx_glr_auto_examples_20_control_flow_plot_30_dynamic_rnn.py>`.
#
# References: ``tf.compat.v1.placeholder``, ``tf.scan``, ``tf.sequence_mask``,
# ``tf.where``, ``tf.compat.v1.gradients``, ``tf.keras.layers.GRU``,
# ``tf.keras.layers.Masking``, ``tf.keras.layers.Embedding`` (``mask_zero``),
# ``tf.RaggedTensor``, ``tf.GradientTape``, ``torch.nn.GRU``,
# ``torch.nn.utils.rnn.pack_padded_sequence``,
# ``torch.nn.utils.rnn.pad_packed_sequence``, ``torch.nn.utils.rnn.PackedSequence``,
# ``sidebyside.time_call``.
