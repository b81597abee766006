"""The Chinese edition: complete, up to date with the English, one vocabulary, same pages."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from conftest import GALLERY_SCRIPTS, ROOT, make_project, sphinx_build

sys.path.insert(0, str(ROOT / "tools"))
import check_translations  # noqa: E402  (tools/ is a folder of scripts, not a package)

CATALOGUES = check_translations.CATALOGUES


def test_every_message_is_translated_with_code_numbers_and_terms_intact():
    problems = [
        problem
        for catalogue in sorted(CATALOGUES.rglob("*.po"))
        for problem in check_translations.problems_in(catalogue)
    ]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_the_checks_catch_a_broken_translation(tmp_path):
    broken = tmp_path / "auto_examples" / "page.po"  # a gallery page: reST markup
    broken.parent.mkdir()
    broken.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "The static graph traces ``f(x)`` 3 times."\n'
        'msgstr "静态图把 ``f(y)`` 追踪了 4 次。"\n\n'
        'msgid "A leaf tensor."\nmsgstr "一个叶节点。"\n\n'
        'msgid "Not yet."\nmsgstr ""\n\n'
        'msgid "Call ``f`` (once)."\nmsgstr "调用 ``f``（一次）。"\n',
        encoding="utf-8",
    )
    problems = "\n".join(check_translations.problems_in(broken))
    assert "code '``f(x)``' changed or missing" in problems
    assert "numbers differ ['3']" in problems
    assert "'leaf tensor' is not translated as 叶子节点" in problems
    assert "untranslated: 'Not yet.'" in problems
    assert "inline markup lost (a space missing next to it?): 'Call ``f`` (once).'" in problems


def test_the_catalogues_hold_exactly_the_english_of_today(tmp_path):
    """A changed English sentence must reach the catalogues (`make gettext`), or it would be
    shown in English on the Chinese pages without any test noticing."""
    docs, out = make_project(tmp_path), tmp_path / "gettext"
    result = sphinx_build(docs, out, builder="gettext", strict=False)  # as `make gettext`
    assert result.returncode == 0, result.stderr[-3000:]
    stale = []
    for template in sorted(out.rglob("*.pot")):
        name = template.relative_to(out).with_suffix(".po")
        catalogue = CATALOGUES / name
        wanted = {m.id for m in read_po(template.open("rb")) if m.id}
        have = (
            {m.id for m in read_po(catalogue.open("rb")) if m.id} if catalogue.exists() else set()
        )
        stale += [f"{name}: {text[:70]!r}" for text in sorted(wanted - have)]
    assert not stale, "English text missing from the catalogues (run `make gettext`):\n" + (
        "\n".join(stale[:40])
    )


def test_every_page_exists_in_both_languages_and_says_which(site):
    english = sorted(
        page.relative_to(site)
        for page in site.rglob("*.html")
        if page.relative_to(site).parts[0] not in ("zh_CN", "_static")
    )
    assert len(english) > 20
    for page in english:
        chinese = site / "zh_CN" / page
        assert chinese.exists(), f"no Chinese page for {page}"
        for path, tag in ((site / page, "en"), (chinese, "zh-CN")):
            html = path.read_text(encoding="utf-8")
            assert f'<html lang="{tag}"' in html, f"{path.relative_to(site)}: lang is not {tag}"
            links = dict(
                re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"', html)
            )
            assert links["en"].endswith("/" + page.as_posix()), path
            assert links["zh-CN"].endswith("/zh_CN/" + page.as_posix()), path
            assert links["x-default"] == links["en"], path


def test_chinese_pages_are_in_chinese_with_the_same_outputs(site):
    for page in ("index.html", "auto_examples/10_graphs/plot_20_autograd.html", "glossary.html"):
        english = (site / page).read_text(encoding="utf-8")
        chinese = (site / "zh_CN" / page).read_text(encoding="utf-8")
        article = chinese.split("<article", 1)[1]
        han = len(re.findall(r"[\u4e00-\u9fff]", article))
        assert han > 200, f"zh_CN/{page}: only {han} Chinese characters"
        outputs = re.findall(r'<div class="sphx-glr-script-out.*?</pre>', english, re.S)
        for output in outputs:
            assert output in chinese, f"zh_CN/{page}: an executed output differs from English"
    glossary = (site / "zh_CN" / "glossary.html").read_text(encoding="utf-8")
    for chinese in check_translations.TERMS.values():
        assert chinese in glossary, f"the Chinese glossary lacks {chinese}"


def english_sentences(page: Path) -> set[str]:
    """The article's prose (paragraphs, list items, headings, table captions and cells) that has
    four or more English words and no Chinese: not code, not outputs, not addresses, not the
    cheatsheet's pairs of API names (``tf.concat ↔ torch.cat``)."""
    from bs4 import BeautifulSoup  # pydata-sphinx-theme's dependency

    article = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find("article")
    if article is None:  # the search page: results only
        return set()
    for code in article.select("pre, code, .highlight, .sphx-glr-script-out, .cell_output"):
        code.decompose()
    found = set()
    for element in article.find_all(["p", "li", "h1", "h2", "h3", "figcaption", "summary",
                                     "caption", "th", "td"]):
        text = " ".join(element.get_text(" ").split())
        if (len(re.findall(r"[A-Za-z]{2,}", text)) >= 4 and not re.search(r"[\u4e00-\u9fff]", text)
                and not text.startswith("http") and "↔" not in text):
            found.add(text)
    return found


