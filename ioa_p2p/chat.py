"""Group chat wire bodies and membership rules (pure: no I/O, no clock, no randomness).

A chat starts with a **genesis**: an envelope of type ``chat.genesis`` signed by the creator,
naming the members, the topic, the parent chat (for nested chats) and a random nonce; its
envelope ``ts`` is the creation time and its ``seq`` is 0. The **chat ID** is the hash of the
signed genesis (SHA-256 of its canonical CBOR).

Every later message is an envelope of type ``chat.msg`` whose body names the chat ID, the hashes
of the heads its author had seen (``parents``; the genesis hash for the first message), a ``kind``
and a ``content`` map. The envelope ``seq`` is the author's sequence number in this chat: 1, 2, 3...

Kinds:

- ``text``           content ``{"text": str}``
- ``member.add``     content ``{"member": <peer id bytes>}``; any member may add a non-member
- ``member.leave``   content ``{}``; a member leaves (only itself)
- ``member.remove``  content ``{"member": <peer id bytes>}``; only the creator, another member
- ``conv.*``         application kinds (the IoA conversation layer); content opaque here

Membership at a message is computed from the membership messages in its causal past only (see
:mod:`ioa_p2p.history`), so every holder of the same messages reaches the same verdicts.

Control bodies used inside the chat protocols (never part of a history): ``chat.invite``,
``chat.invite_reply`` (signed envelopes), ``chat.ack``, ``chat.sync_req`` and
``chat.sync_batch`` (unsigned control frames, see :func:`encode_control`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, ClassVar, TypeVar  # noqa: F401  (Body's ClassVar hints)

from . import canonical
from .errors import HistoryViolation, InvalidPeerId, MessageTooLarge, SchemaError, SignatureError
from .identity import Identity, PeerId
from .wire import Body, Envelope, body_class, message_type

HASH_LEN = 32
NONCE_LEN = 16
MAX_MEMBERS = 256
MAX_PARENTS = 32
MAX_TOPIC_CHARS = 4096
MAX_KIND_CHARS = 64
#: Largest encoded chat message envelope (so a sync batch frame always fits one message).
MAX_CHAT_MESSAGE_SIZE = 512 * 1024

KIND_TEXT = "text"
KIND_MEMBER_ADD = "member.add"
KIND_MEMBER_LEAVE = "member.leave"
KIND_MEMBER_REMOVE = "member.remove"
MEMBERSHIP_KINDS = frozenset({KIND_MEMBER_ADD, KIND_MEMBER_LEAVE, KIND_MEMBER_REMOVE})
APP_KIND_PREFIX = "conv."
_APP_KIND = re.compile(r"conv\.[a-z0-9][a-z0-9_.-]{0,58}")

ACK_STORED = "stored"
ACK_DUPLICATE = "duplicate"
ACK_MISSING = "missing"
ACK_REJECTED = "rejected"
ACK_UNKNOWN_CHAT = "unknown-chat"
ACK_DECLINED = "declined"
ACK_STATUSES = frozenset(
    {ACK_STORED, ACK_DUPLICATE, ACK_MISSING, ACK_REJECTED, ACK_UNKNOWN_CHAT, ACK_DECLINED}
)


def _check_hash(value: bytes, where: str) -> None:
    if len(value) != HASH_LEN:
        raise SchemaError(f"{where} must be a {HASH_LEN}-byte SHA-256 hash, got {len(value)} bytes")


def _strictly_sorted(values: Iterable[Any]) -> bool:
    items = list(values)
    return all(a < b for a, b in zip(items, items[1:], strict=False))


# --------------------------------------------------------------------------- genesis


@message_type("chat.genesis", 1)
class ChatGenesis(Body):
    """The signed chat header. Members are sorted ascending by peer ID bytes, without duplicates."""

    members: tuple[PeerId, ...]
    topic: str
    parent: bytes | None
    nonce: bytes

    def validate(self) -> None:
        if not 1 <= len(self.members) <= MAX_MEMBERS:
            raise SchemaError(f"a chat has 1 to {MAX_MEMBERS} members, got {len(self.members)}")
        if not _strictly_sorted(m.raw for m in self.members):
            raise SchemaError("chat.genesis members must be sorted by peer ID bytes, no duplicates")
        if len(self.topic) > MAX_TOPIC_CHARS:
            raise SchemaError(f"chat topic is over {MAX_TOPIC_CHARS} characters")
        if self.parent is not None:
            _check_hash(self.parent, "chat.genesis parent")
        if len(self.nonce) != NONCE_LEN:
            raise SchemaError(f"chat.genesis nonce must have {NONCE_LEN} bytes")


def make_genesis(
    identity: Identity,
    members: Iterable[PeerId],
    topic: str,
    *,
    now_ms: int,
    nonce: bytes,
    parent: bytes | None = None,
) -> Envelope:
    """Sign a genesis; the creator is always a member. ``nonce``: 16 random bytes."""
    everyone = sorted({*members, identity.peer_id}, key=lambda p: p.raw)
    body = build(ChatGenesis, members=tuple(everyone), topic=topic, parent=parent, nonce=nonce)
    return Envelope.create(identity, body, seq=0, ts=now_ms)


def check_genesis(env: Envelope) -> ChatGenesis:
    """The genesis body of a verified envelope; raises InvalidMessage unless it is valid."""
    if not isinstance(env.body, ChatGenesis):
        raise SchemaError(f"expected a chat.genesis envelope, got {env.type!r}")
    if env.seq != 0:
        raise SchemaError(f"a chat genesis has seq 0, got {env.seq}")
    if env.author not in env.body.members:
        raise SchemaError("the creator of a chat must be one of its members")
    return env.body


def decode_genesis(data: bytes) -> tuple[Envelope, ChatGenesis]:
    """Decode, verify and check genesis bytes (e.g. from an invitation). Raises InvalidMessage."""
    env = Envelope.from_cbor(data)
    return env, check_genesis(env)


def chat_id_of(genesis: Envelope) -> bytes:
    """The chat ID: SHA-256 of the signed genesis envelope's canonical CBOR."""
    return genesis.hash


