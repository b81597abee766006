"""The torch, TensorFlow and NumPy names in a lesson's code link to their API reference, for the
release the site is built with.

Each name that an example's code writes with its module (``tf.function``,
``torch.autograd.grad``, ``np.zeros``, ``nn.Linear`` after ``from torch import nn``) links to
the page that documents it, looked up in intersphinx inventories. This site keeps its own in
``docs/inventories/`` (``tools/make_inventories.py`` makes them), so the build needs no network.
Each inventory names the release it describes, and ``references`` makes the addresses from it:

==========  ====================================================================================
torch       ``https://docs.pytorch.org/docs/<major.minor>/``
numpy       ``https://numpy.org/doc/<major.minor>/``
tensorflow  ``https://www.tensorflow.org/api_docs/python/``: TensorFlow has no reference of its
            own for 2.21 (``/versions/`` lists releases up to r2.17); the unversioned one
            documents the newest release, 2.21.0 when the inventory was made.
==========  ====================================================================================

``CodeLinks`` (a post-transform) makes sphinx-gallery's code links: its names, its resolver, its
markup. sphinx-gallery 0.22 makes them by turning every token of a code block into a node of the
page, which every later pass walks (7 s of CPU for one language's build here:
sphinx_extensions.theme_fixes removes that pass); this writes each block as one piece of HTML.
It links decorators too (``@tf.function``: pygments' ``@tf`` token is one that sphinx-gallery
leaves plain). Only names written with their module link: a method called on a variable
(``y.backward()``) would need the value the variable held, and a lesson reuses ``x``, ``y`` and
``w`` in both panes (``inspect_global_variables`` stays off in ``docs/conf.py``).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

REFERENCES = {
    "torch": "https://docs.pytorch.org/docs/{minor}/",
    "numpy": "https://numpy.org/doc/{minor}/",
    "tensorflow": "https://www.tensorflow.org/api_docs/python/",
}


def inventory_release(inventory: Path) -> tuple[str, str]:
    """(project, version) from an inventory's header."""
    _, project, version = inventory.read_bytes().decode("latin-1").split("\n", 3)[:3]
    return project.removeprefix("# Project: "), version.removeprefix("# Version: ")


def references(folder: Path) -> dict[str, tuple[str, str]]:
    """``intersphinx_mapping``: each inventory in ``folder`` (beside ``conf.py``) with its
    release's reference."""
    mapping = {}
    for inventory in sorted(folder.glob("*.inv")):
        project, version = inventory_release(inventory)
        minor = ".".join(version.split(".")[:2])
        path = inventory.relative_to(folder.parent).as_posix()  # Sphinx reads it from docs/
        mapping[project] = (REFERENCES[project].format(minor=minor), path)
    return mapping


class CodeLinks(SphinxPostTransform):
    """Each Python code block of a gallery page as highlighted HTML with its names linked."""

    default_priority = 5  # where sphinx-gallery's own pass ran
    formats = ("html",)

    def run(self, **kwargs) -> None:
        # sphinx-gallery's own pieces (0.22, pinned in requirements/docs.txt; a test samples links)
        from sphinx_gallery._doctree_links import _lexer_name, _load_code_obj, _Resolver

        docname = self.env.path2doc(self.document["source"])
        code_obj = _load_code_obj(self.env, docname) if docname else None
        if not code_obj:
            return
        builder = (getattr(self.env, "_app", None) or self.app).builder
        resolver = _Resolver(self.env, builder, docname, self.config.sphinx_gallery_conf)

        def href(link: dict) -> str:
            found = link["found"]
            if found.uri is not None:
                return found.uri
            same = found.docname == docname
            page = "" if same else builder.get_relative_uri(docname, found.docname)
            return page + (f"#{found.node_id}" if found.node_id else "")

        for block in list(self.document.findall(nodes.literal_block)):
            language = block.get("language") or "default"
            lexer = _lexer_name(language, block.rawsource)
            if lexer is None or block.get("linenos"):
                continue
            code = "".join(linked_html(block.rawsource, lexer, code_obj, resolver.resolve, href))
            classes = " ".join([f"highlight-{language}", "notranslate", *block["classes"]])
            div = f'<div class="{classes}"><div class="highlight"><pre>{code}</pre></div></div>\n'
            block.replace_self(nodes.raw(block.rawsource, div, format="html"))


def linked_html(code: str, lexer: str, code_obj: dict, resolve, href):
    """The HTML of a block's pygments tokens, the longest dotted name that resolves at each place
    linked (sphinx-gallery's ``_tokenize_and_link``, writing markup instead of nodes)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Name, Operator
    from sphinx_gallery._doctree_links import _dotted_chain, _pygments_class

    def span(ttype, text: str) -> str:
        css = _pygments_class(ttype)
        return f'<span class="{css}">{escape(text, False)}</span>' if css else escape(text, False)

    def anchor(link: dict, inner: str) -> str:
        # A name found by its imports alone is the class itself, not an instance of it
        # (sphinx-gallery says "instance" whenever it cannot tell, and drops the underline).
        css = [c for c in link["classes"] if c != "sphx-glr-backref-instance"]
        css = " ".join([*css, "reference", "external"])
        title = escape(link["title"])
        return f'<a class="{css}" href="{escape(href(link))}" title="{title}">{inner}</a>'

    def longest_link(tokens: list, i: int) -> tuple[dict | None, int]:
        for written, length in _dotted_chain(tokens, i):
            link = resolve(code_obj[written]) if written in code_obj else None
            if link is not None:
                return link, length
        return None, 1

    tokens = list(get_lexer_by_name(lexer).get_tokens(code))
    i, previous = 0, None  # the last token that is not whitespace
    while i < len(tokens):
        ttype, text = tokens[i]
        link, length = None, 1
        if ttype in Name.Decorator and text.startswith("@"):  # "@tf" "." "function"
            name = [*tokens[:i], (ttype, text[1:]), *tokens[i + 1 :]]
            link, length = longest_link(name, i)
            if link is not None:
                inner = "".join(span(*token) for token in name[i : i + length])
                yield span(ttype, "@") + anchor(link, inner)
                i, previous = i + length, tokens[i + length - 1]
                continue
        if ttype in Name and previous != (Operator, "."):  # not the `b` of `a().b`
            link, length = longest_link(tokens, i)
        if link is None:
            yield span(ttype, text)
            previous = tokens[i] if text.strip() else previous
            i += 1
        else:
            yield anchor(link, "".join(span(*token) for token in tokens[i : i + length]))
            i, previous = i + length, tokens[i + length - 1]


def setup(app):
    app.setup_extension("sphinx.ext.intersphinx")  # what the code links look up
    app.add_post_transform(CodeLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
