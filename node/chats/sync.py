"""Chat sync, protocol ``/ioa/chat/sync/1.0.0``: pull what a member lacks, and when to pull.

The requester sends its per-author highest seq (``chat.sync_req``); the responder answers a
``chat.sync_batch`` header and that many envelopes in causal order, until nothing is left. Pulls
run on start, when a peer (re)connects, periodically, and when a delivered message names unknown
parents.

Budgets (``[limits]``, ``node.budgets``): a responder answers at most ``sync_requests_per_peer``
requests and ``sync_messages_per_peer`` messages per peer per ``sync_period`` (and node-wide
totals), and holds at most ``sync_answer_bytes_per_peer`` / ``_total`` bytes of answers not yet
sent (one answer carries at most :data:`SYNC_ANSWER_BYTES` of messages); past them it answers
``busy`` with no messages, and the requester tries again at its next trigger. Pulls started
because of what a peer sent (unknown parents) are limited to ``sync_pulls_per_peer`` per period,
and a node runs at most :data:`PULLS_PER_PEER` pulls to one peer at a time. Every pull is paced
(:mod:`~ioa_p2p.node.chats.pacing`): a member that cannot be reached is backed off from for every
chat, and pulls start at most ``sync_pulls_total`` times per period, 32 at once.

What is pulled when: at start, the chats active in the last :data:`RESUME_WINDOW` (the others when
first used; their members push what this node missed); on a new connection, the chats used since the
start (loaded) shared with that peer; every ``sync_interval``, the loaded chats from their connected
members, a quiet chat (its last periodic pulls brought nothing) less often
(:class:`~ioa_p2p.node.chats.pacing.QuietChats`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import trio

from ioa_p2p.budget import Claim
from ioa_p2p.errors import (
    InvalidMessage,
    IoATimeout,
    MessageTooLarge,
    OverBudget,
    PeerClosed,
    PeerUnreachable,
    ProtocolViolation,
)
from ioa_p2p.history.bodies import MAX_CHAT_MESSAGE_SIZE
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.frames import ACK_STORED, SYNC_INVALID, SYNC_TOO_LARGE, SyncBatch, SyncRequest
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.pacing import PullPacer, QuietChats
from ioa_p2p.node.chats.store import STATUS_MEMBER
from ioa_p2p.node.chats.streams import ACK_TIMEOUT, open_within, send, within
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.wire.control import MAX_CONTROL_SIZE, decode_control, encode_control
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build

if TYPE_CHECKING:
    from ioa_p2p.node.chats.ports import ChatCore

log = logging.getLogger("ioa_p2p.chats")

PROTO_SYNC = "/ioa/chat/sync/1.0.0"
SYNC_LIMIT = 500
#: encoded message bytes in one answer (at least one message): cuts a batch of large messages short
SYNC_ANSWER_BYTES = 4 * 1024 * 1024
#: concurrent pulls from one peer (a node sharing many chats with a peer must stay under its stream cap)
PULLS_PER_PEER = 8
STATUS_BUSY = "busy"
#: Chats with a message this recent (seconds) are pulled from their members at start.
RESUME_WINDOW = 24 * 3600.0


class ChatSync:
    """Both sides of history sync for one chat service, and its background triggers."""

    def __init__(self, chats: ChatCore, nursery: trio.Nursery) -> None:
        self.chats = chats
        self._nursery = nursery
        self._pulling: set[tuple[bytes, PeerId]] = set()
        self._slots: dict[PeerId, trio.CapacityLimiter] = {}
        self.budgets = chats.node.budgets
        limits = self.budgets.limits
        self.pacer = PullPacer(
            trio.current_time, per_period=limits.sync_pulls_total, period=limits.sync_period
        )
        self.quiet = QuietChats()

    # ------------------------------------------------------------------ requester

    def start_pull(self, chat_id: bytes, peer: PeerId) -> None:
        """Pull ``chat_id`` from ``peer`` in the background (once at a time per pair; paced)."""
        if peer == self.chats.me or (chat_id, peer) in self._pulling or not self.pacer.may_start(peer):
            return
        self._pulling.add((chat_id, peer))
        self._nursery.start_soon(self._pull_task, chat_id, peer)

    def pull_on_missing(self, chat_id: bytes, peer: PeerId) -> None:
        """``peer`` sent a message whose parents are missing: pull from it, at most
        ``sync_pulls_per_peer`` times per period (the periodic sync catches up after that)."""
        if peer == self.chats.me or (chat_id, peer) in self._pulling:
            return
        if self.budgets.sync_pulls.take(peer, 1, self.budgets.now()):
            self.start_pull(chat_id, peer)

    @asynccontextmanager
    async def _pull_slot(self, peer: PeerId) -> AsyncIterator[None]:
        limiter = self._slots.get(peer)
        if limiter is None:
            limiter = self._slots[peer] = trio.CapacityLimiter(PULLS_PER_PEER)
        try:
            async with limiter:
                yield
        finally:
            if not limiter.borrowed_tokens and not limiter.statistics().tasks_waiting:
                self._slots.pop(peer, None)

    async def _pull_task(self, chat_id: bytes, peer: PeerId) -> None:
        try:
            with self.chats.node.faults.boundary("chat sync pull", peer):
                await self.pull(chat_id, peer)
        finally:
            self._pulling.discard((chat_id, peer))

    async def pull(self, chat_id: bytes, peer: PeerId) -> int:
        """Fetch from ``peer`` every message of the chat this node lacks; returns how many. A
        member that cannot be reached is backed off from (for every chat)."""
        async with self.pacer.slots, self._pull_slot(peer):
            try:
                received = await self._pull(chat_id, peer)
            except (PeerUnreachable, IoATimeout):
                self.pacer.failed(peer)
                raise
            self.pacer.reached(peer)
            return received

    async def _pull(self, chat_id: bytes, peer: PeerId) -> int:
        hist = self.chats.get(chat_id)
        received = 0
        stream = await open_within(self.chats.node, peer, PROTO_SYNC, self.chats.config.stream_timeout)
        async with stream:
            while True:
                with within(ACK_TIMEOUT, f"sync of {chat_id.hex()[:16]} from {peer}"):
                    header = await call_sync(stream, hist)
                    if header.status != "ok" or header.count > SYNC_LIMIT:
                        if header.status == STATUS_BUSY:
                            log.debug("%s is busy: sync of %s later", peer, chat_id.hex()[:16])
                        elif header.status in (SYNC_INVALID, SYNC_TOO_LARGE):
                            log.warning("%s refused our sync request as %s", peer, header.status)
                        return received
                    received += await self._receive_batch(stream, peer, header.count)
                    if not header.more or header.count == 0:
                        return received

    async def _receive_batch(self, stream: FramedStream, peer: PeerId, count: int) -> int:
        """Accept ``count`` envelopes from the stream; how many were new."""
        received = 0
        for _ in range(count):
            data = await stream.receive(max_size=MAX_CHAT_MESSAGE_SIZE)
            try:
                env = Envelope.from_cbor(data)
            except InvalidMessage as exc:
                raise ProtocolViolation(f"{peer} sent an invalid message in sync: {exc}") from None
            ack = self.chats.accept(env, env.hash, peer, len(data))
            received += ack.status == ACK_STORED
        return received

    async def sync_now(
        self, chat_id: bytes | None = None, *, connected_only: bool = False, force: bool = False
    ) -> int:
        """Pull every loaded member chat (or one) from its members now; returns messages received.
        ``force``: asked for by the application (members in back-off are tried too)."""
        chats = self.chats
        chat_ids = [chat_id] if chat_id else chats.loaded_member_chats()
        total = 0

        async def one(cid: bytes, peer: PeerId) -> None:
            nonlocal total
            with chats.node.faults.boundary("chat sync pull", peer):
                total += await self.pull(cid, peer)

        async with trio.open_nursery() as nursery:
            for cid in chat_ids:
                hist = chats.find(cid)
                for peer in sorted(hist.members() - {chats.me}) if hist is not None else ():
                    reachable = chats.node.is_connected(peer) or chats.node.serves_locally(peer)
                    if connected_only and not reachable:
                        continue
                    if self.pacer.may_start(peer, force=force):
                        nursery.start_soon(one, cid, peer)
        return total

    async def resume(self) -> None:
        """At start: pull the member chats with a message from the last :data:`RESUME_WINDOW`
        seconds, or deliveries pending (one query; the others are loaded when first used)."""
        since = self.chats.now_ms() - int(RESUME_WINDOW * 1000)
        for chat_id in self.chats.store.active_chats(since):
            if self.chats.status(chat_id) == STATUS_MEMBER:
                await self.sync_now(chat_id)

    # ------------------------------------------------------------------ responder

    async def handle_sync(self, stream: FramedStream) -> None:
        while True:
            request = await self._receive_request(stream)
            if request is None:
                return
            if isinstance(request, str):  # malformed: refused, the stream stays usable (a while)
                await send(stream, encode_control(_batch(b"", request)))
                stream.count_refusal()
                continue
            scope = trio.CancelScope()
            frames, claim = self._answer(request, stream.remote, scope.cancel)
            try:
                with scope:
                    await send(stream, *frames)
            finally:
                self.budgets.sync_answers.release(claim)
            if scope.cancelled_caught:
                raise OverBudget(
                    f"sync answer to {stream.remote} evicted: the node's sync answer budget is full"
                )

    async def _receive_request(self, stream: FramedStream) -> SyncRequest | str | None:
        """The next request; the refusal status of a malformed one; None at the end of the stream.

        A frame announced over :data:`MAX_CONTROL_SIZE` is answered ``too-large`` from its length
        prefix, then the stream ends (reset): its body cannot be skipped safely."""
        try:
            data = await stream.receive(max_size=MAX_CONTROL_SIZE)
        except PeerClosed:
            return None
        except MessageTooLarge as exc:
            self.chats.rejected += 1
            await send(stream, encode_control(_batch(b"", SYNC_TOO_LARGE)))
            raise ProtocolViolation(f"{stream.remote} sent an oversize sync request: {exc}") from None
        try:
            return decode_control(data, SyncRequest)
        except InvalidMessage as exc:
            self.chats.rejected += 1
            log.info("refused a malformed sync request from %s: %s", stream.remote, exc)
            return SYNC_INVALID

    def _answer(
        self, request: SyncRequest, remote: PeerId, on_evict: Callable[[], None]
    ) -> tuple[list[bytes], Claim | None]:
        """The frames answering one request (a batch header, then the envelopes) and the claim
        their bytes hold in the sync answer budget until sent."""
        hist = self.chats.find(request.chat_id)
        if hist is None:
            return [encode_control(_batch(request.chat_id, "unknown-chat"))], None
        if remote not in hist.members():
            return [encode_control(_batch(request.chat_id, "not-member"))], None
        budgets, now = self.budgets, self.budgets.now()
        if not budgets.sync_requests.take(remote, 1, now):
            return [encode_control(_batch(request.chat_id, STATUS_BUSY))], None
        limit = budgets.sync_messages.take_up_to(remote, min(request.limit, SYNC_LIMIT), now)
        if limit <= 0:
            return [encode_control(_batch(request.chat_id, STATUS_BUSY))], None
        have = dict(zip(request.authors, request.seqs, strict=True))
        entries, more = hist.messages_after(have, limit)
        frames: list[bytes] = []
        size = 0
        for entry in entries:
            raw = entry.env.to_cbor()
            if frames and size + len(raw) > SYNC_ANSWER_BYTES:
                break
            frames.append(raw)
            size += len(raw)
        budgets.sync_messages.give_back(remote, limit - len(frames), now)
        claim = budgets.sync_answers.try_claim(remote, size, on_evict, budgets.trust(remote))
        if claim is None:
            budgets.sync_messages.give_back(remote, len(frames), now)
            return [encode_control(_batch(request.chat_id, STATUS_BUSY))], None
        more = more or len(frames) < len(entries)
        header = build(SyncBatch, chat_id=request.chat_id, status="ok", count=len(frames), more=more)
        return [encode_control(header), *frames], claim

    # ------------------------------------------------------------------ background triggers

    async def run_periodic_sync(self) -> None:
        while True:
            await trio.sleep(self.chats.config.sync_interval * (0.75 + 0.5 * self.chats.rng.random()))
            await self.periodic_round()

    async def periodic_round(self) -> None:
        """Pull the loaded member chats due this round from their connected members (a quiet chat is
        due every few rounds only: :class:`~ioa_p2p.node.chats.pacing.QuietChats`)."""
        loaded = self.chats.loaded_member_chats()
        self.quiet.forget(set(loaded))

        async def pull_chat(chat_id: bytes) -> None:
            self.quiet.pulled(chat_id, await self.sync_now(chat_id, connected_only=True))

        async with trio.open_nursery() as nursery:
            for chat_id in loaded:
                if self.quiet.due(chat_id):
                    nursery.start_soon(pull_chat, chat_id)

    async def run_connection_watch(self) -> None:
        """On every new connection: pull shared chats from that peer and retry its deliveries (woken by
        the connection itself, :attr:`NodePort.arrivals`: no polling while nothing connects)."""
        node = self.chats.node
        arrivals = node.arrivals
        seen = arrivals.count
        while True:
            seen, peers = await arrivals.wait_after(seen)
            for peer in peers if peers is not None else node.connected_peers():
                self.on_connected(peer)

    def on_connected(self, peer: PeerId) -> None:
        """A new connection: the peer is reachable; pull the loaded chats shared with it."""
        self.pacer.reached(peer)
        for chat_id in self.chats.loaded_member_chats():
            hist = self.chats.find(chat_id)
            if hist is not None and peer in hist.members():
                self.start_pull(chat_id, peer)
        self.chats.delivery.on_connected(peer)


def _batch(chat_id: bytes, status: str) -> SyncBatch:
    return build(SyncBatch, chat_id=chat_id, status=status, count=0, more=False)


async def call_sync(stream: FramedStream, hist: ChatHistory) -> SyncBatch:
    """Send this node's version of the chat (a ``SyncRequest`` for up to :data:`SYNC_LIMIT` messages);
    the responder's batch header (its messages follow on ``stream``)."""
    version = hist.version()
    authors = sorted(version)
    request = build(
        SyncRequest,
        chat_id=hist.chat_id,
        authors=tuple(authors),
        seqs=tuple(version[a] for a in authors),
        limit=SYNC_LIMIT,
    )
    await send(stream, encode_control(request))
    return decode_control(await stream.receive(), SyncBatch)


__all__ = ["PROTO_SYNC", "PULLS_PER_PEER", "STATUS_BUSY", "SYNC_LIMIT", "ChatSync", "call_sync"]
