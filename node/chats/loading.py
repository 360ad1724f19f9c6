"""Loading stored chats lazily, and keeping undecodable rows aside instead of failing.

Start-up reads one row per chat (its ID and status: :meth:`ChatStore.statuses`); a chat's history
is rebuilt from the store only when something uses it (a message or sync for it arrives, the
application or the control API asks for it). So a node holding many chats, a thousand invitations
from strangers say, starts as fast as an empty one.

A rebuild does not trust the disk blindly: a row whose bytes do not decode, or whose hash does not
match its bytes, is moved to the store's ``quarantine`` table (kept, reported in the log and by
:func:`quarantine_view`, flagged by the audit of an export), and the chat is served without it (its
descendants wait for it as pending messages; a sync from any member brings a good copy). A chat
whose genesis does not decode is quarantined whole. Nothing stops the node from starting.
:func:`list_views` lists the chats without loading those that hold no message.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Container, Mapping
from typing import Any

from ioa_p2p.errors import HistoryViolation, InvalidMessage
from ioa_p2p.history.bodies import ChatGenesis
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.partners import Partners
from ioa_p2p.node.chats.store import ChatStore
from ioa_p2p.wire.envelope import Envelope

log = logging.getLogger("ioa_p2p.chats")

NewHistory = Callable[[Envelope, bytes], ChatHistory]


def rebuild(store: ChatStore, chat_id: bytes, new_history: NewHistory, now_ms: int) -> ChatHistory | None:
    """The chat's history from the store (trusted local data: signatures not re-checked, hashes
    are); None when its genesis is unreadable (then the chat is quarantined)."""
    row = store.chat(chat_id)
    if row is None:
        return None
    try:
        genesis = Envelope.from_cbor(row.genesis, verify=False)
        if genesis.hash != chat_id:
            raise InvalidMessage("the stored genesis does not hash to the chat ID")
        hist = new_history(genesis, chat_id)
    except InvalidMessage as exc:
        log.warning("chat %s: its stored genesis is unreadable (%s); quarantined", chat_id.hex()[:16], exc)
        store.quarantine_chat(chat_id, f"genesis: {exc}", now_ms)
        return None
    for msg in store.messages(chat_id):
        try:
            if hashlib.sha256(msg.raw).digest() != msg.hash:
                raise InvalidMessage("the stored bytes do not hash to the message's hash")
            hist.add(Envelope.from_cbor(msg.raw, verify=False), msg.hash)
        except (InvalidMessage, TypeError) as exc:  # TypeError: a column of another type
            reason = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, HistoryViolation):
                reason = f"breaks the history rules: {reason}"
            log.warning("chat %s: message %s quarantined: %s", chat_id.hex()[:16], _hex(msg.hash), reason)
            store.quarantine_message(msg.hash, reason, now_ms)
    return hist


def chat_view(hist: ChatHistory, status: str, inviter: bytes | None) -> dict[str, Any]:
    """``Chats.chat_info``: what the control API and ``ioa chats`` show of a loaded chat."""
    return {
        "chat_id": hist.chat_id.hex(),
        "topic": hist.topic,
        "creator": str(hist.creator),
        "parent": hist.genesis_body.parent.hex() if hist.genesis_body.parent else None,
        "members": sorted(str(m) for m in hist.members()),
        "status": status,
        "inviter": str(PeerId.from_bytes(inviter)) if inviter else None,
        "messages": len(hist),
        "pending": hist.pending_count,
        "pending_bytes": hist.pending_bytes,
        "pending_refused": hist.pending.refused + hist.pending.dropped,
        "heads": [h.hex() for h in hist.heads()],
        "created_ms": hist.genesis.ts,
    }


def expire_idle(store: ChatStore, joined_before_ms: int, in_use: Callable[[bytes], bool]) -> list[bytes]:
    """Delete the chats joined by an invitation before ``joined_before_ms`` that never got a
    message and are not ``in_use``; their IDs. Nothing is lost: a member that posts later is
    answered ``unknown-chat`` and invites this node again."""
    expired = []
    for chat_id in store.idle_invited_chats(joined_before_ms):
        if not in_use(chat_id):
            store.forget_chat(chat_id)
            expired.append(chat_id)
    if expired:
        log.info("forgot %d invited chats that never got a message", len(expired))
    return expired


def light_info(store: ChatStore, chat_id: bytes, status: str, messages: int) -> dict[str, Any] | None:
    """``Chats.chat_info`` of a chat not loaded and holding no message, from its genesis alone."""
    row = store.chat(chat_id)
    if row is None:
        return None
    try:
        genesis = Envelope.from_cbor(row.genesis, verify=False)
        body = genesis.body
        if not isinstance(body, ChatGenesis):
            return None
    except InvalidMessage:
        return None
    return {
        "chat_id": chat_id.hex(),
        "topic": body.topic,
        "creator": str(genesis.author),
        "parent": body.parent.hex() if body.parent else None,
        "members": sorted(str(m) for m in body.members),
        "status": status,
        "inviter": str(PeerId.from_bytes(row.inviter)) if row.inviter else None,
        "messages": messages,
        "pending": 0,
        "pending_bytes": 0,
        "pending_refused": 0,
        "heads": [chat_id.hex()],
        "created_ms": genesis.ts,
    }


def list_views(
    store: ChatStore,
    statuses: Mapping[bytes, str],
    loaded: Container[bytes],
    info: Callable[[bytes], dict[str, Any] | None],
) -> list[dict[str, Any]]:
    """Every chat's view: ``info(chat_id)`` (None: the chat could not be loaded), but a chat that holds
    no message and is not ``loaded`` is described from its genesis alone (its members are the genesis
    members), so listing does not load it."""
    counts = store.message_counts()
    out = []
    for chat_id, status in list(statuses.items()):
        view = None
        if chat_id not in loaded and not counts.get(chat_id):
            view = light_info(store, chat_id, status, 0)
        if view is None:
            view = info(chat_id)
        if view is not None:
            out.append(view)
    return out


def upgrade(store: ChatStore, me: PeerId, partners: Partners, now_ms: int) -> None:
    """Once, for a store written before schema 3: fill in each chat's topic, and the partners of
    chats this node created or posted in (members named by their genesis)."""
    if store.upgraded_from not in (1, 2):
        return
    mine = set(store.chats_authored_by(me))
    for chat_id, genesis_raw, inviter in store.untitled_chats():
        try:
            genesis = Envelope.from_cbor(genesis_raw, verify=False)
        except InvalidMessage:
            continue  # quarantined when the chat is first used
        body = genesis.body
        if not isinstance(body, ChatGenesis):
            continue
        store.set_topic(chat_id, body.topic)
        if inviter is None or chat_id in mine:
            partners.add((m for m in body.members if m != me), now_ms)


def quarantine_view(store: ChatStore, chat_id: bytes | None = None) -> list[dict[str, Any]]:
    """The quarantined rows (of one chat, or all), for the control API."""
    return [
        {
            "chat_id": row.chat_id.hex() if row.chat_id else None,
            "hash": row.hash.hex() if row.hash else None,
            "what": "genesis" if row.hash is None else "message",
            "bytes": len(row.raw or b""),
            "reason": row.reason,
            "at_ms": row.at_ms,
        }
        for row in store.quarantined(chat_id)
    ]


def _hex(digest: Any) -> str:
    return digest.hex()[:16] if isinstance(digest, bytes) else repr(digest)[:16]


__all__ = ["chat_view", "expire_idle", "light_info", "list_views", "quarantine_view", "rebuild", "upgrade"]
