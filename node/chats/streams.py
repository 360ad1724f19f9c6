"""Stream plumbing shared by the chat protocols: bounded sends, opens and waits, ack frames.

Every helper turns a trio timeout into :class:`~ioa_p2p.errors.IoATimeout` that names what took
too long, so the protocol modules (``chat_invites``, ``chat_delivery``, ``chat_sync``) never hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import trio

from ioa_p2p.errors import IoATimeout
from ioa_p2p.history.frames import ChatAck
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.wire.schema import build

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

SEND_TIMEOUT = 30.0
ACK_TIMEOUT = 30.0


async def send(stream: FramedStream, *frames: bytes) -> None:
    """Write frames in one write; a peer that stops reading cannot block us for ever."""
    with within(SEND_TIMEOUT, f"sending to {stream.remote}"):
        await stream.send_many(frames)


@contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """``trio.fail_after`` translated into IoATimeout."""
    try:
        with trio.fail_after(seconds):
            yield
    except trio.TooSlowError:
        raise IoATimeout(f"{what} took longer than {seconds:.0f} s") from None


async def open_within(node: NodePort, peer: PeerId, protocol: str, seconds: float) -> FramedStream:
    """Open a ``protocol`` stream to ``peer`` (dialing if needed), bounded by ``seconds``."""
    try:
        with trio.fail_after(seconds):
            return await node.open_stream(peer, protocol)
    except trio.TooSlowError:
        raise IoATimeout(f"opening {protocol} to {peer} took too long") from None


def make_ack(digest: bytes, status: str, *, missing: tuple[bytes, ...] = (), reason: str = "") -> ChatAck:
    """A ``chat.ack`` control frame (missing list and reason truncated to their wire limits)."""
    return build(ChatAck, hash=digest, status=status, missing=missing[:128], reason=reason[:500])


__all__ = ["ACK_TIMEOUT", "SEND_TIMEOUT", "make_ack", "open_within", "send", "within"]
