"""Connections as they open (``node/net/arrivals.py``): the waiters, the bound, and the real host's hook
(every connection the swarm registers is noted, on both ends)."""

from __future__ import annotations

import pytest
import trio
from libp2p.peer.peerinfo import PeerInfo
from trio.testing import MockClock

from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.conn_events import ConnectionEvents, watch_connections
from ioa_p2p.node.net.host import from_libp2p_id, new_noise_host
from tests.raw_hosts import run_raw_host


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def peers(n: int) -> list[PeerId]:
    return [Identity.generate().peer_id for _ in range(n)]


async def test_a_waiter_sleeps_until_a_connection_opens_and_gets_each_peer_once() -> None:
    arrivals = PeerArrivals()
    a, b = peers(2)
    got: list[tuple[int, list[PeerId] | None]] = []

    async def wait() -> None:
        got.append(await arrivals.wait_after(arrivals.count))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # nothing opened: the waiter sleeps (no polling)
        arrivals.note(a)
        arrivals.note(b)
        arrivals.note(a)  # a second connection to a
    assert got == [(3, [a, b])]
    assert await arrivals.wait_after(1) == (3, [b, a])  # after the first: b, then a again
    assert await arrivals.wait_after(2) == (3, [a])


async def test_a_waiter_further_behind_than_kept_is_told_to_look_at_every_peer() -> None:
    arrivals = PeerArrivals(keep=4)
    for peer in peers(6):
        arrivals.note(peer)
    assert await arrivals.wait_after(0) == (6, None)  # 6 missed, 4 kept
    count, recent = await arrivals.wait_after(2)  # exactly the 4 kept
    assert count == 6 and recent is not None and len(recent) == 4


async def test_no_wakeup_while_nothing_connects(autojump_clock: MockClock) -> None:
    arrivals = PeerArrivals()
    with trio.move_on_after(3600) as scope:
        await arrivals.wait_after(arrivals.count)
    assert scope.cancelled_caught


async def test_a_real_host_notes_every_connection_on_both_ends() -> None:
    a, b = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    seen_a: list[PeerId] = []
    seen_b: list[PeerId] = []
    watch_connections(a, ConnectionEvents(), lambda p: seen_a.append(from_libp2p_id(p)))
    watch_connections(b, ConnectionEvents(), lambda p: seen_b.append(from_libp2p_id(p)))
    with trio.fail_after(30):
        async with run_raw_host(a), run_raw_host(b):
            await a.connect(PeerInfo(b.get_id(), b.get_addrs()))
            while not seen_b:  # noqa: ASYNC110 - the listener registers its side a moment later
                await trio.sleep(0.01)
    assert seen_a == [from_libp2p_id(b.get_id())]
    assert seen_b == [from_libp2p_id(a.get_id())]
