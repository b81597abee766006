"""Pictures of computation graphs, read from the live framework objects.

Both frameworks' graphs are drawn the same way: one box per operation, sized to its label, in
columns from left to right, and every arrow pointing the way data flows, from the inputs to the
outputs. The positions come from Graphviz ``dot`` when its binary is on PATH, and otherwise from
grandalf's layered (Sugiyama) layout, in pure Python (``pip install sidebyside`` brings no
binary). matplotlib draws both, so the pictures look alike either way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from itertools import pairwise

import networkx as nx

# Okabe–Ito orange and sky blue: told apart with every common colour-vision deficiency.
TF_COLOR, TORCH_COLOR, LEAF_COLOR = "#e69f00", "#56b4e9", "#9e9e9e"
LABEL_COLOR, EDGE_COLOR, NOTE_COLOR = "#1a1a1a", "#4d4d4d", "#595959"

FONT_SIZE = 8.0  # label size in points when the drawing is at its natural size
PAD_X, PAD_Y = 5.0, 3.0  # space around a label inside its box, in points
LAYER_GAP = 24.0  # between two columns of boxes
NODE_GAP = 10.0  # between two boxes of a column
WRAP = 16  # characters: longer scoped names are broken after a "/"
MAX_SCALE = 1.15  # labels are never drawn larger than this times FONT_SIZE
NOTE_SIZE = 7.0  # the note under a drawing that says what the arrows mean
ARROW_HEAD = 9.0  # matplotlib's mutation_scale of the arrow heads, in points

TF_NOTE = "arrows: tensors, flowing from inputs to outputs"
TORCH_NOTE = "arrows: the forward pass; backward() walks them in reverse"

MOVETO, LINETO, CURVE4 = 1, 2, 4  # matplotlib.path.Path codes (matplotlib is imported lazily)


def tf_graph_to_networkx(graph) -> nx.DiGraph:
    """One node per operation of a ``tf.Graph`` (label: name and op type), edges follow tensors."""
    dag = nx.DiGraph()
    for op in graph.get_operations():
        dag.add_node(op.name, label=f"{op.name}\n{op.type}", leaf=op.type == "Placeholder")
        for tensor in op.inputs:
            dag.add_edge(tensor.op.name, op.name)
    return dag


def autograd_to_networkx(output, names: dict | None = None) -> nx.DiGraph:
    """The backward graph PyTorch recorded for ``output``, walked from ``output.grad_fn``.

    Nodes are ``grad_fn`` objects (``MulBackward0``…); a leaf tensor appears as its
    ``AccumulateGrad`` node, labelled with its name from ``names`` (``{"w": w}``) when given.
    Edges point forward (input to output), as in the TensorFlow picture: autograd itself links
    each node to its inputs' nodes (``next_functions``), the direction ``backward()`` walks.
    """
    leaf_names = {id(tensor): name for name, tensor in (names or {}).items()}
    dag = nx.DiGraph()

    def label(fn) -> str:
        variable = getattr(fn, "variable", None)
        if variable is not None:
            return f"{leaf_names.get(id(variable), 'leaf')}\n{type(fn).__name__}"
        return type(fn).__name__

    todo, seen = [output.grad_fn], set()
    while todo:
        fn = todo.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        dag.add_node(id(fn), label=label(fn), leaf=hasattr(fn, "variable"))
        for parent, _ in fn.next_functions:
            if parent is not None:
                dag.add_edge(id(parent), id(fn))
                todo.append(parent)
    return dag


# --- layout -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Box:
    """A node's box: centre and size, in points of the drawing at its natural size."""

    x: float
    y: float
    width: float
    height: float

    @property
    def left(self) -> float:
        return self.x - self.width / 2

    @property
    def right(self) -> float:
        return self.x + self.width / 2

    @property
    def bottom(self) -> float:
        return self.y - self.height / 2

    @property
    def top(self) -> float:
        return self.y + self.height / 2

    def overlaps(self, other: Box) -> bool:
        return (
            self.left < other.right
            and other.left < self.right
            and self.bottom < other.top
            and other.bottom < self.top
        )

    def contains(self, x: float, y: float, inset: float = 0.0) -> bool:
        return (
            self.left + inset < x < self.right - inset
            and self.bottom + inset < y < self.top - inset
        )


