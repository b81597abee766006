"""
What padding costs
==================

A padded batch makes every sequence as long as the longest. A :term:`mask` keeps the padding
out of the results, not out of the work: Keras's recurrent loop still computes every row at
every step. PyTorch's packed format keeps it out of the work: each step computes only the
sequences still running. We count the rows each framework computes, then time PyTorch's GRU
both ways: the counts are exact, the times this build's measurements.
"""

# %%
# Setup
# -----
# Both frameworks, Matplotlib, PyTorch's packing helpers, the helpers of this site, and one
# seed for everything. The four sequences of 6, 2, 4 and 3 steps of :ref:`batches of different
# lengths <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>` come back, padded
# with zeros (:term:`padding`), with their mask: ``True`` at the real steps.
import sidebyside
from sidebyside.benchmark import compare, duration, time_variants
from sidebyside.parity import to_numpy

import numpy as np
import tensorflow as tf
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
FEATURES, HIDDEN = 2, 3
lengths = [6, 2, 4, 3]
rng = np.random.default_rng(0)
sequences = [rng.normal(size=(n, FEATURES)).astype(np.float32) for n in lengths]
x_padded = np.zeros((len(lengths), max(lengths), FEATURES), np.float32)
for row, sequence in enumerate(sequences):
    x_padded[row, : len(sequence)] = sequence
mask = np.arange(max(lengths)) < np.array(lengths)[:, None]
sidebyside.provenance()

# %%
# The rows a recurrent step computes
# ----------------------------------
# A recurrent layer runs a *cell* once per time step, on the rows of the batch. TensorFlow: a
# Keras ``RNN`` given the mask (Keras's own loop, which the ``GRU`` layer also runs on a CPU)
# calls its cell on the whole batch at every step, then keeps the old state where the mask is
# ``False``. We subclass ``GRUCell`` to record the rows of each call. PyTorch: a
# ``PackedSequence`` keeps only the real steps, time step after time step, and ``batch_sizes``
# says how many sequences are still running at each step: the rows ``nn.GRU`` computes there.
# ``enforce_sorted=False`` lets the batch come in any order (PyTorch sorts it by length and
# undoes that afterwards). Both check the last states against each sequence run alone.

# %%
# **TensorFlow (Keras RNN, mask)**: a cell that records its rows.
rows = []


class CountingCell(tf.keras.layers.GRUCell):
    def call(self, inputs, states, training=False):
        rows.append(int(inputs.shape[0]))
        return super().call(inputs, states, training=training)


with tf.device(tf_device):
    keras_rnn = tf.keras.layers.RNN(CountingCell(HIDDEN))
    keras_h = keras_rnn(x_padded, mask=mask)
    masked_rows = rows.copy()
    alone = [keras_rnn(s[None]) for s in sequences]
print("rows per cell call:", masked_rows)
print("computed rows:", sum(masked_rows), "for", sum(lengths),
      "real steps")
alone = tf.concat(alone, axis=0)
keras_same = np.allclose(keras_h, alone, atol=1e-5)
print("last states as each sequence alone:", keras_same)

# %%
# **PyTorch (PackedSequence)**: ``batch_sizes`` rows per step.
torch_gru = torch.nn.GRU(FEATURES, HIDDEN, batch_first=True)
torch_gru = torch_gru.to(torch_device)
x = torch.from_numpy(x_padded)
packed = pack_padded_sequence(
    x, lengths, batch_first=True, enforce_sorted=False)
_, torch_h = torch_gru(packed.to(torch_device))
alone = [torch_gru(torch.from_numpy(s[None]).to(torch_device))
         for s in sequences]
print("batch_sizes:", packed.batch_sizes.tolist())
print("computed rows:", packed.data.shape[0], "for",
      sum(lengths), "real steps")
alone = torch.cat([h for _, h in alone], dim=1)
torch_same = np.allclose(to_numpy(torch_h), to_numpy(alone),
                         atol=1e-5)
print("last states as each sequence alone:", torch_same)

# %%
# Both give every sequence the state it would have alone: the mask and the packing keep the
# padding out of the *results*. The work differs: Keras's cell ran on all four rows at every
# step (one call more than there are steps: Keras calls the cell once before its loop, to learn
# the shape of its output); PyTorch's computed as many rows as there are real steps.

