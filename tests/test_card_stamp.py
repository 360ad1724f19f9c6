"""Card stamps (proof of work bound to key and content), the v3 card, and the rate limits on what strangers
may make a node store: pure, no network."""

from __future__ import annotations

import hashlib

import pytest

from ioa_p2p.card import AgentCardV3, card_digest, issue_card, parse_card, stamp_bits
from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.card.stamp import PAUSE_TRIES, STAMP_CONTEXT, content_digest, mint, yield_gil
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.validators import CardValidator, card_key, check_announcement
from ioa_p2p.errors import InvalidCard, OverBudget, SignatureError, UnsupportedVersion
from ioa_p2p.identity import Identity
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope

NOW = 1_800_000_000_000


def card(identity: Identity, description: str = "plots charts", *, bits: int = 12, version: int = 1, **extra):  # type: ignore[no-untyped-def]
    return issue_card(
        identity,
        name="plotter",
        description=description,
        model="m",
        vector=[0.5, -1.0, 2.0],
        version=version,
        now_ms=NOW,
        stamp_bits=bits,
        **extra,
    )


def test_a_stamp_has_the_bits_asked_for_and_costs_one_hash_to_check() -> None:
    digest = hashlib.sha256(b"x").digest()
    nonce = mint(digest, 10)
    assert stamp_bits(digest, nonce) >= 10
    value = int.from_bytes(hashlib.sha256(STAMP_CONTEXT + digest + nonce).digest(), "big")
    assert stamp_bits(digest, nonce) == 256 - value.bit_length()
    assert stamp_bits(digest, b"") == 0 and stamp_bits(digest, bytes(33)) == 0
    with pytest.raises(InvalidCard):
        mint(digest, 30, tries=10)


@pytest.mark.parametrize("bits", [0, 1, 7, 8, 9, 12])
def test_mint_returns_the_first_counter_from_start_with_the_bits(bits: int) -> None:
    """The byte comparison of the minting loop finds exactly what counting leading zero bits finds."""
    digest = hashlib.sha256(b"y").digest()
    for start in (0, 1000):
        first = next(
            c for c in range(start, start + (1 << 16)) if stamp_bits(digest, c.to_bytes(8, "big")) >= bits
        )
        assert mint(digest, bits, start=start) == first.to_bytes(8, "big")
    assert stamp_bits(digest, mint(digest, bits, context=b"other"), b"other") >= bits


def test_the_stamp_is_bound_to_the_key_and_the_claims_not_to_the_version() -> None:
    me, other = Identity.generate(), Identity.generate()
    first = card(me)
    assert isinstance(first.card, AgentCardV3) and first.stamp_bits >= 12
    # a new version with the same claims and new addresses reuses the stamp: no new work
    again = card(me, version=2, stamp=first.card.stamp, addrs=["/ip4/1.2.3.4/tcp/1"])
    assert again.card.stamp == first.card.stamp and again.stamp_bits == first.stamp_bits
    # other claims or another key: the old nonce is worth (almost surely) nothing
    stuffed = first.card.description + " translation legal medical finance"
    assert (
        stamp_bits(
            content_digest(me.peer_id.raw, {**vars_of(first), "description": stuffed}), first.card.stamp
        )
        < 12
    )
    assert stamp_bits(content_digest(other.peer_id.raw, vars_of(first)), first.card.stamp) < 12
    assert card_digest(first.card) == content_digest(me.peer_id.raw, vars_of(first))


def vars_of(signed):  # type: ignore[no-untyped-def]
    c = signed.card
    return {
        name: getattr(c, name)
        for name in (
            "name",
            "description",
            "skills",
            "adapter",
            "task_types",
            "languages",
            "input_types",
            "output_types",
            "tools",
            "model",
            "dim",
            "vector",
        )
    }


def test_a_v3_card_round_trips_and_an_unstamped_card_stays_version_1() -> None:
    me = Identity.generate()
    stamped = card(me)
    parsed = parse_card(stamped.encoded, now_ms=NOW + 1)
    assert parsed.stamp_bits == stamped.stamp_bits and parsed.summary()["stamp_bits"] >= 12
    plain = card(me, bits=0)
    assert plain.card.VERSION == 1 and plain.stamp_bits == 0  # readable by nodes of the previous release


def test_a_tampered_stamp_is_a_bad_signature_and_a_v3_card_with_an_empty_stamp_is_refused() -> None:
    me = Identity.generate()
    stamped = card(me)
    raw = canonical.decode(stamped.encoded)
    raw["b"]["stamp"] = b"\x00" * 8
    with pytest.raises(SignatureError):
        parse_card(canonical.encode(raw), now_ms=NOW + 1)
    empty = canonical.decode(stamped.encoded)
    empty["b"]["stamp"] = b""
    with pytest.raises(InvalidCard):
        Envelope.from_cbor(canonical.encode(empty), verify=False)


