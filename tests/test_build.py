"""The site builds strictly; broken examples, leaks and bad references fail it, saying where."""

import json
import os
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pydata_sphinx_theme
import pytest
from conftest import (
    GALLERY_SCRIPTS,
    MEASURED,
    ROOT,
    TINY_INDEX,
    make_project,
    shards,
    site_server,
    sphinx_build,
    tiny_gallery,
)

EXECUTED_OUTPUTS = (
    "sphx-glr-script-out",
    "sphx-glr-single-img",
    "output_html",
)  # text, figure, HTML


def example_page(html: Path, script: Path) -> Path:
    relative = script.relative_to(ROOT / "gallery").with_suffix(".html")
    return html / "auto_examples" / relative


# --- the real site -----------------------------------------------------------------------------


def test_every_script_has_an_executed_page_with_provenance(site):
    pages = sorted(site.glob("auto_examples/*/plot_*.html"))
    assert len(pages) == len(GALLERY_SCRIPTS)
    for script in GALLERY_SCRIPTS:
        page = example_page(site, script).read_text(encoding="utf-8")
        assert 'class="sbs-provenance"' in page, f"{script.name}: no provenance block"
        assert '<span class="sbs-t">CPU</span>' in page and '<span class="sbs-t">TensorFlow</span>' in page
        assert any(output in page for output in EXECUTED_OUTPUTS), f"{script.name}: no output"
        assert '<div class="highlight"><pre>' in page, f"{script.name}: code not highlighted"


def test_concept_pages_show_panes_figures_and_parity(site):
    for script in GALLERY_SCRIPTS:
        if script.parent.name.startswith(("10_", "20_")):
            page = example_page(site, script).read_text(encoding="utf-8")
            assert 'class="sbs-grid' in page, f"{script.name}: no side-by-side panes"
            assert 'class="sbs-parity"' in page, f"{script.name}: no parity report"
            assert "checks passed" in page, f"{script.name}: parity report shows no check"


def site_pages(site: Path) -> list[Path]:
    """Every page a reader can land on (not the theme's fragments, not the 404 page)."""
    return [
        page
        for page in sorted(site.rglob("*.html"))
        if not {"_static", "_sources"} & set(page.relative_to(site).parts)
        and page.name not in ("404.html", "genindex.html", "search.html")
    ]


def test_every_page_describes_itself_to_search_engines_and_link_previews(site):
    for page in site_pages(site):
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
        description = re.search(r'<meta name="description" content="([^"]*)"', text)
        minimum = 25 if name.parts[0] == "zh_CN" else 50  # a Chinese character says more
        assert description and len(description[1]) >= minimum, f"{name}: no meaningful description"
        for tag in ("og:title", "og:description", "og:url", "og:image"):
            assert f'property="{tag}"' in text, f"{name}: no {tag}"
        assert 'name="twitter:card"' in text, f"{name}: no twitter:card"
        assert re.search(r'<link rel="icon" href="[^"]*logo\.svg"', text), f"{name}: no favicon"
    assert (site / "_static/logo.svg").stat().st_size > 200
    assert (site / "_static/card.png").stat().st_size > 10_000


def test_the_sitemap_lists_every_page_and_robots_txt_names_it(site):
    sitemap = (site / "sitemap.xml").read_text()
    listed = set(re.findall(r"<loc>([^<]+)</loc>", sitemap))
    base = re.search(r"Sitemap: (\S+)sitemap\.xml", (site / "robots.txt").read_text())[1]
    missing = [
        str(page.relative_to(site))
        for page in site_pages(site)
        if base + page.relative_to(site).as_posix() not in listed
    ]
    assert not missing, f"pages missing from sitemap.xml: {missing}"


