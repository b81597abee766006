"""sidebyside.cheatsheet: rows run and checked, failures name the row, the HTML it writes."""

import base64
import re

import sidebyside
from sidebyside.cheatsheet import Cheatsheet, anchor, describe, key_lines, refused

import numpy as np
import pytest
import tensorflow as tf
import torch


def tf_double():
    x = tf.constant([1.0, 2.0])
    y = x * 2  # doubled
    return y


def torch_double():
    x = torch.tensor([1.0, 2.0])
    y = x * 2  # twice
    return y, y.dtype


def tf_triple():
    x = tf.constant([1.0, 2.0])
    return x * 3  # tripled


def no_comment():
    return torch.ones(1)


def recorded(title="tf.x ↔ torch.x", note="How they differ.", tf_fn=tf_double):
    """A cheatsheet with one row that passed."""
    sheet = Cheatsheet("Test sheet: TensorFlow ↔ PyTorch")

    @sheet.row("Group one", title, tf=tf_fn, torch=torch_double, note=note)
    def check(tf_y, torch_out):
        """Both double."""
        sidebyside.assert_close(tf_y, torch_out[0], what="x * 2")

    return sheet


def test_a_row_runs_both_checks_tf_first_and_records_source_and_results():
    sheet, seen = Cheatsheet("t"), []

    @sheet.row("G", "tf.x ↔ torch.x", tf=tf_double, torch=torch_double, note="n")
    def check(tf_out, torch_out):
        """Both double,
        on two lines."""
        seen.append((tf_out, torch_out))

    ((tf_out, torch_out),) = seen
    assert isinstance(tf_out, tf.Tensor) and isinstance(torch_out[0], torch.Tensor)
    (row,) = sheet.rows
    assert row.checked == "Both double, on two lines."
    assert row.tf.code == "x = tf.constant([1.0, 2.0])\ny = x * 2  # doubled\nreturn y"
    assert row.tf.key == "y = x * 2  # doubled"
    assert [name for name, _ in row.torch.results] == ["y", "y.dtype"]
    assert row.torch.results[1][1] == torch.float32
    assert check.__name__ == "check", "the decorator hands the check back"


def test_a_failing_check_names_the_row_and_records_nothing():
    sheet = Cheatsheet("t")
    with pytest.raises(AssertionError) as raised:

        @sheet.row("G", "tf.x ↔ torch.x", tf=tf_triple, torch=torch_double, note="n")
        def check(tf_y, torch_out):
            """The same values."""
            sidebyside.assert_close(tf_y, torch_out[0], what="x * k")

    message = str(raised.value)
    assert message.startswith("cheatsheet row 'tf.x ↔ torch.x': AssertionError:")
    assert "x * k: TensorFlow and PyTorch disagree" in message
    assert sheet.rows == []


def test_an_error_inside_a_framework_function_names_the_row():
    def torch_broken():
        return torch.ones(2) + torch.ones(3)  # shapes do not broadcast

    with pytest.raises(AssertionError, match=r"^cheatsheet row 'broken': RuntimeError: "):

        @Cheatsheet("t").row("G", "broken", tf=tf_double, torch=torch_broken, note="n")
        def check(tf_out, torch_out):
            """Never reached."""


def test_a_row_needs_commented_lines_and_a_check_docstring():
    with pytest.raises(AssertionError, match="no_comment needs a comment on the lines"):

        @Cheatsheet("t").row("G", "row", tf=tf_double, torch=no_comment, note="n")
        def check(tf_out, torch_out):
            """Anything."""

    with pytest.raises(AssertionError, match="check needs a docstring"):

        @Cheatsheet("t").row("G", "row", tf=tf_double, torch=torch_double, note="n")
        def check(tf_out, torch_out):
            pass


def test_refused_passes_only_when_the_block_raises_what_it_names():
    with refused(tf.errors.InvalidArgumentError, claim="TF does not promote"):
        tf.constant([1, 2]) + tf.constant([1.5, 2.5])
    with pytest.raises(AssertionError, match=r"expected RuntimeError or TypeError: adds"):
        with refused(RuntimeError, TypeError, claim="adds"):
            torch.ones(2) + torch.ones(2)
    with pytest.raises(ZeroDivisionError):  # another error is not proof: it propagates
        with refused(TypeError, claim="divides"):
            divmod(1, 0)


def test_a_refused_block_that_does_not_raise_fails_its_row():
    sheet = Cheatsheet("t")
    with pytest.raises(AssertionError, match=r"^cheatsheet row 'r': AssertionError: expected"):

        @sheet.row("G", "r", tf=tf_double, torch=torch_double, note="n")
        def check(tf_out, torch_out):
            """PyTorch refuses to add (it does not)."""
            with refused(RuntimeError, claim="PyTorch refuses"):
                torch.ones(2) + torch.ones(2)


def text_of(fragment: str) -> str:
    """What a reader sees of an HTML fragment: tags dropped, entities left as they are."""
    return " ".join(re.sub(r"<[^>]+>", " ", fragment).split())