def test_validators_refuse_weak_stamps_in_the_dht_and_in_gossip() -> None:
    me = Identity.generate()
    weak = card(me, bits=0)
    validator = CardValidator(lambda: NOW + 1, min_stamp_bits=12)
    with pytest.raises(InvalidCard, match="stamp"):
        validator.validate(card_key(me.peer_id), weak.encoded)
    validator.validate(card_key(me.peer_id), card(me).encoded)
    with pytest.raises(InvalidCard, match="stamp"):
        check_announcement(
            weak.encoded, publisher=me.peer_id, known_version=None, now_ms=NOW + 1, min_stamp_bits=12
        )


def test_rate_limits_hold_per_identity_and_in_total() -> None:
    admission = CardAdmission(new_cards=5, updates=3, me="me")
    strangers = [f"s{i}" for i in range(10)]
    admitted = [p for p in strangers if admission.admit_card(p, known=False, now=0.0)]
    assert len(admitted) == 5  # the total per minute, whatever the identities
    assert admission.admit_card("s0", known=False, now=60.0)  # refilled a minute later
    assert [admission.admit_card("s0", known=True, now=60.0) for _ in range(4)] == [True, True, True, False]
    assert all(admission.admit_card("me", known=False, now=0.0) for _ in range(50))  # our own: never limited
    assert sum(admission.admit_provider(b"p", 0.0) for _ in range(100)) == 64


def test_the_dht_validator_applies_the_limits_separately_to_new_identities_and_updates() -> None:
    admission = CardAdmission(new_cards=2, updates=2)
    validator = CardValidator(lambda: NOW + 1, admission=admission)
    held: set[str] = set()
    validator.stored = lambda key: key in held
    identities = [Identity.generate() for _ in range(3)]
    cards = [card(i, bits=0) for i in identities]
    validator.validate(card_key(identities[0].peer_id), cards[0].encoded)
    validator.validate(card_key(identities[1].peer_id), cards[1].encoded)
    with pytest.raises(OverBudget):
        validator.validate(card_key(identities[2].peer_id), cards[2].encoded)
    held.add(card_key(identities[0].peer_id))
    validator.validate(card_key(identities[0].peer_id), cards[0].encoded)  # an update of a known identity
    validator.validate(card_key(identities[0].peer_id), cards[0].encoded)
    with pytest.raises(OverBudget):
        validator.validate(card_key(identities[0].peer_id), cards[0].encoded)


def test_a_node_of_the_previous_release_rejects_a_v3_card_as_an_unknown_version() -> None:
    from ioa_p2p.wire.schema import _REGISTRY as REGISTRY

    stamped = card(Identity.generate())
    removed = REGISTRY.pop(("agent_card", 3))
    try:
        with pytest.raises(UnsupportedVersion):
            parse_card(stamped.encoded, now_ms=NOW + 1)
    finally:
        REGISTRY[("agent_card", 3)] = removed


def test_mint_pauses_every_pause_tries_and_finds_the_same_nonce() -> None:
    """``pause`` (the node's :func:`yield_gil`, in its worker thread) is called once per
    :data:`PAUSE_TRIES` tries and changes nothing in what is found."""
    digest = hashlib.sha256(b"pause").digest()
    plain = mint(digest, 12)
    calls: list[int] = []
    assert mint(digest, 12, pause=lambda: calls.append(1)) == plain
    tried = int.from_bytes(plain, "big") + 1
    assert len(calls) == (tried - 1) // PAUSE_TRIES  # no pause after the try that found it
    calls.clear()
    with pytest.raises(InvalidCard):  # a bounded mint pauses as often and still ends
        mint(digest, 40, tries=3 * PAUSE_TRIES + 5, pause=lambda: calls.append(1))
    assert len(calls) == 3
    yield_gil()  # a pause that only lets other threads take the GIL


class _Paused(Exception):
    pass


def _stop() -> None:
    raise _Paused


def test_issuing_a_card_or_a_sketch_passes_the_pause_to_mint() -> None:
    """At 40 bits the first :data:`PAUSE_TRIES` tries find no stamp (odds ~1e-9): the pause is reached."""
    identity = Identity.generate()
    with pytest.raises(_Paused):
        card(identity, bits=40, pause=_stop)
    with pytest.raises(_Paused):
        issue_sketch(
            identity,
            version=1,
            model="m",
            vector=[0.5, -1.0, 2.0],
            now_ms=NOW,
            expires_at=NOW + 60_000,
            scheme="m",
            stamp_bits=40,
            pause=_stop,
        )
