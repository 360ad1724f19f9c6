"""Decoder fuzzing: whatever a peer sends, decoders raise only InvalidMessage subclasses (never TypeError,
KeyError, AttributeError, UnicodeError, OverflowError, RecursionError...); the conversation state
machine and ``conv.*`` contents: tests/test_fuzz_conversation.py.

Covered: every registered wire body type (``wire.registered_types()``: directly, inside a correctly signed
envelope, and as a control frame), control frames, the content of every chat kind (membership kinds
included), cards (re-signed with hostile bodies), gossip announcements and the DHT record validator. Inputs
are arbitrary values and mutations of valid ones: type-swapped fields, lists where scalars are expected,
huge integers, deep nesting, keys that are not text. Sizes are kept so the whole file runs in a few seconds.
"""

from __future__ import annotations

import contextlib
import math
import types
import typing
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from ioa_p2p.card import issue_card, parse_card
from ioa_p2p.dht.validators import IoaNamespaceValidator, card_key, check_announcement
from ioa_p2p.errors import InvalidMessage, InvalidPeerId, MalformedEncoding
from ioa_p2p.history import bodies, frames
from ioa_p2p.history.audit import audit_history
from ioa_p2p.history.file import encode_history, parse_history
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire import canonical, control
from ioa_p2p.wire import schema as wire
from ioa_p2p.wire.envelope import SIGNING_CONTEXT, Envelope
from ioa_p2p.wire.schema import Body

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
KEY = Identity(bytes(range(32)))
PEERS = [Identity(bytes([i]) * 32).peer_id for i in range(1, 4)]
NOW = 1_700_000_000_000
BODY_TYPES = sorted(wire.registered_types().items())
CONTROL_TYPES = [frames.ChatAck, frames.SyncRequest, frames.SyncBatch]
WORDS = ["ok", "stored", "missing", "text", "member.add", "member.leave", "conv.x", "not-member", "/a"]

# --------------------------------------------------------------------------- strategies

_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([-1, 0, 2**31, 2**53 + 1, 2**63, 2**64 - 1, 2**64])
    | st.text(max_size=10)
    | st.binary(max_size=40)
    | st.floats()
)
#: Any value, keys of any type (what a caller of ``from_value`` may hand in).
junk = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(0, 3) | st.binary(max_size=2), inner, max_size=4)
    ),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"x": value}
    return value


deep = st.sampled_from([_nested(30), _nested(40), _nested(200)])
hostile_scalar = junk | deep


def for_hint(hint: Any) -> st.SearchStrategy[Any]:
    """Values mostly of the right type (so semantic checks run), sometimes of any type."""
    return _typed_for(hint) | hostile_scalar


