"""The built site in a real browser: Debian's Chromium, driven by Playwright, served on 127.0.0.1."""

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import ROOT, TINY_INDEX, make_project, tiny_gallery

playwright = pytest.importorskip("playwright.sync_api")

# Debian's Chromium here; CI on GitHub points SIDEBYSIDE_CHROMIUM at its preinstalled Chrome.
CHROMIUM = os.environ.get("SIDEBYSIDE_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "artifacts" / "screenshots"
EXAMPLE = "auto_examples/10_graphs/plot_10_define_and_run.html"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # pinned in package.json
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    chinese_fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True)
    if not chinese_fonts.stdout.strip():  # the Chinese pages would show boxes
        pytest.fail("no font with Chinese glyphs: `make test` installs one (fonts-noto-cjk)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", LOCAL_ONLY])
        yield browser
        browser.close()


# No page reaches another host: Chromium resolves no name but 127.0.0.1 (a request elsewhere
# fails at once), and Watched records each such request. Cheaper than intercepting every request
# (page.route): that round trip through Playwright doubled the CPU time of a page's load.
LOCAL_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


class Watched:
    """A page that records console errors, failed requests and requests to other hosts."""

    def __init__(self, browser, width: int, height: int = 900):
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._status)
        self.page.on("request", self._only_local)
        self.expected_status = {}  # url: status a test expects (the 404 page itself)

    def _failed(self, request):
        if request.failure != "net::ERR_ABORTED":  # not a lazy image cut short by the next page
            self.problems.append(f"failed request: {request.url} ({request.failure})")

    def _status(self, response):
        if response.status >= 400 and self.expected_status.get(response.url) != response.status:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _console(self, message):
        if message.location.get("url") in self.expected_status:
            return  # Chromium logs the expected status of the page itself as an error
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _only_local(self, request):
        url = urlparse(request.url)
        if url.scheme not in ("data", "blob", "file", "about") and url.hostname != "127.0.0.1":
            self.problems.append(f"external request: {request.url}")

    def goto(self, url: str, wait_until: str = "networkidle"):
        self.page.goto(url, wait_until=wait_until)
        return self.page

    def fresh(self, width: int, height: int = 900) -> "Watched":
        """This page as a new one would be: that size, nothing stored, nothing recorded."""
        if not self.page.url.startswith("about:"):
            self.page.evaluate("localStorage.clear(); sessionStorage.clear()")
        self.page.goto("about:blank")
        self.page.set_viewport_size({"width": width, "height": height})
        self.problems.clear()
        self.expected_status.clear()
        return self


@pytest.fixture(scope="module")
def tab(browser):
    """``tab(width, height=900)``: one page the page tests share, made fresh for each, as a
    reader's tab goes from page to page. A new page costs Chromium about five times the CPU
    time that loading another page in an open one does."""
    watched = Watched(browser, 1440)
    yield watched.fresh
    watched.page.close()


