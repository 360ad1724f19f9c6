"""Group chats over direct Noise streams: the chat service, its state and the application API.

The service speaks three protocols (wire details in docs/protocol.md §10), one module each:
``invites`` (``/ioa/chat/invite/1.0.0``), ``delivery`` (``/ioa/chat/deliver/1.0.0``:
durable outbox, acks, retries with backoff) and ``sync`` (``/ioa/chat/sync/1.0.0``: pulls on
start, on (re)connect, periodically and on unknown parents); ``routes`` adds the control
routes, ``streams`` holds the bounded stream helpers they share, ``ports`` what they see of this
service, ``subscribers`` who hears of what it accepts. This module holds what they share: every
chat's history and status, the rules applied to a received message, the store.

:func:`~ioa_p2p.node.chats.run.open_chats` runs the service; the application uses :class:`Chats`
(``node.services.chats``):
``create_chat``, ``post``, ``subscribe``, ``set_invite_policy``, ``history``, ``list_chats``, ...

Config ``[chats]``: :class:`~ioa_p2p.node.chats.config.ChatsConfig` (timers, store, who may invite).
Pending messages are also bounded in bytes per chat and across chats, and sync work per peer per
period, by ``[limits]`` (``node.budgets``, :mod:`ioa_p2p.node.net.budgets`).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.budget import TRUST_STRANGER
from ioa_p2p.errors import Equivocation, HistoryViolation, UnknownChat, UsageError
from ioa_p2p.history.bodies import (
    KIND_MEMBER_ADD,
    KIND_MEMBER_LEAVE,
    KIND_MEMBER_REMOVE,
    ChatGenesis,
    ChatMessage,
    make_genesis,
)
from ioa_p2p.history.dag import ChatHistory, Entry, Ready
from ioa_p2p.history.file import export_history
from ioa_p2p.history.frames import (
    ACK_DECLINED,
    ACK_DUPLICATE,
    ACK_MISSING,
    ACK_REJECTED,
    ACK_STORED,
    ACK_UNKNOWN_CHAT,
    ChatAck,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.admission import POLICY_OPEN, Admission, DiscoveryDirectory
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.chats.delivery import ChatDelivery
from ioa_p2p.node.chats.invites import ChatHandle, ChatInvites, InvitePolicy
from ioa_p2p.node.chats.loading import chat_view, expire_idle, list_views, quarantine_view, rebuild, upgrade
from ioa_p2p.node.chats.partners import Partners
from ioa_p2p.node.chats.schema import message_row
from ioa_p2p.node.chats.store import STATUS_LEFT, STATUS_MEMBER, ChatStore
from ioa_p2p.node.chats.streams import make_ack
from ioa_p2p.node.chats.subscribers import Subscribers
from ioa_p2p.node.chats.sync import ChatSync
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.ports import DiscoveryPort, NodePort

log = logging.getLogger("ioa_p2p.chats")


class Chats:
    """The chat service of one node."""

    def __init__(
        self,
        node: NodePort,
        store: ChatStore,
        config: ChatsConfig,
        nursery: trio.Nursery,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        default_invite_policy: str = POLICY_OPEN,
        discovery: Callable[[], DiscoveryPort | None] = lambda: None,
    ) -> None:
        self.node = node
        self.me = node.peer_id
        self.store = store
        self.config = config
        self._clock = clock
        self.rng = rng or random.Random()
        self._histories: dict[bytes, ChatHistory] = {}
        self._status: dict[bytes, str] = {}
        self.subscribers = Subscribers()
        self.rejected = 0  # frames and messages refused (counted for tests and `ioa chats`)
        #: invited chats that expired without ever getting a message (``invite_idle_expiry``)
        self.expired = 0
        rules = config.invite_rules(default_invite_policy)
        self.partners = Partners(store, rules.allow)
        node.budgets.add_voucher(self.partners.trust)
        admission = Admission(
            rules,
            store,
            DiscoveryDirectory(discovery, clock),
            trio.current_time,  # monotonic, and virtual on a mock clock
            is_partner=self.partners.__contains__,
        )
        self.invites = ChatInvites(self, nursery, admission)
        self.delivery = ChatDelivery(self, nursery)
        self.sync = ChatSync(self, nursery)

    # ------------------------------------------------------------------ state

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    def load(self) -> None:
        """Read every chat's ID and status (one query): a history is rebuilt from the store when
        first used (:mod:`~ioa_p2p.node.chats.loading`), so start-up costs nothing per stored chat.
        A store written by an older version gets its topics and partners filled in once."""
        for chat_id, status in self.store.statuses():
            self._status[chat_id] = status
        upgrade(self.store, self.me, self.partners, self.now_ms())
        self.expire_idle_invitations()

    def _new_history(self, genesis: Envelope, chat_id: bytes) -> ChatHistory:
        budgets = self.node.budgets
        return ChatHistory(
            genesis,
            genesis_hash=chat_id,
            max_pending=self.config.max_pending,
            max_pending_bytes=budgets.limits.pending_bytes_per_chat,
            pending_budget=budgets.orphans,
            pending_trust=lambda source: (
                budgets.trust(source) if isinstance(source, PeerId) else TRUST_STRANGER
            ),
        )

    def find(self, chat_id: bytes) -> ChatHistory | None:
        hist = self._histories.get(chat_id)
        if hist is None and chat_id in self._status:  # stored, not used since the start: load it
            hist = rebuild(self.store, chat_id, self._new_history, self.now_ms())
            if hist is None:  # its genesis was unreadable: quarantined
                self._status.pop(chat_id, None)
                return None
            self._histories[chat_id] = hist
        return hist

    def get(self, chat_id: bytes) -> ChatHistory:
        hist = self.find(chat_id)
        if hist is None:
            raise UnknownChat(f"no chat {chat_id.hex()[:16]}... on this node; list chats with `ioa chats`")
        return hist

    def resolve(self, ref: str) -> bytes:
        """A chat ID from its hex form or a unique hex prefix."""
        ref = ref.strip().lower()
        found = [c for c in self._status if c.hex().startswith(ref)] if ref else []
        if not found:
            raise UnknownChat(f"no chat {ref!r} on this node; list chats with `ioa chats`")
        if len(found) > 1:
            raise UsageError(f"chat prefix {ref!r} is ambiguous ({len(found)} chats); give more characters")
        return found[0]

    def status(self, chat_id: bytes) -> str:
        return self._status.get(chat_id, "unknown")

    def member_chats(self) -> list[bytes]:
        """The chats this node is a member of (not declined, not left)."""
        return [c for c, s in self._status.items() if s == STATUS_MEMBER]

    def loaded_member_chats(self) -> list[bytes]:
        """The member chats used since the start (their histories are in memory)."""
        return [c for c in self._histories if self._status.get(c) == STATUS_MEMBER]

    def member_chats_with_topic(self, prefix: str) -> list[bytes]:
        """Member chats whose topic starts with ``prefix`` (read from the store, nothing loaded)."""
        return [c for c in self.store.chats_with_topic(prefix) if c in self._status]

    def history(self, chat_id: bytes) -> list[Envelope]:
        """Every message of the chat in causal order (genesis not included)."""
        return self.get(chat_id).envelopes()

    def list_chats(self) -> list[dict[str, Any]]:
        """Every chat (:func:`~ioa_p2p.node.chats.loading.list_views`: listing loads no chat)."""

        def info(chat_id: bytes) -> dict[str, Any] | None:
            return self.chat_info(chat_id) if self.find(chat_id) is not None else None

        return list_views(self.store, self._status, self._histories, info)

    def quarantine(self, chat_id: bytes | None = None) -> list[dict[str, Any]]:
        """Stored rows that could not be decoded and were kept aside (of one chat, or all)."""
        return quarantine_view(self.store, chat_id)

    def chat_info(self, chat_id: bytes) -> dict[str, Any]:
        row = self.store.chat(chat_id)
        return chat_view(self.get(chat_id), self.status(chat_id), row.inviter if row else None)

    def export(self, chat_id: bytes) -> bytes:
        """The history file: the history, then the stored equivocation evidence (protocol.md §10.7)."""
        evidence = [raw for pair in self.store.evidence(chat_id) for raw in pair]
        quarantined = [row.raw for row in self.store.quarantined(chat_id) if row.hash and row.raw]
        return export_history(self.get(chat_id), evidence, quarantined)

    def set_invite_policy(self, policy: InvitePolicy) -> None:
        """``async policy(genesis_envelope) -> bool`` decides whether to accept an invitation."""
        self.invites.policy = policy

    @asynccontextmanager
    async def subscribe(
        self, chat_id: bytes, *, replay: bool = False
    ) -> AsyncIterator[trio.MemoryReceiveChannel[Envelope]]:
        """A channel of the chat's new verified messages, each after its parents (causal order).
        ``replay``: first every message already held. Unbounded: drain it."""
        hist = self.get(chat_id)
        async with self.subscribers.messages(chat_id, hist.envelopes() if replay else ()) as channel:
            yield channel

    def subscribe_joins(self) -> AbstractAsyncContextManager[trio.MemoryReceiveChannel[bytes]]:
        """A channel of the IDs of chats this node joins from now on (created here or accepted
        invitations), sent as soon as the chat exists locally: subscribe to it with
        ``replay=True`` so no message that arrived in between is missed."""
        return self.subscribers.joins()

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, re-checked after every change (callers bound the wait)."""
        await self.subscribers.wait_until(predicate)

    def notify(self) -> None:
        self.subscribers.notify()

    # ------------------------------------------------------------------ storing

    def _persist(self, entry: Entry) -> None:
        self.store.insert_message(message_row(entry))

    def accept(self, env: Envelope, digest: bytes, remote: PeerId, size: int | None = None) -> ChatAck:
        """Verify-checked envelope from ``remote`` (``size`` encoded bytes) -> rules, persist,
        publish; the ack to send. A message whose parents are missing is answered ``missing``
        (never ``stored``), whether the pending set kept it or its budget refused it."""
        body = env.body
        if not isinstance(body, ChatMessage):
            return make_ack(digest, ACK_REJECTED, reason=f"{env.type!r} is not a chat message")
        status = self._status.get(body.chat_id)
        if status is None:
            return make_ack(digest, ACK_UNKNOWN_CHAT, reason="this node does not know the chat")
        if status != STATUS_MEMBER:
            return make_ack(digest, ACK_DECLINED, reason=f"this node is {status}")
        hist = self.get(body.chat_id)
        if remote not in hist.ever_members():
            return make_ack(digest, ACK_REJECTED, reason=f"{remote} is not a member of the chat")
        try:
            result = hist.add(env, digest, persist=self._persist, source=remote, size=size)
        except HistoryViolation as exc:
            self._record_violation(body.chat_id, exc)
            return make_ack(digest, ACK_REJECTED, reason=f"{exc.code}: {exc}")
        for _, problem in result.rejected:
            self._record_violation(body.chat_id, problem)
        if result.stored:
            self.sync.quiet.active(body.chat_id)
            self.subscribers.publish(result.stored)
        if result.duplicate:
            return make_ack(digest, ACK_DUPLICATE)
        if result.missing:
            self.sync.pull_on_missing(body.chat_id, remote)
            return make_ack(digest, ACK_MISSING, missing=result.missing)
        return make_ack(digest, ACK_STORED)

    def _record_violation(self, chat_id: bytes, exc: HistoryViolation) -> None:
        self.rejected += 1
        if isinstance(exc, Equivocation):
            first, second = exc.first, exc.second
            assert isinstance(first, Envelope) and isinstance(second, Envelope)
            self.store.add_evidence(chat_id, first.to_cbor(), second.to_cbor())
            log.warning("equivocation in chat %s: %s", chat_id.hex()[:16], exc)
        else:
            log.info("rejected a chat message: %s", exc)

    # ------------------------------------------------------------------ application API

    async def create_chat(
        self,
        members: Iterable[PeerId],
        topic: str,
        parent: bytes | None = None,
        *,
        invite_timeout: float | None = None,
        remove_decliners: bool = True,
    ) -> ChatHandle:
        """Create a chat, invite every member concurrently and wait (bounded) for the answers.
        Decliners are removed with ``member.remove`` messages unless ``remove_decliners`` is off;
        members that did not answer stay members (deliveries re-invite them later)."""
        others = sorted({m for m in members if m != self.me})
        genesis = make_genesis(
            self.node.identity,
            others,
            topic,
            now_ms=self.now_ms(),
            nonce=secrets.token_bytes(16),
            parent=parent,
        )
        chat_id = genesis.hash
        self.join(genesis, chat_id, STATUS_MEMBER)
        self.partners.add(others, self.now_ms())
        timeout = self.config.invite_timeout if invite_timeout is None else invite_timeout
        handle = await self.invites.invite_all(others, genesis, within=timeout)
        if remove_decliners:
            for peer in handle.declined:
                await self.post(chat_id, KIND_MEMBER_REMOVE, {"member": peer.raw})
        return handle

    async def post(self, chat_id: bytes, kind: str, content: dict[str, Any]) -> Envelope:
        """Sign, persist (with its outbox rows) and queue a message for every member; returns it
        once stored locally (delivery continues in the background until acknowledged)."""
        hist = self.get(chat_id)
        if self._status.get(chat_id) != STATUS_MEMBER:
            raise UsageError(f"this node is {self.status(chat_id)} in chat {chat_id.hex()[:16]}...")
        if self.me not in hist.members():
            raise UsageError(f"this node is no longer a member of chat {chat_id.hex()[:16]}...")
        env = hist.compose(self.node.identity, kind, content, now_ms=self.now_ms())
        before = hist.members()
        verdict = hist.classify(env)
        if not isinstance(verdict, Ready):  # pragma: no cover - composed on our own heads
            raise UsageError(f"could not compose a message on chat {chat_id.hex()[:16]}...")
        entry = verdict.entry
        added = PeerId.from_bytes(entry.msg.content["member"]) if kind == KIND_MEMBER_ADD else None
        recipients = sorted((before | {added} if added is not None else before) - {self.me})
        self.store.insert_own(message_row(entry), recipients, self.now_ms())
        self.partners.add(recipients, self.now_ms())
        hist.commit(entry)
        self.sync.quiet.active(chat_id)
        self.subscribers.publish([entry])
        for peer in recipients:
            self.delivery.wake(peer)
        if kind == KIND_MEMBER_LEAVE:
            self._status[chat_id] = STATUS_LEFT
            self.store.set_status(chat_id, STATUS_LEFT)
        if added is not None:
            self.invites.invite_added(chat_id, added, entry.hash)
        return env

    async def add_member(self, chat_id: bytes, peer: PeerId) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_ADD, {"member": peer.raw})

    async def remove_member(self, chat_id: bytes, peer: PeerId) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_REMOVE, {"member": peer.raw})

    async def leave(self, chat_id: bytes) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_LEAVE, {})

    def join(
        self, genesis: Envelope, chat_id: bytes, status: str, *, inviter: PeerId | None = None
    ) -> ChatHistory:
        """Record the chat (``inviter``: whose invitation this node accepted; None when created here)."""
        hist = self.find(chat_id)
        topic = genesis.body.topic if isinstance(genesis.body, ChatGenesis) else None
        self.store.add_chat(chat_id, genesis.to_cbor(), status, self.now_ms(), inviter, topic)
        if hist is None:
            hist = self._new_history(genesis, chat_id)
            self._histories[chat_id] = hist
        joined = status == STATUS_MEMBER and self._status.get(chat_id) != STATUS_MEMBER
        self._status[chat_id] = status
        if joined:
            self.subscribers.joined(chat_id)
        self.notify()
        return hist

    def adopt(self, verified: ChatHistory, remote: PeerId) -> int:
        """Accept, as if received from ``remote``, the messages of a detached history pulled to check
        an invitation (:mod:`~ioa_p2p.node.chats.verify`); returns how many were stored."""
        acks = [self.accept(e.env, e.hash, remote) for e in verified.entries()]
        return sum(ack.status == ACK_STORED for ack in acks)

    def expire_idle_invitations(self) -> list[bytes]:
        """Forget the invited chats that never got a message (``invite_idle_expiry``; see
        :func:`~ioa_p2p.node.chats.loading.expire_idle`). A chat in use is kept."""

        def in_use(chat_id: bytes) -> bool:
            hist = self._histories.get(chat_id)
            busy = hist is not None and bool(len(hist) or hist.pending_count)
            return busy or self.subscribers.watched(chat_id)

        expired = expire_idle(self.store, self.now_ms() - int(self.config.invite_idle_expiry * 1000), in_use)
        for chat_id in expired:
            self._status.pop(chat_id, None)
            self._histories.pop(chat_id, None)
        if expired:
            self.expired += len(expired)
            self.notify()
        return expired

    # ------------------------------------------------------------------ collaborators

    async def sync_now(self, chat_id: bytes | None = None, *, connected_only: bool = False) -> int:
        """Pull every loaded chat (or one) from its members now, members in back-off included;
        returns messages received."""
        return await self.sync.sync_now(chat_id, connected_only=connected_only, force=True)

    async def resume(self) -> None:
        """After a start (or a crash): restart deliveries from the outbox and pull the recently
        active chats (:meth:`~ioa_p2p.node.chats.sync.ChatSync.resume`)."""
        for peer in self.store.outbox_peers():
            self.delivery.wake(peer)
        await self.sync.resume()


__all__ = ["ChatHandle", "Chats"]
