"""Build modes: config values set on the command line, read once, here (``config-inited``).

``tools/site_build.py`` passes them as ``-D name=value``; no extension reads the environment.

=========================  ======================================================================
``sidebyside_example``     the edit loop: re-execute only examples whose file name contains it
``sidebyside_shard``       ``k/N``: execute slice k of N (one machine of several; shards.py)
``sidebyside_keep_outputs``  merged shards, live preview: re-execute only what changed
``sidebyside_live``        the live preview (``make serve``)
``sidebyside_execute``     0 for a translation and for extracting text: execute nothing
``sidebyside_baseurl``     where the site is hosted (canonical links, sitemap, 404 page)
``sidebyside_any_version``  1: build with any torch and TensorFlow in the package's range
=========================  ======================================================================

sphinx-gallery re-executes a script when its md5 differs from the one saved at its last run, and
otherwise keeps that run's outputs. So what runs is chosen by forgetting md5s (here, before
sphinx-gallery reads its configuration), and the gallery's configuration stays the same for every
kind of English build (a changed one would make Sphinx re-read every page):

* a full build forgets every script's md5, so every example is re-executed;
* the edit loop forgets the md5s of the scripts named (and sphinx-gallery re-runs any script
  changed since its last run);
* a shard forgets those of its slice, and executes only those;
* merged shards and the live preview forget none: only scripts changed since run again;
* a translation, and ``make gettext``, execute nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

from sphinx_extensions import GALLERY_OUTPUT, shards

NOT_FOUND_ZH = {"title": "找不到页面", "body": "<h1>找不到页面</h1>\n\n抱歉，这里没有你要找的内容。"}


def apply_modes(app, config) -> None:
    """Turn the modes into the settings of this build (before sphinx-gallery reads its own)."""
    import sidebyside

    sidebyside.require_frameworks(exact=not config.sidebyside_any_version)
    docs = Path(app.srcdir)
    language = config.language
    if language not in config.sidebyside_languages:
        raise ValueError(f"language={language!r}: the site has {', '.join(config.sidebyside_languages)}")

    # Where this language's pages live, and what follows from it.
    baseurl = config.sidebyside_baseurl if config.sidebyside_baseurl.endswith("/") else (
        config.sidebyside_baseurl + "/")
    config.html_baseurl = baseurl + config.sidebyside_languages[language]
    config.ogp_site_url = config.html_baseurl
    config.ogp_image = config.html_baseurl + "_static/card.png"
    config.notfound_urls_prefix = urlparse(config.html_baseurl).path
    if language == "zh_CN":
        config.html_search_language = "zh"  # Chinese search splits words with jieba
        # the glossary's terms are words of their own: a search for 计算图 finds it
        config.html_search_options = {"dict": str(docs / "locale" / "zh_CN" / "search_words.txt")}
        config.notfound_context = NOT_FOUND_ZH  # the extension's own text is English

    # Which examples run.
    execute = config.sidebyside_execute and language == "en"
    gallery_conf = config.sphinx_gallery_conf
    scripts = r"/plot_"
    if config.sidebyside_shard:
        slice_ = shards.examples_in_shard(
            config.sidebyside_shard, docs.parent / "gallery", docs / "example_times.json"
        )
        scripts = "|".join(re.escape(f"/{name}") + "$" for name in slice_) or "(?!)"
        gallery_conf["within_subsection_order"] = "sphinx_extensions.shards.ReverseFileNameSortKey"
        gallery_conf["subsection_order"] = "sphinx_extensions.shards.reverse_subsections"
        config.nb_execution_mode = "off"  # a shard executes gallery scripts only
    gallery_conf["filename_pattern"] = scripts if execute else "(?!)"  # "(?!)" matches nothing
    if execute and not config.sidebyside_keep_outputs:
        for checksum in (docs / GALLERY_OUTPUT).rglob("plot_*.py.md5"):
            script = checksum.relative_to(docs / GALLERY_OUTPUT).as_posix().removesuffix(".md5")
            if config.sidebyside_example in checksum.name and re.search(scripts, "/" + script):
                checksum.unlink()  # "" is in every name


def setup(app):
    # rebuild="": a mode never makes Sphinx re-read pages; what it changes is chosen above.
    app.add_config_value("sidebyside_example", "", "", str)
    app.add_config_value("sidebyside_keep_outputs", False, "", bool)
    app.add_config_value("sidebyside_live", False, "", bool)
    app.add_config_value("sidebyside_execute", True, "", bool)
    app.add_config_value("sidebyside_any_version", False, "", bool)
    app.add_config_value("sidebyside_baseurl", "https://sidebyside.github.io/sidebyside/", "html", str)
    app.connect("config-inited", apply_modes, priority=4)  # before sphinx-gallery's (10)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
