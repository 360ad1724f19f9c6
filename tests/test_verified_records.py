"""``parse_record`` verifies a record's bytes once per process (ioa_p2p/card/verified.py; issue 26, l-idle8):
every agent of a process checked each card announcement two or three times, an Ed25519 verification each.
What depends on the caller (the peer, the clock) is still checked every time; bytes that failed are never
kept, so a forgery is refused every time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ioa_p2p.card import issue_card, issue_withdrawal, parse_record, try_parse_record
from ioa_p2p.card import withdrawal as records
from ioa_p2p.card.verified import VerifiedRecords
from ioa_p2p.errors import ExpiredCard, InvalidCard, SignatureError
from ioa_p2p.identity import Identity
from ioa_p2p.wire.envelope import Envelope

NOW = 1_800_000_000_000


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Each signature verification, by the signed bytes; the process's cache emptied around the test."""
    seen: list[bytes] = []
    real = Envelope._verify

    def counted(self: Envelope, encoded: bytes) -> None:
        seen.append(encoded)
        real(self, encoded)

    monkeypatch.setattr(Envelope, "_verify", counted)
    records.VERIFIED.clear()
    yield seen
    records.VERIFIED.clear()


def _card(identity: Identity, version: int = 1, ttl_ms: int = 60_000):  # type: ignore[no-untyped-def]
    return issue_card(
        identity, name="plotter", description="plots charts", model="m", vector=[1.0, 0.0],
        version=version, now_ms=NOW, ttl_ms=ttl_ms,
    )  # fmt: skip


def test_a_record_seen_again_is_not_verified_again(verifications: list[bytes]) -> None:
    me = Identity.generate()
    card = _card(me)
    first = parse_record(card.encoded, now_ms=NOW + 1, peer=me.peer_id)
    for _ in range(5):  # the validator, the delivery, the catch-up ... of every agent of the process
        assert parse_record(bytes(card.encoded), now_ms=NOW + 2, peer=me.peer_id) is first
    assert len(verifications) == 1  # before: 6
    gone = issue_withdrawal(me, version=2, now_ms=NOW)
    parse_record(gone.encoded, now_ms=NOW + 1)
    parse_record(gone.encoded, now_ms=NOW + 2, peer=me.peer_id)
    assert len(verifications) == 2


def test_the_caller_s_peer_and_clock_are_checked_every_time(verifications: list[bytes]) -> None:
    me = Identity.generate()
    card = _card(me, ttl_ms=60_000)
    parse_record(card.encoded, now_ms=NOW + 1)
    with pytest.raises(InvalidCard):
        parse_record(card.encoded, now_ms=NOW + 1, peer=Identity.generate().peer_id)
    with pytest.raises(ExpiredCard):
        parse_record(card.encoded, now_ms=NOW + 60_000)
    with pytest.raises(InvalidCard):  # issued more than the allowed skew ahead of this caller's clock
        parse_record(card.encoded, now_ms=NOW - 10 * 60_000)
    gone = issue_withdrawal(me, version=2, now_ms=NOW)
    parse_record(gone.encoded, now_ms=NOW + 1)
    with pytest.raises(InvalidCard):
        parse_record(gone.encoded, now_ms=NOW + 1, peer=Identity.generate().peer_id)
    with pytest.raises(ExpiredCard):
        parse_record(gone.encoded, now_ms=gone.expires_at)
    assert len(verifications) == 2


def test_a_forgery_is_verified_and_refused_every_time(verifications: list[bytes]) -> None:
    me = Identity.generate()
    card = _card(me)
    parse_record(card.encoded, now_ms=NOW + 1)
    envelope = Envelope.from_cbor(card.encoded)
    forged = Envelope.create(me, envelope.body, seq=1, ts=NOW).to_cbor()
    tampered = forged[:-5] + bytes([forged[-5] ^ 1]) + forged[-4:]  # one bit of the signature
    before = len(verifications)
    for _ in range(3):
        with pytest.raises(SignatureError):
            parse_record(tampered, now_ms=NOW + 1)
        assert try_parse_record(tampered, now_ms=NOW + 1) is None
    assert len(verifications) == before + 6


def test_the_cache_is_bounded_least_recently_used_out_first() -> None:
    cache: VerifiedRecords[str] = VerifiedRecords(limit=2)
    cache.put(b"a", "A")
    cache.put(b"b", "B")
    assert cache.get(b"a") == "A"  # now the most recent
    cache.put(b"c", "C")
    assert cache.get(b"b") is None and cache.get(b"a") == "A" and cache.get(b"c") == "C"
    assert len(cache) == 2 and (cache.hits, cache.misses) == (3, 1)
