"""Chat invitations, protocol ``/ioa/chat/invite/1.0.0``: both sides and the application policy.

The inviter sends a signed ``chat.invite`` (genesis inside); the invitee checks, in order
(protocol.md §10.3): the genesis names it (or ``added_by`` is set) and the inviter is a genesis member
(or ``added_by`` is set); it is already a member (accept); the ``[chats]`` invitation policy, rate
limit and budgets (:mod:`~ioa_p2p.node.chats.admission`); ``added_by`` is a real ``member.add`` of it
(:mod:`~ioa_p2p.node.chats.verify`); then it asks the application policy (bounded by
``invite_timeout``) and answers a signed ``chat.invite_reply`` whose reason starts with a code.
Only an accepted invitation is stored; after accepting, the invitee pulls the history from the inviter.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import trio

from ioa_p2p.errors import (
    DialFailed,
    InvalidMessage,
    IoAError,
    IoATimeout,
    PeerClosed,
    PeerUnreachable,
    ProtocolViolation,
)
from ioa_p2p.history.bodies import ChatGenesis, decode_genesis
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.frames import ChatInvite, ChatInviteReply, check_author
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats import admission as rules
from ioa_p2p.node.chats.admission import Admission, Refusal
from ioa_p2p.node.chats.store import STATUS_MEMBER
from ioa_p2p.node.chats.streams import send
from ioa_p2p.node.chats.verify import verify_added_by
from ioa_p2p.node.net.cpu_wait import open_cpu_deadline
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build

if TYPE_CHECKING:
    from ioa_p2p.node.chats.ports import ChatCore

log = logging.getLogger("ioa_p2p.chats")

PROTO_INVITE = "/ioa/chat/invite/1.0.0"

InvitePolicy = Callable[[Envelope], Awaitable[bool]]

#: Invitations checked at once beyond the cheap rules (DHT lookups, added_by pulls); more are ``busy``.
MAX_CONCURRENT_CHECKS = 4
#: An invitation waits ``within`` seconds for its answer, not counting the time this process waited for a
#: CPU (a busy machine is no reason to give up on a live peer: :mod:`~ioa_p2p.node.net.cpu_wait`), but never
#: longer than this many times ``within``.
INVITE_WAIT_MOST = 3.0
#: The first pause before an invitation is asked again after a transient failure (seconds); it doubles
#: up to :data:`RETRY_MOST`.
RETRY_FIRST = 0.25
RETRY_MOST = 2.0
#: The chat ID of an ``invalid`` answer to a frame that is no invitation at all.
NO_CHAT = bytes(32)


@dataclass(frozen=True, slots=True)
class ChatHandle:
    """A created chat: its ID, genesis and how the invitees answered."""

    chat_id: bytes
    genesis: Envelope
    accepted: tuple[PeerId, ...]
    declined: tuple[PeerId, ...]
    unanswered: tuple[PeerId, ...]

    @property
    def topic(self) -> str:
        body = self.genesis.body
        assert isinstance(body, ChatGenesis)
        return body.topic


async def accept_all(genesis: Envelope) -> bool:
    """The default invitation policy."""
    return True


class ChatInvites:
    """Sends and answers the invitations of one chat service."""

    def __init__(self, chats: ChatCore, nursery: trio.Nursery, admission: Admission) -> None:
        self.chats = chats
        self._nursery = nursery
        self.policy: InvitePolicy = accept_all
        self.admission = admission
        self._checks = trio.Semaphore(MAX_CONCURRENT_CHECKS)
        self._deciding: set[bytes] = set()

    async def invite_all(self, peers: Sequence[PeerId], genesis: Envelope, *, within: float) -> ChatHandle:
        """Invite every peer of a new chat at once (each as :meth:`call_invite`); how they answered."""
        answers: dict[PeerId, bool | None] = {}

        async def ask(peer: PeerId) -> None:
            answers[peer] = await self.call_invite(peer, genesis, None, within=within)

        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(ask, peer)
        accepted = tuple(p for p in peers if answers.get(p) is True)
        declined = tuple(p for p in peers if answers.get(p) is False)
        unanswered = tuple(p for p in peers if answers.get(p) is None)
        return ChatHandle(genesis.hash, genesis, accepted, declined, unanswered)

    async def call_invite(
        self, peer: PeerId, genesis: Envelope, added_by: bytes | None, *, within: float
    ) -> bool | None:
        """Invite ``peer``: True accepted, False declined, None no valid answer in time (``within``
        seconds, plus the time this process waited for a CPU meanwhile, at most ``INVITE_WAIT_MOST`` times
        ``within``). A transient failure (the peer's stream refused or reset, a ``busy`` or
        ``rate-limited`` answer) is asked again, with a growing pause, until that window ends: a peer
        pacing this node is no reason to leave it out of a team. A failed dial is not retried."""
        node = self.chats.node
        invite = Envelope.create(
            node.identity,
            build(ChatInvite, genesis=genesis.to_cbor(), added_by=added_by),
            seq=0,
            ts=self.chats.now_ms(),
        )
        chat = genesis.hash.hex()[:16]
        pause = RETRY_FIRST
        async with open_cpu_deadline(within, most=INVITE_WAIT_MOST * within):
            while True:
                answer, again = await self._ask_once(peer, invite, genesis.hash)
                if not again:
                    return answer
                await trio.sleep(pause)
                pause = min(RETRY_MOST, 2 * pause)
        log.info("invitation of %s to %s got no answer within %.1f s", peer, chat, within)
        return None

    async def _ask_once(self, peer: PeerId, invite: Envelope, chat_id: bytes) -> tuple[bool | None, bool]:
        """One invitation stream: (answer, whether to ask again) as :meth:`call_invite` reads them."""
        chat = chat_id.hex()[:16]
        try:
            stream = await self.chats.node.open_stream(peer, PROTO_INVITE)
            async with stream:
                await send(stream, invite.to_cbor())
                reply = await stream.receive_envelope()
        except DialFailed as exc:
            log.info("invitation of %s to %s got no answer: %s", peer, chat, exc)
            return None, False
        except (PeerUnreachable, PeerClosed, IoATimeout) as exc:  # refused, reset, cut short: not final
            log.info("invitation of %s to %s failed, asking again: %s", peer, chat, exc)
            return None, True
        except IoAError as exc:  # a malformed answer, our own budget: final
            log.info("invitation of %s to %s got no valid answer: %s", peer, chat, exc)
            return None, False
        body = reply.body
        if reply.author != peer or not isinstance(body, ChatInviteReply) or body.chat_id != chat_id:
            log.warning("%s answered the invitation with a wrong reply", peer)
            return None, False
        if not body.accept and body.reason.split(":", 1)[0] in rules.TRANSIENT:
            log.info("%s cannot take the invitation now, asking again: %s", peer, body.reason)
            return None, True  # "not now": asked again until the window ends
        return body.accept, False

    async def handle_invite(self, stream: FramedStream) -> None:
        try:
            invite = await stream.receive_envelope()
            check_author(invite, stream.remote)
            body = invite.body
            if not isinstance(body, ChatInvite):
                raise ProtocolViolation(f"{stream.remote} sent {invite.type!r} on {PROTO_INVITE}")
        except (ProtocolViolation, InvalidMessage) as exc:
            await self._answer_malformed(stream, NO_CHAT, exc)
            return
        try:
            genesis, header = decode_genesis(body.genesis)
        except InvalidMessage as exc:  # answered under the ID its bytes would have
            await self._answer_malformed(stream, hashlib.sha256(body.genesis).digest(), exc)
            return
        chat_id = genesis.hash
        accept, reason = await self._decide(genesis, header, body, stream.remote)
        await self._reply(stream, chat_id, accept, reason)
        if accept:
            self.chats.sync.start_pull(chat_id, stream.remote)

    async def _reply(self, stream: FramedStream, chat_id: bytes, accept: bool, reason: str) -> None:
        reply = Envelope.create(
            self.chats.node.identity,
            build(ChatInviteReply, chat_id=chat_id, accept=accept, reason=reason[:1024]),
            seq=0,
            ts=self.chats.now_ms(),
        )
        await send(stream, reply.to_cbor())

    async def _answer_malformed(self, stream: FramedStream, chat_id: bytes, exc: IoAError) -> None:
        """A typed answer to a frame that is not a valid invitation (then the stream ends)."""
        self.chats.rejected += 1
        refusal = self.admission.refuse(rules.INVALID, f"not a valid chat.invite of the stream's peer: {exc}")
        log.info("refused a malformed invitation from %s: %s", stream.remote, exc)
        await self._reply(stream, chat_id, False, refusal.reason)

    async def _decide(
        self, genesis: Envelope, header: ChatGenesis, invite: ChatInvite, inviter: PeerId
    ) -> tuple[bool, str]:
        """Apply every rule, then ask the application; join the chat when accepted (only then is
        anything stored). Returns (accept, reason)."""
        chat_id = genesis.hash
        refusal = self._check_names(header, invite, inviter)
        if refusal is not None:
            return False, refusal.reason
        if self.chats.status(chat_id) == STATUS_MEMBER:
            return True, f"{rules.ALREADY_MEMBER}: this node is a member of the chat"
        refusal = self.admission.check_rate(inviter)
        if refusal is not None:
            return False, refusal.reason
        if chat_id in self._deciding:
            return False, f"{rules.BUSY}: another invitation to this chat is being checked"
        try:
            self._checks.acquire_nowait()
        except trio.WouldBlock:
            return False, f"{rules.BUSY}: this node is checking other invitations; ask again later"
        self._deciding.add(chat_id)
        stranger = not self.admission.is_partner(inviter)
        self.admission.checking_strangers += stranger
        try:
            return await self._check_and_ask(genesis, invite, inviter)
        finally:
            self.admission.checking_strangers -= stranger
            self._deciding.discard(chat_id)
            self._checks.release()

    def _check_names(self, header: ChatGenesis, invite: ChatInvite, inviter: PeerId) -> Refusal | None:
        if invite.added_by is not None:
            return None  # checked against the inviter's history later
        if self.chats.me not in header.members:
            return self.admission.refuse(
                rules.NOT_NAMED, "the genesis does not name this node and the invitation has no added_by"
            )
        if inviter not in header.members:
            return self.admission.refuse(rules.INVITER_NOT_MEMBER, "the inviter is not a member of the chat")
        return None

    async def _check_and_ask(
        self, genesis: Envelope, invite: ChatInvite, inviter: PeerId
    ) -> tuple[bool, str]:
        deadline = trio.current_time() + self.chats.config.invite_timeout  # bounds every check below
        refusal = await self.admission.check_policy(inviter)
        if refusal is not None:
            return False, refusal.reason
        verified: ChatHistory | None = None
        if invite.added_by is not None:
            left = max(0.5, deadline - trio.current_time())
            verified, why = await verify_added_by(
                self.chats.node, genesis, invite.added_by, inviter, within=left
            )
            if verified is None:
                return False, self.admission.refuse(rules.BAD_ADDED_BY, why).reason
        accept, reason = await self._ask_application(genesis)
        if accept:
            self.chats.join(genesis, genesis.hash, STATUS_MEMBER, inviter=inviter)
            if verified is not None:
                self.chats.adopt(verified, inviter)
        return accept, reason

    async def _ask_application(self, genesis: Envelope) -> tuple[bool, str]:
        try:
            with trio.fail_after(self.chats.config.invite_timeout):
                accept = bool(await self.policy(genesis))
        except trio.TooSlowError:
            return False, f"{rules.DECLINED}: the application did not decide in time"
        except Exception as exc:
            log.warning("invitation policy failed: %r", exc)
            return False, f"{rules.DECLINED}: the application could not decide"
        if accept:
            return True, f"{rules.ACCEPTED}: welcome"
        return False, f"{rules.DECLINED}: the application declined"

    def invite_added(self, chat_id: bytes, peer: PeerId, added_by: bytes) -> None:
        """Invite a member added by ``member.add`` message ``added_by``, in the background."""
        self._nursery.start_soon(self._invite_added, chat_id, peer, added_by)

    async def _invite_added(self, chat_id: bytes, peer: PeerId, added_by: bytes) -> None:
        with self.chats.node.faults.boundary("chat invitation", peer):
            hist = self.chats.get(chat_id)
            timeout = self.chats.config.invite_timeout
            answer = await self.call_invite(peer, hist.genesis, added_by, within=timeout)
            log.info("added member %s answered %s", peer, answer)


__all__ = [
    "INVITE_WAIT_MOST",
    "PROTO_INVITE",
    "RETRY_FIRST",
    "RETRY_MOST",
    "ChatInvites",
    "InvitePolicy",
    "accept_all",
]
