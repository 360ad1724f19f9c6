"""A lookup notices a peer that has gone sooner than a whole request's hedge (issue 25, churn).

- pure: ``Lookup(suspect=...)`` asks a suspected peer without waiting for it; ``spare`` asks one more
  candidate per key without changing when a key is finished; a peer slow on one key's batch does not
  hold the keys it would be asked next; ``Hedges``' reach wait, miss share and ``Unreached``;
- the node's driver (``kad_io.run_lookup``) over a fake network behind ``kad_io._exchange`` (each peer's
  handshake and answer after its own delays, a gone peer never answering the handshake) under trio's
  MockClock: a gone peer costs the reach wait, not the request's hedge, and the next lookup does not
  wait for it at all.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from trio.testing import MockClock

from ioa_p2p.dht.keyspace import position
from ioa_p2p.dht.lookup import ANSWERED, PENDING, SLOW, Lookup
from ioa_p2p.dht.rtt import MISS_PRIOR, REACH_OWN, SPARE_FROM, Hedges, Unreached
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.identity import Identity
from ioa_p2p.node.net import kad_io

from .fake_dht import FakePeerstore, FakeTable

KEY = b"some key"


def _by_distance(n: int, key: bytes = KEY) -> list[bytes]:
    peers = [Identity.generate().peer_id.raw for _ in range(n)]
    target = position(key)
    return sorted(peers, key=lambda p: position(p) ^ target)


# ---------------------------------------------------------------------- the pure lookup


def test_a_suspected_peer_is_asked_but_its_key_does_not_wait_for_it() -> None:
    gone, a, b, c = _by_distance(4)
    lookup = Lookup([KEY], [gone, a, b, c], ask=2, suspect=lambda p: p == gone)
    plan = lookup.requests()
    assert set(plan) == {gone, a, b}  # the suspect is asked, and two others stand in at once
    state = lookup.keys[KEY]
    assert state.asked[gone] == SLOW and state.asked[a] == state.asked[b] == PENDING
    lookup.answered(a, KEY)
    lookup.batch_done(a)
    lookup.answered(b, KEY)
    lookup.batch_done(b)
    assert lookup.finished(KEY) and lookup.done  # without the suspect's answer
    # a suspect that is back answers, and its answer counts as a slow peer's does
    lookup = Lookup([KEY], [gone, a, b, c], ask=2, suspect=lambda p: p == gone)
    lookup.requests()
    lookup.answered(gone, KEY, [c])
    lookup.batch_done(gone)
    assert lookup.keys[KEY].asked[gone] == ANSWERED


def test_without_suspects_a_silent_closest_peer_holds_its_key_until_it_is_hedged() -> None:
    gone, a, b, _ = _by_distance(4)
    lookup = Lookup([KEY], [gone, a, b], ask=2)
    assert set(lookup.requests()) == {gone, a}
    lookup.answered(a, KEY)
    lookup.batch_done(a)
    assert not lookup.finished(KEY) and lookup.requests() == {}
    lookup.slow(gone)
    assert set(lookup.requests()) == {b}


def test_a_spare_candidate_is_asked_and_a_key_still_ends_on_its_ask_closest() -> None:
    a, b, c, d = _by_distance(4)
    lookup = Lookup([KEY], [a, b, c, d], ask=2, spare=1)
    assert set(lookup.requests()) == {a, b, c}
    for peer in (a, b):
        lookup.answered(peer, KEY)
        lookup.batch_done(peer)
    assert lookup.finished(KEY)  # c has not answered: the two closest did
    lookup = Lookup([KEY], [a, b, c, d], ask=2, spare=1)
    lookup.requests()
    lookup.slow(a)  # a has gone: c, already asked, stands in without a new request's wait
    for peer in (b, c):
        lookup.answered(peer, KEY)
        lookup.batch_done(peer)
    assert lookup.finished(KEY)


def test_a_peer_slow_on_one_key_does_not_hold_the_next_key_it_would_be_asked() -> None:
    other = b"another key"
    slow, *rest = _by_distance(6)
    near_other = sorted(rest, key=lambda p: position(p) ^ position(other))
    lookup = Lookup([KEY], [slow, *rest], ask=1)
    lookup.keys[other] = type(lookup.keys[KEY])(other, position(other), [slow, *near_other])
    plan = lookup.requests()
    assert plan[slow] == [KEY, other]  # one batch
    lookup.slow(slow)
    second = lookup.requests()
    assert slow not in second and len(second) >= 1  # both keys ask a stand-in at once
    for peer, keys in second.items():
        for key in keys:
            lookup.answered(peer, key)
        lookup.batch_done(peer)
    assert lookup.done


# ---------------------------------------------------------------------- waits and memory


def test_the_reach_wait_follows_measured_handshakes_within_its_floor() -> None:
    hedges = Hedges(low=0.4, high=1.5, initial=0.4, reach=True, reach_low=0.2)
    assert hedges.reach_wait() == 0.4  # before any handshake
    for _ in range(40):
        hedges.sample_reach(0.11)
    assert hedges.reach_wait() == pytest.approx(0.2, abs=0.02)  # the floor: 2 round trips of 50 ms
    for _ in range(40):
        hedges.sample_reach(0.3)
    assert 0.3 <= hedges.reach_wait() < 0.4
    assert Hedges(reach=False).reach_wait() is None
    assert hedges.fresh().reach_wait() == 0.4 and hedges.fresh().reach is not None


def test_a_node_with_few_handshakes_waits_what_its_open_round_trips_call_for() -> None:
    """A node that holds connections to its table dials rarely: one handshake measured sets RFC 6298's
    wide spread (a wait of 3 handshakes), while its many answers over open connections say a handshake
    (2 round trips) takes ~0.22 s; until REACH_OWN handshakes, the wait is at most what those call for,
    and after that its own handshakes decide (a host whose handshakes cost CPU waits longer)."""
    hedges = Hedges(low=0.4, high=1.5, initial=0.4, reach=True, reach_low=0.2)
    for _ in range(20):
        hedges.sample(0.11, True)  # requests over open connections: 50 ms each way
    assert hedges.reach_wait() == pytest.approx(0.22, abs=0.02)  # before any handshake: 2 round trips
    hedges.sample_reach(0.22)  # own estimate alone: 0.22 + 4 * 0.11 = 0.66 s
    assert hedges.reach_wait() == pytest.approx(0.22, abs=0.02)
    for _ in range(REACH_OWN):
        hedges.sample_reach(0.5)  # this host's handshakes are slow: they decide once there are enough
    assert hedges.reach_wait() >= 0.5
    quiet = Hedges(low=0.4, high=1.5, initial=0.4, reach=True, reach_low=0.2)
    for _ in range(20):
        quiet.sample(0.02, True)  # loopback round trips: never below the reach floor
    assert quiet.reach_wait() == 0.2
    wide = Hedges(low=0.4, high=1.5, initial=0.4, reach=True, reach_low=0.2)
    for _ in range(20):
        wide.sample(1.0, True)  # slow links: never more than the handshakes' own initial wait
    assert wide.reach_wait() == 0.4


def test_spare_requests_follow_the_share_of_dials_that_missed() -> None:
    hedges = Hedges(reach=True)
    assert hedges.missed == MISS_PRIOR and hedges.spare() == 1  # churn assumed until dials tell
    while hedges.missed >= SPARE_FROM:
        hedges.note_dial(missed=False)
    assert hedges.spare() == 0
    hedges.note_dial(missed=True)
    assert hedges.spare() == 1
    assert Hedges(reach=False).spare() == 0  # the old two-kind hedge never spares


def test_unreached_peers_are_forgotten_after_their_time_or_an_answer_and_bounded() -> None:
    memory = Unreached(ttl=10.0, limit=3)
    memory.note(b"a", 0.0)
    assert memory.holds(b"a", 9.9) and not memory.holds(b"a", 10.0)
    memory.note(b"b", 0.0)
    memory.clear(b"b")
    assert not memory.holds(b"b", 1.0)
    for i, peer in enumerate((b"c", b"d", b"e", b"f")):
        memory.note(peer, float(i))
    assert len(memory) == 3 and not memory.holds(b"c", 4.0) and memory.holds(b"f", 4.0)
    with pytest.raises(ValueError):
        Unreached(ttl=0)


# ---------------------------------------------------------------------- the node's driver


class _FakeDHT:
    def __init__(self, known: list[bytes]) -> None:
        self.local_peer_id = ID(Identity.generate().peer_id.raw)
        self.routing_table = FakeTable(known)
        self.host = self

    def get_connected_peers(self) -> list[ID]:
        return []

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> dict[bytes, tuple[float, float]]:
    """Each peer's (handshake, answer) delays; a peer with an infinite handshake has gone. Every answer
    is a FIND_NODE reply naming no one."""
    table: dict[bytes, tuple[float, float]] = {}
    asked: list[bytes] = []

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        handshake, answer = table[peer.to_bytes()]
        asked.append(peer.to_bytes())
        await trio.sleep(handshake)  # a gone peer: until the per-peer timeout
        if on_open is not None:
            on_open()
        await trio.sleep(answer)
        return [Message(type=Message.MessageType.FIND_NODE, key=r.key) for r in requests]

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    return table


async def _lookup(dht: _FakeDHT) -> float:
    started = trio.current_time()
    lookup = Lookup([KEY], kad_io.known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=2)
    await kad_io.run_lookup(dht, lookup, kad_io.CLOSEST)
    return trio.current_time() - started


async def test_a_gone_peer_costs_the_reach_wait_and_the_next_lookup_does_not_wait_for_it(
    network: dict[bytes, tuple[float, float]], autojump_clock: MockClock
) -> None:
    gone, a, b = _by_distance(3)
    network.update({gone: (math.inf, 0.0), a: (0.22, 0.11), b: (0.22, 0.11)})
    dht = _FakeDHT([gone, a, b])
    hedges = kad_io.hedges_of(dht)
    hedges.missed = 0.0  # no spare requests: the reach wait alone
    for _ in range(40):  # handshakes of 2 round trips of 110 ms measured before
        hedges.sample_reach(0.22)
        hedges.open.sample(0.11)
    reach = hedges.reach_wait()
    assert reach is not None and reach < kad_io.HEDGE_LOW
    took = await _lookup(dht)
    # the gone peer was given up at its reach wait, then b was dialled: not at the 0.4 s hedge
    assert took == pytest.approx(reach + 0.33, abs=1e-6)
    assert kad_io.unreached_of(dht).holds(gone, trio.current_time())
    assert hedges.missed > 0  # one dial of this lookup missed
    # the next lookup asks it again (it may be back) but finishes on a and b at once
    hedges.missed = 0.0
    assert await _lookup(dht) == pytest.approx(0.33, abs=1e-6)


async def test_a_slow_peer_whose_handshake_is_through_is_not_suspected(
    network: dict[bytes, tuple[float, float]], autojump_clock: MockClock
) -> None:
    slow, a, b = _by_distance(3)
    network.update({slow: (0.22, 1.0), a: (0.22, 0.11), b: (0.22, 0.11)})
    dht = _FakeDHT([slow, a, b])
    kad_io.hedges_of(dht).missed = 0.0
    await _lookup(dht)
    assert not kad_io.unreached_of(dht).holds(slow, trio.current_time())
    assert kad_io.hedges_of(dht).missed == 0.0


def test_the_simulated_nodes_hedge_and_remember_unreached_peers_as_the_node_does() -> None:
    """``SimConfig.hedge``'s default is ``kad_io``'s: a reach wait for dials, the same bounds, the same
    memory of peers not reached (``kad_io.hedges_of`` / ``unreached_of`` on a DHT object)."""

    class _Dht:
        pass

    node, dht = World(SimConfig(nodes=2)).nodes[0], _Dht()
    mine, theirs = node.round_trips, kad_io.hedges_of(dht)
    assert mine is not None and mine.reach is not None and theirs.reach is not None
    for a, b in ((mine.open, theirs.open), (mine.reach, theirs.reach)):
        assert (a.low, a.high, a.initial) == (b.low, b.high, b.initial)
    assert mine.missed == theirs.missed and mine.spare() == theirs.spare()
    assert node.unreached is not None
    assert (node.unreached.ttl, node.unreached.limit) == (
        kad_io.unreached_of(dht).ttl,
        kad_io.unreached_of(dht).limit,
    )
