"""Control API routes of the chat service (``/chats...``) and the JSON view of a chat message.

Routes: ``GET /chats``, ``GET /chats/history``, ``GET /chats/export``, ``POST /chats/post``,
``POST /chats/create``, ``POST /chats/sync``, ``GET /chats/events`` (the messages live, resumable:
:mod:`ioa_p2p.node.chats.live`), ``GET /chats/audit``, ``GET /chats/store`` (rows kept in quarantine,
chats joined by strangers' invitations, partners, expired invitations, pull pacing); ``chat`` accepts a
unique hex prefix. Bytes inside message content are shown as ``{"$bytes": base64}``. Schemas:
:mod:`ioa_p2p.api.chats`.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING

from ioa_p2p.api import routes as r
from ioa_p2p.api.chats import (
    AuditFinding,
    AuditView,
    ChatEventsRequest,
    ChatInfo,
    ChatMessageView,
    ChatRef,
    ChatStoreReply,
    ChatStoreRequest,
    CreateChatReply,
    CreateChatRequest,
    ExportReply,
    HistoryReply,
    PostRequest,
    PullPacing,
    QuarantinedRow,
    SyncChatsReply,
    SyncChatsRequest,
)
from ioa_p2p.api.codec import Empty, json_object
from ioa_p2p.api.stream import NDJSON, SSE
from ioa_p2p.errors import InvalidMessage, UsageError
from ioa_p2p.history.audit import AuditReport, audit_history
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, KIND_MEMBER_REMOVE, ChatMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.live import ChatStreams
from ioa_p2p.node.control.server import CallInfo, Streaming
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.chats.service import Chats
    from ioa_p2p.node.ports import NodePort


def message_view(env: Envelope) -> ChatMessageView:
    """A chat message as the control API shows it (hex hashes, peer IDs as text, bytes as
    ``{"$bytes": base64}``)."""
    body = env.body
    assert isinstance(body, ChatMessage)
    content = dict(body.content)
    if body.kind in (KIND_MEMBER_ADD, KIND_MEMBER_REMOVE):
        content = {"member": str(PeerId.from_bytes(content["member"]))}
    return ChatMessageView(
        hash=env.hash.hex(),
        author=str(env.author),
        seq=env.seq,
        ts=env.ts,
        kind=body.kind,
        content=json_object(content),
        parents=tuple(p.hex() for p in body.parents),
    )


def add_routes(node: NodePort, chats: Chats) -> None:
    """Register the ``/chats...`` control routes of ``chats`` on the node's control API."""

    def info(chat_id: bytes) -> ChatInfo:
        return ChatInfo.from_json(chats.chat_info(chat_id))

    async def get_chats(request: Empty, call: CallInfo) -> tuple[ChatInfo, ...]:
        return tuple(ChatInfo.from_json(item) for item in chats.list_chats())

    async def get_history(request: ChatRef, call: CallInfo) -> HistoryReply:
        chat_id = chats.resolve(request.chat)
        return HistoryReply(info(chat_id), tuple(message_view(e) for e in chats.history(chat_id)))

    async def get_export(request: ChatRef, call: CallInfo) -> ExportReply:
        chat_id = chats.resolve(request.chat)
        data = chats.export(chat_id)
        return ExportReply(chat_id.hex(), len(chats.get(chat_id)), base64.b64encode(data).decode())

    async def post_message(request: PostRequest, call: CallInfo) -> ChatMessageView:
        chat_id = chats.resolve(request.chat)
        try:
            env = await chats.post(chat_id, request.kind, request.message_content())
        except InvalidMessage as exc:
            raise UsageError(f"cannot post this message: {exc}") from None
        return message_view(env)

    async def post_create(request: CreateChatRequest, call: CallInfo) -> CreateChatReply:
        peers = [PeerId.from_string(m) for m in request.members]
        parent = chats.resolve(request.parent) if request.parent else None
        handle = await chats.create_chat(peers, request.topic, parent, invite_timeout=request.invite_timeout)
        return CreateChatReply(
            chat_id=handle.chat_id.hex(),
            accepted=tuple(str(p) for p in handle.accepted),
            declined=tuple(str(p) for p in handle.declined),
            unanswered=tuple(str(p) for p in handle.unanswered),
        )

    async def post_sync(request: SyncChatsRequest, call: CallInfo) -> SyncChatsReply:
        received = await chats.sync_now(chats.resolve(request.chat) if request.chat else None)
        return SyncChatsReply(received)

    streams = ChatStreams(node, chats, message_view)

    async def get_events(request: ChatEventsRequest, call: CallInfo) -> Streaming:
        chat_id = chats.resolve(request.chat)
        text = call.last_event_id or request.after  # a browser's reconnection sends the newest
        sse = call.sse or text is not None
        return Streaming(streams.open(chat_id, text, sse=sse), SSE if sse else NDJSON)

    async def get_audit(request: ChatRef, call: CallInfo) -> AuditView:
        chat_id = chats.resolve(request.chat)
        data = chats.export(chat_id)
        started = time.monotonic()
        report = await node.run_sync(lambda: audit_history(data, source=chat_id.hex()))
        return audit_view(chat_id, report, (time.monotonic() - started) * 1000)

    async def get_store(request: ChatStoreRequest, call: CallInfo) -> ChatStoreReply:
        rows = chats.quarantine(chats.resolve(request.chat) if request.chat else None)
        return ChatStoreReply(
            quarantined=tuple(QuarantinedRow(**row) for row in rows),
            stranger_chats=chats.store.count_stranger_chats(),
            partners=len(chats.partners),
            expired_invitations=chats.expired,
            pulls=PullPacing(**chats.sync.pacer.snapshot()),
        )

    node.control.add_route(r.CHATS, get_chats)
    node.control.add_route(r.HISTORY, get_history)
    node.control.add_route(r.EXPORT, get_export)
    node.control.add_route(r.POST, post_message)
    node.control.add_route(r.CREATE_CHAT, post_create)
    node.control.add_route(r.SYNC_CHATS, post_sync)
    node.control.add_route(r.CHAT_EVENTS, get_events)
    node.control.add_route(r.AUDIT, get_audit)
    node.control.add_route(r.CHAT_STORE, get_store)


def audit_view(chat_id: bytes, report: AuditReport, took_ms: float) -> AuditView:
    summary = report.summary()
    return AuditView(
        chat_id=chat_id.hex(),
        valid=report.valid,
        records=report.records,
        messages=int(summary["messages"]),
        authors=dict(summary["authors"]),
        members=tuple(summary["members"]),
        heads=tuple(summary["heads"]),
        findings=tuple(
            AuditFinding(
                f.code,
                f.message,
                f.index,
                f.hash.hex() if f.hash else None,
                str(f.author) if f.author else None,
                f.seq,
            )
            for f in report.findings
        ),
        took_ms=took_ms,
    )


__all__ = ["add_routes", "audit_view", "message_view"]
