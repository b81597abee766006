"""
What padding costs
==================

A padded batch makes every sequence as long as the longest, and a mask keeps the padding
out of the results, not out of the work. This page shows how each framework can store a
batch without padding, counts the GRU steps a padded and a packed batch compute as the
lengths spread apart, and times PyTorch's ``nn.GRU`` on both: the counts are exact, the
times are this build's measurements.
"""

# %%
# Setup
# -----
# Both frameworks, Matplotlib for the figure, PyTorch's packing helper, the helpers of
# this site, and one seed for everything. The four sequences of 6, 2, 4 and 3 steps of
# :ref:`batches of different lengths
# <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>` come back, padded
# with zeros, with a GRU in each framework to try them on.
import re

import sidebyside
from sidebyside import show_error
from sidebyside.parity import to_numpy
from sidebyside.timing import Timing

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch
from torch.nn.utils.rnn import pack_padded_sequence

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
FEATURES, HIDDEN = 2, 3
lengths = [6, 2, 4, 3]
rng = np.random.default_rng(0)
sequences = [rng.normal(size=(n, FEATURES)).astype(np.float32) for n in lengths]
x_padded = np.zeros((len(lengths), max(lengths), FEATURES), np.float32)
for row, sequence in enumerate(sequences):
    x_padded[row, : len(sequence)] = sequence
with tf.device(tf_device):
    keras_gru = tf.keras.layers.GRU(HIDDEN)
torch_gru = torch.nn.GRU(FEATURES, HIDDEN, batch_first=True).to(torch_device)
sidebyside.provenance()


# %%
# Storing a batch without padding
# --------------------------------
# ``tf.RaggedTensor`` stores sequences of different lengths without padding: one flat
# tensor of all 15 real time steps, sequence after sequence, plus ``row_splits``, where
# each row starts and ends (the lengths are derived from it); its shape reads ``(4, None,
# 2)``. Its PyTorch counterpart is a *nested tensor* with the jagged layout
# (``torch.nested``): the same flat ``values()``, and ``offsets()`` equal to the
# ``row_splits``. Neither goes into a recurrent layer. Keras 3, the Keras that
# ``tf.keras`` is in TensorFlow 2.21, does not accept ragged tensors in its RNN layers
# (Keras 2 did), and ``nn.GRU`` fails on a nested tensor: the batch has to be padded
# again (``to_tensor()``, ``to_padded_tensor()``) before the GRU can read it.

# %%
# **TensorFlow (tf.RaggedTensor)**: rows of different lengths.
ragged = tf.RaggedTensor.from_row_lengths(
    np.concatenate(sequences), row_lengths=lengths
)
print("shape:", ragged.shape)
print("stored time steps:", ragged.values.shape[0])
print("row_splits:", ragged.row_splits.numpy())
print("row_lengths():", ragged.row_lengths().numpy())
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
# **PyTorch (torch.nested)**: the jagged layout.
nested = torch.nested.as_nested_tensor(
    [torch.from_numpy(s) for s in sequences],
    layout=torch.jagged, device=torch_device,
)
print("layout:", nested.layout)
print("stored time steps:", nested.values().shape[0])
print("offsets():", nested.offsets().tolist())
row_splits = ragged.row_splits.numpy().tolist()
assert nested.offsets().tolist() == row_splits
padded = nested.to_padded_tensor(0.0)
assert np.array_equal(to_numpy(padded), x_padded)
show_error(ValueError, torch_gru, nested)

# %%
# Packing, PyTorch's RNN format
# ------------------------------
# PyTorch's recurrent layers read a format of their own, ``PackedSequence``. It keeps only
# the 15 real steps, *time step after time step*: first step 0 of all four sequences,
# then step 1 of all of them, ..., the last steps of the longest alone. ``batch_sizes``
# says how many sequences are still running at each step, so the RNN computes exactly
# that many rows per step. ``enforce_sorted=False`` lets the batch come in any order:
# PyTorch sorts it by length and remembers how to undo that.
packed = pack_padded_sequence(
    torch.from_numpy(x_padded), lengths, batch_first=True, enforce_sorted=False
)
print("stored time steps:", packed.data.shape[0])
print("batch_sizes:", packed.batch_sizes.tolist())
print("sorted_indices:", packed.sorted_indices.tolist())
assert packed.data.shape[0] == sum(lengths) == 15

# %%
# What padding costs: the count
# -----------------------------
# Padding makes every sequence as long as the longest: a padded batch computes ``batch x
# max_len`` GRU steps, a packed one only ``sum(lengths)``. The ``tf.scan`` with
# ``tf.where`` of :ref:`batches of different lengths
# <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>` computes every
# padded step and throws the padded ones away, and so does the Keras GRU with a mask on
# a CPU (its loop runs the cell on the whole batch, then selects); masking keeps padding
# out of the *results*, not out of the *work*. How much work that is depends on how far
# the lengths spread. Here, batches of 32 sequences of 50 steps on average, their
# lengths spread evenly over ``50 +- spread``; the count of steps is read from
# ``PackedSequence.batch_sizes``, the rows PyTorch computes at each step.
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

print("On this machine (timed):")
print("  spread  padded ms  packed ms  padded/packed  steps padded/packed")
for spread, timing in timings.items():
    padded, packed = timing["padded"], timing["packed"]
    noisy = " (noisy)" if padded.noisy or packed.noisy else ""
    time_ratio = padded.median / packed.median
    step_ratio = batches[spread][1] / batches[spread][2]
    print(
        f"  {spread:>6}  {padded.median * 1e3:>9.2f}  {packed.median * 1e3:>9.2f}"
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
# They agree
# ----------
# The ragged tensor and the nested tensor hold the same numbers in the same flat layout,
# with the same row boundaries; padded again, both give the padded batch back.
sidebyside.assert_close(ragged.values, nested.values(), what="stored time steps, ragged vs nested")
sidebyside.assert_close(ragged.row_splits, nested.offsets(), what="row_splits vs offsets()")
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * ``tf.RaggedTensor`` stores rows of different lengths as one flat tensor plus
#   ``row_splits`` (the lengths are derived); PyTorch's counterpart is a nested tensor
#   with ``layout=torch.jagged`` (``values()``, ``offsets()``). Neither goes into Keras
#   3's or PyTorch's RNN layers: pad again first.
# * ``PackedSequence`` is the format PyTorch's RNN layers read: the real steps, time step
#   after time step, with ``batch_sizes`` rows at each step.
# * A padded batch computes ``batch x max_len`` GRU steps, also where ``tf.where`` masks
#   it; a packed one ``sum(lengths)``. Whether that saves time depends on the sizes and the machine:
#   measure, as above, with the variants taking turns.
#
# References: ``tf.RaggedTensor`` (``row_splits``, ``row_lengths``, ``to_tensor``),
# ``torch.nested`` (``as_nested_tensor``, ``layout=torch.jagged``, ``to_padded_tensor``),
# ``torch.nn.utils.rnn.pack_padded_sequence``, ``torch.nn.utils.rnn.PackedSequence``,
# ``sidebyside.time_call``.
