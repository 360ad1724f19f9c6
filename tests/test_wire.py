"""The signed envelope: known-answer vectors, every rejection case, and decoder fuzzing."""

from __future__ import annotations

import contextlib
import dataclasses

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import VerifyKey

from ioa_p2p.errors import (
    AuthorMismatch,
    InvalidMessage,
    MalformedEncoding,
    MessageTooLarge,
    NonCanonicalEncoding,
    SchemaError,
    SignatureError,
    UnknownMessageType,
    UnsupportedVersion,
)
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import MAX_MESSAGE_SIZE, SIGNING_CONTEXT, Envelope
from ioa_p2p.wire.text import Text

from . import vectors as kat

KEY = Identity(bytes.fromhex(kat.SEED_HEX))
OTHER = Identity(bytes(32 * [7]))


def v1() -> Envelope:
    return Envelope.create(KEY, Text(text="hello, agents", data=None), seq=1, ts=1700000000000)


def test_known_answer_vector_1() -> None:
    env = v1()
    assert str(KEY.peer_id) == kat.PEER_ID
    assert KEY.peer_id.raw.hex() == kat.PEER_ID_BYTES_HEX
    assert env.signing_bytes().hex() == kat.V1_SIGNING_HEX
    assert env.sig.hex() == kat.V1_SIG_HEX
    assert env.to_cbor().hex() == kat.V1_ENVELOPE_HEX
    assert env.hash.hex() == kat.V1_HASH_HEX


def test_known_answer_vector_2_with_data() -> None:
    env = Envelope.create(
        KEY,
        Text(text="tasks", data={"n": 3, "ok": True, "xs": [1.5, "a", b"\x00"]}),
        seq=2,
        ts=1700000000001,
    )
    assert env.to_cbor().hex() == kat.V2_ENVELOPE_HEX
    assert env.hash.hex() == kat.V2_HASH_HEX
    assert Envelope.from_cbor(bytes.fromhex(kat.V2_ENVELOPE_HEX)) == env


def test_vector_verifies_with_an_independent_ed25519_library() -> None:
    # The public key comes out of the peer ID alone; libsodium (PyNaCl) checks our signature.
    public = PeerId.from_string(kat.PEER_ID).public_key
    signing = bytes.fromhex(kat.V1_SIGNING_HEX)
    assert signing.startswith(SIGNING_CONTEXT)
    VerifyKey(public).verify(signing, bytes.fromhex(kat.V1_SIG_HEX))
    # and the envelope without "sig" is the signed map, re-encoded canonically
    value = cbor2.loads(bytes.fromhex(kat.V1_ENVELOPE_HEX))
    del value["sig"]
    assert SIGNING_CONTEXT + cbor2.dumps(value, canonical=True) == signing


def test_roundtrip_and_verify() -> None:
    env = v1()
    assert Envelope.from_cbor(env.to_cbor()) == env


def _value(env: Envelope) -> dict:
    return cbor2.loads(env.to_cbor())


def _resign(value: dict, key: Identity = KEY) -> bytes:
    unsigned = {k: v for k, v in value.items() if k != "sig"}
    value = {**unsigned, "sig": key.sign(SIGNING_CONTEXT + canonical.encode(unsigned))}
    return cbor2.dumps(value, canonical=True)


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda v: v.update(v=2), UnsupportedVersion),
        (lambda v: v.update(tv=9), UnsupportedVersion),
        (lambda v: v.update(t="nope"), UnknownMessageType),
        (lambda v: v.pop("ts"), SchemaError),
        (lambda v: v.update(extra=1), SchemaError),
        (lambda v: v.update(seq="1"), SchemaError),
        (lambda v: v.update(seq=-1), SchemaError),
        (lambda v: v.update(seq=True), SchemaError),
        (lambda v: v["b"].pop("data"), SchemaError),
        (lambda v: v["b"].update(more=1), SchemaError),
        (lambda v: v["b"].update(text=5), SchemaError),
        (lambda v: v.update(a=b"\x00" * 38), AuthorMismatch),
        (lambda v: v.update(b=[1]), SchemaError),
    ],
)
def test_schema_rejections_even_when_correctly_signed(mutate, error) -> None:
    value = _value(v1())
    mutate(value)
    with pytest.raises(error):
        Envelope.from_cbor(_resign(value))


def test_bad_signature_is_rejected() -> None:
    value = _value(v1())
    value["sig"] = bytes(64)
    with pytest.raises(SignatureError):
        Envelope.from_cbor(cbor2.dumps(value, canonical=True))


def test_short_signature_is_rejected() -> None:
    value = _value(v1())
    value["sig"] = b"\x01" * 10
    with pytest.raises(SignatureError):
        Envelope.from_cbor(cbor2.dumps(value, canonical=True))


def test_author_key_mismatch_is_rejected() -> None:
    # Signed by OTHER but claiming KEY as author.
    value = _value(v1())
    with pytest.raises(SignatureError):
        Envelope.from_cbor(_resign(value, key=OTHER))


