"""Group chats (pure): the requests and replies of the ``/chats...`` routes (docs/protocol.md §7, §10.9).

``chat`` fields take a chat ID or a unique hex prefix of one. Message contents are JSON, bytes inside
them shown as ``{"$bytes": base64}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

from ioa_p2p.api.codec import ApiObject, Json, JsonObject
from ioa_p2p.api.events import Event
from ioa_p2p.api.peers import check_peer
from ioa_p2p.errors import InvalidField

#: Peers a chat may be created with at once (a chat has at most 256 members, the creator included).
MAX_CREATE_MEMBERS = 255


@dataclass(frozen=True, slots=True)
class ChatInfo(ApiObject):
    """A chat this node takes part in (``GET /chats``; ``status``: ``member`` or ``left``)."""

    chat_id: str
    topic: str
    creator: str
    parent: str | None
    members: tuple[str, ...]
    status: str
    inviter: str | None
    messages: int
    pending: int
    pending_bytes: int
    pending_refused: int
    heads: tuple[str, ...]
    created_ms: int


@dataclass(frozen=True, slots=True)
class ChatMessageView(ApiObject):
    """A message of a chat's history (hex hashes, peer IDs as text)."""

    hash: str
    author: str
    seq: int
    ts: int
    kind: str
    content: JsonObject
    parents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChatRef(ApiObject):
    """``GET /chats/history?chat=ID``, ``GET /chats/export?chat=ID``."""

    STRICT: ClassVar[bool] = True
    chat: str


@dataclass(frozen=True, slots=True)
class HistoryReply(ApiObject):
    """A chat and its messages in causal order."""

    chat: ChatInfo
    messages: tuple[ChatMessageView, ...]


@dataclass(frozen=True, slots=True)
class ExportReply(ApiObject):
    """The history file of a chat (docs/protocol.md §10.7), ``data`` in base64."""

    chat_id: str
    messages: int
    data: str


@dataclass(frozen=True, slots=True)
class PostRequest(ApiObject):
    """``POST /chats/post``: a message of ``kind`` with ``content``, or a ``text`` message."""

    STRICT: ClassVar[bool] = True
    chat: str
    kind: str = "text"
    content: JsonObject | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if self.content is None and self.text is None:
            raise InvalidField("text", "is missing (give text, or kind and content)")

    def message_content(self) -> JsonObject:
        return self.content if self.content is not None else {"text": self.text}


@dataclass(frozen=True, slots=True)
class CreateChatRequest(ApiObject):
    """``POST /chats/create``: invite ``members`` into a new chat about ``topic``."""

    STRICT: ClassVar[bool] = True
    members: tuple[str, ...]
    topic: str
    parent: str | None = None
    invite_timeout: float | None = None

    def __post_init__(self) -> None:
        if len(self.members) > MAX_CREATE_MEMBERS:
            raise InvalidField("members", f"has {len(self.members)} peers; the limit is {MAX_CREATE_MEMBERS}")
        for i, member in enumerate(self.members):
            check_peer(f"members[{i}]", member)
        if self.invite_timeout is not None and not 0 < self.invite_timeout <= 3600:
            raise InvalidField("invite_timeout", f"must be seconds in (0, 3600], not {self.invite_timeout}")


@dataclass(frozen=True, slots=True)
class CreateChatReply(ApiObject):
    """Who accepted, declined or did not answer the invitation."""

    chat_id: str
    accepted: tuple[str, ...]
    declined: tuple[str, ...]
    unanswered: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SyncChatsRequest(ApiObject):
    """``POST /chats/sync``: pull now (one chat, or every chat)."""

    STRICT: ClassVar[bool] = True
    chat: str | None = None


@dataclass(frozen=True, slots=True)
class SyncChatsReply(ApiObject):
    received: int


# --------------------------------------------------------------------------- the store's care


@dataclass(frozen=True, slots=True)
class ChatStoreRequest(ApiObject):
    """``GET /chats/store?chat=ID``: the quarantined rows of one chat (of all, without ``chat``)."""

    STRICT: ClassVar[bool] = True
    chat: str | None = None


@dataclass(frozen=True, slots=True)
class QuarantinedRow(ApiObject):
    """A stored row that could not be decoded, kept aside (``what``: ``genesis`` or ``message``)."""

    chat_id: str | None
    hash: str | None
    what: str
    bytes: int
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PullPacing(ApiObject):
    """Sync pulls: members in back-off, pulls skipped (back-off, pace), failures, running now."""

    members_in_backoff: int
    skipped_backoff: int
    skipped_pace: int
    failures: int
    running: int


@dataclass(frozen=True, slots=True)
class ChatStoreReply(ApiObject):
    """What the chat store keeps aside and how chats are kept (docs/security.md, "Invitation policy",
    "Damaged or full store"): quarantined rows, chats joined by the invitations of peers this node never
    worked with, its partners, invited chats expired without a message, the pacing of pulls."""

    quarantined: tuple[QuarantinedRow, ...]
    stranger_chats: int
    partners: int
    expired_invitations: int
    pulls: PullPacing


# --------------------------------------------------------------------------- a chat, live


@dataclass(frozen=True, slots=True)
class ChatEventsRequest(ApiObject):
    """``GET /chats/events?chat=ID``: every message of a chat, in the order this node stored them (a
    causal order), then each new one as it arrives; ``after`` (or ``Last-Event-ID``) resumes after a
    cursor ``<epoch>.<index>``."""

    STRICT: ClassVar[bool] = True
    chat: str
    after: str | None = None


@dataclass(frozen=True, slots=True)
class ChatMessageEvent(Event):
    """A message of a chat stream: its ``index`` in the node's order (1, 2, ...) and whether its Ed25519
    signature verifies (``signature``: ``valid`` / ``invalid``, checked again when served)."""

    event: ClassVar[str] = "chat_message"
    chat_id: str
    index: int
    signature: Literal["valid", "invalid"]
    message: ChatMessageView


@dataclass(frozen=True, slots=True)
class AuditFinding(ApiObject):
    """What the audit found wrong (``code``: ``bad_signature``, ``equivocation``, ``broken_chain``...)."""

    code: str
    message: str
    index: int | None
    hash: str | None
    author: str | None
    seq: int | None


@dataclass(frozen=True, slots=True)
class AuditView(ApiObject):
    """``GET /chats/audit?chat=ID``: the offline audit (docs/protocol.md §10.8) of this node's copy of a
    chat, as ``ioa audit CHAT`` runs it: signatures, hash chain, membership, equivocation."""

    chat_id: str
    valid: bool
    records: int
    messages: int
    authors: Mapping[str, int]
    members: tuple[str, ...]
    heads: tuple[str, ...]
    findings: tuple[AuditFinding, ...]
    took_ms: Annotated[float, Json(digits=3)]


__all__ = [
    "MAX_CREATE_MEMBERS",
    "AuditFinding",
    "AuditView",
    "ChatEventsRequest",
    "ChatInfo",
    "ChatMessageEvent",
    "ChatMessageView",
    "ChatRef",
    "ChatStoreReply",
    "ChatStoreRequest",
    "CreateChatReply",
    "CreateChatRequest",
    "ExportReply",
    "HistoryReply",
    "PostRequest",
    "PullPacing",
    "QuarantinedRow",
    "SyncChatsReply",
    "SyncChatsRequest",
]
