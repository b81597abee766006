"""Printing on a page: an error that a call must raise, long text wrapped to the pane, the
blocks that hold what differs by machine or by release, and prose marked for translation."""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Collection

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


def prose(text: str) -> str:
    """One phrase to translate, as HTML: a translated page replaces each ``sbs-t`` span's text
    (``sphinx_extensions/languages.py``). Plain text only (escaped here), never code or markup."""
    return f'<span class="sbs-t">{html.escape(text)}</span>'


def hidden(phrases: Collection[str]) -> str:
    """``phrases`` as hidden :func:`prose`: each reaches the catalogue of translations even where
    this run did not show it (a value another machine prints)."""
    return f"<div hidden>{''.join(prose(phrase) for phrase in phrases)}</div>"


def marked(text: str, phrases: Collection[str]) -> str:
    """``text`` as HTML: each of ``phrases`` in it (as whole words) :func:`prose`, the rest (names,
    numbers) escaped as it is."""
    pattern = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    parts = re.split(rf"((?<![\w'])(?:{pattern})(?![\w']))", text)
    return "".join(prose(part) if part in phrases else html.escape(part) for part in parts)


def show_error(
    error_type, call, *args, indent: str = "", cut: str | None = None, **kwargs
) -> None:
    """Call ``call(*args, **kwargs)``, which must raise ``error_type`` (a class, or a tuple of
    them where the class differs by device or release); print the error's type
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
    names = " or ".join(t.__name__ for t in (error_type if isinstance(error_type, tuple)
                                               else (error_type,)))
    raise AssertionError(f"{names} expected, but the call raised nothing")


#: The heading of a block of output that differs by machine ("On this machine (oneDNN on):") or
#: by release ("On this version (torch 2.15):"); the indented lines under it belong to it.
VARYING_BLOCK = re.compile(r"On this (machine|version) \(([^)]*)\):")


def on_this_version(*modules: str) -> str:
    """The heading of a block whose lines depend on the release, naming each module's
    major.minor version: ``On this version (torch 2.15):``. Print the block's lines indented."""
    import importlib

    versions = []
    for name in modules:
        version = importlib.import_module(name).__version__
        versions.append(f"{name} {'.'.join(version.split('+')[0].split('.')[:2])}")
    return f"On this version ({', '.join(versions)}):"


def without_varying_blocks(text: str) -> list[str]:
    """The lines of ``text`` outside the blocks that differ by machine or by release (a heading
    matching :data:`VARYING_BLOCK` and the indented lines under it): what two runs on other
    machines or releases must print alike."""
    kept, inside = [], False
    for line in text.splitlines():
        inside = bool(VARYING_BLOCK.match(line)) or (inside and line.startswith(" "))
        if not inside:
            kept.append(line)
    return kept
