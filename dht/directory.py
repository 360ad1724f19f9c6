"""The local directory of verified agent cards this node has learned (pure: the caller passes ``now_ms``).

Cards arrive from gossip, from DHT lookups and from the node itself; all of them are already verified
(:class:`~ioa_p2p.card.SignedCard` objects only come out of :func:`~ioa_p2p.card.parse_card` or
:func:`~ioa_p2p.card.issue_card`). The directory keeps at most one card per peer:

- a card replaces the stored one only when its version is strictly greater (``card.newer_than``);
- an expired card is refused, and stored cards disappear when they expire (:meth:`Directory.expire`,
  and lazily on every lookup);
- when full, the card closest to expiry makes room for a card that lives longer.

Cards made with the directory's embedding model (``model_id``, ``dim``) are also put in a vector index
so :meth:`Directory.search` ranks them by cosine similarity; cards of other models are kept (and
listed) but never compared by vector. With a :class:`~ioa_p2p.dht.ranking.CardRanker` (what a node
uses), every card, of any model, is also ranked by the offline matcher: :meth:`Directory.rank`.
"""

from __future__ import annotations

import enum
import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ioa_p2p.card import SignedCard, newer_than
from ioa_p2p.dht.index import ExactIndex, VectorIndex
from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import PeerId

DEFAULT_MAX_CARDS = 200_000


class Offer(enum.Enum):
    """What :meth:`Directory.offer` did with a card."""

    ADDED = "added"  # first card of this peer
    UPDATED = "updated"  # a newer version replaced the stored one
    UNCHANGED = "unchanged"  # same version as the stored one
    STALE = "stale"  # older than the stored one: refused
    EXPIRED = "expired"  # already expired: refused
    FULL = "full"  # no room, and the card would not outlive any stored card: refused

    @property
    def changed(self) -> bool:
        return self in (Offer.ADDED, Offer.UPDATED)


@dataclass(frozen=True, slots=True)
class Entry:
    card: SignedCard
    learned_ms: int  # when this version was stored, or last confirmed (:meth:`Directory.touch`)
    source: str  # "self", "gossip", "dht", ...


@dataclass(frozen=True, slots=True)
class Match:
    card: SignedCard
    score: float
    source: str

    def to_json(self) -> dict[str, Any]:
        out = self.card.summary()
        out["score"] = round(self.score, 6)
        out["source"] = self.source
        return out


