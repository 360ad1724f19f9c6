"""Past a network size, the card topic carries only what is new (pure; issue 25, ``[discovery] relay_all``).

Every node re-issues its card every ``republish`` seconds (a fresh expiry; the content unchanged) and
announced each version on the card topic, which GossipSub floods to every node: ``N x 0.1`` announcements
a minute, each sent ~6 times by every node (6,591 gossip messages per node per minute simulated at 10,000
nodes, ~66,000 at 100,000, docs/performance.md), whatever ``keep_all`` lets a node keep. Past
``relay_all`` (the node's network size estimate, or the cards its directory holds, whichever is larger):

- **the owner** announces a new version only when its content changed (:func:`announce_version`: name,
  description, tags, vector, addresses, anything but version, lifetime and stamp); its first card and
  its withdrawals always go out, and its DHT record is renewed as before;
- **a relay** forwards a card only when it is new to it or its content differs from what it last saw of
  that publisher (:func:`relay_verdict`; :class:`ContentBook` remembers a digest per publisher, bounded);
  a renewal of unchanged content (an owner of a previous release, or one whose estimate is below the
  line) is applied locally (it confirms the card held) and not forwarded: it dies one hop from its owner.
  Withdrawals are always forwarded;
- **holders** then confirm an unchanged card by their revalidation fetch (``revalidate`` >= 1.2 x
  ``republish``: the owner's renewal is in the DHT by then), and only the cards the node needs
  (:func:`confirm_by_fetch`: pinned, or used by a find within :data:`NEED_WINDOW` revalidations); the
  others lapse at ``revalidate`` instead of costing a fetch each, and finds ask the DHT for them, as
  ``keep_all`` already makes a node do past its directory size.

What stays bounded in time: a withdrawal still floods (every online holder drops the card within a
gossip hop time); a holder that missed it drops the card at its revalidation (``revalidate +
find_timeout``), as before. Below the line nothing changes (:class:`RelayCap` engages at ``relay_all``
and lets go below ``(1 - HYSTERESIS) x relay_all``, so an estimate near the line does not flip it).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections import OrderedDict

from ioa_p2p.card import SignedCard, SignedWithdrawal
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import PeerId

#: The capped mode lets go once the size falls this share below the line (an estimate's noise near the
#: line does not flip it; the pooled estimate's relative error is ~0.07, ``dht/netsize.py``).
HYSTERESIS = 0.2
#: Publishers whose last content digest a relay remembers (the least recently seen forgotten first: a
#: renewal of a forgotten publisher is forwarded once, as a new card).
BOOK_MAX = 65_536
#: Fields a renewal changes without changing what the card says.
RENEWED_FIELDS = frozenset({"version", "issued_at", "expires_at", "stamp"})
#: In the capped mode a card is confirmed by fetch while it was used by a find within this many
#: ``revalidate`` periods (else it lapses: the DHT has it when a find needs it again).
NEED_WINDOW = 2


class Relay(enum.Enum):
    FORWARD = "forward"  # new, changed, a withdrawal, or below the line: GossipSub forwards it
    LOCAL = "local"  # an unchanged renewal past the line: applied here, not forwarded


def content_digest(card: SignedCard) -> bytes:
    """16 bytes naming what ``card`` says: every body field but :data:`RENEWED_FIELDS` (the body's type
    too: a version 2 card with the same fields says more than a version 1 card)."""
    body = card.card
    digest = hashlib.blake2b(type(body).__name__.encode(), digest_size=16)
    for field in dataclasses.fields(body):
        if field.name in RENEWED_FIELDS:
            continue
        value = getattr(body, field.name)
        digest.update(field.name.encode())
        digest.update(value.raw if isinstance(value, PeerId) else repr(value).encode())
    return digest.digest()


class RelayCap:
    """Whether this node is past ``relay_all``: :meth:`observe` the network's size (module docstring)."""

    def __init__(self, relay_all: int, *, hysteresis: float = HYSTERESIS) -> None:
        if relay_all < 1 or not 0 <= hysteresis < 1:
            raise UsageError(
                f"relay_all must be >= 1 and hysteresis in [0, 1), got {relay_all}, {hysteresis}"
            )
        self.relay_all = relay_all
        self.release_below = relay_all * (1 - hysteresis)
        self.capped = False

    def observe(self, size: float) -> bool:
        """Take the node's current size figure (its estimate, or the cards held if more); True when the
        capped mode is on after it."""
        if size >= self.relay_all:
            self.capped = True
        elif size < self.release_below:
            self.capped = False
        return self.capped


