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

The contents of the chat's own kinds are typed bodies of the one schema mechanism (:data:`CHAT_CONTENT_TYPES`,
:func:`chat_content`): a message's content is checked by decoding it into its kind's dataclass.

Membership at a message is computed from the membership messages in its causal past only (see
:mod:`ioa_p2p.history`), so every holder of the same messages reaches the same verdicts.

Control bodies used inside the chat protocols (never part of a history): ``chat.invite``,
``chat.invite_reply`` (signed envelopes), ``chat.ack``, ``chat.sync_req`` and
``chat.sync_batch`` (unsigned control frames, see :func:`encode_control`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, ClassVar, TypeVar

from ioa_p2p.errors import HistoryViolation, MessageTooLarge, SchemaError
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, build, message_type

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


def check_hash(value: bytes, where: str) -> None:
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
            check_hash(self.parent, "chat.genesis parent")
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
        check_hash(self.chat_id, "chat.msg chat_id")
        if not 1 <= len(self.parents) <= MAX_PARENTS:
            raise SchemaError(f"a chat message has 1 to {MAX_PARENTS} parents, got {len(self.parents)}")
        for parent in self.parents:
            check_hash(parent, "chat.msg parent")
        if not _strictly_sorted(self.parents):
            raise SchemaError("chat.msg parents must be sorted ascending, without duplicates")
        check_content(self.kind, self.content)


# --------------------------------------------------------------------------- contents of the chat's own kinds

#: Schemas of the contents of the chat's own kinds by (kind, version), declared with the one schema
#: mechanism of signed bodies (:func:`~ioa_p2p.wire.schema.message_type`); never envelope bodies. The
#: ``conv.*`` contents have theirs in :data:`ioa_p2p.conversation.messages.CONTENT_TYPES`.
CHAT_CONTENT_TYPES: dict[tuple[str, int], type[Body]] = {}
#: The schema version of a chat content (the kind names the schema; the envelope's version covers it).
CONTENT_VERSION = 1


class ChatContent(Body):
    """The content of a chat's own kind: a CBOR map with exactly the class's fields."""

    __slots__ = ()
    LABEL = "content"
    #: The content's shape, as the error for a bad content states it.
    SHAPE: ClassVar[str] = "{}"


@message_type(KIND_TEXT, CONTENT_VERSION, registry=CHAT_CONTENT_TYPES)
class TextContent(ChatContent):
    SHAPE = '{"text": <string>} and nothing else'
    text: str


@message_type(KIND_MEMBER_ADD, CONTENT_VERSION, registry=CHAT_CONTENT_TYPES)
class MemberAddContent(ChatContent):
    SHAPE = '{"member": <peer id bytes>}'
    member: PeerId


@message_type(KIND_MEMBER_REMOVE, CONTENT_VERSION, registry=CHAT_CONTENT_TYPES)
class MemberRemoveContent(ChatContent):
    SHAPE = '{"member": <peer id bytes>}'
    member: PeerId


@message_type(KIND_MEMBER_LEAVE, CONTENT_VERSION, registry=CHAT_CONTENT_TYPES)
class MemberLeaveContent(ChatContent):
    SHAPE = "{} (empty)"


#: The schema of each chat kind (the registry above, by kind).
_SCHEMAS: dict[str, type[ChatContent]] = {
    kind: cls for (kind, _), cls in CHAT_CONTENT_TYPES.items() if issubclass(cls, ChatContent)
}


def chat_content(kind: str, content: dict[str, Any]) -> ChatContent | None:
    """The typed content of a chat's own kind (None for a ``conv.*`` kind, whose content is opaque here).
    Raises SchemaError for a bad content, an unknown kind (other than ``conv.*``) or a bad ``conv.*`` name."""
    if not isinstance(kind, str) or not isinstance(content, dict):
        raise SchemaError("a chat message has a text kind and a map content")
    schema = _SCHEMAS.get(kind)
    if schema is not None:
        return _decode_content(schema, content)
    if not kind.startswith(APP_KIND_PREFIX):
        raise SchemaError(
            f"unknown chat message kind {kind[:MAX_KIND_CHARS]!r} "
            "(known: text, member.add, member.leave, member.remove, conv.*)"
        )
    if not _APP_KIND.fullmatch(kind):
        raise SchemaError(f"application kind {kind!r} must match conv.[a-z0-9][a-z0-9_.-]* (64 chars max)")
    return None


def check_content(kind: str, content: dict[str, Any]) -> None:
    """Schema of ``content`` for each kind (:func:`chat_content`); raises SchemaError."""
    chat_content(kind, content)


C = TypeVar("C", bound=ChatContent)


def _decode_content(schema: type[C], content: dict[str, Any]) -> C:
    try:
        return schema.from_value(content)
    except SchemaError as exc:
        raise SchemaError(f"a {schema.TYPE!r} message has content {schema.SHAPE}: {exc}") from None


def member_of(content: dict[str, Any]) -> PeerId:
    """The peer named by a member.add / member.remove content (both kinds have the same schema)."""
    return _decode_content(MemberAddContent, content).member


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


# --------------------------------------------------------------------------- invitations


# --------------------------------------------------------------------------- control frames


B = TypeVar("B", bound=Body)


def message_body(env: Envelope) -> ChatMessage:
    if not isinstance(env.body, ChatMessage):
        raise HistoryViolation(f"expected a chat.msg envelope, got {env.type!r}", code="not-chat-message")
    return env.body


__all__ = [
    "APP_KIND_PREFIX",
    "HASH_LEN",
    "KIND_MEMBER_ADD",
    "KIND_MEMBER_LEAVE",
    "KIND_MEMBER_REMOVE",
    "KIND_TEXT",
    "CHAT_CONTENT_TYPES",
    "CONTENT_VERSION",
    "MAX_CHAT_MESSAGE_SIZE",
    "MAX_MEMBERS",
    "MAX_PARENTS",
    "MEMBERSHIP_KINDS",
    "ChatContent",
    "ChatGenesis",
    "ChatMessage",
    "MemberAddContent",
    "MemberLeaveContent",
    "MemberRemoveContent",
    "TextContent",
    "chat_content",
    "chat_id_of",
    "check_hash",
    "check_content",
    "check_genesis",
    "decode_genesis",
    "make_genesis",
    "make_message",
    "member_of",
    "message_body",
]
