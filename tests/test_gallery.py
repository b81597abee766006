"""Every gallery script runs on its own, and all of them run in one process in either order."""

import json
import os
import subprocess
import sys

import pytest
from conftest import GALLERY_SCRIPTS, ROOT

# Pages whose printed output is a measurement and so differs from run to run.
MEASURED = ("benchmark",)


@pytest.mark.parametrize("script", GALLERY_SCRIPTS, ids=lambda path: path.stem)
def test_script_runs_standalone(script):
    """As a reader runs a downloaded script: its own process, its own folder, no display."""
    env = {**os.environ, "MPLBACKEND": "Agg", "TF_CPP_MIN_LOG_LEVEL": "2"}
    result = subprocess.run(
        [sys.executable, script.name], cwd=script.parent, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, f"{script.name} failed:\n{result.stderr[-5000:]}"


RUN_ALL = """
import contextlib, io, json, runpy, sys, os
import matplotlib.pyplot as plt
import sidebyside
from sidebyside.parity import reset_parity_log
outputs = {}
for path in sys.argv[1:]:
    sidebyside.seed_everything(0)  # as the build does before every example
    reset_parity_log()
    os.chdir(os.path.dirname(path))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    plt.close("all")
    outputs[os.path.basename(path)] = buffer.getvalue()
print(json.dumps(outputs))
"""


def run_in_one_process(scripts):
    result = subprocess.run(
        [sys.executable, "-c", RUN_ALL, *map(str, scripts)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 0, result.stderr[-5000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_order_does_not_change_any_output():
    """No example leaks into the next: forward and reverse order print the same thing."""
    forward = run_in_one_process(GALLERY_SCRIPTS)
    reverse = run_in_one_process(reversed(GALLERY_SCRIPTS))
    for name, text in forward.items():
        if not any(word in name for word in MEASURED):
            assert reverse[name] == text, f"{name} prints something else when run after the others"


def test_a_broken_cheatsheet_claim_fails_naming_its_row(tmp_path):
    """torch.tensor copies where torch.from_numpy shares memory: the row's own check must catch it."""
    original = ROOT / "gallery" / "30_reference" / "plot_10_tensor_cheatsheet.py"
    source = original.read_text(encoding="utf-8")
    assert "d = torch.from_numpy(c)" in source
    broken = tmp_path / original.name
    broken.write_text(source.replace("d = torch.from_numpy(c)", "d = torch.tensor(c)"))
    env = {**os.environ, "MPLBACKEND": "Agg", "TF_CPP_MIN_LOG_LEVEL": "2"}
    result = subprocess.run(
        [sys.executable, broken.name], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "cheatsheet row 'numpy() / from_numpy" in result.stderr
    assert "must share" in result.stderr
