"""Two fixes to what the theme and sphinx-gallery do on every page.

* ``name_sidebar_toggles`` (``html-page-context``, after the theme's): the sidebar's
  expand/collapse buttons get an accessible name ("Pages under …"); the theme gives them only an
  icon.
* ``skip_code_links`` (at ``setup``): sphinx-gallery's pass that links code names to API pages
  is removed; sphinx_extensions.api_links makes the same links at a fraction of the cost.
"""

from __future__ import annotations


def name_sidebar_toggles(app, pagename, templatename, context, doctree) -> None:
    """Give each ``<summary>`` of the theme's sidebar navigation a name a screen reader can say."""
    make_toctree = context.get("generate_toctree_html")
    if make_toctree is None:
        return

    def named_toctree(*args, **kwargs):
        from bs4 import BeautifulSoup  # pydata-sphinx-theme's own dependency

        html = make_toctree(*args, **kwargs)
        soup = BeautifulSoup(str(html), "html.parser")
        for summary in soup.select("details > summary"):
            link = summary.find_parent("li").find("a", recursive=False)
            if not summary.get_text(strip=True) and link is not None:
                summary["aria-label"] = f"Pages under {link.get_text(' ', strip=True)}"
        return str(soup)

    context["generate_toctree_html"] = named_toctree


def skip_code_links(app) -> None:
    """sphinx-gallery 0.22 links names in code by turning every token of a block into a node of
    the page, which every later pass walks: ~0.3 s a page here (7 s of CPU for one language's
    build). sphinx_extensions.api_links writes the same links into one piece of HTML a block."""
    post_transforms = app.registry.post_transforms  # Sphinx's list; no public way to remove one
    post_transforms[:] = [t for t in post_transforms if t.__name__ != "CodeLinksTransform"]


def setup(app):
    skip_code_links(app)
    app.connect("html-page-context", name_sidebar_toggles, priority=600)  # after the theme's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