# --------------------------------------------------------------------------- messages


@message_type("chat.msg", 1)
class ChatMessage(Body):
    """One chat message. ``parents`` are sorted ascending, unique, 1 to 32 hashes."""

    chat_id: bytes
    parents: tuple[bytes, ...]
    kind: str
    content: dict[str, Any]

    def validate(self) -> None:
        _check_hash(self.chat_id, "chat.msg chat_id")
        if not 1 <= len(self.parents) <= MAX_PARENTS:
            raise SchemaError(f"a chat message has 1 to {MAX_PARENTS} parents, got {len(self.parents)}")
        for parent in self.parents:
            _check_hash(parent, "chat.msg parent")
        if not _strictly_sorted(self.parents):
            raise SchemaError("chat.msg parents must be sorted ascending, without duplicates")
        check_content(self.kind, self.content)


def check_content(kind: str, content: dict[str, Any]) -> None:
    """Schema of ``content`` for each kind; unknown kinds (other than ``conv.*``) are rejected."""
    if not isinstance(kind, str) or not isinstance(content, dict):
        raise SchemaError("a chat message has a text kind and a map content")
    if kind == KIND_TEXT:
        if set(content) != {"text"} or not isinstance(content["text"], str):
            raise SchemaError('a "text" message has content {"text": <string>} and nothing else')
    elif kind in (KIND_MEMBER_ADD, KIND_MEMBER_REMOVE):
        if set(content) != {"member"} or not isinstance(content["member"], bytes):
            raise SchemaError(f'a {kind!r} message has content {{"member": <peer id bytes>}}')
        member_of(content)
    elif kind == KIND_MEMBER_LEAVE:
        if content:
            raise SchemaError('a "member.leave" message has empty content')
    elif kind.startswith(APP_KIND_PREFIX):
        if not _APP_KIND.fullmatch(kind):
            raise SchemaError(
                f"application kind {kind!r} must match conv.[a-z0-9][a-z0-9_.-]* (64 chars max)"
            )
    else:
        raise SchemaError(
            f"unknown chat message kind {kind[:MAX_KIND_CHARS]!r} "
            "(known: text, member.add, member.leave, member.remove, conv.*)"
        )


def member_of(content: dict[str, Any]) -> PeerId:
    """The peer named by a member.add / member.remove content."""
    try:
        return PeerId.from_bytes(content["member"])
    except InvalidPeerId as exc:
        raise SchemaError(f"content.member is not an Ed25519 peer ID: {exc}") from None


