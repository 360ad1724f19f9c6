"""Group chats over direct Noise streams: invitations, delivery with acks, sync, control routes.

Protocols (wire details in docs/protocol-chat.md):

- ``/ioa/chat/invite/1.0.0``  inviter sends a signed ``chat.invite`` (genesis inside); the invitee's
  application policy decides; it answers a signed ``chat.invite_reply``.
- ``/ioa/chat/deliver/1.0.0`` the sender streams ``chat.msg`` envelopes; the receiver verifies,
  checks the chat rules, **persists**, then answers one ``chat.ack`` control frame per message, in
  order. Unacknowledged deliveries stay in the durable outbox and are retried with exponential
  backoff (with jitter) until acknowledged; ``missing`` acks make the sender push the parents first.
- ``/ioa/chat/sync/1.0.0``    pull: the requester sends its per-author highest seq
  (``chat.sync_req``); the responder answers a ``chat.sync_batch`` header and that many envelopes
  in causal order. Pulls run on start, when a peer (re)connects, periodically, and when a
  delivered message names unknown parents.

``open_chats(node)`` runs the service; the application uses :class:`Chats` (``node.services["chats"]``):
``create_chat``, ``post``, ``subscribe``, ``set_invite_policy``, ``history``, ``list_chats``, ...

Config ``[chats]``: ``sync_interval`` (s, 10), ``retry_initial`` (0.5), ``retry_max`` (30),
``invite_timeout`` (10), ``stream_timeout`` (10), ``fsync`` (false), ``max_pending`` (10000).
"""

from __future__ import annotations

import base64
import logging
import math
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.chat import (
    ACK_DECLINED,
    ACK_DUPLICATE,
    ACK_MISSING,
    ACK_REJECTED,
    ACK_STORED,
    ACK_UNKNOWN_CHAT,
    KIND_MEMBER_ADD,
    KIND_MEMBER_LEAVE,
    KIND_MEMBER_REMOVE,
    MAX_CHAT_MESSAGE_SIZE,
    ChatAck,
    ChatGenesis,
    ChatInvite,
    ChatInviteReply,
    ChatMessage,
    SyncBatch,
    SyncRequest,
    build,
    check_author,
    decode_control,
    decode_genesis,
    encode_control,
    make_genesis,
)
from ioa_p2p.errors import (
    ConfigError,
    Equivocation,
    HistoryViolation,
    InvalidMessage,
    IoAError,
    IoATimeout,
    MessageTooLarge,
    PeerClosed,
    ProtocolViolation,
    UnknownChat,
    UsageError,
)
from ioa_p2p.history import ChatHistory, Entry, Ready
from ioa_p2p.history_file import export_history
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import Envelope

from .control import ControlRequest
from .framing import FramedStream
from .store import STATUS_DECLINED, STATUS_LEFT, STATUS_MEMBER, ChatStore, MessageRow

if TYPE_CHECKING:
    from .node import Node

log = logging.getLogger("ioa_p2p.chats")

PROTO_INVITE = "/ioa/chat/invite/1.0.0"
PROTO_DELIVER = "/ioa/chat/deliver/1.0.0"
PROTO_SYNC = "/ioa/chat/sync/1.0.0"
BATCH = 256
SYNC_LIMIT = 500
IDLE_CLOSE = 5.0
ACK_TIMEOUT = 30.0

InvitePolicy = Callable[[Envelope], Awaitable[bool]]


async def accept_all(genesis: Envelope) -> bool:
    """The default invitation policy."""
    return True


@dataclass(frozen=True, slots=True)
class ChatsConfig:
    sync_interval: float = 10.0
    retry_initial: float = 0.5
    retry_max: float = 30.0
    invite_timeout: float = 10.0
    stream_timeout: float = 10.0
    fsync: bool = False
    max_pending: int = 10_000

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> ChatsConfig:
        fields = cls.__dataclass_fields__
        unknown = sorted(set(section) - set(fields))
        if unknown:
            raise ConfigError(f"unknown keys in [chats]: {unknown} (known: {sorted(fields)})")
        values: dict[str, Any] = {}
        for name, value in section.items():
            default = getattr(cls(), name)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"[chats].{name} must be true or false")
            elif isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"[chats].{name} must be a positive number")
            values[name] = type(default)(value)
        return cls(**values)


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


