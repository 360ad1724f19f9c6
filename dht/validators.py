"""Record validation for the DHT and for gossip announcements (pure apart from the injected clock).

DHT: py-libp2p's ``KadDHT`` accepts anything in a namespace without a validator (and, unless strict
validation is on, anything outside a namespace), so discovery registers :class:`IoaNamespaceValidator`
for the ``ioa`` namespace on a DHT created with ``strict_validation=True``. It accepts exactly one kind
of card key, ``/ioa/card/<peer id>``, whose value must be a valid card or withdrawal
(:func:`ioa_p2p.card.parse_record`) of that very peer, live at the validator's clock, a card with a
stamp of at least ``min_stamp_bits`` bits, within the node's rate limits
(:class:`~ioa_p2p.dht.admission.CardAdmission`: new identities in total, versions per identity);
``select`` picks the highest valid version, card or withdrawal (earliest on ties, so an equal version
never displaces a stored record). Bucket pages, ``/ioa/page/...``, are checked by :class:`PageValidator`
(``dht/pages.py``). Any other ``/ioa/...`` key is refused.

Gossip: :func:`check_announcement` checks an announced card or withdrawal: valid and live, published by
its own peer (the GossipSub ``from`` field, itself signed by the publisher), stamped enough, and not older
than the version we already hold (a replay).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ioa_p2p.card import CardRecord, SignedCard, newest_record, parse_record
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.errors import (
    AuthorMismatch,
    InvalidCard,
    InvalidMessage,
    InvalidPeerId,
    OverBudget,
    ReplayedCard,
)
from ioa_p2p.identity import PeerId

if TYPE_CHECKING:
    from ioa_p2p.dht.pages import Merge

NAMESPACE = "ioa"
CARD_PREFIX = f"/{NAMESPACE}/card/"
# The same prefix as ioa_p2p.dht.pages.PAGE_PREFIX (pinned by tests/test_pages.py): pages need numpy and
# the LSH forest, imported only when a page is first validated, so a bootstrap node starts without them.
PAGE_PREFIX = f"/{NAMESPACE}/page/"

Clock = Callable[[], int]


class RecordValidator(Protocol):
    """The interface py-libp2p's ``KadDHT.register_validator`` calls (its ``Validator``; duck-typed, so
    this module needs no libp2p import: :func:`ioa_p2p.node.net.kad.prepare_dht` registers it)."""

    def validate(self, key: str, value: bytes) -> None: ...

    def select(self, key: str, values: list[bytes]) -> int: ...


def card_key(peer: PeerId) -> str:
    """The DHT key of a peer's card."""
    return CARD_PREFIX + str(peer)


def peer_from_card_key(key: str) -> PeerId:
    if not isinstance(key, str) or not key.startswith(CARD_PREFIX):
        raise InvalidCard(f"{key!r} is not a card key (expected {CARD_PREFIX}<peer id>)")
    try:
        return PeerId.from_string(key[len(CARD_PREFIX) :])
    except InvalidPeerId as exc:
        raise InvalidCard(f"card key {key!r} does not end in a peer ID: {exc}") from None


def check_stamp(record: CardRecord, min_stamp_bits: int) -> None:
    """Raise :class:`InvalidCard` for a card whose stamp has fewer than ``min_stamp_bits`` bits."""
    if isinstance(record, SignedCard) and min_stamp_bits > 0 and record.stamp_bits < min_stamp_bits:
        raise InvalidCard(
            f"card of {record.peer_id} has a stamp of {record.stamp_bits} bits; this node requires "
            f"{min_stamp_bits} ([discovery] min_stamp_bits)"
        )


class RecordParser(Protocol):
    """:func:`ioa_p2p.card.parse_record`'s signature (the simulator passes one that verifies each distinct
    record once)."""

    def __call__(self, data: bytes, *, now_ms: int, peer: PeerId | None = None) -> CardRecord: ...


class CardValidator:
    """Validator of ``/ioa/card/<peer id>`` records. ``stored(key)`` says whether this node holds a record
    under ``key`` already (the DHT layer sets it; a new identity and an update have separate limits)."""

    def __init__(
        self,
        clock_ms: Clock,
        *,
        min_stamp_bits: int = 0,
        admission: CardAdmission | None = None,
        parse: RecordParser = parse_record,
    ) -> None:
        self.clock_ms = clock_ms
        self.min_stamp_bits = min_stamp_bits
        self.admission = admission
        self.parse = parse
        self.stored: Callable[[str], bool] = lambda key: False

    def validate(self, key: str, value: bytes) -> None:
        now = self.clock_ms()
        record = self.parse(value, now_ms=now, peer=peer_from_card_key(key))
        check_stamp(record, self.min_stamp_bits)
        if self.admission is not None and not self.admission.admit_card(
            record.peer_id, known=self.stored(key), now=now / 1000
        ):
            raise OverBudget(f"too many card records from {record.peer_id} or from new identities; try later")

    def select(self, key: str, values: list[bytes]) -> int:
        now = self.clock_ms()
        try:
            peer = peer_from_card_key(key)
        except InvalidCard:
            return 0
        best = newest_record([self._try_parse(v, now, peer) for v in values])
        return 0 if best is None else best

    def _try_parse(self, value: bytes, now: int, peer: PeerId) -> CardRecord | None:
        try:
            return self.parse(value, now_ms=now, peer=peer)
        except InvalidMessage:
            return None


