"""
The dynamic RNN
===============

A recurrent network reads a sequence one time step at a time, so the length of the sequence is
the length of the loop. Here a small RNN learns to predict ``cos(t)`` from ``sin(t)``, and every
training step gets a window of a *random* length: 10, 20 or 30 points. PyTorch simply runs each
window: the Python around the model runs again, and autograd records a new graph, for every
window. A TensorFlow graph is built once, before any data arrives, so the graph itself must
accept any length: we leave the time dimension as ``None`` and put the loop *inside* the graph.

Both frameworks start from the same weights and see the same windows, so their losses must agree
step by step. The windows and the question come from the source posts credited on
:ref:`sources`.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.

import sidebyside
from sidebyside import show_error

import numpy as np
import tensorflow as tf
import torch

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# The windows and the starting weights
# ------------------------------------
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
print("time steps per training step:")
print(sidebyside.wrap(" ".join(map(str, lengths))))

# %%
# A one-layer RNN with 32 hidden units and a linear head. The weights are drawn once, in NumPy,
# and loaded into both frameworks, so any difference later comes from the frameworks, not from
# the luck of the initialisation. The cell is the one ``torch.nn.RNN`` documents:
# ``h = tanh(x W_ih + b_ih + h W_hh + b_hh)``, and the output is ``h W_out + b_out``.
hidden = 32
bound = 1 / np.sqrt(hidden)  # PyTorch's default range for RNN and Linear weights
shapes = {"W_ih": (1, hidden), "W_hh": (hidden, hidden), "b_ih": (hidden,), "b_hh": (hidden,),
          "W_out": (hidden, 1), "b_out": (1,)}
init = {name: rng.uniform(-bound, bound, shape).astype(np.float32) for name, shape in shapes.items()}
lr = 0.05  # plain gradient descent: the same update rule in both frameworks

# %%
# One model for every length
# --------------------------
# TensorFlow has to describe the loop before it knows how long it will be. The input
# :term:`placeholder` has shape ``(1, None, 1)``: batch 1, any number of time steps. ``tf.scan``
# puts a loop into the graph that applies the cell once per time step, however many there turn
# out to be. The hidden state is fed in and read out, so each window continues from the state the
# previous one ended in. (The batch is fixed at 1 here only because that hidden state has shape
# ``(1, hidden)``; a graph can leave the batch open too: Going deeper, below.)
#
# PyTorch needs no such planning: one call of ``nn.RNN`` runs a sequence of any length and any
# batch size.

# %%
# **TensorFlow (graph)**: the time dimension is ``None``, the loop lives in the graph.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    seq = (1, None, 1)  # batch, time (any length), feature
    x = tf.compat.v1.placeholder(tf.float32, seq, name="x")
    y = tf.compat.v1.placeholder(tf.float32, seq, name="y")
    h0 = tf.compat.v1.placeholder(
        tf.float32, (1, hidden), name="h0")
    weights = {k: tf.Variable(init[k], name=k) for k in init}

    def rnn_forward(x, h0, w):  # -> (1, time, 1), last state
        def cell(h, x_t):  # one time step
            return tf.tanh(x_t @ w["W_ih"] + w["b_ih"]
                           + h @ w["W_hh"] + w["b_hh"])

        x_by_time = tf.transpose(x, [1, 0, 2])  # (time, 1, 1)
        states = tf.scan(cell, x_by_time, initializer=h0)
        # back to (1, time, hidden)
        states = tf.transpose(states, [1, 0, 2])
        prediction = states @ w["W_out"] + w["b_out"]
        return prediction, states[:, -1]

    prediction, h_last = rnn_forward(x, h0, weights)
    loss = tf.reduce_mean(tf.square(prediction - y))
    sgd = tf.compat.v1.train.GradientDescentOptimizer(lr)
    train_op = sgd.minimize(loss)
    init_op = tf.compat.v1.global_variables_initializer()
print("input:", x.name, x.shape)
print("prediction:", prediction.name, prediction.shape)

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
# three lengths; PyTorch runs its Python training step again for every window, and autograd
# records a new graph for each. Both carry the hidden state from one window to the next without
# backpropagating into the previous window.

# %%
# **TensorFlow (graph)**: one graph, fed windows of 10, 20 and 30 points.
losses = []
with tf.compat.v1.Session(graph=graph) as session:
    session.run(init_op)
    h_state = np.zeros((1, hidden), np.float32)
    for _, x_np, y_np in windows:
        feed = {x: x_np, y: y_np, h0: h_state}
        fetches = [train_op, loss, h_last, prediction]
        _, loss_np, h_state, y_pred = session.run(fetches, feed)
        losses.append(loss_np)
tf_losses = np.array(losses)
tf_prediction = y_pred.ravel()
first, last = tf_losses[0], tf_losses[-1]
print(f"loss, first and last step: {first:.2g} {last:.2g}")

# %%
# **PyTorch (eager)**: each step records a new graph for its window.
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
first, last = torch_losses[0], torch_losses[-1]
print(f"loss, first and last step: {first:.2g} {last:.2g}")

# %%
# Left: the last training window, its target and what each framework's RNN predicted for it.
# Right: the loss at each of the 60 steps. The two frameworks' curves lie on top of each other.
t_last = windows[-1][0]  # the last window's time points
# sphinx_gallery_start_ignore
from sidebyside.graphs import TF_COLOR, TORCH_COLOR

import matplotlib.pyplot as plt

fig, (ax_fit, ax_loss) = plt.subplots(1, 2, figsize=(8, 4))
ax_fit.plot(t_last, np.cos(t_last), "k-", lw=5, alpha=0.25, label="target: cos(t)")
ax_fit.plot(t_last, np.sin(t_last), "k:", label="input: sin(t)")
runs = [("TensorFlow (graph)", tf_prediction, tf_losses, TF_COLOR, "-", 3),
        ("PyTorch (eager)", torch_prediction, torch_losses, TORCH_COLOR, "--", 2)]
for label, predicted, run_losses, color, style, width in runs:
    ax_fit.plot(t_last, predicted, style, lw=width, color=color, label=label)
    ax_loss.plot(run_losses, style, lw=width, color=color, label=label)
ax_fit.set(title=f"last window ({len(t_last)} time steps)", xlabel="t", ylim=(-1.8, 1.3))
ax_loss.set(title="training loss per step", xlabel="training step", yscale="log")
ax_fit.legend(loc="lower center", ncol=2, fontsize=8)
ax_loss.legend()
fig.tight_layout()
plt.show()
# sphinx_gallery_end_ignore
# sphinx_gallery_thumbnail_number = 1

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
        print("20 points:")
        show_error(ValueError, session.run, doubled,
                   {x_fixed: x_by_length[20]}, indent="  ")

# %%
# Going deeper: more on lengths and loops
# ---------------------------------------
#
# ``tf.function``, one trace per length unless told otherwise
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Modern TensorFlow builds its graphs by :term:`tracing` Python with ``tf.function``. A graph is
# traced for a particular input shape, so a new length means a new trace (:term:`retracing`). The
# counter below is ordinary Python, so it only moves while tracing. An ``input_signature`` that
# leaves the time dimension as ``None`` gives one graph for every length, like the placeholder
# above. Compare the two counts with the number of different lengths fed.
variables = {name: tf.Variable(value) for name, value in init.items()}
h_zero = tf.zeros((1, hidden))
traces = {"no signature": 0, "time = None": 0}


def predict(x, counter):
    traces[counter] += 1  # Python: runs while tracing only
    return rnn_forward(x, h_zero, variables)[0]  # the function of the graph above


per_shape = tf.function(lambda x: predict(x, "no signature"))
sequence = tf.TensorSpec(shape=(1, None, 1), dtype=tf.float32)
any_length = tf.function(lambda x: predict(x, "time = None"), input_signature=[sequence])
for _, x_np, _ in windows[:12]:
    per_shape(x_np)
    any_length(x_np)
print("lengths fed:", *lengths[:12])
print("different lengths:", len(set(lengths[:12])))
print("traces:", traces)
assert traces == {"no signature": len(set(lengths[:12])), "time = None": 1}
assert per_shape.experimental_get_tracing_count() == len(set(lengths[:12]))

# %%
# One ``nn.RNN`` call runs the whole sequence
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``nn.RNN`` has no Python loop over time. A ``torch.overrides.TorchFunctionMode`` (the hook, from
# PyTorch's "Extending PyTorch" notes, that sees every call into PyTorch's functions) lists what
# one forward call on a 30-point window does: it calls the operator ``rnn_tanh`` once, and the
# loop over the 30 steps runs inside it, in C++ (cuDNN on a GPU). The step-by-step loop of
# define-by-run is the one you write yourself, for instance with ``nn.RNNCell``: the same weights
# and the same result, one ``rnn_tanh_cell`` call per step from a Python ``for``. The page
# :ref:`An RNN step by step <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>`
# goes further into ``nn.RNNCell``.


from torch.overrides import TorchFunctionMode


class OperatorCalls(TorchFunctionMode):
    """Inside ``with``: the name of every PyTorch function called."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


