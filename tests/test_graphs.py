import os
import shutil
import subprocess
import sys
from pathlib import Path

from sidebyside import draw_autograd_graph, draw_tf_graph, graphs
from sidebyside.graphs import (
    Box,
    Layout,
    autograd_to_networkx,
    graph_layout,
    label_sizes,
    layered_positions,
    tf_graph_to_networkx,
)

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pytest
import tensorflow as tf
import torch
from matplotlib.path import Path as MplPath

from sphinx_extensions import dark_colors

ROOT = Path(__file__).resolve().parents[1]
HAS_DOT = shutil.which("dot") is not None
ENGINES = [
    "layered",
    pytest.param(
        "dot", marks=pytest.mark.skipif(not HAS_DOT, reason="Graphviz dot is not on PATH")
    ),
]


def build_tf_graph(gradients: bool = False):
    graph = tf.Graph()
    with graph.as_default():
        w = tf.compat.v1.placeholder(tf.float32, (), name="w")
        x = tf.compat.v1.placeholder(tf.float32, (), name="x")
        y = tf.multiply(tf.add(w, x, name="a"), tf.add(w, 1.0, name="b"), name="y")
        if gradients:  # as on the autograd page: two gradient calls, long scoped names
            tf.compat.v1.gradients(y, [w, x])
            tf.compat.v1.gradients(y, graph.get_tensor_by_name("a:0"))
    return graph


def build_autograd():
    w = torch.tensor(1.0, requires_grad=True)
    x = torch.tensor(2.0, requires_grad=True)
    return (w + x) * (w + 1), {"w": w, "x": x}


def long_edges_dag() -> nx.DiGraph:
    """Edges that skip columns, a wide fan-in, a constant used only at the end."""
    dag = nx.DiGraph()
    for name in "abcdefgh":
        dag.add_node(name, label=f"{name}\nOp{name.upper()}", leaf=name in "ab")
    dag.add_node("const", label="a_constant_with_a_long_name\nConst")
    dag.add_edges_from(
        [("a", "c"), ("c", "d"), ("d", "e"), ("e", "f"), ("a", "f"), ("b", "f"), ("b", "g")]
        + [("g", "h"), ("a", "h"), ("c", "h"), ("d", "h"), ("f", "h"), ("const", "h")]
    )
    return dag


def sample_dags() -> dict:
    y, names = build_autograd()
    return {
        "tf": tf_graph_to_networkx(build_tf_graph()),
        "tf with gradients": tf_graph_to_networkx(build_tf_graph(gradients=True)),
        "autograd": autograd_to_networkx(y, names),
        "long edges": long_edges_dag(),
    }


# --- checks on a layout (each returns what is wrong, so a test can show it catches it) ---------


def overlapping_boxes(layout: Layout) -> list:
    boxes = list(layout.boxes.items())
    return [
        (a, b)
        for i, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[i + 1 :]
        if box_a.overlaps(box_b)
    ]


def edges_against_the_flow(layout: Layout) -> list:
    """Edges whose head is not entirely right of their tail, or whose arrow points leftwards."""
    wrong = []
    for (tail, head), (vertices, _) in layout.edges.items():
        (x0, _), (x1, _) = vertices[-2], vertices[-1]
        if not layout.boxes[tail].right < layout.boxes[head].left or not x1 > x0:
            wrong.append((tail, head))
    return wrong


def path_points(vertices, codes, per_segment: int = 24) -> np.ndarray:
    t = np.linspace(0, 1, per_segment)
    return np.concatenate(
        [segment(t) for segment, _ in MplPath(vertices, codes).iter_bezier()], axis=0
    )


def edges_off_their_boxes(layout: Layout, tolerance: float = 1.5) -> list:
    """Edges that do not start at their tail's box and end on their head's box."""
    wrong = []
    for (tail, head), (vertices, _) in layout.edges.items():
        for box, (x, y) in ((layout.boxes[tail], vertices[0]), (layout.boxes[head], vertices[-1])):
            grown = Box(box.x, box.y, box.width + 2 * tolerance, box.height + 2 * tolerance)
            if not grown.contains(x, y) or box.contains(x, y, inset=tolerance):
                wrong.append((tail, head))
    return wrong


def edges_through_boxes(layout: Layout, inset: float = 1.0) -> list:
    """(edge, node) for every edge that crosses the box of a node it does not connect."""
    wrong = []
    for (tail, head), (vertices, codes) in layout.edges.items():
        points = path_points(vertices, codes)
        for node, box in layout.boxes.items():
            if node not in (tail, head) and any(box.contains(x, y, inset) for x, y in points):
                wrong.append(((tail, head), node))
    return wrong


