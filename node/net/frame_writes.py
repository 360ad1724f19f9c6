"""Patch 28 of :mod:`ioa_p2p.node.net.libp2p_patches`: a yamux frame goes out at once when it can, and a
connection's reader never waits behind its write lock.

**The problem** (issue 26, docs/performance.md "The yamux write lock is a convoy"). py-libp2p 0.8.1's
``Yamux._write_frame`` writes every frame of a connection under one FIFO ``trio.Lock``; taking it, the TCP
stream's own lock, the socket send and a trailing checkpoint are each a schedule point, so a frame holds
the lock for 4-5 scheduler turns, and in a CPU-starved process a turn is long: a queue of k frames keeps
the lock k x 4-5 turns. The muxer's reader writes each new stream's ACK (and RSTs, PING answers) under
the same lock and reads nothing meanwhile, so the peer's negotiations and identify time out.

**What we do.** :func:`write_frames_at_once` replaces ``Yamux._write_frame`` with :func:`write_frame`:

- *at once*: when the lock is free, nothing is left over from an earlier frame and the connection is
  Noise straight over TCP (:class:`Wire`), the queued control frames and the frame are encrypted and
  handed to the socket synchronously: the lock is taken and released with no schedule point between.
  What the socket does not take (its buffer is full) is the connection's *tail*, sent before anything
  else by the next holder of the lock or by the connection's *lane* (a task of the connection, started
  when needed, that takes the lock and sends what is pending).
- *control frames never wait*: a header-only WINDOW_UPDATE (a stream's SYN or ACK, FIN, RST, window
  credit) or a PING answer that cannot go at once is queued (at most :data:`CONTROL_BOUND` per
  connection) and sent by the lock's next holder or the lane; only when the queue is full does its writer
  wait for the lock, as upstream's did.
- otherwise (the lock is held, a tail is pending, a connection that is not Noise over TCP, e.g. relayed)
  the writer waits for the lock as upstream's did, then sends the tail, the queued control frames and its
  frame, in that order, without a schedule point unless the socket's buffer is full.

Patch 25's guarantee is kept: a secure write is whole or not at all. A frame is encrypted only when it is
sent at once or under the lock; bytes encrypted and not yet taken by the socket (the tail) are always
sent, first, before anything else; a writer cancelled before it holds the lock sends nothing; what a
holder sends is shielded and bounded from its last progress
(:func:`~ioa_p2p.node.net.atomic_writes.write_whole`: a write stuck that long closes the connection).
A queued frame is never withdrawn (withdrawing frames is what broke the batching tried in l-cards). The
order on the wire is the order in which writers got the lock, queued control frames before the frame of
the writer that sends them. ``tests/test_frame_writes.py`` (real hosts on 127.0.0.1): a frame on a free
lock lets no other task run; a connection whose write lock is held still reads (new streams, data,
pings) and answers once the lock is free; streams opened at once under a busy loop; tails in order.
"""

from __future__ import annotations

import logging
from typing import Any

import trio

from ioa_p2p.node.net.atomic_writes import write_whole

log = logging.getLogger("ioa_p2p.net")

#: Control frames queued per connection at most (12 bytes each); past it their writers wait for the lock.
CONTROL_BOUND = 1024
#: Rounds of queued control frames one holder of the lock sends before it lets go (the lane sends the rest).
HOLDER_ROUNDS = 4
#: Plaintext bytes per Noise transport message (65,535 less the 16-byte tag; py-libp2p's limit).
MAX_PLAINTEXT = 65535 - 16
HEADER_SIZE = 12
TYPE_WINDOW_UPDATE = 0x1
TYPE_PING = 0x2
FLAG_ACK = 0x2

#: Upstream's ``Yamux._write_frame`` (None before the patch).
_UPSTREAM: Any = None


def is_control(frame: bytes) -> bool:
    """A header-only WINDOW_UPDATE (SYN, ACK, FIN, RST or window credit) or a PING answer."""
    if len(frame) != HEADER_SIZE:
        return False
    return frame[1] == TYPE_WINDOW_UPDATE or (frame[1] == TYPE_PING and bool(frame[3] & FLAG_ACK))


