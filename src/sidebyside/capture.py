"""What a framework captured: the backward record behind a tensor, the graphs torch.compile made.

Each is taught on a page of its own first (the grad_fn walk on the autograd page, the counting
backend on the graphs-in-PyTorch page, the failed guard on the retracing page, the saved-tensor
box counter on the autograd-memory page, the GRU weight layout on the gate-order appendix);
later pages call these. Where a page still writes its own copy to teach it, a test keeps the two
alike (tests/test_show_and_capture.py).
"""

from __future__ import annotations

import weakref

from sidebyside.parity import to_numpy

import numpy as np


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


class _Box:
    """A tensor saved for backward, in a box that a weak reference can point to."""

    def __init__(self, tensor):
        self.tensor = tensor


class SavedTensorCounter:
    """Counts the tensors PyTorch's autograd saves for backward, and how many its graph holds.

    Use it as ``with torch.autograd.graph.saved_tensors_hooks(counter.pack, counter.unpack):``.
    ``pack`` puts each saved tensor in a small box and keeps only a weak reference to the box,
    so a box is alive exactly as long as the graph holds it: ``held()`` counts those alive,
    ``saved()`` every box packed since the last ``clear()``.
    """

    def __init__(self):
        self.boxes: list[weakref.ref] = []  # a weak reference to every box packed

    def pack(self, tensor) -> _Box:
        box = _Box(tensor)
        self.boxes.append(weakref.ref(box))
        return box

    def unpack(self, box: _Box):
        return box.tensor

    def held(self) -> int:
        """How many of the saved tensors the graph still holds."""
        return sum(ref() is not None for ref in self.boxes)

    def saved(self) -> int:
        """How many tensors were saved since the last ``clear()``, held or freed."""
        return len(self.boxes)

    def clear(self) -> None:
        """Forget the boxes packed so far."""
        self.boxes.clear()


def keras_layout(weight_ih, weight_hh, bias_ih, bias_hh):
    """PyTorch's GRU weights (or their gradients) as Keras's three arrays: each matrix split into
    its gates, the gates put in Keras's order (z, r, n for PyTorch's r, z, n), the matrices
    transposed, the two biases stacked."""

    def z_r_n(a):  # PyTorch stacks the gates r, z, n along the first axis
        r, z, n = np.split(to_numpy(a), 3)
        return np.concatenate([z, r, n])

    kernel, recurrent_kernel = z_r_n(weight_ih).T, z_r_n(weight_hh).T
    return [kernel, recurrent_kernel, np.stack([z_r_n(bias_ih), z_r_n(bias_hh)])]