@dataclass
class Layout:
    """Where to draw each node (``boxes``) and each edge (``edges``: path vertices and codes)."""

    engine: str  # "dot" or "layered"
    boxes: dict[Hashable, Box] = field(default_factory=dict)
    edges: dict[tuple, tuple[list[tuple[float, float]], list[int]]] = field(default_factory=dict)

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, bottom, right, top) of every box and edge."""
        xs = [x for b in self.boxes.values() for x in (b.left, b.right)]
        ys = [y for b in self.boxes.values() for y in (b.bottom, b.top)]
        for vertices, _ in self.edges.values():
            xs += [x for x, _ in vertices]
            ys += [y for _, y in vertices]
        return (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 1.0, 1.0)


def ordered_nodes(dag: nx.DiGraph) -> list:
    """Nodes sorted by label, ties in insertion order: the same order on every run."""
    index = {node: i for i, node in enumerate(dag.nodes)}
    return sorted(dag.nodes, key=lambda n: (dag.nodes[n].get("label", str(n)), index[n]))


def display_label(data: dict, node=None, width: int = WRAP) -> str:
    """A node's label as drawn: a long scoped name (``gradients/grad_ys_0/Const``) is broken
    after a ``/`` into lines of about ``width`` characters, so columns stay narrow."""
    lines = []
    for line in data.get("label", str(node)).split("\n"):
        parts = [part + "/" for part in line.split("/")[:-1]] + [line.split("/")[-1]]
        current = ""
        for part in parts:
            if current and len(current) + len(part) > width:
                lines.append(current)
                current = ""
            current += part
        lines.append(current)
    return "\n".join(lines)


def text_extents(texts: list[str], fontsize: float) -> list[tuple[float, float]]:
    """Width and height in points of each text drawn at ``fontsize`` (matplotlib's Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(dpi=72)  # at 72 dpi a pixel is a point
    renderer = FigureCanvasAgg(figure).get_renderer()
    extents = []
    for text in texts:
        artist = figure.text(0, 0, text, fontsize=fontsize, ha="center")
        extent = artist.get_window_extent(renderer)
        extents.append((extent.width, extent.height))
        artist.remove()
    return extents


def label_sizes(dag: nx.DiGraph, fontsize: float = FONT_SIZE) -> dict:
    """Each node's box size in points: its label's extent at ``fontsize`` plus padding."""
    labels = [display_label(data, node) for node, data in dag.nodes(data=True)]
    return {
        node: (width + 2 * PAD_X, height + 2 * PAD_Y)
        for node, (width, height) in zip(dag.nodes, text_extents(labels, fontsize), strict=True)
    }


def dot_layout(dag: nx.DiGraph, sizes: dict, dot: str = "dot") -> Layout:
    """Graphviz ``dot``'s layered layout (left to right), boxes of the given sizes."""
    order = ordered_nodes(dag)
    rank = {node: i for i, node in enumerate(order)}
    lines = [
        "digraph G {",
        f"  graph [rankdir=LR, nodesep={NODE_GAP / 72:.4f}, ranksep={LAYER_GAP / 72:.4f}];",
        '  node [shape=box, fixedsize=true, label=""];',
        f"  edge [arrowsize={ARROW_HEAD * 0.4 / 10:.3f}];",  # dot leaves 10 pt per arrowsize 1
    ]
    for node in order:
        width, height = sizes[node]
        lines.append(f"  n{rank[node]} [width={width / 72:.4f}, height={height / 72:.4f}];")
    for tail, head in sorted(dag.edges, key=lambda edge: (rank[edge[0]], rank[edge[1]])):
        lines.append(f"  n{rank[tail]} -> n{rank[head]};")
    lines.append("}")
    result = subprocess.run(
        [dot, "-Tjson"], input="\n".join(lines), capture_output=True, text=True, timeout=60
    )
    if result.returncode != 0:
        raise RuntimeError(f"Graphviz dot failed: {result.stderr.strip()}")
    drawn = json.loads(result.stdout)

    layout = Layout("dot")
    by_id = {}
    for obj in drawn.get("objects", []):
        node = order[int(obj["name"][1:])]
        by_id[obj["_gvid"]] = node
        x, y = (float(v) for v in obj["pos"].split(","))
        layout.boxes[node] = Box(x, y, *sizes[node])
    for edge in drawn.get("edges", []):
        points, tip = [], None
        for token in edge["pos"].split():
            if token.startswith("e,"):
                tip = tuple(float(v) for v in token[2:].split(","))
            elif not token.startswith("s,"):
                points.append(tuple(float(v) for v in token.split(",")))
        codes = [MOVETO] + [CURVE4] * (len(points) - 1)
        if tip is not None:
            points.append(tip)
            codes.append(LINETO)
        layout.edges[(by_id[edge["tail"]], by_id[edge["head"]])] = (points, codes)
    return layout


def _sugiyama(dag: nx.DiGraph, sizes: dict):
    """grandalf's Sugiyama layout of ``dag``: layering, ordering to reduce crossings, and
    coordinates (Brandes and Köpf), one connected part below the other.

    grandalf stacks its layers from top to bottom; it gets each box turned a quarter (its width
    along the flow, its height across) and the result is turned back, so layers become columns.
    Returns ``(rank, centre, band, chains)``: each node's column; the centre (x, y) of each node
    and of each point where an edge crosses a column it neither starts nor ends in; the (left,
    right) of the column each of them stands in; and each edge's chain, tail, points, head.
    """
    from grandalf.graphs import Edge, Vertex, graph_core
    from grandalf.layouts import SugiyamaLayout, VertexViewer

    order = ordered_nodes(dag)
    index = {node: i for i, node in enumerate(order)}
    vertices = {node: Vertex(node) for node in order}
    for node, vertex in vertices.items():
        width, height = sizes[node]
        vertex.view = VertexViewer(w=height, h=width)
    edges = [
        Edge(vertices[tail], vertices[head])
        for tail, head in sorted(dag.edges, key=lambda e: (index[e[0]], index[e[1]]))
    ]
    rank, centre, band, chains, top = {}, {}, {}, {}, 0.0

    def key(v):
        return v.data if isinstance(v, Vertex) else v  # a node, or grandalf's point on an edge

    # One connected part at a time, its vertices and edges in our order: grandalf's own Graph
    # gathers each part's edges in a set of objects, whose order follows memory addresses and so
    # changes from run to run (and with it the crossing reduction's result).
    parts = sorted(nx.weakly_connected_components(dag), key=lambda nodes: min(map(index.get, nodes)))
    for nodes in parts:
        part = graph_core(
            [vertices[node] for node in sorted(nodes, key=index.get)],
            [edge for edge in edges if edge.v[0].data in nodes],
        )
        sugiyama = SugiyamaLayout(part)
        sugiyama.xspace, sugiyama.yspace = NODE_GAP, LAYER_GAP
        sugiyama.init_all(optimize=True)  # optimize: a source sits just before its consumer
        sugiyama.draw()
        placed = [v for layer in sugiyama.layers for v in layer]
        low = min(v.view.xy[0] - v.view.w / 2 for v in placed)
        high = max(v.view.xy[0] + v.view.w / 2 for v in placed)
        for layer in sugiyama.layers:
            half = max(v.view.h for v in layer) / 2
            for v in layer:
                across, along = v.view.xy
                centre[key(v)] = (along, top - (across - low))
                band[key(v)] = (along - half, along + half)
        for v in part.sV:
            rank[v.data] = sugiyama.grx[v].rank
        for e in part.sE:
            points = sugiyama.ctrls.get(e, {})
            inner = [points[r] for r in sorted(points)[1:-1]]
            chains[e.v[0].data, e.v[1].data] = [e.v[0].data, *inner, e.v[1].data]
        top -= high - low + NODE_GAP
    return rank, centre, band, chains


def layers(dag: nx.DiGraph) -> dict:
    """Column of each node: after all of its inputs; a node whose outputs all go further right
    (a constant used at the end) sits just before the first operation that uses it."""
    return _sugiyama(dag, label_sizes(dag))[0]


def layered_layout(dag: nx.DiGraph, sizes: dict) -> Layout:
    """A layered layout in pure Python, left to right: positions from grandalf's Sugiyama
    layout, edges drawn from column to column through the gaps grandalf leaves for them."""
    layout = Layout("layered")
    if not dag.number_of_nodes():
        return layout
    _, centre, band, chains = _sugiyama(dag, sizes)
    for node in ordered_nodes(dag):
        layout.boxes[node] = Box(*centre[node], *sizes[node])
    succ, pred = defaultdict(list), defaultdict(list)
    for chain in chains.values():
        for a, b in pairwise(chain):
            succ[a].append(b)
            pred[b].append(a)

    # Ports: several edges leaving (entering) a box are spread along its right (left) side.
    def ports(node, others):
        box = layout.boxes[node]
        others = sorted(others, key=lambda m: (-centre[m][1], centre[m][0]))
        step = min(4.0, 0.6 * box.height / max(len(others) - 1, 1))
        top = box.y + step * (len(others) - 1) / 2
        return {m: top - i * step for i, m in enumerate(others)}

    out_port = {node: ports(node, succ[node]) for node in layout.boxes}
    in_port = {node: ports(node, pred[node]) for node in layout.boxes}

    for (tail, head), chain in chains.items():
        x, y0 = layout.boxes[tail].right, out_port[tail][chain[1]]
        vertices, codes = [(x, y0)], [MOVETO]
        if band[tail][1] > x:  # to the right edge of the tail's column
            vertices.append((band[tail][1], y0))
            codes.append(LINETO)
            x = band[tail][1]
        for previous, point in pairwise(chain):
            left, right = band[point]
            if point == head:
                y1, end = in_port[head][previous], layout.boxes[head].left
            else:  # across the column, in the gap grandalf left for the edge
                y1, end = centre[point][1], right
            middle = (x + left) / 2
            vertices += [(middle, y0), (middle, y1), (left, y1)]
            codes += [CURVE4] * 3
            if end > left:
                vertices.append((end, y1))
                codes.append(LINETO)
            x, y0 = end, y1
        layout.edges[(tail, head)] = (vertices, codes)
    return layout


def graph_layout(dag: nx.DiGraph, *, engine: str | None = None) -> Layout:
    """``engine``: "dot" (Graphviz, must be on PATH), "layered" (pure Python), or "auto" (dot
    when it is on PATH and works, else layered). None: the environment variable
    ``SIDEBYSIDE_GRAPH_LAYOUT`` if set (a build can pin one engine), else "auto"."""
    if engine is None:
        engine = os.environ.get("SIDEBYSIDE_GRAPH_LAYOUT") or "auto"
    if engine not in ("auto", "dot", "layered"):
        raise ValueError(f"engine must be 'auto', 'dot' or 'layered', not {engine!r}")
    sizes = label_sizes(dag)
    dot = shutil.which("dot") if engine != "layered" else None
    if engine == "dot" and dot is None:
        raise RuntimeError("Graphviz's dot is not on PATH (apt-get install graphviz)")
    if dot and dag.number_of_nodes():
        try:
            return dot_layout(dag, sizes, dot)
        except (RuntimeError, OSError, ValueError, subprocess.SubprocessError):
            if engine == "dot":
                raise
    return layered_layout(dag, sizes)


def layered_positions(dag: nx.DiGraph) -> dict:
    """Centre of each node's box in the pure-Python layout, in points (x grows with the flow)."""
    layout = layered_layout(dag, label_sizes(dag))
    return {node: (box.x, box.y) for node, box in layout.boxes.items()}


# --- drawing ----------------------------------------------------------------------------------

_classes: dict = {}


def _drawing_classes() -> dict:
    """matplotlib classes for drawing a layout, made on first use (matplotlib loads lazily)."""
    if not _classes:
        import numpy as np
        from matplotlib.text import Text
        from matplotlib.transforms import Affine2DBase

        class FitTransform(Affine2DBase):
            """Layout points to display: the layout centred in the axes, as large as fits, but
            never above ``max_scale`` times its natural size. Recomputed whenever the axes move
            or the figure's dpi changes (``tight_layout``, ``savefig(dpi=…)``)."""

            is_separable = True

            def __init__(self, ax, bounds, max_scale):
                super().__init__()
                self._ax, self._bounds, self._max_scale = ax, bounds, max_scale
                self.set_children(ax.bbox)
                self._mtx = None

            def get_matrix(self):
                if self._invalid or self._mtx is None:
                    left, bottom, right, top = self._bounds
                    box = self._ax.bbox
                    dpi = self._ax.figure.dpi
                    k = min(
                        box.width / (right - left),
                        box.height / (top - bottom),
                        self._max_scale * dpi / 72,
                    )
                    k = max(k, 1e-9)
                    tx = box.x0 + box.width / 2 - k * (left + right) / 2
                    ty = box.y0 + box.height / 2 - k * (bottom + top) / 2
                    self._mtx = np.array([[k, 0.0, tx], [0.0, k, ty], [0.0, 0.0, 1.0]])
                    self._inverted = None
                    self._invalid = 0
                return self._mtx

            def points_per_unit(self) -> float:
                return self.get_matrix()[0, 0] * 72 / self._ax.figure.dpi

        class ScaledText(Text):
            """Text whose size follows its FitTransform, so that a label always fits its box."""

            def __init__(self, x, y, text, *, natural_size, **kwargs):
                super().__init__(x, y, text, fontsize=natural_size, **kwargs)
                self._natural_size = natural_size

            def draw(self, renderer):
                size = self._natural_size * self.get_transform().points_per_unit()
                if abs(size - self.get_fontsize()) > 1e-9:
                    self.set_fontsize(size)
                super().draw(renderer)

        _classes.update(FitTransform=FitTransform, ScaledText=ScaledText)
    return _classes


def draw_dag(
    dag: nx.DiGraph, ax, *, title: str, color: str, note: str = "", engine: str | None = None
) -> Layout:
    """Draw a DAG left to right on ``ax``: operations in ``color``, leaves (inputs) grey.

    Under the drawing, ``note`` says what the arrows mean. The drawing is centred in the axes
    and scaled as a whole (boxes, labels, arrows), as large as fits but with labels never above
    ``MAX_SCALE`` times ``FONT_SIZE``, so it stays right after ``tight_layout`` or a resize.
    Returns the layout drawn.
    """
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path

    classes = _drawing_classes()
    layout = graph_layout(dag, engine=engine)
    left, bottom, right, top = layout.bounds()
    middle = (left + right) / 2
    note_y = bottom - NOTE_SIZE / 2
    if note:
        ((note_width, _),) = text_extents([note], NOTE_SIZE)
        note_width *= 1.08  # measured at 72 dpi; drawn at the figure's, a little wider
        bottom -= 2 * NOTE_SIZE
        left, right = min(left, middle - note_width / 2), max(right, middle + note_width / 2)
    bounds = (left - PAD_X, bottom - PAD_Y, right + PAD_X, top + PAD_Y)
    transform = classes["FitTransform"](ax, bounds, MAX_SCALE)

    artists = []
    for vertices, codes in layout.edges.values():
        artists.append(
            FancyArrowPatch(
                path=Path(vertices, codes),
                arrowstyle="-|>",
                mutation_scale=ARROW_HEAD,
                linewidth=1.0,
                color=EDGE_COLOR,
                zorder=1,
            )
        )
    for node in ordered_nodes(dag):
        box, data = layout.boxes[node], dag.nodes[node]
        artists.append(
            FancyBboxPatch(
                (box.left, box.bottom),
                box.width,
                box.height,
                boxstyle="round,pad=0,rounding_size=3",
                facecolor=LEAF_COLOR if data.get("leaf") else color,
                edgecolor="none",
                zorder=2,
            )
        )
        artists.append(
            classes["ScaledText"](
                box.x,
                box.y,
                display_label(data, node),
                natural_size=FONT_SIZE,
                color=LABEL_COLOR,
                ha="center",
                va="center",
                zorder=3,
            )
        )
    if note:
        artists.append(
            classes["ScaledText"](
                middle,
                note_y,
                note,
                natural_size=NOTE_SIZE,
                color=NOTE_COLOR,
                ha="center",
                va="top",
                clip_on=False,  # never cut at the axes' edge when it is the widest part
            )
        )
    for artist in artists:
        artist.set_transform(transform)
        artist.set_in_layout(False)
        ax.add_artist(artist)
    ax.set_axis_off()
    ax.set_title(title)
    return layout


def draw_tf_graph(graph, ax, *, title: str = "TensorFlow: tf.Graph operations") -> nx.DiGraph:
    """Draw every operation of a ``tf.Graph`` on ``ax``; returns the networkx graph drawn."""
    dag = tf_graph_to_networkx(graph)
    draw_dag(dag, ax, title=title, color=TF_COLOR, note=TF_NOTE)
    return dag


def draw_autograd_graph(
    output, ax, *, names: dict | None = None, title: str = "PyTorch: grad_fn chain"
) -> nx.DiGraph:
    """Draw the graph recorded for ``output`` on ``ax``, arrows in the forward direction."""
    dag = autograd_to_networkx(output, names)
    draw_dag(dag, ax, title=title, color=TORCH_COLOR, note=TORCH_NOTE)
    return dag
