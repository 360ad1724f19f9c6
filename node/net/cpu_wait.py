"""Time this process waited for a CPU, and deadlines that do not count it.

A node's event loop runs in one OS thread. When the machine has more runnable threads than cores, that
thread spends part of every second in the kernel's run queue: runnable, but not running. Its timers then
fire late and every network round trip it takes part in (a dial, Noise, protocol negotiation, an
invitation's request and answer) stretches by the same factor. Measured on the 2-core test machine at
load 28 (issue 26): a process running ten agents had used 5.6 s of CPU and waited 66 s in the run queue
within its first 72 s, so a 10 s invitation timeout expired after less than one second of running time and
invitations between agents that were all alive and willing went unanswered.

- :func:`run_queue_wait`: seconds the calling thread has waited in the run queue since it started (Linux
  ``/proc/thread-self/schedstat``, field 2; ``None`` where the kernel does not say);
- :class:`RunnableClock`: a trio clock (``trio.run(..., clock=RunnableClock())``) whose time runs only
  while the loop's thread could run: every deadline and timeout of the run (ours and py-libp2p's: dials,
  Noise, negotiation, DHT queries, invitations) is then counted in time the process had a CPU, not in
  time the kernel gave to other processes; it never runs slower than :data:`MIN_RATE` of real time, so
  every timeout still ends within ``1 / MIN_RATE`` times its length. The process of several agents
  (``ioa node start`` with ``[[agents]]``) runs on it: one loop thread serves all its agents and waits
  for a CPU as long as a single-agent process does;
- :func:`loop_monotonic`: the run's time with the waits a :class:`RunnableClock` left out added back, for
  comparisons with the wall clock; :func:`wall_sleep`: how long to sleep on the run's clock so that a
  wall-clock deadline is not overslept;
- :func:`open_cpu_deadline`: a cancel scope that ends ``seconds`` after it opens, not counting the time the
  loop's thread waited for a CPU meanwhile, and never later than ``most`` seconds after it opens. A peer
  that does not answer still fails in bounded time; a live peer is not failed because this machine was
  busy. Where the kernel does not report the wait, or the trio run has a clock other than trio's own
  (a test's ``MockClock``: its time is not the kernel's), it is a plain ``seconds`` deadline.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from ioa_p2p.faults import exception_leaves

_SCHEDSTAT = "/proc/thread-self/schedstat"
#: How often (seconds of wall time) an open deadline re-reads the wait, at most.
CHECK_EVERY = 0.25
#: The slowest a :class:`RunnableClock` runs, as a share of real time (timeouts at most 4x as long).
MIN_RATE = 0.25
#: The shortest sleep of :func:`wall_sleep` (seconds of the run's clock; a wall deadline may pass by up to
#: this over ``1 / MIN_RATE``).
WALL_STEP = 1.0
#: How often (seconds of real time) a :class:`RunnableClock` re-reads the wait, at most.
CLOCK_REFRESH = 0.002


def run_queue_wait() -> float | None:
    """Seconds the calling thread waited for a CPU so far; None where the kernel does not report it."""
    try:
        with open(_SCHEDSTAT, "rb") as stat:  # noqa: ASYNC230 - procfs: no disk, answers at once
            fields = stat.read().split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class RunnableClock(trio.abc.Clock):
    """trio's time minus the time the loop's thread waited for a CPU (see the module docstring)."""

    def __init__(self, *, min_rate: float = MIN_RATE, refresh: float = CLOCK_REFRESH) -> None:
        self.min_rate = min_rate
        self.refresh = refresh
        self._fd: int | None = None
        self._real = time.perf_counter()
        self._wait = 0.0
        self._now = 0.0
        #: seconds of real time the clock did not count so far (the loop's wait for a CPU)
        self.discounted = 0.0

    def start_clock(self) -> None:
        try:  # opened in the loop's thread: the descriptor reads that thread's figures from now on
            self._fd = os.open(_SCHEDSTAT, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._fd = None
        self._real = time.perf_counter()
        self._wait = self._read() or 0.0
        self._now = 0.0

    def close(self) -> None:
        """Close the descriptor ``start_clock`` opened (after the run)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _read(self) -> float | None:
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None

    def current_time(self) -> float:
        real = time.perf_counter()
        passed = real - self._real
        if passed >= self.refresh:
            wait = self._read()
            waited = 0.0 if wait is None else max(0.0, wait - self._wait)
            counted = max(passed - waited, passed * self.min_rate)
            self._now += counted
            self.discounted += passed - counted
            self._real = real
            if wait is not None:
                self._wait = wait
        return self._now

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return max(0.0, deadline - self.current_time())


