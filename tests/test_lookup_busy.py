"""A busy peer is not a gone one (issue 25, d-n50c): the churn rules of ``dht/rtt.py`` spare connected peers.

At N = 50 node processes on the 2-core box every node was connected to every other; start-up overload
made requests fail (resets, timeouts), every peer that failed once became a suspect that later lookups
asked without waiting for it, so each lookup asked ever more peers and kept the box overloaded (the
idle network used 1.7-1.8 cores for good). Pinned here:

- pure: ``Unreached.failed`` notes a failed peer only when it is not connected, ``Unreached.suspects``
  never suspects a connected one, ``Hedges.spare(dialling=False)`` asks no spare;
- the node's driver (``kad_io.run_lookup``) over a fake network behind ``kad_io._exchange`` under trio's
  MockClock: a connected peer whose request fails is not remembered (a peer the node is not connected to
  still is: the churn rule stays), and a lookup whose first candidates are all connected asks exactly
  ``ask`` of them, where one that dials asks a spare too.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from trio.testing import MockClock

from ioa_p2p.dht.keyspace import position
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.rtt import MISS_PRIOR, Hedges, Unreached
from ioa_p2p.identity import Identity
from ioa_p2p.node.net import kad_io

from .fake_dht import FakePeerstore, FakeTable

KEY = b"a key"


def _by_distance(n: int) -> list[bytes]:
    peers = [Identity.generate().peer_id.raw for _ in range(n)]
    return sorted(peers, key=lambda p: position(p) ^ position(KEY))


def test_a_connected_peer_is_never_noted_nor_suspected() -> None:
    memory = Unreached(ttl=10.0)
    memory.failed(b"busy", 0.0, connected=True)
    assert not memory.holds(b"busy", 1.0)
    memory.failed(b"gone", 0.0, connected=False)
    assert memory.holds(b"gone", 1.0)
    assert memory.suspects(b"gone", 1.0, connected=False)
    assert not memory.suspects(b"gone", 1.0, connected=True)  # back: connected again
    assert not memory.suspects(b"gone", 10.0, connected=False)  # forgotten after its time


def test_no_spare_for_a_lookup_that_dials_nobody() -> None:
    hedges = Hedges(reach=True)
    assert hedges.missed == MISS_PRIOR  # the churn prior of a node that has not dialled yet
    assert hedges.spare() == 1 and hedges.spare(dialling=True) == 1
    assert hedges.spare(dialling=False) == 0


class _FakeDHT:
    """A DHT object whose host is connected to ``connected`` (``kad_io._connected`` reads
    ``host.get_network().connections``)."""

    def __init__(self, known: list[bytes], connected: list[bytes]) -> None:
        self.local_peer_id = ID(Identity.generate().peer_id.raw)
        self.routing_table = FakeTable(known)
        self.host = self
        self.connections = {ID(p): [object()] for p in connected}

    def get_network(self) -> _FakeDHT:
        return self

    def get_connected_peers(self) -> list[ID]:
        return []

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Peers asked, in order; a peer in ``asked.failing`` (first item's attribute) resets every request."""
    log: list[bytes] = []

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        raw = peer.to_bytes()
        log.append(raw)
        if on_open is not None:
            on_open()
        await trio.sleep(0.05)
        if raw in FAILING:
            raise ConnectionResetError("stream reset by a busy peer")
        return [Message(type=Message.MessageType.FIND_NODE, key=r.key) for r in requests]

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    FAILING.clear()
    return log


FAILING: set[bytes] = set()


async def _lookup(dht: _FakeDHT, ask: int = 2) -> None:
    lookup = Lookup([KEY], kad_io.known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=ask)
    await kad_io.run_lookup(dht, lookup, kad_io.CLOSEST)


@pytest.mark.parametrize("connected", [True, False])
async def test_a_failed_request_over_an_open_connection_leaves_no_suspect(
    asked: list[bytes], autojump_clock: MockClock, connected: bool
) -> None:
    busy, a, b = _by_distance(3)
    FAILING.add(busy)
    dht = _FakeDHT([busy, a, b], [busy, a, b] if connected else [])
    kad_io.hedges_of(dht).missed = 0.0  # no spare: this test is about the suspect
    await _lookup(dht)
    assert busy in asked
    # connected: busy, not gone (the next lookup waits for it again); not connected: the churn rule
    assert kad_io.unreached_of(dht).holds(busy, trio.current_time()) is not connected


@pytest.mark.parametrize("connected", [True, False])
async def test_a_lookup_over_open_connections_asks_no_spare(
    asked: list[bytes], autojump_clock: MockClock, connected: bool
) -> None:
    peers = _by_distance(5)
    dht = _FakeDHT(peers, peers if connected else [])
    assert kad_io.hedges_of(dht).spare() == 1  # the churn prior: a node that dials spares
    await _lookup(dht, ask=2)
    assert set(asked) == set(peers[: 2 if connected else 3])
