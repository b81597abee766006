"""
Modules, layers and training
============================

One small convolutional network, the LeNet shape, written as Keras layers and as a PyTorch
``nn.Module``. The two frameworks lay out images and weights differently, so copying PyTorch's
starting weights into TensorFlow means transposing kernels and matching the order in which a
feature map is flattened. With the same weights the outputs agree, and five training steps with
SGD and momentum give the same losses, step by step.
"""

# %%
# Setup
# -----
# Both frameworks, the helpers of this site, and one seed for everything.
import sidebyside

import numpy as np
import tensorflow as tf
import torch
import torch.nn.functional as F

sidebyside.start_lesson()
torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()
sidebyside.provenance()

# %%
# Synthetic images
# ----------------
# 32 grey images of 28 × 28 pixels, made right here: noise plus a bright 8 × 8 square in one of
# the four quadrants, and the quadrant is the label (four classes). PyTorch's convolutions want
# images *channels-first*, ``(N, C, H, W)``; TensorFlow's default is *channels-last*,
# ``(N, H, W, C)``. It is the same array with its axes in another order.
rng = np.random.default_rng(0)
labels = rng.integers(0, 4, size=32)
images = rng.normal(0.0, 0.3, size=(32, 1, 28, 28)).astype(np.float32)
for image, label in zip(images, labels, strict=True):
    top, left = 4 + 12 * (label // 2), 4 + 12 * (label % 2)
    image[0, top : top + 8, left : left + 8] += 1.0
x_nchw = images  # PyTorch: (N, C, H, W) = (32, 1, 28, 28)
x_nhwc = np.ascontiguousarray(images.transpose(0, 2, 3, 1))  # TensorFlow: (32, 28, 28, 1)

# %%
# Layers that own their weights
# -----------------------------
# A *layer* is an object that creates its weights and applies them: ``tf.keras.layers.Conv2D``
# and ``torch.nn.Conv2d``. Keras stacks layers in a ``Sequential`` model. In PyTorch a network
# is an ``nn.Module`` subclass: layers assigned as attributes in ``__init__`` are registered, so
# ``parameters()`` finds their weights, and ``forward`` says how data flows. Operations without
# weights (ReLU, max-pooling, flattening) are often written as plain functions from
# ``torch.nn.functional``, imported as ``F``.
#
# Keras creates a layer's weights once it knows the input shape (``tf.keras.Input`` tells it at
# once); PyTorch asks for the input size up front (``Conv2d(1, 6, 5)``: 1 channel in, 6 out).
# Look at the shapes: a Keras convolution kernel is ``(H, W, in, out)``, a PyTorch one
# ``(out, in, H, W)``; a Keras ``Dense`` kernel is ``(in, out)``, a PyTorch ``Linear`` weight
# ``(out, in)``.

# %%
# **TensorFlow (Keras layers)**: channels last.
layers = tf.keras.layers
with tf.device(tf_device):
    keras_net = tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(6, 5, activation="relu", name="conv1"),
        layers.MaxPooling2D(2, name="pool1"),
        layers.Conv2D(16, 5, activation="relu", name="conv2"),
        layers.MaxPooling2D(2, name="pool2"),
        layers.Flatten(name="flatten"),  # (H, W, C) order
        layers.Dense(120, activation="relu", name="fc1"),
        layers.Dense(84, activation="relu", name="fc2"),
        layers.Dense(4, name="fc3"),
    ], name="lenet")
kernel = {name: keras_net.get_layer(name).kernel.shape
          for name in ("conv1", "fc1")}
print("kernels: conv1", kernel["conv1"], " fc1", kernel["fc1"])

# %%
# **PyTorch (nn.Module)**: channels first.
class LeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 5)
        self.fc1 = torch.nn.Linear(16 * 4 * 4, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)  # (C, H, W) order
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

torch_net = LeNet().to(torch_device)
print("weights: conv1", tuple(torch_net.conv1.weight.shape),
      " fc1", tuple(torch_net.fc1.weight.shape))