# --- the framework graphs ------------------------------------------------------------------------


def test_tf_graph_has_one_node_per_operation_and_tensor_edges():
    dag = tf_graph_to_networkx(build_tf_graph())
    assert {"w", "x", "a", "b", "y"} <= set(dag.nodes)
    assert {("w", "a"), ("x", "a"), ("w", "b"), ("a", "y"), ("b", "y")} <= set(dag.edges)
    assert dag.nodes["w"]["leaf"] and not dag.nodes["y"]["leaf"]


def test_autograd_graph_follows_grad_fn_to_named_leaves():
    y, names = build_autograd()
    dag = autograd_to_networkx(y, names=names)
    labels = sorted(data["label"] for _, data in dag.nodes(data=True))
    assert labels == [
        "AddBackward0",
        "AddBackward0",
        "MulBackward0",
        "w\nAccumulateGrad",
        "x\nAccumulateGrad",
    ]
    assert dag.number_of_edges() == 5  # w feeds both additions
    # Edges point forward: from the leaves (no inputs) to the output (no consumers).
    (sink,) = [n for n in dag if dag.out_degree(n) == 0]
    assert dag.nodes[sink]["label"] == "MulBackward0"
    assert all(dag.nodes[n]["leaf"] for n in dag if dag.in_degree(n) == 0)


# --- the layout ------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["tf", "tf with gradients", "autograd", "long edges"])
def test_layout_is_clean(engine, name):
    """Boxes fit their labels and never overlap; every edge runs from its tail's box, rightwards
    (from a lower to a higher column), to its head's box, around the other boxes."""
    dag = sample_dags()[name]
    layout = graph_layout(dag, engine=engine)
    assert layout.engine == engine
    assert set(layout.boxes) == set(dag.nodes) and set(layout.edges) == set(dag.edges)
    sizes = label_sizes(dag)
    for node, box in layout.boxes.items():
        assert (box.width, box.height) == pytest.approx(sizes[node]), node
    assert not overlapping_boxes(layout)
    assert not edges_against_the_flow(layout)
    assert not edges_off_their_boxes(layout)
    assert not edges_through_boxes(layout)


def test_the_checks_catch_a_bad_layout():
    """The old layout's faults: boxes on top of each other, an edge drawn backwards, an edge
    across a box. Each check above must report them, or the tests above prove nothing."""
    box = Box(0, 0, 40, 20)
    bad = Layout(
        "layered",
        boxes={
            "a": box,
            "b": Box(30, 5, 40, 20),
            "c": Box(-100, 0, 40, 20),
            "d": Box(100, 0, 40, 20),
        },
        edges={
            ("a", "c"): ([(20, 0), (-80, 0)], [1, 2]),  # points left
            ("c", "d"): ([(-80, 0), (80, 0)], [1, 2]),  # through a and b
        },
    )
    assert overlapping_boxes(bad) == [("a", "b")]
    assert edges_against_the_flow(bad) == [("a", "c")]
    assert (("c", "d"), "a") in edges_through_boxes(bad)
    bad.edges[("c", "d")] = ([(-90, 0), (80, 0)], [1, 2])  # starts inside its tail's box
    assert ("c", "d") in edges_off_their_boxes(bad)


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz dot is not on PATH")
def test_auto_uses_dot_when_it_is_on_path_and_layered_when_not(monkeypatch):
    dag = sample_dags()["tf"]
    monkeypatch.delenv("SIDEBYSIDE_GRAPH_LAYOUT", raising=False)
    assert graph_layout(dag).engine == "dot"
    monkeypatch.setenv("SIDEBYSIDE_GRAPH_LAYOUT", "layered")  # a build can pin the engine
    assert graph_layout(dag).engine == "layered"
    monkeypatch.delenv("SIDEBYSIDE_GRAPH_LAYOUT")
    monkeypatch.setattr(graphs.shutil, "which", lambda name: None)
    assert graph_layout(dag).engine == "layered"
    with pytest.raises(RuntimeError, match="dot"):
        graph_layout(dag, engine="dot")


def test_sources_sit_just_before_their_first_consumer():
    """A constant used only by the last operation is drawn next to it, not in column 0."""
    dag = long_edges_dag()
    layer = graphs.layers(dag)
    assert layer["const"] == layer["h"] - 1
    assert layer["a"] == 0 and layer["h"] == max(layer.values())


