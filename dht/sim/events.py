"""The discrete-event loop of the simulator: a heap of timestamped callbacks on a virtual clock.

Nothing here sleeps or reads a clock: :meth:`EventLoop.run` pops the earliest event, sets :attr:`now` to
its time and calls it; the callback schedules more with :meth:`EventLoop.after`. Events at the same time
run in the order they were scheduled (a sequence number breaks ties), so a run is reproducible from the
seed of the simulation's random generator alone.

Timers are not removed from the heap when they no longer matter: their callbacks check the state they
act on (a lookup already finished, a peer that already answered) and return. That keeps scheduling at
one ``heappush``.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Any


class EventLoop:
    """Virtual time in seconds, starting at 0."""

    __slots__ = ("now", "events", "_heap", "_seq")

    def __init__(self) -> None:
        self.now = 0.0
        self.events = 0  # callbacks run so far
        self._heap: list[tuple[float, int, Callable[..., Any], tuple[Any, ...]]] = []
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def at(self, when: float, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` at virtual time ``when`` (now, if ``when`` is in the past)."""
        heapq.heappush(self._heap, (max(when, self.now), next(self._seq), callback, args))

    def after(self, delay: float, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` ``delay`` seconds from now."""
        heapq.heappush(self._heap, (self.now + max(delay, 0.0), next(self._seq), callback, args))

    def run(self, until: float = math.inf, *, done: Callable[[], bool] | None = None) -> None:
        """Run events up to virtual time ``until`` (then the clock reads ``until``), or until ``done()``
        is true after an event, or until no event is left."""
        heap = self._heap
        pop = heapq.heappop
        while heap and heap[0][0] <= until:
            when, _, callback, args = pop(heap)
            self.now = when
            callback(*args)
            self.events += 1
            if done is not None and done():
                return
        if until != math.inf:
            self.now = max(self.now, until)


__all__ = ["EventLoop"]
