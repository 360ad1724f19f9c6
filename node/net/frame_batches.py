"""Patch 27 of :mod:`ioa_p2p.node.net.libp2p_patches`: yamux frames queued on a connection go out together.

**The problem (issue 26, cards and invitations across processes).** py-libp2p's yamux writes every frame
under the connection's write lock (``Yamux._write_frame``): take the lock, encrypt and send, release it,
then one more checkpoint. A write is ~5 turns of the event loop (the lock's checkpoints, the secure
write's, the socket's, the trailing one), and trio's lock hands over in FIFO order, one waiter per turn.
On a loop that serves many agents on a fraction of a core a turn takes 0.1-0.5 s, so a connection with
a dozen frames queued (identify, GossipSub, DHT requests and answers, the reader's own ACKs and window
updates) wrote a few frames a second. The reader task writes the ACK of each new inbound stream under
the same lock, so it stopped reading while it waited: the peer's frames piled up unread in the socket,
and a new stream's negotiation outlasted its 10 s bound at both ends. Measured with
``bench/cross_diag.py --groups 2 --per-group 10`` (2026-11-28, load 13-33, the process 25-50 % of a
core): 5 of 6 connections between the groups had their write lock taken, 57-100 tasks queued on write
locks, 4-22 KB unread in each socket and nothing unsent (``TIOCOUTQ`` 0); every ping stream opened
between the groups failed after 12-48 s, 146 of 180 identifies between them failed, and no card
crossed between the groups in 60 s.

**What we do.** :func:`batch_yamux_writes` replaces ``Yamux._write_frame``: a frame is appended to the
connection's open batch (:class:`FrameBatches`); the writer that finds no write under way writes the whole
batch in one secure write (one Noise message up to 64 KiB, more when the batch is larger), then the
batch that filled meanwhile, until none is left; the others wait for their batch to be written (and get
its error, if any). Frames keep their order (a batch is written in the order its frames came, batches in
turn). A writer cancelled while its frame waits for the write under way withdraws it (nothing of it was
sent); once its batch is being written, the frame goes out whole whatever happens to its writer, as with
the atomic secure writes (patch 25), within the secure write's own bound
(:data:`~ioa_p2p.node.net.atomic_writes.WRITE_BOUND` without progress). The writer that writes also writes
the batches queued meanwhile (shielded: each within that bound), so a caller's deadline can be overrun
by those writes. A failed write fails every
batch still queued on that connection (the connection is broken: they could not go out in order).
"""

from __future__ import annotations

from typing import Any

import trio


class _Batch:
    """Frames waiting to go out together, and how their write ended."""

    __slots__ = ("done", "error", "frames", "size")

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.size = 0
        self.done = trio.Event()
        self.error: BaseException | None = None


class FrameBatches:
    """One connection's queue of frames (see the module docstring); ``write`` is its ``_write_frame``."""

    __slots__ = ("_open", "_writing", "batches", "frames")

    def __init__(self) -> None:
        self._open: _Batch | None = None
        self._writing = False
        #: secure writes made and frames they carried (for tests and figures)
        self.batches = 0
        self.frames = 0

    async def write(self, send: Any, data: bytes) -> None:
        """Queue ``data`` (one whole yamux frame) and return once it was written by ``send`` (the secure
        connection's write), alone or with the frames queued beside it; raise the write's error."""
        await trio.lowlevel.checkpoint_if_cancelled()  # cancelled already: nothing queued
        batch = self._open
        if batch is None:
            batch = self._open = _Batch()
        batch.frames.append(bytes(data))
        batch.size += len(data)
        if self._writing:  # the writer under way takes this batch next
            try:
                await batch.done.wait()
            except trio.Cancelled:
                if batch is self._open:  # not taken yet: withdrawn, nothing of it was sent
                    batch.frames.remove(data)
                    batch.size -= len(data)
                    raise
                with trio.CancelScope(shield=True):  # being written: it goes out whole first
                    await batch.done.wait()
                raise
        else:
            self._writing = True
            try:
                with trio.CancelScope(shield=True):  # queued frames go out whatever our caller does
                    await self._flush(send)
            finally:
                self._writing = False
        if batch.error is not None:
            raise batch.error
        await trio.lowlevel.checkpoint_if_cancelled()

    async def _flush(self, send: Any) -> None:
        while self._open is not None:
            batch, self._open = self._open, None
            try:
                await send(b"".join(batch.frames))
            except BaseException as exc:
                batch.error = exc
                batch.done.set()
                self._fail_queued(exc)
                return
            self.batches += 1
            self.frames += len(batch.frames)
            batch.done.set()

    def _fail_queued(self, error: BaseException) -> None:
        """The connection broke: the batch queued behind the failed one cannot go out in order."""
        batch, self._open = self._open, None
        if batch is not None:
            batch.error = error
            batch.done.set()


def batches_of(conn: Any) -> FrameBatches:
    """The frame queue of a yamux connection (made on first use)."""
    batches: FrameBatches | None = conn.__dict__.get("_ioa_frame_batches")
    if batches is None:
        batches = conn.__dict__["_ioa_frame_batches"] = FrameBatches()
    return batches


_UPSTREAM: Any = None


def upstream_write_frame() -> Any:
    """py-libp2p's own ``Yamux._write_frame`` (for the sentinel tests of patches that rely on it)."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    return _UPSTREAM if _UPSTREAM is not None else Yamux._write_frame


def batch_yamux_writes() -> None:
    """Replace ``Yamux._write_frame`` with the batched write (idempotent, process-wide)."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    upstream = getattr(Yamux, "_write_frame", None)
    if upstream is None:
        raise RuntimeError(
            "py-libp2p's Yamux has no _write_frame/secured_conn any more: revisit libp2p_patches"
        )
    if getattr(upstream, "ioa_batched", False):
        return
    global _UPSTREAM
    _UPSTREAM = upstream

    async def _write_frame(self: Any, data: bytes) -> None:
        await batches_of(self).write(self.secured_conn.write, data)

    _write_frame.ioa_batched = True  # type: ignore[attr-defined]
    Yamux._write_frame = _write_frame  # type: ignore[method-assign]


__all__ = ["FrameBatches", "batch_yamux_writes", "batches_of", "upstream_write_frame"]