# %%
# The count, as the lengths spread apart
# --------------------------------------
# A padded batch computes ``batch x max_len`` rows, a packed one ``sum(lengths)``. How far apart
# they are depends on how far the lengths spread. Here, batches of 32 sequences of 50 steps on
# average, their lengths spread evenly over ``50 +- spread``; the count of steps is read from
# ``PackedSequence.batch_sizes``.
BATCH, MEAN = 32, 50
spreads = [0, 10, 25, 49]
batches = {}
print("spread  lengths  padded steps  packed steps  padded/packed")
for spread in spreads:
    spread_lengths = np.linspace(MEAN - spread, MEAN + spread, BATCH)
    spread_lengths = spread_lengths.round().astype(int)
    x = torch.zeros(BATCH, spread_lengths.max(), FEATURES)
    spread_packed = pack_padded_sequence(x, spread_lengths, batch_first=True,
                                         enforce_sorted=False)
    padded_steps = x.shape[0] * x.shape[1]
    packed_steps = int(spread_packed.batch_sizes.sum())
    assert packed_steps == spread_lengths.sum() == BATCH * MEAN
    batches[spread] = spread_lengths, padded_steps, packed_steps
    span = f"{spread_lengths.min()}-{spread_lengths.max()}"
    ratio = padded_steps / packed_steps
    print(f"{spread:>6}  {span:>7}  {padded_steps:>12}  {packed_steps:>12}  {ratio:>13.2f}")

# %%
# The clock (varies from build to build)
# --------------------------------------
# Fewer rows is not the same as less time. Both ways take one step per time step of the
# *longest* sequence, and a step on fewer rows is not proportionally cheaper: part of its cost
# (calling the kernels, small matrix products) stays the same. Packing also sorts the batch and
# unsorts the results. So we time PyTorch's ``nn.GRU`` (32 features in, 128 hidden, forward
# only) as a user would run it on each batch above: padded, then masking the outputs past each
# length and taking each row's last real state; or packed, then unpacked with
# ``pad_packed_sequence``. The two give the same outputs (checked). A last pair shows what a
# step costs: the padded GRU on all 32 rows, and on 8 of them, at the same 50 steps.
#
# The variants take turns (``sidebyside.benchmark.time_variants``), so that a busy moment of the
# machine falls on all of them, and PyTorch runs on one thread. **These numbers are
# measurements on the machine that built this page: they change from build to build, and unlike
# everything above they are not checked.**
timed_gru = torch.nn.GRU(32, 128, batch_first=True).to(torch_device)

def padded_masked(x, lengths):
    out, _ = timed_gru(x)
    steps = torch.arange(x.shape[1], device=x.device)
    out = out * (steps < lengths[:, None])[..., None]
    return out, out[torch.arange(len(lengths)), lengths - 1]

def packed_unpacked(x, lengths):
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, h = timed_gru(packed)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return out, h[0]

sync = torch.cuda.synchronize if torch_device == "cuda" else None
def variant(way, x, lengths):  # what time_variants takes: (make, sync)
    return (lambda: lambda: way(x, lengths)), sync

timings, runs = {}, {}
# sphinx_gallery_start_ignore
threads = torch.get_num_threads()
torch.set_num_threads(1)  # as on the benchmark pages
# sphinx_gallery_end_ignore
with torch.no_grad():
    for spread in spreads:
        lengths_t = torch.tensor(batches[spread][0], device=torch_device)
        x = torch.randn(BATCH, int(lengths_t.max()), 32, device=torch_device)
        variants = {"padded + mask": variant(padded_masked, x, lengths_t),
                    "packed + unpack": variant(packed_unpacked, x, lengths_t)}
        timings[spread], runs[spread] = time_variants(variants)
    x = torch.randn(BATCH, MEAN, 32, device=torch_device)
    rows_timed, _ = time_variants({"32 rows": variant(lambda x, _: timed_gru(x), x, None),
                                   "8 rows": variant(lambda x, _: timed_gru(x), x[:8], None)})
# sphinx_gallery_start_ignore
torch.set_num_threads(threads)
# sphinx_gallery_end_ignore

print("On this machine (timed):")
print("  spread  padded + mask     packed + unpack   steps padded/packed")
for spread, timing in timings.items():
    cells = [f"{duration(t.median):>9} ±{t.spread:6.1%}" for t in timing.values()]
    step_ratio = batches[spread][1] / batches[spread][2]
    print(f"  {spread:>6}  {cells[0]}  {cells[1]}  {step_ratio:>19.2f}")
for spread, timing in timings.items():
    print(f"  spread {spread}: packed + unpack is",
          compare(timing, "packed + unpack", "padded + mask"))
all_rows, fewer = rows_timed["32 rows"], rows_timed["8 rows"]
print("  a quarter of the rows is", compare(rows_timed, "8 rows", "32 rows"))
most = all_rows.median * (1 + all_rows.spread) / (fewer.median * max(1 - fewer.spread, 1e-9))
print("  so part of a step's cost does not shrink with its rows" if most < 4 else
      "  within the spreads, that may be 4x: no part that does not shrink is shown")
