"""Checks that the TensorFlow and PyTorch results agree."""

from __future__ import annotations

import html
from dataclasses import dataclass

from sidebyside.show import prose

import numpy as np

# float32 arithmetic with different kernels (oneDNN on CPU, cuDNN's algorithms on GPU, TF32 off in
# both: sidebyside.device) differs in the last bits; these tolerances are loose enough for that and tight enough to catch a wrong formula.
TOLERANCES = {"cpu": dict(rtol=1e-5, atol=1e-6), "cuda": dict(rtol=1e-3, atol=1e-5)}


def to_numpy(value) -> np.ndarray:
    """A NumPy copy of a TF tensor, a torch tensor (any device, with or without grad) or array."""
    if hasattr(value, "detach"):  # torch.Tensor
        value = value.detach().cpu()
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def max_relative_error(expected, actual) -> float:
    """Largest ``|expected - actual|``, relative to the largest ``|expected|`` (norm-wise).

    Relative to the tensor's scale rather than element by element, so that an element that is
    almost zero does not turn a rounding difference into a huge "relative" error.
    """
    expected, actual = to_numpy(expected).astype(np.float64), to_numpy(actual).astype(np.float64)
    scale = max(float(np.max(np.abs(expected), initial=0.0)), np.finfo(np.float32).tiny)
    return float(np.max(np.abs(expected - actual), initial=0.0)) / scale


def computed_on(*values) -> str:
    """``"cuda"`` if any of the values (TF or PyTorch tensors) lives on a GPU, else ``"cpu"``."""
    for value in values:
        device = getattr(value, "device", None)
        if getattr(device, "type", None) == "cuda" or "GPU" in str(device or ""):
            return "cuda"
    return "cpu"


def assert_close(
    tensorflow, pytorch, *, what: str, device: str | None = None, **tolerance
) -> float:
    """Assert a TF and a PyTorch result have equal shapes and close values; return the max rel. error.

    ``what`` names the quantity in the error message. The default tolerance follows where the two
    were computed (a GPU's kernels round otherwise: :data:`TOLERANCES`), read from the tensors;
    ``device`` ("cpu" or "cuda") says it for values that no longer know (NumPy arrays), and
    keyword arguments ``rtol``/``atol`` override it.
    """
    device = device or computed_on(tensorflow, pytorch)
    tf_value, torch_value = to_numpy(tensorflow), to_numpy(pytorch)
    if tf_value.shape != torch_value.shape:
        raise AssertionError(
            f"{what}: shapes differ, TensorFlow {tf_value.shape} vs PyTorch {torch_value.shape}"
        )
    tol = {**TOLERANCES["cuda" if device.startswith("cuda") else "cpu"], **tolerance}
    np.testing.assert_allclose(
        torch_value, tf_value, err_msg=f"{what}: TensorFlow and PyTorch disagree", **tol
    )
    error = max_relative_error(tf_value, torch_value)
    parity_log.record(what, error)
    return error


def tolerance(*values) -> dict[str, float]:
    """``rtol``/``atol`` for comparing ``values`` (tensors) with another result of the same
    computation: float32 rounding where they were computed (:data:`TOLERANCES`)."""
    return dict(TOLERANCES[computed_on(*values)])


@dataclass(frozen=True)
class ParityReport:
    """How many TF-vs-PyTorch checks passed on this page, and the worst relative error among them."""

    checks: tuple[tuple[str, float], ...]

    def _parts(self) -> list[tuple[str, str]]:
        """(prose, data) pairs: the prose is translated on a translated page, the data is not."""
        if not self.checks:
            return [("No TensorFlow-vs-PyTorch value checks on this page.", "")]
        what, worst = max(self.checks, key=lambda check: check[1])
        return [
            ("TensorFlow-vs-PyTorch checks passed:", f" {len(self.checks)}. "),
            ("Worst relative error:", f" {worst:.1e} ({what})."),
        ]

    def __repr__(self) -> str:
        return "".join(prose + data for prose, data in self._parts()).strip()

    def _repr_html_(self) -> str:
        text = "".join(
            f"{prose(words)}{html.escape(data)}" for words, data in self._parts()
        )
        return f'<p class="sbs-parity">{text}</p>'


class ParityLog:
    """The TF-vs-PyTorch checks of one lesson, in order: :func:`assert_close` records each,
    :func:`parity_report` sums them up, and ``sidebyside.start_lesson()`` clears the log."""

    def __init__(self) -> None:
        self._checks: list[tuple[str, float]] = []

    def record(self, what: str, error: float) -> None:
        self._checks.append((what, error))

    def clear(self) -> None:
        self._checks.clear()

    def report(self) -> ParityReport:
        return ParityReport(tuple(self._checks))


#: The log of the lesson running in this process.
parity_log = ParityLog()


def parity_report() -> ParityReport:
    """The lesson's checks so far: how many passed, and the worst relative error."""
    return parity_log.report()
