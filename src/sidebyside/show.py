"""Printing on a page: an error that a call must raise, and long text, wrapped to the pane."""

from __future__ import annotations

import textwrap

PANE_WIDTH = 64  # characters a line in a TensorFlow or PyTorch pane at 1280 px


def wrap(text: str, indent: str = "", hang: str = "", width: int = PANE_WIDTH) -> str:
    """``text`` wrapped to the pane's width, every line starting with ``indent``, and the lines
    after the first with ``hang`` more."""
    return textwrap.fill(
        " ".join(text.split()),
        width,
        initial_indent=indent,
        subsequent_indent=indent + hang,
    )


def show_error(
    error_type, call, *args, indent: str = "", cut: str | None = None, **kwargs
) -> None:
    """Call ``call(*args, **kwargs)``, which must raise ``error_type``; print the error's type
    and the first line of its message (up to ``cut``, where given: " (" drops a parenthesis,
    " Hint:" a hint), wrapped to the pane with a hanging indent. Returns nothing, so that a
    call ending a notebook cell or a gallery block shows no ``Out``.

    Raises ``AssertionError`` if the call raises nothing (another error propagates as it is).
    """
    try:
        call(*args, **kwargs)
    except error_type as error:
        line = (str(error).strip().splitlines() or [""])[0]
        if cut:
            line = line.split(cut)[0]
        print(wrap(f"{type(error).__name__}: {line}", indent, hang="  "))
        return
    raise AssertionError(f"{error_type.__name__} expected, but the call raised nothing")
