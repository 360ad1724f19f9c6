"""The routing-table model the discovery simulator runs (ioa_p2p.dht.kbuckets): py-libp2p's parameters,
closest peers, bucket splits and replacement, bulk adds. Fixed seeds, no I/O."""

from __future__ import annotations

import random

import pytest
from libp2p.kad_dht.common import BUCKET_SIZE, MAXIMUM_BUCKETS

from ioa_p2p.dht import kbuckets
from ioa_p2p.dht.kbuckets import RoutingTable
from ioa_p2p.dht.keyspace import K, position


def test_the_routing_table_model_has_py_libp2p_parameters() -> None:
    assert K == BUCKET_SIZE
    assert kbuckets.MAX_BUCKETS == MAXIMUM_BUCKETS


@pytest.mark.parametrize("split", ["any", "own"])
def test_closest_peers_are_those_of_a_full_sort_by_xor_distance(split: kbuckets.Split) -> None:
    rng = random.Random(7)
    table = RoutingTable(rng.randbytes(32), split=split)
    for _ in range(900):
        table.add(rng.randbytes(32))
    peers = list(table)
    assert len(peers) == len(table) == len(set(peers))
    for _ in range(40):
        target = position(rng.randbytes(32))
        want = sorted(peers, key=lambda p: position(p) ^ target)[:K]
        assert table.closest(target, K) == want
    excluded = peers[3]
    assert excluded not in table.closest(position(excluded), K, exclude=excluded)


def test_buckets_hold_at_most_k_peers_and_split_by_the_rule() -> None:
    rng = random.Random(3)
    own = rng.randbytes(32)
    anywhere, own_only = RoutingTable(own, split="any"), RoutingTable(own, split="own")
    for _ in range(2000):
        peer = rng.randbytes(32)
        anywhere.add(peer)
        own_only.add(peer)
    for table in (anywhere, own_only):
        assert all(len(b.peers) <= K for b in table.buckets)
        assert all(b.holds(position(p)) for b in table.buckets for p in b.peers)
    # any full bucket splits (py-libp2p): far more peers than the paper's table keeps
    assert len(anywhere) > 3 * len(own_only)
    assert len(own_only) < K * 10


def test_a_full_bucket_replaces_its_least_recently_seen_peer_only_when_it_is_gone() -> None:
    rng = random.Random(5)
    table = RoutingTable(rng.randbytes(32), max_buckets=1)
    first = [rng.randbytes(32) for _ in range(K)]
    for peer in first:
        assert table.add(peer)
    newcomer = rng.randbytes(32)
    assert not table.add(newcomer)  # no ping possible: dropped
    assert not table.add(newcomer, alive=lambda p: True)  # the oldest answers: it stays
    assert table.add(newcomer, alive=lambda p: p != first[0])
    assert first[0] not in table and newcomer in table and len(table) == K
    table.add(first[1])  # seen again: it is the most recent now
    assert table.buckets[0].peers[-1] == first[1]
    assert table.remove(newcomer) and not table.remove(newcomer) and len(table) == K - 1
    assert not table.add(table.own)


@pytest.mark.parametrize(
    ("offered", "bucket_size", "max_buckets", "split", "before"),
    [(600, K, 256, "any", 0), (300, 3, 256, "any", 0), (300, 2, 12, "any", 0), (200, 4, 256, "own", 0)]
    + [(200, K, 256, "any", 30), (300, 2, 12, "any", 30), (300, 3, 256, "own", 30)],
)
def test_adding_many_peers_at_once_builds_the_table_of_adding_them_one_by_one(
    offered: int, bucket_size: int, max_buckets: int, split: kbuckets.Split, before: int
) -> None:
    rng = random.Random(offered + bucket_size)
    own = rng.randbytes(32)
    pool = [rng.randbytes(32) for _ in range(offered // 2)] + [own]
    peers = [rng.choice(pool) for _ in range(offered)]  # repeats move a peer to the end of its bucket
    one_by_one, at_once = (
        RoutingTable(own, bucket_size=bucket_size, max_buckets=max_buckets, split=split) for _ in range(2)
    )
    earlier = [rng.randbytes(32) for _ in range(before)]  # a table that is not empty: added one by one
    for table in (one_by_one, at_once):
        for peer in earlier:
            table.add(peer)

    def alive(peer: bytes) -> bool:  # the least recently seen peer of a full bucket answers a ping or not
        return position(peer) % 3 != 0

    for peer in peers:
        one_by_one.add(peer, alive)
    assert at_once.add_many(peers, alive) == len(one_by_one)
    assert [(b.low, b.width, b.peers) for b in at_once.buckets] == [
        (b.low, b.width, b.peers) for b in one_by_one.buckets
    ]
    assert len(at_once) == len(one_by_one) and own not in at_once


def test_bad_table_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="bucket_size"):
        RoutingTable(b"x", bucket_size=0)
    with pytest.raises(ValueError, match="buckets"):
        RoutingTable(b"x", max_buckets=257)
