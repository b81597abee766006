"""
An RNN step by step
===================

An RNN layer is a loop around a *cell*, the small function that turns one time step's
input and the previous hidden state into the next hidden state. Here we write that loop
ourselves: in PyTorch a Python ``for`` over ``nn.RNNCell``, as long as the data we
happen to have; in a TensorFlow graph one ``tf.while_loop``, built before any data
exists and run for two different lengths. The same weights go into every version
(PyTorch and Keras store them differently), and the results are checked against the
ready-made layers ``nn.RNN`` and ``keras.layers.RNN``. Then we cut the loop into chunks
for *truncated backpropagation through time*, show that the gradient of one chunk's
loss stops at the chunk boundary, and train chunk by chunk, one SGD step each.
"""

# %%
# Setup
# -----
# Both frameworks, NumPy for the shared weights and inputs, the helpers of this site,
# and one seed for everything.
import sidebyside
from sidebyside import show_error
from sidebyside.parity import to_numpy

import numpy as np
import tensorflow as tf
import torch

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# One cell, one set of weights
# ----------------------------
# The cell is the one ``torch.nn.RNNCell`` and ``keras.layers.SimpleRNNCell`` both
# compute: ``h_t = tanh(x_t W_ih + b_ih + h_(t-1) W_hh + b_hh)``. Its weights are drawn
# once, in NumPy, for a batch of 2 sequences of 3 features and a hidden state of 4
# numbers. The two lengths the loop will run for are drawn at run time too: no code
# below is written for a particular length.
BATCH, FEATURES, HIDDEN = 2, 3, 4
rng = np.random.default_rng(0)
bound = 1 / np.sqrt(HIDDEN)  # PyTorch's default range for RNN weights


def uniform(*shape):
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


init = {
    "W_ih": uniform(FEATURES, HIDDEN),
    "W_hh": uniform(HIDDEN, HIDDEN),
    "b_ih": uniform(HIDDEN),
    "b_hh": uniform(HIDDEN),
}
lengths = [int(rng.integers(3, 8)), int(rng.integers(10, 16))]  # short, long
x_np = rng.normal(size=(BATCH, max(lengths), FEATURES)).astype(np.float32)
print("the two lengths:", lengths)

# %%
# Where each framework keeps the weights
# --------------------------------------
# Keras stores the input weights as ``kernel``, shape ``(features, hidden)``, so that
# ``x @ kernel`` works, and has *one* bias. PyTorch stores ``weight_ih`` transposed,
# ``(hidden, features)``, computes ``x @ weight_ih.T``, and has *two* biases,
# ``bias_ih`` and ``bias_hh``, which only ever appear added together. So Keras gets
# ``b_ih + b_hh`` as its bias, and PyTorch gets every matrix transposed.

# %%
# **TensorFlow (Keras)**: ``kernel``, ``recurrent_kernel``, one ``bias``.
with tf.device(tf_device):
    cell = tf.keras.layers.SimpleRNNCell(HIDDEN)
    keras_rnn = tf.keras.layers.RNN(
        cell, return_sequences=True, return_state=True
    )
    keras_rnn.build((BATCH, None, FEATURES))
    keras_rnn.set_weights([
        init["W_ih"], init["W_hh"], init["b_ih"] + init["b_hh"]
    ])
for weight in cell.weights:
    name = weight.path.split("/")[-1]
    print(f"{name:<17}{tuple(weight.shape)}")

# %%
# **PyTorch (eager)**: ``weight_ih``, ``weight_hh`` transposed; two biases.
cell = torch.nn.RNNCell(FEATURES, HIDDEN).to(torch_device)
with torch.no_grad():
    cell.weight_ih.copy_(torch.from_numpy(init["W_ih"].T))
    cell.weight_hh.copy_(torch.from_numpy(init["W_hh"].T))
    cell.bias_ih.copy_(torch.from_numpy(init["b_ih"]))
    cell.bias_hh.copy_(torch.from_numpy(init["b_hh"]))
for name, weight in cell.named_parameters():
    print(f"{name:<17}{tuple(weight.shape)}")

