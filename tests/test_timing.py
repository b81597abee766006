from sidebyside import time_call
from sidebyside.benchmark import (
    FIRST_CALLS_MLP,
    HTML,
    TABLE_WORDS,
    Words,
    bullets,
    check_outputs,
    compare,
    differ,
    direction,
    duration,
    fastest,
    fastest_text,
    first_call_table,
    fresh_python,
    gap_verdict,
    gpu_syncs,
    hardware,
    measured,
    per_step,
    pin_threads,
    plot_steps,
    process_threads,
    say,
    step_table,
    styles,
    table,
    time_variants,
    time_workloads,
    warmup_table,
)
from sidebyside.show import prose
from sidebyside.timing import NOISY, Timing, gc_paused, settle, time_each

import pytest


class FakeClock:
    """A clock that advances one second on each read, so every timed call measures exactly 1 s."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def test_warmup_and_repeats_are_honoured():
    calls = []
    timing = time_call(lambda: calls.append(1), warmup=4, repeat=7, number=3, clock=FakeClock())
    assert len(calls) == 1 + 4 + 7 * 3  # cold call, warm-up, repeats
    assert len(timing.samples) == 7
    assert timing.samples[0] == pytest.approx(1 / 3)  # a sample is per call, not per batch


def test_sync_runs_before_every_clock_read():
    events = []
    clock = FakeClock()

    def read():
        events.append("clock")
        return clock()

    time_call(
        lambda: events.append("call"),
        warmup=1,
        repeat=2,
        sync=lambda: events.append("sync"),
        clock=read,
    )
    for i, event in enumerate(events):
        if event == "clock":
            assert events[i - 1] == "sync", events


def test_median_spread_and_noisy_flag():
    steady = Timing(first=9.0, samples=(1.0, 1.0, 1.0, 1.0, 50.0))
    assert steady.median == 1.0 and steady.spread == 0.0 and not steady.noisy
    noisy = Timing(first=1.0, samples=(1.0, 2.0, 3.0, 4.0, 5.0))
    assert noisy.median == 3.0
    assert noisy.spread == pytest.approx((4.0 - 2.0) / 2 / 3.0)
    assert noisy.noisy


# --- time_each and the benchmark page's plumbing (sidebyside.benchmark) ------------------------


def test_time_each_times_every_call_once_with_sync_before_each_clock_read():
    events = []
    clock = FakeClock()

    def read():
        events.append("clock")
        return clock()

    calls = [lambda i=i: events.append(f"call {i}") for i in range(3)]
    seconds = time_each(calls, sync=lambda: events.append("sync"), clock=read)
    assert seconds == [1.0, 1.0, 1.0]
    assert [e for e in events if e.startswith("call")] == ["call 0", "call 1", "call 2"]
    assert all(events[i - 1] == "sync" for i, e in enumerate(events) if e == "clock")


def test_time_variants_warms_up_until_settled_and_sizes_samples_from_the_settled_time():
    calls, made = [], []

    def make():
        made.append(1)
        return lambda: calls.append(1) or "output"

    # Every clock read advances 1 s, so every call takes 1 s: settled after 2 windows of 5
    # calls; a sample of 3 calls lasts sample_seconds=3, and 2 samples fill round_seconds=6.
    results, outputs = time_variants(
        {"a": (make, None)},
        min_rounds=4,
        max_rounds=4,
        sample_seconds=3,
        round_seconds=6,
        settle_seconds=100,
        clock=FakeClock(),
    )
    timing = results["a"]
    assert made == [1]  # built once
    assert timing.first == 1.0  # building and the cold call, between two clock reads
    assert len(timing.warmup) == 10 and timing.settled
    assert len(timing.samples) == 4 * 2 and len(timing.rounds) == 4
    assert timing.samples[0] == pytest.approx(1 / 3)  # per call, 3 calls per sample
    # cold call + 10 warm-up calls, then per round 1 untimed call + 2 samples of 3 calls,
    # then the call whose output is returned
    assert len(calls) == 1 + 10 + 4 * (1 + 2 * 3) + 1
    assert outputs == {"a": "output"}


def test_time_variants_stops_a_variant_once_its_spread_is_within_the_target():
    clock = FakeClock()
    steady, _ = time_variants(
        {"a": (lambda: lambda: None, None)}, min_rounds=3, max_rounds=9, clock=clock
    )
    assert len(steady["a"].rounds) == 3 and steady["a"].spread == 0


def test_settle_waits_out_a_compiler_that_optimises_on_its_first_calls():
    seconds = iter([0.5, 0.9, 0.8] + [0.01] * 20)
    now = [0.0]

    def clock():  # each call of fn advances the clock by the next duration
        return now[0]

    def fn():
        now[0] += next(seconds)

    took, settled = settle(fn, window=3, tolerance=0.05, clock=clock)
    assert settled and took[:3] == pytest.approx([0.5, 0.9, 0.8])
    assert len(took) == 8  # the medians of calls 3-5 and 6-8 agree
    timing = Timing(first=0.1, samples=(0.01,) * 5, warmup=tuple(took))
    assert timing.warmup_extra == pytest.approx(2.2 + 5 * 0.01 - 8 * 0.01)


def test_settle_gives_up_after_max_seconds():
    took, settled = settle(lambda: None, window=5, tolerance=-1, max_seconds=3, clock=FakeClock())
    assert not settled and len(took) == 4  # 4 calls of 1 s exceed 3 s


def test_spread_is_half_the_range_of_the_round_medians_when_there_are_rounds():
    timing = Timing(first=0.0, samples=(1.0, 1.0, 1.0), rounds=(0.9, 1.0, 1.1))
    assert timing.spread == pytest.approx(0.1)


def test_a_gap_within_the_spreads_is_a_tie():
    a = Timing(first=0.0, samples=(1.0,), rounds=(0.95, 1.05))  # ±5 %
    b = Timing(first=0.0, samples=(1.08,), rounds=(1.04, 1.12))  # ±3.7 %
    c = Timing(first=0.0, samples=(1.5,), rounds=(1.49, 1.51))
    assert not differ(a, b) and differ(a, c)
    results = {"a": a, "b": b, "c": c, "off": "not run: budget"}
    assert fastest(results) == ["a", "b"]
    assert fastest({"a": a, "c": c}) == ["a"]
    assert compare(results, "b", "a") == "no different from a beyond the spreads (1.08× ±9%)"
    assert compare(results, "c", "a") == "1.50× ±6% as long as a"  # ±(5% + 0.7%)
    assert direction(c, a) == 1 and direction(a, c) == -1 and direction(a, b) == 0


def test_a_variant_not_run_or_failing_says_why_and_the_others_still_run():
    def broken():
        raise ValueError("no such kernel\nsecond line")

    def fails_when_called():
        def run():
            raise RuntimeError("cold call failed")

        return run

    results, outputs = time_variants(
        {
            "skipped": "not run: compiled on one workload only",
            "broken": (broken, None),
            "fails": (fails_when_called, None),
            "works": (lambda: lambda: 42, None),
        },
        max_rounds=1,
        clock=FakeClock(),
    )
    assert results["skipped"] == "not run: compiled on one workload only"
    assert results["broken"] == "failed: ValueError: no such kernel"
    assert results["fails"] == "failed: RuntimeError: cold call failed"
    assert isinstance(results["works"], Timing)
    assert list(results) == ["skipped", "broken", "fails", "works"]  # the caller's order
    assert outputs == {"works": 42}
    assert list(measured(results)) == ["works"]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (1234.5, "1,234.50 s"),
        (0.1, "0.10 s"),
        (0.0999, "99.90 ms"),
        (1e-3, "1.00 ms"),
        (9.99e-4, "999.0 µs"),
        (5e-6, "5.0 µs"),
    ],
)
def test_duration_picks_the_unit(seconds, text):
    assert duration(seconds) == text


def steady(median, first=0.0):
    return Timing(first=first, samples=(median,) * 5)


def test_per_step_and_compare_read_the_medians():
    results = {
        "eager": steady(2e-3),
        "graph": steady(1e-3),
        "slow": steady(5e-3),
        "off": "not run: budget",
    }
    assert per_step(results, "graph") == "1.00 ms ±0.0%"  # every reading carries its spread
    assert per_step(results, "off") == "not measured"
    assert compare(results, "graph", "eager") == "2.00× ±0% faster than eager"
    assert compare(results, "slow", "eager") == "2.50× ±0% as long as eager"
    assert compare(results, "off", "eager") == "not comparable with eager"
    assert compare(results, "graph", "off") == "not comparable with off"


def test_table_escapes_text_and_shows_as_html():
    page = table("a < b", ["x", "y"], [["1\n2", "<script>"]], notes=["& more"])
    assert isinstance(page, HTML) and page._repr_html_() == page
    assert page.startswith('<div class="pst-scrollable-table-container"><table class="sbs-bench">'
                           "<caption>a &lt; b</caption>")
    assert "<th>x</th><th>y</th>" in page
    assert "<td>1<br>2</td><td>&lt;script&gt;</td>" in page
    assert "<li>&amp; more</li>" in page and "<script>" not in page
    marked = table(("x ", Words("a < b")), [Words("w")], [[("1", HTML("<br>"), "2")]])
    assert f"<caption>x {prose('a < b')}</caption>" in marked and prose("a < b") == (
        '<span class="sbs-t">a &lt; b</span>')  # Words: translated; HTML: as it is; the rest data
    assert f"<th>{prose('w')}</th>" in marked and "<td>1<br>2</td>" in marked
    assert bullets(["one", "t<o"]) == "<ul><li>one</li><li>t&lt;o</li></ul>"


def test_step_table_shows_median_spread_ratio_and_why_a_variant_is_missing():
    noisy = Timing(first=0.0, samples=(3e-3,), rounds=(2e-3, 4e-3))
    results = {
        "small": {"eager": steady(1e-3), "graph": noisy, "compiled": "not run: budget"},
        "large": {"eager": steady(2e-3), "graph": steady(1e-3), "compiled": "not run: budget"},
    }
    page = step_table(results, ["eager", "graph", "compiled"], reference="eager", caption="c")
    assert f"<caption>{prose('c')}</caption><thead><tr><th>{prose('workload')}</th>" in page
    assert "<td>small</td><td>1.00 ms<br>±0.0%</td>" in page
    assert f"<td>3.00 ms<br>±33.3% · 3.00×<br>{prose('noisy')}</td><td>{prose('not run')}</td>" in page
    assert "<td>1.00 ms<br>±0.0% · 0.50×</td>" in page
    assert f"<li>compiled (small; large): {prose('not run: budget')}</li>" in page
    assert page.index("<td>small</td>") < page.index("<td>large</td>")
    tie = {"w": {"eager": steady(1e-3), "graph": steady(1e-3)}}
    assert f"1.00×<br>{prose('(tie)')}" in step_table(tie, ["eager", "graph"], reference="eager",
                                                   caption="")


def test_a_tables_words_are_marked_for_translation_and_its_data_is_not():
    """A translated page replaces ``sbs-t`` spans: the captions' and notes' words, never the
    machine's name, the numbers, the variants' names or an error's own message."""
    page = first_call_table({"w": {"a": "failed: OSError: no such file"}}, ["a"],
                            caption="First call", machine="AMD EPYC, 2 logical cores")
    assert (f"<caption>{prose('First call')}<br>AMD EPYC, 2 {prose('logical cores')}</caption>"
            in page)
    assert f"<li>a (w): {prose('failed')}: OSError: no such file</li>" in page
    hidden = page[page.index("<div hidden>"):]  # for the catalogue: the words no cell showed too
    assert all(prose(word) in hidden for word in TABLE_WORDS) and "not settled" in TABLE_WORDS


