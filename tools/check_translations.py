"""Check the Chinese catalogues: complete, code and numbers untouched, one vocabulary.

Usage: ``python tools/check_translations.py [file.po ...]`` (default: every catalogue under
docs/locale/zh_CN). Prints ``file: problem: message`` lines and exits 1 if there is any.
``make test`` runs the same checks (tests/test_i18n.py), and GNU ``msgfmt --check``.
``--drop-obsolete`` (``make gettext`` runs it) removes the ``#~`` entries of messages the English
no longer has: msgfmt rejects a catalogue where one repeats a live message.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
CATALOGUES = ROOT / "docs" / "locale" / "zh_CN" / "LC_MESSAGES"

# The site's vocabulary (docs/glossary.md): wherever a message uses the English term, its
# translation uses this Chinese one.
TERMS = {
    "computation graph": "计算图",
    "static graph": "静态图",
    "dynamic graph": "动态图",
    "leaf tensor": "叶子节点",
    "automatic differentiation": "自动微分",
    "backpropagation": "反向传播",
    "eager execution": "即时执行",
    "tracing": "追踪",
    "retracing": "重新追踪",
    "graph break": "图中断",
    "gradient tape": "梯度带",
    "placeholder": "占位符",
    "saved tensor": "保存的张量",
    "concrete function": "具体函数",
    "input signature": "输入签名",
    "function library": "函数库",
    "fake tensor": "伪张量",
    "activation checkpointing": "激活检查点",
}
# Words that are not the glossary's but had two renderings in the catalogue (the Chinese review's
# list): one each.
VOCABULARY = {
    "eager(?! execution)": "即时模式",
    "cold compile": "冷编译",
    "pack hook": "打包钩子",
    "unpack hook": "解包钩子",
    "temporary folder": "临时文件夹",
    "oneDNN ops": "算子",
}
# A "Going deeper" section is folded by its title's start (sphinx_extensions/lesson_layout.py).
GOING_DEEPER = ("Going deeper", "深入")
# A pane's label must start with the framework's name (sphinx_extensions/panes.py).
PANE_LABEL = re.compile(r"^\*\*(TensorFlow|PyTorch)\b")
# What stays exactly as in the English: inline code (``x`` in reST, `x` in Markdown), the target
# of a cross-reference or link (its <label>; the text before it is translated), and numbers.
ROLE = re.compile(r"(?:\{[\w:+-]+\}|:[\w:+-]+:)`([^`]*)`|`([^`]*<[^<>`]+>)`__?")
CODE = re.compile(r"``.+?``|(?<!`)`[^`]+?`(?!`)")
# A number: not part of a name (ASCII letters; a Chinese character next to it is fine), and a
# full stop after it may end the sentence.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?:e-?\d+)?(?![A-Za-z0-9_]|\.\d)")


def _split(text: str) -> tuple[list[str], str]:
    """The parts of ``text`` that must not change, and the text without them."""
    kept = []

    def target(match: re.Match) -> str:
        inner = match[1] if match[1] is not None else match[2]
        label = re.search(r"<[^<>]+>\s*$", inner)
        kept.append(label[0].strip() if label else match[0])  # :ref:`sources` stays whole
        return " "

    text = ROLE.sub(target, text)
    kept += CODE.findall(text)
    return kept, CODE.sub(" ", text)


def _markup(text: str) -> list[str]:
    """The inline markup that reST finds in ``text``: breaking it shows backticks to readers."""
    from docutils import nodes
    from docutils.core import publish_doctree

    settings = {"report_level": 5, "halt_level": 5}  # roles such as :ref: are unknown here
    tree = publish_doctree(text, settings_overrides=settings)
    kinds = (nodes.literal, nodes.emphasis, nodes.strong, nodes.reference, nodes.problematic)
    return sorted(type(node).__name__ for node in tree.findall(lambda n: isinstance(n, kinds)))


def problems_in(path: Path) -> list[str]:
    """Every problem of one catalogue, one line each."""
    with path.open("rb") as handle:
        catalogue = read_po(handle)
    name = path.relative_to(CATALOGUES) if path.is_relative_to(CATALOGUES) else path
    found = []
    for message in catalogue:
        source, translation = message.id, message.string
        if not source:
            continue  # the header
        short = source if len(source) < 70 else source[:67] + "..."
        if not translation:
            found.append(f"{name}: untranslated: {short!r}")
            continue
        if message.fuzzy:
            found.append(f"{name}: fuzzy (the English changed): {short!r}")
        kept, prose = _split(source)
        for literal in kept:
            if literal not in translation:
                found.append(f"{name}: code {literal!r} changed or missing: {short!r}")
        numbers = sorted(NUMBER.findall(prose))
        if numbers != sorted(NUMBER.findall(_split(translation)[1])):
            found.append(f"{name}: numbers differ {numbers}: {short!r}")
        restructured = "``" in source or re.search(r"(?<![}\w]):\w+:`", source)  # gallery text
        if restructured and _markup(source) != _markup(translation):
            found.append(f"{name}: inline markup lost (a space missing next to it?): {short!r}")
        english = prose.lower()
        for term, chinese in {**TERMS, **VOCABULARY}.items():
            if re.search(rf"\b{term.lower()}s?\b", english) and chinese not in translation:
                shown = term.split("(")[0]
                found.append(f"{name}: '{shown}' is not translated as {chinese}: {short!r}")
        if source.startswith(GOING_DEEPER[0]) and not translation.startswith(GOING_DEEPER[1]):
            found.append(f"{name}: a Going-deeper title must start with {GOING_DEEPER[1]}: {short!r}")
        pane = PANE_LABEL.match(source)
        if pane and not translation.startswith(f"**{pane[1]}"):
            found.append(f"{name}: a pane's label must start with **{pane[1]}: {short!r}")
    return found


def drop_obsolete(path: Path) -> None:
    from babel.messages.pofile import write_po

    with path.open("rb") as handle:
        catalogue = read_po(handle)
    catalogue.obsolete.clear()
    with path.open("wb") as handle:
        write_po(handle, catalogue, width=0, omit_header=False)


def main(paths: list[str]) -> int:
    if "--drop-obsolete" in paths:
        for path in sorted(CATALOGUES.rglob("*.po")):
            drop_obsolete(path)
        return 0
    files = [Path(p).resolve() for p in paths] or sorted(CATALOGUES.rglob("*.po"))
    found = [line for path in files for line in problems_in(path)]
    print("\n".join(found) or f"{len(files)} catalogues: complete and consistent")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
