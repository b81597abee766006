import pytest

from sidebyside import time_call
from sidebyside.timing import Timing


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