def test_noisy_means_one_threshold_in_the_timing_and_in_the_table():
    wide = Timing(first=0.0, samples=(1e-3,), rounds=(0.95e-3, 1.05e-3))  # ±5 %: above 3 %
    assert wide.spread == pytest.approx(0.05) and NOISY == 0.10 and not wide.noisy
    page = step_table({"w": {"a": wide}}, ["a"], reference="a", caption="", target=0.03)
    assert f"<br>{prose('noisy')}" not in page and "a spread above 10%" in page
    over = Timing(first=0.0, samples=(1e-3,), rounds=(0.85e-3, 1.15e-3))
    assert over.noisy and f"<br>{prose('noisy')}" in step_table({"w": {"a": over}}, ["a"],
                                                                reference="a", caption="")


def test_warmup_table_shows_calls_extra_time_and_unsettled():
    slow = Timing(first=0.0, samples=(1e-3,), warmup=(0.5, 1e-3, 1e-3), settled=False)
    page = warmup_table({"w": {"a": slow, "b": "not run: x"}}, ["a", "b"], caption="")
    assert (f"<td>3 {prose('calls')}<br>+0.50 s<br>{prose('not settled')}</td>"
            f"<td>{prose('not run')}</td>") in page


def test_first_call_table_shows_the_first_call():
    page = first_call_table({"w": {"eager": 0.25, "compiled": "failed: OSError: x"}},
                            ["eager", "compiled", "absent"], caption="first")
    assert (f"<tr><td>w</td><td>0.25 s</td><td>{prose('failed')}</td>"
            f"<td>{prose('not run')}</td></tr>") in page
    assert f"<li>compiled (w): {prose('failed')}: OSError: x</li>" in page  # why, under the table