def test_the_offline_zip_holds_the_whole_site_with_relative_links(site):
    archive = zipfile.ZipFile(site / "sidebyside-offline.zip")
    names = set(archive.namelist())
    for page in site_pages(site):
        member = "sidebyside/" + page.relative_to(site).as_posix()
        assert member in names, f"the offline zip lacks {member}"
        html = archive.read(member).decode()
        absolute = re.findall(r'(?:href|src)="(/[^"]*)"', html)
        assert not absolute, f"{member} links from the server root: {absolute[:3]}"
    assert 'href="sidebyside-offline.zip"' in (site / "index.html").read_text()


def test_the_bundled_stylesheet_keeps_every_icon_its_fonts_need(site):
    """The pages link one purged stylesheet, and the icon fonts keep every glyph it names."""
    from fontTools.ttLib import TTFont  # matplotlib's dependency

    css = (site / "_static/site.css").read_text(encoding="utf-8")
    assert css.count("\n") > 100 and ".sbs-grid" in css and "data-theme=dark" in css
    assert len(css) < 250_000, f"site.css is {len(css)} bytes: not purged (npm install PurgeCSS)"
    for page in site_pages(site):
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.read_text())
        assert len(links) == 1 and "site.css?v=" in links[0], f"{page.name}: {links}"
    used = {ord(c) for c in css if 0xE000 <= ord(c) <= 0xF8FF}
    used |= {int(code, 16) for code in re.findall(r'"\\([0-9a-fA-F]{1,6})"', css)}
    theme = Path(pydata_sphinx_theme.__file__).parent / "theme/pydata_sphinx_theme/static"
    for font in sorted((site / "_static/vendor/fontawesome/webfonts").glob("*.woff2")):
        original = set(TTFont(theme / font.relative_to(site / "_static")).getBestCmap())
        kept = set(TTFont(font).getBestCmap() or {})
        missing = sorted(hex(c) for c in used & original - kept)
        assert not missing, f"{font.name} lacks icons the stylesheet shows: {missing}"
        assert font.stat().st_size < 10_000, f"{font.name} was not cut down"
    assert 0xF019 in used, "the download icon (f019) is not in the stylesheet any more"


def test_pattern_page_draws_both_graphs(site):
    page = (site / "auto_examples/10_graphs/plot_10_define_and_run.html").read_text()
    images = re.findall(r'src="(\.\./\.\./_images/sphx_glr_plot_10_define_and_run_\d+\.png)"', page)
    assert images, "the graph pictures are missing"
    for image in images:
        assert (site / "auto_examples/10_graphs" / image).resolve().stat().st_size > 10_000
    assert "dy/dw=5.0" in page and "dy/dx=2.0" in page


# A count stated in prose is an inline literal "label: value", e.g. ``traces with tensors: 1``.
STATED_COUNT = re.compile(
    r"^[^:]*\b(traces?|graphs?|recompiles?|breaks?|calls|ran)\b[^:]*: .*\d.*$"
)


def counts_not_measured(html: str) -> list[str]:
    """Counts the page's prose states that no line of its executed output prints exactly."""
    from bs4 import BeautifulSoup  # pydata-sphinx-theme's dependency

    article = BeautifulSoup(html, "html.parser").find("article")
    printed = {
        line.strip()
        for output in article.select("div.sphx-glr-script-out pre")
        for line in output.get_text().splitlines()
    }
    stated = (" ".join(code.get_text().split()) for code in article.select("p code.literal"))
    return [count for count in stated if STATED_COUNT.match(count) and count not in printed]


def test_every_count_stated_in_prose_is_the_count_the_build_measured(site):
    """The lessons keep their numbers in the outputs; where a sentence still quotes a count
    (``traces: 2``), it must be one the page printed."""
    for script in GALLERY_SCRIPTS:
        html = example_page(site, script).read_text(encoding="utf-8")
        assert not counts_not_measured(html), f"{script.name}: {counts_not_measured(html)}"
    # The check sees a count the build did not print.
    page = (
        '<article><p>It traced <code class="docutils literal"><span class="pre">traces:</span> '
        '<span class="pre">3</span></code> times.</p><div class="sphx-glr-script-out"><pre>'
        "traces: {}\n</pre></div></article>"
    )
    assert counts_not_measured(page.format(3)) == []
    assert counts_not_measured(page.format(4)) == ["traces: 3"]


