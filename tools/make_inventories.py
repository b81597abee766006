"""The intersphinx inventories that link the gallery's torch, TensorFlow and NumPy names.

The site links each name an example's code writes with its module (``torch.autograd.grad``,
``tf.function``, ``np.array``, ``nn.Linear`` after ``from torch import nn``) to the page that
documents it, looked up in the inventories in docs/inventories/ (sphinx_extensions/api_links.py).
They hold the names the gallery writes and nothing else, so a build needs no network, and each
says the release it describes; the links go to that release's reference:

* torch and NumPy: where the pinned release's documentation puts each name, read from its own
  inventory (``--inventory torch=https://docs.pytorch.org/docs/2.15/objects.inv``) or, offline,
  from its sources (``--sources numpy=numpy/doc/source``: the page autosummary generates for a
  name, or autodoc's entry on a page); a name documented only under another name (``np.abs`` as
  ``numpy.absolute``, ``torch.inference_mode`` as ``torch.autograd.grad_mode.inference_mode``)
  links there;
* TensorFlow: its reference has no inventory, but a page's address follows the symbol's
  canonical name, which TensorFlow records with each symbol (``tf.tanh`` → ``tf/math/tanh``,
  ``tf.compat.v1.placeholder`` → ``tf/compat/v1/placeholder``); a method is an anchor on its
  class's page. Names without a page of their own (``tf.float32``, ``tf.newaxis``) get no link.

A name that no source documents gets no link (a wrong link is worse than none); neither does a
private one (``torch._dynamo.…``) unless documented under that name, nor a module of torch or
NumPy. The script prints what it linked and what not, and remakes only the inventories it is
given a source for (TensorFlow's always). Run it with the pinned frameworks installed
(``.venv``), after moving a pin or when lessons use new names (README, "API links")::

    .venv/bin/python tools/make_inventories.py \\
        --inventory torch=https://docs.pytorch.org/docs/2.16/objects.inv \\
        --inventory numpy=https://numpy.org/doc/2.5/objects.inv
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import re
import sys
import urllib.request
import warnings
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "docs" / "inventories"
FRAMEWORKS = ("torch", "tensorflow", "numpy")
# Directives that document one object on the page they are on (autodoc's and the py domain's).
OBJECT_DIRECTIVE = re.compile(
    r"^\.\. (?:py:)?(?:auto)?(function|class|exception|data|attribute|method|decorator)"
    r"::\s+([\w.]+)"
)
MODULE_DIRECTIVE = re.compile(r"^\.\. (?:py:)?(currentmodule|module|automodule)::\s+([\w.]+)")


# --- the names the gallery writes -------------------------------------------------------------


def gallery_names(gallery: Path = ROOT / "gallery") -> dict[str, set[str]]:
    """Each framework's names written in the examples' code, with the module the build sees
    (``np.zeros`` → ``numpy.zeros``): sphinx-gallery's own reading of the code, by imports alone,
    as the build does (``inspect_global_variables: False``)."""
    from sphinx_gallery.backreferences import NameFinder

    names: dict[str, set[str]] = {framework: set() for framework in FRAMEWORKS}
    for script in sorted(gallery.rglob("plot_*.py")):
        finder = NameFinder()
        finder.visit(ast.parse(script.read_text(encoding="utf-8")))
        for _, full_name, *_ in finder.get_mapping():
            root = full_name.split(".")[0]
            if root in names and "." in full_name:
                names[root].add(full_name)
    return names


def resolve(name: str):
    """The object a dotted name stands for, or None: attribute by attribute from the package,
    as code reaches it (``torch.autograd.gradcheck`` is the function), else from the longest
    module that imports (``torch.autograd.gradcheck.gradcheck``, in the module of that name)."""
    parts = name.split(".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in (1, *range(len(parts), 1, -1)):
            try:
                obj = importlib.import_module(".".join(parts[:start]))
                for part in parts[start:]:
                    obj = getattr(obj, part)
                return obj
            except Exception:  # noqa: BLE001, S112  (missing, moved, or refusing: try further)
                continue
    return None


def role(obj) -> str:
    if inspect.ismodule(obj) or type(obj).__name__ == "TFModuleWrapper":
        return "py:module"
    if inspect.isclass(obj):
        return "py:exception" if issubclass(obj, BaseException) else "py:class"
    if inspect.ismethod(obj):
        return "py:method"
    return "py:function" if callable(obj) else "py:data"


# --- where a documentation puts each name ------------------------------------------------------


def from_inventory(location: str) -> dict[str, tuple[str, str]]:
    """name → (role, address relative to the documentation's root), from an objects.inv."""
    from sphinx.util.inventory import InventoryFile

    if "://" in location:
        request = urllib.request.Request(location, headers={"User-Agent": "sidebyside"})
        with urllib.request.urlopen(request, timeout=60) as response:
            content = response.read()
    else:
        content = Path(location).read_bytes()
    entries = {}
    for objtype, items in InventoryFile.loads(content, uri="").data.items():
        if objtype.startswith("py:") and objtype != "py:module":
            for name, item in items.items():
                entries.setdefault(name, (objtype, item.uri))
    return entries


def from_sources(folder: Path, root: str) -> dict[str, tuple[str, str]]:
    """name → (role, address), from a documentation's reST and MyST sources: the stub page that
    autosummary generates for each name it lists under ``:toctree:``, and the anchor of each
    object that autodoc or the py domain documents on a page. The role is left to ``resolve``."""
    entries: dict[str, tuple[str, str]] = {}
    for source in sorted(folder.rglob("*")):
        if source.suffix not in (".rst", ".md", ".txt") or not source.is_file():
            continue
        page = source.relative_to(folder).as_posix().removesuffix(".txt")
        page = page.rsplit(".", 1)[0] + ".html"
        text = source.read_text(encoding="utf-8", errors="replace")
        myst = source.name.endswith((".md", ".md.txt"))
        lines = myst_as_rest(text) if myst else text.splitlines()
        for name, address in documented(lines, page, root):
            entries.setdefault(name, ("", address))
    return entries


def myst_as_rest(text: str) -> list[str]:
    """A MyST page's directives as reST: ```{eval-rst} blocks as they are, ```{name} arg
    blocks as ``.. name:: arg`` with their body indented; the prose dropped."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        start = re.match(r"^(`{3,}|:{3,})\{([\w:-]+)\}\s*(.*)$", lines[i].strip())
        if not start:
            i += 1
            continue
        fence, directive, argument = start.groups()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), len(lines))
        body = [line for line in lines[i + 1 : end]]
        if directive in ("eval-rst", "eval_rst"):
            out += body
        else:
            out.append(f".. {directive}:: {argument}")
            out += ["   " + line for line in body]
        out.append("")
        i = end + 1
    return out


def documented(lines: list[str], page: str, root: str):
    """(name, address) of every object one page documents (see ``from_sources``)."""
    folder = page.rsplit("/", 1)[0] + "/" if "/" in page else ""
    module = root
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if found := MODULE_DIRECTIVE.match(line):  # modules themselves are not linked
            module = found[2]
        elif found := OBJECT_DIRECTIVE.match(line):
            if not lines[i].startswith((" ", "\t")):  # a class's members are left out
                name = qualified(found[2], module, root)
                yield name, f"{page}#{name}"
        elif line.startswith(".. autosummary::"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            toctree, entries = None, []
            i += 1
            while i < len(lines) and (
                not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
            ):
                item = lines[i].strip()
                if item.startswith(":toctree:"):
                    toctree = item.removeprefix(":toctree:").strip().strip("/")
                elif item and not item.startswith((":", "..")):
                    entries.append(item.split()[0].lstrip("~"))
                i += 1
            for entry in entries if toctree else ():  # without a toctree: no page of its own
                name = qualified(entry, module, root)
                yield name, f"{folder}{toctree}/{name}.html#{name}"
            continue
        i += 1


def qualified(name: str, module: str, root: str) -> str:
    return name if name == root or name.startswith(root + ".") else f"{module}.{name}"


def locate(name: str, entries: dict[str, tuple[str, str]]) -> tuple[str, str, str] | None:
    """(documented name, role, address) for a name: documented as it is written, or as the
    object it stands for is documented (``numpy.abs`` is ``numpy.absolute``)."""
    obj = resolve(name)
    if name in entries:
        objtype, address = entries[name]
        return name, objtype or role(obj), address
    short = getattr(obj, "__name__", None)
    private = any(part.startswith("_") for part in name.split("."))
    if obj is None or private or not isinstance(short, str) or inspect.ismodule(obj):
        return None
    for other, (objtype, address) in entries.items():
        if other.rsplit(".", 1)[-1] == short.rsplit(".", 1)[-1] and resolve(other) is obj:
            return other, objtype or role(obj), address
    return None


# --- TensorFlow: the address follows the canonical name ----------------------------------------


def tensorflow_page(name: str) -> tuple[str, str] | None:
    """(role, address) of a ``tensorflow.…`` name in TensorFlow's reference, or None."""
    from tensorflow.python.util import tf_decorator, tf_export

    obj = resolve(name)
    path = name.split(".")[1:]
    if obj is None or any(part.startswith("_") for part in path):
        return None
    kind = role(obj)
    if kind == "py:module":
        try:
            dir(obj)  # a lazily loaded module that no longer loads (Keras 2's): no page to trust
        except Exception:  # noqa: BLE001
            return None
        return kind, "/".join(["tf", *path])
    if kind == "py:data":  # dtypes, tf.newaxis: listed on a module's page, no page of their own
        return None
    owner = resolve(name.rsplit(".", 1)[0])
    if inspect.isclass(owner):  # a method: an anchor on its class's page
        page = tensorflow_page(name.rsplit(".", 1)[0])
        return (kind, f"{page[1]}#{path[-1]}") if page else None
    if path[0] == "keras":  # Keras 3 names its symbols itself: the page is the name written
        return kind, "/".join(["tf", *path])
    # A TF2 symbol's page is its canonical TF2 name, whatever name the code wrote (tf.tanh and
    # tf.compat.v1.tanh are tf.math.tanh); a symbol of TF1 alone has the page of the compat.v1
    # name written (tf.compat.v1.global_variables_initializer, not initializers.global_variables).
    symbol = tf_decorator.unwrap(obj)[1]
    attributes = getattr(symbol, "__dict__", {})
    v2_names = attributes.get(tf_export.API_ATTRS[tf_export.TENSORFLOW_API_NAME].names, ())
    deprecated = attributes.get("_tf_deprecated_api_names", [])
    canonical = tf_export.get_canonical_name(v2_names, deprecated) if v2_names else None
    if canonical:
        return kind, "/".join(["tf", *canonical.split(".")])
    if path[:2] == ["compat", "v1"]:
        return kind, "/".join(["tf", *path])
    return None


# --- writing ----------------------------------------------------------------------------------


def write_inventory(path: Path, project: str, version: str, entries: dict[str, tuple[str, str]]):
    """A Sphinx inventory (version 2): name, role, address; ``$`` stands for the name."""
    lines = []
    for name, (objtype, address) in sorted(entries.items()):
        if address.endswith("#" + name):
            address = address[: -len(name)] + "$"
        lines.append(f"{name} {objtype} 1 {address} -\n")
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.write_bytes(header.encode() + zlib.compress("".join(lines).encode(), 9))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inventory", action="append", default=[], metavar="FRAMEWORK=URL|PATH")
    parser.add_argument("--sources", action="append", default=[], metavar="FRAMEWORK=FOLDER")
    args = parser.parse_args()
    where = {}
    for option in args.inventory:
        framework, location = option.split("=", 1)
        where[framework] = from_inventory(location)
    for option in args.sources:
        framework, folder = option.split("=", 1)
        where[framework] = from_sources(Path(folder), framework)
    INVENTORIES.mkdir(exist_ok=True)
    for framework, names in gallery_names().items():
        if framework != "tensorflow" and framework not in where:
            print(f"{framework}: kept as it is (give --inventory or --sources to remake it)")
            continue
        module = importlib.import_module(framework)
        version = module.__version__.split("+")[0]
        linked, unlinked = {}, []
        for name in sorted(names):
            if framework == "tensorflow":
                found = tensorflow_page(name)
                if found:
                    linked[name] = found
                else:
                    unlinked.append(name)
                continue
            found = locate(name, where[framework])
            if found is None:
                unlinked.append(name)
                continue
            documented_as, objtype, address = found
            linked[name] = (objtype, address)
            if documented_as != name:
                print(f"  {name} → documented as {documented_as}")
        write_inventory(INVENTORIES / f"{framework}.inv", framework, version, linked)
        print(f"{framework} {version}: {len(linked)} names linked, {len(unlinked)} not:")
        print("  " + " ".join(unlinked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
