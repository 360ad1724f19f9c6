"""Routing-table contacts that failed (issue 25, churn): ``dht/contacts.py`` (the rule),
``dht/kbuckets.py`` (demotion, answers without them), the simulator (a node that left is neither named
nor waited for, then evicted) and the node's side (``node/net/stale_contacts.py`` on py-libp2p's own
``RoutingTable``, and ``kad_io.run_lookup`` over a fake network) under trio's MockClock."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace
from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.kad_dht.routing_table import RoutingTable as Libp2pTable
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo
from multiaddr import Multiaddr
from trio.testing import MockClock

from ioa_p2p.dht.contacts import EVICT, EVICT_AFTER, GRACE, STALE, StaleContacts
from ioa_p2p.dht.kbuckets import RoutingTable
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.sim import kad
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.identity import Identity
from ioa_p2p.node.net import kad_io, stale_contacts
from ioa_p2p.node.net.conn_events import ConnectionEvents

from .fake_dht import FakePeerstore

# ---------------------------------------------------------------------- the rule


def test_a_failure_makes_a_contact_stale_and_the_second_evicts_it() -> None:
    contacts = StaleContacts[str]()
    assert EVICT_AFTER == 2
    assert contacts.failed("a", 1.0) == STALE and "a" in contacts and "a" in contacts.peers
    assert contacts.failed("a", 2.0) == EVICT and "a" not in contacts
    # a sign of life between two failures starts the count again
    assert contacts.failed("b", 3.0) == STALE
    assert contacts.heard("b") and not contacts.heard("b")
    assert contacts.failed("b", 4.0) == STALE


def test_a_stale_contact_not_heard_within_the_grace_is_due() -> None:
    contacts = StaleContacts[str](grace=30.0)
    assert contacts.next_due() is None and contacts.due(100.0) == []
    contacts.failed("old", 0.0)
    contacts.failed("new", 20.0)
    contacts.failed("heard", 5.0)
    contacts.heard("heard")
    assert contacts.next_due() == 30.0
    assert contacts.due(29.9) == []
    assert contacts.due(30.0) == ["old"]
    assert contacts.due(60.0) == ["new"] and len(contacts) == 0
    assert GRACE > 0


def test_a_contact_is_due_exactly_when_next_due_says() -> None:
    """Rounding: ``first + grace`` may be ``now`` while ``now - grace`` is below ``first`` (a sweep
    scheduled at ``next_due()`` then found nothing due and scheduled itself again at the same moment)."""
    contacts = StaleContacts[str](grace=30.0)
    first = 9.386
    contacts.failed("a", first)
    due = contacts.next_due()
    assert due is not None and due - 30.0 < first  # the case: 39.386 - 30.0 is below 9.386 in floats
    assert contacts.due(due) == ["a"]


def test_stale_contacts_are_bounded_and_the_oldest_is_due_at_once() -> None:
    contacts = StaleContacts[int](limit=3)
    for peer in range(5):
        contacts.failed(peer, float(peer))
    assert len(contacts) == 3 and contacts.next_due() == -math.inf
    assert contacts.due(0.0) == [0, 1]
    with pytest.raises(ValueError):
        StaleContacts[int](grace=0)


def test_a_demoted_contact_is_replaced_first_and_left_out_of_answers() -> None:
    rng = random.Random(5)
    table = RoutingTable(rng.randbytes(32), bucket_size=4, max_buckets=1)
    peers = [rng.randbytes(32) for _ in range(4)]
    for peer in peers:
        table.add(peer)
    assert table.demote(peers[2]) and not table.demote(rng.randbytes(32))
    assert table.buckets[0].peers[0] == peers[2]
    newcomer = rng.randbytes(32)
    assert table.add(newcomer, alive=lambda p: p != peers[2])  # the stale one is pinged and replaced
    assert peers[2] not in table and newcomer in table
    target = position(peers[0])
    assert peers[0] not in table.closest(target, K, skip={peers[0]})
    assert table.closest(target, K, skip=set()) == table.closest(target, K)


# ---------------------------------------------------------------------- the simulator


def _world(stale: bool) -> World:
    world = World(SimConfig(nodes=80, seed=3, stale_contacts=stale))
    world.warm_start(random_peers=40, connected_tables=True)
    world.loop.run(until=5)
    return world


@pytest.mark.parametrize("stale", [True, False])
def test_a_simulated_node_that_left_is_no_longer_named_then_leaves_the_tables(stale: bool) -> None:
    world = _world(stale)
    gone = world.nodes[7]
    # the holders connected to it (a peer learned from an answer and never dialled ends nothing)
    holders = [n for n in world.nodes if gone.peer in n.table and gone.index in n.conns]
    assert len(holders) > 10
    world.leave(gone)
    asker = next(n for n in world.nodes if n is not gone and n.online and n not in holders)
    named = {
        p
        for n in holders
        for (closer, _, _) in kad.serve_find(world, n, asker, [gone.peer], kad.FIND_NODE)
        for p in closer
    }
    world.loop.run(until=world.loop.now + GRACE + 1)
    still = [n for n in holders if gone.peer in n.table]
    if stale:
        assert gone.peer not in named  # no holder names it once its connection ended
        assert still == [] and world.counters["stale evicted"] >= len(holders)
    else:  # the node before: every holder keeps naming it, and keeps it
        assert gone.peer in named and len(still) == len(holders)


def test_a_closed_connection_to_a_live_peer_is_forgiven_when_it_is_heard_again() -> None:
    world = _world(True)
    a, b = world.nodes[3], world.nodes[4]
    world.net.connect(a, b)
    world.closed(b, a.index)  # b's connection limit closed it: a sees the remote end it
    assert a.contacts is not None and b.peer in a.contacts and b.index not in a.conns
    assert b.contacts is not None and a.peer not in b.contacts  # b's own close is no failure
    kad.met(world, a, b)  # b asks a something: alive
    assert b.peer not in a.contacts


# ---------------------------------------------------------------------- the node, on py-libp2p's table


def _peer() -> ID:
    return ID(Identity.generate().peer_id.raw)


class _Host:
    def __init__(self) -> None:
        self.connections: dict[ID, list[Any]] = {}

    def get_network(self) -> Any:
        return self

    def get_connected_peers(self) -> list[ID]:
        return [p for p, conns in self.connections.items() if conns]

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


class _Dht:
    def __init__(self, peers: list[ID]) -> None:
        self.local_peer_id = _peer()
        self.host = _Host()
        self.routing_table = Libp2pTable(self.local_peer_id, self.host)  # type: ignore[arg-type]
        addrs = [Multiaddr("/ip4/127.0.0.1/tcp/1")]
        for peer in peers:  # py-libp2p's table, filled as its add_peer would (no ping: room left)
            bucket = self.routing_table.find_bucket(peer)
            bucket.peers[peer] = (PeerInfo(peer, addrs), 0.0)


def _session(peer: ID) -> Any:
    return SimpleNamespace(peer_id=peer)


async def test_a_connection_the_remote_ended_hides_the_contact_and_ours_does_not(
    autojump_clock: MockClock,
) -> None:
    peers = [_peer() for _ in range(6)]
    dht, events = _Dht(peers), ConnectionEvents()
    stale_contacts.watch_stale_contacts(dht, events)
    table, (gone, ours, other) = dht.routing_table, peers[:3]
    assert {gone, ours} <= set(table.find_local_closest_peers(gone.to_bytes(), 20))
    (closed,) = events.close_listeners
    closed(_session(ours), "local: network.close_host < lifecycle.open_node")
    closed(_session(gone), "remote closed")
    dht.host.connections[other] = [SimpleNamespace(muxed_conn=object())]
    closed(_session(other), "read error ConnectionClosedError")  # another connection is left: no failure
    closed(_session(peers[3]), "short reads")  # our reader gave up with the socket open: the peer was there
    contacts = stale_contacts.contacts_of(dht)
    assert list(contacts.peers) == [gone.to_bytes()]
    assert gone not in table.find_local_closest_peers(gone.to_bytes(), 20)  # never named in answers
    assert ours in table.find_local_closest_peers(ours.to_bytes(), 20)
    assert next(iter(table.find_bucket(gone).peers)) == gone  # the first its bucket replaces
    # a connection to it opens: it is back, named again
    (opened,) = events.open_listeners
    opened(gone)
    assert gone in table.find_local_closest_peers(gone.to_bytes(), 20)
    # two failures in a row: out of the table at once
    closed(_session(gone), "remote GO_AWAY normal")
    assert table.peer_in_table(gone)
    assert stale_contacts.note_failure(dht, gone, trio.current_time())
    assert not table.peer_in_table(gone)


async def test_the_sweep_evicts_a_stale_contact_after_its_grace(autojump_clock: MockClock) -> None:
    peers = [_peer() for _ in range(3)]
    dht, events = _Dht(peers), ConnectionEvents()
    stale_contacts.watch_stale_contacts(dht, events)
    (closed,) = events.close_listeners
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stale_contacts.sweep_stale_contacts, dht)
        closed(_session(peers[0]), "remote closed")
        closed(_session(peers[1]), "remote closed")
        stale_contacts.note_heard(dht, peers[1])  # it answered meanwhile
        await trio.sleep(GRACE - 1)
        assert dht.routing_table.peer_in_table(peers[0])
        await trio.sleep(stale_contacts.SWEEP + 1)
        assert not dht.routing_table.peer_in_table(peers[0])
        assert dht.routing_table.peer_in_table(peers[1]) and dht.routing_table.peer_in_table(peers[2])
        nursery.cancel_scope.cancel()


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> dict[bytes, float]:
    """Each peer's handshake delay (inf: gone); every answer a FIND_NODE reply naming no one, 0.11 s after
    the handshake."""
    delays: dict[bytes, float] = {}

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        await trio.sleep(delays[peer.to_bytes()])
        if on_open is not None:
            on_open()
        await trio.sleep(0.11)
        return [Message(type=Message.MessageType.FIND_NODE, key=r.key) for r in requests]

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    return delays


async def test_a_lookup_does_not_wait_for_a_contact_whose_connection_the_remote_ended(
    network: dict[bytes, float], autojump_clock: MockClock
) -> None:
    key = b"some key"
    gone, a, b = sorted((_peer() for _ in range(3)), key=lambda p: position(p.to_bytes()) ^ position(key))
    network.update({gone.to_bytes(): math.inf, a.to_bytes(): 0.22, b.to_bytes(): 0.22})
    dht = _Dht([gone, a, b])
    hedges = kad_io.hedges_of(dht)
    hedges.missed = 0.0  # no spare request: what the suspicion saves alone
    stale_contacts.watch_stale_contacts(dht, ConnectionEvents())
    stale_contacts.note_failure(dht, gone, 0.0)  # its connection ended at the remote
    assert set(kad_io.known_peers(dht)) == {a.to_bytes(), b.to_bytes()}  # no lookup starts from it
    named = [p.to_bytes() for p in (gone, a, b)]  # another peer's answer names it: asked, not waited for
    me = dht.local_peer_id.to_bytes()
    started = trio.current_time()
    await kad_io.run_lookup(dht, Lookup([key], named, me=me, ask=2), kad_io.CLOSEST)
    assert trio.current_time() - started == pytest.approx(0.33, abs=1e-6)  # a and b at once
    assert gone.to_bytes() in stale_contacts.contacts_of(dht)  # its request was cancelled: still stale
    # without the note, the same lookup waits the reach wait for it first
    dht = _Dht([gone, a, b])
    kad_io.hedges_of(dht).missed = 0.0
    assert len(kad_io.known_peers(dht)) == 3
    started = trio.current_time()
    await kad_io.run_lookup(dht, Lookup([key], named, me=me, ask=2), kad_io.CLOSEST)
    assert trio.current_time() - started > 0.33 + 0.1


def test_the_simulated_nodes_keep_the_nodes_stale_contact_rule() -> None:
    node = World(SimConfig(nodes=2)).nodes[0]
    mine, theirs = node.contacts, stale_contacts.contacts_of(SimpleNamespace())
    assert mine is not None
    assert (mine.grace, mine.evict_after, mine.limit) == (theirs.grace, theirs.evict_after, theirs.limit)
