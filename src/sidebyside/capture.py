"""What a framework captured: the backward record behind a tensor, the graphs torch.compile made.

Each is taught on a page of its own first (the grad_fn walk on the if-vs-cond page, the counting
backend on the graphs-in-PyTorch page, the failed guard on the retracing page); later pages call
these.
"""

from __future__ import annotations


def backward_nodes(output) -> list:
    """Every node of PyTorch's backward record behind ``output``, found by walking ``grad_fn``
    and each node's ``next_functions`` (a node reached twice is listed twice)."""
    found, todo = [], [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None:
            found.append(node)
            todo.extend(fn for fn, _ in node.next_functions)
    return found


class CountingBackend:
    """A ``torch.compile`` backend that keeps every graph Dynamo hands it (``graphs``) and
    records each run of one (``runs``), then runs the captured graph as it is."""

    def __init__(self):
        self.graphs, self.runs = [], []

    def __call__(self, graph_module, example_inputs):
        self.graphs.append(graph_module)

        def run(*args):
            self.runs.append(graph_module)
            return graph_module.forward(*args)

        return run

    def clear(self) -> None:
        """Forget the graphs and runs seen so far (``torch.compiler.reset()`` forgets the rest)."""
        self.graphs.clear()
        self.runs.clear()


def call_names(graph_module) -> list[str]:
    """The operations a captured FX graph calls, by name, in order."""
    return [
        getattr(node.target, "__name__", str(node.target))
        for node in graph_module.graph.nodes
        if node.op.startswith("call")
    ]


def failed_guard(error) -> str:
    """The guard that a ``torch.compiler.set_stance("fail_on_recompile")`` error names: the
    message lists it on its third line, followed by the source line it came from."""
    line = str(error).splitlines()[2]  # "    - 0/0: <guard>  # <source>"
    return line.split(": ", 1)[1].split("#")[0].strip()
