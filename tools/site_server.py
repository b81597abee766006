"""Serve a built site as a real host does: under its URL prefix, gzip-compressed, 404.html for a miss.

Used by the browser tests and by `make bench` (Lighthouse). ``python tools/site_server.py DIR``
serves DIR on http://127.0.0.1:8000 under the prefix of the site's own base URL.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

COMPRESSED = {".html", ".css", ".js", ".svg", ".json", ".xml", ".txt", ".inv", ".ipynb", ".py"}


def url_prefix(site: Path) -> str:
    """The path the site is hosted under (``/sidebyside/``), read from its robots.txt."""
    sitemap = re.search(r"Sitemap: (\S+)", (site / "robots.txt").read_text())[1]
    return urlparse(sitemap).path.rsplit("/", 1)[0] + "/"


@functools.lru_cache(maxsize=1024)
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    """A file's bytes compressed, once per version of it (as a host keeps them), not per request."""
    return gzip.compress(path.read_bytes())


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"
    protocol_version = "HTTP/1.1"  # keep-alive: one connection serves many files, as on a host

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        path = urlparse(path).path
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + path[len(self.prefix) :])

    def send_head(self):
        target = Path(self.translate_path(self.path))
        if target.is_dir():
            target = target / "index.html"
        status = 200
        if not target.is_file():
            target, status = Path(self.directory) / "404.html", 404
        gzipped = target.suffix in COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", "")
        body = _gzipped(target, target.stat().st_mtime_ns) if gzipped else target.read_bytes()
        self.send_response(status)
        self.send_header("Content-Type", self.guess_type(str(target)))
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)


class SiteServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that drops a kept-alive connection is no error (Lighthouse does, between
        runs): nothing printed for it; anything else as the standard library prints it."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(site: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start serving ``site`` in a thread; returns the server and the site's URL (no slash)."""
    prefix = url_prefix(site)
    handler = functools.partial(
        type("Handler", (SiteHandler,), {"prefix": prefix}), directory=str(site)
    )
    httpd = SiteServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}{prefix.rstrip('/')}"


if __name__ == "__main__":
    httpd, url = serve(Path(sys.argv[1]), 8000)
    print(f"Serving {sys.argv[1]} at {url}/ (Ctrl+C stops)")
    threading.Event().wait()
