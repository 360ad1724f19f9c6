"""Patch 26: a Noise message that arrives in many pieces no longer ends its connection.

py-libp2p 0.8.1 reads each Noise transport message (a 2-byte length, then up to 65,535 bytes) from the
TCP stream with ``libp2p.io.utils.read_exactly``, which gives up after 100 short reads and raises
``IncompleteReadError`` although the socket is open and the rest of the message is on its way. Yamux's
read loop takes that error for the peer's end of stream and closes the connection; the peer, which did
nothing wrong, sees its connection closed (``remote closed``) and both sides pay a new handshake on the
next request. A message comes in many pieces when its sender cannot write it at once: its socket buffer
is full because this side has not read for a while (a busy process, a peer paced by the CPU budgets),
and every read here lets only a few kilobytes more through. The connection counters
(:mod:`.conn_events`) name it: ``short reads`` (the end came with the socket still open), where it had
been counted as ``remote closed mid-frame`` before they checked the socket.

:func:`read_messages_whole` replaces the ``read_exactly`` that ``libp2p.io.msgio`` (the Noise message
reader, handshake and transport) calls with :func:`read_whole`: it reads until it has ``n`` bytes or the
stream ends (a read returns nothing), as many reads as that takes (at most ``n``: every read but the last
returns at least a byte). How long a message may take is bounded where it was: yamux's frame body
timeout, the callers' deadlines. ``tests/test_conn_events.py`` sends one message in 150 pieces
(kept with the patch; upstream's reader closes the connection: the sentinel).
"""

from __future__ import annotations

from typing import Any

#: The ``read_exactly`` that ``libp2p.io.msgio`` called before the patch (None before it).
_UPSTREAM: Any = None


async def read_whole(reader: Any, n: int, retry_count: int = 0) -> bytes:
    """Exactly ``n`` bytes from ``reader``, or ``IncompleteReadError`` when it ends before them
    (``retry_count``: upstream's signature; ignored, the stream's end is what stops the reads)."""
    from libp2p.io.exceptions import IncompleteReadError

    buffer = bytearray()
    while len(buffer) < n:
        chunk = await reader.read(n - len(buffer))
        if not chunk:
            raise IncompleteReadError(
                f"Connection closed during read operation: expected {n} bytes but received "
                f"{len(buffer)} bytes",
                expected_bytes=n,
                received_bytes=len(buffer),
            )
        buffer.extend(chunk)
    return bytes(buffer)


def read_messages_whole() -> None:
    """Make ``libp2p.io.msgio`` read each message until it is whole or the stream ends (idempotent)."""
    global _UPSTREAM
    import libp2p.io.msgio as msgio

    upstream = getattr(msgio, "read_exactly", None)
    if upstream is None:
        raise RuntimeError("libp2p.io.msgio no longer calls read_exactly: revisit patch 26 (whole_reads)")
    if upstream is read_whole:
        return
    _UPSTREAM = upstream
    msgio.read_exactly = read_whole  # type: ignore[attr-defined]


def upstream_read_exactly() -> Any:
    """Upstream's ``read_exactly`` as ``libp2p.io.msgio`` called it (for the patch's sentinel test)."""
    return _UPSTREAM


__all__ = ["read_messages_whole", "read_whole", "upstream_read_exactly"]
