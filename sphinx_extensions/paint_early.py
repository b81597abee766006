"""Pages whose text paints before their images and scripts arrive (Lighthouse, slow 4G).

``paint_early`` (``html-page-context``): images load lazily, scripts are deferred.
"""

from __future__ import annotations

import re

_IMG = re.compile(r"<img (?![^>]*\bloading=)")

BLOCKING_SCRIPTS = ("documentation_options.js",)  # the theme's inline scripts read its object


def paint_early(app, pagename, templatename, context, doctree) -> None:
    """Let the text paint before images and scripts arrive (Lighthouse, slow 4G).

    * Images load when they come near the screen (``loading="lazy"``): thumbnails and figures
      below the fold, and the hidden variant of each light/dark figure pair, no longer share the
      reader's bandwidth with the text.
    * Scripts run after the page is parsed (``defer``; deferred scripts keep their order), except
      the one the theme's inline scripts need at once.
    """
    if "body" in context:
        context["body"] = _IMG.sub('<img loading="lazy" ', context["body"])
    if pagename == "search":
        return  # its search script runs at once and needs doctools.js before it
    from sphinx.builders.html._assets import _JavaScript

    context["script_files"] = [
        _JavaScript(js.filename, priority=js.priority, **{**js.attributes, "defer": "defer"})
        if isinstance(js, _JavaScript)
        and js.filename
        and not js.filename.endswith(BLOCKING_SCRIPTS)
        and not {"async", "defer"} & set(js.attributes)
        else js
        for js in context.get("script_files", [])
    ]


def setup(app):
    app.connect("html-page-context", paint_early)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
