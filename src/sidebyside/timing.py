"""Timing a step the same way on every page: warm-up, repeats, synchronised clock reads.

Garbage collection is paused while the clock runs (as :mod:`timeit` does), so that a collection
the step did not cause is not charged to it; it runs between the timed stretches.
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

#: A spread above this fraction of the median marks a timing as *noisy* (:attr:`Timing.noisy`),
#: everywhere on the site: in the benchmark tables and wherever a page prints "noisy".
NOISY = 0.10


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Garbage collection off in the block (as :mod:`timeit` does while it times), on again after
    it if it was on before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Timing:
    """Seconds per call: the first (cold) call, then the steady-state samples after warm-up.

    ``rounds`` holds the median of each round's samples when they were taken in rounds
    (:func:`sidebyside.benchmark.time_variants`); ``warmup`` the seconds of each call after the
    first until the time per call settled (:func:`settle`), and ``settled`` whether it did.
    """

    first: float
    samples: tuple[float, ...]
    rounds: tuple[float, ...] = ()
    warmup: tuple[float, ...] = ()
    settled: bool = True

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """Relative uncertainty of the median (0.05 means ±5 %).

        With two or more rounds: half the range of the round medians, so that a slow moment of
        the machine during one round widens it. If the rounds were independent draws, the true
        median would fall outside the range of 5 round medians with a chance of 2 × 0.5⁵ ≈ 6 %,
        and another run's median (one more draw) with a chance of 2 / (5 + 1) ≈ 33 %: the range
        says where the median is, not where the next run lands. Rounds on a busy machine are not
        independent either, so read these chances as optimistic. With fewer than two rounds:
        half the interquartile range of the samples.
        """
        if not self.median:
            return 0.0
        if len(self.rounds) >= 2:
            return (max(self.rounds) - min(self.rounds)) / 2 / self.median
        q1, _, q3 = statistics.quantiles(self.samples, n=4, method="inclusive")
        return (q3 - q1) / 2 / self.median

    @property
    def noisy(self) -> bool:
        """True when the spread exceeds :data:`NOISY` (10 %) of the median."""
        return self.spread > NOISY

    @property
    def warmup_extra(self) -> float:
        """Seconds the warm-up calls took beyond as many steady-state calls."""
        return max(0.0, sum(self.warmup) - len(self.warmup) * self.median)


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
    run asynchronously and the clock would otherwise stop before the work does). On a GPU a
    sample of ``number`` > 1 calls therefore measures calls queued back to back: the larger of
    the host's time to launch one and the GPU's time to run it, not one call's latency.
    Garbage collection is paused during each timed stretch (:func:`gc_paused`).
    """
    sync = sync or (lambda: None)

    with gc_paused():
        sync()
        start = clock()
        fn()
        sync()
        first = clock() - start

    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        with gc_paused():
            sync()
            start = clock()
            for _ in range(number):
                fn()
            sync()
            samples.append((clock() - start) / number)
    return Timing(first=first, samples=tuple(samples))


def settle(
    fn: Callable[[], object],
    *,
    window: int = 5,
    tolerance: float = 0.05,
    max_seconds: float = 10.0,
    sync: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[float], bool]:
    """Call ``fn()`` one call at a time until its time per call stops falling.

    Settled: the median of the last ``window`` calls is no more than ``tolerance`` below the
    median of the ``window`` calls before them (a slower window, which noise gives, counts as
    settled: warming up only ever makes calls faster). Gives up after ``max_seconds``. Returns
    (the seconds of every call, whether it settled). A compiler that optimises on its first few
    calls (TorchScript's profiling executor) is timed here, not in the samples that follow.
    """
    sync = sync or (lambda: None)
    seconds: list[float] = []
    while True:
        with gc_paused():
            sync()
            start = clock()
            fn()
            sync()
            seconds.append(clock() - start)
        if len(seconds) >= 2 * window:
            last = statistics.median(seconds[-window:])
            before = statistics.median(seconds[-2 * window : -window])
            if last >= (1 - tolerance) * before:
                return seconds, True
        if sum(seconds) > max_seconds:
            return seconds, False


def time_each(
    calls: Iterable[Callable[[], object]],
    *,
    sync: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Seconds taken by each of ``calls``, called once each, in order.

    No warm-up: a call that traces or compiles is timed with its tracing or compiling. ``sync``
    runs before every clock read, as in :func:`time_call`; garbage collection is paused during
    each call.
    """
    sync = sync or (lambda: None)
    seconds = []
    for call in calls:
        with gc_paused():
            sync()
            start = clock()
            call()
            sync()
            seconds.append(clock() - start)
    return seconds
