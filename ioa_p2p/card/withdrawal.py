"""The withdrawal of a card: a signed tombstone that replaces every earlier version (pure: no I/O, no clock).

A withdrawal is an :class:`~ioa_p2p.wire.Envelope` whose body is a :class:`CardWithdrawal` (message type
``"card_withdrawal"``, version 1). It travels where cards travel: as the value of the DHT record
``/ioa/card/<peer id>`` and as a message on the card topic. It is valid only when

- the signature verifies and the signer is the withdrawal's ``peer`` (nobody withdraws another's card),
- the envelope ``seq`` equals ``version`` and ``ts`` equals ``issued_at``,
- it lives at least as long as any card version issued before it may (``expires_at >= issued_at +``
  :data:`~ioa_p2p.card.record.MAX_TTL_MS`, at most :data:`MAX_WITHDRAWAL_TTL_MS`) and has not expired, was
  not issued in the future (:data:`~ioa_p2p.card.record.MAX_CLOCK_SKEW_MS`), and ``reason`` is at most
  :data:`MAX_REASON` bytes.

Selection between the cards and withdrawals of one peer is by ``version`` alone (:func:`newest_record`):
a withdrawal hides every card of a lower version, a card of a higher version (the agent came back)
replaces the withdrawal. Because a withdrawal outlives every card issued before it, no old card can
come back while it lives. The exact wire layout is in ``docs/protocol.md`` section 9.1.2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar  # noqa: F401  (wire.message_type resolves Body's ClassVar hints here)

from ioa_p2p.card.record import (
    MAX_CARD_SIZE,
    MAX_CLOCK_SKEW_MS,
    MAX_TTL_MS,
    SignedCard,
    check_fresh,
    parse_card,
)
from ioa_p2p.card.verified import VerifiedRecords
from ioa_p2p.errors import AuthorMismatch, ExpiredCard, InvalidCard, InvalidMessage, MessageTooLarge
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type

#: Longest lifetime of a withdrawal: the longest card lifetime plus the clock-skew allowance.
MAX_WITHDRAWAL_TTL_MS = MAX_TTL_MS + MAX_CLOCK_SKEW_MS
MAX_REASON = 200


@message_type("card_withdrawal", 1)
class CardWithdrawal(Body):
    """The body of a withdrawal. Build with :func:`issue_withdrawal`; parse with :func:`parse_record`."""

    peer: PeerId
    version: int
    issued_at: int
    expires_at: int
    reason: str

    def validate(self) -> None:
        for name in ("version", "issued_at", "expires_at"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
                raise InvalidCard(f"withdrawal {name} must be a non-negative 63-bit integer")
        lifetime = self.expires_at - self.issued_at
        if not MAX_TTL_MS <= lifetime <= MAX_WITHDRAWAL_TTL_MS:
            raise InvalidCard(
                f"a withdrawal must live {MAX_TTL_MS}..{MAX_WITHDRAWAL_TTL_MS} ms (as long as any card it "
                f"replaces), not {lifetime} ms"
            )
        if not isinstance(self.reason, str) or len(self.reason.encode("utf-8", "surrogatepass")) > MAX_REASON:
            raise InvalidCard(f"withdrawal reason must be text of at most {MAX_REASON} bytes")


@dataclass(frozen=True, slots=True)
class SignedWithdrawal:
    """A verified withdrawal with its exact encoding (what travels on the DHT and in gossip)."""

    envelope: Envelope
    encoded: bytes

    @property
    def withdrawal(self) -> CardWithdrawal:
        body = self.envelope.body
        assert isinstance(body, CardWithdrawal)
        return body

    @property
    def peer_id(self) -> PeerId:
        return self.withdrawal.peer

    @property
    def version(self) -> int:
        return self.withdrawal.version

    @property
    def expires_at(self) -> int:
        return self.withdrawal.expires_at

    def is_expired(self, now_ms: int) -> bool:
        return now_ms >= self.withdrawal.expires_at

    def summary(self) -> dict[str, Any]:
        w = self.withdrawal
        return {
            "peer_id": str(w.peer),
            "withdrawn": True,
            "version": w.version,
            "issued_at": w.issued_at,
            "expires_at": w.expires_at,
            "reason": w.reason,
        }


#: What the DHT record ``/ioa/card/<peer id>`` and a card announcement may hold.
CardRecord = SignedCard | SignedWithdrawal


def issue_withdrawal(identity: Identity, *, version: int, now_ms: int, reason: str = "") -> SignedWithdrawal:
    """Sign the withdrawal of this node's card; ``version`` must be above every card version issued."""
    body = CardWithdrawal(
        peer=identity.peer_id,
        version=version,
        issued_at=now_ms,
        expires_at=now_ms + MAX_TTL_MS,
        reason=reason,
    )
    envelope = Envelope.create(identity, body, seq=version, ts=now_ms)
    return SignedWithdrawal(envelope, envelope.to_cbor())