def make_message(
    identity: Identity,
    chat_id: bytes,
    parents: Iterable[bytes],
    kind: str,
    content: dict[str, Any],
    *,
    seq: int,
    now_ms: int,
) -> Envelope:
    """Sign a chat message (parents are sorted here). Raises InvalidMessage on bad input."""
    ordered = tuple(sorted(set(parents)))
    body = build(ChatMessage, chat_id=chat_id, parents=ordered, kind=kind, content=content)
    env = Envelope.create(identity, body, seq=seq, ts=now_ms)
    size = len(env.to_cbor())
    if size > MAX_CHAT_MESSAGE_SIZE:
        raise MessageTooLarge(
            f"chat message of {size} bytes is over the limit of {MAX_CHAT_MESSAGE_SIZE} bytes; "
            "send large data out of band and put a reference in the chat"
        )
    return env


# --------------------------------------------------------------------------- membership rules


def check_membership_change(
    members: frozenset[PeerId], creator: PeerId, author: PeerId, kind: str, content: dict[str, Any]
) -> None:
    """Raise HistoryViolation (code ``unauthorized``) unless ``author`` may make this change.

    ``members`` is the membership in the message's causal past; the author is one of them.
    Rules: any member may add a non-member (up to MAX_MEMBERS); a member may leave (only
    itself); only the creator may remove, and only another current member.
    """
    if kind == KIND_MEMBER_ADD:
        target = member_of(content)
        if target in members:
            raise HistoryViolation(f"member.add of {target}, who is already a member", code="unauthorized")
        if len(members) >= MAX_MEMBERS:
            raise HistoryViolation(f"member.add over the limit of {MAX_MEMBERS} members", code="unauthorized")
    elif kind == KIND_MEMBER_REMOVE:
        target = member_of(content)
        if author != creator:
            raise HistoryViolation(
                f"member.remove by {author}, but only the chat creator {creator} may remove",
                code="unauthorized",
            )
        if target == author:
            raise HistoryViolation("the creator cannot remove itself; use member.leave", code="unauthorized")
        if target not in members:
            raise HistoryViolation(f"member.remove of {target}, who is not a member", code="unauthorized")


def apply_membership(
    members: frozenset[PeerId], author: PeerId, kind: str, content: dict[str, Any]
) -> frozenset[PeerId]:
    """Membership after a (valid) membership message."""
    if kind == KIND_MEMBER_ADD:
        return members | {member_of(content)}
    if kind == KIND_MEMBER_REMOVE:
        return members - {member_of(content)}
    if kind == KIND_MEMBER_LEAVE:
        return members - {author}
    return members


# --------------------------------------------------------------------------- invitations


@message_type("chat.invite", 1)
class ChatInvite(Body):
    """An invitation signed by a member: the chat's genesis bytes; ``added_by`` is the hash of
    the ``member.add`` that made the invitee a member (None for members named in the genesis)."""

    genesis: bytes
    added_by: bytes | None

    def validate(self) -> None:
        if self.added_by is not None:
            _check_hash(self.added_by, "chat.invite added_by")


@message_type("chat.invite_reply", 1)
class ChatInviteReply(Body):
    """The invitee's signed answer."""

    chat_id: bytes
    accept: bool
    reason: str

    def validate(self) -> None:
        _check_hash(self.chat_id, "chat.invite_reply chat_id")
        if len(self.reason) > 1024:
            raise SchemaError("chat.invite_reply reason is over 1024 characters")


# --------------------------------------------------------------------------- control frames


@message_type("chat.ack", 1)
class ChatAck(Body):
    """Answer to one delivered message: ``status`` in ACK_STATUSES; ``missing`` parent hashes for
    ``missing``; a human ``reason`` for ``rejected``."""

    hash: bytes
    status: str
    missing: tuple[bytes, ...]
    reason: str

    def validate(self) -> None:
        if self.status not in ACK_STATUSES:
            raise SchemaError(f"unknown chat.ack status {self.status!r}")
        if len(self.missing) > 4 * MAX_PARENTS:
            raise SchemaError("chat.ack lists too many missing hashes")