class Directory:
    """Verified cards by peer, with expiry, newest-version rule and a similarity index."""

    def __init__(
        self,
        model_id: str,
        dim: int,
        index: VectorIndex | None = None,
        *,
        max_cards: int = DEFAULT_MAX_CARDS,
        ranker: CardRanker | None = None,
    ) -> None:
        self.model_id = model_id
        self.dim = dim
        self.index: VectorIndex = index if index is not None else ExactIndex(dim)
        if self.index.dim != dim:
            raise UsageError(f"index dimension {self.index.dim} differs from the model's {dim}")
        self.max_cards = max_cards
        self.ranker = ranker
        self._entries: dict[PeerId, Entry] = {}
        self._expiry: list[tuple[int, bytes, int]] = []  # (expires_at, peer raw, version), lazy

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, peer: object) -> bool:
        return peer in self._entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(list(self._entries.values()))

    def get(self, peer: PeerId, now_ms: int | None = None) -> SignedCard | None:
        entry = self.entry(peer, now_ms)
        return None if entry is None else entry.card

    def entry(self, peer: PeerId, now_ms: int | None = None) -> Entry | None:
        entry = self._entries.get(peer)
        if entry is not None and now_ms is not None and entry.card.is_expired(now_ms):
            self.remove(peer)
            return None
        return entry

    def version_of(self, peer: PeerId) -> int | None:
        entry = self._entries.get(peer)
        return None if entry is None else entry.card.version

    def compatible(self, card: SignedCard) -> bool:
        """True when the card's vector is comparable with this directory's model."""
        return card.model == self.model_id and card.card.dim == self.dim

    def offer(self, card: SignedCard, now_ms: int, source: str) -> Offer:
        """Store ``card`` if it is live and newer than what we have; say what happened."""
        if card.is_expired(now_ms):
            return Offer.EXPIRED
        current = self._entries.get(card.peer_id)
        if current is not None and current.card.is_expired(now_ms):
            self.remove(card.peer_id)
            current = None
        if current is not None and not newer_than(card, current.card):
            return Offer.UNCHANGED if card.version == current.card.version else Offer.STALE
        if current is None and len(self._entries) >= self.max_cards and not self._make_room(card, now_ms):
            return Offer.FULL
        self._entries[card.peer_id] = Entry(card, now_ms, source)
        heapq.heappush(self._expiry, (card.expires_at, card.peer_id.raw, card.version))
        key = str(card.peer_id)
        if self.compatible(card):
            self.index.upsert(key, card.embedding())
        elif key in self.index:
            self.index.remove(key)
        if self.ranker is not None:
            self.ranker.add(card)
        return Offer.ADDED if current is None else Offer.UPDATED

    def touch(self, peer: PeerId, now_ms: int) -> None:
        """Record that the stored card was just confirmed current (e.g. re-read from the DHT)."""
        entry = self._entries.get(peer)
        if entry is not None:
            self._entries[peer] = Entry(entry.card, now_ms, entry.source)

    def remove(self, peer: PeerId) -> bool:
        if self._entries.pop(peer, None) is None:
            return False
        self.index.remove(str(peer))
        if self.ranker is not None:
            self.ranker.remove(str(peer))
        return True

    def expire(self, now_ms: int) -> list[PeerId]:
        """Drop every card that has expired at ``now_ms``; return their peers."""
        gone = []
        while self._expiry and self._expiry[0][0] <= now_ms:
            _, raw, version = heapq.heappop(self._expiry)
            peer = PeerId(raw)
            entry = self._entries.get(peer)
            if entry is not None and entry.card.version == version and entry.card.is_expired(now_ms):
                self.remove(peer)
                gone.append(peer)
        if len(self._expiry) > 2 * len(self._entries) + 64:
            self._expiry = [
                (e.card.expires_at, e.card.peer_id.raw, e.card.version) for e in self._entries.values()
            ]
            heapq.heapify(self._expiry)
        return gone

    def next_expiry(self) -> int | None:
        """The earliest ``expires_at`` of a stored card (None when empty)."""
        while self._expiry:
            expires_at, raw, version = self._expiry[0]
            entry = self._entries.get(PeerId(raw))
            if entry is not None and entry.card.version == version:
                return expires_at
            heapq.heappop(self._expiry)
        return None

    def _make_room(self, card: SignedCard, now_ms: int) -> bool:
        self.expire(now_ms)
        if len(self._entries) < self.max_cards:
            return True
        soonest = self.next_expiry()
        if soonest is None or soonest >= card.expires_at:
            return False
        _, raw, _ = heapq.heappop(self._expiry)
        self.remove(PeerId(raw))
        return True

    def rank(
        self, text: str, k: int, now_ms: int, *, exclude: frozenset[PeerId] = frozenset()
    ) -> list[Match]:
        """The ``k`` live cards that best match ``text`` by the offline matcher (every card, whatever
        its model; see :mod:`~ioa_p2p.dht.ranking`), best first. Blocking: run it in a worker thread."""
        if self.ranker is None:
            raise UsageError("this directory has no matcher; use search() with a query vector")
        if k <= 0:
            return []
        out: list[Match] = []
        for found in self.ranker.rank(text, k + len(exclude)):
            entry = self._entries.get(PeerId.from_string(found.key))
            if entry is None or entry.card.peer_id in exclude or entry.card.is_expired(now_ms):
                continue
            out.append(Match(entry.card, found.score, entry.source))
        return out[:k]

    def search(
        self, vector: Any, k: int, now_ms: int, *, exclude: frozenset[PeerId] = frozenset()
    ) -> list[Match]:
        """The ``k`` live cards most similar to ``vector`` (of this directory's model), best first."""
        if k <= 0:
            return []
        self.expire(now_ms)
        want = k + len(exclude)
        out: list[Match] = []
        for key, score in self.index.search(vector, want):
            entry = self._entries.get(PeerId.from_string(key))
            if entry is None or entry.card.peer_id in exclude or entry.card.is_expired(now_ms):
                continue
            out.append(Match(entry.card, score, entry.source))
            if len(out) == k:
                break
        return out

    def cards(self, now_ms: int | None = None) -> list[SignedCard]:
        if now_ms is not None:
            self.expire(now_ms)
        return [e.card for e in self._entries.values()]


__all__ = ["DEFAULT_MAX_CARDS", "Directory", "Entry", "Match", "Offer"]
