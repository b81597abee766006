"""
The dynamic RNN
===============

A recurrent network reads a sequence one time step at a time, so the length of the sequence is
the length of the loop. Here a small RNN learns to predict ``cos(t)`` from ``sin(t)``, and every
training step gets a window of a *random* length: 10, 20 or 30 points. PyTorch simply runs its
Python loop as many times as there are points. A TensorFlow graph has to be built once, before
any data arrives, so the graph itself must accept any length: we leave the time dimension as
``None`` and put the loop *inside* the graph.

Both frameworks start from the same weights and see the same windows, so their losses must agree
step by step; we assert that they do. Then we look at what goes wrong when the time dimension is
fixed, and at how often ``tf.function`` retraces when the length keeps changing.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
import torch

import sidebyside

sidebyside.seed_everything(0)
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Windows of random length
# ------------------------
# As in the source post: each training step draws ``dynamic_steps`` from 1, 2 or 3, takes a window
# ``dynamic_steps * pi`` long with ``10 * dynamic_steps`` points, and starts where the previous
# window ended. The input is ``sin`` of those points, the target ``cos``. Shape
# ``(batch, time, feature) = (1, length, 1)``.
rng = np.random.default_rng(0)
windows, start = [], 0
for _ in range(60):
    dynamic_steps = int(rng.integers(1, 4))  # 1, 2 or 3
    t = np.linspace(start * np.pi, (start + dynamic_steps) * np.pi, 10 * dynamic_steps)
    start += dynamic_steps
    x_np = np.sin(t).astype(np.float32).reshape(1, -1, 1)
    y_np = np.cos(t).astype(np.float32).reshape(1, -1, 1)
    windows.append((t, x_np, y_np))

lengths = [x_np.shape[1] for _, x_np, _ in windows]
print("time steps per training step:", *lengths)
assert set(lengths) == {10, 20, 30}

# %%
# One set of starting weights
# ---------------------------
# A one-layer RNN with 32 hidden units and a linear head. The weights are drawn once, in NumPy,
# and loaded into both frameworks, so any difference later comes from the frameworks, not from
# the luck of the initialisation. The cell is the one ``torch.nn.RNN`` documents:
# ``h = tanh(x W_ih + b_ih + h W_hh + b_hh)``, and the output is ``h W_out + b_out``.
hidden = 32
bound = 1 / np.sqrt(hidden)  # PyTorch's default range for RNN and Linear weights


def uniform(*shape):
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


init = {
    "W_ih": uniform(1, hidden),
    "W_hh": uniform(hidden, hidden),
    "b_ih": uniform(hidden),
    "b_hh": uniform(hidden),
    "W_out": uniform(hidden, 1),
    "b_out": uniform(1),
}
lr = 0.05  # plain gradient descent: the same update rule in both frameworks

# %%
# One model for every length / a model that runs at any length
# ------------------------------------------------------------
# TensorFlow has to describe the loop before it knows how long it will be. The input placeholder
# has shape ``(1, None, 1)``: batch 1, any number of time steps. ``tf.scan`` puts a loop into the
# graph that applies the cell once per time step, however many there turn out to be. The hidden
# state is fed in and read out, so each window continues from the state the previous one ended in.
# As the source posts advise for ``dynamic_rnn``, only the time dimension is left open; the batch
# is fixed (at 1, by the shape of the hidden state).
#
# PyTorch needs no such planning: ``nn.RNN`` runs its loop in ordinary code, as many times as the
# tensor it gets is long, and takes any batch size as well.

# %%
# **TensorFlow (graph)**: the time dimension is ``None``, the loop lives in the graph.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    x = tf.compat.v1.placeholder(tf.float32, (1, None, 1), name="x")
    y = tf.compat.v1.placeholder(tf.float32, (1, None, 1), name="y")
    h0 = tf.compat.v1.placeholder(tf.float32, (1, hidden), name="h0")
    weights = {k: tf.Variable(v, name=k) for k, v in init.items()}

    def rnn_forward(x, h0, w):
        """(1, time, 1) -> (1, time, 1), and the last state."""

        def cell(h, x_t):  # one time step
            return tf.tanh(x_t @ w["W_ih"] + w["b_ih"]
                           + h @ w["W_hh"] + w["b_hh"])

        x_by_time = tf.transpose(x, [1, 0, 2])  # (time, 1, 1)
        states = tf.scan(cell, x_by_time, initializer=h0)
        states = tf.transpose(states, [1, 0, 2])  # (1, time, hidden)
        prediction = states @ w["W_out"] + w["b_out"]
        return prediction, states[:, -1]

    prediction, h_last = rnn_forward(x, h0, weights)
    loss = tf.reduce_mean(tf.square(prediction - y))
    sgd = tf.compat.v1.train.GradientDescentOptimizer(lr)
    train_op = sgd.minimize(loss)
    init_op = tf.compat.v1.global_variables_initializer()
print("input:", x)
print("prediction:", prediction)

# %%
# **PyTorch (eager)**: ``nn.RNN`` takes whatever length it is given.
rnn = torch.nn.RNN(1, hidden, batch_first=True).to(torch_device)
head = torch.nn.Linear(hidden, 1).to(torch_device)
start_weights = [
    (rnn.weight_ih_l0, "W_ih"), (rnn.weight_hh_l0, "W_hh"),
    (rnn.bias_ih_l0, "b_ih"), (rnn.bias_hh_l0, "b_hh"),
    (head.weight, "W_out"), (head.bias, "b_out"),
]
with torch.no_grad():  # PyTorch stores the matrices transposed
    for parameter, name in start_weights:
        parameter.copy_(torch.from_numpy(init[name].T))
parameters = [*rnn.parameters(), *head.parameters()]
optimizer = torch.optim.SGD(parameters, lr=lr)
print(rnn)
print(head)

# %%
# Training on windows of changing length
# --------------------------------------
# The same 60 windows, in the same order, in both frameworks. TensorFlow runs one graph for all
# three lengths; PyTorch builds a new graph of the right length at every step. Both carry the
# hidden state from one window to the next without backpropagating into the previous window.

# %%
# **TensorFlow (graph)**: one graph, fed windows of 10, 20 and 30 points.
losses = []
with tf.compat.v1.Session(graph=graph) as session:
    session.run(init_op)
    h_state = np.zeros((1, hidden), np.float32)
    for _, x_np, y_np in windows:
        feed = {x: x_np, y: y_np, h0: h_state}
        fetches = [train_op, loss, h_last, prediction]
        _, loss_np, h_state, pred_np = session.run(fetches, feed)
        losses.append(loss_np)
tf_losses = np.array(losses)
tf_prediction = pred_np.ravel()
print("first, last loss:", tf_losses[0], tf_losses[-1])

# %%
# **PyTorch (eager)**: each step records a graph as long as its window.
losses = []
h_state = torch.zeros(1, 1, hidden, device=torch_device)
for _, x_np, y_np in windows:
    x = torch.from_numpy(x_np).to(torch_device)
    y = torch.from_numpy(y_np).to(torch_device)
    states, h_state = rnn(x, h_state)
    h_state = h_state.detach()  # keep the value, cut the graph
    prediction = head(states)
    loss = torch.mean((prediction - y) ** 2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
torch_losses = np.array(losses)
torch_prediction = prediction.detach().cpu().numpy().ravel()
print("first, last loss:", torch_losses[0], torch_losses[-1])

# %%
# They agree, step by step
# ------------------------
# Same weights, same windows, same update rule: the 60 losses match, within float32 rounding
# carried through 60 steps. (Plain gradient descent keeps the comparison exact: the two Adam
# implementations add ``epsilon`` at slightly different places, and the losses drift apart.)
max_error = sidebyside.assert_close(
    tf_losses, torch_losses, what="training losses", device=torch_device
)
sidebyside.assert_close(tf_prediction, torch_prediction, what="last prediction", device=torch_device)
print(f"largest relative difference over 60 losses: {max_error:.1e}")
assert torch_losses[-10:].mean() < 0.1 * torch_losses[:10].mean()  # and it did learn
sidebyside.parity_report()

# %%
# A fixed time dimension does not bend
# ------------------------------------
# Had we written the placeholder as ``(1, 10, 1)`` (the usual way for a static graph), the graph
# would take windows of exactly 10 points and nothing else. Feeding 20 fails before anything
# runs.
x_by_length = {x_np.shape[1]: x_np for _, x_np, _ in windows}  # one window of each length
with tf.Graph().as_default():
    x_fixed = tf.compat.v1.placeholder(tf.float32, shape=(1, 10, 1), name="x_fixed")
    doubled = 2.0 * x_fixed  # any graph built on it inherits the fixed length
    with tf.compat.v1.Session() as session:
        print("10 points:", session.run(doubled, {x_fixed: x_by_length[10]}).shape)
        try:
            session.run(doubled, {x_fixed: x_by_length[20]})
        except ValueError as error:
            print("20 points: ValueError:", str(error).splitlines()[0])

# %%
# ``tf.function``: one trace per length, unless told otherwise
# ------------------------------------------------------------
# Modern TensorFlow builds its graphs by tracing Python with ``tf.function``. A graph is traced
# for a particular input shape, so a new length means a new trace. The counter below is ordinary
# Python, so it only moves while tracing. An ``input_signature`` that leaves the time dimension as
# ``None`` gives one graph for every length, like the placeholder above.
variables = {name: tf.Variable(value) for name, value in init.items()}
traces = {"no signature": 0, "time = None": 0}


def loss_and_gradients(x, y, h0, counter):
    traces[counter] += 1  # Python: runs while tracing only
    with tf.GradientTape() as tape:
        prediction, _ = rnn_forward(x, h0, variables)  # the function used for the graph above
        loss = tf.reduce_mean(tf.square(prediction - y))
    return loss, tape.gradient(loss, list(variables.values()))


step_per_shape = tf.function(lambda x, y, h0: loss_and_gradients(x, y, h0, "no signature"))
sequence = tf.TensorSpec(shape=(1, None, 1), dtype=tf.float32)
step_any_length = tf.function(
    lambda x, y, h0: loss_and_gradients(x, y, h0, "time = None"),
    input_signature=[sequence, sequence, tf.TensorSpec(shape=(1, hidden), dtype=tf.float32)],
)
h_zero = tf.zeros((1, hidden))
for _, x_np, y_np in windows[:12]:
    step_per_shape(x_np, y_np, h_zero)
    step_any_length(x_np, y_np, h_zero)
print("lengths fed:", *lengths[:12])
print("traces:", traces)
print("tracing count reported by TensorFlow:",
      step_per_shape.experimental_get_tracing_count(),
      step_any_length.experimental_get_tracing_count())
assert traces == {"no signature": len(set(lengths[:12])), "time = None": 1}

# %%
# What happened to ``dynamic_rnn``
# --------------------------------
# The source posts use ``tf.compat.v1.nn.dynamic_rnn``, TensorFlow 1's answer to "any length".
# The function is still there in TensorFlow 2.21, deprecated, but the cells it was meant for are
# gone: they came from Keras 2, and TensorFlow now ships Keras 3. (It still runs with a
# hand-written cell object, and logs a deprecation warning; ``tf.scan`` above does the same job.)
try:
    tf.compat.v1.nn.rnn_cell.BasicRNNCell(hidden)
except AttributeError as error:
    print("AttributeError:", error)

# %%
# The last window, and both loss curves
# -------------------------------------
# Left: the last training window, its target and what each framework's RNN predicted for it.
# Right: the loss at each of the 60 steps. The curves lie on top of each other.
fig, (ax_fit, ax_loss) = plt.subplots(1, 2, figsize=(12, 4))
t_last = windows[-1][0]
ax_fit.plot(t_last, np.cos(t_last), "k-", lw=4, alpha=0.3, label="target: cos(t)")
ax_fit.plot(t_last, np.sin(t_last), "k:", label="input: sin(t)")
ax_fit.plot(t_last, tf_prediction, "-", color="#ff8f00", label="TensorFlow")
ax_fit.plot(t_last, torch_prediction, "--", color="#ee4c2c", label="PyTorch")
ax_fit.set_title(f"last window ({len(t_last)} time steps)")
ax_fit.set_xlabel("t")
ax_fit.set_ylim(-1.6, 1.3)
ax_fit.legend(loc="lower center", ncol=4, fontsize=8)
ax_loss.plot(tf_losses, "-", color="#ff8f00", lw=3, alpha=0.6, label="TensorFlow (graph)")
ax_loss.plot(torch_losses, "--", color="#ee4c2c", label="PyTorch (eager)")
ax_loss.set_yscale("log")
ax_loss.set_title("training loss per step")
ax_loss.set_xlabel("training step")
ax_loss.legend()
fig.tight_layout()
plt.show()

# %%
# What to take away
# -----------------
# * In PyTorch a sequence of any length is just a tensor: the RNN's loop runs as often as the
#   data is long, and every step records a graph of exactly that size.
# * A TensorFlow graph is built before the data arrives, so a variable length must be planned:
#   leave the time dimension as ``None`` and put the loop into the graph (``tf.scan``,
#   ``tf.while_loop``, or an RNN layer that does it for you).
# * A fixed ``(1, 10, 1)`` placeholder refuses 20 points, and ``tf.function`` traces one graph per
#   new length unless an ``input_signature`` says the length may vary.
# * With the same weights and the same data, the two give the same losses, step for step.
#
# References: ``tf.compat.v1.placeholder``, ``tf.scan``, ``tf.compat.v1.train.GradientDescentOptimizer``,
# ``tf.function``, ``tf.TensorSpec``, ``torch.nn.RNN``, ``torch.nn.Linear``, ``torch.optim.SGD``,
# ``torch.Tensor.detach``.
