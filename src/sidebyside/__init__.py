"""Small shared helpers for the sidebyside gallery.

Plumbing only: the concepts themselves (graphs, tapes, ``backward()``) live in the examples.
TensorFlow and PyTorch are imported lazily, inside the helpers, so importing this package is cheap.
"""

import importlib.util
import sys

__version__ = "0.3.0"
#: The one line a reader runs before any downloaded example (an NVIDIA GPU machine: ``[cuda]``).
INSTALL_LINE = f'pip install "sidebyside[cpu]=={__version__}"'


def _load_triton_before_tensorflow() -> None:
    """Import triton, where it is installed, while TensorFlow is not loaded yet.

    PyPI's Linux torch brings triton, and torch imports it lazily (``torch.compile``, the first
    ``torch.optim`` optimizer): after TensorFlow, in the examples. Both ship their own LLVM, and
    loading triton's after TensorFlow's crashes Python (SIGSEGV); the other order works. So every
    example, script or notebook, imports this package before TensorFlow (the downloads' first
    lines do), and so does the site's build.
    """
    if importlib.util.find_spec("triton") is None or "triton" in sys.modules:
        return
    if "tensorflow" not in sys.modules:
        import triton  # noqa: F401
    else:
        import warnings

        warnings.warn(
            "TensorFlow was imported before sidebyside: torch.compile or torch.optim may crash "
            "Python when they load triton. Restart, and import sidebyside first.",
            stacklevel=3,
        )


_load_triton_before_tensorflow()

from sidebyside.device import (  # noqa: E402
    report_versions,
    require_frameworks,
    seed_everything,
    start_lesson,
    tf_device,
    torch_device,
)
from sidebyside.graphs import draw_autograd_graph, draw_tf_graph
from sidebyside.parity import assert_close, parity_report
from sidebyside.provenance import provenance
from sidebyside.show import PANE_WIDTH, on_this_version, show_error, wrap
from sidebyside.timing import time_call

__all__ = [
    "INSTALL_LINE",
    "PANE_WIDTH",
    "__version__",
    "assert_close",
    "draw_autograd_graph",
    "draw_tf_graph",
    "on_this_version",
    "parity_report",
    "provenance",
    "report_versions",
    "require_frameworks",
    "seed_everything",
    "show_error",
    "start_lesson",
    "tf_device",
    "time_call",
    "torch_device",
    "wrap",
]
