"""Bodies of the chat protocols that never enter a history (pure): invitations and control frames.

``chat.invite`` and ``chat.invite_reply`` travel as signed envelopes; ``chat.ack``, ``chat.sync_req`` and
``chat.sync_batch`` as unsigned control frames (:mod:`ioa_p2p.wire.control`). Wire details:
docs/protocol.md §10.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar  # noqa: F401  (Body's ClassVar hints)

from ioa_p2p.errors import SchemaError, SignatureError
from ioa_p2p.history.bodies import HASH_LEN, MAX_MEMBERS, MAX_PARENTS, check_hash
from ioa_p2p.identity import PeerId
from ioa_p2p.wire.control import encode_control
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


def _stored_ack_parts() -> tuple[bytes, bytes]:
    """The bytes of a ``stored`` ack frame before and after its hash (canonical CBOR is deterministic, and
    the hash is the only part that varies)."""
    marker = bytes(range(HASH_LEN))
    frame = encode_control(ChatAck(hash=marker, status=ACK_STORED, missing=(), reason=""))
    before, after = frame.split(marker)
    return before, after


_STORED_BEFORE, _STORED_AFTER = _stored_ack_parts()


def stored_ack_frame(digest: bytes) -> bytes:
    """The ``chat.ack`` control frame saying ``digest`` (a 32-byte message hash) is ``stored``: exactly
    ``encode_control`` of that ack, assembled from its constant parts. A member answers most messages with
    it, and a sender compares each ack it takes with it byte for byte before decoding anything else (equal
    bytes are that ack: the encoding is canonical), so the common ack is neither encoded nor decoded."""
    check_hash(digest, "chat.ack hash")
    return _STORED_BEFORE + digest + _STORED_AFTER


def encode_ack(ack: ChatAck) -> bytes:
    """``ack`` as a control frame (:func:`stored_ack_frame` for the common ``stored`` answer)."""
    if ack.status == ACK_STORED and len(ack.hash) == HASH_LEN and not ack.missing and not ack.reason:
        return stored_ack_frame(ack.hash)
    return encode_control(ack)


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


#: ``chat.sync_batch`` statuses that refuse a malformed ``chat.sync_req`` (count 0, empty chat_id):
#: it did not decode (not a canonical control frame of that type, wrong field types, an author that is
#: not a 38-byte Ed25519 peer ID, too many authors...), or its frame was announced over 64 KiB (the
#: responder then resets the stream: the oversize body cannot be skipped safely).
SYNC_INVALID = "invalid"
SYNC_TOO_LARGE = "too-large"
SYNC_STATUSES = frozenset({"ok", "unknown-chat", "not-member", "busy", SYNC_INVALID, SYNC_TOO_LARGE})


@message_type("chat.sync_batch", 1)
class SyncBatch(Body):
    """Pull answer header: ``count`` message frames follow; ``more`` when the limit cut the
    answer short. ``status`` is ``ok``, ``unknown-chat``, ``not-member``, ``busy`` (the
    responder's sync budget for this peer is spent for now: ask again later), or
    :data:`SYNC_INVALID` / :data:`SYNC_TOO_LARGE` (the request was malformed: asking again
    with the same request cannot help)."""

    chat_id: bytes
    status: str
    count: int
    more: bool

    def validate(self) -> None:
        if self.status not in SYNC_STATUSES or self.count < 0:
            raise SchemaError(f"bad chat.sync_batch status {self.status!r} or count {self.count}")


def check_author(env: Envelope, remote: PeerId) -> None:
    """Invitations and replies must be signed by the stream's authenticated peer."""
    if env.author != remote:
        raise SignatureError(f"message signed by {env.author} arrived from {remote}")


__all__ = [
    "ACK_STATUSES",
    "SYNC_INVALID",
    "SYNC_STATUSES",
    "SYNC_TOO_LARGE",
    "ChatAck",
    "ChatInvite",
    "ChatInviteReply",
    "SyncBatch",
    "SyncRequest",
    "check_author",
    "encode_ack",
    "stored_ack_frame",
]
