"""The site's Sphinx extensions, one job each; ``docs/conf.py`` lists them by name
(``sphinx_extensions.panes``, ...).

========================  ============================================================
``build_modes``           the build's modes (-D values): what runs, which language, where hosted
``panes``                 TensorFlow and PyTorch cells side by side on a gallery page
``lesson_layout``         "Going deeper" folded, no "Go to the end" box, figures open full size
``course``                the landing page's course map; a lesson's place, sidebar, Previous/Next
``example_checks``        each example checked for leaks and deprecations, and recorded as run
``notebook_pages``        the MyST notebook pages execute beside the gallery
``figures``               every figure in a light and a dark variant (colours: dark_colors)
``figure_words``          a figure's words drawn again in Chinese for the Chinese pages
``downloads``             the install line, the downloads' header, "Open in Colab"
``translated_downloads``  a translation's downloads and Colab notebooks, their text translated
``languages``             language links, translated thumbnails, Chinese search
``site_files``            robots.txt, one sitemap, the offline zip
``stylesheets``           one purged stylesheet per page, icon fonts cut to size
``paint_early``           lazy images and deferred scripts
``theme_fixes``           named sidebar toggles, sphinx-gallery's costly code-link pass removed
``api_links``             torch, TensorFlow and NumPy names in code linked to their pinned reference
``shards``                one gallery executed on several machines, then merged
========================  ============================================================

This module holds what several of them need to know about the build.
"""

from __future__ import annotations

from pathlib import Path

GALLERY_OUTPUT = "auto_examples"  # where sphinx-gallery writes the example pages (docs/)


def partial_build(config) -> bool:
    """The edit loop or the live preview (build modes ``sidebyside_example``,
    ``sidebyside_live``): only some pages change, nothing is final."""
    return bool(config.sidebyside_example or config.sidebyside_live)


def site_root(app) -> Path:
    """The folder of the whole site: this build's output, or its parent for a translation."""
    out = Path(app.outdir)
    return out.parent if app.config.language != "en" else out


def to_site_root(config, pagename: str) -> str:
    """The relative path from a page to the site root ("../" more for a translation's folder)."""
    folder = config.sidebyside_languages[config.language]  # {"en": "", "zh_CN": "zh_CN/"}
    return "../" * (pagename.count("/") + (1 if folder else 0))