# %%
# Flattening is where the layouts bite
# ------------------------------------
# After the second pooling each image is a 4 × 4 map with 16 channels. Flattening turns it into
# 256 numbers, and the two frameworks write them in different orders: PyTorch walks
# ``(C, H, W)``, so the first numbers are channel 0, pixel by pixel; Keras walks ``(H, W, C)``,
# so the first numbers are pixel (0, 0), channel by channel. Number the entries of one feature
# map and flatten it both ways:
feature_map = np.arange(256, dtype=np.float32).reshape(1, 16, 4, 4)  # (N, C, H, W)
torch_order = torch.flatten(torch.from_numpy(feature_map), 1)
keras_order = layers.Flatten()(feature_map.transpose(0, 2, 3, 1))
print("PyTorch flattens to:", torch_order[0, :6].int().tolist(), "...")
print("Keras flattens to:  ", keras_order[0, :6].numpy().astype(int).tolist(), "...")

# %%
# So PyTorch's ``fc1`` weight, ``(120, 256)`` with its inputs in ``(C, H, W)`` order, has to
# have its 256 columns put into ``(H, W, C)`` order before it can serve as Keras's ``fc1``
# kernel. The function below turns PyTorch's ``state_dict`` into the list that Keras's
# ``set_weights`` takes: convolution kernels go from ``(out, in, H, W)`` to ``(H, W, in, out)``,
# dense weights are transposed, and ``fc1``'s columns are reordered first. Without the reorder
# the logits are wrong, with no error raised; with it, they agree.


def keras_weights(state, match_flatten=True):
    """PyTorch's state_dict as the list of arrays Keras's set_weights expects."""
    w = {name: tensor.detach().cpu() for name, tensor in state.items()}
    fc1 = w["fc1.weight"]  # (120, 256): inputs in (C, H, W) order
    if match_flatten:
        fc1 = fc1.reshape(120, 16, 4, 4).permute(0, 2, 3, 1).reshape(120, 256)  # (H, W, C)
    arrays = [
        w["conv1.weight"].permute(2, 3, 1, 0), w["conv1.bias"],  # OIHW -> HWIO
        w["conv2.weight"].permute(2, 3, 1, 0), w["conv2.bias"],
        fc1.T, w["fc1.bias"],  # (out, in) -> (in, out)
        w["fc2.weight"].T, w["fc2.bias"], w["fc3.weight"].T, w["fc3.bias"],
    ]
    return [np.ascontiguousarray(array.numpy()) for array in arrays]

init = {name: value.detach().clone() for name, value in torch_net.state_dict().items()}
x, y = torch.from_numpy(x_nchw).to(torch_device), torch.from_numpy(labels).to(torch_device)
with torch.no_grad():
    torch_logits = torch_net(x)
keras_net.set_weights(keras_weights(init, match_flatten=False))  # only transposed
wrong_error = sidebyside.parity.max_relative_error(torch_logits, keras_net(x_nhwc))
keras_net.set_weights(keras_weights(init))  # transposed and reordered
keras_logits = keras_net(x_nhwc)
right_error = sidebyside.parity.max_relative_error(torch_logits, keras_logits)
print(f"logits differ by {wrong_error:.0%} (fc1 only transposed), by < 1e-05 (reordered):",
      right_error < 1e-5)

# %%
# Training with SGD and momentum
# ------------------------------
# Five steps of full-batch training on the 32 images with the cross-entropy loss, from the same
# starting weights and with the same momentum rule. In TensorFlow 2 a ``tf.GradientTape``
# records the forward pass, the optimizer's ``apply_gradients`` updates the variables, and
# ``tf.function`` :term:`traces <tracing>` the whole step into a graph once. Note
# ``training=True``: a Keras model called without it computes as in inference
# (:ref:`switching recording off <sphx_glr_auto_examples_10_graphs_plot_27_recording_off.py>`).

# %%
# **TensorFlow (tf.function)**: one traced step, run five times.
steps, lr_sgd = 5, 0.1  # for both frameworks
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(
    from_logits=True)

def keras_losses(optimizer):  # losses from init, traces
    keras_net.set_weights(keras_weights(init))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = keras_net(x, training=True)
            loss = cross_entropy(y, logits)
        params = keras_net.trainable_variables
        grads = tape.gradient(loss, params)
        pairs = zip(grads, params, strict=True)
        optimizer.apply_gradients(pairs)
        return loss

    with tf.device(tf_device):
        losses = [train_step(x_nhwc, labels).numpy()
                  for _ in range(steps)]
    traces = train_step.experimental_get_tracing_count()
    return np.array(losses), traces

