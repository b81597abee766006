import random

import numpy as np
import pytest
import tensorflow as tf
import torch
from conftest import ROOT

import sidebyside
from sidebyside import device


def test_devices_match_the_hardware():
    assert sidebyside.torch_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    assert sidebyside.tf_device() == ("/GPU:0" if has_gpu else "/CPU:0")
    torch.zeros(1, device=sidebyside.torch_device())  # the chosen device really works
    with tf.device(sidebyside.tf_device()):
        tf.zeros(1)


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
    assert "torch==9.9.9 is required, found 2.13.0" in message
    assert sidebyside.INSTALL_LINE in message


def test_required_versions_are_the_pins_of_the_package():
    """One truth: the versions checked at build time are those the package installs."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["cpu"]
    assert f"torch=={device.REQUIRED['torch']}" in requirements
    assert any(
        r.startswith(f"tensorflow-cpu=={device.REQUIRED['tensorflow']}") for r in requirements
    )