def test_fresh_python_runs_in_a_new_process_with_pinned_threads():
    answer = fresh_python(
        "import json, os, sys\n"
        "print('noise')\n"
        "print(json.dumps({'tf': os.environ['TF_NUM_INTRAOP_THREADS'],"
        " 'omp': os.environ['OMP_NUM_THREADS'], 'torch': 'torch' in sys.modules,"
        " 'cache': os.path.exists(os.environ['TORCHINDUCTOR_CACHE_DIR'])}))",
        threads=1,
    )
    assert answer == {"tf": "1", "omp": "1", "torch": False, "cache": False}
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fresh_python("1 / 0")


def test_torch_threads_restores_the_setting_even_after_an_error():
    from sidebyside.benchmark import torch_threads

    import torch

    before = torch.get_num_threads()
    with pytest.raises(ValueError), torch_threads(1):
        assert torch.get_num_threads() == 1
        raise ValueError
    assert torch.get_num_threads() == before


def test_settle_counts_a_slower_window_as_settled():
    seconds = iter([0.01] * 5 + [0.02] * 5)
    now = [0.0]

    def fn():
        now[0] += next(seconds)

    took, settled = settle(fn, window=5, clock=lambda: now[0])
    assert settled and len(took) == 10


def test_pin_threads_says_what_the_environment_set_once_the_runtime_runs(monkeypatch, capsys):
    import tensorflow as tf

    tf.constant(0.0)  # the runtime runs: the pools can no longer be sized, nothing changes
    for variable in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
        monkeypatch.setenv(variable, "7")
    tf_pools, config = pin_threads(7)
    assert tf_pools == "7 (TF_NUM_INTRAOP_THREADS, TF_NUM_INTEROP_THREADS)"
    # a session's own inter-op pool: the only pool a later session's ConfigProto can size
    assert [pool.num_threads for pool in config.session_inter_op_thread_pool] == [7]
    assert capsys.readouterr().out.splitlines() == [
        "On this machine (threads):",
        "  PyTorch, every variant: 7 (set while timing)",
        "  TensorFlow's intra-op pool, one per process: 7 "
        "(TF_NUM_INTRAOP_THREADS, TF_NUM_INTEROP_THREADS)",
        "  eager and tf.function's inter-op pool: 7 "
        "(TF_NUM_INTRAOP_THREADS, TF_NUM_INTEROP_THREADS)",
        "  each TF1 session's own inter-op pool: 7 (its ConfigProto)",
    ]
    monkeypatch.delenv("TF_NUM_INTEROP_THREADS")
    assert pin_threads(7, show=False)[0] == "not pinned"
    assert capsys.readouterr().out == ""


