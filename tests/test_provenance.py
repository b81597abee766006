import sidebyside
from sidebyside.provenance import cpu_model

import tensorflow as tf
import torch


def test_provenance_names_the_machine_and_the_versions():
    facts = dict(sidebyside.provenance().facts)
    assert cpu_model() in facts["CPU"] and "logical cores" in facts["CPU"]
    assert facts["PyTorch"].startswith(torch.__version__)
    assert facts["TensorFlow"].startswith(tf.__version__)
    if not torch.cuda.is_available():
        assert facts["GPU"].startswith("none")
    assert facts["Ran at"].endswith("UTC")


def test_provenance_renders_as_escaped_html_and_text():
    info = sidebyside.provenance()
    page = info._repr_html_()
    assert page.startswith('<details class="sbs-provenance"')
    assert '<th><span class="sbs-t">CPU</span></th>' in page
    assert '<summary><span class="sbs-t">What ran this page</span></summary>' in page
    assert "TensorFlow: " in repr(info)


def test_only_the_prose_of_a_value_is_marked_for_translation():
    from sidebyside.provenance import PROSE_IN_VALUES
    from sidebyside.show import marked

    def _marked(value):  # as a provenance table marks a value
        return marked(value, PROSE_IN_VALUES)

    assert _marked("AMD EPYC, 2 logical cores") == 'AMD EPYC, 2 <span class="sbs-t">logical cores</span>'
    assert _marked("2.21.0 (CUDA not built in)").endswith('<span class="sbs-t">not built in</span>)')
    assert "sbs-t" not in _marked("Intel Xeon Platinum, Python 3.11")  # "on" inside words stays
    assert _marked("BLAS unknown, no oneDNN, AVX2 kernels") == (
        'BLAS <span class="sbs-t">unknown</span>, <span class="sbs-t">no oneDNN</span>, '
        'AVX2 <span class="sbs-t">kernels</span>')


def test_every_fixed_word_reaches_the_catalogue_also_where_this_machine_does_not_show_it():
    from sidebyside.provenance import PROSE_IN_VALUES
    from sidebyside.show import prose

    page = sidebyside.provenance()._repr_html_()
    hidden = page[page.index("<div hidden>"):]
    assert all(prose(word) in hidden for word in PROSE_IN_VALUES)


def test_provenance_names_the_math_libraries_only_when_asked():
    plain = dict(sidebyside.provenance().facts)
    asked = dict(sidebyside.provenance(math=True).facts)
    assert "PyTorch CPU math" not in plain
    math = asked["PyTorch CPU math"]
    assert math.startswith("BLAS ") and torch.backends.cpu.get_cpu_capability() in math
    assert list(asked)[-1] == "Ran at"
