"""
Appendix: one GRU, two weight layouts
=====================================

Keras and PyTorch store the same GRU's weights in differently arranged arrays: the gates
in another order, the matrices transposed. This appendix draws each gate's weights once,
stacks them both ways, and checks that ``keras_layout``, the rearrangement that :ref:`batches
of different lengths <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>`
uses, turns PyTorch's arrays into Keras's. Then one GRU step runs in both frameworks
and in NumPy, from the formula written out, to show that the two layers compute the same
function. Last, what differs in the layout that TensorFlow 1's ``GRUCell`` used.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared weights, Matplotlib, the helpers of this site,
# and one seed for everything.
import sidebyside
from sidebyside import show_error
from sidebyside.graphs import TF_COLOR, TORCH_COLOR
from sidebyside.parity import to_numpy

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
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
# The two input matrices drawn, each third coloured by the gate whose weights it holds
# (found by comparing values with the gates drawn above): Keras's ``kernel`` is wide,
# its gates ``z, r, n`` side by side; PyTorch's ``weight_ih_l0`` is tall, ``r, z, n``
# stacked.
GATE_COLORS = {"r": "#009e73", "z": "#cc79a7", "n": "#f0e442"}  # Okabe-Ito


def gate_order(matrix, axis):
    """The gate each third of ``matrix`` along ``axis`` holds, by value."""
    blocks = np.split(matrix, 3, axis=axis)
    return [next(g for g in gates if np.array_equal(
        block.T if axis == 0 else block, gates[g]["W_ih"])) for block in blocks]


fig, axes = plt.subplots(1, 2, figsize=(8, 3.6), width_ratios=(3, 1.4))
panels = ((keras_weights["kernel"], 1, "Keras kernel", TF_COLOR),
          (torch_weights["weight_ih_l0"], 0, "PyTorch weight_ih_l0", TORCH_COLOR))
for ax, (matrix, axis, title, color) in zip(axes, panels, strict=True):
    rows, cols = matrix.shape
    size = matrix.shape[axis] // 3
    for i, gate in enumerate(gate_order(matrix, axis)):
        x, y, w, h = (i * size, 0, size, rows) if axis else (0, i * size, cols, size)
        ax.add_patch(plt.Rectangle((x, y), w, h, facecolor=GATE_COLORS[gate],
                                   edgecolor="white", linewidth=3))
        ax.text(x + w / 2, y + h / 2, gate, ha="center", va="center", fontsize=22)
    ax.set(xlim=(0, cols), ylim=(rows, 0), aspect="equal", xticks=[], yticks=[])
    ax.set_title(f"{title}\n{matrix.shape}", fontsize=13, color="black")
    for spine in ax.spines.values():
        spine.set(color=color, linewidth=4)
fig.tight_layout()
plt.show()

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
for name, step in (("Keras", keras_step), ("PyTorch", torch_step)):
    np.testing.assert_allclose(to_numpy(step), numpy_step, err_msg=name,
                               **sidebyside.parity.tolerance(step))
sidebyside.assert_close(keras_step, torch_step, what="one GRU step", device=torch_device)
sidebyside.parity_report()

# %%
# Going deeper: reset before the product, and TensorFlow 1's ``GRUCell``
# ----------------------------------------------------------------------
# The GRU as first published applies the reset gate *before* the recurrent product:
# ``n = tanh(x W_in + b_in + (r * h) W_hn)``. Keras computes that with
# ``reset_after=False``, and then keeps one bias per gate, ``(3 * hidden,)``. TensorFlow
# 1's ``GRUCell``, used by the posts credited on :ref:`sources`, was reset-before too, in
# a third layout: ``gates/kernel``, ``(features + hidden, 2 * hidden)``, holding ``r``
# and ``u`` (the update gate), and ``candidate/kernel`` for ``n``; Keras 3 no longer
# provides it (the last line below). ``nn.GRU`` has no reset-before mode, so neither
# maps exactly onto it: from the same weights, Keras's reset-before step is another
# function, which matches the reset-before formula instead.
with tf.device(tf_device):
    before = tf.keras.layers.GRU(
        HIDDEN, reset_after=False, return_state=True)
    before.build((None, None, FEATURES))
    before.set_weights([keras_weights["kernel"],
                        keras_weights["recurrent_kernel"],
                        keras_weights["bias"].sum(axis=0)])
    _, before_step = before(
        x_step[:, None, :], initial_state=tf.constant(h_step))
for weight in before.weights:
    print(f"{weight.path.split('/')[-1]:<17}{tuple(weight.shape)}")
n_before = np.tanh(gate_input("n", x64, r * h64))  # reset, then product
numpy_before = z * h64 + (1 - z) * n_before
np.testing.assert_allclose(to_numpy(before_step), numpy_before,
                           **sidebyside.parity.tolerance(before_step))
difference = np.abs(to_numpy(before_step) - numpy_step).max()
print(f"largest difference from the reset-after step: {difference:.2f}")
assert difference > 1e-3
show_error(AttributeError, getattr, tf.compat.v1.nn.rnn_cell, "GRUCell")

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
# * Keras's ``reset_after=False`` and TensorFlow 1's ``GRUCell`` apply the reset gate
#   before the recurrent product, a function ``nn.GRU`` does not compute.
#
# References: ``tf.keras.layers.GRU`` (``reset_after``, ``initial_state``),
# ``torch.nn.GRU`` (its weight attributes and equations).

# sphinx_gallery_thumbnail_number = 1
