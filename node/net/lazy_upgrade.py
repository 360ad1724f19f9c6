"""New connections whose multistream-select negotiations ride with the handshakes (dialer side).

py-libp2p 0.8.1 upgrades a dialled TCP connection in four sequential steps: multistream-select for the
security protocol (header, then protocol: two round trips), the Noise XX handshake, multistream-select
for the muxer (two more), then yamux. The node offers exactly one of each (Noise, yamux), so as the
dialer it sends the header and its single protocol together (:func:`negotiate_upgrades_lazily` patches
the ``GenericMultistreamSelector`` behind both steps):

- security, lazily: the selector returns at once and Noise's first message follows the lines; the
  listener's answer is taken off the connection by the next read (:func:`defer_echo`), i.e. with Noise's
  second message: no round trip of its own;
- muxer, pipelined: the lines go with Noise's third message and the selector waits for the answer (one
  round trip, not two). It waits because Noise XX authenticates the dialer only with its third message:
  the answer is the dialer's proof that the listener accepted its key (a refused dialer's ``connect``
  fails, as before; ``tests/test_hostile_libp2p.py``), and the listener's side of the connection exists
  once it came back;
- muxer, lazily, for a dial made to send a request (:func:`pipelined_dials`, which
  :func:`~ioa_p2p.node.net.kad_io.exchange` sets around its stream's open): the selector returns at once,
  so the first stream's frames (yamux's SYN, the stream's negotiation and the request) follow the muxer
  lines with Noise's third message, and the muxer's answer is taken off the connection by the muxer's
  first read (:func:`defer_echo`, bounded by the negotiation timeout). The listener was authenticated by
  Noise's second message, so the request goes encrypted to the very peer asked; what the dialer no
  longer knows before it sends is whether the listener accepted *its* key: a refusal now fails the
  request (the listener closes, the muxer's read fails and resets the stream) instead of the dial.

A dial then costs 3 round trips (TCP, Noise's first exchange, Noise's last message with the muxer lines)
instead of 5, and a dial made for a request 2 before the request (the request rides with Noise's last
message: dial and request together 3 round trips, not 4).

The multistream-select spec allows a dialer that proposes a single protocol to send data
after it without waiting (go-libp2p's lazy client does); a conforming listener reads its negotiation
lines one at a time, so the bytes after them wait on the connection. Listening is unchanged, and so are
dials through a circuit relay (:func:`_relayed`: relayed dials stalled with the lazy negotiation, the
cause was not found in time; they are rare and not on the DHT's path).

A refusal (``na``) or any other answer raises ``MultiselectClientError``, which the upgrader reports as a
failed negotiation. The lines read back are bounded (:data:`~ioa_p2p.node.net.lazy_select.MAX_LINE`).
``tests/test_lazy_select.py`` checks that the selector this patches still has the shape assumed here,
and dials real hosts both ways.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Any

import trio

from ioa_p2p.node.net.lazy_select import MAX_LINE, MULTISTREAM, NOT_SUPPORTED, negotiation_lines

#: Set (in this task and the tasks it starts) while a dial's first stream may go before the muxer's answer.
_PIPELINED: ContextVar[bool] = ContextVar("ioa_pipelined_dials", default=False)


@contextlib.contextmanager
def pipelined_dials() -> Iterator[None]:
    """Within: a dial this task starts (``new_stream`` to a peer without a connection) does not wait for
    the listener's muxer answer before the first stream goes out (see the module docstring). A dial of
    another task that waits for this one (py-libp2p shares a dial in progress) shares its connection."""
    token = _PIPELINED.set(True)
    try:
        yield
    finally:
        _PIPELINED.reset(token)


def negotiate_upgrades_lazily() -> None:
    """Patch ``GenericMultistreamSelector.select`` for the dialer with a single protocol (idempotent)."""
    from libp2p.abc import ISecureConn
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector
    from libp2p.protocol_muxer.multiselect import DEFAULT_NEGOTIATE_TIMEOUT

    upstream = GenericMultistreamSelector.select
    if getattr(upstream, "ioa_lazy", False):
        return

    async def select(self: Any, conn: Any, is_initiator: bool, *args: Any, **kwargs: Any) -> Any:
        if not is_initiator or len(self.handlers) != 1 or _relayed(conn):
            return await upstream(self, conn, is_initiator, *args, **kwargs)
        protocol, handler = next(iter(self.handlers.items()))
        try:
            await conn.write(negotiation_lines(str(protocol)))
        except Exception as exc:
            raise MultiselectClientError(f"writing the negotiation of {protocol} failed: {exc}") from exc
        if isinstance(conn, ISecureConn):  # the muxer: wait for the answer (the listener accepted us)
            timeout = args[0] if args else kwargs.get("negotiate_timeout", DEFAULT_NEGOTIATE_TIMEOUT)
            if _PIPELINED.get():  # ... unless a request is waiting: the muxer's first read takes it
                defer_echo(conn, str(protocol), within=timeout)
                return protocol, handler
            with trio.move_on_after(timeout) as scope:
                await read_echo(conn.read, str(protocol))
            if scope.cancelled_caught:
                raise MultiselectClientError(f"no answer to {protocol} within {timeout} s")
        else:  # security: the answer comes back with Noise's first message
            defer_echo(conn, str(protocol))
        return protocol, handler

    select.ioa_lazy = True  # type: ignore[attr-defined]
    GenericMultistreamSelector.select = select  # type: ignore[method-assign]


def _relayed(conn: Any) -> bool:
    """Whether ``conn`` runs over a circuit relay (those keep py-libp2p's negotiation: the lazy one stalled
    relayed dials in ``tests/test_relay.py``, cause not found)."""
    from libp2p.connection_types import ConnectionType

    try:
        return bool(conn.get_connection_type() == ConnectionType.RELAYED)
    except Exception:  # a connection that cannot tell
        return False


def defer_echo(conn: Any, protocol: str, *, within: float | None = None) -> None:
    """Make ``conn``'s next read first take the listener's answer (:func:`read_echo`) off the
    connection (``MultiselectClientError`` when it has not come ``within`` seconds of that read's
    start); from then on ``conn.read`` is the connection's own again."""
    from libp2p.protocol_muxer.exceptions import MultiselectClientError

    own_read = conn.read

    async def read(n: int | None = None) -> bytes:
        with trio.move_on_after(math.inf if within is None else within) as scope:
            await read_echo(own_read, protocol)
        if scope.cancelled_caught:
            raise MultiselectClientError(f"no answer to {protocol} within {within} s")
        if "read" in vars(conn):
            del conn.read  # the class's own read again
        return bytes(await own_read(n))

    conn.read = read


async def read_echo(read: Callable[[int], Awaitable[bytes]], protocol: str) -> None:
    """Read the listener's multistream header and its echo of ``protocol`` with ``read`` (raising
    ``MultiselectClientError`` on anything else). Exactly the lines' bytes are read (a secure session's
    ``read(n)`` waits for ``n`` bytes), so nothing after them needs holding."""
    from libp2p.protocol_muxer.exceptions import MultiselectClientError

    async def exactly(count: int) -> bytes:
        out = bytearray()
        while len(out) < count:
            chunk = await read(count - len(out))
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

    header = await line()
    if header != MULTISTREAM:
        raise MultiselectClientError(f"listener sent {header[:64]!r}, not the multistream header")
    echo = await line()
    if echo == NOT_SUPPORTED:
        raise MultiselectClientError(f"listener does not support {protocol}")
    if echo != protocol.encode():
        raise MultiselectClientError(f"listener answered {echo[:64]!r} to {protocol}")


__all__ = ["defer_echo", "negotiate_upgrades_lazily", "pipelined_dials", "read_echo"]