def test_layout_is_the_same_on_every_run():
    """Positions depend on labels only, not on set order (which changes with hash seeds)."""
    dag = tf_graph_to_networkx(build_tf_graph())
    pos = layered_positions(dag)
    assert pos == layered_positions(dag.copy())
    assert pos["w"][0] == pos["x"][0] < pos["a"][0] < pos["y"][0]
    # Ordered to cross no edge: x (feeds a) above w (feeds a and b) above b's constant.
    assert pos["x"][1] > pos["w"][1] > pos["b/y"][1]
    edges = sorted(long_edges_dag().edges)  # rebuilt in two fresh interpreters, other seeds
    script = (
        "import sys, networkx as nx; from sidebyside.graphs import graph_layout; "
        f"dag = nx.DiGraph({edges!r}); "
        "nx.set_node_attributes(dag, {n: n * 3 for n in dag}, 'label'); "
        "layout = graph_layout(dag, engine='layered'); "
        "print(sorted((n, b.x, b.y) for n, b in layout.boxes.items()), sorted(layout.edges.items()))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1 and next(iter(outputs)).startswith("[('a'")


# --- the drawing -----------------------------------------------------------------------------


def node_labels(ax):
    return [t for t in ax.texts if t.get_text() not in (graphs.TF_NOTE, graphs.TORCH_NOTE)]


def test_drawing_puts_every_node_on_the_axes_and_says_which_way_arrows_point():
    fig, (left, right) = plt.subplots(1, 2)
    w = torch.tensor(1.0, requires_grad=True)
    tf_dag = draw_tf_graph(build_tf_graph(), left)
    torch_dag = draw_autograd_graph(w * 2, right, names={"w": w})
    assert len(node_labels(left)) == tf_dag.number_of_nodes()
    assert len(node_labels(right)) == torch_dag.number_of_nodes() == 2
    assert left.get_title().startswith("TensorFlow") and right.get_title().startswith("PyTorch")
    notes = [t.get_text() for ax in (left, right) for t in ax.texts if "arrows" in t.get_text()]
    assert notes == [graphs.TF_NOTE, graphs.TORCH_NOTE]
    assert "forward" in graphs.TORCH_NOTE and "inputs to outputs" in graphs.TF_NOTE
    plt.close(fig)


@pytest.mark.parametrize("size", [(11, 3.6), (6, 2), (16, 9)])
def test_labels_fit_their_boxes_at_any_size(size):
    """Labels scale with the drawing: inside their boxes after tight_layout, on a small figure,
    on a big one; and never larger than MAX_SCALE times FONT_SIZE."""
    fig, ax = plt.subplots(figsize=size)
    draw_tf_graph(build_tf_graph(gradients=True), ax)
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [p for p in ax.patches if type(p).__name__ == "FancyBboxPatch"]
    labels = node_labels(ax)
    assert len(boxes) == len(labels) > 10
    for box, label in zip(boxes, labels, strict=True):
        outer, inner = box.get_window_extent(renderer), label.get_window_extent(renderer)
        assert outer.x0 <= inner.x0 and inner.x1 <= outer.x1, label.get_text()
        assert outer.y0 <= inner.y0 and inner.y1 <= outer.y1, label.get_text()
        assert label.get_fontsize() <= graphs.MAX_SCALE * graphs.FONT_SIZE + 1e-6
    assert all(ax.bbox.contains(*p.get_window_extent(renderer).min) for p in boxes)
    plt.close(fig)


def test_dark_colors_keep_labels_readable_and_restore_the_figure():
    fig, ax = plt.subplots()
    draw_tf_graph(build_tf_graph(), ax)
    labels = {t.get_text().split("\n")[0]: t for t in node_labels(ax)}
    before = {name: t.get_color() for name, t in labels.items()}
    with dark_colors.dark_colors(fig):
        background = dark_colors.DARK_BACKGROUND
        on_orange, on_grey = labels["y"].get_color(), labels["w"].get_color()
        arrow = {type(p).__name__: p for p in ax.patches}["FancyArrowPatch"].get_edgecolor()
        assert dark_colors.contrast(on_orange, graphs.TF_COLOR) >= 4.5
        assert dark_colors.luminance(on_grey) > 0.4  # light text on the darkened leaf
        assert dark_colors.contrast(arrow, background) >= dark_colors.MIN_CONTRAST
        assert fig.patch.get_facecolor()[3] == 0
        assert dark_colors.contrast(ax.title.get_color(), background) >= 4.5
    assert {name: t.get_color() for name, t in labels.items()} == before
    assert fig.patch.get_facecolor()[3] == 1
    plt.close(fig)
