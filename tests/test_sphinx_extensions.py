"""Each of the site's Sphinx extensions (sphinx_extensions/) does its own job: one test or more a module,
on small inputs. The site's build (test_build.py, test_i18n.py, test_browser.py) checks them
working together."""

from pathlib import Path
from types import SimpleNamespace

from conftest import ROOT
from docutils import nodes

from sphinx_extensions import (
    downloads,
    example_checks,
    languages,
    notebook_pages,
    paint_early,
    panes,
    site_files,
    stylesheets,
    theme_fixes,
)


def bold_paragraph(text: str) -> nodes.paragraph:
    return nodes.paragraph("", "", nodes.strong(text, text), nodes.Text(" says"))


def code(text: str) -> nodes.literal_block:
    return nodes.literal_block(text, text, language="python")


def test_panes_put_a_tensorflow_cell_and_the_pytorch_cell_after_it_in_one_grid():
    section = nodes.section()
    section += [bold_paragraph("TensorFlow"), code("tf"), bold_paragraph("PyTorch"), code("pt")]
    document = nodes.document(None, None)
    document += section
    panes.wrap_panes(SimpleNamespace(env=SimpleNamespace(docname="auto_examples/a/x")), document)
    (grid,) = section.children
    assert grid["classes"] == ["sbs-grid"]
    assert [pane["classes"][-1] for pane in grid.children] == ["sbs-tf", "sbs-torch"]
    assert grid.children[1].astext().endswith("pt")


def test_example_checks_register_their_hook_and_name_an_example_with_no_recorded_run(tmp_path):
    config = SimpleNamespace(sphinx_gallery_conf={"reset_modules": ("matplotlib",)})
    example_checks.register_reset_hook(None, config)
    assert config.sphinx_gallery_conf["reset_modules"] == ("matplotlib", example_checks.HOOK)

    (tmp_path / "gallery").mkdir()
    (tmp_path / "gallery" / "plot_a.py").write_text("print(1)\n")
    (tmp_path / "auto_examples").mkdir()
    (tmp_path / "auto_examples" / "plot_a.rst").write_text("a page\n")
    conf = {
        "examples_dirs": ["gallery"],
        "gallery_dirs": ["auto_examples"],
        "filename_pattern": "/plot_",
        "passing_examples": [],
        "stale_examples": [],
        "failing_examples": {},
    }
    app = SimpleNamespace(srcdir=tmp_path, config=SimpleNamespace(sphinx_gallery_conf=conf))
    try:
        example_checks.check_every_example_ran(app, None)
    except Exception as error:  # sphinx.errors.ExtensionError
        assert "plot_a.py: sphinx-gallery recorded no run of it" in str(error)
    else:
        raise AssertionError("an example with no recorded run passed the check")
    conf["passing_examples"].append(str(tmp_path / "gallery" / "plot_a.py"))  # 0.000 s is fine
    example_checks.check_every_example_ran(app, None)


def test_notebook_pages_keep_outputs_but_not_cpp_log_lines():
    import nbformat

    cell = nbformat.v4.new_code_cell("import tensorflow")
    cell.outputs = [
        nbformat.v4.new_output(
            "stream",
            name="stderr",
            text=(
                "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
                "I0000 00:00:1795559483.371981    2977 port.cc:153] oneDNN custom operations are on.\n"
            ),
        ),
        nbformat.v4.new_output("stream", name="stdout", text="2.21.0\n"),
    ]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    notebook_pages.drop_native_log_lines(notebook)
    assert [o["text"] for o in notebook.cells[0].outputs] == ["2.21.0\n"]


def test_downloads_start_with_the_install_line_then_import_sidebyside_first():
    source = '"""Title\n=====\n"""\nimport tensorflow as tf\n'
    header = downloads.with_install_header(source)
    assert header.startswith('"""Title\n=====\n"""\n')
    assert header.index("import sidebyside") < header.index("import tensorflow as tf")
    context = {}
    config = SimpleNamespace(sidebyside_repo="me/site")
    downloads.add_colab_link(
        SimpleNamespace(config=config), "auto_examples/a/plot_x", "", context, None
    )
    assert context["sbs_colab_url"] == (
        "https://colab.research.google.com/github/me/site/blob/colab/plot_x.ipynb"
    )


def test_languages_link_each_page_to_itself_in_every_language():
    config = SimpleNamespace(
        sidebyside_languages={"en": "", "zh_CN": "zh_CN/"},
        language="zh_CN",
        html_baseurl="https://x.org/site/zh_CN/",
    )
    context = {}
    languages.add_language_links(SimpleNamespace(config=config), "a/b", "", context, None)
    english, chinese = context["sbs_languages"]
    assert (
        english["url"] == "../../a/b.html" and english["absolute"] == "https://x.org/site/a/b.html"
    )
    assert chinese["url"] == "../../zh_CN/a/b.html" and chinese["current"]


def test_site_files_merge_a_translation_into_the_one_sitemap(tmp_path):
    site, translation = tmp_path / "sitemap.xml", tmp_path / "zh.xml"
    site.write_text("<urlset><url><loc>a</loc></url></urlset>")
    translation.write_text("<urlset><url><loc>zh/a</loc></url><url><loc>a</loc></url></urlset>")
    site_files._merge_sitemap(site, translation)
    assert site.read_text() == "<urlset><url><loc>a</loc></url><url><loc>zh/a</loc></url></urlset>"