# %%
# The loop, written out
# ---------------------
# TensorFlow: the input placeholder has shape ``(2, None, 3)``, the number of time steps
# left open. ``tf.while_loop`` runs the cell once per step, ``tf.shape(x)[1]`` times, a
# number the graph only learns when ``Session.run`` feeds it an input; a
# ``tf.TensorArray`` collects the states. (``tf.scan``, used on :ref:`the dynamic RNN
# page <sphx_glr_auto_examples_20_control_flow_plot_30_dynamic_rnn.py>`, builds the same
# kind of loop for you.) The graph is built once and fed both lengths.
#
# PyTorch: a plain ``for`` loop over the time steps calls the cell as often as the
# tensor is long, and autograd records one more step of graph each time round.

# %%
# **TensorFlow (graph)**: one ``tf.while_loop``, fed both lengths.
def while_loop_rnn(x, h0, w):
    """(batch, time, features) -> all states, last state."""
    steps = tf.shape(x)[1]

    def body(t, h, states):
        h = tf.tanh(x[:, t] @ w["W_ih"] + w["b_ih"]
                    + h @ w["W_hh"] + w["b_hh"])
        return t + 1, h, states.write(t, h)

    states = tf.TensorArray(tf.float32, size=steps)
    _, h, states = tf.while_loop(
        lambda t, h, states: t < steps, body, (0, h0, states)
    )
    return tf.transpose(states.stack(), [1, 0, 2]), h


graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(
        tf.float32, (BATCH, None, FEATURES), name="x"
    )
    w = {k: tf.constant(v) for k, v in init.items()}
    h0 = tf.zeros((BATCH, HIDDEN))
    states, h_last = while_loop_rnn(x, h0, w)
print("states:", states.shape)

tf_results = {}
with tf.compat.v1.Session(graph=graph) as session:
    for length in lengths:
        feed = {x: x_np[:, :length]}
        states_np, h_np = session.run([states, h_last], feed)
        tf_results[length] = states_np, h_np
        ops = len(graph.get_operations())
        print(f"{length} steps: states {states_np.shape},"
              f" ops {ops}")


# %%
# **PyTorch (eager)**: a Python ``for`` over ``nn.RNNCell``.
def for_loop_rnn(x, h0, cell):
    """(batch, time, features) -> all states, last state."""
    h, states = h0, []
    for t in range(x.shape[1]):
        h = cell(x[:, t], h)
        states.append(h)
    return torch.stack(states, dim=1), h


