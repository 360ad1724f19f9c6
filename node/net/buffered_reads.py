"""Patch 31 of :mod:`ioa_p2p.node.net.libp2p_patches`: a connection reads what its socket holds in one go.

**The problem** (issue 26, docs/performance.md "Why identify failed between processes"). py-libp2p 0.8.1's
``TrioTCPStream.read(n)`` is one ``receive_some(n)``, and trio's receive is a schedule point even when the
socket has the bytes. The Noise reader asks for each message's 2-byte length, then for its body: every
Noise message (a yamux frame, often 30 bytes) costs a connection's reader at least two passes of the
event loop. In a process running 25-50 agents on one loop, a pass took 0.4-0.9 s under load (1,900-2,300
runnable tasks), so a connection read about one frame a second, less than its peer sent: the bytes piled up
in the kernel (11 KB median, up to 67 KB, in the socket's receive queue at the moment an inbound stream
timed out, the sender's queue empty) and a new stream's SYN reached the listener 11-25 s (median, up to
100 s) after the dialer opened it. Identify (and every stream) between processes timed out: the dialer
after 10 s without an answer, the listener 10 s after the SYN without the header that was still in the
kernel behind it.

**What we do.** :func:`read_socket_in_chunks` replaces ``TrioTCPStream.read``: under the stream's read
lock, a read with nothing buffered receives up to :data:`CHUNK` bytes (what the socket holds, one
schedule point as before) and keeps what the caller did not ask for; the next reads are served from that
buffer without a schedule point (every :data:`YIELD_EVERY`-th one still yields, so a reader whose buffer
never empties cannot hold the process). Bytes come out in the order they arrived: the buffer is taken and
filled only under the read lock, and a buffered read never overtakes one waiting for the socket. What the
buffer holds is bounded by one :data:`CHUNK` per connection (it is filled only when empty). Everything
else (closing, errors: a broken socket raises ``ConnectionClosedError``, a locally closed one reads
``b""``) is upstream's. ``tests/test_buffered_reads.py`` (real hosts and sockets on 127.0.0.1): 200 Noise
messages queued in a socket are read in a few schedule points (upstream: >= 2 each, the sentinel); bytes
in order with concurrent readers; streams and identify between hosts under a busy loop.

**A refusal and the reset behind it** (l-cross2). With this patch a reader takes a refusal's frame and the
RST the listener sent right after it in one read and handles both in one step; yamux marks the stream
reset and drops its unread bytes before the stream's reader runs, so the peer saw the stream closed, not
the refusal (``tests/test_hostile_chat_frames.py``'s malformed sync requests, ``tests/test_node.py``'s
oversize frame). Upstream's read only made that race rare (a schedule point between the two frames); go-yamux
drops a reset stream's buffer too. The fix is on the sending side: a listener whose handler answered just
before its error closes its side and waits for the peer's end before the reset
(:meth:`ioa_p2p.node.net.framing.FramedStream.linger`, ``tests/test_refusal_linger.py``).
"""

from __future__ import annotations

from typing import Any

import trio

#: Bytes one receive takes from the socket at most (what a read does not use is kept for the next reads).
CHUNK = 64 * 1024
#: One read served from the buffer in this many still yields.
YIELD_EVERY = 64

#: Upstream's ``TrioTCPStream.read`` (None before the patch).
_UPSTREAM: Any = None
_count = 0


def _take(buffer: bytearray, n: int | None) -> bytes:
    size = len(buffer) if n is None or n < 0 else min(n, len(buffer))
    data = bytes(buffer[:size])
    del buffer[:size]
    return data


async def _receive(stream: Any) -> bytes:
    """One receive of up to :data:`CHUNK` bytes, with upstream's translation of trio's errors."""
    from libp2p.io.exceptions import ConnectionClosedError

    try:
        return bytes(await stream.stream.receive_some(CHUNK))
    except trio.BrokenResourceError as error:
        raise ConnectionClosedError(
            f"TCP connection reset by remote peer: {error}", transport="tcp"
        ) from error
    except trio.ClosedResourceError:
        return b""


async def read(self: Any, n: int | None = None) -> bytes:
    """``TrioTCPStream.read`` as patch 31 makes it (module docstring)."""
    global _count
    if n == 0:
        return b""
    buffer: bytearray | None = getattr(self, "ioa_buffer", None)
    if buffer and not self.read_lock.locked():
        await trio.lowlevel.checkpoint_if_cancelled()
        _count += 1
        if _count % YIELD_EVERY == 0:
            await trio.lowlevel.cancel_shielded_checkpoint()
        if buffer and not self.read_lock.locked():
            return _take(buffer, n)
    async with self.read_lock:
        buffer = getattr(self, "ioa_buffer", None)
        if buffer:
            return _take(buffer, n)
        data = await _receive(self)
        if n is None or n < 0 or len(data) <= n:
            return data
        self.ioa_buffer = bytearray(data[n:])
        return data[:n]


def buffered(stream: Any) -> int:
    """Bytes ``stream`` (a ``TrioTCPStream``) holds from its socket that no read has taken yet."""
    return len(getattr(stream, "ioa_buffer", b""))


def read_socket_in_chunks() -> None:
    """Install patch 31 (idempotent, process-wide)."""
    global _UPSTREAM
    from libp2p.io.trio import TrioTCPStream

    upstream = getattr(TrioTCPStream, "read", None)
    if upstream is None:
        raise RuntimeError(
            "py-libp2p's TrioTCPStream has no read any more: revisit patch 31 (buffered_reads)"
        )
    if upstream is read:
        return
    _UPSTREAM = upstream
    TrioTCPStream.read = read  # type: ignore[method-assign]


def upstream_tcp_read() -> Any:
    """Upstream's ``TrioTCPStream.read`` (after :func:`read_socket_in_chunks`; None before)."""
    return _UPSTREAM


__all__ = ["CHUNK", "YIELD_EVERY", "buffered", "read", "read_socket_in_chunks", "upstream_tcp_read"]
