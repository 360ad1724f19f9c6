"""Agent card: signing, validation (forgery, tampering, expiry, size, vectors) and version selection."""

from __future__ import annotations

import contextlib
import dataclasses
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ioa_p2p.card import (
    DEFAULT_TTL_MS,
    MAX_CARD_SIZE,
    MAX_CLOCK_SKEW_MS,
    MAX_DIM,
    MAX_TTL_MS,
    AgentCard,
    SignedCard,
    card_text,
    issue_card,
    newer_than,
    next_version,
    parse_card,
    select_newest,
    try_parse_card,
)
from ioa_p2p.errors import (
    AuthorMismatch,
    ExpiredCard,
    InvalidCard,
    InvalidMessage,
    MessageTooLarge,
    SignatureError,
)
from ioa_p2p.identity import Identity
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import SIGNING_CONTEXT, Envelope
from ioa_p2p.wire.text import Text

NOW = 1_700_000_000_000
ALICE = Identity(bytes(range(32)))
MALLORY = Identity(bytes(range(1, 33)))


def make(identity: Identity = ALICE, **overrides: Any) -> SignedCard:
    fields: dict[str, Any] = {
        "name": "plotter",
        "description": "Draws charts and plots from tabular data",
        "skills": ("matplotlib", "charts"),
        "adapter": "echo",
        "task_types": ("plot",),
        "addrs": ("/ip4/127.0.0.1/tcp/4001",),
        "model": "hashing/v1/8",
        "vector": np.linspace(-1, 1, 8),
        "version": 7,
        "now_ms": NOW,
    }
    fields.update(overrides)
    return issue_card(identity, **fields)


def sign_raw(identity: Identity, body: dict[str, Any], *, seq: int, ts: int) -> bytes:
    """Sign an arbitrary card body value, bypassing the checks of Envelope.create."""
    unsigned = {
        "v": 1,
        "t": "agent_card",
        "tv": 1,
        "a": identity.peer_id.raw,
        "ts": ts,
        "seq": seq,
        "b": body,
    }
    sig = identity.sign(SIGNING_CONTEXT + canonical.encode(unsigned))
    return canonical.encode({**unsigned, "sig": sig})


def test_round_trip_keeps_every_field() -> None:
    card = make()
    parsed = parse_card(card.to_bytes(), now_ms=NOW + 1000, peer=ALICE.peer_id)
    assert parsed.card == card.card
    assert parsed.peer_id == ALICE.peer_id
    assert parsed.version == 7
    assert parsed.expires_at == NOW + DEFAULT_TTL_MS
    assert np.allclose(parsed.embedding(), np.linspace(-1, 1, 8))
    assert parsed.embedding().dtype == np.float32
    summary = parsed.summary()
    assert summary["name"] == "plotter" and summary["skills"] == ["matplotlib", "charts"]
    assert summary["peer_id"] == str(ALICE.peer_id)


def test_vector_is_float32_little_endian() -> None:
    card = make(vector=[1.0, -2.5], model="m")
    assert card.card.vector == struct.pack("<2f", 1.0, -2.5)
    assert card.card.dim == 2


def test_card_signed_by_another_key_is_rejected() -> None:
    card = make()
    forged_body = dataclasses.replace(card.card, name="evil")
    # Mallory signs a card that claims to be Alice's.
    forged = Envelope.create(MALLORY, forged_body, seq=7, ts=NOW).to_cbor()
    with pytest.raises(AuthorMismatch):
        parse_card(forged, now_ms=NOW)
    # Mallory names Alice as the envelope author but cannot produce her signature.
    value = canonical.decode(forged)
    value["a"] = ALICE.peer_id.raw
    with pytest.raises(SignatureError):
        parse_card(canonical.encode(value), now_ms=NOW)


def test_tampered_vector_fails_the_signature() -> None:
    value = canonical.decode(make().to_bytes())
    raw = bytearray(value["b"]["vector"])
    raw[0] ^= 0x01
    value["b"]["vector"] = bytes(raw)
    with pytest.raises(SignatureError):
        parse_card(canonical.encode(value), now_ms=NOW)


def test_higher_version_with_bad_signature_is_rejected() -> None:
    value = canonical.decode(make().to_bytes())
    value["b"]["version"] = value["seq"] = 99
    with pytest.raises(SignatureError):
        parse_card(canonical.encode(value), now_ms=NOW)


def test_expired_card_is_rejected_with_expired_card() -> None:
    card = make(ttl_ms=10_000)
    parse_card(card.to_bytes(), now_ms=NOW + 9_999)
    with pytest.raises(ExpiredCard):
        parse_card(card.to_bytes(), now_ms=NOW + 10_000)
    assert card.is_expired(NOW + 10_000) and not card.is_expired(NOW + 9_999)
    assert try_parse_card(card.to_bytes(), now_ms=NOW + 10_000) is None


def test_card_from_the_future_is_rejected() -> None:
    card = make()
    parse_card(card.to_bytes(), now_ms=NOW - MAX_CLOCK_SKEW_MS)
    with pytest.raises(InvalidCard, match="future"):
        parse_card(card.to_bytes(), now_ms=NOW - MAX_CLOCK_SKEW_MS - 1)


def test_lifetime_limits() -> None:
    with pytest.raises(InvalidCard, match="lifetime"):
        make(ttl_ms=MAX_TTL_MS + 1)
    with pytest.raises(InvalidCard, match="after issued_at"):
        make(ttl_ms=0)