class Chats:
    """The chat service of one node."""

    def __init__(
        self,
        node: Node,
        store: ChatStore,
        config: ChatsConfig,
        nursery: trio.Nursery,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.node = node
        self.me = node.peer_id
        self.store = store
        self.config = config
        self._nursery = nursery
        self._clock = clock
        self._rng = rng or random.Random()
        self._histories: dict[bytes, ChatHistory] = {}
        self._status: dict[bytes, str] = {}
        self._subscribers: dict[bytes, list[trio.MemorySendChannel[Envelope]]] = {}
        self._join_subscribers: list[trio.MemorySendChannel[bytes]] = []
        self._wake: dict[PeerId, trio.Event] = {}
        self._pulling: set[tuple[bytes, PeerId]] = set()
        self._changed = trio.Event()
        self._policy: InvitePolicy = accept_all
        self.rejected = 0  # frames and messages refused (counted for tests and `ioa chats`)

    # ------------------------------------------------------------------ state

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    def load(self) -> None:
        """Rebuild every chat from the store (trusted local data: signatures not re-checked)."""
        for row in self.store.chats():
            genesis = Envelope.from_cbor(row.genesis, verify=False)
            hist = ChatHistory(genesis, genesis_hash=row.chat_id, max_pending=self.config.max_pending)
            for msg in self.store.messages(row.chat_id):
                hist.add(Envelope.from_cbor(msg.raw, verify=False), msg.hash)
            self._histories[row.chat_id] = hist
            self._status[row.chat_id] = row.status

    def get(self, chat_id: bytes) -> ChatHistory:
        hist = self._histories.get(chat_id)
        if hist is None:
            raise UnknownChat(f"no chat {chat_id.hex()[:16]}... on this node; list chats with `ioa chats`")
        return hist

    def resolve(self, ref: str) -> bytes:
        """A chat ID from its hex form or a unique hex prefix."""
        ref = ref.strip().lower()
        found = [c for c in self._histories if c.hex().startswith(ref)] if ref else []
        if not found:
            raise UnknownChat(f"no chat {ref!r} on this node; list chats with `ioa chats`")
        if len(found) > 1:
            raise UsageError(f"chat prefix {ref!r} is ambiguous ({len(found)} chats); give more characters")
        return found[0]

    def status(self, chat_id: bytes) -> str:
        return self._status.get(chat_id, "unknown")

    def history(self, chat_id: bytes) -> list[Envelope]:
        """Every message of the chat in causal order (genesis not included)."""
        return self.get(chat_id).envelopes()

    def list_chats(self) -> list[dict[str, Any]]:
        return [self.chat_info(c) for c in self._histories]

    def chat_info(self, chat_id: bytes) -> dict[str, Any]:
        hist = self.get(chat_id)
        return {
            "chat_id": chat_id.hex(),
            "topic": hist.topic,
            "creator": str(hist.creator),
            "parent": hist.genesis_body.parent.hex() if hist.genesis_body.parent else None,
            "members": sorted(str(m) for m in hist.members()),
            "status": self.status(chat_id),
            "messages": len(hist),
            "pending": hist.pending_count,
            "heads": [h.hex() for h in hist.heads()],
            "created_ms": hist.genesis.ts,
        }

    def export(self, chat_id: bytes) -> bytes:
        return export_history(self.get(chat_id))

    def set_invite_policy(self, policy: InvitePolicy) -> None:
        """``async policy(genesis_envelope) -> bool`` decides whether to accept an invitation."""
        self._policy = policy

    @asynccontextmanager
    async def subscribe(
        self, chat_id: bytes, *, replay: bool = False
    ) -> AsyncIterator[trio.MemoryReceiveChannel[Envelope]]:
        """A channel of the chat's new verified messages, each after its parents (causal order).
        ``replay``: first every message already held. Unbounded: drain it."""
        hist = self.get(chat_id)
        send, receive = trio.open_memory_channel[Envelope](math.inf)
        if replay:
            for env in hist.envelopes():
                send.send_nowait(env)
        self._subscribers.setdefault(chat_id, []).append(send)
        try:
            yield receive
        finally:
            self._subscribers[chat_id].remove(send)
            send.close()

    @asynccontextmanager
    async def subscribe_joins(self) -> AsyncIterator[trio.MemoryReceiveChannel[bytes]]:
        """A channel of the IDs of chats this node joins from now on (created here or accepted
        invitations), sent as soon as the chat exists locally: subscribe to it with
        ``replay=True`` so no message that arrived in between is missed."""
        send, receive = trio.open_memory_channel[bytes](math.inf)
        self._join_subscribers.append(send)
        try:
            yield receive
        finally:
            self._join_subscribers.remove(send)
            send.close()

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, re-checked after every change (callers bound the wait)."""
        while not predicate():
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # ------------------------------------------------------------------ storing

    def _persist(self, entry: Entry) -> None:
        self.store.insert_message(_row(entry))

    def _publish(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            for send in self._subscribers.get(entry.msg.chat_id, ()):
                send.send_nowait(entry.env)
        self._notify()

    def accept(self, env: Envelope, digest: bytes, remote: PeerId) -> ChatAck:
        """Verify-checked envelope from ``remote`` -> rules, persist, publish; the ack to send."""
        body = env.body
        if not isinstance(body, ChatMessage):
            return _ack(digest, ACK_REJECTED, reason=f"{env.type!r} is not a chat message")
        hist = self._histories.get(body.chat_id)
        if hist is None:
            return _ack(digest, ACK_UNKNOWN_CHAT, reason="this node does not know the chat")
        if self._status.get(body.chat_id) != STATUS_MEMBER:
            return _ack(digest, ACK_DECLINED, reason=f"this node is {self.status(body.chat_id)}")
        if remote not in hist.ever_members():
            return _ack(digest, ACK_REJECTED, reason=f"{remote} is not a member of the chat")
        try:
            result = hist.add(env, digest, persist=self._persist)
        except HistoryViolation as exc:
            self._record_violation(body.chat_id, exc)
            return _ack(digest, ACK_REJECTED, reason=f"{exc.code}: {exc}")
        for _, problem in result.rejected:
            self._record_violation(body.chat_id, problem)
        if result.stored:
            self._publish(result.stored)
        if result.duplicate:
            return _ack(digest, ACK_DUPLICATE)
        if result.missing:
            self._start_pull(body.chat_id, remote)
            return _ack(digest, ACK_MISSING, missing=result.missing)
        return _ack(digest, ACK_STORED)

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
        self._join(genesis, chat_id, STATUS_MEMBER)
        answers: dict[PeerId, bool | None] = {}
        timeout = self.config.invite_timeout if invite_timeout is None else invite_timeout

        async def ask(peer: PeerId) -> None:
            answers[peer] = await self.call_invite(peer, genesis, None, within=timeout)

        async with trio.open_nursery() as nursery:
            for peer in others:
                nursery.start_soon(ask, peer)
        accepted = tuple(p for p in others if answers.get(p) is True)
        declined = tuple(p for p in others if answers.get(p) is False)
        unanswered = tuple(p for p in others if answers.get(p) is None)
        if remove_decliners:
            for peer in declined:
                await self.post(chat_id, KIND_MEMBER_REMOVE, {"member": peer.raw})
        return ChatHandle(chat_id, genesis, accepted, declined, unanswered)

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
        after = self._members_after(hist, entry, before)
        recipients = sorted((before | after) - {self.me})
        self.store.insert_own(_row(entry), recipients, self.now_ms())
        hist.commit(entry)
        self._publish([entry])
        for peer in recipients:
            self._wake_delivery(peer)
        if kind == KIND_MEMBER_LEAVE:
            self._status[chat_id] = STATUS_LEFT
            self.store.set_status(chat_id, STATUS_LEFT)
        if kind == KIND_MEMBER_ADD:
            added = PeerId.from_bytes(content["member"])
            self._nursery.start_soon(self._invite_added, chat_id, added, entry.hash)
        return env

    @staticmethod
    def _members_after(hist: ChatHistory, entry: Entry, before: frozenset[PeerId]) -> frozenset[PeerId]:
        msg = entry.msg
        if msg.kind == KIND_MEMBER_ADD:
            return before | {PeerId.from_bytes(msg.content["member"])}
        return before

    async def add_member(self, chat_id: bytes, peer: PeerId) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_ADD, {"member": peer.raw})

    async def remove_member(self, chat_id: bytes, peer: PeerId) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_REMOVE, {"member": peer.raw})

    async def leave(self, chat_id: bytes) -> Envelope:
        return await self.post(chat_id, KIND_MEMBER_LEAVE, {})

    def _join(self, genesis: Envelope, chat_id: bytes, status: str) -> ChatHistory:
        hist = self._histories.get(chat_id)
        self.store.add_chat(chat_id, genesis.to_cbor(), status, self.now_ms())
        if hist is None:
            hist = ChatHistory(genesis, genesis_hash=chat_id, max_pending=self.config.max_pending)
            self._histories[chat_id] = hist
        joined = status == STATUS_MEMBER and self._status.get(chat_id) != STATUS_MEMBER
        self._status[chat_id] = status
        if joined:
            for send in self._join_subscribers:
                send.send_nowait(chat_id)
        self._notify()
        return hist

    # ------------------------------------------------------------------ invitations

    async def call_invite(
        self, peer: PeerId, genesis: Envelope, added_by: bytes | None, *, within: float
    ) -> bool | None:
        """Invite ``peer``: True accepted, False declined, None no valid answer in time."""
        invite = Envelope.create(
            self.node.identity,
            build(ChatInvite, genesis=genesis.to_cbor(), added_by=added_by),
            seq=0,
            ts=self.now_ms(),
        )
        try:
            with trio.fail_after(within):
                stream = await self.node.open_stream(peer, PROTO_INVITE)
                async with stream:
                    await _send(stream, invite.to_cbor())
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
        if accept or chat_id not in self._histories:
            self._join(genesis, chat_id, STATUS_MEMBER if accept else STATUS_DECLINED)
        reply = Envelope.create(
            self.node.identity,
            build(ChatInviteReply, chat_id=chat_id, accept=accept, reason=reason),
            seq=0,
            ts=self.now_ms(),
        )
        await _send(stream, reply.to_cbor())
        if accept:
            self._start_pull(chat_id, stream.remote)

    async def _decide(
        self, genesis: Envelope, header: ChatGenesis, invite: ChatInvite, inviter: PeerId
    ) -> tuple[bool, str]:
        if self.me not in header.members and invite.added_by is None:
            return False, "this peer is not a member of that chat"
        if invite.added_by is None and inviter not in header.members:
            return False, "the inviter is not a member of that chat"
        if self._status.get(genesis.hash) == STATUS_MEMBER:
            return True, "already a member"
        try:
            with trio.fail_after(self.config.invite_timeout):
                accept = bool(await self._policy(genesis))
        except trio.TooSlowError:
            return False, "the application did not decide in time"
        except Exception as exc:
            log.warning("invitation policy failed: %r", exc)
            return False, "the application could not decide"
        return accept, "accepted" if accept else "declined"

    async def _invite_added(self, chat_id: bytes, peer: PeerId, added_by: bytes) -> None:
        hist = self.get(chat_id)
        answer = await self.call_invite(peer, hist.genesis, added_by, within=self.config.invite_timeout)
        log.info("added member %s answered %s", peer, answer)

    async def _open(self, peer: PeerId, protocol: str) -> FramedStream:
        try:
            with trio.fail_after(self.config.stream_timeout):
                return await self.node.open_stream(peer, protocol)
        except trio.TooSlowError:
            raise IoATimeout(f"opening {protocol} to {peer} took too long") from None

    # ------------------------------------------------------------------ delivery (sender)

    def _wake_delivery(self, peer: PeerId) -> None:
        event = self._wake.get(peer)
        if event is None:
            self._wake[peer] = trio.Event()
            self._nursery.start_soon(self._delivery_worker, peer)
        else:
            event.set()

    async def _delivery_worker(self, peer: PeerId) -> None:
        """Deliver ``peer``'s outbox until acknowledged, forever (retries with backoff)."""
        delay = self.config.retry_initial
        while True:
            self._wake[peer] = trio.Event()
            if not self.store.outbox(peer, limit=1):
                await self._wake[peer].wait()
                continue
            try:
                await self._deliver_session(peer)
                delay = self.config.retry_initial
            except (IoAError, trio.TooSlowError) as exc:
                log.debug("delivery to %s failed (%s); retry in %.1f s", peer, exc, delay)
                with trio.move_on_after(delay * (0.5 + self._rng.random())):
                    await self._wake[peer].wait()  # a reconnect wakes the worker early
                delay = min(delay * 2, self.config.retry_max)

    async def _deliver_session(self, peer: PeerId) -> None:
        stream = await self._open(peer, PROTO_DELIVER)
        async with stream:
            while True:
                items = self.store.outbox(peer, limit=BATCH)
                if not items:
                    self._wake[peer] = trio.Event()
                    with trio.move_on_after(IDLE_CLOSE) as idle:
                        await self._wake[peer].wait()
                    if idle.cancelled_caught:
                        return
                    continue
                await self._deliver_batch(stream, peer, items)

    async def _deliver_batch(
        self, stream: FramedStream, peer: PeerId, items: list[tuple[bytes, bytes]]
    ) -> None:
        frames, sent = [], []
        for chat_id, digest in items:
            raw = self.store.message_raw(digest)
            if raw is None:  # pragma: no cover - outbox rows join messages
                continue
            frames.append(raw)
            sent.append((chat_id, digest))
        await _send(stream, *frames)
        done: list[bytes] = []
        with _within(ACK_TIMEOUT, f"acknowledgements from {peer}"):
            for chat_id, digest in sent:
                ack = decode_control(await stream.receive(), ChatAck)
                if ack.hash != digest:
                    raise ProtocolViolation(f"{peer} acknowledged the wrong message")
                await self._on_ack(peer, chat_id, digest, ack, done)
        self.store.acked(done, peer)
        self._notify()

    async def _on_ack(
        self, peer: PeerId, chat_id: bytes, digest: bytes, ack: ChatAck, done: list[bytes]
    ) -> None:
        if ack.status in (ACK_STORED, ACK_DUPLICATE):
            done.append(digest)
        elif ack.status == ACK_MISSING:
            hist = self._histories.get(chat_id)
            have = [m for m in ack.missing if hist is not None and m in hist]
            self.store.add_outbox(chat_id, have, peer, self.now_ms())
        elif ack.status == ACK_REJECTED:
            log.warning("%s rejected message %s: %s", peer, digest.hex()[:16], ack.reason)
            done.append(digest)
        elif ack.status == ACK_DECLINED:
            self.store.drop_outbox(chat_id, peer)
        elif ack.status == ACK_UNKNOWN_CHAT:
            hist = self.get(chat_id)
            if peer not in hist.members():  # e.g. removed before it ever answered: let it be
                self.store.drop_outbox(chat_id, peer)
                return
            answer = await self.call_invite(
                peer, hist.genesis, _added_by(hist, peer), within=self.config.invite_timeout
            )
            if answer is False:
                self.store.drop_outbox(chat_id, peer)
            elif answer is None:
                raise IoATimeout(f"{peer} does not know chat {chat_id.hex()[:16]} and did not answer")

    # ------------------------------------------------------------------ delivery (receiver)

    async def handle_deliver(self, stream: FramedStream) -> None:
        while True:
            try:
                data = await stream.receive(max_size=MAX_CHAT_MESSAGE_SIZE)
            except PeerClosed:
                return
            except MessageTooLarge as exc:
                self.rejected += 1
                await _send(stream, encode_control(_ack(b"", ACK_REJECTED, reason=str(exc))))
                raise  # the oversize frame cannot be skipped reliably: end this stream
            try:
                env = Envelope.from_cbor(data)
            except InvalidMessage as exc:
                self.rejected += 1
                await _send(
                    stream, encode_control(_ack(b"", ACK_REJECTED, reason=f"{type(exc).__name__}: {exc}"))
                )
                continue
            await _send(stream, encode_control(self.accept(env, env.hash, stream.remote)))

    # ------------------------------------------------------------------ sync

    def _start_pull(self, chat_id: bytes, peer: PeerId) -> None:
        if peer == self.me or (chat_id, peer) in self._pulling:
            return
        self._pulling.add((chat_id, peer))
        self._nursery.start_soon(self._pull_task, chat_id, peer)

    async def _pull_task(self, chat_id: bytes, peer: PeerId) -> None:
        try:
            await self.pull(chat_id, peer)
        except (IoAError, trio.TooSlowError) as exc:
            log.debug("sync of %s from %s failed: %s", chat_id.hex()[:16], peer, exc)
        finally:
            self._pulling.discard((chat_id, peer))

    async def pull(self, chat_id: bytes, peer: PeerId) -> int:
        """Fetch from ``peer`` every message of the chat this node lacks; returns how many."""
        hist = self.get(chat_id)
        received = 0
        stream = await self._open(peer, PROTO_SYNC)
        async with stream:
            while True:
                with _within(ACK_TIMEOUT, f"sync of {chat_id.hex()[:16]} from {peer}"):
                    version = hist.version()
                    authors = sorted(version)
                    request = build(
                        SyncRequest,
                        chat_id=chat_id,
                        authors=tuple(authors),
                        seqs=tuple(version[a] for a in authors),
                        limit=SYNC_LIMIT,
                    )
                    await _send(stream, encode_control(request))
                    header = decode_control(await stream.receive(), SyncBatch)
                    if header.status != "ok" or header.count > SYNC_LIMIT:
                        return received
                    for _ in range(header.count):
                        data = await stream.receive(max_size=MAX_CHAT_MESSAGE_SIZE)
                        try:
                            env = Envelope.from_cbor(data)
                        except InvalidMessage as exc:
                            raise ProtocolViolation(
                                f"{peer} sent an invalid message in sync: {exc}"
                            ) from None
                        ack = self.accept(env, env.hash, peer)
                        received += ack.status == ACK_STORED
                    if not header.more or header.count == 0:
                        return received

    async def handle_sync(self, stream: FramedStream) -> None:
        while True:
            try:
                data = await stream.receive()
            except PeerClosed:
                return
            try:
                request = decode_control(data, SyncRequest)
            except InvalidMessage as exc:
                raise ProtocolViolation(f"{stream.remote} sent a bad sync request: {exc}") from None
            hist = self._histories.get(request.chat_id)
            if hist is None:
                await _send(stream, encode_control(_batch(request.chat_id, "unknown-chat")))
                continue
            if stream.remote not in hist.members():
                await _send(stream, encode_control(_batch(request.chat_id, "not-member")))
                continue
            have = dict(zip(request.authors, request.seqs, strict=True))
            entries, more = hist.messages_after(have, min(request.limit, SYNC_LIMIT))
            header = build(SyncBatch, chat_id=request.chat_id, status="ok", count=len(entries), more=more)
            await _send(stream, encode_control(header), *(e.env.to_cbor() for e in entries))

    async def sync_now(self, chat_id: bytes | None = None, *, connected_only: bool = False) -> int:
        """Pull every chat (or one) from its members now; returns messages received."""
        chat_ids = [chat_id] if chat_id else [c for c, s in self._status.items() if s == STATUS_MEMBER]
        total = 0

        async def one(cid: bytes, peer: PeerId) -> None:
            nonlocal total
            try:
                total += await self.pull(cid, peer)
            except (IoAError, trio.TooSlowError) as exc:
                log.debug("sync of %s from %s failed: %s", cid.hex()[:16], peer, exc)

        async with trio.open_nursery() as nursery:
            for cid in chat_ids:
                for peer in sorted(self.get(cid).members() - {self.me}):
                    if connected_only and not self.node.is_connected(peer):
                        continue
                    nursery.start_soon(one, cid, peer)
        return total

    # ------------------------------------------------------------------ background loops

    async def run_periodic_sync(self) -> None:
        while True:
            await trio.sleep(self.config.sync_interval * (0.75 + 0.5 * self._rng.random()))
            await self.sync_now(connected_only=True)

    async def run_connection_watch(self, interval: float = 0.5) -> None:
        """On every new connection: pull shared chats from that peer and retry its deliveries."""
        known: set[PeerId] = set(self.node.connected_peers())
        while True:
            await trio.sleep(interval)
            current = set(self.node.connected_peers())
            for peer in current - known:
                self.on_connected(peer)
            known = current

    def on_connected(self, peer: PeerId) -> None:
        for chat_id, hist in self._histories.items():
            if self._status.get(chat_id) == STATUS_MEMBER and peer in hist.members():
                self._start_pull(chat_id, peer)
        if peer in self._wake:
            self._wake[peer].set()

    async def resume(self) -> None:
        """After a start (or a crash): restart deliveries from the outbox and pull every chat."""
        for peer in self.store.outbox_peers():
            self._wake_delivery(peer)
        await self.sync_now()


SEND_TIMEOUT = 30.0


async def _send(stream: FramedStream, *frames: bytes) -> None:
    """Write frames in one write; a peer that stops reading cannot block us for ever."""
    with _within(SEND_TIMEOUT, f"sending to {stream.remote}"):
        await stream.send_many(frames)


@contextmanager
def _within(seconds: float, what: str) -> Iterator[None]:
    """``trio.fail_after`` translated into IoATimeout."""
    try:
        with trio.fail_after(seconds):
            yield
    except trio.TooSlowError:
        raise IoATimeout(f"{what} took longer than {seconds:.0f} s") from None


def _added_by(hist: ChatHistory, peer: PeerId) -> bytes | None:
    """The hash of the latest member.add of ``peer`` (None when the genesis names it)."""
    if peer in hist.genesis_body.members:
        return None
    for entry in reversed(hist.entries()):
        msg = entry.msg
        if msg.kind == KIND_MEMBER_ADD and msg.content["member"] == peer.raw:
            return entry.hash
    return None


def _row(entry: Entry) -> MessageRow:
    env = entry.env
    msg = entry.msg
    return MessageRow(
        entry.hash, msg.chat_id, env.author.raw, env.seq, entry.depth, env.ts, msg.kind, env.to_cbor()
    )


def _ack(digest: bytes, status: str, *, missing: tuple[bytes, ...] = (), reason: str = "") -> ChatAck:
    return build(ChatAck, hash=digest, status=status, missing=missing[:128], reason=reason[:500])


def _batch(chat_id: bytes, status: str) -> SyncBatch:
    return build(SyncBatch, chat_id=chat_id, status=status, count=0, more=False)


# --------------------------------------------------------------------------- control API


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


def message_view(env: Envelope) -> dict[str, Any]:
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


def _add_routes(node: Node, chats: Chats) -> None:
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

    node.control.add_route("GET", "/chats", get_chats)
    node.control.add_route("GET", "/chats/history", get_history)
    node.control.add_route("GET", "/chats/export", get_export)
    node.control.add_route("POST", "/chats/post", post_message)
    node.control.add_route("POST", "/chats/create", post_create)
    node.control.add_route("POST", "/chats/sync", post_sync)


# --------------------------------------------------------------------------- service


@asynccontextmanager
async def open_chats(node: Node) -> AsyncIterator[Chats]:
    """The chat service: store, handlers, routes, deliveries, sync loops (until the node stops)."""
    config = ChatsConfig.from_section(node.config.section("chats"))
    store = ChatStore.open(node.home, fsync=config.fsync)
    try:
        async with trio.open_nursery() as nursery:
            chats = Chats(node, store, config, nursery)
            chats.load()
            node.set_stream_handler(PROTO_INVITE, chats.handle_invite)
            node.set_stream_handler(PROTO_DELIVER, chats.handle_deliver)
            node.set_stream_handler(PROTO_SYNC, chats.handle_sync)
            _add_routes(node, chats)
            node.services["chats"] = chats
            nursery.start_soon(chats.resume)
            nursery.start_soon(chats.run_periodic_sync)
            nursery.start_soon(chats.run_connection_watch)
            try:
                yield chats
            finally:
                nursery.cancel_scope.cancel()
    finally:
        store.close()


__all__ = [
    "PROTO_DELIVER",
    "PROTO_INVITE",
    "PROTO_SYNC",
    "ChatHandle",
    "Chats",
    "ChatsConfig",
    "accept_all",
    "message_view",
    "open_chats",
]
