"""Sphinx configuration for sidebyside: static vs dynamic computation graphs, side by side."""

import sys
from pathlib import Path

import sidebyside

DOCS = Path(__file__).parent
sys.path.insert(0, str(DOCS.parent))  # the site's extensions: sphinx_extensions/, one module per job

# -- Project ---------------------------------------------------------------------------------------
project = "sidebyside"
# Where the site is hosted (`sidebyside_baseurl`) and the GitHub repository whose `colab` branch
# "Open in Colab" opens (`sidebyside_repo`): a fork's CI sets them (tools/site_build.py passes
# SIDEBYSIDE_BASEURL and SIDEBYSIDE_REPO on). html_baseurl and what follows from it are set per
# language by sphinx_extensions/build_modes.py.
author = "the sidebyside authors"
copyright = "2026, the sidebyside authors"

# -- Languages -------------------------------------------------------------------------------------
# English at the site root, Chinese under zh_CN/, from one source: the Chinese build translates the
# English pages with the catalogues in docs/locale (gettext, kept up to date by `make gettext`).
# `make html` builds English first, executing every example, then Chinese, reusing those outputs.
# A translation is built with `-D language=zh_CN` (tools/site_build.py).
LANGUAGES = {"en": "", "zh_CN": "zh_CN/"}  # language: folder under the site root
language = "en"
locale_dirs = ["locale/"]
gettext_compact = (
    "sidebyside"  # one catalogue for the whole site: docs/locale/zh_CN/LC_MESSAGES/sidebyside.po
)
gettext_location = False  # no line numbers: catalogues change only when the text does
gettext_uuid = False
sidebyside_languages = LANGUAGES  # the header's language switch and the hreflang links

# -- Extensions ------------------------------------------------------------------------------------
extensions = [
    "myst_nb",
    # Before the gallery: sphinx-sitemap forks a multiprocessing Manager when the builder starts,
    # and the gallery executes every example then too. Listed after it, the fork copied a process
    # holding both frameworks and their thread pools (the build's peak: 1,615 → 1,572 MiB).
    "sphinx_sitemap",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinxext.opengraph",
    "notfound.extension",
    # The site's own, one job each (sphinx_extensions/__init__.py lists them):
    "sphinx_extensions.build_modes",
    "sphinx_extensions.panes",
    "sphinx_extensions.lesson_layout",
    "sphinx_extensions.course",
    "sphinx_extensions.example_checks",
    "sphinx_extensions.notebook_pages",
    "sphinx_extensions.figures",
    "sphinx_extensions.figure_words",
    "sphinx_extensions.downloads",
    "sphinx_extensions.translated_downloads",
    "sphinx_extensions.languages",
    "sphinx_extensions.site_files",
    "sphinx_extensions.stylesheets",
    "sphinx_extensions.paint_early",
    "sphinx_extensions.theme_fixes",
    "sphinx_extensions.shards",
    "sphinx_extensions.api_links",
]
exclude_patterns = [
    "_build",
    # sphinx-gallery writes a notebook beside each page it generates; they are downloads, not pages.
    "auto_examples/**/*.ipynb",
    "auto_examples/*.ipynb",
    "jupyter_execute",
    "gen_modules",
]
nitpicky = True