def test_the_chinese_pages_show_no_english_sentence(site):
    """What gettext never sees stays English on a Chinese page (a button's text did, on the
    landing page, and the benchmark tables, written at run time): no sentence of an English
    page may appear unchanged on its Chinese twin."""
    pages = [page for page in site.glob("**/*.html")
             if page.relative_to(site).parts[0] not in ("zh_CN", "_static", "_downloads")]
    assert len(pages) >= 30
    for page in pages:
        twin = site / "zh_CN" / page.relative_to(site)
        same = english_sentences(page) & english_sentences(twin)
        assert not same, f"zh_CN/{page.relative_to(site)} shows English: {sorted(same)[:5]}"


def test_the_chinese_404_page_and_gallery_links_are_in_chinese(site):
    missing = (site / "zh_CN" / "404.html").read_text(encoding="utf-8")
    assert "找不到页面" in missing and "Page not found" not in missing
    for index in (site / "zh_CN" / "auto_examples").rglob("index.html"):
        html = index.read_text(encoding="utf-8")
        for script in GALLERY_SCRIPTS:  # a thumbnail's link is named by its page's title
            english = re.search(r"^(.+)\n=+$", script.read_text(encoding="utf-8"), re.M)[1]
            assert f">{english}<" not in html, f"zh_CN {index.parent.name}: English {english!r}"


def test_chinese_search_knows_every_glossary_term_as_a_word():
    """jieba splits 计算图 into 计算 + 图 unless its dictionary has the word (conf.py gives it)."""
    words = (CATALOGUES.parent / "search_words.txt").read_text(encoding="utf-8").split()
    terms = {**check_translations.TERMS, **check_translations.VOCABULARY}.values()
    missing = [term for term in terms if term not in words]
    assert not missing, f"add to docs/locale/zh_CN/search_words.txt: {missing}"


def test_gnu_msgfmt_accepts_every_catalogue():
    """As every gettext tool reads them (Sphinx's reader is more lenient): no duplicate message,
    which an obsolete ``#~`` entry repeating a live one would be (make gettext drops those)."""
    import shutil

    msgfmt = shutil.which("msgfmt") or pytest.fail("msgfmt is missing: `make test` installs gettext")
    for catalogue in sorted((ROOT / "docs/locale/zh_CN/LC_MESSAGES").glob("*.po")):
        result = subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(catalogue)],
                                capture_output=True, text=True)
        assert result.returncode == 0, f"{catalogue.name}: {result.stderr[-2000:]}"
        assert "\n#~ msgid" not in catalogue.read_text(encoding="utf-8"), catalogue.name