def test_gpu_syncs_wait_only_for_a_gpu():
    import torch

    assert gpu_syncs("cpu", "/CPU:0") == (None, None)
    if torch.cuda.is_available():
        assert gpu_syncs("cuda", "/CPU:0") == (torch.cuda.synchronize, None)


def test_hardware_names_the_cpu_and_its_cores():
    import os

    from sidebyside.provenance import cpu_model

    assert hardware("cpu") == f"{cpu_model()}, {os.cpu_count()} logical cores"


def test_time_workloads_builds_each_variant_per_workload_and_skips_what_it_is_told():
    built = []

    def make(workload, *, scale=1):
        built.append((workload, scale))
        return lambda: workload * scale

    variants = {"once": (make, {}), "twice": (make, {"scale": 2})}
    results, outputs = time_workloads(
        [1, 3], variants, {make: None}, threads=1,
        not_run=lambda workload, name: "not run: why" if (workload, name) == (3, "twice") else None,
    )
    assert sorted(built) == [(1, 1), (1, 2), (3, 1)]
    assert outputs == {1: {"once": 1, "twice": 2}, 3: {"once": 3}}
    assert isinstance(results[1]["twice"], Timing) and results[3]["twice"] == "not run: why"


def test_check_outputs_compares_losses_and_gradients_with_the_reference():
    import numpy as np

    good = (np.float32(1.0), [np.ones(2, np.float32)])
    outputs = {"w": {"ref": good, "same": (np.float32(1.0), [np.ones(2, np.float32) + 1e-7])}}
    assert check_outputs(outputs, "ref", rtol=1e-4) == 2
    outputs["w"]["off"] = (np.float32(1.0), [np.full(2, 2.0, np.float32)])
    with pytest.raises(AssertionError, match="w, off: gradient"):
        check_outputs(outputs, "ref", rtol=1e-4)