window = x_by_length[30]
x_window = torch.from_numpy(window).to(torch_device)
with torch.no_grad(), OperatorCalls() as whole:
    rnn_states, _ = rnn(x_window)
print("one nn.RNN call, rnn_tanh calls:", whole.names.count("rnn_tanh"))

cell = torch.nn.RNNCell(1, hidden).to(torch_device)
cell.load_state_dict({name.removesuffix("_l0"): value
                      for name, value in rnn.state_dict().items()})
with torch.no_grad(), OperatorCalls() as stepwise:
    h = torch.zeros(1, hidden, device=torch_device)
    for t in range(x_window.shape[1]):  # the Python loop
        h = cell(x_window[:, t], h)
print("an nn.RNNCell loop, rnn_tanh_cell calls:", stepwise.names.count("rnn_tanh_cell"))
assert whole.names.count("rnn_tanh") == 1 and "rnn_tanh_cell" not in whole.names
assert stepwise.names.count("rnn_tanh_cell") == x_window.shape[1]
sidebyside.assert_close(rnn_states[:, -1], h, what="nn.RNN vs an nn.RNNCell loop", device=torch_device)

# %%
# Batch and time both open, and ``dynamic_rnn``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The source posts say that a TensorFlow graph cannot leave both the batch and the time dimension
# open, or that the time dimension is the one that stays fixed. ``None`` works for both. Below,
# TensorFlow 1's own answer to "any length", ``tf.compat.v1.nn.dynamic_rnn``, gets a placeholder
# of shape ``(None, None, 1)`` and is fed 2 windows of 10 points, then 3 windows of 20, through one
# graph. ``dynamic_rnn`` is still in TensorFlow 2.21, deprecated (its docstring says so, below),
# but the cells it was made for came from Keras 2 and are gone with Keras 3, so we hand it a small
# cell object of our own: the cell above, with the starting weights. PyTorch's ``nn.RNN`` with the
# same weights takes the same two batches. Windows of *different* lengths in one batch need
# :term:`padding` and a :term:`mask`, or packing: that is the page
# :ref:`Batches of different lengths <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>`.
batches = {
    (2, 10): np.concatenate([x for _, x, _ in windows if x.shape[1] == 10][:2]),
    (3, 20): np.concatenate([x for _, x, _ in windows if x.shape[1] == 20][:3]),
}
dynamic_rnn_doc = tf.compat.v1.nn.dynamic_rnn.__doc__.splitlines()[0]
print(sidebyside.wrap(dynamic_rnn_doc))
print("tf.compat.v1.nn.rnn_cell.BasicRNNCell:")
cells = tf.compat.v1.nn.rnn_cell
show_error(AttributeError, getattr, cells, "BasicRNNCell", indent="  ")
assert "(deprecated)" in dynamic_rnn_doc

