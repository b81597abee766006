import sidebyside
from sidebyside.capture import (
    CountingBackend,
    SavedTensorCounter,
    backward_nodes,
    call_names,
    failed_guard,
)

import pytest
import torch


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
