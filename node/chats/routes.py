"""Control API routes of the chat service (``/chats...``) and the JSON view of a chat message.

Routes: ``GET /chats``, ``GET /chats/history``, ``GET /chats/export``, ``POST /chats/post``,
``POST /chats/create``, ``POST /chats/sync``; ``chat`` accepts a unique hex prefix. Bytes inside
message content are shown as ``{"$bytes": base64}``. Schemas: :mod:`ioa_p2p.api.chats`.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from ioa_p2p.api import routes as r
from ioa_p2p.api.chats import (
    ChatInfo,
    ChatMessageView,
    ChatRef,
    CreateChatReply,
    CreateChatRequest,
    ExportReply,
    HistoryReply,
    PostRequest,
    SyncChatsReply,
    SyncChatsRequest,
)
from ioa_p2p.api.codec import Empty, json_object
from ioa_p2p.errors import InvalidMessage, UsageError
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, KIND_MEMBER_REMOVE, ChatMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import CallInfo
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

    node.control.add_route(r.CHATS, get_chats)
    node.control.add_route(r.HISTORY, get_history)
    node.control.add_route(r.EXPORT, get_export)
    node.control.add_route(r.POST, post_message)
    node.control.add_route(r.CREATE_CHAT, post_create)
    node.control.add_route(r.SYNC_CHATS, post_sync)


__all__ = ["add_routes", "message_view"]