def parse_record(data: bytes, *, now_ms: int, peer: PeerId | None = None) -> CardRecord:
    """A card (:func:`~ioa_p2p.card.record.parse_card`) or a withdrawal, verified and live at ``now_ms``;
    ``peer``, when given, is the peer it must belong to. Raises an :class:`InvalidMessage` subclass.
    Bytes that passed before in this process (:data:`VERIFIED`) are not decoded and verified again: only
    ``peer`` and ``now_ms`` are checked."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidCard(f"a card record is bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_CARD_SIZE:
        raise MessageTooLarge(f"a card record of {len(data)} bytes is over the limit of {MAX_CARD_SIZE}")
    known = VERIFIED.get(data)
    if known is not None:  # these bytes passed every check before: only the caller's peer and clock
        return _recheck(known, now_ms, peer)
    record = _parse_new(data, now_ms, peer)
    VERIFIED.put(record.encoded, record)
    return record


#: The records this process verified (:mod:`ioa_p2p.card.verified`), shared by all its agents.
VERIFIED: VerifiedRecords[CardRecord] = VerifiedRecords()


def _recheck(record: CardRecord, now_ms: int, peer: PeerId | None) -> CardRecord:
    """What :func:`parse_record` checks of a record verified before: the peer and the clock."""
    if peer is not None and record.peer_id != peer:
        # the same words as a first parse's (parse_card, _parse_new): a cache hit changes nothing seen
        if isinstance(record, SignedCard):
            raise InvalidCard(f"expected the card of {peer}, got the card of {record.peer_id}")
        raise InvalidCard(f"expected a record of {peer}, got the withdrawal of {record.peer_id}")
    if isinstance(record, SignedCard):
        check_fresh(record.card, now_ms)
    else:
        _check_live(record.withdrawal, now_ms)
    return record


def _parse_new(data: bytes, now_ms: int, peer: PeerId | None) -> CardRecord:
    envelope = Envelope.from_cbor(data, verify=False)
    if not isinstance(envelope.body, CardWithdrawal):
        return parse_card(data, now_ms=now_ms, peer=peer)
    body = envelope.body
    if envelope.author != body.peer:
        raise AuthorMismatch(f"withdrawal for {body.peer} is signed by {envelope.author}")
    envelope.verify()
    if envelope.seq != body.version or envelope.ts != body.issued_at:
        raise InvalidCard("withdrawal envelope seq/ts must equal its version/issued_at")
    if peer is not None and body.peer != peer:
        raise InvalidCard(f"expected a record of {peer}, got the withdrawal of {body.peer}")
    _check_live(body, now_ms)
    return SignedWithdrawal(envelope, data)


def _check_live(body: CardWithdrawal, now_ms: int) -> None:
    if now_ms >= body.expires_at:
        raise ExpiredCard(f"withdrawal of {body.peer} (version {body.version}) has expired")
    if body.issued_at > now_ms + MAX_CLOCK_SKEW_MS:
        raise InvalidCard(f"withdrawal of {body.peer} was issued in the future; check the clocks")


def try_parse_record(data: bytes, *, now_ms: int, peer: PeerId | None = None) -> CardRecord | None:
    """:func:`parse_record`, returning ``None`` for anything invalid."""
    try:
        return parse_record(data, now_ms=now_ms, peer=peer)
    except InvalidMessage:
        return None


def newest_record(records: Sequence[CardRecord | None]) -> int | None:
    """Index of the record to keep among candidates of one peer (``None`` = invalid): the highest
    version, card or withdrawal; ties keep the earliest."""
    best: int | None = None
    for index, record in enumerate(records):
        if record is None:
            continue
        chosen = None if best is None else records[best]
        if chosen is None or record.version > chosen.version:
            best = index
    return best


__all__ = [
    "MAX_REASON",
    "MAX_WITHDRAWAL_TTL_MS",
    "CardRecord",
    "CardWithdrawal",
    "SignedWithdrawal",
    "issue_withdrawal",
    "newest_record",
    "parse_record",
    "try_parse_record",
]