def test_the_table_puts_tensorflow_left_and_pytorch_right():
    page = recorded().table()._repr_html_()
    head = re.search(r"<thead>(.*?)</thead>", page)[1]
    assert re.findall(r"<th[^>]*>(\w+)</th>", head) == ["TensorFlow", "PyTorch"]
    keys = re.findall(r'<td data-framework="(\w+)">(.*?)</td>', page, re.S)
    assert [framework for framework, _ in keys] == ["TensorFlow", "PyTorch"]
    assert [text_of(code) for _, code in keys] == ["y = x * 2 # doubled", "y = x * 2 # twice"]
    full = re.findall(r'<div data-framework="(\w+)">(.*?)</pre></div>', page, re.S)
    assert [framework for framework, _ in full] == ["TensorFlow", "PyTorch"]
    assert "constant" in full[0][1] and "tensor" in full[1][1]
    assert 'id="cheatsheet-group-one"' in page and 'id="cheatsheet-tf-x-torch-x"' in page
    assert repr(recorded().table()) == "Cheatsheet table: 1 rows"


def test_each_row_shows_its_key_lines_first_and_folds_the_rest_away():
    """Operation, how they differ, the commented lines; then, folded: code, results, check."""
    page = recorded().table()._repr_html_()
    op, key, more = re.findall(r'<tr class="sbs-(op|key|more)"', page)
    assert (op, key, more) == ("op", "key", "more")
    folded = re.search(r"<details>(.*?)</details>", page, re.S)[1]
    assert "✓ Checked: Both double." in text_of(folded)
    assert "return y" in text_of(folded) and "y.dtype: torch.float32" in folded
    assert "return y" not in text_of(page.replace(folded, ""))


def test_the_printable_page_is_linked_above_the_table():
    page = recorded().table(printable="sheet.html")._repr_html_()
    assert page.index('download="sheet.html"') < page.index("<table")
    assert "download=" not in recorded().table()._repr_html_()


def test_every_phrase_of_prose_is_marked_for_translation_and_nothing_else():
    """A translated edition replaces each sbs-t span's text: prose only, plain text only."""
    sheet = recorded(note="How they differ: a < b.")
    for page in (sheet.table(printable="s.html")._repr_html_(), sheet.compact().html):
        phrases = re.findall(r'<span class="sbs-t">(.*?)</span>', page, re.S)
        assert "How they differ: a &lt; b." in phrases and "Group one" in phrases
        assert all(p.strip() and "<" not in p for p in phrases), "plain text only"
        assert not any(code in p for p in phrases for code in ("x * 2", "float32"))
        left = re.sub(r'<span class="sbs-t">.*?</span>', " ", page, flags=re.S)
        left = re.sub(r"<(style|pre|strong|b|title)\b.*?</\1>", " ", left, flags=re.S)
        left = left.replace(sheet.compact().versions, " ")  # names and numbers
        assert set(text_of(left).split()) <= {"✓", "TensorFlow", "PyTorch"}, text_of(left)


def test_the_table_escapes_every_string():
    page = recorded(title="<b>x</b> ↔ y", note="a < b & c").table()._repr_html_()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt; ↔ y" in page
    assert "a &lt; b &amp; c" in page
    assert "y.dtype: torch.float32" in page  # results are text, escaped
    assert '<span class="n">torch</span>' in page  # code is highlighted by pygments


def test_the_compact_page_is_self_contained_and_offered_as_a_data_link():
    compact = recorded(note="a < b").compact(filename="sheet.html")
    page = compact.html
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")
    assert not re.search(r"https?:", page), "the page must fetch nothing"
    assert "<link" not in page and "<script" not in page and "src=" not in page
    assert "<title>Test sheet: TensorFlow ↔ PyTorch</title>" in page
    assert f"TensorFlow {tf.__version__}, PyTorch {torch.__version__}" in page
    head = re.search(r"<thead>(.*?)</thead>", page)[1]
    assert text_of(head) == "Operation TensorFlow PyTorch How they differ"
    keys = re.findall(r"<td><pre>(.*?)</pre></td>", page)
    assert keys == ["y = x * 2  # doubled", "y = x * 2  # twice"], "TensorFlow's first"
    assert "a &lt; b" in page
    link = compact._repr_html_()
    assert 'download="sheet.html"' in link
    data = re.search(r'href="data:text/html;charset=utf-8;base64,([^"]+)"', link)[1]
    assert base64.b64decode(data).decode("utf-8") == page


def test_results_are_short_stable_text():
    assert describe(torch.tensor([1.0, 2.0])) == "float32 (2,)\n[1. 2.]"
    assert describe(tf.constant(3, dtype=tf.int64)) == "int64 3"
    assert describe(np.arange(100)).startswith("int64 (100,)\n[ 0  1 ... 98 99]")
    assert describe(torch.ones(1, requires_grad=True) * 2) == "float32 (1,)\n[2.]"
    assert describe((4, 3)) == "(4, 3)"
    assert anchor("tf.slice / x[:, 1:3] ↔ narrow") == "tf-slice-x-1-3-narrow"


def test_the_figure_shows_the_rows_it_is_asked_for():
    figure = recorded().figure(["tf.x ↔ torch.x"])
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert {"TensorFlow", "PyTorch", "tf.x", "torch.x"} <= set(texts)
    figure.clear()
    with pytest.raises(ValueError, match="no such rows"):
        recorded().figure(["tf.y ↔ torch.y"])


def test_key_lines_keep_a_commented_statement_whole_and_a_block_header_alone():
    code = (
        "x = 1\n"
        "with tape:  # record\n"
        "    y = f(  # called\n"
        "        x,\n"
        "    )\n"
        "    z = y\n"
        "# a comment alone\n"
        "return z"
    )
    assert key_lines(code) == "with tape:  # record\ny = f(  # called\n    x,\n)\n# a comment alone"