class ContentBook:
    """The content digest last seen of each publisher's card (bounded by ``limit``, least recent out)."""

    def __init__(self, limit: int = BOOK_MAX) -> None:
        if limit < 1:
            raise UsageError(f"a content book holds at least 1 publisher, got {limit}")
        self.limit = limit
        self._digests: OrderedDict[PeerId, tuple[bytes, int]] = OrderedDict()  # -> (digest, expires_at)

    def __len__(self) -> int:
        return len(self._digests)

    def note(self, card: SignedCard, digest: bytes | None = None) -> None:
        peer = card.peer_id
        self._digests.pop(peer, None)
        self._digests[peer] = (content_digest(card) if digest is None else digest, card.expires_at)
        while len(self._digests) > self.limit:
            self._digests.popitem(last=False)

    def forget(self, peer: PeerId) -> None:
        self._digests.pop(peer, None)

    def digest_of(self, peer: PeerId, now_ms: int) -> bytes | None:
        """The digest of the last card seen of ``peer`` (None: none, or it has expired since)."""
        found = self._digests.get(peer)
        if found is None:
            return None
        if now_ms >= found[1]:
            del self._digests[peer]
            return None
        return found[0]


def relay_verdict(
    record: SignedCard | SignedWithdrawal,
    *,
    capped: bool,
    held: SignedCard | None,
    book: ContentBook,
    now_ms: int,
) -> Relay:
    """Forward ``record`` (a valid announcement of another node) or apply it here only (module docstring).
    Notes a card's digest in ``book`` either way; a withdrawal makes the book forget its publisher. The
    node's own announcements are the owner's decision (:func:`announce_version`), never judged here."""
    if isinstance(record, SignedWithdrawal):
        book.forget(record.peer_id)
        return Relay.FORWARD
    digest = content_digest(record)
    # what gossip carried before; else an older version held (one of the same version may have come by
    # a DHT fetch, ahead of this announcement: its neighbours may not have it, so it is forwarded)
    previous = book.digest_of(record.peer_id, now_ms)
    if previous is None and held is not None and held.version < record.version:
        previous = content_digest(held)
    book.note(record, digest)
    if capped and previous == digest:
        return Relay.LOCAL
    return Relay.FORWARD


def announce_version(capped: bool, previous: SignedCard | None, card: SignedCard) -> bool:
    """Whether the owner announces ``card`` by gossip: always below the line; past it only a first card or
    one whose content differs from ``previous`` (the DHT record is renewed either way)."""
    return not capped or previous is None or content_digest(previous) != content_digest(card)


def confirm_by_fetch(
    *, capped: bool, pinned: bool, last_used_ms: int | None, now_ms: int, revalidate_ms: int
) -> bool:
    """Whether revalidation fetches a card unconfirmed for ``revalidate`` (True) or lets it lapse: below
    the line every card is confirmed (renewals reach it by gossip, a fetch is the exception); past it
    only a pinned card or one a find used within :data:`NEED_WINDOW` revalidation periods."""
    if not capped or pinned:
        return True
    return last_used_ms is not None and now_ms - last_used_ms <= NEED_WINDOW * revalidate_ms


__all__ = [
    "BOOK_MAX",
    "HYSTERESIS",
    "NEED_WINDOW",
    "RENEWED_FIELDS",
    "ContentBook",
    "Relay",
    "RelayCap",
    "announce_version",
    "confirm_by_fetch",
    "content_digest",
    "relay_verdict",
]
