"""Peer routing: the node's Kademlia DHT instance, bootstrap dialing, and connecting to peers it learns.

The node owns exactly one ``KadDHT`` (server mode, strict validation: a key whose namespace has no registered
validator is refused). Services that store records (discovery) register their namespace validators on
``node.dht`` with ``register_validator(namespace, validator)`` before putting anything; they never make a
second DHT.

Bootstrap: each configured bootstrap multiaddr is dialed until connected, with exponential backoff
(``bootstrap_backoff`` doubling to ``bootstrap_backoff_max``), and re-dialed if the connection drops. Once
connected, the peer joins the routing table and a routing-table refresh (a lookup of our own key) brings in
the peers closest to us, which we then connect to, so peers that only share a bootstrap node meet each other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import trio
from libp2p.kad_dht.kad_dht import DHTMode, KadDHT

from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId

from .host import from_libp2p_id, peer_info_from_addr

log = logging.getLogger("ioa_p2p.routing")

#: Refresh quickly while the network is forming, then settle.
FAST_REFRESH_SECONDS = 1.0
FAST_REFRESH_ROUNDS = 15
SLOW_REFRESH_SECONDS = 30.0
#: Upper bound on peers we open connections to from the routing table.
MAX_AUTO_CONNECT = 64
DIAL_TIMEOUT = 10.0


def new_dht(host: Any) -> KadDHT:
    # Every peer of a local testnet shares one /24 subnet: turn the subnet-diversity caps off.
    return KadDHT(
        host,
        DHTMode.SERVER,
        strict_validation=True,
        max_peers_per_subnet=0,
        max_peers_per_subnet_table=0,
    )


async def keep_bootstrap_connected(
    connect: Callable[[str], Any],
    is_connected: Callable[[PeerId], bool],
    addr: str,
    *,
    backoff: float,
    backoff_max: float,
    on_connected: Callable[[PeerId], Any],
) -> None:
    """Dial ``addr`` until connected; back off exponentially between failures; re-dial when dropped."""
    target = from_libp2p_id(peer_info_from_addr(addr).peer_id)
    delay = backoff
    while True:
        if is_connected(target):
            delay = backoff
            await trio.sleep(max(backoff, 1.0))
            continue
        try:
            with trio.fail_after(DIAL_TIMEOUT):
                await connect(addr)
        except (IoAError, trio.TooSlowError) as exc:
            log.info("bootstrap %s not reachable (%s); retrying in %.1f s", addr, exc, delay)
            await trio.sleep(delay)
            delay = min(delay * 2, backoff_max)
            continue
        log.info("connected to bootstrap peer %s", target)
        await on_connected(target)


async def run_peer_discovery(
    dht: KadDHT,
    connect_peer: Callable[[PeerId], Any],
    is_connected: Callable[[PeerId], bool],
    wake: trio.Event | None = None,
) -> None:
    """Refresh the routing table periodically and connect to the peers it holds."""
    rounds = 0
    while True:
        try:
            with trio.move_on_after(DIAL_TIMEOUT):
                await dht.refresh_routing_table()
        except Exception as exc:  # the library's refresh raises assorted errors on churn
            log.debug("routing table refresh failed: %s", exc)
        peers = [from_libp2p_id(p) for p in dht.routing_table.get_peer_ids()]
        for peer in peers[:MAX_AUTO_CONNECT]:
            if not is_connected(peer):
                try:
                    with trio.fail_after(DIAL_TIMEOUT):
                        await connect_peer(peer)
                except (IoAError, trio.TooSlowError) as exc:
                    log.debug("could not connect to %s: %s", peer, exc)
        rounds += 1
        await trio.sleep(
            FAST_REFRESH_SECONDS if rounds < FAST_REFRESH_ROUNDS else SLOW_REFRESH_SECONDS
        )
