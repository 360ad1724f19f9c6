"""The pooled network size estimate (``dht/netsize.py``, issue 25): the routing table's one draw is pooled
with the draws of the node's finished lookups, so a node with a sparse neighbourhood no longer
overestimates for good (72 for 50 was measured: every find of that node listed a second LSH table), and
the reported value does not flip between finds.

The last test drives the real lookup driver (``kad_io.run_lookup`` through ``kad.get_values_many``) over
a fake network behind ``kad_io._exchange`` (each peer answers GET_VALUE with its own closest peers to the
key); trio's MockClock makes it exact."""

from __future__ import annotations

import hashlib
import random
import statistics
from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from trio.testing import MockClock

from ioa_p2p.dht.keyspace import K, closest, estimate_network_size, position
from ioa_p2p.dht.netsize import HYSTERESIS, KEYS, MAX_AGE, SizeEstimate, key_estimate
from ioa_p2p.node.net import kad, kad_io

from .fake_dht import EmptyStore, FakePeerstore, FakeTable

PREFIX = b"\x00\x24\x08\x01\x12\x20"  # an Ed25519 peer ID's multihash prefix: positions are SHA-256 anyway


def _network(n: int, rng: random.Random) -> list[bytes]:
    return [PREFIX + rng.randbytes(32) for _ in range(n)]


def _keys(count: int, rng: random.Random) -> list[bytes]:
    return [b"/ioa/page/" + rng.randbytes(8).hex().encode() for _ in range(count)]


def _pooled(peers: list[bytes], me: bytes, keys: list[bytes]) -> float:
    """What a node that knows every peer reports after finished lookups of ``keys``."""
    estimate = SizeEstimate(me)
    others = [p for p in peers if p != me]
    for key in keys:
        estimate.offer(key, closest(position(key), others, K), now=0.0)
    return estimate.estimate(estimate_network_size(me, others), len(others), now=0.0)


def test_a_keys_draw_is_unbiased_and_needs_k_peers() -> None:
    """``(k - 1) S / d_k`` over the ``k`` closest of all ``N`` peers to a random key: mean within 3 % of N."""
    rng = random.Random(7)
    for n in (50, 1000):
        draws = []
        for _ in range(400):
            peers = _network(n, rng)
            target = position(rng.randbytes(16))
            draw = key_estimate([position(p) ^ target for p in peers])
            assert draw is not None
            draws.append(draw / n)
        assert abs(statistics.mean(draws) - 1) < 0.03
    assert key_estimate([5, 6, 7]) is None  # fewer than k: no draw
    with pytest.raises(ValueError):
        key_estimate([1, 2, 3], k=1)


@pytest.mark.parametrize("n", [50, 400])
def test_pooling_sixteen_lookups_takes_the_spread_from_a_quarter_to_a_few_per_cent(n: int) -> None:
    """Over many networks (seeded), a node that knows every peer: the routing table's estimate alone
    overshoots by over 25 % for about a tenth of the nodes (a second table per find at N = 50); with the
    draws of 16 finished lookups (a find's page keys) none does, and the spread is under 8 %."""
    rng = random.Random(n)
    alone, pooled = [], []
    for _ in range(120):
        peers = _network(n, rng)
        me = peers[0]
        alone.append(estimate_network_size(me, peers[1:]) / n)
        pooled.append(_pooled(peers, me, _keys(16, rng)) / n)
    assert sum(r > 1.25 for r in alone) >= 4  # the problem: one draw
    assert max(pooled) < 1.25 and min(pooled) > 0.8
    assert statistics.pstdev(pooled) < 0.08 < statistics.pstdev(alone)
    assert abs(statistics.mean(pooled) - 1) < 0.05


def _overestimating(n: int, rng: random.Random) -> tuple[list[bytes], bytes]:
    """The first network of ``n`` (from ``rng``) with a node whose own estimate is over 1.25 n, and that
    node (the case measured: 72 for 50; the nodes of one small network share most of their closest
    peers, so it is networks, more than nodes, that overshoot)."""
    while True:
        peers = _network(n, rng)
        worst = max(peers, key=lambda p: estimate_network_size(p, peers))
        if estimate_network_size(worst, peers) > 1.25 * n:
            return peers, worst


def test_the_node_with_the_sparsest_neighbourhood_is_brought_back() -> None:
    """16 lookups (a find's listing) keep it under the 1.25 n that made a find list a second table; the
    64 keys an estimate keeps bring it within 15 % (the layout of one network of 50 is itself lumpy)."""
    rng = random.Random(3)
    for _ in range(8):
        peers, worst = _overestimating(50, rng)
        assert 0.9 * 50 <= _pooled(peers, worst, _keys(16, rng)) < 1.25 * 50
        assert 0.9 * 50 <= _pooled(peers, worst, _keys(KEYS, rng)) <= 1.15 * 50


