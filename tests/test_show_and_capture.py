from pathlib import Path

import sidebyside
from sidebyside.capture import (
    CountingBackend,
    SavedTensorCounter,
    backward_nodes,
    call_names,
    failed_guard,
)

import numpy as np
import pytest
import torch
from conftest import ROOT


def test_show_error_prints_type_and_first_line_wrapped_to_the_pane(capsys):
    def fails():
        raise ValueError("a message long enough to need wrapping " * 3 + "\nsecond line")

    assert sidebyside.show_error(ValueError, fails, indent="  ") is None  # no Out in a cell
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("  ValueError: a message long")
    assert all(len(line) <= sidebyside.PANE_WIDTH for line in printed)
    assert "second line" not in "".join(printed)


def test_show_error_insists_on_the_error():
    with pytest.raises(AssertionError, match="ValueError expected"):
        sidebyside.show_error(ValueError, lambda: 1)
    with pytest.raises(KeyError):  # another error is not swallowed
        sidebyside.show_error(ValueError, dict.__getitem__, {}, "x")
    with pytest.raises(AssertionError, match="ValueError or RuntimeError expected"):
        sidebyside.show_error((ValueError, RuntimeError), lambda: 1)


def test_show_error_takes_either_of_several_types(capsys):
    sidebyside.show_error((ValueError, KeyError), dict.__getitem__, {}, "x")
    assert capsys.readouterr().out == "KeyError: 'x'\n"


def test_show_error_cuts_the_message(capsys):
    def fails():
        raise RuntimeError("Trying twice (or more). Hint: do not.")

    sidebyside.show_error(RuntimeError, fails, cut=" (")
    assert capsys.readouterr().out == "RuntimeError: Trying twice\n"


def test_backward_nodes_walk_the_record():
    w = torch.ones(2, requires_grad=True)
    names = [type(n).__name__ for n in backward_nodes((w * 2).sum())]
    assert names == ["SumBackward0", "MulBackward0", "AccumulateGrad"]


def test_the_counting_backend_keeps_graphs_and_counts_runs():
    torch.compiler.reset()
    backend = CountingBackend()
    compiled = torch.compile(lambda x: torch.sin(x) + 1, backend=backend)
    x = torch.ones(3)
    compiled(x), compiled(x)
    assert len(backend.graphs) == 1 and len(backend.runs) == 2
    assert "sin" in call_names(backend.graphs[0])
    backend.clear()
    torch.compiler.reset()
    assert backend.graphs == [] and backend.runs == []


def test_failed_guard_names_the_guard_a_recompile_would_need():
    compiled = torch.compile(lambda x: x * 2, backend="eager", dynamic=False)
    compiled(torch.ones(3))
    with torch.compiler.set_stance("fail_on_recompile"), pytest.raises(RuntimeError) as error:
        compiled(torch.ones(4))
    assert failed_guard(error.value) == "tensor 'x' size mismatch at index 0. expected 3, actual 4"


def test_saved_tensor_counter_counts_what_the_graph_holds_until_backward():
    counter = SavedTensorCounter()
    x = torch.ones(3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(counter.pack, counter.unpack):
        y = (x.sin() * x).sum()  # sin saves x; mul saves both of its inputs
    assert counter.saved() == counter.held() == 3
    y.backward()  # frees what the graph saved
    assert counter.held() == 0 and counter.saved() == 3
    assert torch.allclose(x.grad, x.cos() * x + x.sin())  # unpack gave the tensors back
    counter.clear()
    with torch.no_grad(), torch.autograd.graph.saved_tensors_hooks(counter.pack, counter.unpack):
        x.sin() * x
    assert counter.saved() == 0


def taught_copies() -> list[tuple[Path, str, str, str]]:
    """(page, name, the page's code, the package's code) for every function or class of
    sidebyside.capture that a gallery page also writes out, docstrings left out."""
    import ast
    import inspect

    from sidebyside import capture

    def without_docstring(node):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            node.body = body[1:]
        for inner in ast.walk(node):  # type annotations do not change what it does
            if isinstance(inner, ast.FunctionDef):
                inner.returns = None
            if isinstance(inner, ast.arg):
                inner.annotation = None
        return ast.dump(node, include_attributes=False)

    twins = {
        name: without_docstring(ast.parse(inspect.getsource(obj)).body[0])
        for name, obj in vars(capture).items()
        if not name.startswith("_") and getattr(obj, "__module__", "") == capture.__name__
    }
    found = []
    for page in sorted((ROOT / "gallery").rglob("plot_*.py")):
        for node in ast.parse(page.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in twins:
                found.append((page, node.name, without_docstring(node), twins[node.name]))
    return found


def test_a_helper_taught_on_a_page_is_the_one_the_package_gives_later_pages():
    """A page that teaches a helper writes it out; later pages import its twin from
    sidebyside.capture. The two must not drift apart: the same code, docstrings and type
    annotations aside."""
    copies = taught_copies()
    assert any(name == "keras_layout" for _, name, _, _ in copies)
    for page, name, ours, theirs in copies:
        assert ours == theirs, f"{page.name}: {name} differs from sidebyside.capture.{name}"


def test_keras_layout_puts_pytorchs_gates_in_keras_order():
    from sidebyside.capture import keras_layout

    gates = [np.full((2, 3), value) for value in (1.0, 2.0, 3.0)]  # r, z, n
    w_ih = np.concatenate(gates)
    kernel, recurrent, bias = keras_layout(w_ih, w_ih, np.array([1, 2, 3.0]).repeat(2),
                                           np.zeros(6))
    assert kernel.shape == (3, 6) and bias.shape == (2, 6)
    assert kernel[0].tolist() == [2, 2, 1, 1, 3, 3]  # z, r, n
