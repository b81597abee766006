import matplotlib.pyplot as plt
import tensorflow as tf
import torch

from sidebyside import draw_autograd_graph, draw_tf_graph
from sidebyside.graphs import autograd_to_networkx, tf_graph_to_networkx


def build_tf_graph():
    graph = tf.Graph()
    with graph.as_default():
        w = tf.compat.v1.placeholder(tf.float32, (), name="w")
        x = tf.compat.v1.placeholder(tf.float32, (), name="x")
        tf.multiply(tf.add(w, x, name="a"), tf.add(w, 1.0, name="b"), name="y")
    return graph


def test_tf_graph_has_one_node_per_operation_and_tensor_edges():
    dag = tf_graph_to_networkx(build_tf_graph())
    assert {"w", "x", "a", "b", "y"} <= set(dag.nodes)
    assert {("w", "a"), ("x", "a"), ("w", "b"), ("a", "y"), ("b", "y")} <= set(dag.edges)
    assert dag.nodes["w"]["leaf"] and not dag.nodes["y"]["leaf"]


def test_autograd_graph_follows_grad_fn_to_named_leaves():
    w = torch.tensor(1.0, requires_grad=True)
    x = torch.tensor(2.0, requires_grad=True)
    y = (w + x) * (w + 1)
    dag = autograd_to_networkx(y, names={"w": w, "x": x})
    labels = sorted(data["label"] for _, data in dag.nodes(data=True))
    assert labels == [
        "AddBackward0",
        "AddBackward0",
        "MulBackward0",
        "w\nAccumulateGrad",
        "x\nAccumulateGrad",
    ]
    assert dag.number_of_edges() == 5  # w feeds both additions


def test_drawing_puts_every_node_on_the_axes():
    fig, (left, right) = plt.subplots(1, 2)
    w = torch.tensor(1.0, requires_grad=True)
    tf_dag = draw_tf_graph(build_tf_graph(), left)
    torch_dag = draw_autograd_graph(w * 2, right, names={"w": w})
    assert len(left.texts) == tf_dag.number_of_nodes()
    assert len(right.texts) == torch_dag.number_of_nodes() == 2
    assert left.get_title().startswith("TensorFlow") and right.get_title().startswith("PyTorch")
    plt.close(fig)


def test_layout_is_the_same_on_every_run():
    """Positions depend on labels only, not on set order (which changes with hash seeds)."""
    from sidebyside.graphs import layered_positions

    dag = tf_graph_to_networkx(build_tf_graph())
    pos = layered_positions(dag)
    assert pos == layered_positions(dag.copy())
    assert pos["w"][0] == pos["x"][0] == 0 and pos["y"][0] == max(x for x, _ in pos.values())
    assert pos["w"][1] > pos["x"][1]  # sorted by label, from the top down