@pytest.mark.parametrize(
    "bad",
    [
        [1.0, float("nan")],
        [float("inf"), 1.0],
        [float("-inf"), 1.0],
    ],
)
def test_non_finite_vectors_are_rejected(bad: list[float]) -> None:
    with pytest.raises(InvalidCard, match="NaN or infinite"):
        make(vector=bad)
    body = make().card.to_value()
    body.update(vector=struct.pack("<2f", *bad), dim=2)
    with pytest.raises(InvalidCard):
        parse_card(sign_raw(ALICE, body, seq=7, ts=NOW), now_ms=NOW)


def test_wrong_dimension_is_rejected() -> None:
    body = make().card.to_value()
    body["dim"] = 9  # 8 floats on the wire
    with pytest.raises(InvalidCard, match="float32 values"):
        parse_card(sign_raw(ALICE, body, seq=7, ts=NOW), now_ms=NOW)
    with pytest.raises(InvalidCard, match="dimension"):
        make(vector=[])
    with pytest.raises(InvalidCard, match="dimension"):
        make(vector=np.ones(MAX_DIM + 1))


def test_seq_and_ts_must_match_version_and_issued_at() -> None:
    body = make().card.to_value()
    with pytest.raises(InvalidCard, match="seq/ts"):
        parse_card(sign_raw(ALICE, body, seq=8, ts=NOW), now_ms=NOW)
    with pytest.raises(InvalidCard, match="seq/ts"):
        parse_card(sign_raw(ALICE, body, seq=7, ts=NOW - 1), now_ms=NOW)


def test_oversized_input_is_rejected_before_decoding() -> None:
    with pytest.raises(MessageTooLarge):
        parse_card(b"\x00" * (MAX_CARD_SIZE + 1), now_ms=NOW)


def test_field_limits_keep_cards_small() -> None:
    biggest = make(
        name="n" * 128,
        description="é" * 2048,
        skills=tuple("s" * 64 for _ in range(32)),
        task_types=tuple("t" * 64 for _ in range(32)),
        addrs=tuple("/" + "a" * 255 for _ in range(16)),
        model="m" * 128,
        vector=np.ones(MAX_DIM),
    )
    assert len(biggest.to_bytes()) <= MAX_CARD_SIZE
    with pytest.raises(InvalidCard, match="description"):
        make(description="x" * 4097)
    with pytest.raises(InvalidCard, match="skills"):
        make(skills=tuple(str(i) for i in range(33)))
    with pytest.raises(InvalidCard, match="name"):
        make(name="   ")
    with pytest.raises(InvalidCard, match="multiaddr"):
        make(addrs=("127.0.0.1:4001",))
    with pytest.raises(InvalidCard, match="text"):
        make(name=5)


def test_other_message_types_are_not_cards() -> None:
    text = Envelope.create(ALICE, Text(text="hi"), seq=1, ts=NOW).to_cbor()
    with pytest.raises(InvalidCard, match="agent card"):
        parse_card(text, now_ms=NOW)


def test_expected_peer_must_match() -> None:
    with pytest.raises(InvalidCard, match="expected the card"):
        parse_card(make().to_bytes(), now_ms=NOW, peer=MALLORY.peer_id)


def test_newer_version_replaces_older_never_the_reverse() -> None:
    old, new = make(version=1), make(version=2)
    same_version_other_text = make(version=2, description="changed")
    assert newer_than(new, old)
    assert newer_than(old, None)
    assert not newer_than(old, new)
    assert not newer_than(same_version_other_text, new)
    with pytest.raises(InvalidCard):
        newer_than(make(MALLORY), old)


def test_select_newest_prefers_higher_version_then_the_first() -> None:
    v1, v2, v2b = make(version=1), make(version=2), make(version=2, name="other")
    assert select_newest([v1, v2, None]) == 1
    assert select_newest([v2, v1]) == 0
    assert select_newest([v2b, v2]) == 0
    assert select_newest([None, None]) is None
    assert select_newest([]) is None


def test_next_version_is_monotonic_across_clock_jumps() -> None:
    assert next_version(None, NOW) == NOW
    assert next_version(NOW, NOW) == NOW + 1
    assert next_version(NOW + 50, NOW) == NOW + 51
    assert next_version(5, NOW) == NOW


def test_card_text_is_deterministic() -> None:
    text = card_text("plotter", "draws charts", ["matplotlib"], ["plot"])
    assert text == "draws charts Skills: matplotlib. Tasks: plot."
    assert card_text("a", "b") == "b"
    assert card_text("translator", "  ") == "translator"


def test_agent_card_is_a_frozen_body() -> None:
    card = make().card
    assert isinstance(card, AgentCard)
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.name = "x"  # type: ignore[misc]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_garbage_never_crashes(data: bytes) -> None:
    with contextlib.suppress(InvalidMessage):
        parse_card(data, now_ms=NOW)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=400), st.integers(min_value=0, max_value=255))
def test_any_single_byte_flip_is_rejected(position: int, xor: int) -> None:
    data = bytearray(make().to_bytes())
    position %= len(data)
    data[position] ^= xor or 1
    try:
        parsed = parse_card(bytes(data), now_ms=NOW)
    except InvalidMessage:
        return
    pytest.fail(f"a flipped byte at {position} still parsed: {parsed.summary()}")
