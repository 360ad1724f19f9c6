"""Chat delivery, protocol ``/ioa/chat/deliver/1.0.0``: outbox workers (sender) and acks (receiver).

The sender streams ``chat.msg`` envelopes from its durable outbox; the receiver verifies, checks the
chat rules, **persists**, then answers one ``chat.ack`` control frame per message, in order. One
worker per peer delivers until acknowledged, retrying with exponential backoff (with jitter); a
reconnect wakes it early. ``missing`` acks make the sender push the parents first; an
``unknown-chat`` ack re-invites a member that never answered its invitation.

What a message's fan-out costs the sender per member is kept to the frame and its ack: one deadline
bounds a batch's send and its acks together, and the usual ack (``stored``) is neither encoded by the
member nor decoded by the sender: it is assembled from its constant bytes and the hash, and compared
byte for byte (:func:`~ioa_p2p.history.frames.stored_ack_frame`; any other answer is decoded and checked).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import trio

from ioa_p2p.errors import (
    InvalidMessage,
    IoATimeout,
    MessageTooLarge,
    PeerClosed,
    ProtocolViolation,
)
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, MAX_CHAT_MESSAGE_SIZE
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.frames import (
    ACK_DECLINED,
    ACK_DUPLICATE,
    ACK_MISSING,
    ACK_REJECTED,
    ACK_STORED,
    ACK_UNKNOWN_CHAT,
    ChatAck,
    encode_ack,
    stored_ack_frame,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.streams import ACK_TIMEOUT, make_ack, open_within, send, within
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.wire.control import decode_control, encode_control
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.chats.ports import ChatCore

log = logging.getLogger("ioa_p2p.chats")

PROTO_DELIVER = "/ioa/chat/deliver/1.0.0"
BATCH = 256
IDLE_CLOSE = 5.0


class ChatDelivery:
    """Both sides of message delivery for one chat service."""

    def __init__(self, chats: ChatCore, nursery: trio.Nursery) -> None:
        self.chats = chats
        self.store = chats.store
        self._nursery = nursery
        self._wake: dict[PeerId, trio.Event] = {}

    # ------------------------------------------------------------------ sender

    def wake(self, peer: PeerId) -> None:
        """``peer`` has outbox rows: start its worker, or wake the running one."""
        event = self._wake.get(peer)
        if event is None:
            self._wake[peer] = trio.Event()
            self._nursery.start_soon(self._delivery_worker, peer)
        else:
            event.set()

    def on_connected(self, peer: PeerId) -> None:
        """A (re)connection: a worker waiting out its backoff retries now."""
        if peer in self._wake:
            self._wake[peer].set()

    async def _delivery_worker(self, peer: PeerId) -> None:
        """Deliver ``peer``'s outbox until acknowledged, forever (retries with backoff)."""
        config = self.chats.config
        delay = config.retry_initial
        while True:
            self._wake[peer] = trio.Event()
            if not self.store.outbox(peer, limit=1):
                await self._wake[peer].wait()
                continue
            delivered = False
            with self.chats.node.faults.boundary("chat delivery", peer):
                await self._deliver_session(peer)
                delivered = True
            if delivered:
                delay = config.retry_initial
            else:
                log.debug("delivery to %s failed; retry in %.1f s", peer, delay)
                with trio.move_on_after(delay * (0.5 + self.chats.rng.random())):
                    await self._wake[peer].wait()  # a reconnect wakes the worker early
                delay = min(delay * 2, config.retry_max)

    async def _deliver_session(self, peer: PeerId) -> None:
        stream = await open_within(self.chats.node, peer, PROTO_DELIVER, self.chats.config.stream_timeout)
        async with stream:
            items = self.store.outbox(peer, limit=BATCH)
            while True:
                if not items:
                    self._wake[peer] = trio.Event()
                    with trio.move_on_after(IDLE_CLOSE) as idle:
                        await self._wake[peer].wait()
                    if idle.cancelled_caught:
                        return
                    items = self.store.outbox(peer, limit=BATCH)
                    continue
                # every row queued for the peer from now on wakes it (``wake``): a batch that was all
                # the outbox held and was all acknowledged leaves it empty unless that happened
                woken = self._wake[peer] = trio.Event()
                drained = await self._deliver_batch(stream, peer, items) and len(items) < BATCH
                items = [] if drained and not woken.is_set() else self.store.outbox(peer, limit=BATCH)

    async def _deliver_batch(
        self, stream: FramedStream, peer: PeerId, items: list[tuple[bytes, bytes]]
    ) -> bool:
        """Send ``items`` and take their acks, within one deadline; True when every one was acknowledged
        done (its outbox row deleted), False when some stay queued (missing parents pushed first, a
        re-invitation)."""
        frames, sent = [], []
        for chat_id, digest in items:
            raw = self.store.message_raw(digest)
            if raw is None:  # pragma: no cover - outbox rows join messages
                continue
            frames.append(raw)
            sent.append((chat_id, digest))
        done: list[bytes] = []
        with within(ACK_TIMEOUT, f"delivering to {peer} and taking its acknowledgements"):
            await stream.send_many(frames)
            for chat_id, digest in sent:
                data = await stream.receive()
                if data == stored_ack_frame(digest):  # the usual answer, known byte for byte
                    done.append(digest)
                    continue
                ack = decode_control(data, ChatAck)
                if ack.hash != digest:
                    raise ProtocolViolation(f"{peer} acknowledged the wrong message")
                await self._on_ack(peer, chat_id, digest, ack, done)
        self.store.acked(done, peer)
        self.chats.notify()
        return len(done) == len(items)

    async def _on_ack(
        self, peer: PeerId, chat_id: bytes, digest: bytes, ack: ChatAck, done: list[bytes]
    ) -> None:
        if ack.status in (ACK_STORED, ACK_DUPLICATE):
            done.append(digest)
        elif ack.status == ACK_MISSING:
            hist = self.chats.find(chat_id)
            have = [m for m in ack.missing if hist is not None and m in hist]
            self.store.add_outbox(chat_id, have, peer, self.chats.now_ms())
        elif ack.status == ACK_REJECTED:
            log.warning("%s rejected message %s: %s", peer, digest.hex()[:16], ack.reason)
            done.append(digest)
        elif ack.status == ACK_DECLINED:
            self.store.drop_outbox(chat_id, peer)
        elif ack.status == ACK_UNKNOWN_CHAT:
            await self._reinvite(peer, chat_id)

    async def _reinvite(self, peer: PeerId, chat_id: bytes) -> None:
        """``peer`` does not know the chat: invite it again (it may have been offline at creation)."""
        hist = self.chats.get(chat_id)
        if peer not in hist.members():  # e.g. removed before it ever answered: let it be
            self.store.drop_outbox(chat_id, peer)
            return
        answer = await self.chats.invites.call_invite(
            peer, hist.genesis, _added_by(hist, peer), within=self.chats.config.invite_timeout
        )
        if answer is False:
            self.store.drop_outbox(chat_id, peer)
        elif answer is None:
            raise IoATimeout(f"{peer} does not know chat {chat_id.hex()[:16]} and did not answer")

    # ------------------------------------------------------------------ receiver

    async def handle_deliver(self, stream: FramedStream) -> None:
        while True:
            try:
                data = await stream.receive(max_size=MAX_CHAT_MESSAGE_SIZE)
            except PeerClosed:
                return
            except MessageTooLarge as exc:
                self.chats.rejected += 1
                await send(stream, encode_control(make_ack(b"", ACK_REJECTED, reason=str(exc))))
                raise  # the oversize frame cannot be skipped reliably: end this stream
            try:
                env = Envelope.from_cbor(data)
            except InvalidMessage as exc:
                self.chats.rejected += 1
                reason = f"{type(exc).__name__}: {exc}"
                await send(stream, encode_control(make_ack(b"", ACK_REJECTED, reason=reason)))
                stream.count_refusal()
                continue
            ack = self.chats.accept(env, env.hash, stream.remote, len(data))
            await send(stream, encode_ack(ack))


def _added_by(hist: ChatHistory, peer: PeerId) -> bytes | None:
    """The hash of the latest member.add of ``peer`` (None when the genesis names it)."""
    if peer in hist.genesis_body.members:
        return None
    for entry in reversed(hist.entries()):
        msg = entry.msg
        if msg.kind == KIND_MEMBER_ADD and msg.content["member"] == peer.raw:
            return entry.hash
    return None


__all__ = ["BATCH", "IDLE_CLOSE", "PROTO_DELIVER", "ChatDelivery"]