# -- Gallery ---------------------------------------------------------------------------------------
# What runs (every example, the edit loop's, a shard's, none) is a build mode, applied by
# sphinx_extensions/build_modes.py to the settings below before sphinx-gallery reads them.
FIRST_NOTEBOOK_CELL = """\
# Installs this site's helpers and, unless both are here already (as on Colab, where they stay),
# the PyTorch and TensorFlow every page was built with. A GPU machine: "[cuda]" for "[cpu]".
import importlib.util

if importlib.util.find_spec("torch") and importlib.util.find_spec("tensorflow"):
    %pip install "sidebyside=={version}"
else:
    %{line}
import sidebyside  # before TensorFlow: it loads triton first, where torch brought it

sidebyside.report_versions()"""
sphinx_gallery_conf = {
    "examples_dirs": ["../gallery"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",  # build_modes: a shard's slice, or none on a translation
    "backreferences_dir": "gen_modules/backreferences",
    # Order comes from file names, never from length (build_modes: a shard's, last name first).
    "within_subsection_order": "FileNameSortKey",
    "subsection_order": None,
    "run_stale_examples": False,  # what runs is chosen by forgetting md5s (build_modes)
    "reset_modules": ("matplotlib",),  # sphinx_extensions.example_checks adds its own hook
    "reset_modules_order": "both",
    "capture_repr": ("_repr_html_", "__repr__"),
    "remove_config_comments": True,
    # Code names link to the API reference by their imports alone (`torch.autograd.grad`,
    # `tf.function`): not by each example's globals after it ran, whose values a lesson reuses
    # across panes (`y.backward` would link wherever `y` ended up; slow, and PyTorch warns on a
    # non-leaf `.grad`). sphinx_extensions.api_links.
    "inspect_global_variables": False,
    "write_computation_times": False,  # its page pulls jQuery and DataTables from CDNs
    "show_memory": False,
    "min_reported_time": 0,
    "download_all_examples": True,
    # Each figure twice, for the theme's light and dark modes (sphinx_extensions/figures.py).
    "image_scrapers": ("sphinx_extensions.figures.light_and_dark_scraper",),
    # A downloaded notebook installs what it needs first (the .py gets the same line: sphinx_extensions.downloads):
    # the pinned frameworks, unless both are there already (Colab's stay when in range).
    "first_notebook_cell": FIRST_NOTEBOOK_CELL.format(
        version=sidebyside.__version__, line=sidebyside.INSTALL_LINE
    ),
}

# -- API links -------------------------------------------------------------------------------------
# Every torch, TensorFlow and NumPy name in a lesson's code links to its reference for the pinned
# release (sphinx-gallery's code links, made by sphinx_extensions.api_links). The inventories are
# kept in docs/inventories, so the build needs no network: tools/make_inventories.py remakes them
# (README, "API links").
from sphinx_extensions.api_links import references  # noqa: E402

intersphinx_mapping = references(DOCS / "inventories")

# -- Executed notebook pages (MyST) ----------------------------------------------------------------
# sphinx_extensions.notebook_pages executes every notebook page in a process of its own while the gallery executes,
# and fills this cache; myst-nb then reads the fresh outputs from it.
nb_execution_mode = "cache"  # build_modes: "off" on a shard, which executes gallery scripts only
nb_execution_raise_on_error = True
nb_execution_timeout = 120
nb_merge_streams = True
myst_enable_extensions = ["colon_fence"]

# -- HTML ------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "sidebyside"
html_static_path = ["_static"]
templates_path = ["_templates"]
html_logo = "_static/logo.svg"
html_favicon = "_static/logo.svg"
html_theme_options = {
    "secondary_sidebar_items": {  # patterns that do not overlap (the theme warns when they do)
        "*": ["page-toc"],
        "auto_examples/*": ["page-toc", "sg_download_links"],
        "auto_examples/*/index": ["page-toc", "sg_download_links"],
        "auto_examples/*/plot_*": ["sbs-lessons", "page-toc", "sg_download_links"],
        "index": [],
    },
    "article_header_end": ["sbs-lesson-nav"],
    "navigation_with_keys": False,
    "navbar_end": ["language-switcher", "theme-switcher", "navbar-icon-links"],
    "show_prev_next": True,
}
# Example pages drop the section navigation so the two panes get the width (prev/next stay).
html_sidebars = {"index": [], "auto_examples/*/plot_*": []}
html_show_sourcelink = False
# Without it, a first visit logs "Got invalid theme mode" in the console (pydata-sphinx-theme 0.24).
html_context = {"default_mode": "auto"}

# -- How the site introduces itself: descriptions, social cards, sitemap, 404 ----------------------
# The addresses (site URL, card image, the 404 page's prefix) follow the language: build_modes.
ogp_site_name = "sidebyside"
ogp_image_alt = "sidebyside: a TensorFlow graph and a PyTorch autograd graph, side by side"
ogp_social_cards = {"enable": False}  # one site image; per-page cards would render with matplotlib
ogp_custom_meta_tags = ('<meta name="twitter:card" content="summary_large_image" />',)
sitemap_url_scheme = "{link}"