def _typed_for(hint: Any) -> st.SearchStrategy[Any]:
    if hint is Any:
        return junk
    if hint is PeerId:
        return st.sampled_from([p.raw for p in PEERS]) | st.binary(min_size=36, max_size=40)
    if hint is int:
        return st.integers(-5, 300) | st.sampled_from([4096, 4097, 100_000, 100_001, 2**63, 2**64 - 1, 2**64])
    if hint is str:
        return st.text(max_size=20) | st.sampled_from(WORDS) | st.just("x" * 4100)
    if hint is bytes:
        sized = st.sampled_from([4, 16, 32, 38, 64]).flatmap(lambda n: st.binary(min_size=n, max_size=n))
        return st.binary(max_size=70) | sized
    if hint in (bool, float):
        return st.booleans() if hint is bool else st.floats()
    if isinstance(hint, type) and issubclass(hint, Body):
        return body_values(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        many = st.lists(_typed_for(args[0]), min_size=30, max_size=40)
        return st.lists(for_hint(args[0]), max_size=5) | many
    if origin is dict:
        keys = st.text(max_size=8) | st.sampled_from(["text", "member"])
        return st.dictionaries(keys, for_hint(args[1]), max_size=3)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([st.none() if a is type(None) else _typed_for(a) for a in args])
    raise AssertionError(f"no strategy for {hint!r}")  # pragma: no cover - a new annotation kind


def body_values(cls: type[Body]) -> st.SearchStrategy[Any]:
    hints = wire._hints(cls)
    fields = st.fixed_dictionaries({name: for_hint(hint) for name, hint in hints.items()})
    return fields | fields.map(lambda v: {**v, "extra": 1}) | fields.map(lambda v: dict(list(v.items())[1:]))


def only_our_errors(decode: Any, *args: Any, **kwargs: Any) -> Any:
    with contextlib.suppress(InvalidMessage):
        return decode(*args, **kwargs)
    return None


def signed_envelope(type_name: str, version: int, body: Any, *, seq: int = 1) -> bytes | None:
    """Canonical CBOR of a correctly signed envelope around ``body`` (None when CBOR cannot carry it)."""
    unsigned = {"v": 1, "t": type_name, "tv": version, "a": KEY.peer_id.raw, "ts": NOW, "seq": seq, "b": body}
    try:
        signature = KEY.sign(SIGNING_CONTEXT + canonical.encode(unsigned))
        return canonical.encode({**unsigned, "sig": signature})
    except MalformedEncoding:
        return None


def encoded(value: Any) -> bytes | None:
    try:
        return canonical.encode(value)
    except MalformedEncoding:
        return None


# --------------------------------------------------------------------------- wire bodies, control frames


@pytest.mark.parametrize(("key", "cls"), BODY_TYPES, ids=[f"{t}-v{v}" for (t, v), _ in BODY_TYPES])
@FUZZ
@given(data=st.data())
def test_every_body_type_raises_only_our_errors(key: tuple[str, int], cls: type[Body], data: Any) -> None:
    value = data.draw(body_values(cls) | junk)
    only_our_errors(cls.from_value, value)
    envelope = signed_envelope(*key, value)
    if envelope is not None:
        only_our_errors(Envelope.from_cbor, envelope)
    frame = encoded({"t": key[0], "tv": key[1], "b": value})
    if frame is not None:
        only_our_errors(control.decode_control, frame, cls)


@pytest.mark.parametrize("expected", CONTROL_TYPES, ids=lambda c: c.TYPE)
@FUZZ
@given(data=st.data(), raw=st.binary(max_size=200))
def test_control_frames_raise_only_our_errors(expected: type[Body], data: Any, raw: bytes) -> None:
    names = st.sampled_from([c.TYPE for c in CONTROL_TYPES]) | hostile_scalar
    header = {"t": data.draw(names), "tv": data.draw(st.just(1) | hostile_scalar)}
    frame = data.draw(st.just({**header, "b": data.draw(body_values(expected))}) | junk)
    encoded_frame = encoded(frame)
    if encoded_frame is not None:
        only_our_errors(control.decode_control, encoded_frame, expected)
    only_our_errors(control.decode_control, raw, expected)


@FUZZ
@given(value=junk | deep)
def test_non_canonical_and_foreign_cbor_raises_only_our_errors(value: Any) -> None:
    """cbor2's own encoding (non-canonical, non-text keys, bignums, NaN, deep nesting) fed to decoders."""
    with contextlib.suppress(Exception):
        data = cbor2.dumps(value)
        only_our_errors(canonical.decode, data)
        only_our_errors(Envelope.from_cbor, data)
        only_our_errors(control.decode_control, data, frames.ChatAck)


# --------------------------------------------------------------------------- chat content


CHAT_KINDS = ["text", "member.add", "member.leave", "member.remove", "conv.start", "conv.Bad", "other"]


@FUZZ
@given(kind=st.sampled_from(CHAT_KINDS) | st.text(max_size=70), content=for_hint(dict[str, Any]))
def test_chat_message_content_of_every_kind_raises_only_our_errors(kind: str, content: Any) -> None:
    only_our_errors(bodies.check_content, kind, content)
    body = {"chat_id": bytes(32), "parents": [bytes(32)], "kind": kind, "content": content}
    envelope = signed_envelope("chat.msg", 1, body)
    if envelope is not None:
        only_our_errors(Envelope.from_cbor, envelope)


def _documented_content_rule(kind: str, content: dict[str, Any]) -> bool:
    """docs/protocol.md's table of the chat's own kinds, written out by hand (the reference the schemas in
    ``bodies.CHAT_CONTENT_TYPES`` must match exactly)."""
    if kind == "text":
        return set(content) == {"text"} and isinstance(content["text"], str)
    if kind in ("member.add", "member.remove"):
        return set(content) == {"member"} and _is_peer_id(content["member"])
    return content == {}  # member.leave


def _is_peer_id(value: Any) -> bool:
    if not isinstance(value, bytes):
        return False
    try:
        PeerId.from_bytes(value)
    except InvalidPeerId:
        return False
    return True


@FUZZ
@given(kind=st.sampled_from(["text", "member.add", "member.leave", "member.remove"]), data=st.data())
def test_the_chat_content_schemas_accept_exactly_the_documented_contents(kind: str, data: Any) -> None:
    schema = bodies.CHAT_CONTENT_TYPES[(kind, bodies.CONTENT_VERSION)]
    content = data.draw(body_values(schema) | for_hint(dict[str, Any]))
    if not isinstance(content, dict):
        with pytest.raises(InvalidMessage):
            bodies.check_content(kind, content)
        return
    if _documented_content_rule(kind, content):
        typed = bodies.chat_content(kind, content)
        assert isinstance(typed, schema) and typed.to_value() == content  # the same map, the same bytes
    else:
        with pytest.raises(InvalidMessage, match=f"a '{kind}' message has content"):
            bodies.check_content(kind, content)


# --------------------------------------------------------------------------- cards and DHT records

DHT_KEYS = [card_key(KEY.peer_id), "/ioa/card/", "/ioa/card/x", "/ioa/other/1", "/ioa/card/" + "1" * 99]
CARD = issue_card(KEY, name="n", description="d", model="m", vector=[0.5, 1.0], version=NOW, now_ms=NOW)


@FUZZ
@given(body=body_values(wire.body_class("agent_card", 1)), raw=st.binary(max_size=300))
def test_cards_with_hostile_bodies_raise_only_our_errors(body: Any, raw: bytes) -> None:
    data = signed_envelope("agent_card", 1, body, seq=NOW)
    if data is not None:
        only_our_errors(parse_card, data, now_ms=NOW)
        only_our_errors(check_announcement, data, publisher=KEY.peer_id, known_version=NOW, now_ms=NOW)
    only_our_errors(parse_card, raw, now_ms=NOW)


@FUZZ
@given(
    key=st.sampled_from(DHT_KEYS) | st.text(max_size=40) | st.binary(max_size=10),
    values=st.lists(st.just(CARD.encoded) | st.binary(max_size=100) | hostile_scalar, max_size=4),
)
def test_the_dht_record_validator_raises_only_our_errors(key: Any, values: list[Any]) -> None:
    validator = IoaNamespaceValidator(lambda: NOW + 1)
    for value in values:
        only_our_errors(validator.validate, key, value)
    chosen = only_our_errors(validator.select, key, values)
    assert chosen is None or 0 <= chosen < max(1, len(values))


def test_an_intact_card_still_passes_the_validator() -> None:
    """The fuzz above can pass by rejecting everything; the real card must still be accepted."""
    validator = IoaNamespaceValidator(lambda: NOW + 1)
    validator.validate(card_key(KEY.peer_id), CARD.encoded)
    assert parse_card(CARD.encoded, now_ms=NOW + 1) == CARD


# --------------------------------------------------------------------------- maps with keys of mixed types

#: Keys of every type a CBOR map can carry, so that one map mixes them (text with integers, bytes,
#: booleans, null, floats, arrays): such keys cannot be compared with each other, and a ``sorted()`` over
#: them raised TypeError in the envelope decoder (reached through cards, the DHT validators and the audit).
ENVELOPE_FIELDS = ["v", "t", "tv", "a", "ts", "seq", "b", "sig"]
mixed_keys = (
    st.sampled_from(ENVELOPE_FIELDS)
    | st.text(max_size=4)
    | st.integers(-3, 2**64 - 1)
    | st.binary(max_size=3)
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.tuples(st.integers(0, 2), st.text(max_size=2))
)
GENESIS = bodies.make_genesis(KEY, PEERS[:1], "topic", now_ms=NOW, nonce=bytes(16))


@st.composite
def with_mixed_keys(draw: Any, value: dict[Any, Any]) -> dict[Any, Any]:
    """``value`` with some keys dropped and keys of other types added."""
    out = {k: v for k, v in value.items() if draw(st.integers(0, 5))}
    for key in draw(st.lists(mixed_keys, min_size=1, max_size=4)):
        out[key] = draw(junk)
    return out


def _foreign(value: Any) -> bytes | None:
    """cbor2's canonical encoding (which, unlike ours, allows keys that are not text)."""
    try:
        return bytes(cbor2.dumps(value, canonical=True))
    except Exception:
        return None


def every_decoder(data: bytes) -> None:
    """Feed ``data`` to every decoder of network and file input; each may raise only our errors."""
    only_our_errors(canonical.decode, data)
    only_our_errors(Envelope.from_cbor, data)
    only_our_errors(parse_card, data, now_ms=NOW)
    only_our_errors(check_announcement, data, publisher=KEY.peer_id, known_version=NOW, now_ms=NOW)
    validator = IoaNamespaceValidator(lambda: NOW + 1)
    only_our_errors(validator.validate, card_key(KEY.peer_id), data)
    only_our_errors(validator.select, card_key(KEY.peer_id), [data, CARD.encoded])
    for expected in CONTROL_TYPES:
        only_our_errors(control.decode_control, data, expected)
    for history in (encode_history(GENESIS.to_cbor(), [data]), encode_history(data, [GENESIS.to_cbor()])):
        only_our_errors(audit_history, history)
        only_our_errors(parse_history, history)


@FUZZ
@example(extra={1: 0, "zz": 0})  # the finding: an int and a text key among the unexpected fields
@given(extra=st.dictionaries(mixed_keys, junk, min_size=1, max_size=3))
def test_an_envelope_with_keys_of_mixed_types_raises_only_our_errors(extra: dict[Any, Any]) -> None:
    unsigned = {"v": 1, "t": "text", "tv": 1, "a": KEY.peer_id.raw, "ts": NOW, "seq": 1, "b": {"text": "x"}}
    value = {**unsigned, "sig": bytes(64), **extra}
    data = _foreign(value)
    assume(data is not None)
    assert data is not None
    with pytest.raises(InvalidMessage):
        Envelope.from_cbor(data)
    every_decoder(data)


@FUZZ
@given(data=st.data(), which=st.sampled_from(["envelope", "body", "card body", "control", "genesis body"]))
def test_maps_with_keys_of_mixed_types_anywhere_raise_only_our_errors(data: Any, which: str) -> None:
    """Mixed keys in the envelope, in a body (signed correctly, so the body decoder runs), in a card
    body, in a control frame and in a history's genesis; fed to every decoder."""
    card = canonical.decode(CARD.encoded)
    genesis = canonical.decode(GENESIS.to_cbor())
    if which == "envelope":
        encoded_value = _foreign(data.draw(with_mixed_keys(card)))
    elif which == "body":
        (type_name, version), cls = data.draw(st.sampled_from(BODY_TYPES))
        body = data.draw(with_mixed_keys(data.draw(body_values(cls).filter(lambda v: isinstance(v, dict)))))
        encoded_value = _signed_foreign(type_name, version, body, NOW)
    elif which == "card body":
        encoded_value = _signed_foreign("agent_card", 1, data.draw(with_mixed_keys(card["b"])), NOW)
    elif which == "genesis body":
        encoded_value = _signed_foreign("chat.genesis", 1, data.draw(with_mixed_keys(genesis["b"])), NOW)
    else:
        frame = {"t": "chat.ack", "tv": 1, "b": {"hash": bytes(32), "status": "stored"}}
        encoded_value = _foreign(data.draw(with_mixed_keys(frame)))
    assume(encoded_value is not None)
    assert encoded_value is not None
    every_decoder(encoded_value)


def _signed_foreign(type_name: str, version: int, body: Any, seq: int) -> bytes | None:
    """A correctly signed envelope around ``body`` in cbor2's canonical form (keys of any type)."""
    unsigned = {"v": 1, "t": type_name, "tv": version, "a": KEY.peer_id.raw, "ts": NOW, "seq": seq, "b": body}
    signing = _foreign(unsigned)
    if signing is None:
        return None
    return _foreign({**unsigned, "sig": KEY.sign(SIGNING_CONTEXT + signing)})


def test_a_control_frame_breaking_the_item_rules_is_refused_by_its_schema() -> None:
    """Control frames are decoded like envelopes (no whole-value item walk): an opaque, non-text or
    non-finite item anywhere still ends in an InvalidMessage, never in a body."""
    from ioa_p2p.errors import InvalidMessage
    from ioa_p2p.history.frames import ChatAck
    from ioa_p2p.wire.control import decode_control

    good = {"hash": bytes(32), "status": "stored", "missing": [], "reason": ""}
    bad_bodies = [
        {**good, "reason": math.nan},
        {**good, "missing": [bytes(32), 7]},
        {**good, "reason": cbor2.CBORSimpleValue(40)},
        {**good, 1: "x"},
    ]
    frames = [{"t": "chat.ack", "tv": 1, "b": body} for body in bad_bodies]
    frames += [{"t": "chat.ack", "tv": 1, "b": good, 2: 0}, {"t": "chat.ack", "tv": 1.5, "b": good}]
    for value in frames:
        data = cbor2.dumps(value, canonical=True)
        with pytest.raises(InvalidMessage):
            decode_control(data, ChatAck)
    ack = decode_control(cbor2.dumps({"t": "chat.ack", "tv": 1, "b": good}, canonical=True), ChatAck)
    assert ack.status == "stored" and ack.hash == bytes(32)
