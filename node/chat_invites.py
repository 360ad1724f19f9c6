"""Chat invitations, protocol ``/ioa/chat/invite/1.0.0``: both sides and the application policy.

The inviter sends a signed ``chat.invite`` (genesis inside); the invitee checks it names the right
members, asks the application policy (bounded by ``invite_timeout``) and answers a signed
``chat.invite_reply``. After accepting, the invitee pulls the history from the inviter.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import trio

from ioa_p2p.chat import ChatGenesis, ChatInvite, ChatInviteReply, build, check_author, decode_genesis
from ioa_p2p.errors import InvalidMessage, IoAError, ProtocolViolation
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import Envelope

from .chat_streams import send
from .framing import FramedStream
from .store import STATUS_DECLINED, STATUS_MEMBER

if TYPE_CHECKING:
    from .chats import Chats

log = logging.getLogger("ioa_p2p.chats")

PROTO_INVITE = "/ioa/chat/invite/1.0.0"

InvitePolicy = Callable[[Envelope], Awaitable[bool]]


async def accept_all(genesis: Envelope) -> bool:
    """The default invitation policy."""
    return True


class ChatInvites:
    """Sends and answers the invitations of one chat service."""

    def __init__(self, chats: Chats, nursery: trio.Nursery) -> None:
        self.chats = chats
        self._nursery = nursery
        self.policy: InvitePolicy = accept_all

    async def call_invite(
        self, peer: PeerId, genesis: Envelope, added_by: bytes | None, *, within: float
    ) -> bool | None:
        """Invite ``peer``: True accepted, False declined, None no valid answer in time."""
        node = self.chats.node
        invite = Envelope.create(
            node.identity,
            build(ChatInvite, genesis=genesis.to_cbor(), added_by=added_by),
            seq=0,
            ts=self.chats.now_ms(),
        )
        try:
            with trio.fail_after(within):
                stream = await node.open_stream(peer, PROTO_INVITE)
                async with stream:
                    await send(stream, invite.to_cbor())
                    reply = await stream.receive_envelope()
        except (IoAError, trio.TooSlowError) as exc:
            log.info("invitation of %s to %s got no answer: %s", peer, genesis.hash.hex()[:16], exc)
            return None
        body = reply.body
        if reply.author != peer or not isinstance(body, ChatInviteReply) or body.chat_id != genesis.hash:
            log.warning("%s answered the invitation with a wrong reply", peer)
            return None
        return body.accept

    async def handle_invite(self, stream: FramedStream) -> None:
        chats = self.chats
        invite = await stream.receive_envelope()
        check_author(invite, stream.remote)
        body = invite.body
        if not isinstance(body, ChatInvite):
            raise ProtocolViolation(f"{stream.remote} sent {invite.type!r} on {PROTO_INVITE}")
        try:
            genesis, header = decode_genesis(body.genesis)
        except InvalidMessage as exc:
            raise ProtocolViolation(f"{stream.remote} sent an invalid genesis: {exc}") from None
        chat_id = genesis.hash
        accept, reason = await self._decide(genesis, header, body, stream.remote)
        if accept or chats.find(chat_id) is None:
            chats.join(genesis, chat_id, STATUS_MEMBER if accept else STATUS_DECLINED)
        reply = Envelope.create(
            chats.node.identity,
            build(ChatInviteReply, chat_id=chat_id, accept=accept, reason=reason),
            seq=0,
            ts=chats.now_ms(),
        )
        await send(stream, reply.to_cbor())
        if accept:
            chats.sync.start_pull(chat_id, stream.remote)

    async def _decide(
        self, genesis: Envelope, header: ChatGenesis, invite: ChatInvite, inviter: PeerId
    ) -> tuple[bool, str]:
        if self.chats.me not in header.members and invite.added_by is None:
            return False, "this peer is not a member of that chat"
        if invite.added_by is None and inviter not in header.members:
            return False, "the inviter is not a member of that chat"
        if self.chats.status(genesis.hash) == STATUS_MEMBER:
            return True, "already a member"
        try:
            with trio.fail_after(self.chats.config.invite_timeout):
                accept = bool(await self.policy(genesis))
        except trio.TooSlowError:
            return False, "the application did not decide in time"
        except Exception as exc:
            log.warning("invitation policy failed: %r", exc)
            return False, "the application could not decide"
        return accept, "accepted" if accept else "declined"

    def invite_added(self, chat_id: bytes, peer: PeerId, added_by: bytes) -> None:
        """Invite a member added by ``member.add`` message ``added_by``, in the background."""
        self._nursery.start_soon(self._invite_added, chat_id, peer, added_by)

    async def _invite_added(self, chat_id: bytes, peer: PeerId, added_by: bytes) -> None:
        with self.chats.node.faults.boundary("chat invitation", peer):
            hist = self.chats.get(chat_id)
            timeout = self.chats.config.invite_timeout
            answer = await self.call_invite(peer, hist.genesis, added_by, within=timeout)
            log.info("added member %s answered %s", peer, answer)


__all__ = ["PROTO_INVITE", "ChatInvites", "InvitePolicy", "accept_all"]
