"""Record validation for the DHT and for gossip announcements (pure apart from the injected clock).

DHT: py-libp2p's ``KadDHT`` accepts anything in a namespace without a validator (and, unless strict
validation is on, anything outside a namespace), so discovery registers :class:`IoaNamespaceValidator`
for the ``ioa`` namespace on a DHT created with ``strict_validation=True``. It accepts exactly one kind
of key, ``/ioa/card/<peer id>``, whose value must be a valid card (:func:`ioa_p2p.card.parse_card`) of
that very peer, live at the validator's clock; ``select`` picks the highest valid version (earliest on
ties, so an equal version never displaces a stored record). Any other ``/ioa/...`` key is refused.

Gossip: :func:`check_announcement` checks an announced card: valid and live, published by the card's
own peer (the GossipSub ``from`` field, itself signed by the publisher), and not older than the
version we already hold (a replay).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ioa_p2p.card import SignedCard, parse_card, select_newest, try_parse_card
from ioa_p2p.errors import AuthorMismatch, InvalidCard, InvalidPeerId, ReplayedCard
from ioa_p2p.identity import PeerId

NAMESPACE = "ioa"
CARD_PREFIX = f"/{NAMESPACE}/card/"

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


class CardValidator:
    """Validator of ``/ioa/card/<peer id>`` records."""

    def __init__(self, clock_ms: Clock) -> None:
        self.clock_ms = clock_ms

    def validate(self, key: str, value: bytes) -> None:
        parse_card(value, now_ms=self.clock_ms(), peer=peer_from_card_key(key))

    def select(self, key: str, values: list[bytes]) -> int:
        now = self.clock_ms()
        try:
            peer = peer_from_card_key(key)
        except InvalidCard:
            return 0
        best = select_newest([try_parse_card(v, now_ms=now, peer=peer) for v in values])
        return 0 if best is None else best


class IoaNamespaceValidator:
    """Everything under ``/ioa/``: dispatches on the second path segment (only ``card`` exists)."""

    def __init__(self, clock_ms: Clock) -> None:
        self.card = CardValidator(clock_ms)

    def _pick(self, key: str) -> RecordValidator:
        if isinstance(key, str) and key.startswith(CARD_PREFIX):
            return self.card
        raise InvalidCard(f"no record type is defined for DHT key {key!r}; only {CARD_PREFIX}<peer id>")

    def validate(self, key: str, value: bytes) -> None:
        self._pick(key).validate(key, value)

    def select(self, key: str, values: list[bytes]) -> int:
        return self._pick(key).select(key, values)


def check_announcement(
    data: bytes, *, publisher: PeerId, known_version: int | None, now_ms: int
) -> SignedCard:
    """Verify a gossip announcement. Raises an :class:`~ioa_p2p.errors.InvalidMessage` subclass."""
    card = parse_card(data, now_ms=now_ms)
    if card.peer_id != publisher:
        raise AuthorMismatch(
            f"card of {card.peer_id} announced by {publisher}: peers announce only their own card"
        )
    if known_version is not None and card.version < known_version:
        raise ReplayedCard(
            f"announced card of {card.peer_id} has version {card.version}, "
            f"older than the version {known_version} we hold"
        )
    return card


__all__ = [
    "CARD_PREFIX",
    "NAMESPACE",
    "CardValidator",
    "IoaNamespaceValidator",
    "RecordValidator",
    "card_key",
    "check_announcement",
    "peer_from_card_key",
]