def test_garbage_collection_is_paused_while_the_clock_runs():
    import gc

    seen = []  # whether garbage collection was on at each clock read

    def clock():
        seen.append(gc.isenabled())
        return float(len(seen))

    time_call(lambda: None, warmup=1, repeat=2, clock=clock)
    time_each([lambda: None], clock=clock)
    settle(lambda: None, window=1, clock=clock)
    time_variants({"a": (lambda: lambda: None, None)}, min_rounds=1, max_rounds=1,
                  settle_seconds=100, clock=clock)
    assert len(seen) > 10 and not any(seen)
    assert gc.isenabled()  # on again after
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left off when it was off
    finally:
        gc.enable()


def test_say_prints_a_machine_block_of_wrapped_items(capsys):
    say(["one " * 30, "two"], width=40)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "On this machine (timed):"
    assert lines[1].startswith("  - one") and lines[2].startswith("    one")
    assert lines[-1] == "  - two" and all(len(line) <= 40 for line in lines)


def test_styles_tell_the_frameworks_apart_by_colour_and_the_variants_by_marker():
    from sidebyside.graphs import TF_COLOR, TORCH_COLOR

    style = styles(["PyTorch eager", "TorchScript", "TF2 eager", "tf.function"])
    assert style["PyTorch eager"]["color"] == style["TorchScript"]["color"] == TORCH_COLOR
    assert style["TF2 eager"]["color"] == style["tf.function"]["color"] == TF_COLOR
    markers = {s["marker"] for s in style.values()}
    assert len(markers) == 4  # no two variants look alike without colour


def test_plot_steps_draws_one_panel_per_workload():
    import matplotlib

    matplotlib.use("Agg")
    results = {"small": {"eager": steady(1e-3), "tf.function": "not run: x"},
               "large": {"eager": steady(2e-3), "tf.function": steady(1e-3)}}
    figure = plot_steps(results, ["eager", "tf.function"], title="t")
    assert [ax.get_title() for ax in figure.axes] == ["small", "large"]


def test_a_later_tf1_session_shares_the_pools_unless_it_asks_for_its_own():
    """What the benchmark page shows: ConfigProto's counts size no pool for a session opened
    after the pools exist; an inter-op pool of its own is made."""
    import numpy as np
    import tensorflow as tf

    if process_threads() is None:
        pytest.skip("this system does not say how many threads a process runs")
    tf1 = tf.compat.v1
    tf.constant(0.0)  # the runtime, and the intra-op pool, exist

    def new_threads(config):
        graph = tf.Graph()
        with graph.as_default():
            x = tf1.placeholder(tf.float32, (64, 64))
            y = tf.reduce_sum(x @ x)
        before = process_threads()
        with tf1.Session(graph=graph, config=config) as session:
            session.run(y, {x: np.ones((64, 64), np.float32)})
            return process_threads() - before

    new_threads(tf1.ConfigProto())  # the sessions' shared pool exists from here on
    asked = tf1.ConfigProto(intra_op_parallelism_threads=6, inter_op_parallelism_threads=6)
    assert new_threads(asked) < 6
    assert new_threads(tf1.ConfigProto(session_inter_op_thread_pool=[{"num_threads": 6}])) >= 6


def test_a_part_explains_a_gap_only_when_both_gaps_are_real_and_point_the_same_way():
    fast, slow, tie = steady(1e-3), steady(2e-3), Timing(0.0, (1.05e-3,), (0.9e-3, 1.2e-3))

    def verdict(steps, parts):
        return gap_verdict(dict(zip("ab", steps, strict=True)), dict(zip("ab", parts, strict=True)),
                           part="the products",
                           cause="the matrix libraries")

    assert verdict((fast, slow), (fast, slow)).startswith("Both gaps are beyond their spreads")
    assert verdict((fast, tie), (fast, slow)).startswith("There is no gap")  # the review's case
    assert verdict((fast, slow), (fast, tie)) == (
        "The products tie: the gap comes from the rest of the step.")
    assert verdict((fast, slow), (slow, fast)).startswith("The products differ the other way")


def test_fastest_text_names_the_fastest_with_its_spread_or_the_tie():
    assert fastest_text({"a": steady(1e-3), "b": steady(2e-3)}) == (
        "the fastest is a (1.00 ms ±0.0%)")
    assert fastest_text({"a": steady(1e-3), "b": steady(1e-3), "c": steady(1e-3)}) == (
        "a, b and c tie for fastest")


def test_the_first_call_script_is_python_and_falls_back_without_a_cxx_compiler():
    compile(FIRST_CALLS_MLP, "first_calls.py", "exec")
    assert '"InvalidCxxCompiler", "CppCompileError"' in FIRST_CALLS_MLP