# Violations in full; the other result types (passes, rules that do not apply) are not read,
# and axe then lists one element for each rather than every one (its resultTypes option).
AXE_RUN = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target).join(' | ')}`)"""


#: How far the article scrolls sideways (a long name that does not wrap, a wide table outside a
#: scrolling box of its own): a phone's reader would swipe the whole lesson.
ARTICLE_SIDEWAYS = """() => { const box = document.querySelector('.bd-article-container');
    return box.scrollWidth - box.clientWidth; }"""
SIDEWAYS = """() => [...document.querySelectorAll('.sbs-pane pre')].map(pre => [
    pre.scrollWidth - pre.clientWidth,
    pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a))])"""


def is_lesson(path: str) -> bool:
    """An English gallery page (a path relative to the site's root)."""
    return re.fullmatch(r"auto_examples/[^/]+/plot_[^/]+\.html", path) is not None


def is_core_lesson(path: str) -> bool:
    """An English lesson page, not a reference page nor the appendix."""
    return is_lesson(path) and "30_reference" not in path and "gru_gate_order" not in path


@pytest.fixture(scope="module")
def audit(site, server, browser) -> dict:
    """Every page opened once at 1280×800 and checked there: what went wrong loading it (console
    errors, failed or external requests); each core lesson's height in screens as first shown
    (folds closed); on every English page and ZH_SAMPLE, axe-core's serious violations in light
    mode, then in dark mode, and the figures that show as bright slabs in dark mode; last, on
    every English lesson, whether the article scrolls sideways on a phone (390 px), and the code
    and output blocks in panes that scroll sideways at 1280, 1440 and 1920 px (laid out again at
    each width)."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    pages = [page for page in pages if "_static/" not in page]  # theme fragments
    audited = set(reader_pages(site) + ZH_SAMPLE)
    watched = Watched(browser, 1280, 800)
    found = {"loading": [], "axe": [], "bright": [], "figures": [], "heights": {},
             "sideways": [], "pane blocks": 0, "phone": []}
    for path in pages:
        watched.problems.clear()
        page = watched.goto(f"{server}/{path}", wait_until="load")  # scripts ran, files came
        found["loading"] += [f"{path}: {problem}" for problem in watched.problems]
        if is_core_lesson(path):
            load_every_image(page)
            found["heights"][Path(path).stem] = page.evaluate(
                "document.documentElement.scrollHeight") / 800
        if path not in audited:
            continue
        page.add_style_tag(content="* { transition: none !important; }")  # colours settle now
        page.add_script_tag(path=str(AXE))
        for mode in ("light", "dark"):  # the switch the theme's button makes
            page.evaluate(f"document.documentElement.dataset.theme = '{mode}'")
            found["axe"] += [f"{path} ({mode}): {v}" for v in page.evaluate(AXE_RUN)]
        if path.startswith("zh_CN/"):
            continue  # the same figures as the English page
        for figure in page.locator("article img:visible").all():
            box = figure.bounding_box()
            if not box or box["width"] < 120 or box["height"] < 80:
                continue  # icons and thumbnails of nothing
            figure.scroll_into_view_if_needed()
            figure.evaluate("img => img.decode()", timeout=10_000)  # lazy: loads when near
            found["figures"].append(path)
            if bright_share(figure.screenshot()) > 0.5:
                found["bright"].append(f"{path}: {figure.get_attribute('src')}")
        if is_lesson(path):
            for width in (1280, 1440, 1920):
                page.set_viewport_size({"width": width, "height": 800})
                blocks = page.evaluate(SIDEWAYS)
                found["pane blocks"] += len(blocks)
                found["sideways"] += [f"{Path(path).name} at {width}: {line!r}"
                                      for extra, line in blocks if extra > 1]
            page.set_viewport_size({"width": 390, "height": 844})
            if (extra := page.evaluate(ARTICLE_SIDEWAYS)) > 1:
                found["phone"].append(f"{path}: {extra} px")
            page.set_viewport_size({"width": 1280, "height": 800})
    watched.page.close()
    assert len(pages) >= 10 and len(audited) >= 10
    return found


def test_every_page_loads_without_errors_or_external_requests(audit):
    assert not audit["loading"], "\n".join(audit["loading"])


def load_every_image(page):
    """Images below the fold load lazily: load them all now, for a whole-page screenshot."""
    page.evaluate(
        """() => Promise.race([
             Promise.all([...document.images].map(img => {
               img.loading = 'eager';
               return img.decode().catch(() => null);
             })),
             new Promise(done => setTimeout(done, 10000)),
           ])"""
    )


def pane_boxes(page):
    grid = page.locator(".sbs-grid").first
    return grid.locator(".sbs-tf").bounding_box(), grid.locator(".sbs-torch").bounding_box()


def test_panes_stand_side_by_side_on_a_wide_screen(server, tab):
    page = tab(1440).goto(f"{server}/{EXAMPLE}")
    tf_box, torch_box = pane_boxes(page)
    assert abs(tf_box["y"] - torch_box["y"]) < 2, "panes do not start on the same line"
    assert tf_box["x"] + tf_box["width"] <= torch_box["x"], "TensorFlow is not left of PyTorch"


def test_panes_stack_on_a_phone(server, tab):
    page = tab(390).goto(f"{server}/{EXAMPLE}")
    tf_box, torch_box = pane_boxes(page)
    assert torch_box["y"] >= tf_box["y"] + tf_box["height"] - 1, "panes are not stacked"
    assert torch_box["width"] <= 390


def test_search_finds_grad_fn(server, tab):
    page = tab(1440).goto(f"{server}/search.html?q=grad_fn")
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=15_000)
    assert "autograd" in " ".join(results.all_inner_texts()).lower() or results.count() > 0


def test_light_dark_switch(server, tab):
    page = tab(1440).goto(f"{server}/index.html")
    for mode in ("dark", "light"):
        page.locator(".theme-switch-button").first.click()
        page.locator(f".theme-change-button[data-mode={mode}]").first.click()
        assert page.evaluate("document.documentElement.dataset.theme") == mode


def test_download_links_resolve(server, tab):
    watched = tab(1440)
    page = watched.goto(f"{server}/{EXAMPLE}")
    links = page.locator("a.reference.download").evaluate_all("els => els.map(e => e.href)")
    assert any(link.endswith(".py") for link in links) and any(
        link.endswith(".ipynb") for link in links
    )
    for link in links:
        assert page.request.get(link).status == 200, link


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize("path", ["index.html", EXAMPLE])
def test_screenshots_are_saved(server, tab, path, width):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = tab(width).goto(f"{server}/{path}")
    out = SHOTS / f"{Path(path).stem}-{width}.png"
    load_every_image(page)
    page.screenshot(path=str(out), full_page=True)
    assert out.stat().st_size > 10_000


def test_a_missing_page_at_any_depth_gets_a_working_404_page(server, tab):
    watched = tab(1440)
    for missing in ("no-such-page.html", "auto_examples/10_graphs/deep/er/no-such-page.html"):
        watched.problems.clear()
        url = f"{server}/{missing}"
        watched.expected_status[url] = 404
        page = watched.goto(url)
        assert "Page not found" in page.title(), f"{missing}: {page.title()}"
        assert not watched.problems, f"{missing}: " + "\n".join(watched.problems)
        page.locator("a.navbar-brand").first.click()
        page.wait_for_load_state("networkidle")
        assert page.url.rstrip("/").endswith(("/index.html", urlparse(server).path)), page.url


def test_a_request_to_another_host_is_reported_and_never_leaves(server, tab):
    """What the page checks rely on: Watched names a request to any host but 127.0.0.1, and
    Chromium does not even resolve that host. Here "localhost" plays the other host: it is this
    machine, whose server has the picture, so only the browser's rule keeps it from loading."""
    watched = tab(1280)
    page = watched.goto(f"{server}/index.html")
    picture = page.evaluate("document.querySelector('img').src").replace("127.0.0.1", "localhost")
    page.set_content(f'<img src="{picture}">', wait_until="load")
    assert f"external request: {picture}" in watched.problems
    assert f"failed request: {picture} (net::ERR_NAME_NOT_RESOLVED)" in watched.problems


def test_the_offline_zip_opens_from_disk(site, tab, tmp_path):
    """A reader unzips the site and opens it straight from the disk: no server, no network."""
    with zipfile.ZipFile(site / "sidebyside-offline.zip") as archive:
        archive.extractall(tmp_path)
    watched = tab(1440)
    page = watched.goto((tmp_path / "sidebyside/index.html").as_uri())
    page.locator("li.sbs-card a").first.click()
    page.wait_for_load_state("load")
    assert page.locator(".sbs-grid").count() > 0, f"no example page opened: {page.url}"
    # A search from disk lists its results without summaries (file:// may not fetch pages),
    # and without an error.
    page.goto((tmp_path / "sidebyside/search.html").as_uri() + "?q=retracing")
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=15_000)
    page.wait_for_timeout(1000)  # a summary's fetch would fail by now
    assert results.count() > 0
    assert not watched.problems, "\n".join(watched.problems)


def test_search_puts_the_lesson_and_the_glossary_first(server, tab):
    """Titles and glossary entries that hold the word rank first, and a summary is the
    lesson's text (no breadcrumbs, no provenance box)."""
    page = tab(1280).goto(f"{server}/search.html?q=retracing")
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=15_000)
    page.wait_for_timeout(1500)  # summaries arrive one by one
    first_two = " | ".join(results.all_inner_texts()[:2]).lower()
    assert "retracing" in first_two and ("rebuilt" in first_two or "glossary" in first_two), first_two
    summaries = page.locator("#search-results ul.search li p.context").all_inner_texts()
    assert summaries, "no summaries"
    for summary in summaries:  # the lesson's text: not the breadcrumbs, not the provenance box
        assert not summary.lstrip(". ").startswith("Concept gallery"), summary[:80]
        assert "oneDNN CPU ops" not in summary and "Ran at" not in summary, summary[:80]


def reader_pages(site) -> list[str]:
    """Every English page a reader can open, as paths relative to the site root. The Chinese
    pages have the same markup, code and figures: the checks below take ZH_SAMPLE of them."""
    pages = sorted(page.relative_to(site).as_posix() for page in site.rglob("*.html"))
    return [page for page in pages if not page.startswith(("_static/", "_sources/", "zh_CN/"))]


ZH_SAMPLE = ["zh_CN/index.html", f"zh_CN/{EXAMPLE}", "zh_CN/glossary.html", "zh_CN/sources.html"]


def themed_page(browser, mode: str, width: int = 1280):
    """A page in light or dark mode, chosen the way the theme's switch stores it."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');")
    return context.new_page()


def test_no_lesson_scrolls_sideways_on_a_phone(audit):
    """Long code names and file names wrap, wide tables scroll in a box of their own."""
    assert not audit["phone"], "at 390 px the article scrolls sideways:\n" + "\n".join(audit["phone"])


def test_no_code_or_output_in_a_pane_scrolls_sideways(audit):
    """Both panes show every line whole at laptop widths (tools/lint_panes.py keeps code to 64)."""
    blocks, clipped = audit["pane blocks"], audit["sideways"]
    assert blocks > 300, f"only {blocks} blocks in panes: the pane markup changed?"
    assert not clipped, f"{len(clipped)} of {blocks} blocks scroll sideways:\n" + "\n".join(clipped)


def test_no_serious_accessibility_violation_on_any_page(audit):
    """axe-core (WCAG 2.2 AA rules and best practices, none disabled), light and dark."""
    assert not audit["axe"], "\n".join(audit["axe"])


def test_no_figure_is_a_bright_slab_in_dark_mode(audit):
    """In dark mode every figure's visible pixels are mostly dark: no white rectangles."""
    assert len(audit["figures"]) >= 10, f"only {len(audit['figures'])} figures seen"
    assert not audit["bright"], "figures that show as bright slabs in dark mode:\n" + "\n".join(
        audit["bright"]
    )


def bright_share(png: bytes) -> float:
    """The share of a screenshot's pixels that are near white."""
    import io

    from PIL import Image  # matplotlib's dependency

    counts = Image.open(io.BytesIO(png)).convert("L").histogram()  # pixels per grey level
    return sum(counts[201:]) / sum(counts)


def test_the_language_switch_leads_to_the_same_page_by_keyboard(server, tab):
    page = tab(1440).goto(f"{server}/{EXAMPLE}")
    for language, tag in (("中文", "zh-CN"), ("English", "en")):
        switch = page.locator("a.sbs-language:visible")
        assert switch.inner_text() == language
        switch.focus()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.evaluate("document.documentElement.lang") == tag
        expected = ("zh_CN/" if tag == "zh-CN" else "") + EXAMPLE
        assert page.url == f"{server}/{expected}", page.url


def test_chinese_search_finds_the_pages_that_teach_a_term(server, tab):
    page = tab(1440).page
    for term, teaching_page in (("计算图", "glossary"), ("叶子节点", "plot_20_autograd")):
        page.goto(f"{server}/zh_CN/search.html?q={term}", wait_until="networkidle")
        results = page.locator("#search-results ul.search li a")
        results.first.wait_for(timeout=15_000)
        links = results.evaluate_all("links => links.map(a => a.href)")
        assert any(teaching_page in link for link in links), f"{term}: {links[:8]}"


@pytest.mark.parametrize(
    "path, mode", [(EXAMPLE, "light"), (EXAMPLE, "dark"), (f"zh_CN/{EXAMPLE}", "light")]
)
def test_an_example_at_1280_px_is_saved_in_both_modes(server, browser, path, mode):
    """Artefacts for a reviewer: the define-and-run page as a laptop shows it, light and dark,
    and its Chinese edition."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = themed_page(browser, mode)
    page.goto(f"{server}/{path}", wait_until="networkidle")
    language = "-zh_CN" if path.startswith("zh_CN/") else ""
    out = SHOTS / f"{Path(path).stem}{language}-1280-{mode}.png"
    load_every_image(page)
    page.screenshot(path=str(out), full_page=True)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    assert out.stat().st_size > 10_000
    page.context.close()


def test_make_serve_rebuilds_on_save_and_the_page_reloads_itself(browser, tmp_path):
    """`make serve` on a gallery of two examples: saving a new text in one of them re-executes that
    example only, and the page open in the browser shows the new text without a manual reload."""
    runs = tmp_path / "runs.txt"
    gallery = tiny_gallery(tmp_path / "gallery_src", runs)
    docs = make_project(tmp_path, gallery=gallery, index=TINY_INDEX)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (tmp_path / "serve.log").open("w")
    serve = subprocess.Popen(
        ["make", "-s", "serve", f"DOCS={docs}", f"PORT={port}"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # make, sphinx-autobuild and its builds: one group to stop
    )
    url = f"http://127.0.0.1:{port}/auto_examples/plot_beta.html"
    try:
        for _ in range(300):
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()[-4000:]
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        page = browser.new_page()
        page.goto(url)
        assert "The first text." in page.inner_text("article")
        script = gallery / "plot_beta.py"
        script.write_text(script.read_text().replace("The first text.", "A text saved later."))
        page.wait_for_function(
            "document.body.innerText.includes('A text saved later.')", timeout=120_000
        )
        page.close()
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
    assert runs.read_text().split() == ["plot_alpha.py", "plot_beta.py", "plot_beta.py"]


# --- The course as a learner meets it (issue: a path from the first screen) ----------------------

CORE_LESSON_SCREENS = 8  # at 1280×800, "Going deeper" parts folded: none longer


def test_the_first_screen_says_where_to_start(server, tab):
    """At 1280×800 and on a phone the landing page's first screen links lesson 1, and the course
    map below lists every lesson with a visible summary and a reading time (no hover needed)."""
    for width, height in ((1280, 800), (390, 844)):
        page = tab(width, height).goto(f"{server}/index.html", wait_until="load")
        start = page.locator(".sbs-start a").first
        box = start.bounding_box()
        assert box and box["y"] + box["height"] <= height, f"{width} px: start link below the fold"
        assert "10_graphs/plot_10_define_and_run.html" in start.get_attribute("href")
        cards = page.locator("li.sbs-card")
        assert cards.count() >= 20
        for card in cards.all():
            assert card.locator(".sbs-card-summary").inner_text().strip()
            assert card.locator(".sbs-card-summary").is_visible()
            assert "min" in card.locator(".sbs-card-time").inner_text()


def test_every_card_shows_a_thumbnail_of_its_own(site, server, tab):
    """Every lesson's card image loads, and no two lessons share one (sphinx-gallery's
    placeholder would be the same picture on every card that has no figure)."""
    page = tab(1280).goto(f"{server}/index.html")
    load_every_image(page)
    images = page.locator("li.sbs-card img").evaluate_all(
        "imgs => imgs.map(i => [i.getAttribute('src'), i.naturalWidth])"
    )
    assert images and all(width > 0 for _, width in images), images
    pictures = [(site / src).read_bytes() for src, _ in images]
    assert len(set(pictures)) == len(pictures), "two lessons show the same thumbnail"


def test_next_leads_from_the_landing_page_into_lesson_one_and_on(server, tab):
    page = tab(1280).goto(f"{server}/index.html")
    page.locator("a.right-next").first.click()
    assert page.url.endswith("10_graphs/plot_10_define_and_run.html"), page.url
    page.locator(".sbs-lesson-next").first.click()  # the Next link at the top of a lesson
    assert page.url.endswith("10_graphs/plot_20_autograd.html"), page.url


def test_a_lesson_says_where_it_is_and_lists_its_section(server, tab):
    page = tab(1280).goto(f"{server}/auto_examples/10_graphs/plot_20_autograd.html")
    where = page.locator(".sbs-lesson-where").first.inner_text()
    assert where.startswith("Lesson 2 of "), where
    current = page.locator(".sbs-lessons [aria-current=page]")
    assert current.count() == 1 and current.is_visible()
    assert page.locator(".sbs-lessons li").count() >= 5
    assert not page.locator("details.sbs-provenance").first.evaluate("d => d.open")
    assert page.locator(".sphx-glr-download-link-note").count() == 0  # no "Go to the end"


def test_the_language_switch_keeps_the_section(server, tab):
    page = tab(1280).goto(f"{server}/{EXAMPLE}")
    anchor = page.locator("article section section[id]").nth(1).get_attribute("id")
    page.goto(f"{server}/{EXAMPLE}#{anchor}")
    with page.expect_navigation():
        page.locator("a.sbs-language:visible").click()
    assert page.url.endswith(f"zh_CN/{EXAMPLE}#{anchor}"), page.url
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > 0


@pytest.mark.parametrize("width", [1280, 1440, 1920])
def test_the_colour_mode_menu_opens_inside_the_window(server, tab, width):
    page = tab(width).goto(f"{server}/index.html")
    page.locator(".theme-switch-button").first.click()
    menu = page.locator(".theme-switch-container .dropdown-menu").first
    menu.wait_for(state="visible")
    box = menu.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box


def test_a_figure_opens_full_size_on_a_phone(server, tab):
    """At 390 px a graph's labels are too small to read, so a tap opens the picture itself."""
    page = tab(390).goto(f"{server}/{EXAMPLE}")
    figure = page.locator("article img.sphx-glr-single-img.only-light").first  # light mode
    link = figure.evaluate("img => img.closest('a.sbs-full-size').getAttribute('href')")
    assert link.endswith(".png") and link == figure.get_attribute("src")
    assert page.request.get(page.url.rsplit("/", 1)[0] + "/" + link).status == 200


def test_a_core_lesson_can_be_finished(audit):
    """Each core lesson at most CORE_LESSON_SCREENS screens at 1280×800, as first shown."""
    heights = audit["heights"]
    print("screens at 1280x800:", {k: round(v, 2) for k, v in sorted(heights.items())})
    assert len(heights) >= 18
    too_long = {k: round(v, 2) for k, v in heights.items() if v > CORE_LESSON_SCREENS}
    assert not too_long, f"longer than {CORE_LESSON_SCREENS} screens: {too_long}"
