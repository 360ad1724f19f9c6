"""Direct signed messages between two peers: protocol ``/ioa/msg/1.0.0``.

The dialer sends frames, each one envelope of type ``text`` v1 whose author must be the dialer itself (the
Noise-authenticated peer of the stream). For every frame the listener answers one frame, a canonical CBOR map:
``{"ok": true, "hash": <32-byte message hash>}`` or ``{"ok": false, "error": <text>, "code": <text>}``. A bad
frame (bad CBOR, bad signature, wrong author, oversize) gets an error answer and the stream stays open for the
next one, up to ``MAX_REFUSED_FRAMES`` (16) refused frames per stream: then the stream is reset. Replays are
refused (:mod:`ioa_p2p.node.messaging.replay`): each author's ``seq`` must strictly increase, checked against
a table persisted under ``$IOA_HOME`` before the ``ok`` answer.

Control API (:mod:`ioa_p2p.node.messaging.routes`): ``POST /send``, ``GET /inbox`` (the last received
messages, oldest first: stored on disk before the ``ok`` answer, :mod:`ioa_p2p.node.messaging.inbox`, so an
acknowledged message survives a crash).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.errors import (
    InvalidMessage,
    IoATimeout,
    MessageTooLarge,
    PeerRejected,
    PeerUnreachable,
    ProtocolViolation,
    ReplayedMessage,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.node.messaging.inbox import Inbox
from ioa_p2p.node.messaging.replay import ReplayGuard
from ioa_p2p.node.messaging.routes import add_messaging_routes
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.ports import open_local_state
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

PROTOCOL_ID = "/ioa/msg/1.0.0"
SEND_TIMEOUT = 10.0


class Messaging:
    def __init__(self, node: NodePort, replay: ReplayGuard, inbox: Inbox) -> None:
        self.node = node
        self.replay = replay
        self.inbox = inbox
        self._seq = time.time_ns() // 1000  # monotonic across restarts without storing state
        self._arrived = trio.Event()
        self._send_locks: dict[PeerId, trio.Lock] = {}

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    async def handle_stream(self, stream: FramedStream) -> None:
        while True:
            try:
                data = await stream.receive()
            except MessageTooLarge as exc:
                await stream.send_value(_refusal("too-large", str(exc)))
                raise  # the oversize body cannot be skipped reliably: end this stream
            reply = self._accept(stream.remote, data)
            await stream.send_value(reply)
            if not reply["ok"] and reply["code"] != "busy":
                stream.count_refusal()  # garbage costs the stream, not one answer per frame for ever

    def _accept(self, remote: PeerId, data: bytes) -> dict[str, Any]:
        try:
            env = Envelope.from_cbor(data)
        except InvalidMessage as exc:
            return _refusal("invalid", f"{type(exc).__name__}: {exc}")
        if env.author != remote:
            return _refusal("wrong-author", f"author {env.author} is not the sending peer {remote}")
        if not isinstance(env.body, Text):
            return _refusal("wrong-type", f"{PROTOCOL_ID} carries 'text' messages, not {env.type!r}")
        try:
            self.replay.admit(env.author, env.seq, env.ts)  # persisted before the ok answer
        except ReplayedMessage as exc:
            return _refusal(exc.code, f"ReplayedMessage: {exc}")
        # on disk before the ok answer too (a crash in between: no ok, and the sender's retry has a new seq)
        self.inbox.append(env, data)
        self._arrived.set()
        self._arrived = trio.Event()
        return {"ok": True, "hash": env.hash}

    async def send_text(self, peer: PeerId, text: str, data: dict[str, Any] | None = None) -> bytes:
        """Sign and send one message. Sends to one peer are serialized, so they arrive in seq order
        (the receiver refuses a seq that is not above the last one it accepted)."""
        lock = self._send_locks.setdefault(peer, trio.Lock())
        try:
            async with lock:
                env = Envelope.create(self.node.identity, Text(text=text, data=data), seq=self.next_seq())
                return await self.send_envelope(peer, env)
        finally:
            if not lock.locked() and lock.statistics().tasks_waiting == 0:
                self._send_locks.pop(peer, None)

    async def send_envelope(self, peer: PeerId, env: Envelope) -> bytes:
        """Send one envelope; return its hash once the peer acknowledged it. A peer that cannot be
        reached is :class:`~ioa_p2p.errors.DialFailed` (naming the addresses and relays tried: nothing was
        sent); :class:`~ioa_p2p.errors.IoATimeout` "did not acknowledge" means the message went out on an
        open stream and no answer came."""
        sent = False
        try:
            with trio.fail_after(SEND_TIMEOUT):
                stream = await self.node.open_stream(peer, PROTOCOL_ID)
                async with stream:
                    await stream.send_envelope(env)
                    sent = True
                    reply = await stream.receive_value()
        except trio.TooSlowError:
            if sent:
                raise IoATimeout(
                    f"{peer} did not acknowledge within {SEND_TIMEOUT:.0f} s (the message was sent to it)"
                ) from None
            raise PeerUnreachable(
                f"could not open a stream to {peer} within {SEND_TIMEOUT:.0f} s; nothing was sent"
            ) from None
        return check_ack(reply, env, peer)

    async def wait_message(self, count: int) -> None:
        """Wait until at least ``count`` messages sit in the inbox (callers bound the wait)."""
        while len(self.inbox) < count:
            await self._arrived.wait()


def _refusal(code: str, error: str) -> dict[str, Any]:
    return {"ok": False, "error": error, "code": code}


def check_ack(reply: Any, env: Envelope, peer: PeerId) -> bytes:
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise ProtocolViolation(f"{peer} answered with a malformed acknowledgement")
    if not reply["ok"]:
        raise PeerRejected(f"{peer} rejected the message: {reply.get('error')}")
    if reply.get("hash") != env.hash:
        raise ProtocolViolation(f"{peer} acknowledged a different message hash")
    return env.hash


@asynccontextmanager
async def open_messaging(node: NodePort) -> AsyncIterator[Messaging]:
    # co-hosted agents open them in a worker thread: the others of the process keep using the loop
    replay = await open_local_state(
        node, lambda: ReplayGuard.open(node.home, clock_ms=lambda: time.time_ns() // 1_000_000)
    )
    try:
        inbox = await open_local_state(node, lambda: Inbox.open(node.home))
    except BaseException:
        replay.close()
        raise
    messaging = Messaging(node, replay, inbox)

    node.set_stream_handler(PROTOCOL_ID, messaging.handle_stream)
    add_messaging_routes(node, messaging)
    try:
        yield messaging
    finally:
        inbox.close()
        replay.close()
