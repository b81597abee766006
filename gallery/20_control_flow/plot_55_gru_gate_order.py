"""
Appendix: one GRU, two weight layouts
=====================================

Keras and PyTorch store the same GRU's weights in differently arranged arrays: the gates
in another order, the matrices transposed. This appendix draws each gate's weights once,
stacks them both ways, and checks that ``keras_layout``, the rearrangement that :ref:`batches
of different lengths <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>`
uses, turns PyTorch's arrays into Keras's. Then one GRU step runs in both frameworks
and in NumPy, from the formula written out, to show that the two layers compute the same
function.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared weights, the helpers of this site, and one seed
# for everything.
import sidebyside
from sidebyside.parity import to_numpy

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
FEATURES, HIDDEN = 2, 3
rng = np.random.default_rng(0)
sidebyside.provenance()


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
# From one layout to the other
# ----------------------------
# ``keras_layout`` takes PyTorch's four arrays (or their gradients, which have the same
# shapes) and returns Keras's three: each matrix split into its three gates along the
# first axis, the gates put in Keras's order, the matrices transposed, the two biases
# stacked. Applied to PyTorch's arrays above, it must give Keras's arrays exactly, bit
# for bit: only the order of the numbers changes.
def keras_layout(weight_ih, weight_hh, bias_ih, bias_hh):
    """PyTorch's GRU weights (or their gradients) as Keras's three arrays."""

    def z_r_n(a):  # PyTorch stacks the gates r, z, n along the first axis
        r, z, n = np.split(to_numpy(a), 3)
        return np.concatenate([z, r, n])

    kernel, recurrent_kernel = z_r_n(weight_ih).T, z_r_n(weight_hh).T
    return [kernel, recurrent_kernel, np.stack([z_r_n(bias_ih), z_r_n(bias_hh)])]


# the rearrangement is right: it turns PyTorch's weights into Keras's
for (name, keras_array), rearranged in zip(
    keras_weights.items(), keras_layout(*torch_weights.values()), strict=True
):
    assert np.array_equal(keras_array, rearranged)
    print(f"{name:<17}{rearranged.shape}, equal bit for bit")

# %%
# One step, three ways
# --------------------
# The formula, written out per gate from the arrays drawn above, in float64 NumPy:
# ``r = sigmoid(x W_ir + b_ir + h W_hr + b_hr)``, ``z`` likewise, ``n = tanh(x W_in +
# b_in + r * (h W_hn + b_hn))`` and the new state ``h' = z * h + (1 - z) * n``. Both
# layers take one time step of a batch of two from the same initial state ``h``; their
# new states must equal the formula's (and each other's) to float32 rounding.
x_step = rng.normal(size=(2, FEATURES)).astype(np.float32)
h_step = rng.normal(size=(2, HIDDEN)).astype(np.float32)


def gate_input(gate, x, h, reset=1.0):
    """x W_i + b_i + reset * (h W_h + b_h) for one gate, in float64."""
    g = {k: v.astype(np.float64) for k, v in gates[gate].items()}
    return x @ g["W_ih"] + g["b_ih"] + reset * (h @ g["W_hh"] + g["b_hh"])


x64, h64 = x_step.astype(np.float64), h_step.astype(np.float64)
r = 1 / (1 + np.exp(-gate_input("r", x64, h64)))
z = 1 / (1 + np.exp(-gate_input("z", x64, h64)))
n = np.tanh(gate_input("n", x64, h64, reset=r))
numpy_step = z * h64 + (1 - z) * n
print("NumPy, h' of the first row:", np.round(numpy_step[0], 4))

# %%
# **TensorFlow (Keras)**: one step from ``initial_state``.
with tf.device(tf_device):
    _, keras_step = keras_gru(
        x_step[:, None, :], initial_state=tf.constant(h_step))
print("Keras, h' of the first row:",
      np.round(keras_step.numpy()[0], 4))

# %%
# **PyTorch (eager)**: one step from ``h_0``.
with torch.no_grad():
    _, h_n = torch_gru(
        torch.from_numpy(x_step[:, None, :]).to(torch_device),
        torch.from_numpy(h_step[None]).to(torch_device))
torch_step = h_n[0]
print("PyTorch, h' of the first row:",
      np.round(to_numpy(torch_step)[0], 4))

# %%
# They agree
# ----------
# The rearranged weights are Keras's exactly (checked above). Keras's and PyTorch's new
# states agree, and both agree with the formula: the two layers compute one function from
# two layouts of the same numbers.
tolerance = sidebyside.parity.TOLERANCES[torch_device]
for name, step in (("Keras", keras_step), ("PyTorch", torch_step)):
    np.testing.assert_allclose(to_numpy(step), numpy_step, err_msg=name, **tolerance)
sidebyside.assert_close(keras_step, torch_step, what="one GRU step", device=torch_device)
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Keras stacks a GRU's gates ``z, r, n`` in ``kernel`` ``(features, 3 * hidden)``;
#   PyTorch stacks them ``r, z, n`` in ``weight_ih_l0`` ``(3 * hidden, features)``. To
#   move weights (or compare gradients) between the two, split into the three gates,
#   reorder, transpose, and stack Keras's two biases into one ``(2, 3 * hidden)`` array.
# * With ``reset_after=True`` (Keras's default) both apply the reset gate after the
#   recurrent product, ``r * (h W_hn + b_hn)``, and compute the same function.
# * Check such a conversion by computation: rearranged arrays equal bit for bit, and one
#   step of each layer equal to the formula.
#
# References: ``tf.keras.layers.GRU`` (``reset_after``, ``initial_state``),
# ``torch.nn.GRU`` (its weight attributes and equations).
