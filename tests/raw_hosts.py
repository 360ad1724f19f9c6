"""py-libp2p hosts run directly by tests (hostile peers, upstream behaviour checks), closed as a node closes.

``host.run`` alone, left by cancellation or an exception, marks its connections closed but leaves their
sockets to the garbage collector ("ResourceWarning: unclosed <socket.socket ...>" in a later test);
:func:`run_raw_host` closes every connection and its socket on the way out, as ``open_network`` does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import multiaddr
from libp2p.peer.peerinfo import PeerInfo

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.conn_events import ConnectionEvents, watch_connections
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.network import close_host

LOOPBACK = "/ip4/127.0.0.1/tcp/0"


@asynccontextmanager
async def run_raw_host(host: Any, *listen: str) -> AsyncIterator[Any]:
    """Run ``host`` listening on ``listen`` (loopback, a port the OS picks, by default) until the block
    exits, then close every connection (shielded, bounded) before py-libp2p's own teardown."""
    addrs = [multiaddr.Multiaddr(a) for a in (listen or (LOOPBACK,))]
    async with host.run(listen_addrs=addrs):
        try:
            yield host
        finally:
            await close_host(host)


@asynccontextmanager
async def watched_pair(
    proto: str, handler: Callable[[Any], Awaitable[None]]
) -> AsyncIterator[tuple[Any, Any, ConnectionEvents, ConnectionEvents]]:
    """Two Noise hosts, each with its connection events watched, ``b`` serving ``proto`` with ``handler``,
    ``a`` connected to ``b``: (a, b, a's events, b's events)."""
    a, b = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    events_a, events_b = ConnectionEvents(), ConnectionEvents()
    watch_connections(a, events_a)
    watch_connections(b, events_b)
    b.set_stream_handler(proto, handler)
    async with run_raw_host(a), run_raw_host(b):
        await a.connect(PeerInfo(b.get_id(), b.get_addrs()))
        yield a, b, events_a, events_b
