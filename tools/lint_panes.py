"""Lint: code in a TensorFlow or PyTorch pane fits its pane (64 characters a line).

At 1280 px the two panes are 64 characters wide; a longer line scrolls sideways and hides the
line ends that differ between the frameworks. Usage: ``python tools/lint_panes.py [files...]``
(default: every gallery script); prints ``file:line: …`` for each long line, exits 1 if any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sidebyside.show import PANE_WIDTH  # the pages wrap their messages to it too

from sphinx_gallery.py_source_parser import split_code_and_text_blocks

# The same rule as sphinx_extensions/panes.py: a cell whose text opens with **TensorFlow…** or
# **PyTorch…** is a pane.
PANE_TEXT = re.compile(r"\s*\*\*(TensorFlow|PyTorch)\b")
ROOT = Path(__file__).resolve().parents[1]


def long_pane_lines(script: Path) -> list[str]:
    """``file:line: n characters`` for each code line in a pane that is wider than the pane."""
    _, blocks = split_code_and_text_blocks(str(script))
    name = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    problems, in_pane = [], False
    for kind, content, first_line in blocks:
        if kind == "text":
            in_pane = bool(PANE_TEXT.match(content))
            continue
        if in_pane:
            for offset, line in enumerate(content.splitlines()):
                if len(line) > PANE_WIDTH:
                    problems.append(
                        f"{name}:{first_line + offset}: {len(line)} > "
                        f"{PANE_WIDTH} characters in a pane"
                    )
        in_pane = False
    return problems


def main(paths: list[str]) -> int:
    scripts = [Path(p).resolve() for p in paths] or sorted((ROOT / "gallery").rglob("plot_*.py"))
    problems = [problem for script in scripts for problem in long_pane_lines(script)]
    print("\n".join(problems) or f"{len(scripts)} scripts: every pane line fits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
