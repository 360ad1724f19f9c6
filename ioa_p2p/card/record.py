"""The signed agent card: what a node can do, as one self-certifying record (pure: no I/O, no clock).

A card is an :class:`~ioa_p2p.wire.Envelope` whose body is an :class:`AgentCard` (message type
``"agent_card"``, version 1; version 2 adds the structured capability fields, version 3 the stamp of
:mod:`~ioa_p2p.card.stamp`). The envelope's author is the signer; a card is valid only when

- the signature verifies and the signer is the card's own ``peer`` (nobody can publish a card for
  someone else),
- the envelope ``seq`` equals the card ``version`` and the envelope ``ts`` equals ``issued_at``,
- it has not expired (``now_ms < expires_at``), was not issued in the future (more than
  :data:`MAX_CLOCK_SKEW_MS` ahead of the caller's clock) and lives at most :data:`MAX_TTL_MS`,
- the encoding is at most :data:`MAX_CARD_SIZE` bytes and every field is within its limit,
- the embedding is ``dim`` little-endian float32 values, all finite, ``1 <= dim <= MAX_DIM``.

Selection: a card replaces another card of the same peer only when its ``version`` is strictly
greater (:func:`newer_than`); equal or older versions never replace. Versions come from
:func:`~ioa_p2p.card.issuing.next_version` (``max(now_ms, previous + 1)``), so they keep increasing
across restarts. Issuing a card is :mod:`ioa_p2p.card.issuing`'s.

The exact wire layout is in ``docs/protocol.md §9``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast  # noqa: F401  (wire.message_type resolves Body's ClassVar hints here)

from ioa_p2p.card.fields import MAX_DIM, check_tags, check_text, check_vector
from ioa_p2p.card.stamp import MAX_NONCE, STAMPED_FIELDS, content_digest
from ioa_p2p.card.stamp import stamp_bits as bits_of
from ioa_p2p.errors import AuthorMismatch, ExpiredCard, InvalidCard, InvalidMessage, MessageTooLarge
from ioa_p2p.identity import PeerId
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type

#: Largest encoded card (the whole signed envelope) accepted anywhere: DHT, gossip, control API.
MAX_CARD_SIZE = 32 * 1024
#: Default card lifetime (the owner republishes a new version well before it runs out).
DEFAULT_TTL_MS = 30 * 60 * 1000
#: Longest lifetime a card may claim: a stopped agent disappears within this time at the latest.
MAX_TTL_MS = 24 * 60 * 60 * 1000
#: How far ahead of the verifier's clock ``issued_at`` may be.
MAX_CLOCK_SKEW_MS = 5 * 60 * 1000

# Field limits (UTF-8 bytes for strings). Together they keep any card under MAX_CARD_SIZE.
MAX_NAME = 128
MAX_DESCRIPTION = 4096
MAX_TAG = 64
MAX_TAGS = 32
MAX_ADDR = 256
MAX_ADDRS = 16
MAX_MODEL_ID = 128

if TYPE_CHECKING:  # numpy is imported where a vector is made: validating a card needs none
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]


@message_type("agent_card", 1)
class AgentCard(Body):
    """The body of a card. Build cards with :func:`issue_card`; parse them with :func:`parse_card`."""

    peer: PeerId
    name: str
    description: str
    skills: tuple[str, ...]
    adapter: str
    task_types: tuple[str, ...]
    model: str
    dim: int
    vector: bytes
    addrs: tuple[str, ...]
    version: int
    issued_at: int
    expires_at: int

    def validate(self) -> None:
        check_text("name", self.name, MAX_NAME, required=True)
        check_text("description", self.description, MAX_DESCRIPTION)
        check_text("adapter", self.adapter, MAX_TAG)
        check_text("model", self.model, MAX_MODEL_ID, required=True)
        check_tags("skills", self.skills, MAX_TAGS, MAX_TAG)
        check_tags("task_types", self.task_types, MAX_TAGS, MAX_TAG)
        check_tags("addrs", self.addrs, MAX_ADDRS, MAX_ADDR)
        for addr in self.addrs:
            if not addr.startswith("/"):
                raise InvalidCard(f"card address {addr!r} is not a multiaddr (must start with '/')")
        check_vector(self.dim, self.vector)
        for name in ("version", "issued_at", "expires_at"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidCard(f"card {name} must be an integer, got {type(value).__name__}")
            if not 0 <= value < 2**63:
                raise InvalidCard(f"card {name} must be a non-negative 63-bit integer, got {value}")
        lifetime = self.expires_at - self.issued_at
        if lifetime <= 0:
            raise InvalidCard("card expires_at must be after issued_at")
        if lifetime > MAX_TTL_MS:
            raise InvalidCard(
                f"card lifetime {lifetime} ms is over the limit of {MAX_TTL_MS} ms; "
                "issue cards with a shorter TTL and republish them"
            )

    def embedding(self) -> Vector:
        """The vector as a read-only float32 array of shape ``(dim,)``."""
        import numpy as np

        return np.frombuffer(self.vector, dtype="<f4").astype(np.float32)


#: The optional structured capability fields of a version 2 card (each a list of text, like ``skills``).
STRUCTURED_FIELDS = ("languages", "input_types", "output_types", "tools")


@message_type("agent_card", 2)
class AgentCardV2(AgentCard):
    """Version 2 of the card body: version 1's fields plus structured capability fields (additive).

    ``languages``: natural languages the agent reads or writes (ISO 639-1 codes or names);
    ``input_types`` / ``output_types``: media types it accepts / returns (``application/pdf``,
    ``image/png``); ``tools``: tools or runtimes it drives (``python``, ``postgres``). A node issues a
    version 2 card only when one of them is set, so nodes that know only version 1 keep reading the rest.
    """

    languages: tuple[str, ...]
    input_types: tuple[str, ...]
    output_types: tuple[str, ...]
    tools: tuple[str, ...]

    def validate(self) -> None:
        AgentCard.validate(self)  # (slotted dataclasses are rebuilt: no zero-argument super())
        for name in STRUCTURED_FIELDS:
            check_tags(name, getattr(self, name), MAX_TAGS, MAX_TAG)


@message_type("agent_card", 3)
class AgentCardV3(AgentCardV2):
    """Version 3 of the card body: version 2's fields plus ``stamp``, the nonce of the proof of work over the
    card's key and capability content (:mod:`ioa_p2p.card.stamp`). Nodes that know only versions 1 and 2
    reject it (``docs/protocol.md`` section 9.1.1 says how a network migrates)."""

    stamp: bytes

    def validate(self) -> None:
        AgentCardV2.validate(self)
        if not isinstance(self.stamp, bytes) or not 1 <= len(self.stamp) <= MAX_NONCE:
            raise InvalidCard(f"card stamp must be 1..{MAX_NONCE} bytes")


def card_digest(card: AgentCard) -> bytes:
    """The digest a card's stamp is computed over (:func:`ioa_p2p.card.stamp.content_digest`)."""
    fields = {name: getattr(card, name, ()) for name in STAMPED_FIELDS}
    return content_digest(card.peer.raw, fields)


