"""One small stylesheet per page: bundled, purged of unused rules, icon fonts cut to size.

``bundle_stylesheets`` (``build-finished``, before the offline zip): every page links one
stylesheet, ``_static/site.css``, holding all of them in their order, purged by PurgeCSS (npm)
of the rules no page or script uses, with Font Awesome's fonts cut to the glyphs it names. Also
adds the site's own ``sidebyside.css``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlparse

from sphinx.util import logging

from sphinx_extensions import partial_build

logger = logging.getLogger(__name__)


STYLESHEET = re.compile(r'<link (?=[^>]*rel="stylesheet")[^>]*href="([^"]+)"[^>]*>\s*')

CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")

CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*['"]?([^'")\s]+)['"]?\s*\)?\s*;""")

BUNDLE = "site.css"  # in _static/


def _inline_css(css: Path, static: Path) -> str:
    """A stylesheet's text with its @imports inlined and its url()s made relative to _static/
    (an imported sheet's url()s are moved once, relative to that sheet)."""

    def moved(match):
        quote, target = match[1], match[2]
        if re.match(r"[a-z]+:|/|#", target):
            return match[0]  # data:, another host, the host's root, an SVG fragment
        new = os.path.relpath((css.parent / target).resolve(), static)
        return f"url({quote}{Path(new).as_posix()}{quote})"

    text = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css.read_text(encoding="utf-8"))
    parts, last = [], 0
    for match in CSS_IMPORT.finditer(text):
        parts.append(CSS_URL.sub(moved, text[last : match.start()]))
        parts.append(_inline_css((css.parent / match[1]).resolve(), static))
        last = match.end()
    return "".join(parts) + CSS_URL.sub(moved, text[last:])


def _purge(bundle: Path, out: Path) -> None:
    """Drop the rules no page and no script of this build uses (PurgeCSS, pinned in
    package.json; `make html` installs it): the theme ships Bootstrap's and Font Awesome's whole
    stylesheets, 64 of the bundle's 88 KB gzipped. Without Node the bundle stays whole."""
    purgecss = next(
        (p for p in (Path.cwd(), out.parent) if (p / "node_modules/.bin/purgecss").exists()), None
    )
    if purgecss is None or shutil.which("node") is None:
        logger.info("PurgeCSS not installed (npm install): the site's stylesheet stays whole")
        return
    with tempfile.TemporaryDirectory() as purged:
        subprocess.run(
            [
                purgecss / "node_modules/.bin/purgecss",
                "--css",
                bundle,
                "--output",
                purged,
                "--content",
                out / "**/*.html",
                out / "_static/**/*.js",
            ],
            check=True,
            capture_output=True,
        )
        shutil.copy(Path(purged) / bundle.name, bundle)


CSS_CODEPOINT = re.compile(r'"\\([0-9a-fA-F]{1,6})"')


def _subset_icon_fonts(bundle: Path, static: Path) -> None:
    """Cut the icon fonts the bundle names down to the glyphs it uses (fontTools): Font Awesome's
    solid font is 115 KB, a reader downloads it before the first paint, and the site shows a
    dozen of its 2,000 icons."""
    import logging as python_logging

    from fontTools import subset

    python_logging.getLogger("fontTools").setLevel("WARNING")  # one INFO line per table

    css = bundle.read_text(encoding="utf-8")
    codepoints = {int(code, 16) for code in CSS_CODEPOINT.findall(css)}  # "\\f002"
    codepoints |= {ord(char) for char in css if 0xE000 <= ord(char) <= 0xF8FF}  # the glyph itself
    for url in sorted(set(re.findall(r"url\(([^)]+\.woff2)\)", css))):
        font_file = static / url.strip("'\"")
        if font_file.exists():
            options = subset.Options(flavor="woff2", layout_features=["*"])
            font = subset.load_font(str(font_file), options)
            cut = subset.Subsetter(options)
            cut.populate(unicodes=codepoints & set(font.getBestCmap()))
            cut.subset(font)
            subset.save_font(font, str(font_file), options)


def bundle_stylesheets(app, exception) -> None:
    """One stylesheet per page instead of eleven (the theme's, Sphinx's, each extension's),
    without the rules nothing uses: on a slow network every extra file and kilobyte delays the
    first paint (Lighthouse, slow 4G: 2.9 s -> 1.3 s). ``_static/site.css`` holds them all, in
    their order; each page links it instead of them."""
    if exception is not None or app.builder.format != "html":
        return
    out, static = Path(app.outdir), Path(app.outdir) / "_static"
    prefix = urlparse(app.config.html_baseurl).path  # the 404 page links from the host's root
    other_languages = {f.strip("/") for f in app.config.sidebyside_languages.values() if f}
    bundle, sources = static / BUNDLE, None
    for page in sorted(out.rglob("*.html")):
        inside = page.relative_to(out).parts
        if "_static" in inside or (app.config.language == "en" and inside[0] in other_languages):
            continue
        html = page.read_text(encoding="utf-8")
        links = list(STYLESHEET.finditer(html))
        if not links:
            continue  # bundled already (a page the edit loop did not rewrite)
        files = []
        for link in links:
            href = urlparse(link[1]).path
            path = out / href[len(prefix) :] if href.startswith(prefix) else page.parent / href
            files.append(path.resolve())
        if any(static not in f.parents for f in files):
            continue  # a stylesheet from elsewhere: leave the page as it is
        if sources is None:
            sources = files
            bundle.write_text("\n".join(_inline_css(css, static) for css in files), "utf-8")
            if not partial_build(app.config):
                _purge(bundle, out)  # the edit loop keeps every rule: a second saved
                _subset_icon_fonts(bundle, static)
            digest = hashlib.sha256(bundle.read_bytes()).hexdigest()[:8]
        elif files != sources:
            continue  # a page with other stylesheets keeps them
        to_static = os.path.relpath(static, page.parent)
        if links[0][1].startswith(prefix):
            to_static = prefix + "_static"
        tag = f'<link rel="stylesheet" href="{Path(to_static).as_posix()}/{BUNDLE}?v={digest}" />\n'
        start, end = links[0].start(), links[-1].end()
        middle = STYLESHEET.sub("", html[start:end])  # anything between the links stays
        page.write_text(html[:start] + tag + middle + html[end:], encoding="utf-8")


def setup(app):
    app.add_css_file("sidebyside.css")
    app.connect("build-finished", bundle_stylesheets, priority=850)  # before the offline zip
    return {"parallel_read_safe": True, "parallel_write_safe": True}