# What leaks onto a page when a library logs or warns behind the lesson's back: a warning as the
# warnings module shows it ("file.py:12: UserWarning: ..."), a C++ or torch log line in glog's
# format ("W1127 03:08:26.474000 7607 file.py:183] ..."), Python logging's default format
# ("WARNING:tensorflow:..."), and a notebook cell's own file name. A page that teaches a warning
# prints it itself, without a file name.
LEAKED = re.compile(
    r"\.py:\d+: \w*Warning\b|^[IWEF]\d{4} \d\d:\d\d:\d\d|^(WARNING|ERROR|INFO|DEBUG):[\w.]+:"
    r"|ipykernel_\d+",
    re.M,
)


def leaked_lines(html: str) -> list[str]:
    """The lines of a page's executed outputs that a library printed, not the lesson."""
    from bs4 import BeautifulSoup  # pydata-sphinx-theme's dependency

    if not re.search(LEAKED.pattern.replace("^", ""), html):
        return []  # nothing like a leak anywhere on the page: no need to parse it
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for output in soup.select("div.sphx-glr-script-out, div.cell_output"):
        found += [line for line in output.get_text().splitlines() if LEAKED.search(line)]
    return found


def test_no_page_shows_a_warning_or_log_line_the_lesson_did_not_print(site):
    """On every page of both languages, with PyPI's CUDA torch on a machine without a GPU too."""
    leaks = {}
    for page in sorted(site.rglob("*.html")):
        if lines := leaked_lines(page.read_text(encoding="utf-8")):
            leaks[str(page.relative_to(site))] = lines[:3]
    assert not leaks, leaks
    # The check sees a leak: a warning as a library's code would print it.
    sample = '<div class="sphx-glr-script-out"><pre>/x/torch/jit/_script.py:1491: FutureWarning: no'
    assert leaked_lines(sample + "</pre></div>")


def executed_outputs(html: str) -> list[str]:
    """What an example page shows of its run: each output's text, without the blocks that differ
    by machine or release (sidebyside.show's parser, the one the matrix uses: timings are in
    "On this machine (timed):" blocks) and dates, and each figure's place."""
    from sidebyside.show import without_varying_blocks

    from bs4 import BeautifulSoup  # pydata-sphinx-theme's dependency

    article = BeautifulSoup(html, "html.parser").find("article")
    found = []
    for output in article.select("div.sphx-glr-script-out, div.output_html, img.sphx-glr-single-img"):
        if output.name == "img":
            found.append(f"figure {Path(output['src']).name}")
        else:
            text = "\n".join(without_varying_blocks(output.get_text()))
            found.append(re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "(DATE)", text))
    return found


def test_two_shards_merged_make_the_same_pages_as_one_build(site, merged_site):
    """CI's matrix in small, on the examples that execute fastest (conftest.MERGE_EXAMPLES): two
    builds each execute a slice (balanced by their times, last name first), `make merge`
    assembles the pages from their outputs. Each example shows what it showed in the one-process
    build: the build is deterministic, and no example's output depends on the examples executed
    before it (each now runs after others)."""
    merged = sorted(merged_site.glob("auto_examples/*/plot_*.html"))
    assert len(merged) >= 4
    differing = [
        page.name
        for page in merged
        if not any(word in page.name for word in MEASURED)  # their numbers are measurements
        and executed_outputs((site / page.relative_to(merged_site)).read_text())
        != executed_outputs(page.read_text())
    ]
    assert not differing, f"examples that show other outputs when built by shards: {differing}"
    for page in merged:
        assert any(output in page.read_text() for output in EXECUTED_OUTPUTS), page.name