def card_stamp_bits(card: AgentCard) -> int:
    """The proof-of-work bits of a card (0 for a card without a stamp: versions 1 and 2)."""
    stamp = getattr(card, "stamp", b"")
    return bits_of(card_digest(card), stamp) if stamp else 0


def structured_fields(card: AgentCard) -> dict[str, tuple[str, ...]]:
    """The structured capability fields of a card (empty for a version 1 card)."""
    return {name: tuple(getattr(card, name, ())) for name in STRUCTURED_FIELDS}


@dataclass(frozen=True, slots=True)
class SignedCard:
    """A verified card with its exact encoding (what travels on the DHT and in gossip)."""

    envelope: Envelope
    encoded: bytes

    @property
    def card(self) -> AgentCard:
        body = self.envelope.body
        assert isinstance(body, AgentCard)
        return body

    @property
    def peer_id(self) -> PeerId:
        return self.card.peer

    @property
    def version(self) -> int:
        return self.card.version

    @property
    def expires_at(self) -> int:
        return self.card.expires_at

    @property
    def model(self) -> str:
        return self.card.model

    @property
    def stamp_bits(self) -> int:
        """The proof-of-work bits of the card's stamp (0 without one)."""
        return card_stamp_bits(self.card)

    def embedding(self) -> Vector:
        return self.card.embedding()

    def is_expired(self, now_ms: int) -> bool:
        return now_ms >= self.card.expires_at

    def to_bytes(self) -> bytes:
        return self.encoded

    def signature_status(self, now_ms: int) -> str:
        """``valid`` when the signature verifies and is the card's own peer's, ``invalid`` when not,
        ``expired`` once the card ran out (checked again here: the dashboard shows it per card)."""
        if self.envelope.author != self.peer_id:
            return "invalid"
        try:
            self.envelope.verify()
        except InvalidMessage:
            return "invalid"
        return "expired" if self.is_expired(now_ms) else "valid"

    def summary(self) -> dict[str, Any]:
        """JSON-able view (no vector) for the control API and the CLI."""
        card = self.card
        return {
            "peer_id": str(card.peer),
            "name": card.name,
            "description": card.description,
            "skills": list(card.skills),
            "adapter": card.adapter,
            "task_types": list(card.task_types),
            "model": card.model,
            "addrs": list(card.addrs),
            "version": card.version,
            "issued_at": card.issued_at,
            "expires_at": card.expires_at,
            "stamp_bits": self.stamp_bits,
            **{name: list(values) for name, values in structured_fields(card).items()},
        }