class Wire:
    """A Noise session straight over a TCP socket: what a frame needs to be encrypted and sent
    synchronously. :meth:`of` gives None for any other stack (relayed, wrapped, a test double)."""

    __slots__ = ("noise", "sock", "tcp")

    def __init__(self, noise: Any, tcp: Any, sock: Any) -> None:
        self.noise, self.tcp, self.sock = noise, tcp, sock

    @classmethod
    def of(cls, secured: Any) -> Wire | None:
        from libp2p.io.trio import TrioTCPStream
        from libp2p.security.noise.io import NoisePacketReadWriter, NoiseTransportReadWriter
        from libp2p.security.secure_session import SecureSession

        try:
            noise = secured.conn
            packets = noise.read_writer
            raw = packets.read_write_closer
            tcp = raw.stream
            sock = tcp.stream.socket._sock
        except AttributeError:
            return None
        exact = (
            type(secured) is SecureSession
            and type(noise) is NoiseTransportReadWriter
            and type(packets) is NoisePacketReadWriter
            and packets.size_len_bytes == 2
            and type(tcp) is TrioTCPStream
            and isinstance(tcp.stream, trio.SocketStream)
        )
        replaced = (
            "write" in vars(secured)
            or {"write_msg", "encrypt"} & vars(noise).keys()
            or "write_msg" in vars(packets)
            or "write" in vars(raw)
            or "write" in vars(tcp)
        )
        return cls(noise, tcp, sock) if exact and not replaced else None

    def ready(self) -> bool:
        """Nobody is in the middle of a write on the TCP stream."""
        return not self.tcp.write_lock.locked()

    def seal(self, plain: bytes) -> bytes:
        """``plain`` as Noise transport messages (2-byte length, ciphertext), each spending a nonce."""
        out = bytearray()
        for start in range(0, len(plain), MAX_PLAINTEXT):
            sealed = self.noise.encrypt(plain[start : start + MAX_PLAINTEXT])
            out += len(sealed).to_bytes(2, "big")
            out += sealed
        return bytes(out)

    def send(self, data: bytes) -> int:
        """How many bytes the socket took now (0: its buffer is full). A socket closed here takes
        everything, silently, as upstream's write returns; a broken one raises ``ConnectionClosedError``."""
        from libp2p.io.exceptions import ConnectionClosedError

        try:
            return int(self.sock.send(data))
        except BlockingIOError:
            return 0
        except OSError as error:
            if self.sock.fileno() == -1:
                return len(data)
            raise ConnectionClosedError(
                f"TCP connection reset by remote peer: {error}", transport="tcp"
            ) from error


