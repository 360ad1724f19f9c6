"""A Kademlia routing table as py-libp2p 0.8.1 keeps it, as a pure data structure (no I/O, no clock).

The node runs the library's own ``RoutingTable`` (``libp2p.kad_dht.routing_table``); this is a model of it
with the same parameters and rules, so that a simulator (:mod:`ioa_p2p.dht.sim`) can drive thousands of
tables in one process. A test pins the parameters to the library's.

The library's rules (``split="any"``, the default here):

- the keyspace of peer positions (SHA-256 of the peer ID bytes, :func:`~ioa_p2p.dht.keyspace.position`)
  is cut into *range buckets*, each a binary prefix of the keyspace, starting with one bucket for all;
- a bucket holds at most ``bucket_size`` (:data:`~ioa_p2p.dht.keyspace.K` = 20) peers, least recently
  seen first; a peer seen again moves to the end;
- a new peer whose bucket is full splits that bucket in halves (any full bucket, not only the one holding
  our own position) until there are ``max_buckets`` (256) buckets; then the least recently seen peer of
  the bucket is pinged and replaced when it does not answer (:meth:`RoutingTable.add` takes the answer as
  ``alive``), else the new peer is dropped;
- the closest peers to a key are the table's peers sorted by XOR distance to the key's position.

So a long-running py-libp2p table keeps up to 256 x 20 = 5,120 peers. ``split="own"`` is the table of the
Kademlia paper and of go-libp2p (only the bucket holding our own position splits): about
``20 * log2(N / 20)`` peers. The simulator compares the two.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Container, Iterable, Iterator
from typing import Literal

from ioa_p2p.dht.keyspace import KEYSPACE, K, position

#: The most buckets a py-libp2p table has (one per bit of the keyspace).
MAX_BUCKETS = 256
KEYSPACE_BITS = KEYSPACE.bit_length() - 1
Split = Literal["any", "own"]


class Bucket:
    """Peers whose positions lie in ``[low, low + 2**width)``, least recently seen first."""

    __slots__ = ("low", "width", "peers")

    def __init__(self, low: int, width: int) -> None:
        self.low, self.width = low, width
        self.peers: list[bytes] = []

    def holds(self, pos: int) -> bool:
        return pos >> self.width == self.low >> self.width

    def random_key_position(self, rng: random.Random) -> int:
        """A random position inside this bucket (what a bucket refresh looks up)."""
        return self.low | rng.getrandbits(self.width) if self.width else self.low


class RoutingTable:
    """The routing table of the peer ``own`` (ID bytes); see the module docstring."""

    def __init__(
        self,
        own: bytes,
        *,
        bucket_size: int = K,
        max_buckets: int = MAX_BUCKETS,
        split: Split = "any",
    ) -> None:
        if bucket_size < 1 or not 1 <= max_buckets <= MAX_BUCKETS:
            raise ValueError(f"a routing table needs bucket_size >= 1 and 1..{MAX_BUCKETS} buckets")
        self.own = own
        self.own_position = position(own)
        self.bucket_size, self.max_buckets, self.split = bucket_size, max_buckets, split
        self.buckets: list[Bucket] = [Bucket(0, KEYSPACE_BITS)]
        self._lows: list[int] = [0]  # each bucket's lowest position, in order (for binary searches)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __contains__(self, peer: object) -> bool:
        return isinstance(peer, bytes) and peer in self.bucket_of(position(peer)).peers

    def __iter__(self) -> Iterator[bytes]:
        for bucket in self.buckets:
            yield from bucket.peers

    def bucket_of(self, pos: int) -> Bucket:
        """The bucket whose range holds ``pos``."""
        return self.buckets[bisect.bisect_right(self._lows, pos) - 1]

    def add(self, peer: bytes, alive: Callable[[bytes], bool] | None = None) -> bool:
        """Add ``peer`` (or mark it seen); True when it is in the table afterwards. A full bucket splits if
        the rules allow, else its least recently seen peer is replaced when ``alive`` says it is gone
        (``None``: no ping, the new peer is dropped)."""
        if peer == self.own:
            return False
        pos = position(peer)
        bucket = self.buckets[bisect.bisect_right(self._lows, pos) - 1]
        peers = bucket.peers
        if peer in peers:
            if peers[-1] != peer:  # seen again: it becomes the most recently seen
                peers.remove(peer)
                peers.append(peer)
            return True
        while len(bucket.peers) >= self.bucket_size and self._may_split(bucket):
            self._split(bucket)
            bucket = self.bucket_of(pos)
        if len(bucket.peers) < self.bucket_size:
            bucket.peers.append(peer)
            self._size += 1
            return True
        if alive is None or alive(bucket.peers[0]):  # the least recently seen peer answers: it stays
            return False
        del bucket.peers[0]
        bucket.peers.append(peer)
        return True

    def add_many(self, peers: Iterable[bytes], alive: Callable[[bytes], bool] | None = None) -> int:
        """:meth:`add` each of ``peers`` in order; returns the table's size afterwards.

        The same table as the loop of :meth:`add` calls (a test holds them equal), only cheaper: a peer
        already held is moved to the end of its bucket in line, and an empty table whose full ranges may
        all split (``split="any"``) is built at once: with nothing ever dropped (so nobody is pinged), a
        range of the keyspace ends up split exactly when more than ``bucket_size`` of the peers fall in
        it, whatever their order, and a bucket lists its peers by when they were last offered. Used to
        give thousands of simulated nodes the tables of a formed network (:meth:`World.warm_start`) and
        for every peer a lookup's answers name."""
        offered = list(peers)
        if self._size or self.split != "any":
            return self._add_each(offered, alive)
        last = {peer: i for i, peer in enumerate(offered) if peer != self.own}  # order of last offer
        ranked = sorted(last, key=position)
        keys = [position(peer) for peer in ranked]
        leaves: list[Bucket] = []
        stack = [(0, KEYSPACE_BITS, 0, len(ranked))]
        while stack:
            low, width, first, end = stack.pop()
            if end - first <= self.bucket_size or width == 0:
                leaf = Bucket(low, width)
                leaf.peers = sorted(ranked[first:end], key=last.__getitem__)
                leaves.append(leaf)
                continue
            upper = low | (1 << (width - 1))
            middle = bisect.bisect_left(keys, upper, first, end)
            stack.append((upper, width - 1, middle, end))  # popped after the lower half: leaves in order
            stack.append((low, width - 1, first, middle))
        if len(leaves) > self.max_buckets:  # sequential adds would have stopped splitting: do them
            return self._add_each(offered, alive)
        self.buckets = leaves
        self._lows = [leaf.low for leaf in leaves]
        self._size = len(ranked)
        return len(ranked)

    def _add_each(self, peers: list[bytes], alive: Callable[[bytes], bool] | None) -> int:
        own, lows, buckets, right = self.own, self._lows, self.buckets, bisect.bisect_right
        for peer in peers:
            held = buckets[right(lows, position(peer)) - 1].peers  # (splits change both lists in place)
            if peer in held:
                if held[-1] != peer:
                    held.remove(peer)
                    held.append(peer)
            elif peer != own:
                self.add(peer, alive)
        return self._size

    def remove(self, peer: bytes) -> bool:
        bucket = self.bucket_of(position(peer))
        if peer not in bucket.peers:
            return False
        bucket.peers.remove(peer)
        self._size -= 1
        return True

    def demote(self, peer: bytes) -> bool:
        """Make ``peer`` its bucket's least recently seen (the first one a full bucket replaces: a stale
        contact, :mod:`~ioa_p2p.dht.contacts`); True when it is in the table."""
        peers = self.bucket_of(position(peer)).peers
        if peer not in peers:
            return False
        if peers[0] != peer:
            peers.remove(peer)
            peers.insert(0, peer)
        return True

    def closest(
        self,
        target: int,
        count: int = K,
        *,
        exclude: bytes | None = None,
        skip: Container[bytes] | None = None,
    ) -> list[bytes]:
        """The ``count`` peers closest to position ``target`` by XOR distance (as py-libp2p's
        ``find_local_closest_peers``), without ``exclude`` and the peers in ``skip`` (stale contacts left
        out of answers).

        Buckets are binary prefixes: the bucket holding ``target`` comes first, then, bit by bit upwards
        from its width, the subtree that differs from ``target`` in that bit (every peer there is closer
        than any peer of the next one); each subtree's peers are sorted, and the walk stops at ``count``."""
        lows, buckets = self._lows, self.buckets
        holder = buckets[bisect.bisect_right(lows, target) - 1]
        if skip is not None and not skip:
            skip = None
        out = [p for p in holder.peers if p != exclude and (skip is None or p not in skip)]
        out.sort(key=lambda p: position(p) ^ target)
        bit = holder.width
        while len(out) < count and bit < KEYSPACE_BITS:
            start = ((target >> bit) ^ 1) << bit
            first, last = bisect.bisect_left(lows, start), bisect.bisect_left(lows, start + (1 << bit))
            group = [p for b in buckets[first:last] for p in b.peers if p != exclude]
            if skip is not None:
                group = [p for p in group if p not in skip]
            if len(group) > 1:
                group.sort(key=lambda p: position(p) ^ target)
            out.extend(group)
            bit += 1
        return out[:count]

    def _may_split(self, bucket: Bucket) -> bool:
        if len(self.buckets) >= self.max_buckets or bucket.width == 0:
            return False
        return self.split == "any" or bucket.holds(self.own_position)

    def _split(self, bucket: Bucket) -> None:
        index = bisect.bisect_left(self._lows, bucket.low)
        width = bucket.width - 1
        lower, upper = Bucket(bucket.low, width), Bucket(bucket.low | (1 << width), width)
        for peer in bucket.peers:  # the order (least recently seen first) is kept in both halves
            (upper if position(peer) >> width & 1 else lower).peers.append(peer)
        self.buckets[index : index + 1] = [lower, upper]
        self._lows[index : index + 1] = [lower.low, upper.low]


__all__ = ["MAX_BUCKETS", "Bucket", "RoutingTable"]