def recorded_nodes(output):
    """The backward nodes autograd recorded behind output."""
    found, todo = set(), [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.add(node)
            todo += [p for p, _ in node.next_functions]
    return found


torch_results = {}
h0 = torch.zeros(BATCH, HIDDEN, device=torch_device)
for length in lengths:
    x = torch.from_numpy(x_np[:, :length]).to(torch_device)
    states, h_last = for_loop_rnn(x, h0, cell)
    torch_results[length] = states, h_last
    nodes = len(recorded_nodes(states))
    shape = tuple(states.shape)
    print(f"{length} steps: states {shape}, nodes {nodes}")

# %%
# How big each graph is
# ---------------------
# The TensorFlow graph did not grow between the two runs: it has the same operations
# after feeding either length, because the loop is one operation that repeats its body.
# PyTorch's record is as long as the loop that ran: one ``TanhBackward0`` per step.
tanh_counts = {}
for length, (states, _) in torch_results.items():
    kinds = [type(node).__name__ for node in recorded_nodes(states)]
    tanh_counts[length] = kinds.count("TanhBackward0")
print("TanhBackward0 nodes recorded per length:", tanh_counts)
assert tanh_counts == {length: length for length in lengths}
loop_ops = [op.type for op in graph.get_operations() if op.type.endswith("While")]
print("loop operations in the TensorFlow graph:", loop_ops)
assert loop_ops == ["StatelessWhile"]

# %%
# The ready-made layers
# ---------------------
# ``keras.layers.RNN`` wraps a cell in the same kind of loop (on TensorFlow it is a
# ``tf.while_loop`` too). Inside ``tf.function``, an ``input_signature`` with ``None``
# as the time dimension gives one graph for every length, where each new length would
# otherwise be traced again. ``torch.nn.RNN`` is PyTorch's whole-sequence layer: one
# call, its loop in C++, the same four weights under the names ``weight_ih_l0`` and so
# on.

# %%
# **TensorFlow (tf.function)**: the Keras layer, traced once.
@tf.function(input_signature=[
    tf.TensorSpec((BATCH, None, FEATURES), tf.float32)
])
def layer_states(x):
    return keras_rnn(x)


layer_results = {}
for length in lengths:
    with tf.device(tf_device):
        states, h_last = layer_states(x_np[:, :length])
    layer_results[length] = states, h_last
    print(f"{length} steps: states {tuple(states.shape)}")
print("traces:", layer_states.experimental_get_tracing_count())
assert layer_states.experimental_get_tracing_count() == 1

# %%
# **PyTorch (eager)**: ``nn.RNN`` with the cell's weights.
rnn = torch.nn.RNN(FEATURES, HIDDEN, batch_first=True)
rnn = rnn.to(torch_device)
with torch.no_grad():
    rnn.weight_ih_l0.copy_(cell.weight_ih)
    rnn.weight_hh_l0.copy_(cell.weight_hh)
    rnn.bias_ih_l0.copy_(cell.bias_ih)
    rnn.bias_hh_l0.copy_(cell.bias_hh)

layer_torch = {}
for length in lengths:
    x = torch.from_numpy(x_np[:, :length]).to(torch_device)
    states, h_n = rnn(x)  # h_n: (layers, batch, hidden)
    layer_torch[length] = states, h_n[0]
    print(f"{length} steps: states {tuple(states.shape)}")

# %%
# They agree
# ----------
# For both lengths: the graph's ``tf.while_loop`` against the ``nn.RNNCell`` loop, the
# Keras layer against ``nn.RNN``, and, within PyTorch, the hand-written loop against
# ``nn.RNN``. The same weights give the same states, whichever way the loop was written.
same = sidebyside.parity.TOLERANCES["cuda" if torch_device == "cuda" else "cpu"]  # float32
for length in lengths:
    graph_states, graph_h = tf_results[length]
    loop_states, loop_h = torch_results[length]
    keras_states, keras_h = layer_results[length]
    rnn_states, rnn_h = layer_torch[length]
    checks = {
        "states, graph vs loop": (graph_states, loop_states),
        "last state, graph vs loop": (graph_h, loop_h),
        "states, Keras vs nn.RNN": (keras_states, rnn_states),
        "last state, Keras vs nn.RNN": (keras_h, rnn_h),
    }
    for what, (tf_value, torch_value) in checks.items():
        sidebyside.assert_close(
            tf_value, torch_value, what=f"{what}, {length} steps", device=torch_device
        )
    # within PyTorch: nn.RNN against the hand-written RNNCell loop
    torch.testing.assert_close(rnn_states, loop_states, **same)
sidebyside.parity_report()

# %%
# Truncated backpropagation through time
# --------------------------------------
# A long sequence is often trained in chunks: run chunk 1, update, run chunk 2 from the
# state chunk 1 ended in, and so on. The state carries the *values* across the boundary,
# but the gradient should not flow back into chunks already trained on, or each chunk
# would backpropagate through the whole history. PyTorch cuts the graph with
# ``h.detach()``, TensorFlow with ``tf.stop_gradient(h)``: both return the same numbers
# with no gradient path behind them.
#
# To see the cut, take one sequence of two chunks of 5 steps, compute the loss of chunk
# 2 only (the mean squared distance of its states from a target), and ask for its
# gradient with respect to *all ten* inputs, with and without the cut.
CHUNK = 5
x_np = rng.normal(size=(BATCH, 2 * CHUNK, FEATURES)).astype(np.float32)
y_np = rng.uniform(-0.5, 0.5, size=(BATCH, 2 * CHUNK, HIDDEN)).astype(np.float32)

# %%
# **TensorFlow (graph)**: ``tf.stop_gradient`` on the carried state.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(tf.float32, x_np.shape)
    y = tf.compat.v1.placeholder(tf.float32, y_np.shape)
    w = {k: tf.constant(v) for k, v in init.items()}
    h0 = tf.zeros((BATCH, HIDDEN))
    _, h1 = while_loop_rnn(x[:, :CHUNK], h0, w)
    carried = {"cut": tf.stop_gradient(h1), "full": h1}
    gradients = {}
    for how, h in carried.items():
        states2, _ = while_loop_rnn(x[:, CHUNK:], h, w)
        error = states2 - y[:, CHUNK:]
        loss2 = tf.reduce_mean(tf.square(error))
        gradients[how] = tf.compat.v1.gradients(
            loss2, [x, w["W_hh"]]
        )

with tf.compat.v1.Session(graph=graph) as session:
    tf_grads = session.run(gradients, {x: x_np, y: y_np})
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
        loss2, [x, cell.weight_hh]
    )