sgd_tf = tf.keras.optimizers.SGD(lr_sgd, momentum=0.9)
sgd_tf.build(keras_net.trainable_variables)  # before any trace
keras_sgd, traces = keras_losses(sgd_tf)
print("losses:", keras_sgd.round(4))

# %%
# **PyTorch (eager)**: ``backward()`` then ``step()``, each step.
torch_net.load_state_dict(init)
sgd = torch.optim.SGD(torch_net.parameters(), lr=lr_sgd,
                      momentum=0.9)
losses = []
for _ in range(steps):
    loss = F.cross_entropy(torch_net(x), y)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    losses.append(loss.item())
torch_sgd = np.array(losses)
print("losses:", torch_sgd.round(4))

# %%
# Left: one synthetic image of each class. Right: the loss before each of the five steps, from
# Keras in a ``tf.function`` and from PyTorch: the lines lie on top of one another.
sidebyside.assert_close(keras_sgd, torch_sgd, what="SGD losses", device=torch_device)
# sphinx_gallery_start_ignore
from sidebyside.graphs import TF_COLOR, TORCH_COLOR

import matplotlib.pyplot as plt

fig = plt.figure(figsize=(8, 3), layout="constrained")
grid = fig.add_gridspec(2, 4, width_ratios=(1, 1, 0.1, 2.8))
for label in range(4):
    ax = fig.add_subplot(grid[label // 2, label % 2], xticks=[], yticks=[])
    ax.imshow(images[list(labels).index(label), 0], cmap="gray")
    ax.set_title(f"label {label}", fontsize=9)
ax = fig.add_subplot(grid[:, 3])
step_numbers = range(1, steps + 1)
ax.plot(step_numbers, keras_sgd, "-", color=TF_COLOR, linewidth=5, label="TensorFlow (Keras)")
ax.plot(step_numbers, torch_sgd, "--o", color=TORCH_COLOR, label="PyTorch")
ax.set(xticks=step_numbers, xlabel="training step", ylabel="loss before the step",
       title="SGD with momentum, same start")
ax.legend()
plt.show()
# sphinx_gallery_end_ignore
# sphinx_gallery_thumbnail_number = 1

# %%
# Going deeper: more on layers and optimizers
# -------------------------------------------
#
# Weights made on the first call
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Without an ``Input``, a Keras layer makes its weights on its first call, from the shape of what
# it is given, and so do PyTorch's *lazy* modules (``nn.LazyLinear``, ``nn.LazyConv2d``, still
# marked experimental): until then the weight is an ``UninitializedParameter``, and then the
# module turns into the plain one (``nn.Linear``). ``tf.keras`` is Keras 3; Keras 2 lives on as
# the ``tf_keras`` package, which ``tf.keras`` becomes when ``TF_USE_LEGACY_KERAS=1`` is set
# before TensorFlow is imported (not installed here).
print("tf.keras is Keras", tf.keras.version())
dense = layers.Dense(4)  # no Input: no weights yet
print("Dense(4):", dense.weights, end=" -> ")
dense(np.zeros((2, 3), np.float32))  # 3 features in
print(tuple(dense.kernel.shape))
lazy = torch.nn.LazyLinear(4)  # no in_features
print("LazyLinear(4):", type(lazy.weight).__name__, end=" -> ")
lazy(torch.zeros(2, 3))  # 3 features in
print(type(lazy).__name__, tuple(lazy.weight.shape))
assert type(lazy) is torch.nn.Linear and lazy.in_features == 3

# %%
# A Keras optimizer makes its variables (its step count and momentum) on its first
# ``apply_gradients`` too, unless ``optimizer.build`` made them before. In a ``tf.function`` that
# costs a trace: a ``tf.function`` whose first trace *creates* variables traces a second time,
# for a graph that only uses them (TensorFlow issue 48851). The training step above, five calls:
_, lazy_traces = keras_losses(tf.keras.optimizers.SGD(lr_sgd, momentum=0.9))  # not built
print("traces, optimizer built first:", traces, " built in the first trace:", lazy_traces)
assert traces == 1 < lazy_traces  # optimizer.build: one trace

# %%
# Functions that take the weights
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Below the layers sit plain functions that are handed their weights: ``tf.nn.conv2d`` and
# ``F.conv2d``, ``tf.nn.max_pool2d`` and ``F.max_pool2d``. Written with them, the network is
# just arithmetic, and the weights live wherever you keep them. TensorFlow's ``tf.Module`` is a
# container for them: like an ``nn.Module`` it finds the ``tf.Variable`` objects stored in its
# attributes (``trainable_variables``), and ``tf.train.Checkpoint`` saves and restores it, keyed
# by attribute path (``net/w/0``, as a ``state_dict`` is). But that is all it does: no
# ``forward`` protocol, no ``train()``/``eval()`` mode, no hooks. In PyTorch, a function of
# ``F`` calls with a dictionary of tensors is the same network again.

# %%
# **TensorFlow (tf.Module)**: ``tf.nn`` functions, own variables.
import tempfile


class TFLeNet(tf.Module):
    def __init__(self, weights):
        super().__init__(name="lenet")
        with self.name_scope:  # variable names start "lenet/"
            self.w = [tf.Variable(array) for array in weights]

    def __call__(self, x):
        c1, b1, c2, b2, f1, g1, f2, g2, f3, g3 = self.w
        x = tf.nn.relu(tf.nn.conv2d(x, c1, 1, "VALID") + b1)
        x = tf.nn.max_pool2d(x, 2, 2, "VALID")
        x = tf.nn.relu(tf.nn.conv2d(x, c2, 1, "VALID") + b2)
        x = tf.nn.max_pool2d(x, 2, 2, "VALID")
        x = tf.reshape(x, (-1, 4 * 4 * 16))  # (H, W, C) order
        x = tf.nn.relu(x @ f1 + g1)
        x = tf.nn.relu(x @ f2 + g2)
        return x @ f3 + g3


with tf.device(tf_device):
    tf_module = TFLeNet(keras_weights(init))
    checkpoint = tf.train.Checkpoint(net=tf_module)
    with tempfile.TemporaryDirectory() as folder:
        path = checkpoint.write(f"{folder}/lenet")
        keys = [key for key, _ in tf.train.list_variables(path)]
        tf_module.w[0].assign(tf.zeros_like(tf_module.w[0]))
        checkpoint.read(path).assert_consumed()  # restored
    module_logits = tf_module(x_nhwc)  # checked below
print("variables:", len(tf_module.trainable_variables))
print("its checkpoint key:", keys[1])
print("logits of image 0:", module_logits[0].numpy().round(4))

# %%
# **PyTorch (torch.nn.functional)**: ``F`` functions, weights passed in.
def lenet_functional(x, p):
    x = F.conv2d(x, p["conv1.weight"], p["conv1.bias"])
    x = F.max_pool2d(F.relu(x), 2)
    x = F.conv2d(x, p["conv2.weight"], p["conv2.bias"])
    x = F.max_pool2d(F.relu(x), 2)
    x = torch.flatten(x, 1)  # (C, H, W) order
    x = F.relu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
    x = F.relu(F.linear(x, p["fc2.weight"], p["fc2.bias"]))
    return F.linear(x, p["fc3.weight"], p["fc3.bias"])


functional_logits = lenet_functional(x, init)
print("parameters:", len(init))
print("logits of image 0:",
      functional_logits[0].cpu().numpy().round(4))

# %%
# The same logits as the layers gave, from both; and what the text said, checked.
sidebyside.assert_close(module_logits, torch_logits, what="logits (tf.Module vs nn.Module)",
                        device=torch_device)
sidebyside.assert_close(module_logits, functional_logits,
                        what="logits (tf.Module vs torch.nn.functional)", device=torch_device)
torch.testing.assert_close(functional_logits, torch_logits)  # the same operations
assert keys[1] == "net/w/0/.ATTRIBUTES/VARIABLE_VALUE"
assert {"forward", "train", "eval"}.isdisjoint(dir(tf_module))

# %%
# Adam, and what its epsilon means
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Both Adams keep the same running averages of the gradient, ``m``, and of its square, ``v``,
# and correct them for their start at zero at step ``t``; the small ``epsilon`` that keeps the
# division safe is added in a different place:
#
# * PyTorch (``eps``, default ``1e-8``), as in Algorithm 1 of the Adam paper:
#   ``lr * m_hat / (sqrt(v_hat) + eps)``, with ``m_hat = m / (1 - beta1**t)`` and
#   ``v_hat = v / (1 - beta2**t)``.
# * Keras (``epsilon``, default ``1e-7``), the "epsilon hat" form the paper gives just before
#   its Section 2.1: ``lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + epsilon)``.
#
# Divide the Keras form through by ``sqrt(1 - beta2**t)`` and it is PyTorch's, with
# ``eps = epsilon / sqrt(1 - beta2**t)``: an ``eps`` that changes at every step, larger than
# ``epsilon`` at first and falling towards it. We keep Keras's default and set PyTorch's ``eps``
# to that value before each step, through the optimizer's ``param_groups`` (the same dictionary a
# learning-rate schedule writes to). The other settings are equal in both.
import math

lr_adam = 0.003
epsilon_hat = 1e-7  # Keras's default epsilon
beta2 = 0.999  # the default of both

# %%
# **TensorFlow (tf.function)**: Keras Adam with its default epsilon.
adam = tf.keras.optimizers.Adam(
    lr_adam, beta_1=0.9, beta_2=beta2, epsilon=epsilon_hat)
adam.build(keras_net.trainable_variables)
keras_adam, _ = keras_losses(adam)
print("losses:", keras_adam.round(4))

# %%
# **PyTorch (eager)**: ``eps`` set for each step to match.
def torch_adam_losses(eps_at_step):
    torch_net.load_state_dict(init)
    adam = torch.optim.Adam(torch_net.parameters(), lr=lr_adam,
                            betas=(0.9, beta2))
    losses = []
    for step in range(1, steps + 1):
        adam.param_groups[0]["eps"] = eps_at_step(step)
        loss = F.cross_entropy(torch_net(x), y)
        adam.zero_grad()
        loss.backward()
        adam.step()
        losses.append(loss.item())
    return np.array(losses)


def matched_eps(t):
    return epsilon_hat / math.sqrt(1 - beta2**t)


torch_adam = torch_adam_losses(matched_eps)
eps_steps = [matched_eps(t) for t in range(1, steps + 1)]
print("eps per step:", *[f"{eps:.1e}" for eps in eps_steps])
print("losses:", torch_adam.round(4))

# %%
# Had we not matched epsilon: the same PyTorch training with PyTorch's default ``eps = 1e-8``,
# and with ``eps = 1e-7``, the same *number* as Keras's epsilon but not the same meaning. Both
# drift away from Keras's losses by far more than the matched version does, and by the same
# amount: next to the ``eps`` that Keras's setting amounts to in these steps, both are too small
# to matter.
torch_adam_default = torch_adam_losses(lambda t: 1e-8)
torch_adam_same_number = torch_adam_losses(lambda t: epsilon_hat)
matched_error = sidebyside.parity.max_relative_error(keras_adam, torch_adam)
unmatched = {"eps = 1e-8 (PyTorch's default)": torch_adam_default,
             "eps = 1e-7 (Keras's number)": torch_adam_same_number}
print("largest relative difference from Keras's losses, with")
print(f"  {'eps = 1e-7 / sqrt(1 - beta2**t) (matched)':<42} {matched_error:.1e}")
unmatched_errors = []
for what, losses in unmatched.items():
    unmatched_errors.append(sidebyside.parity.max_relative_error(keras_adam, losses))
    print(f"  {what:<42} {unmatched_errors[-1]:.1e}")
sidebyside.assert_close(keras_adam, torch_adam, device=torch_device,
                        what="Adam losses (Keras vs PyTorch, matched epsilon)")
assert torch_adam[-1] < torch_adam[0]  # it learns
assert min(unmatched_errors) > 10 * matched_error  # epsilon must be matched

# %%
# Momentum, written two ways
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Keras and PyTorch use the same momentum rule, only written differently: PyTorch keeps
# ``buffer = 0.9 * buffer + gradient`` and steps by ``-lr * buffer``; Keras keeps
# ``velocity = 0.9 * velocity - lr * gradient`` and steps by ``velocity``, which is ``-lr``
# times the same buffer as long as ``lr`` does not change.
#
# The same training in a TensorFlow 1 graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# In a TensorFlow 1 graph, ``MomentumOptimizer.minimize(loss)`` adds the gradient and update
# operations to the graph and returns one operation that runs them all; each ``Session.run`` of
# it is one training step. The loss fetched in the same run is the one computed *before* the
# update, as ``loss.item()`` is in PyTorch. Its momentum rule is PyTorch's.
graph = tf.Graph()
with graph.as_default(), tf.device(tf_device):
    images_in = tf.compat.v1.placeholder(tf.float32, (None, 28, 28, 1))
    labels_in = tf.compat.v1.placeholder(tf.int64, (None,))
    net = TFLeNet(keras_weights(init))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels_in, logits=net(images_in))
    )
    train_op = tf.compat.v1.train.MomentumOptimizer(lr_sgd, momentum=0.9).minimize(loss)
    init_op = tf.compat.v1.global_variables_initializer()
