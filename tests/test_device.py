import os
import random

import sidebyside
from sidebyside import device

import numpy as np
import pytest
import tensorflow as tf
import torch
from conftest import ROOT


def test_devices_match_the_hardware():
    assert sidebyside.torch_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    assert sidebyside.tf_device() == ("/GPU:0" if has_gpu else "/CPU:0")
    torch.zeros(1, device=sidebyside.torch_device())  # the chosen device really works
    with tf.device(sidebyside.tf_device()):
        tf.zeros(1)


def test_both_frameworks_compute_in_ieee_float32_on_a_gpu():
    """TF32 is off in both: PyTorch's cuDNN default and TensorFlow's, set by the two choosers."""
    sidebyside.torch_device(), sidebyside.tf_device()
    assert not torch.backends.cudnn.allow_tf32 and not torch.backends.cuda.matmul.allow_tf32
    assert not tf.config.experimental.tensor_float_32_execution_enabled()


def test_seed_everything_repeats_every_generator():
    def draw():
        return (
            random.random(),
            np.random.rand(),
            torch.rand(1).item(),
            tf.random.uniform(()).numpy(),
        )

    sidebyside.seed_everything(3)
    first = draw()
    sidebyside.seed_everything(3)
    assert draw() == first
    sidebyside.seed_everything(4)
    assert draw() != first


def test_require_frameworks_accepts_the_pinned_versions():
    sidebyside.require_frameworks()


def test_require_frameworks_names_package_version_and_fix(monkeypatch):
    monkeypatch.setitem(device.REQUIRED, "torch", "9.9.9")
    with pytest.raises(device.FrameworkError) as error:
        sidebyside.require_frameworks()
    message = str(error.value)
    assert f"torch==9.9.9 is required, found {device._installed_version('torch')}" in message
    assert sidebyside.INSTALL_LINE in message


def test_a_reader_s_own_framework_in_range_is_accepted_and_one_outside_is_named(monkeypatch):
    sidebyside.require_frameworks(exact=False)  # the installed, pinned torch is in range
    monkeypatch.setitem(device.SUPPORTED, "torch", ((9, 0), (10, 0)))
    found = device._installed_version("torch").replace("+", r"\+")
    with pytest.raises(device.FrameworkError, match=f"torch>=9.0,<10 is required, found {found}"):
        sidebyside.require_frameworks(exact=False)


def test_required_versions_are_the_pins_of_the_extras_and_the_ranges_of_the_package():
    """One truth: the versions checked at build time are those the install line installs, and
    the base package accepts the ranges device.SUPPORTED states (a reader's own torch stays)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for extra in ("cpu", "cuda"):
        assert f"torch=={device.REQUIRED['torch']}" in extras[extra]
    assert any(r.startswith(f"tensorflow-cpu=={device.REQUIRED['tensorflow']}") for r in extras["cpu"])
    (low_major, low_minor), (high, _) = device.SUPPORTED["torch"]
    assert f"torch>={low_major}.{low_minor},<{high}" in project["dependencies"]
    assert not any(r.startswith("tensorflow") for r in project["dependencies"])


def test_seeding_leaves_the_environment_alone(monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "12345")
    before = dict(os.environ)
    sidebyside.seed_everything(0)
    assert dict(os.environ) == before