def test_a_shard_merge_missing_an_example_says_which(tmp_path):
    manifest = {"shard": "1/2", "examples": ["10_graphs/plot_10_define_and_run.py"]}
    (tmp_path / "shard.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="10_graphs/plot_20_autograd.py: executed by no shard"):
        shards.merge([tmp_path], tmp_path / "merged")
    with pytest.raises(ValueError, match="executed by two shards"):
        shards.merge([tmp_path, tmp_path], tmp_path / "merged")


def test_shards_are_balanced_and_cover_every_example_once():
    examples = shards.example_names()
    times = json.loads(shards.TIMES.read_text())
    assert sorted(times) == examples, "docs/example_times.json is stale: run `make example-times`"
    for n in (1, 2, 3):
        slices = [shards.examples_in_shard(f"{k}/{n}") for k in range(1, n + 1)]
        assert sorted(sum(slices, [])) == examples
        loads = [sum(times[name] for name in part) for part in slices]
        # greedy longest-first: no slice exceeds the ideal share by more than the longest example
        assert max(loads) <= sum(loads) / n + max(times.values()), loads
    with pytest.raises(ValueError, match="SHARD='3/2'"):
        shards.examples_in_shard("3/2")


def test_the_site_server_prints_nothing_when_a_browser_drops_a_connection(capsys):
    """Lighthouse drops kept-alive connections between runs; a real error still prints."""
    import http.server

    server = site_server.SiteServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    try:
        for error in (ConnectionResetError(104, "reset by peer"), ValueError("a real error")):
            try:
                raise error
            except Exception:
                server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    printed = capsys.readouterr().err
    assert "ValueError: a real error" in printed and "ConnectionResetError" not in printed


def test_no_page_loads_anything_from_another_host(site):
    external = re.compile(
        r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//"""
    )
    for page in site.rglob("*.html"):
        for tag in external.findall(page.read_text(encoding="utf-8")):
            if "<link" in tag and "stylesheet" not in tag:
                continue
            pytest.fail(f"{page.relative_to(site)} loads an external resource: {tag}")


API_LINK = re.compile(r'<a class="[^"]*sphx-glr-backref[^"]*" href="([^"]+)"[^>]*>(.*?)</a>', re.S)


def test_api_names_in_code_link_to_the_pinned_releases_references(site):
    """sphinx-gallery's code links (sphinx_extensions.api_links): the inventories describe the
    pinned releases, every link goes to those releases' references, and a sample of names, as
    the code writes them, lands on its page."""
    from sidebyside.device import REQUIRED

    from sphinx_extensions.api_links import inventory_release

    docs_txt = (ROOT / "requirements/docs.txt").read_text()
    pins = {**REQUIRED, "numpy": re.search(r"^numpy==(\S+)", docs_txt, re.M)[1]}
    for inventory in sorted((ROOT / "docs/inventories").glob("*.inv")):
        project, version = inventory_release(inventory)
        assert version == pins[project], f"{inventory.name}: {version}, the pin {pins[project]}"
    torch = f"https://docs.pytorch.org/docs/{pins['torch'].rsplit('.', 1)[0]}/"
    numpy = f"https://numpy.org/doc/{pins['numpy'].rsplit('.', 1)[0]}/"
    tensorflow = "https://www.tensorflow.org/api_docs/python/"  # no reference per release for 2.21
    sample = {
        "torch.autograd.grad": torch + "generated/torch.autograd.grad.html#torch.autograd.grad",
        "tf.function": tensorflow + "tf/function",  # in calls and in @tf.function decorators
        "tf.tanh": tensorflow + "tf/math/tanh",  # TensorFlow's page is its canonical name's
        "np.array": numpy + "reference/generated/numpy.array.html#numpy.array",
    }
    found, unlinked = {}, []
    for page in sorted(site.glob("**/auto_examples/*/plot_*.html")):  # both languages
        links = API_LINK.findall(page.read_text(encoding="utf-8"))
        unlinked += [] if links else [str(page.relative_to(site))]
        for href, text in links:
            assert href.startswith((torch, numpy, tensorflow)), f"{page.name}: {href} not pinned"
            found.setdefault(re.sub(r"<[^>]+>", "", text), set()).add(href)
    assert not unlinked, f"pages whose code links to no API page: {unlinked}"
    for name, href in sample.items():
        assert found.get(name) == {href}, f"{name} links to {found.get(name)}, not {href}"


# A C++ log line (abseil's format: "I0000 00:00:1795559483.371981    2977 port.cc:153] ...") or
# abseil's notice before them: what TensorFlow writes to file descriptor 2 on import.
NATIVE_LOG = re.compile(
    r"(?:^|\n|>)[IWEF]\d{4} \d\d:\d\d:[\d.]+ +\d+ [\w.]+:\d+\]|absl::InitializeLog|oneDNN custom op"
)


def test_no_page_shows_a_framework_s_cpp_log(site):
    for page in site.rglob("*.html"):
        found = NATIVE_LOG.search(page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(site)} shows a C++ log line: {found[0]!r}"


COLAB_LINK = re.compile(r'href="https://colab\.research\.google\.com/github/([^/]+/[^/]+)/blob/([^/]+)/([^"]+)"')


def test_every_example_opens_in_colab_from_the_notebooks_the_workflow_publishes(site):
    """The link names the repository's `colab` branch, which site.yml fills with the build's
    colab/ folder: each target is there, and it is the page's own download."""
    published = site.parent / "colab"
    for language in ("", "zh_CN/"):
        for script in GALLERY_SCRIPTS:
            page = example_page(site / language, script).read_text(encoding="utf-8")
            links = COLAB_LINK.findall(page)
            assert len(links) == 1, f"{language}{script.name}: {len(links)} Colab links"
            repo, branch, path = links[0]
            assert repo == os.environ.get("SIDEBYSIDE_REPO", "sidebyside/sidebyside")
            assert branch == "colab"
            notebook = published / path
            assert notebook.is_file(), f"{script.name}: {path} is not among the published notebooks"
            download = next((site / language).glob(f"_downloads/*/{script.stem}.ipynb"))
            assert notebook.read_bytes() == download.read_bytes(), f"{path} is not the download"


class _LinksAndIds(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.update(attrs[key] for key in ("id", "name") if attrs.get(key))
        self.links += [attrs[key] for key in ("href", "src") if attrs.get(key)]


def broken_links(site: Path) -> tuple[list[str], int]:
    """Links between the site's own files whose file or #anchor is missing, and how many were
    checked. Links to other hosts are for `make linkcheck-external` (linkchecker, weekly).

    Written here rather than run through linkchecker: it took 8 of make test's minutes for the
    site's 1,000 URLs; this reads each page once, in seconds."""
    prefix = site_server.url_prefix(site)
    parsed: dict[Path, _LinksAndIds] = {}

    def parse(page: Path) -> _LinksAndIds:
        if page not in parsed:
            parsed[page] = _LinksAndIds()
            parsed[page].feed(page.read_text(encoding="utf-8"))
        return parsed[page]

    broken, checked = [], 0
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.relative_to(site).parts:
            continue  # the theme's template fragments, not pages
        for link in parse(page).links:
            url = urlsplit(link)
            if url.scheme or url.netloc or not (url.path or url.fragment):
                continue  # another host, mailto:, data:, or a bare "#"
            path = unquote(url.path)
            if path.startswith(prefix):  # the 404 page links from the host's root
                target = site / path[len(prefix) :]
            else:
                target = (page.parent / path).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            where = f"{page.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(f"{where} (no such file)")
            elif url.fragment and target.suffix == ".html":
                if unquote(url.fragment) not in parse(target).ids:
                    broken.append(f"{where} (no such anchor)")
    return broken, checked


def test_no_broken_internal_link_or_anchor(site):
    broken, checked = broken_links(site)
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(broken[:40])
    assert checked > 3000, f"only {checked} links checked"


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(tmp_path):
    (tmp_path / "robots.txt").write_text("Sitemap: https://example.org/site/sitemap.xml\n")
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#here">ok</a> <a href="#top">ok</a> '
        '<a href="b.html#gone">anchor</a> <a href="c.html">page</a> <a href="/site/a.html">ok</a>'
    )
    (tmp_path / "b.html").write_text('<p id="here">B</p><img src="_images/x.png">')
    broken, checked = broken_links(tmp_path)
    assert broken == [
        "a.html: b.html#gone (no such anchor)",
        "a.html: c.html (no such file)",
        "b.html: _images/x.png (no such file)",
    ]
    assert checked == 6


# --- what must fail the build ----------------------------------------------------------------


def tiny_build(tmp_path: Path, scripts: dict[str, str], index: str = TINY_INDEX):
    """Build a throwaway gallery of ``scripts`` with the site's own configuration."""
    gallery = tmp_path / "gallery_src"
    gallery.mkdir()
    (gallery / "GALLERY_HEADER.rst").write_text("Tiny\n====\n")
    for name, code in scripts.items():
        (gallery / name).write_text(f'"""\n{name}\n{"=" * len(name)}\n"""\n{code}\n')
    docs = make_project(tmp_path, gallery=gallery, index=index)
    result = sphinx_build(docs, tmp_path / "html")
    return result, result.stdout + result.stderr, tmp_path / "html"


# One build of several broken examples (each fails on its own; the gallery goes on), a broken
# reference, and one working example: every failure is named, and the build fails.
BROKEN = {
    "plot_a_fails.py": "def compute():\n    raise ValueError('boom in compute')\ncompute()",
    "plot_b_works.py": "print('still here')",
    "plot_c_sys_exit.py": "print('before')\nimport sys\nsys.exit(0)",
    "plot_d_exit.py": "print('before')\nexit()",
    "plot_e_old.py": "import warnings\nwarnings.warn('use the new API', DeprecationWarning)",
}


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    index = TINY_INDEX + "\nSee {ref}`a-label-that-does-not-exist`.\n"
    return tiny_build(tmp_path_factory.mktemp("broken"), BROKEN, index=index)


def test_an_example_that_raises_fails_the_build_but_the_others_still_build(broken_build):
    result, log, html = broken_build
    assert result.returncode != 0
    assert "plot_a_fails.py" in log and "ValueError: boom in compute" in log
    assert "Traceback" in log and "in compute" in log
    assert "still here" in (html / "auto_examples/plot_b_works.html").read_text()


@pytest.mark.parametrize("example", ["plot_c_sys_exit.py", "plot_d_exit.py"])
def test_an_example_that_exits_fails_the_build(broken_build, example):
    result, log, html = broken_build
    assert result.returncode != 0
    assert example in log  # named among the failing examples
    page = (html / "auto_examples" / example).with_suffix(".html")
    traceback = re.sub(r"<[^>]+>", "", page.read_text())  # its page shows its own traceback
    assert "RuntimeError: examples must not exit" in traceback


def test_an_example_that_raises_system_exit_fails_the_build(tmp_path):
    """``raise SystemExit`` cannot be intercepted: it ends sphinx-build, which must not say 0."""
    result, log, _ = tiny_build(tmp_path, {"plot_exits.py": "print('before')\nraise SystemExit(0)"})
    assert result.returncode != 0, log[-3000:]
    assert "stopped before the build finished" in log


def test_deprecated_call_in_example_code_fails_the_build(broken_build):
    result, log, _ = broken_build
    assert result.returncode != 0
    assert "plot_e_old.py" in log and "DeprecationWarning: use the new API" in log


def test_a_broken_cross_reference_fails_the_build(broken_build):
    result, log, _ = broken_build
    assert result.returncode != 0
    assert "a-label-that-does-not-exist" in log


def test_leaking_global_state_fails_the_build_naming_the_example_and_each_setting(tmp_path):
    # The name is spelled in two parts so that a grep for the forbidden call finds real uses only.
    leak = (
        "import tensorflow as tf\nimport torch\n"
        "getattr(tf.compat.v1, 'disable_eager' + '_execution')()\n"
        "torch.set_default_dtype(torch.float64)"
    )
    result, log, _ = tiny_build(tmp_path, {"plot_leaks.py": leak, "plot_next.py": "print(1)"})
    assert result.returncode != 0
    assert "plot_leaks.py leaked global state" in log
    assert "TensorFlow executes eagerly: True before, False after" in log
    assert "torch default dtype: torch.float32 before, torch.float64 after" in log


def test_a_notebook_page_that_raises_fails_the_build_naming_it(tmp_path):
    index = (
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n"
        + TINY_INDEX
        + "\n```{code-cell} ipython3\nraise ValueError('notebook boom')\n```\n"
    )
    result, log, _ = tiny_build(tmp_path, {"plot_ok.py": "print(1)"}, index=index)
    assert result.returncode != 0
    assert "index.md failed to execute" in log and "notebook boom" in log


def test_the_edit_loop_re_executes_only_the_named_example(tmp_path):
    """The contributor's loop: after a full build, EXAMPLE=<part of a file name> executes just
    that script; the other pages keep their outputs. A full build executes everything again."""
    runs = tmp_path / "runs.txt"
    gallery = tiny_gallery(tmp_path / "g", runs)
    docs = make_project(tmp_path, gallery=gallery, index=TINY_INDEX)
    for example in ("", "beta", ""):
        result = sphinx_build(docs, tmp_path / "html", example=example)
        assert result.returncode == 0, result.stderr[-3000:]
    assert runs.read_text().split() == ["plot_alpha.py", "plot_beta.py", "plot_beta.py"] + [
        "plot_alpha.py",
        "plot_beta.py",
    ]
    alpha = (tmp_path / "html/auto_examples/plot_alpha.html").read_text()
    assert "sphx-glr-script-out" in alpha  # its output, kept from the full build


def test_every_figure_is_shown_and_the_chinese_pages_draw_its_words_in_chinese(site):
    """No figure of a lesson sits inside a hidden element (the list of a figure's words for the
    catalogue is hidden; a figure must not fall into it), and on the Chinese pages the figures
    whose words the catalogue translates are their Chinese variants, light and dark."""
    translated = 0
    for script in GALLERY_SCRIPTS:
        for language in ("", "zh_CN"):
            page = example_page(site / language, script)
            html = page.read_text(encoding="utf-8")
            where = f"{language or 'en'} {script.name}"
            tags = [tag for tag in re.findall(r"<img [^>]*>", html) if "sphx-glr-" in tag]
            images = [re.search(r'src="([^"]+)"', tag)[1] for tag in tags]
            assert images, f"{where}: no figure"
            for src in images:
                assert (page.parent / src).exists(), f"{where}: {src}"
            for hidden in re.findall(r"<div hidden>(.*?)</div>", html, re.S):
                assert "<img" not in hidden, f"{where}: a figure inside a hidden element"
            translated += language == "zh_CN" and any("_zh_CN." in src for src in images)
    assert translated >= 10, f"only {translated} Chinese pages draw their figures' words in Chinese"
    # The landing page's figure, drawn in its notebook's kernel: its own pair on each edition.
    landing = {
        language: re.findall(r'<img [^>]*class="only-(?:light|dark)" src="([^"]+)"',
                             (site / language / "index.html").read_text(encoding="utf-8"))
        for language in ("", "zh_CN")
    }
    assert len(landing[""]) == len(landing["zh_CN"]) == 2, landing
    assert not {Path(src).name for src in landing[""]} & {Path(s).name for s in landing["zh_CN"]}
