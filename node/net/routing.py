"""Peer routing: the node's Kademlia DHT instance, bootstrap dialing, and connecting to peers it learns.

The node owns exactly one ``KadDHT`` (server mode, strict validation: a key whose namespace has no registered
validator is refused). Services that store records (discovery) register their namespace validators on
``node.dht`` with ``register_validator(namespace, validator)`` before putting anything; they never make a
second DHT.

Bootstrap: each configured bootstrap multiaddr is dialed until connected, with exponential backoff
(``bootstrap_backoff`` doubling to ``bootstrap_backoff_max``), and re-dialed if the connection drops. Once
connected, the peer joins the routing table and the peer-discovery loop wakes up.

Peer discovery (:func:`run_peer_discovery`) is a lookup of our own key (the Kademlia "self lookup"), which
fills the routing table with the peers closest to us, followed by dials to routing-table peers until the node
holds :attr:`RefreshPolicy.target_peers` connections (half the XOR-closest, half random, so the connection
graph stays connected and gossip reaches every node). The pace is adaptive and decided by the pure
:class:`RefreshPolicy`: every ``fast`` seconds while the routing table or the connection set still grows,
then doubling up to ``slow`` once nothing changes; a bootstrap (re)connection resets it to ``fast``. A full
per-bucket refresh (one lookup per non-empty k-bucket) runs only at the slow pace. The library's own
connection manager, which would dial every peer in the peerstore, is switched off
(:func:`ioa_p2p.node.net.libp2p_patches.disable_auto_connector`). Before this policy, nodes refreshed every
second for 15 s and dialed up to 64 peers each: at 25+ nodes on one 2-core machine the lookups alone kept a
core busy and opening any stream took ~1 s.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, suppress
from typing import Any

import trio
from libp2p.kad_dht.kad_dht import DHTMode, KadDHT
from libp2p.peer.peerinfo import PeerInfo
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.dht.refresh import RefreshPolicy
from ioa_p2p.errors import InvalidPeerId, IoAError
from ioa_p2p.faults import Faults
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import from_libp2p_id, peer_info_from_addr

log = logging.getLogger("ioa_p2p.routing")

DIAL_TIMEOUT = 10.0
LOOKUP_TIMEOUT = 10.0
#: Dials run concurrently, at most this many at a time.
DIAL_CONCURRENCY = 4


class RefreshTrigger:
    """Wakes the peer-discovery loop early (a bootstrap connected)."""

    def __init__(self) -> None:
        self._event = trio.Event()

    def poke(self) -> None:
        self._event.set()

    async def wait_poke(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if poked meanwhile (the trigger then re-arms)."""
        with trio.move_on_after(seconds):
            await self._event.wait()
        poked = self._event.is_set()
        if poked:
            self._event = trio.Event()
        return poked


def run_dht(dht: KadDHT) -> AbstractAsyncContextManager[Any]:
    """Run ``dht``'s background service until the block exits."""
    return background_trio_service(dht)


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
    connect_peer: Callable[[PeerId], Awaitable[None]],
    connected_peers: Callable[[], list[PeerId]],
    *,
    policy: RefreshPolicy | None = None,
    trigger: RefreshTrigger | None = None,
    faults: Faults | None = None,
) -> None:
    """Look up peers and keep ``policy.target_peers`` connections, at the pace ``policy`` decides."""
    policy = policy or RefreshPolicy()
    trigger = trigger or RefreshTrigger()
    rng = random.Random()
    faults = faults or Faults()
    own_key = dht.host.get_id().to_bytes()
    delay = policy.fast
    while True:
        table_before = dht.routing_table.size()
        grew = False
        with faults.boundary("peer discovery"):  # fed by other peers' FIND_NODE answers
            await _lookup(dht, own_key, full=policy.full_refresh(delay))
            dialed = await _connect_more(dht, own_key, connect_peer, connected_peers, policy, rng)
            grew = dht.routing_table.size() > table_before or dialed > 0
        delay = policy.next_delay(delay, grew)
        if await trigger.wait_poke(delay):
            delay = policy.fast


async def _lookup(dht: KadDHT, own_key: bytes, *, full: bool) -> None:
    try:
        with trio.move_on_after(LOOKUP_TIMEOUT):
            if full:
                await dht.refresh_routing_table()
                return
            found = await dht.peer_routing.find_closest_peers_network(own_key)
            for peer in found:
                await _add_to_table(dht, peer)
    except Exception as exc:  # the library's lookups raise assorted errors on churn
        log.debug("routing table lookup failed: %s", exc)


async def _add_to_table(dht: KadDHT, peer: Any) -> None:
    try:
        addrs = dht.host.get_peerstore().addrs(peer)
    except Exception:  # PeerStoreError: no addresses known
        return
    if addrs:
        await dht.routing_table.add_peer(PeerInfo(peer, addrs))


async def _connect_more(
    dht: KadDHT,
    own_key: bytes,
    connect_peer: Callable[[PeerId], Awaitable[None]],
    connected_peers: Callable[[], list[PeerId]],
    policy: RefreshPolicy,
    rng: random.Random,
) -> int:
    by_distance = []
    for p in dht.routing_table.find_local_closest_peers(own_key, count=dht.routing_table.size() or 1):
        with suppress(InvalidPeerId):  # a FIND_NODE reply can name any ID; only Ed25519 peers can connect
            by_distance.append(from_libp2p_id(p))
    todo = policy.peers_to_dial(by_distance, set(connected_peers()), rng)
    dialed = 0
    limiter = trio.CapacityLimiter(DIAL_CONCURRENCY)

    async def dial(peer: PeerId) -> None:
        nonlocal dialed
        async with limiter:
            try:
                with trio.fail_after(DIAL_TIMEOUT):
                    await connect_peer(peer)
                dialed += 1
            except (IoAError, trio.TooSlowError) as exc:
                log.debug("could not connect to %s: %s", peer, exc)

    async with trio.open_nursery() as nursery:
        for peer in todo:
            nursery.start_soon(dial, peer)
    return dialed
