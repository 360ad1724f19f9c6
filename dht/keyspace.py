"""The Kademlia keyspace (pure): positions, XOR distance, closest peers, and the network size estimate.

As in the libp2p Kademlia spec (and py-libp2p 0.8.1), a key's position is SHA-256 of the key bytes and a
peer's position is SHA-256 of its peer ID bytes (the 38-byte multihash of an Ed25519 key); distance is
the XOR of two positions read as 256-bit big-endian integers. Peers are plain ``bytes`` here (their ID
bytes), so a simulator can drive everything with made-up peers.

:func:`estimate_network_size` estimates how many peers the network has from the peers a node knows closest
to a position (its own): in a network of ``N`` peers spread uniformly over the keyspace, the ``i``-th
closest peer lies at a distance of about ``i * 2**256 / (N + 1)``, so each of the ``k`` closest known
peers gives one estimate ``i * 2**256 / d_i``; the median of these is the answer. A node's routing
table always holds its closest peers (they fill the last, never-split bucket), so the estimate is good
at any size; with fewer than ``k`` peers known it is the number known (the whole network).
"""

from __future__ import annotations

import functools
import hashlib
import statistics
from collections.abc import Iterable

KEYSPACE = 2**256
#: Peers per bucket (k) in the libp2p Kademlia spec; also how many closest peers store a record.
K = 20


@functools.lru_cache(maxsize=1 << 16)
def position(data: bytes) -> int:
    """The keyspace position of a key or of a peer ID: SHA-256 of its bytes, as an integer."""
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


def distance(a: int, b: int) -> int:
    return a ^ b


def closest(target: int, peers: Iterable[bytes], count: int) -> list[bytes]:
    """The ``count`` peers closest to position ``target`` (ties cannot happen: positions are distinct)."""
    return sorted(set(peers), key=lambda peer: position(peer) ^ target)[:count]


def estimate_network_size(own: bytes, known: Iterable[bytes], k: int = K) -> float:
    """How many peers the network has, from the ``k`` known peers closest to ``own`` (see the module
    docstring); ``own`` counts as one peer. ``known`` may include ``own``."""
    me = position(own)
    peers = [p for p in set(known) if p != own]
    if len(peers) < k:
        return float(len(peers) + 1)
    nearest = sorted(position(p) ^ me for p in peers)[:k]
    estimates = [(i + 1) * KEYSPACE / max(d, 1) for i, d in enumerate(nearest)]
    return max(float(len(peers) + 1), statistics.median(estimates))


__all__ = ["K", "KEYSPACE", "closest", "distance", "estimate_network_size", "position"]