def test_the_reported_value_moves_only_out_of_its_band_and_never_below_the_peers_known() -> None:
    me = PREFIX + bytes(32)
    estimate = SizeEstimate(me)
    assert estimate.estimate(50.0, 10, now=0.0) == 50.0
    assert estimate.estimate(50.0 * (1 + HYSTERESIS * 0.9), 10, now=1.0) == 50.0  # inside the band: held
    assert estimate.estimate(50.0 * (1 - HYSTERESIS * 0.9), 10, now=2.0) == 50.0
    assert estimate.estimate(70.0, 10, now=3.0) == 70.0  # out of it: moved
    assert estimate.estimate(70.0, 79, now=4.0) == 80.0  # more peers known than estimated
    assert estimate.pooled(10.0, 40, now=5.0) == 41.0


def test_a_key_counts_once_draws_age_out_and_the_oldest_keys_go_first() -> None:
    rng = random.Random(5)
    peers = _network(60, rng)
    me, others = peers[0], peers[1:]
    estimate = SizeEstimate(me)
    key = b"/ioa/page/one"
    near = closest(position(key), others, K)
    first = estimate.offer(key, near, now=0.0)
    assert first is not None
    assert estimate.offer(key, near, now=1.0) == first
    assert estimate.draws(now=2.0) == [first]  # the same key listed by every find: one draw
    assert estimate.offer(b"/ioa/page/few", near[:5], now=2.0) is None  # too few peers: no draw
    assert estimate.offer(me, near, now=2.0) is None  # its own position: the routing table's draw
    assert estimate.draws(now=1.0 + MAX_AGE + 0.5) == []  # aged out
    for i, key in enumerate(_keys(KEYS + 5, rng)):
        estimate.offer(key, closest(position(key), others, K), now=10.0 + i)
    assert len(estimate.draws(now=100.0)) == KEYS


def test_this_node_counts_among_a_keys_closest() -> None:
    """The node itself is one of the N peers around a key: a key it is among the k closest of draws from
    the k-th of all, not the k-th of the others."""
    rng = random.Random(11)
    peers = _network(60, rng)
    key = next(k for k in _keys(400, rng) if closest(position(k), peers, K)[0] == peers[0])
    estimate = SizeEstimate(peers[0])
    draw = estimate.offer(key, closest(position(key), peers[1:], K), now=0.0)
    d_k = position(closest(position(key), peers, K)[-1]) ^ position(key)
    assert draw == (K - 1) * 2**256 / d_k


class _FakeDHT:
    def __init__(self, own: bytes, known: list[bytes]) -> None:
        self.local_peer_id = ID(own)
        self.routing_table = FakeTable(known)
        self.value_store = EmptyStore()
        self.host = self
        kad_io.hedges_of(self).missed = 0.0

    def get_connected_peers(self) -> list[ID]:
        return []

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


async def test_a_nodes_finished_lookups_steady_its_size_estimate(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock
) -> None:
    """The node of 50 whose own estimate is highest knows only its K closest and 10 others; each peer
    answers a key with its own K closest to it. After one batched lookup of 16 page keys (a find's
    listing), ``kad.network_size`` is within 15 % of 50."""
    rng = random.Random(13)
    peers, own = _overestimating(50, rng)
    others = [p for p in peers if p != own]
    known = closest(position(own), others, K) + rng.sample(others, 10)

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        if on_open is not None:
            on_open()
        await trio.sleep(0.01)
        replies = []
        for request in requests:
            reply = Message(type=Message.MessageType.GET_VALUE, key=request.key)
            target = int.from_bytes(hashlib.sha256(request.key).digest(), "big")
            for p in closest(target, [q for q in peers if q != peer.to_bytes()], K):
                entry = reply.closerPeers.add()
                entry.id = p
                entry.addrs.append(b"\x04\x7f\x00\x00\x01\x06\x00\x01")
            replies.append(reply)
        return replies

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    dht = _FakeDHT(own, known)
    before = kad.network_size(dht)
    assert before > 1.25 * 50
    keys = [k.decode() for k in _keys(16, rng)]
    with trio.fail_after(60):
        await kad.get_values_many(dht, keys)
    assert len(kad_io.size_estimate_of(dht).draws(trio.current_time())) == 16
    assert 0.85 * 50 <= kad.network_size(dht) <= 1.15 * 50


async def test_the_size_estimate_is_worked_out_once_a_second(autojump_clock: MockClock) -> None:
    """Several loops of every agent ask for the size estimate each second; each ask listed and hashed every
    peer known (issue 26, l-idle9). The value is reused for ``SIZE_MEMO`` s, then follows the table."""
    rng = random.Random(5)
    peers = [rng.randbytes(32) for _ in range(60)]
    dht = _FakeDHT(peers[0], peers[1:40])
    listings = 0
    table = dht.routing_table.get_peer_ids

    def counted() -> list[ID]:
        nonlocal listings
        listings += 1
        return table()

    dht.routing_table.get_peer_ids = counted  # type: ignore[method-assign]
    first = kad.network_size(dht)
    for _ in range(5):
        assert kad.network_size(dht) == first
    assert listings == 1  # before: 6
    dht.routing_table.peers = [ID(p) for p in peers[1:]]  # 20 more known
    await trio.sleep(kad_io.SIZE_MEMO)
    assert kad.network_size(dht) >= 60 and listings == 2
