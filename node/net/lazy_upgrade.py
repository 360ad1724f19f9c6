"""New connections whose multistream-select negotiations ride with the handshakes (lazy select, dialer side).

py-libp2p 0.8.1 upgrades a dialled TCP connection in four sequential steps: multistream-select for the
security protocol (header, then protocol: two round trips), the Noise XX handshake, multistream-select
for the muxer (two more), then yamux. The node offers exactly one of each (Noise, yamux), so as the
dialer it need not wait for either answer: :func:`negotiate_upgrades_lazily` makes the selector (the one
``GenericMultistreamSelector`` behind both steps) write the header and its single protocol and return at
once; the listener's header and echo are taken off the connection by its next read
(:func:`defer_echo`), i.e. with the first Noise message back, and with the first yamux frame. A dial then
costs the TCP handshake and Noise's first exchange before the first request goes out (Noise's third
message, the muxer lines and the request's stream travel together): 2 round trips instead of 5. The
multistream-select spec allows this to a dialer that proposes a single protocol (go-libp2p's lazy
client does the same); a conforming listener reads its negotiation lines one at a time, so the bytes
after them wait on the connection. Listening is unchanged.

When the listener refuses the protocol (``na``) or answers something else, that read raises
``MultiselectClientError``: during Noise the upgrade fails as any failed negotiation does; during yamux
the connection closes (yamux ends on any read error). The lines read back are bounded
(:data:`~ioa_p2p.node.net.lazy_select.MAX_LINE`).

``tests/test_lazy_select.py`` checks that the selector this patches still has the signature and the
single-caller shape assumed here, and dials real hosts both ways (lazy dialer to a stock listener).
"""

from __future__ import annotations

from typing import Any

from ioa_p2p.node.net.lazy_select import MAX_LINE, MULTISTREAM, NOT_SUPPORTED, negotiation_lines


def negotiate_upgrades_lazily() -> None:
    """Patch ``GenericMultistreamSelector.select`` for the dialer with a single protocol (idempotent)."""
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector

    upstream = GenericMultistreamSelector.select
    if getattr(upstream, "ioa_lazy", False):
        return

    async def select(self: Any, conn: Any, is_initiator: bool, *args: Any, **kwargs: Any) -> Any:
        if not is_initiator or len(self.handlers) != 1:
            return await upstream(self, conn, is_initiator, *args, **kwargs)
        protocol, handler = next(iter(self.handlers.items()))
        try:
            await conn.write(negotiation_lines(str(protocol)))
        except Exception as exc:
            raise MultiselectClientError(f"writing the negotiation of {protocol} failed: {exc}") from exc
        defer_echo(conn, str(protocol))
        return protocol, handler

    select.ioa_lazy = True  # type: ignore[attr-defined]
    GenericMultistreamSelector.select = select  # type: ignore[method-assign]


def defer_echo(conn: Any, protocol: str) -> None:
    """Make ``conn``'s next read first take the listener's multistream header and its echo of
    ``protocol`` off the connection (raising ``MultiselectClientError`` on anything else); from then on
    ``conn.read`` is the connection's own again. Exactly the lines' bytes are read (a secure session's
    ``read(n)`` waits for ``n`` bytes), so nothing after them needs holding."""
    from libp2p.protocol_muxer.exceptions import MultiselectClientError

    own_read = conn.read

    async def exactly(count: int) -> bytes:
        out = bytearray()
        while len(out) < count:
            chunk = await own_read(count - len(out))
            if not chunk:
                raise MultiselectClientError(f"connection closed during the negotiation of {protocol}")
            out += chunk
        return bytes(out)

    async def line() -> bytes:
        length = shift = 0
        for _ in range(10):
            byte = (await exactly(1))[0]
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        else:
            raise MultiselectClientError(f"bad varint in the negotiation of {protocol}")
        if length == 0 or length > MAX_LINE:
            raise MultiselectClientError(f"negotiation line of {length} bytes for {protocol}")
        text = await exactly(length)
        if not text.endswith(b"\n"):
            raise MultiselectClientError(f"negotiation line without a newline for {protocol}")
        return text[:-1]

    async def read(n: int | None = None) -> bytes:
        header = await line()
        if header != MULTISTREAM:
            raise MultiselectClientError(f"listener sent {header[:64]!r}, not the multistream header")
        echo = await line()
        if echo == NOT_SUPPORTED:
            raise MultiselectClientError(f"listener does not support {protocol}")
        if echo != protocol.encode():
            raise MultiselectClientError(f"listener answered {echo[:64]!r} to {protocol}")
        if "read" in vars(conn):
            del conn.read  # the class's own read again
        return bytes(await own_read(n))

    conn.read = read


__all__ = ["defer_echo", "negotiate_upgrades_lazily"]
