"""A quick value lookup (the pages of a find) ends a share of its time after every key has a copy, not
when the slowest storing peer it asked answers (``run_lookup(grace=...)``, issue 25).

The network is a fake behind ``kad_io._exchange`` (each peer answers GET_VALUE with its value after its
own delay); the clock is trio's MockClock, so the times are exact."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from trio.testing import MockClock

from ioa_p2p.dht.keyspace import position
from ioa_p2p.dht.lookup import GRACE_HIGH, GRACE_LOW, Lookup, grace_after_covered
from ioa_p2p.identity import Identity
from ioa_p2p.node.net import kad, kad_io

from .fake_dht import EmptyStore, FakePeerstore, FakeTable

KEY = "/ioa/page/test"


class _FakeDHT:
    def __init__(self, known: list[bytes]) -> None:
        self.local_peer_id = ID(Identity.generate().peer_id.raw)
        self.routing_table = FakeTable(known)
        self.value_store = EmptyStore()
        self.host = self
        kad_io.hedges_of(self).missed = 0.0  # every dial reached its peer so far: no spare requests

    def get_connected_peers(self) -> list[ID]:
        return []

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


@pytest.fixture
def delays(monkeypatch: pytest.MonkeyPatch) -> dict[bytes, float]:
    """Each peer's answer delay (a peer answers GET_VALUE with the value ``b"v" + its first byte``)."""
    table: dict[bytes, float] = {}

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        if on_open is not None:  # every peer is there (its handshake is through at once), some answer late
            on_open()
        await trio.sleep(table[peer.to_bytes()])
        replies = []
        for request in requests:
            reply = Message(type=Message.MessageType.GET_VALUE, key=request.key)
            reply.record.key, reply.record.value = request.key, b"v" + peer.to_bytes()[-1:]
            replies.append(reply)
        return replies

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    return table


def _by_distance(n: int) -> list[bytes]:
    """``n`` peer IDs, closest to :data:`KEY` first."""
    peers = [Identity.generate().peer_id.raw for _ in range(n)]
    target = position(KEY.encode())
    return sorted(peers, key=lambda p: position(p) ^ target)


async def test_the_slowest_holder_does_not_hold_a_quick_lookup(
    delays: dict[bytes, float], autojump_clock: MockClock
) -> None:
    first, slow, third = _by_distance(3)
    delays.update({first: 0.2, slow: 3.0, third: 0.2})
    dht = _FakeDHT([first, slow, third])
    started = trio.current_time()
    found = await kad.get_values_many(dht, [KEY], ask=2, grace=0.25)
    took = trio.current_time() - started
    assert found[KEY] == [b"v" + first[-1:]]
    assert took == pytest.approx(0.2 + GRACE_LOW)  # a copy at 0.2 s, then the least grace
    # without a grace the key waits for two holders: the slow one is hedged, the third answers after it
    started = trio.current_time()
    found = await kad.get_values_many(dht, [KEY], ask=2)
    assert trio.current_time() - started > took + 0.3
    assert sorted(found[KEY]) == sorted([b"v" + first[-1:], b"v" + third[-1:]])


async def test_a_copy_just_behind_the_first_still_counts(
    delays: dict[bytes, float], autojump_clock: MockClock
) -> None:
    first, second = _by_distance(2)
    delays.update({first: 0.2, second: 0.24})  # both within the hedge: the second ends inside the grace
    dht = _FakeDHT([first, second])
    found = await kad.get_values_many(dht, [KEY], ask=2, grace=0.25)
    assert len(found[KEY]) == 2


def test_the_grace_is_a_share_of_the_wait_within_bounds() -> None:
    assert grace_after_covered(0.0, 0.25) == GRACE_LOW
    assert grace_after_covered(1.0, 0.25) == 0.25
    assert grace_after_covered(60.0, 0.25) == GRACE_HIGH


def test_a_lookup_is_covered_once_every_key_has_a_value_or_is_finished() -> None:
    a, b, c = _by_distance(3)
    lookup = Lookup([b"k1", b"k2"], [a, b, c], ask=2)
    plan = lookup.requests()
    assert not lookup.covered
    for peer in plan:
        if b"k1" in plan[peer]:
            lookup.answered(peer, b"k1", value=b"x")
            break
    assert not lookup.covered  # k2 has nothing yet
    for peer, keys in plan.items():
        if b"k2" in keys:
            lookup.answered(peer, b"k2")  # no value: finished only when its closest answered
    assert lookup.covered
