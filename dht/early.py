"""Stores sent while the lookup still runs, to the candidates surely among a key's closest peers (pure).

A round of stores (a record put, a page put, a provide round) looked up each key's ``K`` closest peers
and only then stored at them, so it took a whole lookup and then a dial and a store (simulated at 10,000
nodes: publish p50 1.13 s, the batched page and provide rounds waiting for their slowest key's lookup,
~0.8 s, then ~0.33 s to dial and store). Yet a lookup names most of a key's closest peers in its first
answers: the peers a connected table peer knows closest to the key.

With ``N`` peers spread uniformly over the keyspace (positions are SHA-256 values) the number of peers
within a distance ``x`` of a key is Poisson with mean ``N x / S``. A candidate nearer than ``rank / N``
of the keyspace (:data:`SURE_RANK` = 8) is among the ``K`` (20) closest unless 19 others are nearer still,
which happens with probability ~3e-4 when the node's size estimate is right, and ~0.02 when it is 25 %
low (one standard error of :func:`~ioa_p2p.dht.keyspace.estimate_network_size`); a store at a peer that
turns out 21st or 25th closest is not lost: lookups of the key pass close to it. So a round sends a
key's store at once to every candidate within that line (:meth:`EarlyPlacement.due`, after each answer
of the lookup), and once the lookup is done to the rest of the ``K`` closest
(:meth:`EarlyPlacement.rest`). That is Kubo's "optimistic provide" (go-libp2p-kad-dht), with the line
from the node's own size estimate.

The quorum of a round (:class:`~ioa_p2p.dht.quorum.StoreQuorum`) counts the early stores too: a key
whose quorum of surely-closest peers acknowledged it is findable before the lookup is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ioa_p2p.dht.keyspace import KEYSPACE, K, position

#: A candidate nearer to a key than ``SURE_RANK / N`` of the keyspace is stored at during the lookup.
SURE_RANK = 8
#: Below this size estimate nothing is sent early: a lookup there is a hop or two, and with every peer
#: within the line each peer would get a stream per key (a 6-node test network's puts then failed).
EARLY_FROM = 4 * K


class EarlyPlacement:
    """Which targets of a round's ``keys`` get their store during the lookup, for a network of about
    ``network_size`` peers (the node's estimate); ``rank`` <= 0 sends nothing early."""

    __slots__ = ("line", "sent")

    def __init__(self, keys: Iterable[bytes], network_size: float, rank: float = SURE_RANK) -> None:
        early = rank > 0 and network_size >= EARLY_FROM
        self.line = int(KEYSPACE * rank / network_size) if early else 0
        self.sent: dict[bytes, set[bytes]] = {key: set() for key in keys}

    def due(self, key: bytes, candidates: Sequence[bytes]) -> list[bytes]:
        """Of ``key``'s candidates (the lookup's closest known, alive, closest first), those within the line
        that were not sent ``key`` yet; they count as sent from now."""
        sent = self.sent.get(key)
        if sent is None or self.line <= 0:
            return []
        target, line = position(key), self.line
        out = []
        for peer in candidates:
            if position(peer) ^ target >= line:
                break
            if peer not in sent:
                sent.add(peer)
                out.append(peer)
        return out

    def rest(self, final: Mapping[bytes, Sequence[bytes]]) -> dict[bytes, list[bytes]]:
        """The final targets (``key -> peers``, from the finished lookup) not sent early, as ``key ->
        peers``; they count as sent from now."""
        out: dict[bytes, list[bytes]] = {}
        for key, peers in final.items():
            sent = self.sent.setdefault(key, set())
            fresh = [peer for peer in peers if peer not in sent]
            sent.update(fresh)
            out[key] = fresh
        return out

    @property
    def active(self) -> bool:
        """Whether anything is sent before the lookup is over (a line drawn: a large enough network)."""
        return self.line > 0

    def targets(self, key: bytes) -> set[bytes]:
        """Every peer sent ``key`` so far."""
        return self.sent.get(key, set())


__all__ = ["EARLY_FROM", "SURE_RANK", "EarlyPlacement"]
