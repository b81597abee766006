import sidebyside
from sidebyside.parity import max_relative_error, to_numpy

import numpy as np
import pytest
import tensorflow as tf
import torch


def test_close_values_pass_and_report_the_error():
    error = sidebyside.assert_close(
        tf.constant([1.0, 2.0]), torch.tensor([1.0, 2.0000001]), what="v"
    )
    assert 0 <= error < 1e-6


def test_different_values_fail_naming_the_quantity():
    with pytest.raises(AssertionError, match="dy/dw: TensorFlow and PyTorch disagree"):
        sidebyside.assert_close(tf.constant(5.0), torch.tensor(4.0), what="dy/dw")


def test_different_shapes_fail_even_when_values_broadcast():
    with pytest.raises(
        AssertionError, match=r"shapes differ, TensorFlow \(2,\) vs PyTorch \(1, 2\)"
    ):
        sidebyside.assert_close(tf.ones(2), torch.ones(1, 2), what="m")


def test_tolerance_depends_on_device():
    tf_value, torch_value = tf.constant(1.0), torch.tensor(1.0005)
    with pytest.raises(AssertionError):
        sidebyside.assert_close(tf_value, torch_value, what="x", device="cpu")
    sidebyside.assert_close(tf_value, torch_value, what="x", device="cuda")


def test_to_numpy_handles_grad_tensors_and_tf_tensors():
    w = torch.tensor([1.0], requires_grad=True) * 2
    assert to_numpy(w).tolist() == [2.0]
    assert to_numpy(tf.constant([3.0])).tolist() == [3.0]
    assert max_relative_error(np.array([2.0]), np.array([2.2])) == pytest.approx(0.1)
    # relative to the tensor's scale: a near-zero element does not blow the error up
    assert max_relative_error(np.array([10.0, 1e-9]), np.array([10.0, 2e-9])) < 1e-9


def test_parity_report_names_the_worst_check():
    sidebyside.start_lesson()
    assert "No TensorFlow-vs-PyTorch" in repr(sidebyside.parity_report())
    sidebyside.assert_close(tf.constant(1.0), torch.tensor(1.0), what="exact")
    sidebyside.assert_close(tf.constant(2.0), torch.tensor(2.000001), what="rounded")
    report = sidebyside.parity_report()
    assert repr(report).startswith("TensorFlow-vs-PyTorch checks passed: 2. Worst relative error")
    assert "(rounded)" in repr(report) and 'class="sbs-parity"' in report._repr_html_()
    # On the page, the prose is marked for translation, the numbers and names are not.
    assert '<span class="sbs-t">Worst relative error:</span> ' in report._repr_html_()


def test_the_tolerance_follows_the_device_the_tensors_are_on():
    from sidebyside.parity import computed_on

    assert computed_on(tf.constant(1.0), torch.tensor(1.0)) == "cpu"
    assert computed_on(np.ones(2), [1.0]) == "cpu"

    class OnGpu:  # what a CUDA tensor reports, without needing a GPU here
        device = torch.device("cuda", 0)

    assert computed_on(tf.constant(1.0), OnGpu()) == "cuda"
    assert sidebyside.parity.tolerance(OnGpu()) == sidebyside.parity.TOLERANCES["cuda"]
    assert sidebyside.parity.tolerance(torch.ones(1)) == sidebyside.parity.TOLERANCES["cpu"]
    if torch.cuda.is_available():
        assert computed_on(torch.ones(1, device="cuda")) == "cuda"


def test_a_lesson_starts_with_a_fresh_parity_log_and_seeds():
    sidebyside.assert_close(tf.constant(1.0), torch.tensor(1.0), what="an earlier lesson's")
    sidebyside.start_lesson(3)
    first = torch.rand(2)
    assert "No TensorFlow-vs-PyTorch" in repr(sidebyside.parity_report())
    sidebyside.start_lesson(3)
    assert torch.equal(torch.rand(2), first)


def test_every_lesson_prepares_itself_before_anything_else():
    """The first call a gallery script makes after its imports is ``sidebyside.start_lesson()``:
    the build, the benchmark and a reader's download then run it prepared alike."""
    import ast

    from conftest import GALLERY_SCRIPTS

    for script in GALLERY_SCRIPTS:
        calls = [statement for statement in ast.parse(script.read_text()).body
                 if any(isinstance(node, ast.Call) for node in ast.walk(statement))]
        first = ast.unparse(calls[0]) if calls else ""
        assert first == "sidebyside.start_lesson()", f"{script.name} starts with {first!r}"