def parse_card(data: bytes, *, now_ms: int, peer: PeerId | None = None) -> SignedCard:
    """Decode, verify and check a card against the caller's clock ``now_ms``.

    ``peer``, when given, is the peer the card must belong to (e.g. from the DHT key).
    Raises :class:`MessageTooLarge`, :class:`ExpiredCard`, :class:`AuthorMismatch`, or another
    :class:`InvalidMessage` subclass (all of them :class:`~ioa_p2p.errors.InputError`).
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidCard(f"a card is bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_CARD_SIZE:
        raise MessageTooLarge(f"a card of {len(data)} bytes is over the limit of {MAX_CARD_SIZE}")
    envelope = Envelope.from_cbor(data, verify=False)
    body = envelope.body
    if not isinstance(body, AgentCard):
        raise InvalidCard(f"expected an agent card, got a {body.TYPE!r} message")
    if envelope.author != body.peer:
        raise AuthorMismatch(
            f"card for {body.peer} is signed by {envelope.author}: a card must be signed by its own peer"
        )
    envelope.verify()
    if envelope.seq != body.version or envelope.ts != body.issued_at:
        raise InvalidCard("card envelope seq/ts must equal the card's version/issued_at")
    if peer is not None and body.peer != peer:
        raise InvalidCard(f"expected the card of {peer}, got the card of {body.peer}")
    check_fresh(body, now_ms)
    return SignedCard(envelope, data)


def check_fresh(card: AgentCard, now_ms: int) -> None:
    """Raise :class:`ExpiredCard` / :class:`InvalidCard` unless the card is live at ``now_ms``."""
    if now_ms >= card.expires_at:
        raise ExpiredCard(
            f"card of {card.peer} (version {card.version}) expired "
            f"{(now_ms - card.expires_at) / 1000:.1f} s ago"
        )
    if card.issued_at > now_ms + MAX_CLOCK_SKEW_MS:
        raise InvalidCard(
            f"card of {card.peer} was issued {(card.issued_at - now_ms) / 1000:.0f} s in the future; "
            "check the clocks"
        )


def try_parse_card(data: bytes, *, now_ms: int, peer: PeerId | None = None) -> SignedCard | None:
    """:func:`parse_card`, returning ``None`` for any invalid card."""
    try:
        return parse_card(data, now_ms=now_ms, peer=peer)
    except InvalidMessage:
        return None


def newer_than(candidate: SignedCard, current: SignedCard | None) -> bool:
    """True when ``candidate`` should replace ``current`` (same peer, strictly greater version)."""
    if current is None:
        return True
    if candidate.peer_id != current.peer_id:
        raise InvalidCard("cannot compare the cards of two different peers")
    return candidate.version > current.version


def select_newest(cards: Sequence[SignedCard | None]) -> int | None:
    """Index of the card to keep among candidates (``None`` = invalid); ties keep the earliest."""
    best: int | None = None
    for index, card in enumerate(cards):
        if card is None:
            continue
        if best is None:
            best = index
            continue
        chosen = cards[best]
        assert chosen is not None
        if card.version > chosen.version:
            best = index
    return best


__all__ = [
    "AgentCardV2",
    "AgentCardV3",
    "DEFAULT_TTL_MS",
    "MAX_CARD_SIZE",
    "MAX_CLOCK_SKEW_MS",
    "MAX_DIM",
    "MAX_TTL_MS",
    "AgentCard",
    "SignedCard",
    "card_digest",
    "card_stamp_bits",
    "check_fresh",
    "newer_than",
    "parse_card",
    "select_newest",
    "structured_fields",
    "try_parse_card",
]
