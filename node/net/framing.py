"""Length-prefixed frames over a libp2p stream, with a buffered reader, size limits and deadlines.

Frame = unsigned LEB128 varint length (at most 4 bytes here) followed by that many bytes; for ``/ioa/...``
protocols the bytes are one canonical CBOR envelope (:mod:`ioa_p2p.wire`) or a documented CBOR map.

Why buffered: py-libp2p's own varint reader issues one stream read per byte (0.3-1 ms each); reading 64 KiB
at a time and parsing frames from a buffer is several times faster for small messages (field notes, trap 8).

Two deadlines bound a reader: ``read_timeout`` of silence between frames, and ``frame_timeout`` from the
first byte of a frame to its last (a whole-frame deadline: trickling one byte at a time does not extend
it). A frame not yet complete holds its announced length in the node's partial-frame budget
(:class:`ioa_p2p.budget.Ledger`, keyed by peer); a frame announced larger than what is left is refused
from its length prefix (:class:`~ioa_p2p.errors.OverBudget`), and a heavier peer's newest partial frame
may be evicted to make room (its reader then raises OverBudget too). Either way the stream is reset.

Every libp2p stream exception is translated here, once, into :mod:`ioa_p2p.errors` types.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import trio
from libp2p.network.stream.exceptions import StreamClosed, StreamEOF, StreamError, StreamReset

from ioa_p2p.budget import TRUST_STRANGER, Claim, Ledger
from ioa_p2p.errors import (
    InvalidMessage,
    IoAError,
    IoATimeout,
    MessageTooLarge,
    OverBudget,
    PeerClosed,
    ProtocolViolation,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import MAX_MESSAGE_SIZE, Envelope

READ_CHUNK = 64 * 1024
DEFAULT_READ_TIMEOUT = 30.0
DEFAULT_FRAME_TIMEOUT = 20.0
#: Refused frames (answered with an error) one stream may send before it is reset: a peer writing
#: garbage gets a typed answer for its first ones, not one answer per frame for ever.
MAX_REFUSED_FRAMES = 16
#: A stream ended by an error right after it answered (a refusal) waits this long at most, its sending side
#: closed, for the peer to read the answer and end its side before it is reset (:meth:`FramedStream.linger`)
LINGER_SECONDS = 3.0
#: Bytes the peer may still send a lingering stream (read and dropped) before it is reset at once.
LINGER_BYTES = 64 * 1024
_MAX_VARINT_BYTES = 4  # 2**28 - 1 > any frame we accept


encode_varint = canonical.encode_uvarint


def frame(data: bytes) -> bytes:
    return encode_varint(len(data)) + data


class FrameDecoder:
    """Pure incremental frame parser: feed bytes, take complete frames."""

    def __init__(self, max_size: int = MAX_MESSAGE_SIZE) -> None:
        self.max_size = max_size
        self._buffer = bytearray()
        #: length announced by the prefix of the incomplete frame at the head of the buffer (0: its
        #: prefix is not complete yet, or the buffer is empty); set by :meth:`next_frame`
        self.announced = 0

    def feed(self, data: bytes) -> None:
        self._buffer += data

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def clear(self) -> None:
        self._buffer = bytearray()
        self.announced = 0

    def next_frame(self, max_size: int | None = None) -> bytes | None:
        """A complete frame, or None when more bytes are needed. Raises on a bad or oversize prefix."""
        limit = self.max_size if max_size is None else max_size
        length = 0
        for i in range(min(len(self._buffer), _MAX_VARINT_BYTES)):
            byte = self._buffer[i]
            length |= (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                if i > 0 and byte == 0:
                    raise ProtocolViolation("frame length prefix is not minimally encoded")
                if length > limit:
                    raise MessageTooLarge(f"frame of {length} bytes is over the limit of {limit} bytes")
                start = i + 1
                if len(self._buffer) < start + length:
                    self.announced = length
                    return None
                data = bytes(self._buffer[start : start + length])
                del self._buffer[: start + length]
                self.announced = 0
                return data
        if len(self._buffer) >= _MAX_VARINT_BYTES:
            raise MessageTooLarge(f"frame length prefix longer than {_MAX_VARINT_BYTES} bytes")
        self.announced = 0
        return None


class FramedStream:
    """A libp2p stream speaking frames. ``remote`` is the authenticated (Noise) peer ID.

    ``budget``: the node's partial-frame ledger (None: unbudgeted, e.g. in tools), claimed with
    the peer's ``trust``; ``pace(remote)``: awaited before each frame is read, so that a peer that
    owes CPU time waits (see :meth:`ioa_p2p.node.net.budgets.NodeBudgets.pace`). The owner calls
    :meth:`close` or :meth:`reset` (or at least :meth:`release_budget`) when done with the stream."""

    def __init__(
        self,
        stream: Any,
        remote: PeerId,
        *,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        frame_timeout: float = DEFAULT_FRAME_TIMEOUT,
        max_size: int = MAX_MESSAGE_SIZE,
        budget: Ledger | None = None,
        trust: int = TRUST_STRANGER,
        pace: Callable[[PeerId], Awaitable[None]] | None = None,
    ) -> None:
        self._stream = stream
        self.remote = remote
        self.trust = trust
        self._pace = pace
        #: frames of this stream answered with a refusal (see :meth:`count_refusal`)
        self.refused = 0
        self.read_timeout = read_timeout
        self.frame_timeout = frame_timeout
        self._decoder = FrameDecoder(max_size)
        self._send_lock = trio.Lock()
        self._eof = False
        self._budget = budget
        self._claim: Claim | None = None
        self._evicted = False
        #: trio time the first byte of the incomplete frame in the buffer arrived (None: no such frame)
        self._frame_started: float | None = None
        self._last_read_at = 0.0
        self._read_scope: trio.CancelScope | None = None
        #: a frame went out since the last :meth:`receive` began (an answer a reset now could drop unread)
        self._answered = False

    @property
    def protocol(self) -> str:
        return str(self._stream.get_protocol())

    async def send(self, data: bytes) -> None:
        await self.send_many([data])

    async def send_many(self, frames: Iterable[bytes]) -> None:
        """Write several frames in one stream write (much faster than one write per frame)."""
        payload = b"".join(frame(f) for f in frames)
        lock = self._send_lock
        # A free lock is taken without yielding (``async with`` yields once: a loop iteration per
        # frame), the write being the schedule point; a cancelled send still writes nothing.
        await trio.lowlevel.checkpoint_if_cancelled()
        if lock.locked():
            await lock.acquire()
        else:
            lock.acquire_nowait()
        try:
            await self._stream.write(payload)
            self._answered = True
        except (StreamClosed, StreamReset, StreamEOF) as exc:
            raise PeerClosed(f"stream to {self.remote} closed while sending: {exc!r}") from None
        except StreamError as exc:
            raise PeerClosed(f"stream to {self.remote} failed while sending: {exc}") from None
        finally:
            lock.release()

    async def send_envelope(self, env: Envelope) -> None:
        await self.send(env.to_cbor())

    async def send_value(self, value: Any) -> None:
        """Send one canonical CBOR value (for protocol control messages that are not envelopes)."""
        await self.send(canonical.encode(value))

    async def receive(self, *, max_size: int | None = None) -> bytes:
        """The next frame. Raises PeerClosed at a clean end of stream, ProtocolViolation mid-frame,
        MessageTooLarge over the limit, IoATimeout after ``read_timeout`` seconds of silence or when a
        frame is not complete ``frame_timeout`` seconds after its first byte, OverBudget when the frame
        does not fit the partial-frame budget. After any of these the stream is unusable: reset it."""
        decoder = self._decoder
        self._answered = False
        if self._pace is not None:
            await self._pace(self.remote)
        try:
            while True:
                data = decoder.next_frame(max_size)
                if data is not None:
                    if self._claim is not None:
                        self.release_budget()
                    self._frame_started = None
                    return data
                if self._evicted:  # (its bytes were dropped: the buffer is empty)
                    raise self._eviction_error()
                if decoder.buffered:
                    # bytes left of a frame arrived with the last read at the latest
                    if self._frame_started is None:
                        self._frame_started = self._last_read_at
                    if decoder.announced and self._claim is None and self._budget is not None:
                        self._claim_partial_frame(self._budget, decoder.announced)
                if self._eof:
                    if decoder.buffered:
                        raise ProtocolViolation(f"{self.remote} closed the stream in the middle of a frame")
                    raise PeerClosed(f"{self.remote} closed the stream")
                chunk = await self._read_chunk()
                if chunk:
                    decoder.feed(chunk)
                else:
                    self._eof = True
        except IoAError:
            self.release_budget()
            raise

    def _claim_partial_frame(self, budget: Ledger, announced: int) -> None:
        self._claim = budget.try_claim(self.remote, announced, self._on_evicted, self.trust)
        if self._claim is None:
            raise OverBudget(
                f"{self.remote} announced a frame of {announced} bytes on {self.protocol}, more than "
                f"the partial-frame budget has left for it ({budget.room(self.remote, self.trust)} "
                "bytes); stream reset"
            )

    def count_refusal(self) -> None:
        """Call after answering a frame with a refusal: past :data:`MAX_REFUSED_FRAMES` on this
        stream, raises ProtocolViolation (the caller's boundary resets the stream), so garbage
        costs a peer its stream instead of one answer per frame."""
        self.refused += 1
        if self.refused >= MAX_REFUSED_FRAMES:
            raise ProtocolViolation(
                f"{self.remote} sent {self.refused} refused frames on {self.protocol}; stream reset"
            )

    def _on_evicted(self) -> None:
        """The ledger took this stream's partial frame back for a lighter peer: drop it, stop reading."""
        self._claim = None
        self._evicted = True
        self._decoder.clear()
        if self._read_scope is not None:
            self._read_scope.cancel()

    def _eviction_error(self) -> OverBudget:
        return OverBudget(
            f"the partial frame of {self.remote} on {self.protocol} was evicted: the node's "
            "partial-frame budget was full and this peer held the most; stream reset"
        )

    async def _read_chunk(self) -> bytes:
        idle_deadline = trio.current_time() + self.read_timeout
        frame_deadline = math.inf
        if self._frame_started is not None:
            frame_deadline = self._frame_started + self.frame_timeout
        try:
            with trio.CancelScope(deadline=min(idle_deadline, frame_deadline)) as scope:
                self._read_scope = scope
                data = bytes(await self._stream.read(READ_CHUNK))
                self._last_read_at = trio.current_time()
                return data
        except StreamEOF:
            return b""
        except (StreamReset, StreamClosed) as exc:
            raise PeerClosed(f"{self.remote} reset the stream: {exc!r}") from None
        except StreamError as exc:
            raise PeerClosed(f"stream from {self.remote} failed: {exc}") from None
        finally:
            self._read_scope = None
        # Only reached when our scope was cancelled: by an eviction or by one of the deadlines.
        if self._evicted:
            raise self._eviction_error()
        if frame_deadline < idle_deadline:
            raise IoATimeout(
                f"{self.remote} did not complete a frame within {self.frame_timeout:.1f} s on "
                f"{self.protocol} ({self._decoder.buffered} bytes of it arrived)"
            )
        raise IoATimeout(f"{self.remote} sent nothing for {self.read_timeout:.1f} s on {self.protocol}")

    def release_budget(self) -> None:
        """Give back what this stream holds in the partial-frame budget (idempotent)."""
        claim, self._claim = self._claim, None
        if claim is not None and self._budget is not None:
            self._budget.release(claim)

    async def receive_value(self, *, max_size: int | None = None) -> Any:
        data = await self.receive(max_size=max_size)
        try:
            return canonical.decode(data)
        except InvalidMessage as exc:
            raise ProtocolViolation(f"{self.remote} sent a malformed frame: {exc}") from exc

    async def receive_envelope(self) -> Envelope:
        """The next frame as a verified envelope; a bad one raises ProtocolViolation (stream stays usable)."""
        data = await self.receive()
        try:
            return Envelope.from_cbor(data)
        except InvalidMessage as exc:
            raise ProtocolViolation(f"{self.remote} sent an invalid envelope: {exc}") from exc

    async def close(self) -> None:
        self.release_budget()
        with contextlib.suppress(Exception):  # closing a broken stream: nothing left to do
            await self._stream.close()

    async def linger(self) -> None:
        """Before a reset that ends the stream after an error: when the stream's last act was an answer
        (a refusal sent before raising), close its sending side and wait for the peer to end its side,
        reading and dropping what it still sends, for :data:`LINGER_SECONDS` and :data:`LINGER_BYTES`
        at most. A reset sent right behind the answer reaches the peer in the same read under load, and
        its yamux drops a reset stream's unread bytes: the peer saw the stream reset, not the refusal.
        Returns at once when nothing was sent since the last receive."""
        if not self._answered:
            return
        self._answered = False
        self.release_budget()
        self._decoder.clear()
        drained = 0
        with trio.move_on_after(LINGER_SECONDS):
            try:
                await self._stream.close()
                while drained < LINGER_BYTES:
                    chunk = await self._stream.read(READ_CHUNK)
                    if not chunk:
                        return
                    drained += len(chunk)
            except Exception:  # the peer reset or closed it, or the connection broke: nothing to wait for
                return

    async def reset(self) -> None:
        self.release_budget()
        self._decoder.clear()
        with contextlib.suppress(Exception):
            await self._stream.reset()

    async def __aenter__(self) -> FramedStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
