"""Finding peers on the local network by multicast DNS (``[node] mdns = true``; off by default).

py-libp2p 0.8.1's ``MDNSDiscovery`` (zeroconf, the libp2p mDNS spec: service ``_p2p._udp.local``, the
addresses in ``dnsaddr`` TXT records) announces this node and hears the others. Its callbacks run in
zeroconf's threads and go to one process-wide registry, so :func:`run_mdns` registers a handler that only
hands each discovery to this node's trio task (through the trio token, into a bounded channel: when full,
discoveries are dropped; they come again), and dials the peers it hears of (at most
:data:`DIAL_CONCURRENCY` at once) through the node's one dial path. Announced addresses are the node's
listen addresses, wildcards expanded, loopback left out (py-libp2p would announce ``0.0.0.0``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from libp2p.discovery.events.peerDiscovery import peerDiscovery
from libp2p.discovery.mdns.mdns import MDNSDiscovery

from ioa_p2p.node.net.addrs import parse_direct, scope_of

log = logging.getLogger("ioa_p2p.mdns")

DIAL_CONCURRENCY = 4
QUEUE = 64


async def run_mdns(
    host: Any,
    listen_addrs: Callable[[], list[str]],
    dial: Callable[[Any, list[str]], Awaitable[Any]],
    is_connected: Callable[[Any], bool],
) -> None:
    """Announce and listen until cancelled; ``dial(peer_id, addrs)`` each peer heard of."""
    addrs = [a for a in listen_addrs() if scope_of(a) in ("private", "public")]
    ports = [d.port for d in (parse_direct(a) for a in addrs) if d is not None]
    if not ports:
        log.warning("[node].mdns is on but the node listens on no LAN address: nothing to announce")
        return
    token = trio.lowlevel.current_trio_token()
    send, receive = trio.open_memory_channel[Any](QUEUE)
    own = host.get_id()

    def deliver(info: Any) -> None:
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):  # full (comes again), closing
            send.send_nowait(info)

    def heard(info: Any) -> None:  # a zeroconf thread
        if info.peer_id != own:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(deliver, info)

    discovery = MDNSDiscovery(host.get_network(), port=ports[0], listen_addrs=addrs)
    peerDiscovery.register_peer_discovered_handler(heard)
    limiter = trio.CapacityLimiter(DIAL_CONCURRENCY)
    try:
        discovery.start()  # registers with zeroconf (brief), and starts the library's cleanup task
        log.info("mDNS: announcing %s", ", ".join(addrs))
        async with trio.open_nursery() as nursery, receive:
            async for info in receive:
                if not is_connected(info.peer_id):
                    nursery.start_soon(_dial_one, dial, info, limiter)
    finally:
        peerDiscovery.unregister_peer_discovered_handler(heard)
        send.close()
        try:
            discovery.stop()  # unregisters, ends the library's task, closes zeroconf (brief)
        except Exception as exc:  # zeroconf already closed
            log.debug("mDNS stop: %s", exc)


async def _dial_one(
    dial: Callable[[Any, list[str]], Awaitable[Any]], info: Any, limiter: trio.CapacityLimiter
) -> None:
    async with limiter:
        try:
            with trio.fail_after(10):
                await dial(info.peer_id, [str(a) for a in info.addrs])
            log.info("mDNS: connected to %s", info.peer_id)
        except (Exception, trio.TooSlowError) as exc:  # an unreachable LAN peer: it may announce again
            log.debug("mDNS: cannot reach %s: %s", info.peer_id, exc)


__all__ = ["run_mdns"]
