"""Chat wire bodies: genesis, chat ID, messages, kinds, membership rules, control frames."""

from __future__ import annotations

import pytest

from ioa_p2p.errors import (
    HistoryViolation,
    InvalidMessage,
    MessageTooLarge,
    SchemaError,
    SignatureError,
)
from ioa_p2p.history.bodies import (
    CHAT_CONTENT_TYPES,
    MAX_CHAT_MESSAGE_SIZE,
    MAX_PARENTS,
    ChatGenesis,
    ChatMessage,
    MemberAddContent,
    MemberLeaveContent,
    MemberRemoveContent,
    TextContent,
    chat_content,
    chat_id_of,
    check_genesis,
    decode_genesis,
    make_genesis,
    make_message,
    member_of,
)
from ioa_p2p.history.frames import ChatAck, ChatInvite, SyncBatch, SyncRequest
from ioa_p2p.history.membership import apply_membership, check_membership_change
from ioa_p2p.identity import Identity
from ioa_p2p.wire import canonical
from ioa_p2p.wire.control import decode_control, encode_control
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build

A, B, C, D = (Identity(bytes([i]) * 32) for i in range(1, 5))
H = bytes(32)


def genesis(creator: Identity = A, members=(B, C), topic: str = "plan a trip") -> Envelope:
    return make_genesis(
        creator, [m.peer_id for m in members], topic, now_ms=1_700_000_000_000, nonce=bytes(16)
    )


def test_genesis_includes_creator_sorted_and_chat_id_is_its_hash() -> None:
    g = genesis()
    body = check_genesis(g)
    assert A.peer_id in body.members
    assert list(body.members) == sorted(body.members, key=lambda p: p.raw)
    assert chat_id_of(g) == g.hash
    again, body2 = decode_genesis(g.to_cbor())
    assert again == g and body2 == body and again.hash == g.hash


def test_genesis_id_changes_with_nonce() -> None:
    one = make_genesis(A, [B.peer_id], "t", now_ms=1, nonce=bytes(16))
    two = make_genesis(A, [B.peer_id], "t", now_ms=1, nonce=b"\x01" * 16)
    assert chat_id_of(one) != chat_id_of(two)


def test_genesis_rules() -> None:
    members = tuple(sorted([B.peer_id, C.peer_id], key=lambda p: p.raw))
    body = build(ChatGenesis, members=members, topic="x", parent=None, nonce=bytes(16))
    outsider = Envelope.create(A, body, seq=0, ts=1)
    with pytest.raises(SchemaError, match="creator"):
        check_genesis(outsider)
    body_a = build(
        ChatGenesis,
        members=tuple(sorted([A.peer_id, B.peer_id], key=lambda p: p.raw)),
        topic="x",
        parent=None,
        nonce=bytes(16),
    )
    with pytest.raises(SchemaError, match="seq 0"):
        check_genesis(Envelope.create(A, body_a, seq=3, ts=1))
    with pytest.raises(SchemaError, match="sorted"):
        build(ChatGenesis, members=members[::-1], topic="x", parent=None, nonce=bytes(16)).validate()
    with pytest.raises(SchemaError, match="nonce"):
        build(ChatGenesis, members=members, topic="x", parent=None, nonce=b"x").validate()
    with pytest.raises(SchemaError, match="parent"):
        build(ChatGenesis, members=members, topic="x", parent=b"short", nonce=bytes(16)).validate()
    with pytest.raises(SchemaError, match="members"):
        build(ChatGenesis, members=(), topic="x", parent=None, nonce=bytes(16)).validate()


def test_decode_genesis_rejects_a_tampered_one() -> None:
    raw = bytearray(genesis().to_cbor())
    raw[-1] ^= 1
    with pytest.raises(SignatureError):
        decode_genesis(bytes(raw))
    msg = make_message(A, H, [H], "text", {"text": "hi"}, seq=1, now_ms=1)
    with pytest.raises(SchemaError, match="chat.genesis"):
        decode_genesis(msg.to_cbor())


