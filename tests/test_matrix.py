"""make matrix (tools/matrix.py) compares outputs across variants: what it sets aside."""

import matrix  # tools/matrix.py
import versions  # tools/versions.py


def test_outputs_compare_without_machine_lines_but_real_differences_stay():
    here = "CPU: Intel\nOn this machine (oneDNN on):\n  stats: 1\nloss 0.5\n"
    there = "CPU: AMD\nOn this machine (oneDNN off):\n  ValueError: no\n    stats\nloss 0.5\n"
    here += "On this version (torch 2.13):\n  DeprecationWarning: deprecated\nend\n"
    there += "On this version (torch 2.15):\n  FutureWarning: deprecated\nend\n"
    assert matrix.comparable("plot_x.py", here) == matrix.comparable("plot_x.py", there)
    assert matrix.comparable("plot_x.py", "loss 0.5\n") != matrix.comparable(
        "plot_x.py", "loss 0.50001\n"
    )


def test_a_measuring_page_compares_its_lines_without_numbers():
    one, two = "table\nrow 1.2 ms\n", "table\nrow 1.9 ms (noisy)\n"
    assert matrix.comparable("plot_10_benchmark.py", one) == ["table"]
    assert matrix.comparable("plot_10_benchmark.py", two) == ["table"]


def test_the_versions_tested_are_the_ends_of_the_declared_range():
    supported = {"torch": ((2, 13), (3, 0)), "tensorflow": ((2, 21), (3, 0))}
    assert versions.ends(supported) == {
        "lowest": ["torch==2.13.*", "tensorflow-cpu==2.21.*"],
        "newest": ["torch<3.0", "tensorflow-cpu<3.0"],
    }