class PageValidator:
    """Validator of ``/ioa/page/...`` records (:mod:`~ioa_p2p.dht.pages`): every sketch well formed, live,
    signed by its peer and in the page's bucket. ``select`` prefers the latest valid value: a storing peer
    merges a page put into the page it holds (the DHT layer's store does:
    :func:`~ioa_p2p.dht.pages.merge_page`), so a new put is never refused for the page held being "better"."""

    def __init__(self, clock_ms: Clock, *, min_stamp_bits: int = 0) -> None:
        self.clock_ms = clock_ms
        self.min_stamp_bits = min_stamp_bits  # every entry's sketch stamp (version 3), at least

    def validate(self, key: str, value: bytes) -> None:
        from ioa_p2p.dht.pages import validate_page

        validate_page(key, value, self.clock_ms(), min_bits=self.min_stamp_bits)

    def select(self, key: str, values: list[bytes]) -> int:
        """The last value that is a well-formed page (called after ``validate``, which checked the
        entries: they are not checked again here)."""
        from ioa_p2p.dht.pages import decode_page

        for index in range(len(values) - 1, 0, -1):
            try:
                decode_page(values[index])
                return index
            except InvalidMessage:
                continue
        return 0

    def store(self, key: str, held: bytes | None, value: bytes, admit_new: Callable[[PeerId], bool]) -> Merge:
        """What to store for a page put (:func:`~ioa_p2p.dht.pages.store_page` at this validator's clock)."""
        from ioa_p2p.dht.pages import store_page

        return store_page(held, key, value, self.clock_ms(), admit_new, min_bits=self.min_stamp_bits)


class IoaNamespaceValidator:
    """Everything under ``/ioa/``: dispatches on the second path segment (``card`` and ``page``)."""

    def __init__(
        self,
        clock_ms: Clock,
        *,
        min_stamp_bits: int = 0,
        admission: CardAdmission | None = None,
        parse: RecordParser = parse_record,
        min_sketch_bits: int = 0,
    ) -> None:
        self.card = CardValidator(clock_ms, min_stamp_bits=min_stamp_bits, admission=admission, parse=parse)
        self.page = PageValidator(clock_ms, min_stamp_bits=min_sketch_bits)

    @property
    def stored(self) -> Callable[[str], bool]:
        return self.card.stored

    @stored.setter
    def stored(self, held: Callable[[str], bool]) -> None:
        self.card.stored = held

    def _pick(self, key: str) -> RecordValidator:
        if isinstance(key, str) and key.startswith(CARD_PREFIX):
            return self.card
        if isinstance(key, str) and key.startswith(PAGE_PREFIX):
            return self.page
        raise InvalidCard(
            f"no record type is defined for DHT key {key!r}; only {CARD_PREFIX}<peer id> and {PAGE_PREFIX}..."
        )

    def validate(self, key: str, value: bytes) -> None:
        self._pick(key).validate(key, value)

    def is_page(self, key: str) -> bool:
        """True for a bucket page key (a storing peer merges puts of it: :meth:`store_page`)."""
        return isinstance(key, str) and key.startswith(PAGE_PREFIX)

    def store_page(
        self, key: str, held: bytes | None, value: bytes, admit_new: Callable[[PeerId], bool]
    ) -> Merge:
        """See :meth:`PageValidator.store` (raises :class:`~ioa_p2p.errors.InvalidMessage`)."""
        return self.page.store(key, held, value, admit_new)

    def select(self, key: str, values: list[bytes]) -> int:
        return self._pick(key).select(key, values)


def check_announcement(
    data: bytes,
    *,
    publisher: PeerId,
    known_version: int | None,
    now_ms: int,
    min_stamp_bits: int = 0,
    parse: RecordParser = parse_record,
) -> CardRecord:
    """Verify a gossip announcement (a card or a withdrawal). Raises an
    :class:`~ioa_p2p.errors.InvalidMessage` subclass. ``parse``: :func:`~ioa_p2p.card.parse_record` or
    one that decides as it does (the simulator's verify-once cache)."""
    record = parse(data, now_ms=now_ms)
    if record.peer_id != publisher:
        raise AuthorMismatch(
            f"record of {record.peer_id} announced by {publisher}: peers announce only their own card"
        )
    check_stamp(record, min_stamp_bits)
    if known_version is not None and record.version < known_version:
        raise ReplayedCard(
            f"announced record of {record.peer_id} has version {record.version}, "
            f"older than the version {known_version} we hold"
        )
    return record


__all__ = [
    "CARD_PREFIX",
    "NAMESPACE",
    "CardValidator",
    "IoaNamespaceValidator",
    "PageValidator",
    "RecordParser",
    "RecordValidator",
    "card_key",
    "check_announcement",
    "check_stamp",
    "peer_from_card_key",
]
