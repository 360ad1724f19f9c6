"""Round-trip time to a connected peer over libp2p's ``/ipfs/ping/1.0.0`` (served by every py-libp2p host).

py-libp2p's own ping rounds to whole milliseconds, which on a LAN or loopback is 0; this measures in
fractions of a millisecond. The caller bounds the wait with its own cancel scope.
"""

from __future__ import annotations

import secrets
from contextlib import suppress
from typing import Any

import trio

from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import to_libp2p_id

PING_PROTOCOL = "/ipfs/ping/1.0.0"
PING_LENGTH = 32


async def ping_rtt(host: Any, peer: PeerId) -> float | None:
    """The round-trip time to ``peer`` in milliseconds, or None (a wrong answer, an error)."""
    stream = None
    try:
        stream = await host.new_stream(to_libp2p_id(peer), [PING_PROTOCOL])
        payload = secrets.token_bytes(PING_LENGTH)
        started = trio.current_time()
        await stream.write(payload)
        echoed = b""
        while len(echoed) < PING_LENGTH:
            chunk = await stream.read(PING_LENGTH - len(echoed))
            if not chunk:
                return None
            echoed += chunk
        elapsed = (trio.current_time() - started) * 1000
        return elapsed if echoed == payload else None
    except Exception:  # any failure of the peer or the stream: no latency to show
        return None
    finally:
        if stream is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(1), suppress(Exception):
                await stream.close()


__all__ = ["PING_PROTOCOL", "ping_rtt"]
