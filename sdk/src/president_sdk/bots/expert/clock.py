"""A decision's time budget: the deciding thread's CPU time, with the wall clock as a backstop.

CPU time, so that a search is as strong whatever else the machine runs: in a
ladder, bots that share cores do not weaken one another's searches, and the
seatings of a duplicate board get the same search whatever ran beside them.
The wall clock still ends a search the machine starves (at WALL_SLACK times
the budget), so that a decision stays near its budget on the table's clock.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

WALL_SLACK = 1.1
"""A search ends after this multiple of its budget on the wall clock, whatever CPU time it had."""


class TimeUpError(Exception):
    """The clock ran out in the middle of a step (a playout, a chunk of samples): its result is dropped."""


class Clock:
    """The time left of a budget started when the clock is made; `cpu` and `wall` read seconds (injectable)."""

    def __init__(self, budget: float, *, cpu: Callable[[], float] = time.thread_time,
                 wall: Callable[[], float] = time.perf_counter) -> None:
        self._cpu = cpu
        self._wall = wall
        self._cpu_end = cpu() + budget
        self._wall_end = wall() + WALL_SLACK * budget

    def left(self) -> float:
        """Seconds left: of CPU time, or of the wall-clock backstop when that ends first."""
        return min(self._cpu_end - self._cpu(), self._wall_end - self._wall())

    def check(self) -> None:
        """Raise TimeUpError when no time is left: for steps too long to let finish."""
        if self.left() <= 0:
            raise TimeUpError


_holding = 0
_held_lock = threading.Lock()
_was_enabled = False


@contextmanager
def collector_held() -> Iterator[None]:
    """Python's cyclic garbage collector off while a clocked search runs, on again when the last one ends.

    A search allocates fast and frees by reference count; the collector's full passes it would trigger are
    pauses that outlast the budget (docs/expert.md).  Garbage with cycles waits for the next pass after it."""
    global _holding, _was_enabled
    with _held_lock:
        if _holding == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holding += 1
    try:
        yield
    finally:
        with _held_lock:
            _holding -= 1
            if _holding == 0 and _was_enabled:
                gc.enable()