def test_every_single_byte_flip_is_rejected() -> None:
    data = bytearray(v1().to_cbor())
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x01
        with pytest.raises(InvalidMessage):
            Envelope.from_cbor(bytes(flipped))


def test_trailing_bytes_are_rejected() -> None:
    with pytest.raises(MalformedEncoding):
        Envelope.from_cbor(v1().to_cbor() + b"\x00")


def test_non_canonical_encodings_are_rejected() -> None:
    value = _value(v1())
    # keys in insertion (non-sorted) order
    reordered = dict(reversed(list(value.items())))
    with pytest.raises(NonCanonicalEncoding):
        Envelope.from_cbor(cbor2.dumps(reordered))
    # a non-minimal integer: seq=1 as a 2-byte uint (0x19 0x0001)
    data = v1().to_cbor()
    canon = bytes.fromhex("6373657101")
    assert canon in data
    with pytest.raises(NonCanonicalEncoding):
        Envelope.from_cbor(data.replace(canon, bytes.fromhex("637365711900") + b"\x01"))


def test_indefinite_length_and_tags_are_rejected() -> None:
    with pytest.raises(NonCanonicalEncoding):
        canonical.decode(bytes.fromhex("9f01ff"))  # indefinite-length array
    with pytest.raises(MalformedEncoding):
        canonical.decode(bytes.fromhex("c11a514b67b0"))  # tag 1 (epoch date)
    with pytest.raises(MalformedEncoding):
        canonical.decode(bytes.fromhex("a2616101616102")[:5])  # truncated


def test_oversize_is_rejected_before_decoding() -> None:
    with pytest.raises(MessageTooLarge):
        Envelope.from_cbor(b"\x00" * (MAX_MESSAGE_SIZE + 1))


def test_create_rejects_out_of_range_numbers() -> None:
    with pytest.raises(SchemaError):
        Envelope.create(KEY, Text(text="x"), seq=-5)


def test_envelope_is_frozen_and_slotted() -> None:
    env = v1()
    with pytest.raises(dataclasses.FrozenInstanceError):
        env.seq = 3  # type: ignore[misc]
    assert not hasattr(env, "__dict__")
    assert not hasattr(env.body, "__dict__")


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=600))
def test_fuzz_arbitrary_bytes_raise_only_our_error(data: bytes) -> None:
    with contextlib.suppress(InvalidMessage):
        Envelope.from_cbor(data)


_cbor_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.text(max_size=20)
    | st.binary(max_size=20)
    | st.floats(allow_nan=True),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers(0, 5), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_cbor_values)
def test_fuzz_arbitrary_cbor_raises_only_our_error(value) -> None:
    try:
        data = cbor2.dumps(value)
    except Exception:
        return
    with contextlib.suppress(InvalidMessage):
        Envelope.from_cbor(data)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzz_mutated_envelopes_raise_only_our_error(data) -> None:
    raw = bytearray(v1().to_cbor())
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    with contextlib.suppress(InvalidMessage):
        Envelope.from_cbor(bytes(raw[:cut]))


# --------------------------------------------------------------------------- the kept encoding


def _fresh(env: Envelope) -> bytes:
    """The full encoding made from the envelope's fields, nothing kept."""
    return canonical.encode({**env.unsigned_value(), "sig": env.sig})


def test_a_signed_envelope_keeps_the_encoding_its_fields_make() -> None:
    for env in (v1(), Envelope.create(KEY, Text(text="t", data={"xs": [1.5, b"\x00"]}), seq=9, ts=5)):
        assert env.to_cbor() == _fresh(env)
        assert env.to_cbor() is env.to_cbor()  # encoded once
        assert env.signing_bytes() == SIGNING_CONTEXT + canonical.encode(env.unsigned_value())


def test_a_verified_envelope_keeps_the_bytes_it_was_decoded_from() -> None:
    data = bytes.fromhex(kat.V2_ENVELOPE_HEX)
    env = Envelope.from_cbor(data)
    assert env.to_cbor() == data == _fresh(env)
    assert env.hash.hex() == kat.V2_HASH_HEX
    unverified = Envelope.from_cbor(data, verify=False)  # nothing kept before the signature is checked
    assert unverified._cbor is None
    assert unverified.to_cbor() == data


def test_received_bytes_that_are_not_what_the_fields_encode_to_are_not_kept(monkeypatch) -> None:
    import ioa_p2p.wire.envelope as envelope_module

    data = v1().to_cbor()
    monkeypatch.setattr(envelope_module, "_full_encoding", lambda encoded, sig: b"something else")
    env = Envelope.from_cbor(data)
    assert env._cbor is None
    assert env.to_cbor() == _fresh(env)
    assert env.hash.hex() == kat.V1_HASH_HEX


def test_a_changed_copy_does_not_keep_the_original_encoding() -> None:
    env = v1()
    env.to_cbor()
    other = dataclasses.replace(env, author=OTHER.peer_id)
    assert other.to_cbor() == _fresh(other) != env.to_cbor()
    assert other == dataclasses.replace(Envelope.from_cbor(env.to_cbor()), author=OTHER.peer_id)
