"""A broken claim fails naming itself, and every line of code fits its pane."""

import os
import subprocess
import sys

from conftest import GALLERY_SCRIPTS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import lint_panes  # noqa: E402

# Each script on its own, as a reader runs it, is tested from the built site's downloads in a fresh
# environment (tests/test_reader.py); all in one process, in two orders, by the shard-merge test
# (tests/test_build.py).


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
    assert "cheatsheet row 'convert_to_tensor ↔ numpy() / from_numpy'" in result.stderr
    assert "must share" in result.stderr


def test_every_line_of_code_in_a_pane_fits_the_pane(tmp_path):
    """`make lint` runs tools/lint_panes.py; the browser test checks the rendered panes too."""
    problems = [p for script in GALLERY_SCRIPTS for p in lint_panes.long_pane_lines(script)]
    assert not problems, "\n".join(problems)
    wide = tmp_path / "plot_wide.py"
    wide.write_text(
        '"""\nProbe\n=====\n"""\n\n# %%\n# **PyTorch (eager)**: a pane.\n'
        f"x = {'1 + ' * 30}1\n\n# %%\n# Not a pane.\ny = {'1 + ' * 30}1\n"
    )
    assert lint_panes.long_pane_lines(wide) == [f"{wide}:8: 125 > 64 characters in a pane"]


def test_no_cell_marker_is_swallowed_by_the_text_above_it():
    """A ``# %%`` right under a comment line is read as text ("%%" on the page, and a title
    under it merged into the paragraph): a blank line must separate them."""
    for script in GALLERY_SCRIPTS:
        lines = script.read_text().splitlines()
        for number, (above, line) in enumerate(zip(lines, lines[1:], strict=False), start=2):
            assert not (line.startswith("# %%") and above.startswith("#")), f"{script.name}:{number}"