@message_type("chat.sync_req", 1)
class SyncRequest(Body):
    """Pull request: "I hold every message of ``authors[i]`` up to ``seqs[i]``; send the rest"."""

    chat_id: bytes
    authors: tuple[PeerId, ...]
    seqs: tuple[int, ...]
    limit: int

    def validate(self) -> None:
        _check_hash(self.chat_id, "chat.sync_req chat_id")
        if len(self.authors) != len(self.seqs) or len(self.authors) > 4 * MAX_MEMBERS:
            raise SchemaError("chat.sync_req needs one seq per author (and a bounded author list)")
        if any(s < 0 for s in self.seqs) or not 1 <= self.limit <= 100_000:
            raise SchemaError("chat.sync_req seqs must be >= 0 and limit in 1..100000")


@message_type("chat.sync_batch", 1)
class SyncBatch(Body):
    """Pull answer header: ``count`` message frames follow; ``more`` when the limit cut the
    answer short. ``status`` is ``ok``, ``unknown-chat``, ``not-member`` or ``busy`` (the
    responder's sync budget for this peer is spent for now: ask again later)."""

    chat_id: bytes
    status: str
    count: int
    more: bool

    def validate(self) -> None:
        if self.status not in ("ok", "unknown-chat", "not-member", "busy") or self.count < 0:
            raise SchemaError(f"bad chat.sync_batch status {self.status!r} or count {self.count}")


B = TypeVar("B", bound=Body)


def build(cls: type[B], **fields: Any) -> B:
    """Construct a body (typed helper: mypy does not see the dataclass made by ``message_type``)."""
    return cls(**fields)


def encode_control(body: Body) -> bytes:
    """An unsigned control frame: canonical CBOR ``{"t": type, "tv": version, "b": body}``.

    Control frames only travel inside Noise-authenticated streams and never enter a history, so
    they are not signed (the stream authenticates the peer; histories carry their own signatures).
    """
    body.validate()
    return canonical.encode({"t": body.TYPE, "tv": body.VERSION, "b": body.to_value()})


def decode_control(data: bytes, expected: type[B]) -> B:
    """Decode a control frame of type ``expected``; raises InvalidMessage subclasses."""
    value = canonical.decode(data, max_size=64 * 1024)
    if not isinstance(value, dict) or set(value) != {"t", "tv", "b"}:
        raise SchemaError("a control frame is a map with exactly the keys t, tv, b")
    type_name, version = value["t"], value["tv"]
    if not isinstance(type_name, str) or not isinstance(version, int) or isinstance(version, bool):
        raise SchemaError("a control frame's t is a text string and its tv an unsigned integer")
    if (type_name, version) != (expected.TYPE, expected.VERSION):
        body_class(type_name, version)  # UnknownMessageType / UnsupportedVersion for unknown ones
        raise SchemaError(f"expected a {expected.TYPE!r} control frame, got {type_name[:64]!r}")
    return expected.from_value(value["b"])


def message_body(env: Envelope) -> ChatMessage:
    if not isinstance(env.body, ChatMessage):
        raise HistoryViolation(f"expected a chat.msg envelope, got {env.type!r}", code="not-chat-message")
    return env.body


def check_author(env: Envelope, remote: PeerId) -> None:
    """Invitations and replies must be signed by the stream's authenticated peer."""
    if env.author != remote:
        raise SignatureError(f"message signed by {env.author} arrived from {remote}")


__all__ = [
    "ACK_STATUSES",
    "APP_KIND_PREFIX",
    "HASH_LEN",
    "KIND_MEMBER_ADD",
    "KIND_MEMBER_LEAVE",
    "KIND_MEMBER_REMOVE",
    "KIND_TEXT",
    "MAX_CHAT_MESSAGE_SIZE",
    "MAX_MEMBERS",
    "MAX_PARENTS",
    "MEMBERSHIP_KINDS",
    "ChatAck",
    "ChatGenesis",
    "ChatInvite",
    "ChatInviteReply",
    "ChatMessage",
    "SyncBatch",
    "SyncRequest",
    "apply_membership",
    "chat_id_of",
    "check_author",
    "check_content",
    "check_genesis",
    "check_membership_change",
    "decode_control",
    "decode_genesis",
    "encode_control",
    "make_genesis",
    "make_message",
    "member_of",
    "message_body",
]
