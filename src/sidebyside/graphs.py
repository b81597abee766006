"""Pictures of computation graphs, read from the live framework objects.

Uses networkx for the layout and matplotlib for drawing: no Graphviz binary needed.
"""

from __future__ import annotations

import networkx as nx

TF_COLOR, TORCH_COLOR, LEAF_COLOR = "#ff8f00", "#ee4c2c", "#9e9e9e"


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
    Edges point forward (input to output), as in the TensorFlow picture.
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


def layered_positions(dag: nx.DiGraph) -> dict:
    """Left to right, one column per topological generation, nodes sorted by label in a column.

    (networkx's multipartite_layout orders a column by set iteration, which changes between runs.)
    """
    pos = {}
    for column, nodes in enumerate(nx.topological_generations(dag)):
        nodes = sorted(nodes, key=lambda n: dag.nodes[n]["label"])
        for row, node in enumerate(nodes):
            pos[node] = (column, (len(nodes) - 1) / 2 - row)
    return pos


def draw_dag(dag: nx.DiGraph, ax, *, title: str, color: str) -> None:
    """Draw a DAG left to right: operations coloured, leaves (inputs) grey."""
    pos = layered_positions(dag)
    colors = [LEAF_COLOR if dag.nodes[n].get("leaf") else color for n in dag.nodes]
    nx.draw_networkx_edges(dag, pos, ax=ax, arrows=True, arrowsize=14, node_size=3200)
    nx.draw_networkx_nodes(dag, pos, ax=ax, node_color=colors, node_size=3200, alpha=0.9)
    labels = {n: data["label"] for n, data in dag.nodes(data=True)}
    nx.draw_networkx_labels(dag, pos, labels=labels, ax=ax, font_size=7)
    ax.set_title(title)
    ax.margins(0.15)
    ax.set_axis_off()


def draw_tf_graph(graph, ax, *, title: str = "TensorFlow: tf.Graph operations") -> nx.DiGraph:
    """Draw every operation of a ``tf.Graph`` on ``ax``; returns the networkx graph drawn."""
    dag = tf_graph_to_networkx(graph)
    draw_dag(dag, ax, title=title, color=TF_COLOR)
    return dag


def draw_autograd_graph(
    output, ax, *, names: dict | None = None, title: str = "PyTorch: grad_fn chain"
) -> nx.DiGraph:
    """Draw the backward graph recorded for ``output`` on ``ax``; returns the networkx graph."""
    dag = autograd_to_networkx(output, names)
    draw_dag(dag, ax, title=title, color=TORCH_COLOR)
    return dag
