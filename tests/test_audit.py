"""Audit of exported histories: every tamper case is produced from a real export and caught."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ioa_p2p.errors import UnreadableHistory
from ioa_p2p.history.audit import audit_history, signing_bytes_of, verify_batch
from ioa_p2p.history.bodies import make_genesis, make_message
from ioa_p2p.history.compare import compare_histories
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.file import (
    MAGIC,
    encode_history,
    export_history,
    parse_history,
    read_history_file,
    write_history_file,
)
from ioa_p2p.identity import Identity
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope

A, B, C, X = (Identity(bytes([i]) * 32) for i in range(21, 25))


def build_chat(messages: int = 12, topic: str = "audit me") -> ChatHistory:
    g = make_genesis(A, [B.peer_id, C.peer_id], topic, now_ms=1_000, nonce=bytes(16))
    h = ChatHistory(g)
    people = [A, B, C]
    for i in range(messages):
        h.add(h.compose(people[i % 3], "text", {"text": f"message {i}"}, now_ms=2_000 + i))
        if i == 4:  # some concurrency: two messages on the same heads
            base = h.heads()
            for who in (B, C):
                env = make_message(
                    who,
                    h.chat_id,
                    base,
                    "conv.note",
                    {"n": i},
                    seq=h.next_seq(who.peer_id),
                    now_ms=2_100,
                )
                h.add(env)
    return h


@pytest.fixture(scope="module")
def chat() -> ChatHistory:
    return build_chat()


@pytest.fixture(scope="module")
def exported(chat: ChatHistory) -> bytes:
    return export_history(chat)


def records(data: bytes) -> list[bytes]:
    return [r.raw for r in parse_history(data).records]


def rebuild(raws: list[bytes]) -> bytes:
    return encode_history(raws[0], raws[1:])


def codes(data: bytes) -> list[str]:
    return [f.code for f in audit_history(data).findings]


def test_a_real_export_is_valid_with_a_summary(chat: ChatHistory, exported: bytes) -> None:
    report = audit_history(exported, source="x.hist")
    assert report.valid, [f.line() for f in report.findings]
    summary = report.to_json()
    assert summary["valid"] is True
    assert summary["chat_id"] == chat.chat_id.hex()
    assert summary["messages"] == len(chat) == 14
    assert summary["authors"] == {str(p): n for p, n in chat.version().items()}
    assert summary["first_ts"] == 1_000 and summary["last_ts"] == 2_100
    assert summary["heads"] == [h.hex() for h in chat.heads()]
    assert summary["topic"] == "audit me"
    json.dumps(summary)
    for workers in (0, 1, 3):
        again = audit_history(exported, workers=workers)
        assert again.valid and again.summary() == report.summary()


def test_file_roundtrip(tmp_path, exported: bytes) -> None:
    path = tmp_path / "chat.hist"
    write_history_file(path, exported)
    assert read_history_file(path) == exported
    with pytest.raises(UnreadableHistory):
        read_history_file(tmp_path / "nope.hist")
    with pytest.raises(UnreadableHistory):
        read_history_file(tmp_path)


def test_a_modified_byte_anywhere_is_caught(exported: bytes) -> None:
    positions = list(range(len(MAGIC) + 2)) + list(range(len(MAGIC), len(exported), 7))
    positions.append(len(exported) - 1)
    for pos in positions:
        tampered = bytearray(exported)
        tampered[pos] ^= 0x01
        report = audit_history(bytes(tampered))
        assert not report.valid, f"flipping byte {pos} went unnoticed"
    # more than two bytes of header changed: not a history file at all (exit code 2 in the CLI)
    with pytest.raises(UnreadableHistory):
        audit_history(b"XXXXXXXXXXXXXXXXXXXX" + exported[20:])


def test_a_modified_message_reports_its_record_and_author(exported: bytes) -> None:
    raws = records(exported)
    env = Envelope.from_cbor(raws[5])
    tampered_raw = raws[5].replace(b"message", b"messagE", 1)
    report = audit_history(rebuild(raws[:5] + [tampered_raw] + raws[6:]))
    bad = [f for f in report.findings if f.code == "bad-signature"]
    assert len(bad) == 1 and bad[0].index == 5 and bad[0].author == env.author
    assert any(f.code in ("missing-parent", "orphaned") for f in report.findings)


def test_a_removed_middle_message_is_caught(exported: bytes) -> None:
    raws = records(exported)
    report = audit_history(rebuild(raws[:4] + raws[5:]))
    missing = [f for f in report.findings if f.code == "missing-parent"]
    assert missing and missing[0].index == 4
    assert Envelope.from_cbor(raws[4]).hash.hex()[:16] in missing[0].message


def test_reordered_messages_are_caught(exported: bytes) -> None:
    raws = records(exported)
    swapped = raws[:3] + [raws[4], raws[3]] + raws[5:]
    report = audit_history(rebuild(swapped))
    reordered = [f for f in report.findings if f.code == "reordered"]
    assert len(reordered) == 1 and reordered[0].index == 3
    # the messages themselves are intact, so the DAG still resolves completely
    assert report.history is not None and len(report.history) == len(raws) - 1


def test_a_non_member_message_is_caught(chat: ChatHistory, exported: bytes) -> None:
    raws = records(exported)
    intruder = make_message(X, chat.chat_id, chat.heads(), "text", {"text": "hi"}, seq=1, now_ms=9)
    report = audit_history(rebuild(raws + [intruder.to_cbor()]))
    assert [f.code for f in report.findings] == ["non-member"]
    assert report.findings[0].author == X.peer_id


def test_an_unauthorized_membership_change_is_caught(chat: ChatHistory, exported: bytes) -> None:
    raws = records(exported)
    coup = chat.compose(B, "member.remove", {"member": A.peer_id.raw}, now_ms=9)
    assert codes(rebuild(raws + [coup.to_cbor()])) == ["unauthorized"]


def test_replays_are_caught(exported: bytes) -> None:
    raws = records(exported)
    report = audit_history(rebuild(raws + [raws[3]]))
    assert [f.code for f in report.findings] == ["replayed"]
    assert "record 3" in report.findings[0].message
    other = export_history(build_chat(3, topic="another chat"))
    foreign = records(other)[2]
    assert codes(rebuild(raws + [foreign])) == ["wrong-chat"]


def test_a_forged_author_is_caught(exported: bytes) -> None:
    raws = records(exported)
    env = Envelope.from_cbor(raws[2])
    victim = C if env.author != C.peer_id else B
    forged = replace(env, author=victim.peer_id)
    report = audit_history(rebuild(raws[:2] + [forged.to_cbor()] + raws[3:]))
    forged_findings = [f for f in report.findings if f.code == "forged-author"]
    assert len(forged_findings) == 1 and forged_findings[0].index == 2
    assert str(env.author) in forged_findings[0].message


def test_equivocation_is_shown_as_a_fork_with_both_signed_messages(
    chat: ChatHistory, exported: bytes
) -> None:
    raws = records(exported)
    original = Envelope.from_cbor(raws[-1])
    body = original.body
    twin = make_message(
        {A.peer_id: A, B.peer_id: B, C.peer_id: C}[original.author],
        chat.chat_id,
        body.parents,  # type: ignore[attr-defined]
        "text",
        {"text": "something else entirely"},
        seq=original.seq,
        now_ms=original.ts,
    )
    report = audit_history(rebuild(raws + [twin.to_cbor()]))
    assert [f.code for f in report.findings] == ["equivocation"]
    proof = report.findings[0].proof
    assert len(proof) == 2
    first, second = (Envelope.from_cbor(p) for p in proof)  # both verify
    assert first.author == second.author == original.author
    assert first.seq == second.seq and first.hash != second.hash
    assert {first.hash, second.hash} == {original.hash, twin.hash}
    assert report.to_json()["findings"][0]["proof"] == [p.hex() for p in proof]


def test_truncation_is_invisible_alone_but_caught_by_comparing_copies(exported: bytes) -> None:
    raws = records(exported)
    truncated = rebuild(raws[:-2])
    short = audit_history(truncated, source="a.hist")
    full = audit_history(exported, source="b.hist")
    assert short.valid  # a prefix of a valid history is valid: not provable from one copy
    comparison = compare_histories(short, full)
    assert not comparison.valid and not comparison.identical
    assert [f.code for f in comparison.findings] == ["truncated"]
    assert "copy A" in comparison.findings[0].message
    assert len(comparison.only_b) == 2 and not comparison.only_a
    reverse = compare_histories(full, short)
    assert "copy B" in reverse.findings[0].message
    same = compare_histories(full, audit_history(exported))
    assert same.valid and same.identical and not same.findings
    json.dumps(comparison.to_json())


def test_compare_diverged_copies_and_cross_copy_equivocation(chat: ChatHistory) -> None:
    base = export_history(chat)
    raws = records(base)
    parent = Envelope.from_cbor(raws[-1])
    seq = chat.next_seq(A.peer_id)
    one = make_message(A, chat.chat_id, [parent.hash], "text", {"text": "yes"}, seq=seq, now_ms=1)
    two = make_message(A, chat.chat_id, [parent.hash], "text", {"text": "no"}, seq=seq, now_ms=1)
    left = audit_history(rebuild(raws + [one.to_cbor()]))
    right = audit_history(rebuild(raws + [two.to_cbor()]))
    assert left.valid and right.valid  # each copy alone looks fine
    comparison = compare_histories(left, right)
    found = [f.code for f in comparison.findings]
    assert found == ["equivocation", "diverged"]
    assert {Envelope.from_cbor(p).hash for p in comparison.findings[0].proof} == {
        one.hash,
        two.hash,
    }
    other_chat = audit_history(export_history(build_chat(2, topic="another chat")))
    assert [f.code for f in compare_histories(left, other_chat).findings] == ["different-chat"]


def test_structural_damage(exported: bytes) -> None:
    assert "truncated-record" in codes(exported[:-3])
    assert "bad-frame" in codes(exported + b"\xff\xff\xff\xff\xff")
    header = bytearray(exported)
    header[3] ^= 0x20
    assert codes(bytes(header)) == ["modified-header"]
    with pytest.raises(UnreadableHistory):
        audit_history(b"")
    with pytest.raises(UnreadableHistory):
        audit_history(b"hello world, this is not a history")
    assert codes(MAGIC) == ["bad-genesis"]


def test_bad_genesis_stops_the_audit(exported: bytes) -> None:
    raws = records(exported)
    assert codes(rebuild([raws[1]] + raws[1:]))[0] in ("bad-genesis", "malformed")
    report = audit_history(encode_history(b"\xa0", raws[1:]))
    assert [f.code for f in report.findings][:2] == ["malformed", "bad-genesis"]
    assert report.history is None


def test_malformed_records_are_reported(exported: bytes) -> None:
    raws = records(exported)
    garbage = canonical.encode({"hello": "world"})
    report = audit_history(rebuild(raws + [garbage, b"\xff"]))
    malformed = [f for f in report.findings if f.code == "malformed"]
    assert [f.index for f in malformed] == [len(raws), len(raws) + 1]
    wrong_type = make_genesis(B, [A.peer_id], "x", now_ms=1, nonce=bytes(16)).to_cbor()
    assert codes(rebuild(raws + [wrong_type])) == ["wrong-type"]


def test_fast_signing_bytes_match_the_envelope(exported: bytes) -> None:
    for raw in records(exported):
        env = Envelope.from_cbor(raw)
        assert signing_bytes_of(raw, env) == env.signing_bytes()
    items = []
    for raw in records(exported):
        env = Envelope.from_cbor(raw)
        items.append((env.author.public_key, env.sig, signing_bytes_of(raw, env)))
    items = items * 30
    items[7] = (items[7][0], bytes(64), items[7][2])
    results = verify_batch(items, workers=2)
    assert results.count(False) == 1 and not results[7]
    assert verify_batch(items, workers=1) == results