with tf.compat.v1.Session(graph=graph) as session:
    session.run(init_op)
    feed = {images_in: x_nhwc, labels_in: labels}
    tf_sgd = np.array([session.run([train_op, loss], feed)[1] for _ in range(steps)])
sidebyside.assert_close(tf_sgd, torch_sgd, what="SGD losses (TF1 graph vs PyTorch)",
                        device=torch_device)
print("losses:", tf_sgd.round(4))

# %%
# They agree
# ----------
# Keras's logits are PyTorch's, as its losses were; then what the text said, checked.
sidebyside.assert_close(keras_logits, torch_logits, what="logits", device=torch_device)
assert torch_order[0, 1] == 1 and keras_order[0, 1] == 16  # next pixel / next channel
assert wrong_error > 0.1 and right_error < 1e-5  # the reorder is needed
assert torch_sgd[-1] < torch_sgd[0]  # and it learns
sidebyside.parity_report()

# %%
# What to take away
# -----------------
# * Keras layers and ``nn.Module`` layers both own their weights; ``tf.nn`` and
#   ``torch.nn.functional`` are the plain functions underneath, handed the weights. A
#   ``tf.Module`` collects variables the way an ``nn.Module`` collects parameters, and is saved
#   by ``tf.train.Checkpoint``.
# * TensorFlow is channels-last by default (``NHWC``, kernels ``HWIO``, dense ``(in, out)``),
#   PyTorch channels-first (``NCHW``, kernels ``OIHW``, linear ``(out, in)``). Copying weights
#   means transposing them, and the first dense layer after a flatten also needs its inputs
#   reordered: without that, the logits were wrong, with no error raised.
# * The momentum rules of ``torch.optim.SGD``, Keras's ``SGD`` and TensorFlow 1's
#   ``MomentumOptimizer`` are the same; their losses agree step for step.
# * Build a Keras optimizer (``optimizer.build(variables)``) before the first call of a traced
#   training step, or the step is traced twice.
# * Keras's Adam ``epsilon`` is the paper's "epsilon hat", PyTorch's ``eps`` is Algorithm 1's
#   epsilon: equal numbers are not equal settings.
#
# References: ``tf.keras.Sequential``, ``tf.keras.layers.Conv2D``, ``tf.keras.layers.Flatten``,
# ``tf.keras.layers.Dense``, ``tf.keras.Model.set_weights``, ``tf.Module``,
# ``tf.train.Checkpoint``, ``tf.nn.conv2d``, ``tf.nn.max_pool2d``,
# ``tf.compat.v1.train.MomentumOptimizer``, ``tf.keras.optimizers.SGD`` (``build``),
# ``tf.keras.optimizers.Adam``, ``tf.GradientTape``, ``tf.function``, ``torch.nn.Module``,
# ``torch.nn.Conv2d``, ``torch.nn.Linear``, ``torch.nn.LazyLinear``,
# ``torch.nn.functional.conv2d``, ``torch.flatten``, ``torch.nn.functional.cross_entropy``,
# ``torch.optim.SGD``, ``torch.optim.Adam``.
