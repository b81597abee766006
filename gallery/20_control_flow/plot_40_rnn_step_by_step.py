"""
An RNN step by step
===================

An RNN layer is a loop around a *cell*, the small function that turns one time step's
input and the previous hidden state into the next hidden state. Here we write that loop
ourselves: in PyTorch a Python ``for`` over ``nn.RNNCell``, as long as the data we
happen to have; in a TensorFlow graph one ``tf.while_loop``, built before any data
exists and run for any length. The graph keeps one size while PyTorch's record grows
with the loop, yet for training both keep every step's values: memory grows with the
length in both. Then we cut the loop into chunks for :term:`truncated backpropagation
through time`.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy, the helpers of this site, and one seed.
import sidebyside
from sidebyside.capture import SavedTensorCounter, backward_nodes
from sidebyside.parity import to_numpy

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# One cell, one set of weights
# ----------------------------
# The cell is the one ``torch.nn.RNNCell`` and ``keras.layers.SimpleRNNCell`` both
# compute: ``h_t = tanh(x_t W_ih + b_ih + h_(t-1) W_hh + b_hh)``, for a batch of 2
# sequences of 3 features and a hidden state of 4 numbers. Its weights are drawn once,
# in NumPy, and so are two lengths to run: no code below is written for a particular
# length.
BATCH, FEATURES, HIDDEN, MAX_STEPS = 2, 3, 4, 15
rng = np.random.default_rng(0)
bound = 1 / np.sqrt(HIDDEN)  # PyTorch's default range for RNN weights
shapes = {"W_ih": (FEATURES, HIDDEN), "W_hh": (HIDDEN, HIDDEN),
          "b_ih": (HIDDEN,), "b_hh": (HIDDEN,)}
init = {name: rng.uniform(-bound, bound, size=shape).astype(np.float32)
        for name, shape in shapes.items()}
lengths = [int(rng.integers(3, 8)), int(rng.integers(10, 16))]  # short, long
x_np = rng.normal(size=(BATCH, MAX_STEPS, FEATURES)).astype(np.float32)

# %%
# The loop, written out
# ---------------------
# TensorFlow: the input :term:`placeholder` has shape ``(2, None, 3)``, the number of
# time steps left open. ``tf.while_loop`` runs the cell ``tf.shape(x)[1]`` times, a
# number the graph only learns when ``Session.run`` feeds it; a ``tf.TensorArray``
# collects the states. The loop is one operation, ``StatelessWhile``, its condition and
# body stored as small functions (:term:`control flow v2`).
#
# PyTorch: a plain ``for`` calls ``nn.RNNCell`` as often as the tensor is long, and
# autograd records one more step each time round. PyTorch stores each matrix
# transposed (``weight_ih`` is ``W_ih.T``) and keeps the two biases apart.

# %%
# **TensorFlow (graph)**: one ``tf.while_loop``, fed both lengths.
def while_loop_rnn(x, h0, w):  # -> all states, last state
    steps = tf.shape(x)[1]

    def body(t, h, states):
        h = tf.tanh(x[:, t] @ w["W_ih"] + w["b_ih"]
                    + h @ w["W_hh"] + w["b_hh"])
        return t + 1, h, states.write(t, h)

    states = tf.TensorArray(tf.float32, size=steps)
    _, h, states = tf.while_loop(
        lambda t, h, states: t < steps, body, (0, h0, states))
    return tf.transpose(states.stack(), [1, 0, 2]), h

graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(
        tf.float32, (BATCH, None, FEATURES), name="x")
    w = {k: tf.constant(v) for k, v in init.items()}
    h0 = tf.zeros((BATCH, HIDDEN))
    fetches = while_loop_rnn(x, h0, w)  # states, last state
tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for length in lengths:
        feed = {x: x_np[:, :length]}
        states, h_last = session.run(fetches, feed)
        tf_results[length] = states, h_last
        print(f"{length} steps: states {states.shape}")
loops = [op.type for op in graph.get_operations()
         if "While" in op.type]
print("loop operations:", loops)


# %%
# **PyTorch (eager)**: a Python ``for`` over ``nn.RNNCell``.
def for_loop_rnn(x, h0, cell):  # -> all states, last state
    h, states = h0, []
    for t in range(x.shape[1]):
        h = cell(x[:, t], h)
        states.append(h)
    return torch.stack(states, dim=1), h

cell = torch.nn.RNNCell(FEATURES, HIDDEN).to(torch_device)
with torch.no_grad():
    cell.weight_ih.copy_(torch.from_numpy(init["W_ih"].T))
    cell.weight_hh.copy_(torch.from_numpy(init["W_hh"].T))
    cell.bias_ih.copy_(torch.from_numpy(init["b_ih"]))
    cell.bias_hh.copy_(torch.from_numpy(init["b_hh"]))

torch_results = {}
h0 = torch.zeros(BATCH, HIDDEN, device=torch_device)
for length in lengths:
    x = torch.from_numpy(x_np[:, :length]).to(torch_device)
    states, h_last = for_loop_rnn(x, h0, cell)
    torch_results[length] = states, h_last
    print(f"{length} steps: states {tuple(states.shape)}")

# %%
# What each framework keeps
# -------------------------
# Now every length from 1 to 15 steps. The graph's operations stay the same; PyTorch
# records a few nodes more per step (``backward_nodes`` walks ``grad_fn``). But a graph
# of one size is not memory of one size. The backward pass needs every step's values
# (its input, its state, its ``tanh``): PyTorch's record holds them as :term:`saved
# tensors`, counted with ``SavedTensorCounter`` from :ref:`what autograd keeps in memory
# <sphx_glr_auto_examples_10_graphs_plot_25_autograd_memory.py>`; TensorFlow, once the
# gradient is built, rewrites the loop to push them onto lists, an entry per step, for
# the backward loop (:ref:`the while-loop page
# <sphx_glr_auto_examples_20_control_flow_plot_20_while_loop.py>` finds the op that does
# it). We count those lists' entries.

# %%
# **TensorFlow (graph)**: the lists the gradient adds to the loop.
loop = next(op for op in graph.get_operations()
            if op.type == "StatelessWhile")
outputs_before = len(loop.outputs)
with graph.as_default(), tf.device(tf_device):
    loss = tf.reduce_sum(fetches[0])  # any loss of the states
    tf.compat.v1.gradients(loss, list(w.values()))
    kept = tf.add_n([  # the entries of every new list
        tf.raw_ops.TensorListLength(input_handle=t)
        for t in loop.outputs[outputs_before:]])
print("lists added:", len(loop.outputs) - outputs_before)
x_in = graph.get_tensor_by_name("x:0")  # the placeholder
tf_size = {}
with tf.compat.v1.Session(graph=graph) as session:
    for length in range(1, MAX_STEPS + 1):
        entries = session.run(kept, {x_in: x_np[:, :length]})
        tf_size[length] = len(graph.get_operations()), entries
for length in lengths:
    ops, entries = tf_size[length]
    print(f"{length} steps: ops {ops}, tensors kept {entries}")

# %%
# **PyTorch (eager)**: the nodes recorded, the tensors saved.
counter = SavedTensorCounter()
hooks = torch.autograd.graph.saved_tensors_hooks
torch_size = {}
for length in range(1, MAX_STEPS + 1):
    x = torch.from_numpy(x_np[:, :length]).to(torch_device)
    counter.clear()
    with hooks(counter.pack, counter.unpack):
        states, _ = for_loop_rnn(x, h0, cell)
    nodes = len(set(backward_nodes(states)))  # each node once
    torch_size[length] = nodes, counter.held()
for length in lengths:
    nodes, held = torch_size[length]
    print(f"{length} steps: nodes {nodes}, tensors kept {held}")

# %%
# Left, graph size: TensorFlow's flat, PyTorch's growing with every step. Right, what
# each keeps for the backward pass: both grow by a fixed number of tensors per step
# (printed below the figure). The counts are not bytes (TensorFlow's include small index
# tensors, PyTorch's the weights, which it does not copy), but training on a longer
# sequence takes more memory in both; :ref:`checkpointing
# <sphx_glr_auto_examples_35_payoffs_plot_20_checkpoint_and_custom_gradient.py>` trades
# that memory for computing again.
steps = list(tf_size)
# sphinx_gallery_start_ignore
from sidebyside.graphs import TF_COLOR, TORCH_COLOR

import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(8, 3))
titles = ("graph size (ops, nodes)", "tensors kept for backward")
for i, (ax, title) in enumerate(zip(axes, titles, strict=True)):
    ax.plot(steps, [tf_size[n][i] for n in steps], "o-", lw=2,
            color=TF_COLOR, label="TensorFlow graph")
    ax.plot(steps, [torch_size[n][i] for n in steps], "s--", lw=2,
            color=TORCH_COLOR, label="PyTorch eager")
    ax.set_title(title, fontsize=13)
    ax.set(xlabel="time steps", ylim=(0, None))
axes[1].legend(fontsize=11)
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore
for name, size in (("TensorFlow", tf_size), ("PyTorch", torch_size)):
    more = {size[n][1] - size[n - 1][1] for n in steps[1:]}
    assert len(more) == 1 and min(more) > 0  # the same, every step
    print(f"{name}: {min(more)} more tensors kept per step")
assert len({tf_size[n][0] for n in steps}) == 1  # one graph for any length
assert all(torch_size[n][0] > torch_size[n - 1][0] for n in steps[1:])

# %%
# Truncated backpropagation through time
# --------------------------------------
# So a long sequence is trained in chunks: chunk 2 starts from the state chunk 1 ended
# in, but its gradient must not flow back into, and keep, the whole history. PyTorch
# cuts the graph with ``h.detach()``, TensorFlow with ``tf.stop_gradient(h)``: the same
# numbers, no gradient path behind them. Two chunks of 5 steps: the gradient of chunk
# 2's loss with respect to *all ten* inputs, with and without the cut.
CHUNK = 5
x_np = rng.normal(size=(BATCH, 2 * CHUNK, FEATURES)).astype(np.float32)
y_np = rng.uniform(-0.5, 0.5, size=(BATCH, 2 * CHUNK, HIDDEN)).astype(np.float32)

# %%
# **TensorFlow (tf.GradientTape)**: ``tf.stop_gradient`` on the state.
with tf.device(tf_device):
    x = tf.constant(x_np)
    w = {k: tf.constant(v) for k, v in init.items()}
    h0 = tf.zeros((BATCH, HIDDEN))
    tf_grads = {}
    for how in ("cut", "full"):
        with tf.GradientTape() as tape:
            tape.watch([x, w["W_hh"]])
            _, h1 = while_loop_rnn(x[:, :CHUNK], h0, w)
            h = tf.stop_gradient(h1) if how == "cut" else h1
            states2, _ = while_loop_rnn(x[:, CHUNK:], h, w)
            error = states2 - y_np[:, CHUNK:]
            loss2 = tf.reduce_mean(error**2)
        tf_grads[how] = tape.gradient(loss2, [x, w["W_hh"]])
for how, (grad_x, _) in tf_grads.items():
    largest = np.abs(grad_x[:, :CHUNK]).max()
    print(f"{how}: chunk 1, largest |dloss2/dx| {largest:.1e}")

# %%
# **PyTorch (eager)**: ``detach()`` on the carried state.
x = torch.from_numpy(x_np).to(torch_device).requires_grad_()
y = torch.from_numpy(y_np).to(torch_device)
h0 = torch.zeros(BATCH, HIDDEN, device=torch_device)
torch_grads = {}
for how in ("cut", "full"):
    _, h1 = for_loop_rnn(x[:, :CHUNK], h0, cell)
    h = h1.detach() if how == "cut" else h1
    states2, _ = for_loop_rnn(x[:, CHUNK:], h, cell)
    error = states2 - y[:, CHUNK:]
    loss2 = torch.mean(error**2)
    torch_grads[how] = torch.autograd.grad(
        loss2, [x, cell.weight_hh])
for how, (grad_x, _) in torch_grads.items():
    largest = grad_x[:, :CHUNK].abs().max().item()
    print(f"{how}: chunk 1, largest |dloss2/dx| {largest:.1e}")

# %%
# They agree
# ----------
# For both lengths, the graph's loop and the ``nn.RNNCell`` loop give the same states.
# The cut is exact: with it, every derivative of chunk 2's loss with respect to chunk
# 1's inputs is 0.0, not merely small, in both frameworks; without it, none is. Cut and
# uncut, the gradients agree across frameworks, for the inputs and for ``W_hh``, whose
# gradient the cut changes too.
for name, grads in (("TensorFlow", tf_grads), ("PyTorch", torch_grads)):
    cut_x, full_x = to_numpy(grads["cut"][0]), to_numpy(grads["full"][0])
    assert np.all(cut_x[:, :CHUNK] == 0.0), f"{name}: gradient leaked into chunk 1"
    assert np.all(full_x[:, :CHUNK] != 0.0), f"{name}: no gradient in chunk 1 uncut"
    assert np.all(cut_x[:, CHUNK:] == full_x[:, CHUNK:]), f"{name}: chunk 2 changed"
# sphinx_gallery_start_ignore
checks = {}
for length in lengths:
    for i, what in enumerate(("states", "last state")):
        checks[f"{what}, {length} steps"] = tf_results[length][i], torch_results[length][i]
for how in ("cut", "full"):
    (tf_x, tf_w), (torch_x, torch_w) = tf_grads[how], torch_grads[how]
    checks[f"dloss2/dx, {how}, graph vs loop"] = (tf_x, torch_x)
    checks[f"dloss2/dW_hh, {how}, graph vs loop"] = (tf_w, torch_w.T)
for what, (tf_value, torch_value) in checks.items():
    sidebyside.assert_close(tf_value, torch_value, what=what, device=torch_device)
# sphinx_gallery_end_ignore
assert not np.allclose(tf_grads["cut"][1], tf_grads["full"][1], rtol=1e-3)
sidebyside.parity_report()

# %%
# Going deeper: more on loops and chunks
# --------------------------------------
# TensorFlow 1, which the posts credited on :ref:`sources` ran, built a loop from
# ``Enter``, ``Merge``, ``Switch`` and ``NextIteration`` ops, not one ``StatelessWhile``.
#
# One optimizer step per chunk
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Per chunk: a forward pass from the carried state, a loss, its gradient, an SGD step.
# In TensorFlow each chunk gets its own :term:`gradient tape`, which records only what
# runs inside it: the carried state is a constant to it, so there is nothing to cut. A
# PyTorch tensor carries its graph along: without ``detach()``, chunk 2's ``backward()``
# reaches into chunk 1's graph, which chunk 1's ``backward()`` freed, and fails.
# ``retain_graph=True``, as the full message suggests, leads to the next error:
# ``step()`` changed the weights that graph saved.
LR, chunks = 0.5, [slice(0, CHUNK), slice(CHUNK, 2 * CHUNK)]

# %%
# **TensorFlow (tf.GradientTape)**: one tape per chunk, no cut needed.
with tf.device(tf_device):
    w = {k: tf.Variable(v) for k, v in init.items()}
    sgd = tf.keras.optimizers.SGD(LR)
    h = tf.zeros((BATCH, HIDDEN))
    tf_losses = []
    for chunk in chunks:
        with tf.GradientTape() as tape:  # this chunk only
            out, h = while_loop_rnn(x_np[:, chunk], h, w)
            loss = tf.reduce_mean((out - y_np[:, chunk]) ** 2)
        grads = tape.gradient(loss, list(w.values()))
        sgd.apply_gradients(zip(grads, w.values(), strict=True))
        tf_losses.append(loss.numpy())
print("chunk losses:", np.round(tf_losses, 4))


# %%
# **PyTorch (eager)**: ``detach()`` between chunks, or an error.
from sidebyside import show_error


def train_chunks(detach, retain_graph=False):
    model = torch.nn.RNNCell(FEATURES, HIDDEN).to(torch_device)
    model.load_state_dict(cell.state_dict())  # the same start
    sgd = torch.optim.SGD(model.parameters(), lr=LR)
    h = torch.zeros(BATCH, HIDDEN, device=torch_device)
    losses = []
    for chunk in chunks:
        out, h = for_loop_rnn(x[:, chunk], h, model)
        loss = torch.mean((out - y[:, chunk]) ** 2)
        sgd.zero_grad()
        loss.backward(retain_graph=retain_graph)
        sgd.step()  # changes the weights in place
        losses.append(loss.item())
        h = h.detach() if detach else h  # cut the graph, or not
    return model, losses


x = torch.from_numpy(x_np).to(torch_device)
show_error(RuntimeError, train_chunks, False, cut=" (")
show_error(RuntimeError, train_chunks, False, True, cut=":")
trained, torch_losses = train_chunks(True)
print("chunk losses:", np.round(torch_losses, 4))

# %%
# Both give the same losses and, after the two steps, the same weights.
sidebyside.assert_close(tf_losses, torch_losses, what="losses", device=torch_device)
sidebyside.assert_close(w["W_hh"], trained.weight_hh.T, what="W_hh", device=torch_device)
assert not np.allclose(w["W_hh"], init["W_hh"], rtol=1e-3)  # the steps changed it

# %%
# The ready-made layers
# ~~~~~~~~~~~~~~~~~~~~~
# ``keras.layers.RNN`` wraps a cell in a ``tf.while_loop`` too (a ``While`` op, as it
# reads variables); ``None`` as the time dimension of a ``tf.function``'s
# ``input_signature`` gives one graph for every length, not a :term:`retrace
# <retracing>` per length. Keras stores ``W_ih`` as ``kernel`` and has one bias,
# ``b_ih + b_hh``. ``torch.nn.RNN`` runs its loop in C++ on a CPU and as one cuDNN
# kernel on a CUDA GPU (TF32 off, as ``sidebyside.torch_device()`` sets it); Keras's
# ``SimpleRNN`` has no cuDNN path, so on a GPU they are two programs, equal to a tolerance.

# %%
# **TensorFlow (tf.function)**: the Keras layer, traced once.
with tf.device(tf_device):
    keras_rnn = tf.keras.layers.RNN(
        tf.keras.layers.SimpleRNNCell(HIDDEN),
        return_sequences=True, return_state=True)
    keras_rnn.build((BATCH, None, FEATURES))
    keras_rnn.set_weights([
        init["W_ih"], init["W_hh"], init["b_ih"] + init["b_hh"]
    ])


@tf.function(input_signature=[
    tf.TensorSpec((BATCH, None, FEATURES), tf.float32)
])
def layer_states(x):
    return keras_rnn(x)


layer_results = {}
shape = (BATCH, MAX_STEPS, FEATURES)
x_long = rng.normal(size=shape).astype(np.float32)
for length in lengths:
    with tf.device(tf_device):
        layer_results[length] = layer_states(x_long[:, :length])
traced = layer_states.get_concrete_function().graph
print("traces:", layer_states.experimental_get_tracing_count())
print("loops:", [op.type for op in traced.get_operations()
                 if "While" in op.type])

# %%
# **PyTorch (eager)**: ``nn.RNN`` with the cell's weights.
rnn = torch.nn.RNN(FEATURES, HIDDEN, batch_first=True)
rnn = rnn.to(torch_device)
rnn.load_state_dict({  # the cell's weights, the layer's names
    f"{name}_l0": weight
    for name, weight in cell.state_dict().items()})

layer_torch = {}
for length in lengths:
    x = torch.from_numpy(x_long[:, :length]).to(torch_device)
    states, h_n = rnn(x)  # h_n: (layers, batch, hidden)
    layer_torch[length] = states, h_n[0]

# %%
# The Keras layer and ``nn.RNN`` agree for both lengths, from one trace, and ``nn.RNN``
# agrees with the hand-written loop over ``nn.RNNCell``.
assert layer_states.experimental_get_tracing_count() == 1
for length in lengths:
    for i, what in enumerate(("states", "last state")):
        sidebyside.assert_close(layer_results[length][i], layer_torch[length][i],
                                what=f"{what}, Keras vs nn.RNN, {length} steps",
                                device=torch_device)
    x = torch.from_numpy(x_long[:, :length]).to(torch_device)
    looped = for_loop_rnn(x, h0, cell)[0]
    torch.testing.assert_close(layer_torch[length][0], looped,
                               **sidebyside.parity.tolerance(looped))

# %%
# A stateful Keras layer
# ~~~~~~~~~~~~~~~~~~~~~~
# A *stateful* Keras layer keeps its last state in a variable, one row per sequence (so
# the batch size must be fixed), and starts its next call from there. That state is a
# value read from a variable, with no gradient path behind it: the tape's gradient of
# chunk 2's loss for chunk 1's input is ``None``. PyTorch has no stateful recurrent
# layers (modules do keep state, such as BatchNorm's running statistics): you pass the
# state along and ``detach()`` it. For a tensor outside the graph ``torch.autograd.grad``
# raises an error, or returns ``None`` with ``allow_unused=True``.

# %%
# **TensorFlow (tf.GradientTape)**: a stateful layer carries the state.
with tf.device(tf_device):
    stateful = tf.keras.layers.SimpleRNN(
        HIDDEN, return_sequences=True, stateful=True)
    show_error(ValueError, stateful.build,
               (None, None, FEATURES), cut=" Found")
    stateful.build(x_np.shape)
    stateful.set_weights(keras_rnn.get_weights())
    x1 = tf.constant(x_np[:, :CHUNK])
    x2 = tf.constant(x_np[:, CHUNK:])
    stateful.reset_state()
    with tf.GradientTape() as tape:
        tape.watch([x1, x2])
        states1 = stateful(x1)  # starts from zeros
        states2 = stateful(x2)  # starts where chunk 1 ended
        loss2 = tf.reduce_mean((states2 - y_np[:, CHUNK:]) ** 2)
    w_hh = stateful.cell.recurrent_kernel
    dx1, dx2, dw_hh = tape.gradient(loss2, [x1, x2, w_hh])
print("dloss2/dx1:", dx1)
stateful_tf = (dx1, dx2, dw_hh)

# %%
# **PyTorch (eager)**: ``nn.RNN``, the state passed along and detached.
x1, x2 = (torch.from_numpy(a).to(torch_device).requires_grad_()
          for a in (x_np[:, :CHUNK], x_np[:, CHUNK:]))
states1, h = rnn(x1)  # starts from zeros
h = h.detach()  # keep the value, cut the graph
states2, h = rnn(x2, h)  # starts where chunk 1 ended
loss2 = torch.mean((states2 - y[:, CHUNK:]) ** 2)
show_error(RuntimeError, torch.autograd.grad, loss2, [x1],
           retain_graph=True)
dx1, dx2, dw_hh = torch.autograd.grad(
    loss2, [x1, x2, rnn.weight_hh_l0], allow_unused=True)
print("dloss2/dx1:", dx1)
stateful_torch = (dx1, dx2, dw_hh)

# %%
# The stateful layer's gradients are the ``detach()`` and ``tf.stop_gradient`` ones.
assert stateful_tf[0] is None and stateful_torch[0] is None  # chunk 1: not in the graph
sidebyside.assert_close(stateful_tf[1], stateful_torch[1], device=torch_device,
                        what="dloss2/dx2, stateful Keras vs detach")
sidebyside.assert_close(stateful_tf[2], stateful_torch[2].T, device=torch_device,
                        what="dloss2/dW_hh, stateful Keras vs detach")
np.testing.assert_allclose(stateful_tf[2], tf_grads["cut"][1],
                           **sidebyside.parity.tolerance(stateful_tf[2]))
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * An RNN is a loop around a cell. In PyTorch the loop is Python and runs as often as
#   the data is long; in a TensorFlow graph it is one ``tf.while_loop`` operation that
#   reads its trip count from the input at run time: one graph serves every length.
# * One graph is not constant memory: for training, TensorFlow's loop pushes every
#   step's values onto lists for the backward loop, as PyTorch's record saves them, so
#   what training keeps grows with the length in both.
# * Truncated backpropagation through time carries the state's value across chunks and
#   cuts its gradient: ``h.detach()`` in PyTorch, ``tf.stop_gradient(h)`` (or a stateful
#   Keras layer) in TensorFlow; a chunk's loss then reaches back exactly one chunk. With
#   one ``tf.GradientTape`` per chunk there is nothing to cut; in PyTorch, without
#   ``detach()``, chunk 2's ``backward()`` fails, as chunk 1's graph was freed.
# * Next: :ref:`sequences of different lengths in one batch
#   <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>`.
#
# References: ``tf.while_loop``, ``tf.TensorArray``, ``tf.stop_gradient``, ``tf.function``,
# ``tf.compat.v1.placeholder``, ``tf.compat.v1.gradients``, ``tf.keras.layers.RNN``,
# ``tf.keras.layers.SimpleRNN`` (``stateful=True``), ``tf.GradientTape``, ``torch.nn.RNNCell``,
# ``torch.nn.RNN``, ``torch.autograd.grad``, ``torch.autograd.graph.saved_tensors_hooks``.

# sphinx_gallery_thumbnail_number = 1