class FrameWriter:
    """One yamux connection's writes (see the module docstring); its counters say which path each took."""

    __slots__ = ("at_once", "broken", "conn", "control", "lane", "queued", "tail", "tails", "waited", "wire")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.wire = Wire.of(conn.secured_conn)
        self.control: list[bytes] = []
        self.tail = b""
        self.lane = False
        self.broken: str | None = None
        self.at_once = self.queued = self.waited = self.tails = 0

    @property
    def pending(self) -> bool:
        return bool(self.control or self.tail)

    def write_now(self, frame: bytes) -> bool:
        """Send the queued control frames and ``frame`` now, without a schedule point, if the lock is free
        and nothing is left over; False (nothing done) otherwise. The socket's leftovers become the tail."""
        wire, lock = self.wire, self.conn._write_lock
        if wire is None or self.tail or self.broken is not None or lock.locked() or not wire.ready():
            return False
        try:
            lock.acquire_nowait()
        except trio.WouldBlock:
            return False
        try:
            self._send_now(wire, frame)
        finally:
            lock.release()
        self.at_once += 1
        if self.tail:
            self._start_lane()
        return True

    def queue(self, frame: bytes) -> bool:
        """Queue a control frame for the lock's next holder or the lane; False when the queue is full or
        the connection has no lane any more (then the writer waits for the lock)."""
        if len(self.control) >= CONTROL_BOUND or not self._start_lane():
            return False
        self.control.append(frame)
        self.queued += 1
        return True

    async def write_locked(self, frame: bytes | None) -> None:
        """Under the lock: the tail, the queued control frames, then ``frame``; shielded (what was
        encrypted goes out whole) and bounded by ``write_whole`` from the last progress."""
        if self.broken is not None:
            from libp2p.io.exceptions import ConnectionClosedError

            raise ConnectionClosedError(f"the connection broke in an earlier write: {self.broken}")
        with trio.CancelScope(shield=True):
            try:
                for _ in range(HOLDER_ROUNDS):
                    if self.tail:
                        await self._send_tail()
                    if not self.control and frame is None:
                        return
                    if self.wire is not None and self.wire.ready():
                        self._send_now(self.wire, frame)
                    else:
                        plain = self._take(frame)
                        await self.conn.secured_conn.write(plain)
                    frame = None
                if self.tail:
                    await self._send_tail()
            except Exception as exc:
                self.broken = f"{type(exc).__name__}: {exc}"
                raise

    def after_release(self) -> None:
        """What a holder left (its rounds ran out, or it failed) goes with the lane."""
        if self.pending and self.broken is None:
            self._start_lane()

    def _take(self, frame: bytes | None) -> bytes:
        parts, self.control = self.control, []
        if frame is not None:
            parts.append(frame)
        return b"".join(parts)

    def _send_now(self, wire: Wire, frame: bytes | None) -> None:
        try:
            sealed = wire.seal(self._take(frame))
            sent = wire.send(sealed)
        except Exception as exc:
            self.broken = f"{type(exc).__name__}: {exc}"
            raise
        if sent < len(sealed):
            self.tail = sealed[sent:]
            self.tails += 1

    async def _send_tail(self) -> None:
        tail, self.tail = self.tail, b""
        tcp = self.wire.tcp if self.wire is not None else None
        if tcp is None:  # cannot happen: only a Wire leaves a tail
            raise RuntimeError("a yamux tail without a TCP stream")
        await write_whole(self.conn.secured_conn, len(tail), lambda: tcp.write(tail))

    def _start_lane(self) -> bool:
        if self.lane:
            return True
        nursery = getattr(self.conn, "_nursery", None)
        if nursery is None or self.conn.event_shutting_down.is_set() or self.broken is not None:
            return False
        try:
            nursery.start_soon(self._run_lane)
        except RuntimeError:  # the connection's nursery is closed
            return False
        self.lane = True
        return True

    async def _run_lane(self) -> None:
        try:
            async with self.conn._write_lock:
                await self.write_locked(None)
        except Exception as exc:  # the connection broke: its reader sees it and closes it
            log.debug("yamux lane of %s: %s", getattr(self.conn, "peer_id", "?"), exc)
        finally:
            self.lane = False
        self.after_release()


def writer_of(conn: Any) -> FrameWriter:
    """The connection's :class:`FrameWriter` (made at its first frame)."""
    writer: FrameWriter | None = getattr(conn, "ioa_frames", None)
    if writer is None:
        writer = conn.ioa_frames = FrameWriter(conn)
    return writer


async def write_frame(conn: Any, data: bytes) -> None:
    """``Yamux._write_frame`` as patch 28 makes it (module docstring)."""
    writer = writer_of(conn)
    await trio.lowlevel.checkpoint_if_cancelled()
    if writer.write_now(data):
        if writer.tail and not writer.lane:  # no lane to leave it to: the connection is closing
            await _wait_and_write(conn, writer, None)
        return
    if is_control(data) and writer.queue(data):
        return
    await _wait_and_write(conn, writer, data)


async def _wait_and_write(conn: Any, writer: FrameWriter, frame: bytes | None) -> None:
    writer.waited += 1
    async with conn._write_lock:
        await writer.write_locked(frame)
    writer.after_release()


def write_frames_at_once() -> None:
    """Install patch 28 (idempotent, process-wide)."""
    global _UPSTREAM
    from libp2p.stream_muxer.yamux.yamux import Yamux

    upstream = getattr(Yamux, "_write_frame", None)
    if upstream is None:
        raise RuntimeError("py-libp2p's Yamux has no _write_frame any more: revisit patch 28 (frame_writes)")
    if getattr(upstream, "ioa_at_once", False):
        return
    _UPSTREAM = upstream

    async def _write_frame(self: Any, data: bytes) -> None:
        await write_frame(self, data)

    _write_frame.ioa_at_once = True  # type: ignore[attr-defined]
    Yamux._write_frame = _write_frame  # type: ignore[method-assign]


def upstream_write_frame() -> Any:
    """Upstream's ``Yamux._write_frame`` (after :func:`write_frames_at_once`; None before)."""
    return _UPSTREAM


__all__ = [
    "CONTROL_BOUND",
    "HOLDER_ROUNDS",
    "FrameWriter",
    "Wire",
    "is_control",
    "upstream_write_frame",
    "write_frame",
    "write_frames_at_once",
    "writer_of",
]
