"""The local directory of verified agent cards this node has learned (pure: the caller passes ``now_ms``).

Cards arrive from gossip, from DHT lookups and from the node itself; all of them are already verified
(:class:`~ioa_p2p.card.SignedCard` objects only come out of :func:`~ioa_p2p.card.parse_card` or
:func:`~ioa_p2p.card.issue_card`). The directory keeps at most one card per peer:

- a card replaces the stored one only when its version is strictly greater (``card.newer_than``);
- an expired card is refused, and stored cards disappear when they expire (:meth:`Directory.expire`,
  and lazily on every lookup);
- when full, the card closest to expiry makes room for a card that lives longer;
- a withdrawal (:class:`~ioa_p2p.card.withdrawal.SignedWithdrawal`) removes the card of a lower version
  and is remembered until it expires, so that no older card of that peer is stored again
  (:meth:`Directory.withdraw`; at most :data:`MAX_WITHDRAWN` are remembered, the oldest forgotten first);
- past ``keep_all`` cards (``[discovery] keep_all``) the directory keeps only the cards its node needs: a
  card nobody asked for (``wanted=False``: a gossip announcement of a peer it holds nothing of) is not
  stored (:attr:`Offer.NOT_KEPT`); a wanted one (fetched for a find, a teammate's) is, and
  :meth:`Directory.trim` (after each find) drops the least recently used cards that are not pinned
  (:meth:`Directory.pin`: its chats' members; :meth:`Directory.used`: the cards a find returned) until
  ``keep_all`` are left. The node then relies on the DHT for the rest;
- every entry records when its version was stored or last confirmed current (``learned_ms``):
  :meth:`Directory.unconfirmed` lists the entries older than an age (to be confirmed again from the
  network), :meth:`Directory.drop_unconfirmed` drops those still older than a larger age. With
  ``stale_after_ms`` (the node passes that larger age), reads (:meth:`Directory.search`,
  :meth:`Directory.rank`, :meth:`Directory.cards` with a time) never return an entry older than it, even
  before the revalidation loop's next pass drops it: a node that was offline (asleep, cut off) while
  a card was withdrawn or replaced comes back holding the old version, and must not return it while
  it confirms it again (the simulator caught 0.15 % of the online nodes doing so at minute 15,
  docs/performance.md);
- a node back from a gap (:meth:`Directory.rejoined`: asleep, cut off) missed whatever withdrawals and
  new versions were gossiped meanwhile, so every card it held then is a *suspect*: reads skip it until it
  is confirmed again (a gossip announcement, a newer version, :meth:`Directory.touch`), and
  :meth:`Directory.suspects` lists them for the revalidation loop to fetch at once instead of at their
  age's turn (``revalidate`` s after their last confirmation: simulated under 30 % churn, up to a fifth
  of the online nodes returned withdrawn cards for 11 minutes, those back from a short gap).

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

from ioa_p2p.card import SignedCard, SignedWithdrawal, newer_than
from ioa_p2p.dht.index import ExactIndex, VectorIndex
from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import PeerId

DEFAULT_MAX_CARDS = 200_000
#: Seconds the wall clock may run ahead of the monotonic clock between two readings before the node
#: counts as back from a gap (:class:`GapWatch`: asleep, the monotonic clock stops while suspended).
REJOIN_GAP = 30.0
#: Withdrawals remembered at most (each a few dozen bytes).
MAX_WITHDRAWN = 100_000


class GapWatch:
    """Notices that the node was away: between two readings (wall clock in ms, monotonic clock in s) the
    wall clock ran more than ``gap_s`` seconds ahead, as it does while a machine sleeps. The node reads
    it before every find and on every revalidation pass, and calls :meth:`Directory.rejoined` when it
    says so."""

    __slots__ = ("gap_s", "_last")

    def __init__(self, gap_s: float = REJOIN_GAP) -> None:
        self.gap_s = gap_s
        self._last: tuple[int, float] | None = None

    def back(self, wall_ms: int, mono_s: float) -> bool:
        """Record a reading; True when the wall clock ran ``gap_s`` ahead since the last one."""
        last, self._last = self._last, (wall_ms, mono_s)
        return last is not None and (wall_ms - last[0]) / 1000 - (mono_s - last[1]) > self.gap_s


class Offer(enum.Enum):
    """What :meth:`Directory.offer` did with a card."""

    ADDED = "added"  # first card of this peer
    UPDATED = "updated"  # a newer version replaced the stored one
    UNCHANGED = "unchanged"  # same version as the stored one
    STALE = "stale"  # older than the stored one: refused
    EXPIRED = "expired"  # already expired: refused
    FULL = "full"  # no room, and the card would not outlive any stored card: refused
    WITHDRAWN = "withdrawn"  # a withdrawal was stored (or: a card older than the peer's withdrawal: refused)
    NOT_KEPT = "not kept"  # past keep_all, a card this node did not ask for: not stored

    @property
    def changed(self) -> bool:
        return self in (Offer.ADDED, Offer.UPDATED)


@dataclass(frozen=True, slots=True)
class Entry:
    card: SignedCard
    learned_ms: int  # when this version was stored, or last confirmed (:meth:`Directory.touch`)
    source: str  # "self", "gossip", "dht", ...
    first_ms: int = 0  # when this node first held a card of the peer (kept across versions; the trust age)


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
        keep_all: int | None = None,
        ranker: CardRanker | None = None,
        stale_after_ms: int | None = None,
    ) -> None:
        if stale_after_ms is not None and stale_after_ms < 0:
            raise UsageError(f"stale_after_ms must be >= 0, got {stale_after_ms}")
        self.stale_after_ms = stale_after_ms
        self.model_id = model_id
        self.dim = dim
        self.index: VectorIndex = index if index is not None else ExactIndex(dim)
        if self.index.dim != dim:
            raise UsageError(f"index dimension {self.index.dim} differs from the model's {dim}")
        self.max_cards = max_cards
        self.keep_all = max_cards if keep_all is None else min(keep_all, max_cards)
        self.ranker = ranker
        self._recent: dict[PeerId, None] = {}  # least recently used first
        self._pinned: frozenset[PeerId] = frozenset()
        self._used_ms: dict[PeerId, int] = {}  # when a find last returned the card (:meth:`used`)
        #: True once a card was not kept: the directory is partial and finds must ask the DHT
        self.partial = False
        self._entries: dict[PeerId, Entry] = {}
        self._expiry: list[tuple[int, bytes, int]] = []  # (expires_at, peer raw, version), lazy
        self._withdrawn: dict[PeerId, tuple[int, int, int]] = {}  # peer -> (version, expires_at, learned)
        #: entries stored or confirmed before this time are suspects (:meth:`rejoined`)
        self.suspect_before = -(2**62)

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

    def returnable(self, entry: Entry, now_ms: int) -> bool:
        """Whether a read may return ``entry`` now: not expired, and confirmed within ``stale_after_ms``
        (this node's own card always is)."""
        if entry.card.is_expired(now_ms):
            return False
        if entry.source == "self":
            return True
        if entry.learned_ms < self.suspect_before:
            return False
        stale = self.stale_after_ms
        return stale is None or now_ms - entry.learned_ms <= stale

    def rejoined(self, now_ms: int) -> None:
        """This node is back from a gap (asleep, cut off): every card it holds is a suspect until confirmed
        again (module docstring)."""
        self.suspect_before = max(self.suspect_before, now_ms)

    def suspects(self, limit: int | None = None) -> list[PeerId]:
        """Peers whose entry was last confirmed before the node's last gap (oldest first), for the
        revalidation loop to confirm at once."""
        cutoff = self.suspect_before
        old = [e for e in self._entries.values() if e.learned_ms < cutoff and e.source != "self"]
        old.sort(key=lambda e: e.learned_ms)
        return [e.card.peer_id for e in old[:limit]]

    def version_of(self, peer: PeerId) -> int | None:
        """The highest version known of ``peer``'s records: its card, or its withdrawal."""
        entry = self._entries.get(peer)
        withdrawn = self._withdrawn.get(peer)
        versions = [
            v for v in (None if entry is None else entry.card.version, withdrawn and withdrawn[0]) if v
        ]
        return max(versions) if versions else None

    def withdrawn(self, peer: PeerId, now_ms: int) -> int | None:
        """When ``peer``'s withdrawal was stored or last confirmed (None: no live withdrawal, or a newer
        card came since)."""
        found = self._withdrawn.get(peer)
        if found is not None and now_ms >= found[1]:
            del self._withdrawn[peer]
            return None
        return None if found is None else found[2]

    def withdraw(self, withdrawal: SignedWithdrawal, now_ms: int) -> Offer:
        """Apply a withdrawal: drop the peer's card of a lower version and remember the withdrawal."""
        if withdrawal.is_expired(now_ms):
            return Offer.EXPIRED
        peer = withdrawal.peer_id
        known = self._withdrawn.get(peer)
        if known is not None and known[0] >= withdrawal.version:
            if known[0] == withdrawal.version:  # confirmed again
                self._withdrawn[peer] = (known[0], known[1], now_ms)
                return Offer.UNCHANGED
            return Offer.STALE
        entry = self._entries.get(peer)
        if entry is not None and entry.card.version >= withdrawal.version:
            return Offer.STALE  # the agent came back after this withdrawal
        if entry is not None:
            self.remove(peer)
        self._withdrawn.pop(peer, None)
        self._withdrawn[peer] = (withdrawal.version, withdrawal.expires_at, now_ms)
        while len(self._withdrawn) > MAX_WITHDRAWN:
            del self._withdrawn[next(iter(self._withdrawn))]
        return Offer.WITHDRAWN

    def unconfirmed(self, older_than_ms: int, now_ms: int, *, limit: int | None = None) -> list[PeerId]:
        """Peers whose entry was stored or confirmed more than ``older_than_ms`` ago (oldest first), except
        this node's own card (source ``"self"``)."""
        cutoff = now_ms - older_than_ms
        old = [e for e in self._entries.values() if e.learned_ms < cutoff and e.source != "self"]
        old.sort(key=lambda e: e.learned_ms)
        return [e.card.peer_id for e in old[:limit]]

    def drop_unconfirmed(self, older_than_ms: int, now_ms: int) -> list[PeerId]:
        """Drop the entries not confirmed for more than ``older_than_ms``; returns their peers."""
        gone = self.unconfirmed(older_than_ms, now_ms)
        for peer in gone:
            self.remove(peer)
        return gone

    def compatible(self, card: SignedCard) -> bool:
        """True when the card's vector is comparable with this directory's model."""
        return card.model == self.model_id and card.card.dim == self.dim

    def pin(self, peers: frozenset[PeerId]) -> None:
        """The peers whose cards are never evicted for room (they are still dropped when they expire)."""
        self._pinned = frozenset(peers)

    def used(self, peers: list[PeerId], now_ms: int | None = None) -> None:
        """These cards were just used (returned by a find): the last to be evicted for room; with
        ``now_ms``, :meth:`last_used` tells when (``[discovery] relay_all``: cards still needed)."""
        for peer in peers:
            if peer in self._entries:
                self._recent.pop(peer, None)
                self._recent[peer] = None
                if now_ms is not None:
                    self._used_ms[peer] = now_ms

    def last_used(self, peer: PeerId) -> int | None:
        """When a find last returned ``peer``'s card held now (None: not since it was stored)."""
        return self._used_ms.get(peer)

    def pinned(self, peer: PeerId) -> bool:
        return peer in self._pinned

    def offer(self, card: SignedCard, now_ms: int, source: str, *, wanted: bool = True) -> Offer:
        """Store ``card`` if it is live and newer than what we have (past ``keep_all`` cards, only a
        ``wanted`` card, or a pinned peer's, in place of the least recently used); say what happened."""
        if card.is_expired(now_ms):
            return Offer.EXPIRED
        withdrawn = self._withdrawn.get(card.peer_id)
        if withdrawn is not None and now_ms < withdrawn[1]:
            if card.version <= withdrawn[0]:
                return Offer.WITHDRAWN
            del self._withdrawn[card.peer_id]  # the agent came back with a newer card
        current = self._entries.get(card.peer_id)
        if current is not None and current.card.is_expired(now_ms):
            self.remove(card.peer_id)
            current = None
        if current is not None and not newer_than(card, current.card):
            return Offer.UNCHANGED if card.version == current.card.version else Offer.STALE
        if current is None and self.keep_all < self.max_cards and len(self._entries) >= self.keep_all:
            self.partial = True
            if not (wanted or card.peer_id in self._pinned):
                return Offer.NOT_KEPT
        if current is None and len(self._entries) >= self.max_cards and not self._make_room(card, now_ms):
            return Offer.FULL
        first = now_ms if current is None else current.first_ms
        self._entries[card.peer_id] = Entry(card, now_ms, source, first)
        self._recent.pop(card.peer_id, None)
        self._recent[card.peer_id] = None
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
            self._entries[peer] = Entry(entry.card, now_ms, entry.source, entry.first_ms)

    def remove(self, peer: PeerId) -> bool:
        self._recent.pop(peer, None)
        self._used_ms.pop(peer, None)
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

    def trim(self, now_ms: int) -> list[PeerId]:
        """Drop expired cards, then the least recently used unpinned ones, until at most ``keep_all`` are
        left (nothing while the directory keeps every card); returns the peers dropped."""
        self.expire(now_ms)
        gone: list[PeerId] = []
        if self.keep_all >= self.max_cards:
            return gone
        for peer in list(self._recent):
            if len(self._entries) <= self.keep_all:
                break
            entry = self._entries.get(peer)
            if peer not in self._pinned and (entry is None or entry.source != "self"):
                self.remove(peer)
                gone.append(peer)
        return gone

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
            if entry is None or entry.card.peer_id in exclude or not self.returnable(entry, now_ms):
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
            if entry is None or entry.card.peer_id in exclude or not self.returnable(entry, now_ms):
                continue
            out.append(Match(entry.card, score, entry.source))
            if len(out) == k:
                break
        return out

    def cards(self, now_ms: int | None = None) -> list[SignedCard]:
        """Every card held; with ``now_ms``, the live ones a read may return (:meth:`returnable`)."""
        if now_ms is None:
            return [e.card for e in self._entries.values()]
        self.expire(now_ms)
        return [e.card for e in self._entries.values() if self.returnable(e, now_ms)]


__all__ = [
    "REJOIN_GAP",
    "GapWatch",
    "DEFAULT_MAX_CARDS",
    "MAX_WITHDRAWN",
    "Directory",
    "Entry",
    "Match",
    "Offer",
]
