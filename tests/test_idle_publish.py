"""Publishing rounds in a network that stopped growing (issue 26, l-idle9).

``PublishPolicy`` placed our records again each time the routing table grew by a tenth and then kept its
size for 20 s (``regrown``), or doubled (``grew_enough``): a round that went out while the network formed
reached closest peers that later joiners may have displaced (issue 25). In a network of 101 nodes that
stopped growing, a node's table still grows for many minutes (it learns, lookup by lookup, peers that were
there all along), so every node kept putting and providing again ~13 Kademlia requests a minute 10 minutes
after the start. The rounds' lookups found the closest peers of the whole network, not of the table: a
table that grows while the network's estimated size does not only learns peers that were there. So a
growth round now needs the estimate to have grown by a tenth too.

The catch-up loop listed every card publisher the node knows every 2 s to find the cards it lacks; it
now scans less often while nothing is missing and nothing it looks at changed."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.catchup import QUIET_MAX
from ioa_p2p.dht.pacing import SETTLE, SETTLED_REPLACE, PublishPolicy
from ioa_p2p.dht.probing import kept_levels, provided_levels
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery.loops import CATCH_UP_INTERVAL, catch_up_loop


def _placed(size: int, estimate: float) -> PublishPolicy:
    policy = PublishPolicy()
    policy.observe(size, 0.0, estimate)
    assert policy.put_reason(1, 0.0) == "version" and policy.provide_reason((b"k",), 0.0) == "keys"
    policy.put_done(1, 0.0)
    policy.provide_started((b"k",), 0.0)
    policy.provide_finished(10, 10, 1.0)
    return policy


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def test_a_table_that_learns_the_same_network_places_nothing_again() -> None:
    policy = _placed(20, 101.0)
    now = 0.0
    for size in range(21, 56):  # one more peer every 30 s (within the 1,800 s refresh), estimate ~101
        now += 30.0
        policy.observe(size, now, 101.0 + (size % 3 - 1) * 5)
        assert policy.put_reason(1, now + SETTLED_REPLACE) is None, size  # before: "regrown"
        assert policy.provide_reason((b"k",), now + SETTLED_REPLACE) is None, size
    policy.observe(200, now + 30, 101.0)  # a table that more than doubled: still the same network
    assert policy.put_reason(1, now + 30 + SETTLE + 1) is None


def test_a_network_that_grew_gets_the_records_placed_again() -> None:
    policy = _placed(20, 50.0)
    policy.observe(24, 10.0, 56.0)  # a tenth more known, the network a tenth larger: joiners
    assert policy.put_reason(1, 10.0 + SETTLED_REPLACE) == "regrown"
    assert policy.provide_reason((b"k",), 10.0 + SETTLED_REPLACE) == "regrown"
    policy.observe(40, 40.0, 100.0)
    assert policy.provide_reason((b"k",), 40.0 + SETTLE) == "grown"


def test_without_an_estimate_the_table_is_the_estimate() -> None:
    """The simulator and issue 25's rule: ``observe(size, now)`` alone works as before."""
    policy = PublishPolicy()
    policy.observe(26, 0.0)
    policy.provide_started((b"k",), 0.0)
    policy.provide_finished(10, 10, 1.0)
    policy.observe(49, 5.0)
    assert policy.provide_reason((b"k",), 5.0 + SETTLED_REPLACE) == "regrown"


class QuietService:
    """What ``catch_up_loop`` uses of the discovery service: ``topic`` publishers, ``held`` cards; each
    scan (a listing of the topic peers) is counted, each fetch gets the cards asked for."""

    def __init__(self, topic: list[PeerId]) -> None:
        self.topic, self.held, self.scans = topic, set(topic), 0
        self.fetched: list[tuple[float, list[PeerId]]] = []
        self.gossip = SimpleNamespace(topic_peer_ids=self._listing)
        self.net = SimpleNamespace(card_peers=lambda: [], shared_census=lambda: None)
        self.directory = SimpleNamespace(entry=lambda peer, now_ms: True if peer in self.held else None)
        self.node = SimpleNamespace(faults=SimpleNamespace(boundary=lambda where: contextlib.nullcontext()))
        self.settings = SimpleNamespace(find_timeout=6.0)
        self.relay_cap = SimpleNamespace(capped=False)  # below [discovery] relay_all (d-cap's relaycap.py)

    def _listing(self) -> list[PeerId]:
        self.scans += 1
        return list(self.topic)

    def catch_up_mark(self) -> tuple[int, ...]:
        return (len(self.topic), len(self.held))

    def now_ms(self) -> int:
        return int(trio.current_time() * 1000)

    def withheld(self, peer: PeerId) -> bool:
        return False

    def stale_due(self) -> list[PeerId]:
        return []

    async def fetch_cards(self, peers: list[PeerId], *, wanted: bool, owner_wait: float = 1.0) -> int:
        self.fetched.append((trio.current_time(), list(peers)))
        self.held.update(peers)
        return len(peers)


async def test_the_catch_up_of_a_settled_node_scans_seldom_and_a_newcomer_at_once(
    autojump_clock: MockClock,
) -> None:
    """A node holding every card of its 50 topic peers for 10 minutes listed them every 2 s (300 scans);
    it now scans every 30 s once the doubling reached it. A newcomer without a card (the topic peers
    changed) is still asked for at the next 2 s tick."""
    peers = [Identity(bytes([i + 1]) * 32).peer_id for i in range(51)]
    service: Any = QuietService(peers[:50])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(catch_up_loop, service)
        await trio.sleep(600.0)
        assert service.scans <= 600 / QUIET_MAX + 5 and not service.fetched  # before: 300 scans
        service.topic.append(peers[50])
        joined = trio.current_time()
        await trio.sleep(10.0)
        nursery.cancel_scope.cancel()
    assert [p for _, got in service.fetched for p in got] == [peers[50]]
    assert service.fetched[0][0] - joined <= CATCH_UP_INTERVAL + 0.01


def test_the_levels_a_card_is_provided_at_do_not_flip_with_the_estimate() -> None:
    """At N = 101 the estimate moves around the 100 that adds level 8: each move changed the card's keys
    (a provide round and a page round). A finer level is added at once and dropped only well below."""
    assert provided_levels(99.0) != provided_levels(101.0)  # the flip this guards against
    held = kept_levels(None, 101.0)
    assert held == provided_levels(101.0)
    for size in (99.0, 90.0, 81.0, 104.0, 88.0):
        assert kept_levels(held, size) == held, size  # before: (4,) at 99, 90, 81 and 88
    assert kept_levels(held, 70.0) == provided_levels(70.0)  # the network did shrink
    assert kept_levels(provided_levels(70.0), 101.0) == held  # and grew again: at once
