"""Wall-clock comparisons on a process's ``RunnableClock`` (issue 26, l-idle8), under trio's MockClock.

A process of several agents runs on a clock that leaves out the time its loop waited for a CPU
(node/net/cpu_wait.py): its time may run at a quarter of real time. Two loops mixed that clock with the
wall clock:

- the discovery service's :class:`~ioa_p2p.dht.directory.GapWatch` took more than 30 s of run-queue wait
  between two revalidation passes for a machine back from sleep, and made every card held a suspect to
  confirm again from its owner (bursts of revalidation at N = 100);
- the republish loop slept ``republish`` (600 s) on that clock: up to 2,400 s of wall time, past the
  card's 1,800 s lifetime at every peer.

The tests run on trio's MockClock and give the code what a ``RunnableClock`` adds (``discounted``: seconds
of real time it did not count; ``min_rate``); the nodes' wall clock is the mock time plus what the clock
left out.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.directory import REJOIN_GAP, GapWatch
from ioa_p2p.node.discovery import loops
from ioa_p2p.node.discovery.service import Discovery
from ioa_p2p.node.net import cpu_wait
from ioa_p2p.node.net.cpu_wait import MIN_RATE, loop_monotonic, wall_sleep

EPOCH_MS = 1_800_000_000_000


class RunClock:
    """What a ``RunnableClock`` adds to trio's clock: ``discounted``, the seconds of real time it did not
    count (the loop's waits for a CPU), and ``min_rate``. The run's clock is trio's MockClock; the code
    under test reads these through ``cpu_wait.run_clock``."""

    def __init__(self, min_rate: float | None = None) -> None:
        self.discounted = 0.0
        if min_rate is not None:
            self.min_rate = min_rate


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


@pytest.fixture
def waiting(monkeypatch: pytest.MonkeyPatch) -> RunClock:
    clock = RunClock()
    monkeypatch.setattr(cpu_wait, "run_clock", lambda: clock)
    return clock


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> RunClock:
    """A clock at ``MIN_RATE`` of real time throughout (a loop that always waits for a CPU): the wall
    clock runs ``1 / MIN_RATE`` times as fast."""
    clock = RunClock(MIN_RATE)
    monkeypatch.setattr(cpu_wait, "run_clock", lambda: clock)
    return clock


class Watched:
    """What :meth:`Discovery.note_clocks` uses: the wall clock, the gap watch, the directory's rejoin."""

    def __init__(self, clock: RunClock) -> None:
        self.clock = clock
        self.gap = GapWatch()
        self.asleep_ms = 0  # wall time the machine spent suspended (neither trio's clock nor the loop saw it)
        self.rejoined: list[int] = []
        self.directory = SimpleNamespace(rejoined=self.rejoined.append)

    def now_ms(self) -> int:
        return EPOCH_MS + int((trio.current_time() + self.clock.discounted) * 1000) + self.asleep_ms


async def test_a_wait_for_a_cpu_is_no_gap_and_a_sleep_still_is(
    autojump_clock: MockClock, waiting: RunClock
) -> None:
    service = Watched(waiting)
    Discovery.note_clocks(service)  # type: ignore[arg-type]
    await trio.sleep(5.0)
    waiting.discounted += 4 * REJOIN_GAP  # two minutes in the run queue between two passes
    Discovery.note_clocks(service)  # type: ignore[arg-type]
    assert service.rejoined == []  # before: every card held became a suspect to re-confirm
    assert loop_monotonic() == pytest.approx(trio.current_time() + 4 * REJOIN_GAP)
    await trio.sleep(5.0)
    service.asleep_ms += int(4 * REJOIN_GAP * 1000)  # the machine slept two minutes
    Discovery.note_clocks(service)  # type: ignore[arg-type]
    assert service.rejoined == [service.now_ms()]


class Renewing:
    """What :func:`loops.republish_loop` uses; ``republish`` issues a version (its wall time kept)."""

    def __init__(self, republish: float, slow: bool) -> None:
        self.settings = SimpleNamespace(republish=republish)
        self.stats = {"renewals": 0}
        self.withdrawal = None
        self.card: SimpleNamespace | None = None
        self.issued: list[int] = []
        self.speed = 1 / MIN_RATE if slow else 1.0

    def now_ms(self) -> int:
        return EPOCH_MS + int(trio.current_time() * self.speed * 1000)

    async def republish(self) -> None:
        now = self.now_ms()
        self.card = SimpleNamespace(card=SimpleNamespace(issued_at=now))
        self.issued.append(now)


async def _renewals(service: Renewing, wall_seconds: float) -> list[float]:
    await service.republish()  # the first version
    async with trio.open_nursery() as nursery:
        nursery.start_soon(loops.republish_loop, service)
        await trio.sleep(wall_seconds / service.speed)
        nursery.cancel_scope.cancel()
    issued = service.issued
    return [(b - a) / 1000 for a, b in zip(issued, issued[1:], strict=False)]


async def test_our_card_is_renewed_by_the_wall_clock_on_a_slow_run_clock(
    autojump_clock: MockClock, slow: RunClock
) -> None:
    ttl, republish = 1800.0, 600.0
    gaps = await _renewals(Renewing(republish, slow=True), 4 * 3600)
    assert len(gaps) >= 20
    # before: a renewal every 2,400 s of wall time, the card expired 600 s before its next version
    assert all(republish <= gap <= republish + 4 for gap in gaps), gaps
    assert max(gaps) < ttl


async def test_on_trios_own_clock_a_renewal_every_republish_seconds(autojump_clock: MockClock) -> None:
    assert wall_sleep(600.0) == 600.0  # no min_rate: one sleep
    service = Renewing(600.0, slow=False)
    gaps = await _renewals(service, 3500)
    assert gaps == [600.0] * 5


async def test_a_card_issued_meanwhile_restarts_the_count(autojump_clock: MockClock) -> None:
    service = Renewing(600.0, slow=False)
    async with trio.open_nursery() as nursery:
        await service.republish()
        nursery.start_soon(loops.republish_loop, service)
        await trio.sleep(400.0)
        await service.republish()  # new addresses: a version out of turn
        await trio.sleep(700.0)
        nursery.cancel_scope.cancel()
    assert [(t - EPOCH_MS) / 1000 for t in service.issued] == [0.0, 400.0, 1000.0]
