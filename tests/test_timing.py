import pytest

from sidebyside import time_call
from sidebyside.benchmark import (
    HTML,
    bullets,
    compare,
    duration,
    first_call_table,
    measured,
    per_step,
    step_table,
    table,
    time_variants,
)
from sidebyside.timing import Timing, time_each


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


def test_time_variants_sizes_samples_from_the_cold_call_and_counts_the_build():
    calls, made = [], []

    def make():
        made.append(1)
        return lambda: calls.append(1) or "output"

    # Every clock read advances 1 s, so the cold call takes 1 s: a sample of 3 calls lasts
    # sample_seconds=3, and 2 samples of 3 s fill round_seconds=6.
    results, outputs = time_variants(
        {"a": (make, None)},
        rounds=4,
        repeat=5,
        sample_seconds=3,
        round_seconds=6,
        clock=FakeClock(),
    )
    timing = results["a"]
    assert made == [1]  # built once
    assert timing.first == 2.0  # building (1 s) plus the cold call (1 s)
    assert len(timing.samples) == 4 * 2  # rounds × samples per round
    assert timing.samples[0] == pytest.approx(1 / 3)  # per call, 3 calls per sample
    # cold call + 1 warm-up + 1 sample, then per round 1 cold call + 2 samples of 3 calls,
    # then the call whose output is returned
    assert len(calls) == 3 + 4 * (1 + 2 * 3) + 1
    assert outputs == {"a": "output"}


def test_time_variants_keeps_samples_per_round_between_two_and_repeat():
    clock = FakeClock()
    slow, _ = time_variants(
        {"a": (lambda: lambda: None, None)}, rounds=1, repeat=5, round_seconds=0.01, clock=clock
    )
    fast, _ = time_variants(
        {"a": (lambda: lambda: None, None)}, rounds=1, repeat=5, round_seconds=1e6, clock=clock
    )
    assert len(slow["a"].samples) == 2 and len(fast["a"].samples) == 5


def test_variants_take_turns_round_after_round():
    order = []

    def variant(name):
        return (lambda: lambda: order.append(name)), None

    time_variants({"a": variant("a"), "b": variant("b")}, rounds=2, clock=FakeClock())
    turns = [name for i, name in enumerate(order) if i == 0 or order[i - 1] != name]
    # cold calls, two rounds, the outputs: each time a before b
    assert turns == ["a", "b"] * 4


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
        rounds=1,
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
    assert per_step(results, "graph") == "1.00 ms"
    assert per_step(results, "off") == "not measured"
    assert compare(results, "graph", "eager") == "2.0× faster than eager"
    assert compare(results, "slow", "eager") == "2.5× as long as eager"
    assert compare(results, "off", "eager") == "not comparable with eager"
    assert compare(results, "graph", "off") == "not comparable with off"


def test_table_escapes_text_and_shows_as_html():
    page = table("a < b", ["x", "y"], [["1\n2", "<script>"]], notes=["& more"])
    assert isinstance(page, HTML) and page._repr_html_() == page
    assert page.startswith('<table class="sbs-bench"><caption>a &lt; b</caption>')
    assert "<th>x</th><th>y</th>" in page
    assert "<td>1<br>2</td><td>&lt;script&gt;</td>" in page
    assert "<li>&amp; more</li>" in page and "<script>" not in page
    assert bullets(["one", "t<o"]) == "<ul><li>one</li><li>t&lt;o</li></ul>"


def test_step_table_shows_median_spread_ratio_and_why_a_variant_is_missing():
    noisy = Timing(first=0.0, samples=(1e-3, 2e-3, 3e-3, 4e-3, 5e-3))
    results = {
        "small": {"eager": steady(1e-3), "graph": noisy, "compiled": "not run: budget"},
        "large": {"eager": steady(2e-3), "graph": steady(1e-3), "compiled": "not run: budget"},
    }
    page = step_table(results, ["eager", "graph", "compiled"], reference="eager", caption="c")
    assert "<td>small</td><td>1.00 ms<br>±0% · 1.00×</td>" in page
    assert "<td>3.00 ms<br>±33% · 3.00×<br>noisy</td><td>not run</td>" in page
    assert "<td>1.00 ms<br>±0% · 0.50×</td>" in page
    assert "<li>compiled on small, large: not run: budget</li>" in page
    assert page.index("<td>small</td>") < page.index("<td>large</td>")


def test_first_call_table_shows_the_first_call():
    results = {"w": {"eager": steady(1e-3, first=0.25), "compiled": "failed: OSError: x"}}
    page = first_call_table(results, ["eager", "compiled"], caption="first")
    assert "<tr><td>w</td><td>0.25 s</td><td>failed</td></tr>" in page