def test_message_roundtrip_and_parent_sorting() -> None:
    p1, p2 = b"\x02" * 32, b"\x01" * 32
    env = make_message(A, H, [p1, p2, p1], "text", {"text": "hello"}, seq=1, now_ms=5)
    body = env.body
    assert isinstance(body, ChatMessage)
    assert body.parents == (p2, p1)
    assert Envelope.from_cbor(env.to_cbor()) == env


@pytest.mark.parametrize(
    ("kind", "content", "match"),
    [
        ("text", {"text": 3}, "text"),
        ("text", {"text": "a", "extra": 1}, "text"),
        ("member.add", {"member": b"nope"}, "peer ID"),
        ("member.add", {}, "member"),
        ("member.leave", {"x": 1}, "empty"),
        ("text", {}, "missing fields \\['text'\\]"),
        ("member.remove", {"member": "a peer"}, "content.member must be bytes"),
        ("member.remove", {"member": B.peer_id.raw, "why": "x"}, "unexpected fields \\['why'\\]"),
        ("member.add", {"member": B.peer_id.raw[:-1]}, "peer ID"),
        ("member.leave", {"member": B.peer_id.raw}, "empty"),
        ("shout", {}, "unknown chat message kind"),
        ("conv.", {}, "application kind"),
        ("conv.Bad Kind", {}, "application kind"),
    ],
)
def test_bad_kinds_and_content_are_rejected(kind: str, content: dict, match: str) -> None:
    with pytest.raises(SchemaError, match=match):
        make_message(A, H, [H], kind, content, seq=1, now_ms=1)


def test_the_chat_kinds_decode_into_their_typed_contents() -> None:
    assert sorted(CHAT_CONTENT_TYPES) == [
        ("member.add", 1),
        ("member.leave", 1),
        ("member.remove", 1),
        ("text", 1),
    ]
    assert chat_content("text", {"text": "hi"}) == TextContent(text="hi")
    assert chat_content("member.add", {"member": B.peer_id.raw}) == MemberAddContent(member=B.peer_id)
    assert chat_content("member.remove", {"member": B.peer_id.raw}) == MemberRemoveContent(member=B.peer_id)
    assert chat_content("member.leave", {}) == MemberLeaveContent()
    assert chat_content("conv.turn", {"any": 1}) is None  # conv.* contents are opaque to the chat layer
    assert member_of({"member": C.peer_id.raw}) == C.peer_id
    with pytest.raises(SchemaError, match="member"):
        member_of({})
    with pytest.raises(SchemaError, match="map content"):
        chat_content("text", ["hi"])  # type: ignore[arg-type]
    # the typed content is the same map on the wire
    content = {"member": B.peer_id.raw}
    env = make_message(A, H, [H], "member.add", content, seq=1, now_ms=1)
    assert canonical.encode(MemberAddContent.from_value(content).to_value()) == canonical.encode(content)
    assert Envelope.from_cbor(env.to_cbor()).body.content == content  # type: ignore[attr-defined]


def test_application_kinds_carry_opaque_content() -> None:
    content = {"anything": [1, 2, {"nested": b"\x00"}], "n": None}
    env = make_message(A, H, [H], "conv.task.assign", content, seq=1, now_ms=1)
    assert Envelope.from_cbor(env.to_cbor()).body.content == content  # type: ignore[attr-defined]


