"""Bodies of the chat protocols that never enter a history (pure): invitations and control frames.

``chat.invite`` and ``chat.invite_reply`` travel as signed envelopes; ``chat.ack``, ``chat.sync_req`` and
``chat.sync_batch`` as unsigned control frames (:mod:`ioa_p2p.wire.control`). Wire details:
docs/protocol.md §10.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar  # noqa: F401  (Body's ClassVar hints)

from ioa_p2p.errors import SchemaError, SignatureError
from ioa_p2p.history.bodies import MAX_MEMBERS, MAX_PARENTS, check_hash
from ioa_p2p.identity import PeerId
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type

ACK_STORED = "stored"


ACK_DUPLICATE = "duplicate"


ACK_MISSING = "missing"


ACK_REJECTED = "rejected"


ACK_UNKNOWN_CHAT = "unknown-chat"


ACK_DECLINED = "declined"


ACK_STATUSES = frozenset(
    {ACK_STORED, ACK_DUPLICATE, ACK_MISSING, ACK_REJECTED, ACK_UNKNOWN_CHAT, ACK_DECLINED}
)


@message_type("chat.invite", 1)
class ChatInvite(Body):
    """An invitation signed by a member: the chat's genesis bytes; ``added_by`` is the hash of
    the ``member.add`` that made the invitee a member (None for members named in the genesis)."""

    genesis: bytes
    added_by: bytes | None

    def validate(self) -> None:
        if self.added_by is not None:
            check_hash(self.added_by, "chat.invite added_by")


@message_type("chat.invite_reply", 1)
class ChatInviteReply(Body):
    """The invitee's signed answer."""

    chat_id: bytes
    accept: bool
    reason: str

    def validate(self) -> None:
        check_hash(self.chat_id, "chat.invite_reply chat_id")
        if len(self.reason) > 1024:
            raise SchemaError("chat.invite_reply reason is over 1024 characters")


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
        check_hash(self.chat_id, "chat.sync_req chat_id")
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


def check_author(env: Envelope, remote: PeerId) -> None:
    """Invitations and replies must be signed by the stream's authenticated peer."""
    if env.author != remote:
        raise SignatureError(f"message signed by {env.author} arrived from {remote}")


__all__ = [
    "ACK_STATUSES",
    "ChatAck",
    "ChatInvite",
    "ChatInviteReply",
    "SyncBatch",
    "SyncRequest",
    "check_author",
]