for how, (grad_x, _) in torch_grads.items():
    largest = grad_x[:, :CHUNK].abs().max().item()
    print(f"{how}: chunk 1, largest |dloss2/dx| {largest:.1e}")

# %%
# The cut is exact
# ----------------
# With the cut, the gradient reaches back exactly one chunk: every derivative of chunk
# 2's loss with respect to chunk 1's inputs is 0.0, not merely small, in both
# frameworks, and the derivatives for chunk 2's own inputs do not change. Without the
# cut, not one of the derivatives for chunk 1 is zero. These assertions run on every
# build.
for name, grads in (("TensorFlow", tf_grads), ("PyTorch", torch_grads)):
    cut_x = to_numpy(grads["cut"][0])
    full_x = to_numpy(grads["full"][0])
    assert np.all(cut_x[:, :CHUNK] == 0.0), f"{name}: gradient leaked into chunk 1"
    assert np.all(full_x[:, :CHUNK] != 0.0), f"{name}: no gradient in chunk 1 uncut"
    assert np.all(cut_x[:, CHUNK:] == full_x[:, CHUNK:]), f"{name}: chunk 2 changed"
print("chunk 1's gradient: exactly 0 with the cut, nowhere 0 without, in both")

# %%
# Chunk by chunk, as in training
# ------------------------------
# In a training loop the chunks arrive one at a time. A *stateful* Keras layer keeps its
# last state in a variable and starts its next call from there (``reset_state()`` goes
# back to zeros), so the state it carries is a value read from a variable, with no
# gradient path behind it: asked for the gradient of chunk 2's loss with respect to
# chunk 1's input, the tape answers ``None``. A stateful layer needs a fixed batch size,
# as it keeps one state per row. PyTorch has no stateful layers: you pass the state in
# and out yourself and ``detach()`` it between chunks. Asked for the gradient with
# respect to a tensor that is not in the graph, ``torch.autograd.grad`` raises an error;
# ``allow_unused=True`` makes it return ``None`` as TensorFlow does. (To get zeros
# instead of ``None``: ``materialize_grads=True`` in PyTorch,
# ``unconnected_gradients="zero"`` in TensorFlow.)

# %%
# **TensorFlow (tf.GradientTape)**: a stateful layer carries the state.
with tf.device(tf_device):
    stateful = tf.keras.layers.SimpleRNN(
        HIDDEN, return_sequences=True, stateful=True)
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
print("dloss2/dx2:", tuple(dx2.shape))
stateful_tf = (dx1, dx2, dw_hh)

# %%
# **PyTorch (eager)**: ``nn.RNN``, the state passed along and detached.
x1 = torch.from_numpy(x_np[:, :CHUNK]).to(torch_device)
x2 = torch.from_numpy(x_np[:, CHUNK:]).to(torch_device)
x1.requires_grad_(), x2.requires_grad_()
states1, h = rnn(x1)  # starts from zeros
h = h.detach()  # keep the value, cut the graph
states2, h = rnn(x2, h)  # starts where chunk 1 ended
loss2 = torch.mean((states2 - y[:, CHUNK:]) ** 2)
show_error(RuntimeError, torch.autograd.grad, loss2, [x1],
           retain_graph=True)
dx1, dx2, dw_hh = torch.autograd.grad(
    loss2, [x1, x2, rnn.weight_hh_l0], allow_unused=True
)
print("dloss2/dx1:", dx1)
print("dloss2/dx2:", tuple(dx2.shape))
stateful_torch = (dx1, dx2, dw_hh)

