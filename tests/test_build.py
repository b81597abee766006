"""The site builds strictly; broken examples, leaks and bad references fail it, saying where."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import GALLERY_SCRIPTS, MEASURED, ROOT, make_project, sphinx_build

TINY_INDEX = "# tiny\n\n```{toctree}\nauto_examples/index\n```\n"


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
        assert "<th>CPU</th>" in page and "<th>TensorFlow</th>" in page
        outputs = ("sphx-glr-script-out", "sphx-glr-single-img", "output_html")
        assert any(output in page for output in outputs), f"{script.name}: no executed output"


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
    stated_somewhere = False
    for script in GALLERY_SCRIPTS:
        html = example_page(site, script).read_text(encoding="utf-8")
        assert not counts_not_measured(html), f"{script.name}: {counts_not_measured(html)}"
        stated_somewhere |= "traces with tensors: 1" in html
    assert stated_somewhere, "the retracing page states no count"
    # The check sees a wrong count: the retracing page with one stated count changed.
    page = site / "auto_examples/10_graphs/plot_50_retracing.html"
    stated = 'ints:</span> <span class="pre">3</span>'
    html = page.read_text(encoding="utf-8")
    assert stated in html
    wrong = html.replace(stated, stated.replace(">3<", ">4<"), 1)
    assert counts_not_measured(wrong) == ["traces with Python ints: 4"]


def visible_text(html: str) -> str:
    """Page text without markup, timings and dates: what must not change between builds."""
    text = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", " ", html, flags=re.S)
    text = re.sub(r"\(\s*\d+ minutes\s+[\d.]+ seconds\)", "(TIME)", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "(DATE)", text)
    return re.sub(r"\s+", " ", text)


def test_two_builds_give_the_same_pages(site, tmp_path):
    result = sphinx_build(make_project(tmp_path), tmp_path / "html")
    assert result.returncode == 0, result.stderr[-4000:]
    differing = []
    for first in sorted(site.rglob("*.html")):
        if any(word in first.name for word in MEASURED):  # their numbers are measurements
            continue
        if first.relative_to(site).parts[0] == "zh_CN":
            continue  # the translation: its own tests compare it with the English
        second = tmp_path / "html" / first.relative_to(site)
        if visible_text(first.read_text()) != visible_text(second.read_text()):
            differing.append(str(first.relative_to(site)))
    assert not differing, f"pages whose text changed between two builds: {differing}"


def test_no_page_loads_anything_from_another_host(site):
    external = re.compile(
        r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//"""
    )
    for page in site.rglob("*.html"):
        for tag in external.findall(page.read_text(encoding="utf-8")):
            if "<link" in tag and "stylesheet" not in tag:
                continue
            pytest.fail(f"{page.relative_to(site)} loads an external resource: {tag}")


def test_no_broken_internal_link_or_anchor(server, tmp_path):
    """linkchecker walks every local page and checks links and #anchors (a missing anchor is a
    warning); other hosts are skipped, and so is _static/, which the browser test loads."""
    config = tmp_path / "linkcheckerrc"
    config.write_text(
        "[filtering]\nignore=\n  ^https?://(?!127\\.0\\.0\\.1)\n  ^mailto:\n  /_static/\n\n[AnchorCheck]\n"
    )
    linkchecker = shutil.which("linkchecker", path=str(Path(sys.executable).parent))
    result = subprocess.run(
        [linkchecker, "-f", str(config), "--no-status", f"{server}/index.html"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "0 warnings found" in result.stdout and "0 errors found" in result.stdout
    checked = int(re.search(r"(\d+) links? in \d+ URLs? checked", result.stdout)[1])
    assert checked > 100, f"linkchecker followed only {checked} links"


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


def test_an_example_that_raises_fails_the_build_but_the_others_still_build(tmp_path):
    result, log, html = tiny_build(
        tmp_path,
        {
            "plot_a_fails.py": "def compute():\n    raise ValueError('boom in compute')\ncompute()",
            "plot_b_works.py": "print('still here')",
        },
    )
    assert result.returncode != 0
    assert "plot_a_fails.py" in log and "ValueError: boom in compute" in log
    assert "Traceback" in log and "in compute" in log
    assert "still here" in (html / "auto_examples/plot_b_works.html").read_text()


@pytest.mark.parametrize("exit_call", ["import sys\nsys.exit(0)", "exit()", "raise SystemExit(0)"])
def test_an_example_that_exits_fails_the_build(tmp_path, exit_call):
    result, log, _ = tiny_build(tmp_path, {"plot_exits.py": f"print('before')\n{exit_call}"})
    assert result.returncode != 0, log[-3000:]
    assert "plot_exits.py" in log or "SystemExit" in log


def test_leaving_graph_mode_on_fails_the_build_naming_the_example(tmp_path):
    # The name is spelled in two parts so that a grep for the forbidden call finds real uses only.
    leak = "import tensorflow as tf\ngetattr(tf.compat.v1, 'disable_eager' + '_execution')()"
    result, log, _ = tiny_build(tmp_path, {"plot_leaks.py": leak, "plot_next.py": "print(1)"})
    assert result.returncode != 0
    assert "plot_leaks.py leaked global state" in log
    assert "TensorFlow executes eagerly: True before, False after" in log


def test_torch_default_dtype_leak_fails_the_build(tmp_path):
    result, log, _ = tiny_build(
        tmp_path,
        {
            "plot_dtype.py": "import torch\ntorch.set_default_dtype(torch.float64)",
        },
    )
    assert result.returncode != 0
    assert "plot_dtype.py leaked global state" in log and "torch default dtype" in log


def test_deprecated_call_in_example_code_fails_the_build(tmp_path):
    result, log, _ = tiny_build(
        tmp_path,
        {
            "plot_old.py": "import warnings\nwarnings.warn('use the new API', DeprecationWarning)",
        },
    )
    assert result.returncode != 0
    assert "plot_old.py" in log and "DeprecationWarning: use the new API" in log


def test_a_notebook_page_that_raises_fails_the_build_naming_it(tmp_path):
    index = (
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n"
        + TINY_INDEX
        + "\n```{code-cell} ipython3\nraise ValueError('notebook boom')\n```\n"
    )
    result, log, _ = tiny_build(tmp_path, {"plot_ok.py": "print(1)"}, index=index)
    assert result.returncode != 0
    assert "index.md failed to execute" in log and "notebook boom" in log


def test_a_broken_cross_reference_fails_the_build(tmp_path):
    index = TINY_INDEX + "\nSee {ref}`a-label-that-does-not-exist`.\n"
    result, log, _ = tiny_build(tmp_path, {"plot_ok.py": "print(1)"}, index=index)
    assert result.returncode != 0
    assert "a-label-that-does-not-exist" in log


def test_the_edit_loop_re_executes_only_the_named_example(tmp_path):
    """The contributor's loop: after a full build, EXAMPLE=<part of a file name> executes just
    that script; the other pages keep their outputs. A full build executes everything again."""
    gallery, runs = tmp_path / "g", tmp_path / "runs.txt"
    gallery.mkdir()
    (gallery / "GALLERY_HEADER.rst").write_text("Tiny\n====\n")
    for name in ("plot_alpha.py", "plot_beta.py"):
        body = f'with open({str(runs)!r}, "a") as log:\n    print("{name}", file=log)\n'
        (gallery / name).write_text(f'"""\n{name}\n{"=" * len(name)}\n"""\n{body}print(1)\n')
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
