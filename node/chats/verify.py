"""Check an invitation's ``added_by`` before accepting it: pull the inviter's history into memory.

An invitation to a chat whose genesis does not name this node must carry ``added_by``, the hash of
the ``member.add`` that made this node a member. Nothing in the invitation proves that message
exists, so the invitee pulls the chat from the inviter over ``/ioa/chat/sync/1.0.0`` into a
**detached** :class:`~ioa_p2p.history.ChatHistory` (nothing is stored) until that message arrives,
checked by the same history rules as any message (signed, its author a member at its parents, the
change allowed). The invitation is accepted only if it is a ``member.add`` naming this node; the
pulled messages are then adopted by the chat service. The pull is bounded by a deadline and by
``MAX_VERIFY_MESSAGES``; a made-up hash, an inviter that cannot serve the chat, or a history that
does not reach the message within those bounds is a refusal (``bad-added-by``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from ioa_p2p.errors import HistoryViolation, InvalidMessage, IoAError, ProtocolViolation
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, MAX_CHAT_MESSAGE_SIZE, member_of
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.streams import open_within
from ioa_p2p.node.chats.sync import PROTO_SYNC, SYNC_LIMIT, call_sync
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

#: Most messages pulled to find an ``added_by`` message (the rest is synced after accepting).
MAX_VERIFY_MESSAGES = 20_000


async def verify_added_by(
    node: NodePort, genesis: Envelope, added_by: bytes, inviter: PeerId, *, within: float
) -> tuple[ChatHistory | None, str]:
    """The detached history holding a valid ``member.add`` of this node with hash ``added_by``
    (pulled from ``inviter`` within ``within`` seconds), or ``(None, why not)``."""
    hist = ChatHistory(genesis, max_pending=SYNC_LIMIT)
    try:
        with trio.fail_after(within):
            await _pull_until(node, hist, inviter, added_by)
    except trio.TooSlowError:
        return None, f"the inviter's history did not show the member.add within {within:.0f} s"
    except IoAError as exc:
        return None, f"could not read the chat from the inviter: {exc}"
    entry = hist.get(added_by)
    if entry is None:
        return None, "the inviter's history has no message with the added_by hash"
    msg = entry.msg
    if msg.kind != KIND_MEMBER_ADD or member_of(msg.content) != node.peer_id:
        return None, "the added_by message is not a member.add of this node"
    return hist, ""


async def _pull_until(node: NodePort, hist: ChatHistory, peer: PeerId, wanted: bytes) -> None:
    stream = await open_within(node, peer, PROTO_SYNC, 10.0)
    async with stream:
        while wanted not in hist and len(hist) < MAX_VERIFY_MESSAGES:
            header = await call_sync(stream, hist)
            if header.status != "ok" or header.count > SYNC_LIMIT:
                raise ProtocolViolation(f"{peer} answered the sync request with {header.status!r}")
            for _ in range(header.count):
                _add(hist, await stream.receive(max_size=MAX_CHAT_MESSAGE_SIZE), peer)
            if not header.more or header.count == 0:
                return


def _add(hist: ChatHistory, data: bytes, peer: PeerId) -> None:
    try:
        env = Envelope.from_cbor(data)
        hist.add(env)
    except HistoryViolation:
        return  # a message the rules refuse is simply not part of what we check
    except InvalidMessage as exc:
        raise ProtocolViolation(f"{peer} sent an invalid message in sync: {exc}") from None


__all__ = ["MAX_VERIFY_MESSAGES", "verify_added_by"]