# %%
# **TensorFlow (graph)**: one ``(None, None, 1)`` placeholder, any batch.


class Cell:  # what dynamic_rnn asks of a cell
    state_size = output_size = hidden

    def zero_state(self, batch_size, dtype):
        return tf.zeros((batch_size, hidden), dtype)

    def __call__(self, x_t, h):
        h = tf.tanh(x_t @ w["W_ih"] + w["b_ih"]
                    + h @ w["W_hh"] + w["b_hh"])
        return h, h  # output, new state


any_graph = tf.Graph()
with any_graph.as_default(), tf.device(tf_device):
    w = {k: tf.constant(v) for k, v in init.items()}
    any_shape = (None, None, 1)  # batch, time, feature
    x_any = tf.compat.v1.placeholder(tf.float32, any_shape)
    states_any, _ = tf.compat.v1.nn.dynamic_rnn(
        Cell(), x_any, dtype=tf.float32
    )
print("placeholder shape:", x_any.shape)
tf_states = {}
with tf.compat.v1.Session(graph=any_graph) as session:
    for shape, x_np in batches.items():
        states = session.run(states_any, {x_any: x_np})
        tf_states[shape] = states
        print(x_np.shape, "->", states.shape)

# %%
# **PyTorch (eager)**: ``nn.RNN`` takes any batch and length.
rnn_any = torch.nn.RNN(1, hidden, batch_first=True)
rnn_any = rnn_any.to(torch_device)
names = {"weight_ih_l0": "W_ih", "weight_hh_l0": "W_hh",
         "bias_ih_l0": "b_ih", "bias_hh_l0": "b_hh"}
