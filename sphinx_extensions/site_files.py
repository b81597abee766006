"""The files around the pages: ``robots.txt``, one sitemap for every language, the offline zip.

``write_robots_and_offline_zip`` (``build-finished``, after the stylesheet bundle and the search
fix): ``robots.txt`` naming the sitemap; a translation's build adds its pages to the site's
sitemap; and a zip of the whole site (every language built so far) that opens from disk.
The ``{offline-zip}`` role links that zip from any page of any language.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from docutils import nodes

from sphinx_extensions import partial_build, site_root, to_site_root

OFFLINE_ZIP = "sidebyside-offline.zip"


def write_robots_and_offline_zip(app, exception) -> None:
    """``robots.txt`` naming the sitemap, and the whole site (every language built so far) zipped
    for reading from disk. A translation's build adds its pages to the site's one sitemap."""
    if exception is not None or app.builder.format != "html":
        return
    root = site_root(app)
    if app.config.language != "en":
        _merge_sitemap(root / "sitemap.xml", Path(app.outdir) / "sitemap.xml")
    else:
        (root / "robots.txt").write_text(
            f"User-agent: *\nAllow: /\n\nSitemap: {app.config.html_baseurl}sitemap.xml\n"
        )
    if partial_build(app.config) or app.config.sidebyside_shard:
        return  # the edit loop, live preview and a shard leave the last full build's zip alone
    with zipfile.ZipFile(root / OFFLINE_ZIP, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            inside = path.relative_to(root)
            hidden = any(part.startswith(".") for part in inside.parts)  # .doctrees, .buildinfo
            if path.is_file() and not hidden and path.name != OFFLINE_ZIP:
                archive.write(path, Path("sidebyside") / inside)


def _merge_sitemap(site_map: Path, translation_map: Path) -> None:
    """Add the ``<url>`` entries of a translation's sitemap to the site's sitemap."""
    if not site_map.exists():
        return  # a translation built alone keeps its own sitemap only
    entries = re.findall(r"<url>.*?</url>", translation_map.read_text(encoding="utf-8"), re.S)
    text = site_map.read_text(encoding="utf-8")
    new = [entry for entry in entries if entry not in text]
    site_map.write_text(text.replace("</urlset>", "".join(new) + "</urlset>"), encoding="utf-8")


def offline_zip_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{offline-zip}`label```: a download link to the site's zip, from any page, any language."""
    env = inliner.document.settings.env
    href = to_site_root(env.config, env.docname) + OFFLINE_ZIP
    return [nodes.raw("", f'<a href="{href}" download>{text}</a>', format="html")], []


def setup(app):
    app.add_role("offline-zip", offline_zip_role)
    app.connect("build-finished", write_robots_and_offline_zip, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
