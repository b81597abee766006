"""Small shared helpers for the sidebyside gallery.

Plumbing only: the concepts themselves (graphs, tapes, ``backward()``) live in the examples.
TensorFlow and PyTorch are imported lazily, inside the helpers, so importing this package is cheap.
"""

__version__ = "0.2.0"
#: The one line a reader runs before any downloaded example (an NVIDIA GPU machine: ``[cuda]``).
INSTALL_LINE = f'pip install "sidebyside[cpu]=={__version__}"'

from sidebyside.device import require_frameworks, seed_everything, tf_device, torch_device
from sidebyside.graphs import draw_autograd_graph, draw_tf_graph
from sidebyside.parity import assert_close, parity_report
from sidebyside.provenance import provenance
from sidebyside.timing import time_call

__all__ = [
    "INSTALL_LINE",
    "__version__",
    "assert_close",
    "draw_autograd_graph",
    "draw_tf_graph",
    "parity_report",
    "provenance",
    "require_frameworks",
    "seed_everything",
    "tf_device",
    "time_call",
    "torch_device",
]