rnn_any.load_state_dict(
    {k: torch.from_numpy(init[v].T) for k, v in names.items()}
)
torch_states = {}
with torch.no_grad():
    for shape, x_np in batches.items():
        x_any = torch.from_numpy(x_np).to(torch_device)
        states_any, _ = rnn_any(x_any)
        torch_states[shape] = states_any
        print(tuple(x_any.shape), "->", tuple(states_any.shape))

# %%
# The same states from both, for both batches (checked):
for shape in batches:
    sidebyside.assert_close(
        tf_states[shape], torch_states[shape], what=f"states, {shape}", device=torch_device
    )
assert [s.shape for s in tf_states.values()] == [(2, 10, hidden), (3, 20, hidden)]

# %%
# They agree
# ----------
# Same weights, same windows, same update rule: the 60 losses match, within float32 rounding
# carried through 60 steps.
sidebyside.assert_close(tf_losses, torch_losses, what="training losses", device=torch_device)
sidebyside.assert_close(tf_prediction, torch_prediction, what="last prediction", device=torch_device)
assert torch_losses[-10:].mean() < 0.1 * torch_losses[:10].mean()  # and it did learn
assert set(lengths) == {10, 20, 30}
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * In PyTorch a sequence of any length and batch is just a tensor: one ``nn.RNN`` call runs it,
#   and the Python around the call runs again for every window and records a new graph.
# * A TensorFlow graph is built before the data arrives, so a variable length must be planned:
#   leave the time dimension as ``None`` (the batch can be ``None`` too) and put the loop into the
#   graph (``tf.scan``, ``tf.while_loop``, or an RNN layer that does it for you). A fixed
#   ``(1, 10, 1)`` placeholder refuses 20 points; ``tf.function`` needs an ``input_signature``
#   with ``None`` for the same reason.
# * Next: :ref:`an RNN step by step <sphx_glr_auto_examples_20_control_flow_plot_40_rnn_step_by_step.py>`
#   (``nn.RNNCell``, truncated backpropagation through time) and :ref:`batches of different
#   lengths <sphx_glr_auto_examples_20_control_flow_plot_50_padded_batches.py>` (padding, masks,
#   packing).
#
# References: ``tf.compat.v1.placeholder``, ``tf.scan``, ``tf.compat.v1.train.GradientDescentOptimizer``,
# ``tf.compat.v1.nn.dynamic_rnn``, ``tf.function``, ``tf.TensorSpec``, ``torch.nn.RNN``,
# ``torch.nn.RNNCell``, ``torch.overrides.TorchFunctionMode``, ``torch.nn.Linear``,
# ``torch.optim.SGD``, ``torch.Tensor.detach``.
