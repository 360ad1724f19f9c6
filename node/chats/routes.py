"""Control API routes of the chat service (``/chats...``) and the JSON view of a chat message.

Routes: ``GET /chats``, ``GET /chats/history``, ``GET /chats/export``, ``POST /chats/post``,
``POST /chats/create``, ``POST /chats/sync``, ``GET /chats/store`` (rows kept in quarantine, chats
joined by strangers' invitations, partners, expired invitations, pull pacing); ``chat`` accepts a
unique hex prefix. Bytes inside
message content are shown as ``{"$bytes": base64}``.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from ioa_p2p.errors import InvalidMessage, IoAError, UsageError
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, KIND_MEMBER_REMOVE, ChatMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import ControlRequest
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.chats.service import Chats
    from ioa_p2p.node.ports import NodePort


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


def message_view(env: Envelope) -> dict[str, Any]:
    """A chat message as JSON (hex hashes, peer IDs as text, bytes as ``{"$bytes": base64}``)."""
    body = env.body
    assert isinstance(body, ChatMessage)
    content = dict(body.content)
    if body.kind in (KIND_MEMBER_ADD, KIND_MEMBER_REMOVE):
        content = {"member": str(PeerId.from_bytes(content["member"]))}
    return {
        "hash": env.hash.hex(),
        "author": str(env.author),
        "seq": env.seq,
        "ts": env.ts,
        "kind": body.kind,
        "content": _json_value(content),
        "parents": [p.hex() for p in body.parents],
    }


def add_routes(node: NodePort, chats: Chats) -> None:
    """Register the ``/chats...`` control routes of ``chats`` on the node's control API."""

    async def get_chats(request: ControlRequest) -> Any:
        return chats.list_chats()

    async def get_history(request: ControlRequest) -> Any:
        chat_id = chats.resolve(request.arg("chat", str))
        return {
            "chat": chats.chat_info(chat_id),
            "messages": [message_view(e) for e in chats.history(chat_id)],
        }

    async def get_export(request: ControlRequest) -> Any:
        chat_id = chats.resolve(request.arg("chat", str))
        data = chats.export(chat_id)
        return {
            "chat_id": chat_id.hex(),
            "messages": len(chats.get(chat_id)),
            "data": base64.b64encode(data).decode(),
        }

    async def post_message(request: ControlRequest) -> Any:
        chat_id = chats.resolve(request.arg("chat", str))
        kind = request.arg("kind", str, "text")
        content = request.arg("content", dict, None)
        if content is None:
            content = {"text": request.arg("text", str)}
        try:
            env = await chats.post(chat_id, kind, content)
        except InvalidMessage as exc:
            raise UsageError(f"cannot post this message: {exc}") from None
        return message_view(env)

    async def post_create(request: ControlRequest) -> Any:
        members = request.arg("members", list)
        try:
            peers = [PeerId.from_string(m) for m in members]
        except (IoAError, TypeError) as exc:
            raise UsageError(f"members must be peer IDs: {exc}") from None
        parent_text = request.arg("parent", str, None)
        parent = chats.resolve(parent_text) if parent_text else None
        timeout = request.arg("invite_timeout", float, None)
        handle = await chats.create_chat(peers, request.arg("topic", str), parent, invite_timeout=timeout)
        return {
            "chat_id": handle.chat_id.hex(),
            "accepted": [str(p) for p in handle.accepted],
            "declined": [str(p) for p in handle.declined],
            "unanswered": [str(p) for p in handle.unanswered],
        }

    async def post_sync(request: ControlRequest) -> Any:
        ref = request.arg("chat", str, None)
        received = await chats.sync_now(chats.resolve(ref) if ref else None)
        return {"received": received}

    async def get_store(request: ControlRequest) -> Any:
        ref = request.arg("chat", str, None)
        return {
            "quarantined": chats.quarantine(chats.resolve(ref) if ref else None),
            "stranger_chats": chats.store.count_stranger_chats(),
            "partners": len(chats.partners),
            "expired_invitations": chats.expired,
            "pulls": chats.sync.pacer.snapshot(),
        }

    node.control.add_route("GET", "/chats", get_chats)
    node.control.add_route("GET", "/chats/store", get_store)
    node.control.add_route("GET", "/chats/history", get_history)
    node.control.add_route("GET", "/chats/export", get_export)
    node.control.add_route("POST", "/chats/post", post_message)
    node.control.add_route("POST", "/chats/create", post_create)
    node.control.add_route("POST", "/chats/sync", post_sync)


__all__ = ["add_routes", "message_view"]