# --- the Chinese edition's downloads (sphinx_extensions/translated_downloads.py) ---------------

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_download_text_is_translated_paragraph_by_paragraph_and_code_stays():
    from sphinx_extensions.translated_downloads import translate_script

    table = {
        "A title": "标题",
        "One paragraph over two lines.": "一段。",
        "An item over two lines.": "一项。",
    }
    source = (
        '"""\nA title\n=======\n\nOne paragraph\nover two lines.\n"""\n'
        "x = 1  # A title\n\n"
        "# %%\n# * An item\n#   over two lines.\n# * Not in the catalogue.\n#\n# Code::\n#\n"
        "#     A title\ny = 2\n"
    )
    assert translate_script(source, lambda m: table.get(m, m)) == (
        '"""\n标题\n====\n\n一段。\n"""\n'
        "x = 1  # A title\n\n"
        "# %%\n# * 一项。\n# * Not in the catalogue.\n#\n# Code::\n#\n#     A title\ny = 2\n"
    )


def _download_links(site, language: str, page: str) -> dict[str, Path]:
    """A page's downloads (.py, .ipynb, .zip), and the notebook its Colab link opens."""
    html_file = site / language / page
    html = html_file.read_text(encoding="utf-8")
    links = re.findall(rf'href="([^"]*_downloads/\w+/{Path(page).stem}\.(?:py|ipynb|zip))"', html)
    colab = re.findall(r'href="https://colab\.research\.google\.com/github/[^"]+?/blob/colab/'
                       r'([^"]+)"', html)
    return {**{Path(link).suffix: html_file.parent / link for link in links}, "colab": colab}


def test_a_chinese_page_downloads_its_text_in_chinese_with_the_same_code(site):
    """The zh page's script, notebook, zip and Colab notebook: the English ones with the text
    from the catalogue (the title first) and the code unchanged, cell for cell."""
    import json
    import zipfile

    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    page = "auto_examples/10_graphs/plot_20_autograd.html"
    english, chinese = _download_links(site, "", page), _download_links(site, "zh_CN", page)
    assert english.keys() == chinese.keys() == {".py", ".ipynb", ".zip", "colab"}
    blocks = {
        language: [(b.type, b.content) for b in split_code_and_text_blocks(files[".py"])[1]]
        for language, files in (("en", english), ("zh", chinese))
    }
    code = {language: [c for t, c in found if t == "code"] for language, found in blocks.items()}
    assert code["zh"] == code["en"], "the Chinese script's code differs from the English"
    title = {language: found[0][1].strip().split("\n")[0] for language, found in blocks.items()}
    catalogue = {m.id: m.string for m in read_po((CATALOGUES / "sidebyside.po").open("rb"))}
    assert title["zh"] == catalogue[title["en"]] and HAN.search(title["zh"]), title

    notebooks = {
        language: json.loads(files[".ipynb"].read_text(encoding="utf-8"))["cells"]
        for language, files in (("en", english), ("zh", chinese))
    }
    cells = {
        language: [c["source"] for c in found if c["cell_type"] == "code"]
        for language, found in notebooks.items()
    }
    assert cells["zh"] == cells["en"], "the Chinese notebook's code differs from the English"
    markdown = ["".join(c["source"]) for c in notebooks["zh"] if c["cell_type"] == "markdown"]
    assert markdown[0].lstrip().startswith(f"# {title['zh']}\n"), markdown[0][:200]

    with zipfile.ZipFile(chinese[".zip"]) as archive:
        held = {Path(name).suffix: archive.read(name) for name in archive.namelist()}
    assert held == {suffix: chinese[suffix].read_bytes() for suffix in (".py", ".ipynb")}

    assert english["colab"] == ["plot_20_autograd.ipynb"]
    assert chinese["colab"] == ["zh_CN/plot_20_autograd.ipynb"]
    opened = (site.parent / "colab" / chinese["colab"][0]).read_bytes()
    assert opened == chinese[".ipynb"].read_bytes(), "Colab opens another notebook"