def run_clock() -> trio.abc.Clock:
    """The trio run's clock (a :class:`RunnableClock` in a process of several agents)."""
    return trio.lowlevel.current_clock()


def loop_monotonic() -> float:
    """The run's time plus what its clock left out so far: on a :class:`RunnableClock` (a process of
    several agents) the seconds that really passed, run-queue waits included, which keep pace with the
    wall clock except while the machine sleeps; trio's time on any other clock (the kernel's monotonic
    time on trio's own, the mock time in a test). What a wall-clock comparison needs (a
    :class:`~ioa_p2p.dht.directory.GapWatch`): trio's time alone stands still while the loop waits for a
    CPU, and such a wait is no sleep of the machine."""
    now = trio.current_time()  # first: a RunnableClock adds to ``discounted`` as it reads the time
    discounted = getattr(run_clock(), "discounted", 0.0)
    return now + (discounted if isinstance(discounted, float) else 0.0)


def wall_sleep(seconds: float) -> float:
    """The seconds of the run's clock to sleep so that at most ``seconds`` of wall time pass, give or take
    :data:`WALL_STEP`: ``seconds`` on trio's own clock; on a clock that may run slower than real time (a
    :class:`RunnableClock`, ``min_rate``) that share of it, so a wall-clock deadline (our card's renewal
    before it expires at every peer) is met by sleeping again with what is left."""
    rate = getattr(run_clock(), "min_rate", 1.0)
    if not isinstance(rate, float) or not 0 < rate < 1:
        return seconds
    return max(seconds * rate, min(seconds, WALL_STEP))


def clock_is_real() -> bool:
    """Whether the trio run keeps the kernel's time (trio's own clock; not a test's ``MockClock``)."""
    return type(trio.lowlevel.current_clock()).__name__ == "SystemClock"


@asynccontextmanager
async def open_cpu_deadline(seconds: float, *, most: float) -> AsyncIterator[trio.CancelScope]:
    """A cancel scope ending ``seconds`` after entry plus the time this thread waited for a CPU meanwhile,
    at most ``most`` seconds after entry (see the module docstring). Check ``cancelled_caught`` on the
    scope after the block, as with ``trio.move_on_after``."""
    start = trio.current_time()
    hard = start + max(seconds, most)
    base = run_queue_wait() if clock_is_real() else None
    if base is None or hard <= start + seconds:
        with trio.move_on_after(seconds) as scope:
            yield scope
        return
    scope = trio.CancelScope(deadline=hard)
    try:
        async with trio.open_nursery() as watch:
            watch.start_soon(_end_when_due, scope, start, seconds, base)
            try:
                with scope:
                    yield scope
            finally:
                watch.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the block's own exception, not wrapped by the watcher's nursery
        real = [exc for exc in exception_leaves(group) if not isinstance(exc, trio.Cancelled)]
        if len(real) == 1:  # also when an outer deadline cancelled the watcher as the block failed
            raise real[0] from None
        raise


async def _end_when_due(scope: trio.CancelScope, start: float, seconds: float, base: float) -> None:
    """Cancel ``scope`` once ``seconds`` have passed that this thread did not spend waiting for a CPU."""
    due = start + seconds
    while True:
        await trio.sleep_until(due)
        waited = (run_queue_wait() or base) - base
        due = start + seconds + waited
        if trio.current_time() >= due:
            scope.cancel()
            return
        due = max(due, trio.current_time() + CHECK_EVERY)


__all__ = [
    "CHECK_EVERY",
    "CLOCK_REFRESH",
    "MIN_RATE",
    "RunnableClock",
    "clock_is_real",
    "loop_monotonic",
    "open_cpu_deadline",
    "run_clock",
    "run_queue_wait",
    "wall_sleep",
    "WALL_STEP",
]