def test_stylesheets_inline_imports_and_move_urls_to_static(tmp_path):
    static = tmp_path / "_static"
    (static / "theme" / "fonts").mkdir(parents=True)
    (static / "theme" / "base.css").write_text("a{b:url(fonts/f.woff2)}")
    (static / "theme" / "main.css").write_text("@import 'base.css';\nc{d:url(data:x)}")
    css = stylesheets._inline_css(static / "theme" / "main.css", static)
    assert css == "a{b:url(theme/fonts/f.woff2)}\nc{d:url(data:x)}"


def test_paint_early_lazy_images_and_deferred_scripts():
    from sphinx.builders.html._assets import _JavaScript

    context = {
        "body": '<img src="a.png"><img loading="eager" src="b.png">',
        "script_files": [_JavaScript("x.js"), _JavaScript("documentation_options.js")],
    }
    paint_early.paint_early(None, "page", "", context, None)
    assert context["body"] == '<img loading="lazy" src="a.png"><img loading="eager" src="b.png">'
    assert [js.attributes.get("defer") for js in context["script_files"]] == ["defer", None]


def test_theme_fixes_drop_the_code_link_pass():
    class CodeLinksTransform:
        pass

    class Other:
        pass

    app = SimpleNamespace(registry=SimpleNamespace(post_transforms=[CodeLinksTransform, Other]))
    theme_fixes.skip_code_links(app)
    assert app.registry.post_transforms == [Other]


def test_every_extension_module_has_a_setup_and_says_what_it_adds():
    import sphinx_extensions

    for module in Path(sphinx_extensions.__file__).parent.glob("*.py"):
        text = module.read_text(encoding="utf-8")
        assert text.startswith('"""'), f"{module.name}: no docstring"
        if module.stem not in ("__init__", "dark_colors"):
            assert "\ndef setup(app)" in text, f"{module.name}: no setup()"
            assert len(text.splitlines()) <= 250, f"{module.name}: over 250 lines"


def test_one_build_recipe_and_build_modes_read_once():
    """tools/site_build.py is the one recipe: the Makefile, tox, the benchmark and the tests call
    it instead of writing sphinx-build's command again; the build's modes are config values that
    sphinx_extensions/build_modes.py reads once, so conf.py and the extensions never read the
    environment."""
    import re

    import site_build  # tools/

    makefile = (ROOT / "Makefile").read_text()
    assert "sphinx-build" not in makefile and "sphinx-autobuild" not in makefile
    for target in ("html", "gettext", "serve"):
        recipe = re.search(rf"^{target}:.*?(?=^\S)", makefile, re.M | re.S)[0]
        assert "$(SITE_BUILD)" in recipe, f"make {target} does not build through the recipe"
    assert "SITE_BUILD = $(BIN)/python tools/site_build.py" in makefile
    assert "python tools/site_build.py" in (ROOT / "tox.ini").read_text()
    assert "site_build.command(" in (ROOT / "tools" / "bench_build.py").read_text()
    assert "site_build.command(" in (ROOT / "tests" / "conftest.py").read_text()
    for path in [ROOT / "docs" / "conf.py", *sorted((ROOT / "sphinx_extensions").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        assert "os.environ.get(" not in text and "os.environ[" not in text.replace(
            'os.environ["IPYTHONDIR"] =', ""
        ), f"{path.name} reads the environment"
    # The recipe's command is make html's: strict, nitpicky, fresh, the modes as -D values.
    command = site_build.command()
    assert {"-W", "-n", "--keep-going", "-E"} <= set(command)
    assert "sidebyside_execute=1" in command and "language=en" in command
    zh = site_build.command(language="zh_CN")
    assert "sidebyside_execute=0" in zh and zh[-1].endswith("zh_CN")
    assert "-E" not in site_build.command(example="autograd")  # the edit loop re-reads little


def test_test_modules_import_no_other_test_module():
    """Shared test setup lives in conftest.py; a test module imports no other test module (nor
    conftest.py one), so each can be read and run on its own."""
    import ast

    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not [n for n in names if n.startswith("test_")], f"{path.name} imports {names}"


def test_a_figures_words_are_drawn_again_in_chinese(tmp_path, monkeypatch):
    """Titles, axis labels, legends and notes of three words are the figure's prose: listed for
    the catalogue, and where it translates them, the figure is saved again in Chinese (light and
    dark) with the CJK font that `make test` installs; the figure itself is left as it was."""
    import matplotlib.pyplot as plt

    from sphinx_extensions import figure_words

    fig, ax = plt.subplots()
    ax.plot([1, 2], label="padded steps")
    ax.legend()
    ax.set(title="GRU steps\ncomputed", xlabel="batch")
    ax.text(1, 1, "x")  # a name, not prose
    ax.text(1, 1.5, "arrows point to outputs")
    ax.text(1, 1.8, "Sum/\nreduction_indices\nConst")  # a node's label: a name per line
    table = {"GRU steps computed": "计算的 GRU 步数", "padded steps": "填充后的步数"}
    monkeypatch.setitem(figure_words._catalogues, "zh_CN", table)
    light, dark = tmp_path / "a.png", tmp_path / "a_dark.png"
    words = figure_words.save_translated(fig, light, dark, {}, tmp_path)
    assert set(words) == {"GRU steps computed", "batch", "padded steps", "arrows point to outputs"}
    assert {p.name for p in tmp_path.iterdir()} == {"a_zh_CN.png", "a_dark_zh_CN.png"}
    assert ax.get_title() == "GRU steps\ncomputed"
    assert ax.get_legend().get_texts()[0].get_text() == "padded steps"
    assert figure_words.hidden_words(words).count('<span class="sbs-t">') == 4
    plt.close(fig)