# %%
# One optimizer step per chunk
# ----------------------------
# Training proper: for each chunk, a forward pass from the carried state, the chunk's loss, its
# gradient and one SGD step, which changes the weights in place. In TensorFlow each chunk gets its
# own ``tf.GradientTape``, which records only what runs inside it: the state carried in from the
# chunk before is a constant to it, so there is nothing to cut. A PyTorch tensor carries its graph
# along, and ``backward()`` on chunk 1's loss freed what that graph saved: without ``detach()``,
# chunk 2's ``backward()`` reaches into chunk 1 and raises an error. Its full message suggests
# ``retain_graph=True``, which only leads to the next error: ``step()`` has changed the weights
# that chunk 1's graph saved.
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
# They agree, cut and uncut
# -------------------------
# The truncated gradients from the graph, from the stateful Keras layer and from PyTorch
# agree, for the inputs and for the recurrent weights (PyTorch's ``weight_hh`` is the
# transpose of ``W_hh``); so do the full gradients. The cut changes the gradient of the
# recurrent weights as well: without it, they also collect the first five steps' share.
# Training chunk by chunk gives the same losses and, after its two steps, the same weights.
assert stateful_tf[0] is None and stateful_torch[0] is None  # chunk 1: not in the graph
checks = {}
for how in ("cut", "full"):
    (tf_x, tf_w), (torch_x, torch_w) = tf_grads[how], torch_grads[how]
    checks[f"dloss2/dx, {how}, graph vs loop"] = (tf_x, torch_x)
    checks[f"dloss2/dW_hh, {how}, graph vs loop"] = (tf_w, torch_w.T)
checks["dloss2/dx2, stateful Keras vs detach"] = (stateful_tf[1], stateful_torch[1])
checks["dloss2/dW_hh, stateful Keras vs detach"] = (stateful_tf[2], stateful_torch[2].T)
checks["losses, a step per chunk"] = (tf_losses, torch_losses)
checks["W_hh after the steps"] = (w["W_hh"], trained.weight_hh.T)
for what, (tf_value, torch_value) in checks.items():
    sidebyside.assert_close(tf_value, torch_value, what=what, device=torch_device)
# within TensorFlow: stop_gradient in the graph against the stateful Keras layer
np.testing.assert_allclose(stateful_tf[2], tf_grads["cut"][1], **same)
assert not np.allclose(tf_grads["cut"][1], tf_grads["full"][1], rtol=1e-3)
assert not np.allclose(w["W_hh"], init["W_hh"], rtol=1e-3)  # the steps changed it
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * An RNN is a loop around a cell. In PyTorch the loop is Python and runs as often as
#   the data is long; in a TensorFlow graph it is one ``tf.while_loop`` operation whose
#   trip count is read from the input's shape at run time, so one graph serves every
#   length.
# * Keras and PyTorch store the same cell differently: the Keras ``kernel`` is PyTorch's
#   ``weight_ih`` transposed, and the Keras bias is PyTorch's ``bias_ih + bias_hh``.
# * Truncated backpropagation through time carries the state's value across chunks and
#   cuts its gradient: ``h.detach()`` in PyTorch, ``tf.stop_gradient(h)`` or a stateful
#   Keras layer in TensorFlow. A chunk's loss then reaches back exactly one chunk. With one
#   ``tf.GradientTape`` per chunk there is nothing to cut; in PyTorch, without ``detach()``,
#   chunk 2's ``backward()`` fails, as chunk 1's graph was freed.
# * Next: sequences of different lengths in one batch, on :ref:`the padded batches page
#   <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>`.
#
# References: ``tf.while_loop``, ``tf.TensorArray``, ``tf.scan``, ``tf.stop_gradient``,
# ``tf.compat.v1.placeholder``, ``tf.compat.v1.gradients``, ``tf.function``,
# ``tf.keras.layers.RNN``, ``tf.keras.layers.SimpleRNNCell``,
# ``tf.keras.layers.SimpleRNN`` (``stateful=True``), ``tf.GradientTape``,
# ``torch.nn.RNNCell``, ``torch.nn.RNN``, ``torch.Tensor.detach``,
# ``torch.autograd.grad``.
