"""Sphinx configuration for sidebyside: static vs dynamic computation graphs, side by side."""

import os
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

import sidebyside

DOCS = Path(__file__).parent
sys.path.insert(0, str(DOCS.parent))  # the site's extensions: sphinx_extensions/, one module per job
from sphinx_extensions import shards  # noqa: E402  (one gallery built on several machines)

# Keep TensorFlow's C++ log lines out of the terminal and the pages.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("MPLBACKEND", "Agg")

# Stop at once, with the fix, if torch or TensorFlow is missing or the wrong version. The weekly
# check of new releases (tools/versions.py --prerelease) builds with any version in range.
sidebyside.require_frameworks(exact=os.environ.get("SIDEBYSIDE_ANY_VERSION") != "1")

# -- Project ---------------------------------------------------------------------------------------
project = "sidebyside"
# Where the site is hosted; a fork sets SIDEBYSIDE_BASEURL (the CI workflow takes it from GitHub
# Pages). Canonical links, the sitemap, robots.txt, social cards and the 404 page use it.
site_baseurl = os.environ.get("SIDEBYSIDE_BASEURL", "https://sidebyside.github.io/sidebyside/")
if not site_baseurl.endswith("/"):
    site_baseurl += "/"
# The GitHub repository (owner/name): "Open in Colab" opens each example's notebook from its
# `colab` branch, where the workflow publishes them (the workflow sets it to its own repository).
sidebyside_repo = os.environ.get("SIDEBYSIDE_REPO", "sidebyside/sidebyside")
author = "the sidebyside authors"
copyright = "2026, the sidebyside authors"

# -- Languages -------------------------------------------------------------------------------------
# English at the site root, Chinese under zh_CN/, from one source: the Chinese build translates the
# English pages with the catalogues in docs/locale (gettext, kept up to date by `make gettext`).
# `make html` builds English first, executing every example, then Chinese, reusing those outputs.
LANGUAGES = {"en": "", "zh_CN": "zh_CN/"}  # language: folder under the site root
language = os.environ.get("SIDEBYSIDE_LANG", "en")
if language not in LANGUAGES:
    raise ValueError(f"SIDEBYSIDE_LANG={language!r}: the site has {', '.join(LANGUAGES)}")
html_baseurl = site_baseurl + LANGUAGES[language]
locale_dirs = ["locale/"]
gettext_compact = (
    "sidebyside"  # one catalogue for the whole site: docs/locale/zh_CN/LC_MESSAGES/sidebyside.po
)
gettext_location = False  # no line numbers: catalogues change only when the text does
gettext_uuid = False
html_search_language = "zh" if language == "zh_CN" else "en"  # Chinese search splits with jieba
if language == "zh_CN":  # the glossary's terms are words of their own: a search for 计算图 finds it
    html_search_options = {"dict": str(DOCS / "locale" / "zh_CN" / "search_words.txt")}
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
    "sphinx_extensions.panes",
    "sphinx_extensions.lesson_layout",
    "sphinx_extensions.course",
    "sphinx_extensions.example_checks",
    "sphinx_extensions.notebook_pages",
    "sphinx_extensions.figures",
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
# sphinx-gallery re-executes a script when its md5 differs from the one saved at its last run, and
# otherwise keeps that run's outputs. So the configuration is the same for every kind of build
# (a changed configuration would make Sphinx re-read and re-write every page), and what runs is
# chosen by forgetting md5s:
# * `make html`: every script's md5 is forgotten, so every example is re-executed;
# * `make html EXAMPLE=autograd` (the edit loop): only scripts whose name contains "autograd",
#   and any script changed since its last run;
# * `make serve` (SIDEBYSIDE_LIVE=1): only scripts changed since their last run;
# * `make html SHARD=k/N` (one machine of several): only the scripts of slice k (sphinx_extensions/shards.py);
# * `make merge` (the shards' outputs copied in) and `make serve` (SIDEBYSIDE_LIVE=1): only
#   scripts changed since their last run;
# * the Chinese build, and extracting text for translation (SIDEBYSIDE_EXECUTE=0): nothing.
only = os.environ.get("EXAMPLE", "")
sidebyside_shard = os.environ.get("SHARD", "")
keep_outputs = any(os.environ.get(v) for v in ("SIDEBYSIDE_LIVE", "SIDEBYSIDE_MERGED"))
execute = language == "en" and os.environ.get("SIDEBYSIDE_EXECUTE", "1") != "0"
scripts = r"/plot_"
if sidebyside_shard:
    shard_examples = shards.examples_in_shard(
        sidebyside_shard, DOCS.parent / "gallery", DOCS / "example_times.json"
    )
    scripts = "|".join(re.escape(f"/{name}") + "$" for name in shard_examples) or "(?!)"
if execute and not keep_outputs:
    for checksum in (DOCS / "auto_examples").rglob("plot_*.py.md5"):
        script = checksum.relative_to(DOCS / "auto_examples").as_posix().removesuffix(".md5")
        if only in checksum.name and re.search(scripts, "/" + script):  # "" is in every name
            checksum.unlink()
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
    "filename_pattern": scripts if execute else "(?!)",  # "(?!)" matches nothing
    "backreferences_dir": "gen_modules/backreferences",
    # Order comes from file names, never from length; a shard runs its slice last name first.
    "within_subsection_order": "sphinx_extensions.shards.ReverseFileNameSortKey"
    if sidebyside_shard
    else "FileNameSortKey",
    "subsection_order": "sphinx_extensions.shards.reverse_subsections" if sidebyside_shard else None,
    "run_stale_examples": False,  # see above: what runs is chosen by forgetting md5s
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
nb_execution_mode = "off" if sidebyside_shard else "cache"  # a shard executes gallery scripts only
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
ogp_site_url = html_baseurl
ogp_site_name = "sidebyside"
ogp_image = html_baseurl + "_static/card.png"
ogp_image_alt = "sidebyside: a TensorFlow graph and a PyTorch autograd graph, side by side"
ogp_social_cards = {"enable": False}  # one site image; per-page cards would render with matplotlib
ogp_custom_meta_tags = ('<meta name="twitter:card" content="summary_large_image" />',)
sitemap_url_scheme = "{link}"
notfound_urls_prefix = urlparse(html_baseurl).path
if language == "zh_CN":  # the extension's own text is English, outside the catalogues
    notfound_context = {
        "title": "找不到页面",
        "body": "<h1>找不到页面</h1>\n\n抱歉，这里没有你要找的内容。",
    }
