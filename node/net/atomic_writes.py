"""Patch 25 of :mod:`ioa_p2p.node.net.libp2p_patches`: a secure write is sent whole or not at all.

**The problem (the root cause of the connection churn at N = 50, issue 25).** py-libp2p's Noise session
encrypts a message (which spends the session's next nonce) and only then awaits the socket: yamux's
``_write_frame`` takes its write lock, ``SecureSession.write`` encrypts, and the TCP stream's own write
lock and ``send_all`` are checkpoints. A task cancelled there (its caller's deadline expired, a hedged
request cancelled as the other copy answered, a find's grace ended) leaves the nonce spent with nothing
sent, or half a Noise message on the wire. The peer then fails to decrypt every later message
(``NoiseInvalidMessage``) and drops the connection; both sides dial again: a Noise handshake, identify and
GossipSub's subscription exchange each. The busier the machine, the more deadlines expire inside that
window, and the re-made connections made it busier still: at 50 node processes on 2 cores the idle
network spent ~2 cores on it (docs/performance.md, "Gossip + DHT at N = 50"). The per-node connection
counters (:mod:`~ioa_p2p.node.net.conn_events`) showed it: at N = 25, 55 of 111 closed connections
ended with ``read error NoiseInvalidMessage`` at one end and nearly all of the rest were the other end
of those (``remote closed``).

**What we do.** :func:`atomic_secure_writes` wraps ``SecureSession.write``: a caller already cancelled
raises before anything is encrypted; otherwise the whole message is encrypted and sent under a shield, so
a cancellation arriving meanwhile takes effect at the caller's next checkpoint. The shielded part has its
own bound, :data:`WRITE_BOUND`: a write still waiting after that (the peer has stopped reading and the
socket's buffer is full) closes the connection, since part of the message may be on the wire, and raises
``ConnectionClosedError`` as a broken connection does. The sentinel test
(``tests/test_atomic_writes.py``) shows that an unpatched session still loses its connection to
cancelled writers and that a patched one keeps it.

**The bound counts from the write's last progress** (issue 25, d-n50b). A peer whose event loop is
saturated still reads, slowly: at N = 50 processes on 2 cores (load ~50, every loop busy) 166
connections were given up as ``local: stuck write`` while the CPU budgets' paced reads never reached
their bound (0 read grants), i.e. writes that were moving were abandoned because the socket's buffer
ahead of them drained slower than 10 s. :func:`atomic_secure_writes` therefore also wraps py-libp2p's
``TrioTCPStream.write``: under a secure write, a message longer than :data:`WRITE_PIECE` is handed to
the socket in pieces (under the stream's write lock, so nothing interleaves), and each piece the socket
accepts (the peer read as much) moves the write's deadline to :data:`WRITE_BOUND` from then. Only a
peer that read nothing for :data:`WRITE_BOUND` loses the connection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

import trio

from ioa_p2p.node.net.conn_events import ABANDONED

log = logging.getLogger("ioa_p2p.net")

#: Seconds a secure write may go without progress once it started (shielded from its caller's
#: cancellation); past this the connection is closed: its peer has not read for that long with the
#: socket's buffer full.
WRITE_BOUND = 10.0
#: Bytes handed to the socket at a time by a secure write; each piece accepted is progress.
WRITE_PIECE = 16 * 1024
#: The deadline of the secure write under way in this task (its TCP write moves it on progress).
_WRITING: ContextVar[trio.CancelScope | None] = ContextVar("ioa_secure_write", default=None)
#: Seconds closing such a connection may take.
CLOSE_BOUND = 1.0


def atomic_secure_writes() -> None:
    """Make ``SecureSession.write`` all or nothing under cancellation (idempotent, process-wide)."""
    from libp2p.security.secure_session import SecureSession

    global _UPSTREAM
    upstream = getattr(SecureSession, "write", None)
    if upstream is None:
        raise RuntimeError("py-libp2p's SecureSession has no write any more: revisit libp2p_patches")
    if getattr(upstream, "ioa_atomic", False):
        return
    _UPSTREAM = upstream

    async def write(self: Any, data: bytes) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()  # cancelled already: nothing encrypted, nothing sent
        await write_whole(self, len(data), lambda: upstream(self, data))

    write.ioa_atomic = True  # type: ignore[attr-defined]
    SecureSession.write = write  # type: ignore[method-assign]
    _write_tcp_in_pieces()


async def write_whole(session: Any, size: int, send: Callable[[], Awaitable[None]]) -> None:
    """Run ``send()`` (``size`` bytes of ``session`` going out) shielded from its caller's cancellation,
    bounded by :data:`WRITE_BOUND` from its last progress; past that the session is closed and
    ``ConnectionClosedError`` raised (part of a message may be on the wire). Patch 28
    (:mod:`.frame_writes`) sends the rest of a frame the socket did not take at once through it."""
    from libp2p.io.exceptions import ConnectionClosedError

    with trio.CancelScope(shield=True) as scope:
        scope.deadline = trio.current_time() + WRITE_BOUND
        token = _WRITING.set(scope)
        try:
            await send()
        finally:
            _WRITING.reset(token)
    if scope.cancelled_caught:
        await _abandon(session)
        raise ConnectionClosedError(f"a write of {size} bytes took over {WRITE_BOUND:.0f} s without progress")


def _write_tcp_in_pieces() -> None:
    """Wrap ``TrioTCPStream.write``: under a secure write, long messages go out in pieces, each moving the
    write's deadline (module docstring); upstream's error translation is kept."""
    from libp2p.io.exceptions import ConnectionClosedError
    from libp2p.io.trio import TrioTCPStream

    global _UPSTREAM_TCP
    upstream = TrioTCPStream.write
    if getattr(upstream, "ioa_pieces", False):
        return
    _UPSTREAM_TCP = upstream

    async def write(self: Any, data: bytes) -> None:
        scope = _WRITING.get()
        if scope is None or len(data) <= WRITE_PIECE:
            await upstream(self, data)
            return
        view = memoryview(data)
        async with self.write_lock:
            try:
                for start in range(0, len(view), WRITE_PIECE):
                    await self.stream.send_all(view[start : start + WRITE_PIECE])
                    scope.deadline = trio.current_time() + WRITE_BOUND
            except trio.BrokenResourceError as error:  # as upstream: the remote reset the connection
                raise ConnectionClosedError(
                    f"TCP connection reset by remote peer: {error}", transport="tcp"
                ) from error
            except trio.ClosedResourceError:  # as upstream: closed locally, nothing to report
                return

    write.ioa_pieces = True  # type: ignore[attr-defined]
    TrioTCPStream.write = write  # type: ignore[method-assign]


async def _abandon(session: Any) -> None:
    """Close a session whose write did not finish (part of a message may be on the wire); its muxer's
    end is counted as ``local: stuck write`` (:mod:`.conn_events`), not as the peer's."""
    setattr(session, ABANDONED, "stuck write")
    with trio.CancelScope(shield=True) as scope:
        scope.deadline = trio.current_time() + CLOSE_BOUND
        try:
            await session.close()
        except Exception as exc:  # already broken: closed enough
            log.debug("closing a session after a stuck write: %s", exc)


#: ``SecureSession.write`` as upstream ships it (kept for the patch's test).
_UPSTREAM: Any = None


def upstream_secure_write() -> Any:
    """Upstream's ``SecureSession.write`` (after :func:`atomic_secure_writes`; None before)."""
    return _UPSTREAM


#: ``TrioTCPStream.write`` as upstream ships it (kept for the patch's test).
_UPSTREAM_TCP: Any = None


def upstream_tcp_write() -> Any:
    """Upstream's ``TrioTCPStream.write`` (after :func:`atomic_secure_writes`; None before)."""
    return _UPSTREAM_TCP


__all__ = [
    "CLOSE_BOUND",
    "WRITE_BOUND",
    "WRITE_PIECE",
    "atomic_secure_writes",
    "upstream_secure_write",
    "upstream_tcp_write",
    "write_whole",
]
