"""The node's self-lookup keeps the peers it learned when its timeout ends it (issue 26)."""

from __future__ import annotations

from typing import Any

import trio
from libp2p.kad_dht.utils import sort_peer_ids_by_distance
from trio.testing import MockClock

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.routing import LOOKUP_SLOTS, LOOKUP_TIMEOUT, _lookup


def _ids(n: int) -> list[Any]:
    return [to_libp2p_id(Identity.generate().peer_id) for _ in range(n)]


class _Peerstore:
    def __init__(self, peers: list[Any]) -> None:
        self.addrs_of = {p: ["/ip4/127.0.0.1/tcp/1"] for p in peers}

    def peer_ids(self) -> list[Any]:
        return list(self.addrs_of)

    def addrs(self, peer: Any) -> list[str]:
        return self.addrs_of[peer]


class _Table:
    def __init__(self) -> None:
        self.peers: list[Any] = []

    async def add_peer(self, info: Any) -> bool:
        self.peers.append(info.peer_id)
        return True


class _SlowLookupDHT:
    """A DHT whose lookup learns ``named`` from its first answer (into the peerstore, as py-libp2p's
    does), then waits forever on its second round: the busy peers it asked never answer in time."""

    def __init__(self, own: Any, bootstrap: Any, named: list[Any]) -> None:
        self.named = named
        self.peerstore = _Peerstore([bootstrap])
        self.routing_table = _Table()
        self.host = self
        self.peer_routing = self
        self.own = own

    def get_peerstore(self) -> _Peerstore:
        return self.peerstore

    def get_id(self) -> Any:
        return self.own

    async def find_closest_peers_network(self, key: bytes, count: int = 20) -> list[Any]:
        for peer in self.named:
            self.peerstore.addrs_of[peer] = ["/ip4/127.0.0.1/tcp/2"]
        await trio.sleep_forever()
        raise AssertionError("unreachable")


async def test_a_lookup_ended_by_its_timeout_keeps_the_closest_peers_it_learned(
    autojump_clock: MockClock,
) -> None:
    own, bootstrap, *named = _ids(27)
    dht = _SlowLookupDHT(own, bootstrap, [*named, own])
    start = trio.current_time()
    with trio.fail_after(LOOKUP_TIMEOUT * 3):
        await _lookup(dht, own.to_bytes(), full=False)
    assert trio.current_time() - start >= LOOKUP_TIMEOUT
    added = dht.routing_table.peers
    # the 20 (k) closest of the 25 peers the answer named; not the bootstrap (known before), not itself
    assert added == sort_peer_ids_by_distance(own.to_bytes(), named)[:20]


async def test_a_lookup_that_finishes_adds_what_it_found_only() -> None:
    own, bootstrap, *named = _ids(6)

    class Quick(_SlowLookupDHT):
        async def find_closest_peers_network(self, key: bytes, count: int = 20) -> list[Any]:
            for peer in self.named:
                self.peerstore.addrs_of[peer] = ["/ip4/127.0.0.1/tcp/2"]
            return self.named[:2]

    dht = Quick(own, bootstrap, named)
    with trio.fail_after(5):
        await _lookup(dht, own.to_bytes(), full=False)
    assert dht.routing_table.peers == named[:2]


class _CountedDHT(_SlowLookupDHT):
    """A lookup that takes four seconds and notes how many lookups of the run run at once and finish."""

    running = 0
    most = 0
    finished = 0

    async def find_closest_peers_network(self, key: bytes, count: int = 20) -> list[Any]:
        _CountedDHT.running += 1
        _CountedDHT.most = max(_CountedDHT.most, _CountedDHT.running)
        try:
            await trio.sleep(4.0)
            _CountedDHT.finished += 1
        finally:
            _CountedDHT.running -= 1
        return []


async def test_the_nodes_of_one_process_look_up_a_few_at_a_time_each_within_its_own_timeout(
    autojump_clock: MockClock,
) -> None:
    """The agents of a process share one loop: their lookups take turns (``LOOKUP_SLOTS``), and the
    wait for a turn does not count against a lookup's timeout (every lookup here finishes)."""
    agents = 3 * LOOKUP_SLOTS + 1
    dhts = [_CountedDHT(own, bootstrap, []) for own, bootstrap in (_ids(2) for _ in range(agents))]
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        for dht in dhts:
            nursery.start_soon(lambda d=dht: _lookup(d, d.own.to_bytes(), full=False))
    assert _CountedDHT.most == LOOKUP_SLOTS and _CountedDHT.finished == agents  # none cut by its timeout
    assert trio.current_time() - start == 16.0 > LOOKUP_TIMEOUT  # four turns of four seconds
