"""
Batches of different lengths
============================

Real sequences do not come in one length, but a batch is one tensor: the short ones are
*padded* to the length of the longest, and a *mask* says which time steps are real. Four
sequences of 6, 2, 4 and 3 steps go through one GRU, first without a mask, which goes
wrong, then masked in a TensorFlow graph whose batch *and* time dimensions are both
``None`` and in Keras, and packed in PyTorch. With the mask, finite garbage in the padding
changes nothing, but a ``nan`` there makes TensorFlow's gradients ``nan``: we show why,
and the fix.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared weights and data, PyTorch's packing helpers, the
# helpers of this site, and one seed for everything.
import sidebyside
from sidebyside.parity import to_numpy

import numpy as np
import tensorflow as tf
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

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
#
# A third copy holds ``nan`` in the padding, as missing values often do; it goes where
# the garbage goes, and a section near the end shows what it does.
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
x_nan = x_padded.copy()
x_nan[~mask] = np.nan
print("padded batch:", x_padded.shape)
print("mask (1 = a real time step):")
print(mask.astype(int))

# %%
# One GRU in both frameworks
# --------------------------
# Both frameworks get the same weights: the ones ``nn.GRU`` draws (seeded above), as
# NumPy arrays. Each array stacks the three gates of the GRU (reset ``r``, update ``z``,
# new state ``n``); Keras stacks them in another order, and transposed. ``keras_layout``
# rearranges PyTorch's arrays, or their gradients, into Keras's, as :ref:`the appendix
# on the gate order <sphx_glr_auto_examples_20_control_flow_plot_55_gru_gate_order.py>`
# explains and checks.
torch_weights = {name: p.detach().numpy().copy() for name, p
                 in torch.nn.GRU(FEATURES, HIDDEN).named_parameters()}


def keras_layout(weight_ih, weight_hh, bias_ih, bias_hh):
    """PyTorch's GRU weights (or their gradients) as Keras's three arrays."""
    def z_r_n(a):  # PyTorch stacks the gates r, z, n along the first axis
        r, z, n = np.split(to_numpy(a), 3)
        return np.concatenate([z, r, n])

    kernel, recurrent_kernel = z_r_n(weight_ih).T, z_r_n(weight_hh).T
    return [kernel, recurrent_kernel, np.stack([z_r_n(bias_ih), z_r_n(bias_hh)])]


keras_weights = dict(zip(("kernel", "recurrent_kernel", "bias"),
                         keras_layout(*torch_weights.values()), strict=True))

# %%
# **TensorFlow (Keras)**: gates ``z, r, n``; ``kernel`` is ``(F, 3H)``.
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
torch_gru = torch.nn.GRU(FEATURES, HIDDEN, batch_first=True)
torch_gru = torch_gru.to(torch_device)
with torch.no_grad():
    for name, parameter in torch_gru.named_parameters():
        parameter.copy_(torch.from_numpy(torch_weights[name]))
for name, parameter in torch_gru.named_parameters():
    print(f"{name:<17}{tuple(parameter.shape)}")

# %%
# Without the mask
# ----------------
# What goes wrong without a mask or packing: the GRU keeps running through the padding,
# and the "last" state of a short sequence is the state after its padding. With zeros as
# padding the loss is off; with garbage, more so. (A loss taken per time step, over the
# real steps only, would survive right-padding in a one-directional RNN, since no real
# step comes after the padding; anything that reads the final state, or runs backwards,
# does not.)
#
# Below, the same four sequences give two losses: the loss depends on what sits in the
# padding, so one of them at least is wrong. Both are, as the sequences run alone show.

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
#
# ``pack_padded_sequence`` keeps only the 15 real time steps, in any order of the batch
# (``enforce_sorted=False``). Its layout, and batches stored without padding at all, are
# on :ref:`what padding costs <sphx_glr_auto_examples_40_cost_plot_30_padding_cost.py>`.


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
        "garbage": (x_garbage, lengths, targets),
        "nan": (x_nan, lengths, targets)}
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
#
# Which of the two Keras did here is printed under *On this machine*, and asserted.

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
    "nan": keras_loss(x_nan, targets, explicit_mask),
}
for name, (value, *_) in keras_results.items():
    print(f"{name}: loss {value.numpy():.6f}")
keras_states = keras_results["padded"][3].numpy()
on_cpu = tf_device == "/CPU:0"
print("On this machine (Keras on a "
      + ("CPU, its own loop):" if on_cpu else "GPU, cuDNN):"))
print("  sequence 1 (2 steps), first state coordinate:")
print("  ", np.round(keras_states[1, :, 0], 4))
for row, n_real in enumerate(lengths):  # CPU: last real; GPU: 0
    expected = keras_states[row, n_real - 1] if on_cpu else 0.0
    assert np.all(keras_states[row, n_real:] == expected)

# %%
# **PyTorch (eager)**: ``pad_packed_sequence`` fills the padding with 0.
packed = pack_padded_sequence(
    torch.from_numpy(x_padded).to(torch_device), lengths,
    batch_first=True, enforce_sorted=False)
with torch.no_grad():
    packed_states, h_n = torch_gru(packed)
states, state_lengths = pad_packed_sequence(
    packed_states, batch_first=True)
print("padded again:", tuple(states.shape),
      " lengths:", state_lengths.tolist())
print("sequence 1 (2 steps), first state coordinate:")
print(np.round(states[1, :, 0].cpu().numpy(), 4))
torch_states = states
assert np.all(to_numpy(states)[~mask] == 0.0)  # every device

# %%
# Finite padding changes nothing
# ------------------------------
# With the mask or packing, the garbage batch gives *bit for bit* the same loss and
# gradients as the zero-padded one, in each framework: packing never reads the padding;
# ``tf.where`` reads it and throws it away, and the gradient flowing into the discarded
# branch is exactly zero. And the batch's loss and gradients equal the sums over the
# four sequences run alone, up to float32 rounding (the same numbers, added in another
# order). Without the mask, the loss is wrong.
same = sidebyside.parity.TOLERANCES[torch_device]  # float32 rounding; looser on a GPU
alone = [f"alone {i}" for i in range(len(sequences))]


def same_bits(run, other):
    """The loss and gradients of two runs, equal bit for bit."""
    return to_numpy(run[0]) == to_numpy(other[0]) and all(
        np.array_equal(to_numpy(a), to_numpy(b)) for a, b in zip(run[1], other[1], strict=True))


for framework, results in zip(("TF1 graph", "Keras", "PyTorch"),
                              (tf_results, keras_results, torch_results), strict=True):
    assert same_bits(results["padded"], results["garbage"]), framework
    if framework == "Keras":
        continue  # Keras ran the padded batches only
    loss_zeros, grads_zeros, *_ = results["padded"]
    loss_alone = sum(to_numpy(results[name][0]) for name in alone)
    np.testing.assert_allclose(to_numpy(loss_zeros), loss_alone, **same)
    for i, grad_zeros in enumerate(grads_zeros):
        grad_alone = sum(to_numpy(results[name][1][i]) for name in alone)
        np.testing.assert_allclose(to_numpy(grad_zeros), grad_alone, **same)
    for unmasked in unmasked_tf.values():  # no mask: wrong
        assert abs(loss_alone - to_numpy(unmasked)) > 1e-3
print(f"with the mask or packing, any padding: {to_numpy(loss_zeros):.6f}")
print(f"the four sequences alone, summed:      {loss_alone:.6f}")
for name, value in unmasked_torch.items():
    print(f"no mask, {name} in the padding:".ljust(38), f"{to_numpy(value):.6f}")

# %%
# A ``nan`` in the padding
# ------------------------
# Garbage that is not a number is another matter. The masked loss stays right (the ``nan``
# lines above): the forward pass keeps the old state. But ``tf.where`` sends a zero
# gradient into the discarded new state, and the GRU step multiplies that zero with what
# it computed from the padded ``x_t``: ``0 * nan = nan``, which spreads to every element
# of every weight's gradient (counted below). ``tf.where``'s documentation warns of it: if
# either branch's gradient has a ``nan``, so does the whole gradient. Our ``tf.scan``
# masks with ``tf.where``, and so does Keras's own loop on a CPU (on a GPU, cuDNN's kernel
# is another program: the Keras line is this machine's). Packing puts no padding into any
# arithmetic, so PyTorch's gradients stay finite; ``torch.where`` is no safer than
# ``tf.where`` (last line of its pane).
def nan_counts(grads):
    return [int(np.isnan(to_numpy(g)).sum()) for g in grads]


# %%
# **TensorFlow (graph and Keras)**: ``nan`` in every gradient.
sizes = [int(np.size(g)) for g in tf_results["nan"][1]]
print("TF1 graph, nan in the gradients:",
      nan_counts(tf_results["nan"][1]), "of", sizes)
device = "CPU" if on_cpu else "GPU"
print(f"On this machine (Keras on a {device}):")
print("  Keras, nan in the gradients:",
      nan_counts(keras_results["nan"][1]))

# %%
# **PyTorch (eager)**: packing never reads the ``nan``.
print("packed, nan in the gradients:",
      nan_counts(torch_results["nan"][1]))
w1 = torch.tensor(1.0, requires_grad=True)
x_t = torch.tensor([2.0, float("nan")])  # the 2nd is padding
picked = torch.where(torch.tensor([True, False]), w1 * x_t, 0.0)
(d_w1,) = torch.autograd.grad(picked.sum(), w1)
print("torch.where:", picked.tolist(), " d/dw:", d_w1.item())

# %%
# The fix is the one ``tf.where``'s documentation gives: never compute with the ``nan``.
# Set the padded inputs to zero *before* the GRU, with the same mask: ``tf.where(mask, x,
# 0)``. No weight comes before it, and the GRU then computes exactly what it computed
# for the zero-padded batch: the same gradients, bit for bit, in the graph and in Keras.
# (``Masking`` is no help: ``nan`` equals no ``mask_value``, so it marks no step as
# padding.) PyTorch's packed ``nan`` batch needs no fix: it is the zero-padded one.
for results in (tf_results, keras_results, torch_results):
    assert np.isfinite(to_numpy(results["nan"][0]))  # the loss is right
assert nan_counts(tf_results["nan"][1]) == sizes
if on_cpu:  # Keras's own loop masks with tf.where, as our graph does
    assert nan_counts(keras_results["nan"][1]) == sizes
assert nan_counts(torch_results["nan"][1]) == [0, 0, 0, 0] and np.isnan(d_w1.item())
assert not np.any(masking.compute_mask(x_nan).numpy() == 0)


def zero_padding(x, lengths):
    """The padded time steps set to 0, before any arithmetic."""
    mask = tf.sequence_mask(lengths, tf.shape(x)[1])
    return tf.where(mask[:, :, None], x, tf.zeros_like(x))


with graph.as_default(), tf.device(tf_device):
    h_safe = masked_gru(zero_padding(x, n), n, w)[:, -1]
    loss_safe = tf.reduce_sum(tf.square(h_safe - y))
    grads_safe = tf.compat.v1.gradients(loss_safe, list(w.values()))
with tf.compat.v1.Session(graph=graph) as session:
    fixed_tf = session.run([loss_safe, grads_safe, h_safe], {x: x_nan, n: lengths, y: targets})
fixed_keras = keras_loss(zero_padding(x_nan, lengths), targets, explicit_mask)
for name, run, results in (("TF1 graph", fixed_tf, tf_results), ("Keras", fixed_keras, keras_results),
                           ("PyTorch, no fix", torch_results["nan"], torch_results)):
    bits = same_bits(run, results["padded"])
    print(f"{name + ':':<16} nan: {nan_counts(run[1])}; as zero-padded, bit for bit: {bits}")
    assert bits

# %%
# They agree
# ----------
# TensorFlow (the graph and Keras) against PyTorch: the losses, the last states and the
# gradients, for the batch and for each sequence alone; the per-step states at the real
# time steps (what sits in the padding differs, as shown above); and even the wrong,
# unmasked losses. The PyTorch gradients are compared after rearranging them into
# Keras's layout with ``keras_layout``. The ``nan`` batch too, zeroed in the graph.
checks = {}
runs_compared = [("TF1 graph", tf_results, batch) for batch in ("padded", *alone)] + [
    ("Keras", keras_results, "padded"), ("TF1 graph, zeroed", {"nan": fixed_tf}, "nan")]
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
real = torch.from_numpy(mask).to(torch_device)
checks["per-step states, Keras vs PyTorch"] = keras_states[mask], torch_states[real]
for name in ("zeros", "garbage"):
    checks[f"unmasked loss, {name}"] = unmasked_tf[name], unmasked_torch[name]
for what, (tf_value, torch_value) in checks.items():
    sidebyside.assert_close(tf_value, torch_value, what=what, device=torch_device)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A batch of sequences of different lengths is a padded tensor plus a mask (or the
#   lengths). Without one, the GRU runs through the padding and the loss is wrong; with
#   it, finite garbage in the padding changes the loss and gradients by not a single bit.
# * A ``nan`` in the padding still makes every gradient ``nan`` where ``tf.where`` applies
#   the mask (our ``tf.scan``; Keras's own loop, on a CPU): ``0 * nan = nan``. Zero the
#   padded inputs before the RNN. PyTorch's packing never reads them.
# * In a TensorFlow graph both the batch and the time dimension can be ``None``: the
#   loop (``tf.scan``, ``tf.while_loop``) takes its length from the data and
#   ``tf.where`` keeps finished rows unchanged. Keras does the same from a ``Masking``
#   layer, an ``Embedding(mask_zero=True)`` or an explicit ``mask=``.
# * PyTorch's ``pack_padded_sequence`` removes the padding instead: ``h_n`` holds each
#   sequence's own last state. ``pad_packed_sequence`` pads the outputs again, with
#   zeros, as Keras does on a GPU (cuDNN's kernel); Keras's own loop, on a CPU, repeats
#   the last real state.
# * Next: :ref:`what padding costs <sphx_glr_auto_examples_40_cost_plot_30_padding_cost.py>`
#   (counted and timed); :ref:`the RNN step by step
#   <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>` (one sequence at a
#   time, in chunks); :ref:`the dynamic RNN
#   <sphx_glr_auto_examples_20_control_flow_plot_30_dynamic_rnn.py>` (a new length each step).
#
# References: ``tf.compat.v1.placeholder``, ``tf.scan``, ``tf.sequence_mask``, ``tf.where``
# (its note on ``NaN`` gradients), ``tf.compat.v1.gradients``, ``tf.keras.layers.GRU``,
# ``tf.keras.layers.Masking``, ``tf.keras.layers.Embedding`` (``mask_zero``),
# ``tf.GradientTape``, ``torch.nn.GRU``, ``torch.where``, ``torch.nn.utils.rnn``
# (``pack_padded_sequence``, ``pad_packed_sequence``, ``PackedSequence``).
