"""Outbound streams whose protocol negotiation rides with the first request (lazy multistream-select).

py-libp2p 0.8.1's ``host.new_stream`` negotiates before it returns: it writes the multistream header and
waits for the peer's, then writes the protocol and waits for its echo, so a request on a new stream costs
three round trips (two to negotiate, one for the request). :func:`open_lazy_stream` opens the muxed stream
without negotiating; the first write sends the header, the protocol and the request together, and the
first read takes the peer's header and protocol echo off the stream before the reply. A request on a new
stream then costs one round trip, as in go-libp2p's lazy client (the multistream-select spec lets a
dialer that proposes a single protocol send data after it without waiting; any conforming listener,
py-libp2p's included, reads its negotiation lines one at a time and leaves the data on the stream).

When the peer does not speak the protocol it answers ``na`` (and then reads our request as its next
negotiation line, refuses it and resets the stream): the first read raises
:class:`~ioa_p2p.errors.ProtocolViolation` naming the protocol, so a caller sees the refusal where it
reads the reply. Reads of the negotiation lines are bounded (:data:`MAX_LINE`); everything else is the
wrapped stream's (``close``, ``reset``, the muxed connection...).
"""

from __future__ import annotations

from typing import Any

from ioa_p2p.errors import ProtocolViolation

MULTISTREAM = b"/multistream/1.0.0"
NOT_SUPPORTED = b"na"
#: Bound on one negotiation line the peer sends back (ours are ~20 bytes).
MAX_LINE = 1024
READ_CHUNK = 64 * 1024


def negotiation_lines(protocol: str) -> bytes:
    """The multistream header and ``protocol``, each as a varint-length-prefixed, newline-ended line."""
    return _line(MULTISTREAM) + _line(protocol.encode())


async def open_lazy_stream(host: Any, peer: Any, protocol: str) -> LazyStream:
    """A stream of ``protocol`` to ``peer`` (a libp2p ``ID``) on a connection the swarm opens or reuses;
    negotiation happens with the first write (see the module docstring). Callers bound the wait."""
    stream = await host.get_network().new_stream(peer)
    return LazyStream(stream, protocol)


class LazyStream:
    """A muxed stream negotiating ``protocol`` lazily: :meth:`write` and :meth:`read` as a negotiated
    stream's, other attributes those of the wrapped stream."""

    def __init__(self, stream: Any, protocol: str) -> None:
        self.stream = stream
        self.protocol = protocol
        self._sent = False
        self._confirmed = False
        self._buffer = bytearray()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    async def write(self, data: bytes) -> None:
        if not self._sent:
            self._sent = True
            self.stream.set_protocol(self.protocol)
            data = negotiation_lines(self.protocol) + bytes(data)
        await self.stream.write(data)

    async def read(self, n: int | None = None) -> bytes:
        if not self._confirmed:
            if not self._sent:
                await self.write(b"")
            await self._confirm()
        if self._buffer:  # reply bytes that came with the negotiation lines
            size = len(self._buffer) if n is None or n < 0 else min(n, len(self._buffer))
            out = bytes(self._buffer[:size])
            del self._buffer[:size]
            return out
        return bytes(await self.stream.read(n))

    async def _confirm(self) -> None:
        header = await self._line()
        if header != MULTISTREAM:
            raise ProtocolViolation(
                f"peer answered {header[:64]!r} instead of the multistream-select header while opening "
                f"{self.protocol}"
            )
        echo = await self._line()
        if echo == NOT_SUPPORTED:
            raise ProtocolViolation(f"peer does not serve {self.protocol}")
        if echo != self.protocol.encode():
            raise ProtocolViolation(f"peer answered {echo[:64]!r} when asked for {self.protocol}")
        self._confirmed = True

    async def _line(self) -> bytes:
        """One negotiation line (without its newline) off the buffered stream."""
        while True:
            length, used = _uvarint(self._buffer)
            if length is not None:
                if length == 0 or length > MAX_LINE:
                    raise ProtocolViolation(
                        f"negotiation line of {length} bytes while opening {self.protocol}"
                    )
                while len(self._buffer) < used + length:
                    await self._fill()
                line = bytes(self._buffer[used : used + length])
                del self._buffer[: used + length]
                if not line.endswith(b"\n"):
                    raise ProtocolViolation(
                        f"negotiation line not ended by a newline while opening {self.protocol}"
                    )
                return line[:-1]
            await self._fill()

    async def _fill(self) -> None:
        chunk = await self.stream.read(READ_CHUNK)
        if not chunk:
            raise ProtocolViolation(f"stream closed during negotiation of {self.protocol}")
        self._buffer += chunk


def _line(text: bytes) -> bytes:
    return _uvarint_encode(len(text) + 1) + text + b"\n"


def _uvarint_encode(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _uvarint(data: bytearray) -> tuple[int | None, int]:
    value = 0
    for i, byte in enumerate(data[:10]):
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, i + 1
    if len(data) >= 10:
        raise ProtocolViolation("bad varint in a multistream-select line")
    return None, 0


__all__ = ["MAX_LINE", "LazyStream", "negotiation_lines", "open_lazy_stream"]