def test_parent_limits() -> None:
    with pytest.raises(SchemaError, match="parents"):
        make_message(A, H, [], "text", {"text": "x"}, seq=1, now_ms=1)
    many = [bytes([i]) * 32 for i in range(MAX_PARENTS + 1)]
    with pytest.raises(SchemaError, match="parents"):
        make_message(A, H, many, "text", {"text": "x"}, seq=1, now_ms=1)
    with pytest.raises(SchemaError, match="hash"):
        make_message(A, H, [b"short"], "text", {"text": "x"}, seq=1, now_ms=1)
    unsorted = {**make_message(A, H, [H], "text", {"text": "x"}, seq=1, now_ms=1).body.to_value()}
    unsorted["parents"] = [b"\x02" * 32, b"\x01" * 32]
    with pytest.raises(SchemaError, match="sorted"):
        ChatMessage.from_value(unsorted)


def test_oversize_message_is_refused() -> None:
    with pytest.raises(MessageTooLarge):
        make_message(A, H, [H], "text", {"text": "x" * MAX_CHAT_MESSAGE_SIZE}, seq=1, now_ms=1)


def test_membership_rules() -> None:
    members = frozenset({A.peer_id, B.peer_id})
    check_membership_change(members, A.peer_id, B.peer_id, "member.add", {"member": C.peer_id.raw})
    with pytest.raises(HistoryViolation, match="already"):
        check_membership_change(members, A.peer_id, B.peer_id, "member.add", {"member": A.peer_id.raw})
    check_membership_change(members, A.peer_id, A.peer_id, "member.remove", {"member": B.peer_id.raw})
    with pytest.raises(HistoryViolation, match="only the chat creator") as info:
        check_membership_change(members, A.peer_id, B.peer_id, "member.remove", {"member": A.peer_id.raw})
    assert info.value.code == "unauthorized"
    with pytest.raises(HistoryViolation, match="itself"):
        check_membership_change(members, A.peer_id, A.peer_id, "member.remove", {"member": A.peer_id.raw})
    with pytest.raises(HistoryViolation, match="not a member"):
        check_membership_change(members, A.peer_id, A.peer_id, "member.remove", {"member": C.peer_id.raw})
    check_membership_change(members, A.peer_id, B.peer_id, "member.leave", {})
    assert apply_membership(members, B.peer_id, "member.leave", {}) == {A.peer_id}
    added = apply_membership(members, B.peer_id, "member.add", {"member": C.peer_id.raw})
    assert added == {A.peer_id, B.peer_id, C.peer_id}
    assert apply_membership(added, A.peer_id, "member.remove", {"member": B.peer_id.raw}) == {
        A.peer_id,
        C.peer_id,
    }
    assert apply_membership(members, A.peer_id, "text", {"text": "x"}) == members


def test_control_frames_roundtrip_and_reject_garbage() -> None:
    ack = build(ChatAck, hash=H, status="missing", missing=(H,), reason="")
    assert decode_control(encode_control(ack), ChatAck) == ack
    req = build(SyncRequest, chat_id=H, authors=(A.peer_id, B.peer_id), seqs=(3, 0), limit=100)
    assert decode_control(encode_control(req), SyncRequest) == req
    batch = build(SyncBatch, chat_id=H, status="ok", count=2, more=False)
    with pytest.raises(SchemaError, match="expected"):
        decode_control(encode_control(batch), ChatAck)
    for garbage in (b"", b"\xff\x00", canonical.encode([1, 2]), canonical.encode({"t": 1})):
        with pytest.raises(InvalidMessage):
            decode_control(garbage, ChatAck)
    with pytest.raises(SchemaError, match="status"):
        encode_control(build(ChatAck, hash=H, status="great", missing=(), reason=""))
    with pytest.raises(SchemaError):
        encode_control(build(SyncRequest, chat_id=H, authors=(A.peer_id,), seqs=(), limit=1))


def test_invite_carries_exact_genesis_bytes() -> None:
    g = genesis()
    invite = Envelope.create(B, build(ChatInvite, genesis=g.to_cbor(), added_by=None), seq=0, ts=1)
    decoded = Envelope.from_cbor(invite.to_cbor())
    env, _ = decode_genesis(decoded.body.genesis)  # type: ignore[attr-defined]
    assert env.hash == g.hash
