"""Timing a step the same way on every page: warm-up, repeats, synchronised clock reads."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """Seconds per call: the first (cold) call, then the steady-state samples after warm-up."""

    first: float
    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """Half the interquartile range, relative to the median (0.05 means ±5 %)."""
        q1, _, q3 = statistics.quantiles(self.samples, n=4, method="inclusive")
        return (q3 - q1) / 2 / self.median if self.median else 0.0

    @property
    def noisy(self) -> bool:
        """True when the spread exceeds 10 % of the median."""
        return self.spread > 0.10


def time_call(
    fn: Callable[[], object],
    *,
    warmup: int = 3,
    repeat: int = 15,
    number: int = 1,
    sync: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Time ``fn()``: once cold, ``warmup`` untimed calls, then ``repeat`` samples of ``number`` calls.

    ``sync`` runs before every clock read (pass ``torch.cuda.synchronize`` on a GPU, where kernels
    run asynchronously and the clock would otherwise stop before the work does).
    """
    sync = sync or (lambda: None)

    sync()
    start = clock()
    fn()
    sync()
    first = clock() - start

    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        sync()
        start = clock()
        for _ in range(number):
            fn()
        sync()
        samples.append((clock() - start) / number)
    return Timing(first=first, samples=tuple(samples))


def time_each(
    calls: Iterable[Callable[[], object]],
    *,
    sync: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Seconds taken by each of ``calls``, called once each, in order.

    No warm-up: a call that traces or compiles is timed with its tracing or compiling. ``sync``
    runs before every clock read, as in :func:`time_call`.
    """
    sync = sync or (lambda: None)
    seconds = []
    for call in calls:
        sync()
        start = clock()
        call()
        sync()
        seconds.append(clock() - start)
    return seconds
