"""What an idle agent's discovery loops wake up for (issue 26, l-idle8), under trio's MockClock.

The expiry loop woke every second to free the cards that had expired (reads already skip them): 60
wake-ups a minute of every agent, 25 times that in a process of 25 agents. It now sleeps until the
earliest expiry it knows of, at most ``EXPIRY_CHECK`` seconds."""

from __future__ import annotations

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.node.discovery import loops

EPOCH_MS = 1_800_000_000_000


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


class Expiring:
    """The directory of :func:`loops.expiry_loop`: cards by expiry time (wall ms), each pass recorded."""

    def __init__(self) -> None:
        self.expiries: list[int] = []
        self.passes: list[float] = []
        self.freed: list[tuple[int, float]] = []

    def expire(self, now_ms: int) -> list[object]:
        self.passes.append(trio.current_time())
        gone = [t for t in self.expiries if t <= now_ms]
        self.freed += [(t, trio.current_time()) for t in gone]
        self.expiries = [t for t in self.expiries if t > now_ms]
        return []

    def next_expiry(self) -> int | None:
        return min(self.expiries, default=None)


class Service:
    def __init__(self) -> None:
        self.directory = Expiring()

    def now_ms(self) -> int:
        return EPOCH_MS + int(trio.current_time() * 1000)


async def _run(service: Service, seconds: float) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(loops.expiry_loop, service)
        await trio.sleep(seconds)
        nursery.cancel_scope.cancel()


async def test_an_idle_directory_is_looked_at_every_expiry_check_not_every_second(
    autojump_clock: MockClock,
) -> None:
    service = Service()
    service.directory.expiries = [EPOCH_MS + 1_800_000]  # one card, 30 minutes left
    await _run(service, 600.0)
    assert len(service.directory.passes) <= 600 / loops.EXPIRY_CHECK + 1  # before: 600


async def test_a_card_is_freed_when_it_expires_or_within_the_check(autojump_clock: MockClock) -> None:
    service = Service()
    soon = EPOCH_MS + 45_000
    service.directory.expiries = [soon, EPOCH_MS + 1_800_000]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(loops.expiry_loop, service)
        await trio.sleep(10.0)
        later = EPOCH_MS + 50_000  # stored meanwhile, expiring before the loop's next look
        service.directory.expiries.append(later)
        await trio.sleep(120.0)
        nursery.cancel_scope.cancel()
    freed = dict(service.directory.freed)
    assert freed[soon] == pytest.approx(45.0, abs=0.01)  # at its expiry: the loop slept until then
    assert 50.0 <= freed[later] <= 50.0 + loops.EXPIRY_CHECK