# sphinx_gallery_start_ignore
# sphinx_gallery_thumbnail_number = 1
from sidebyside.graphs import TORCH_COLOR

import matplotlib.pyplot as plt

fig, (ax_steps, ax_time) = plt.subplots(1, 2, figsize=(11, 3.6))
for name, style, marker, index in (("padded + mask", "-", "o", 1),
                                   ("packed + unpack", "--", "s", 2)):
    steps = [batches[spread][index] for spread in spreads]
    medians = [timings[spread][name].median * 1e3 for spread in spreads]
    errors = [timings[spread][name].median * timings[spread][name].spread * 1e3
              for spread in spreads]
    ax_steps.plot(spreads, steps, style, marker=marker, color=TORCH_COLOR, label=name)
    ax_time.errorbar(spreads, medians, yerr=errors, linestyle=style, marker=marker,
                     color=TORCH_COLOR, capsize=3, label=name)
ax_steps.set_title("GRU steps computed (exact)")
ax_time.set_title("measured forward time in ms (this build)")
for ax in (ax_steps, ax_time):
    ax.set_xlabel("spread of the lengths around 50")
    ax.set_ylim(bottom=0)
    ax.legend()
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore

# %%
# Read the last column against the step ratio: a packed batch saves time only where the lengths
# spread far enough for the saved rows to outweigh the packing and the steps' fixed part, and
# never as much as the count says. On a GPU, ``nn.GRU`` hands both ways to cuDNN, and a step's
# fixed part is larger still.

# %%
# Going deeper: storing a batch without padding
# ---------------------------------------------
# ``tf.RaggedTensor`` stores sequences of different lengths without padding: one flat tensor of
# all the real time steps, sequence after sequence, plus ``row_splits``, where each row starts
# and ends (the lengths are derived from it); its shape says ``None`` for the time. Its PyTorch
# counterpart is a *nested tensor* with the jagged layout (``torch.nested``): the same flat
# ``values()``, and ``offsets()`` equal to the ``row_splits``. Neither goes into a recurrent
# layer: Keras 3 (the Keras that ``tf.keras`` is in TensorFlow 2.21) fails on a ragged tensor in
# its GRU, and so does ``nn.GRU`` on a nested tensor, each with the error below. The batch has
# to be padded again (``to_tensor()``, ``to_padded_tensor()``), or packed.

# %%
# **TensorFlow (tf.RaggedTensor)**: rows of different lengths.
import re

ragged = tf.RaggedTensor.from_row_lengths(
    np.concatenate(sequences), row_lengths=lengths
)
print("shape:", ragged.shape)
print("stored time steps:", ragged.values.shape[0])
print("row_splits:", ragged.row_splits.numpy())
assert np.array_equal(ragged.to_tensor().numpy(), x_padded)
keras_gru = tf.keras.layers.GRU(HIDDEN)
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
padded = nested.to_padded_tensor(0.0)
assert np.array_equal(to_numpy(padded), x_padded)
# The check that refuses it depends on the device (a CPU's
# GRU transposes the batch, a GPU's reads its size first), and
# so does the error.
print(f"On this machine ({torch_device.upper()}):")
sidebyside.show_error((ValueError, RuntimeError), torch_gru,
                      nested, indent="  ")

# %%
# They agree
# ----------
# Both frameworks' recurrent layers give each sequence of the padded batch the state it has
# alone, the two timed PyTorch variants the same outputs, and the ragged and nested tensors the
# same numbers in the same flat layout, with the same row boundaries. Keras's masked loop
# computed every row at every step; the packed batch as many rows as real steps.
assert keras_same and torch_same
assert set(masked_rows) == {len(lengths)} and len(masked_rows) >= max(lengths)
assert packed.data.shape[0] == sum(lengths)
for outputs in runs.values():
    for a, b in zip(outputs["padded + mask"], outputs["packed + unpack"], strict=True):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), atol=1e-5)
sidebyside.assert_close(ragged.values, nested.values(), what="stored time steps, ragged vs nested")
sidebyside.assert_close(ragged.row_splits, nested.offsets(), what="row_splits vs offsets()")
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * A mask keeps padding out of the results, not out of the work: Keras's recurrent loop runs
#   its cell on every row at every step. PyTorch's ``PackedSequence`` (the real steps, time step
#   after time step, ``batch_sizes`` rows at each) computes only the sequences still running.
# * Fewer rows is not proportionally less time: both ways take a step per time step of the
#   longest sequence, and a step's cost does not shrink in proportion to its rows. Measure, with
#   the variants taking turns, on your sizes and machine.
# * ``tf.RaggedTensor`` and a jagged ``torch.nested`` tensor store a batch without padding (one
#   flat tensor plus row boundaries), but neither goes into Keras 3's or PyTorch's RNN layers.
