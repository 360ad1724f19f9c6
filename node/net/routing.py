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
then doubling up to ``slow`` (``[node] refresh_max``, 600 s like go-libp2p's routing table refresh) once
nothing changes; a bootstrap (re)connection resets it to ``fast``, and a lost connection below the
target starts one round at once (the loop checks its connection count, without any I/O, every
:data:`DEFICIT_CHECK` s). The full per-bucket refresh (one lookup per non-empty k-bucket) is left to
py-libp2p's DHT maintenance loop, which runs it at start and every 600 s
(``ROUTING_TABLE_REFRESH_INTERVAL``); this loop doing it too, at its slow pace, doubled that work.
Newcomers need no lookup of ours to be found: their own lookups and dials reach us, and an inbound DHT
query adds its sender to our routing table. (With ``slow`` at 60 s, the refresh lookups were about half
the CPU an idle node spent at 25 nodes: docs/performance.md, "Light nodes".) The library's own
connection manager, which would dial every peer in the peerstore, is switched off
(:func:`ioa_p2p.node.net.libp2p_patches.disable_auto_connector`). Before this policy, nodes refreshed every
second for 15 s and dialed up to 64 peers each: at 25+ nodes on one 2-core machine the lookups alone kept a
core busy and opening any stream took ~1 s.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, suppress
from typing import Any

import trio
from libp2p.kad_dht.kad_dht import DHTMode, KadDHT
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.refresh import RefreshPolicy
from ioa_p2p.errors import InvalidPeerId, IoAError
from ioa_p2p.faults import Faults
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.bootstrap_keeper import BootstrapState, keep_bootstrap_connected
from ioa_p2p.node.net.host import from_libp2p_id, peer_info_from_addr, to_libp2p_id
from ioa_p2p.node.net.kad_io import CLOSEST, known_peers, run_lookup
from ioa_p2p.node.net.kad_slots import serve_in_slots
from ioa_p2p.node.net.lookup_slots import JOINING_TABLE, LookupSlots
from ioa_p2p.node.net.stale_contacts import note_failure
from ioa_p2p.node.net.traffic import count_kad, tagged

log = logging.getLogger("ioa_p2p.routing")

DIAL_TIMEOUT = 10.0  # a dial of a routing-table peer
LOOKUP_TIMEOUT = 10.0
#: Peers a self-lookup keeps (the closest named, whether asked or not) for the routing table: three times
#: k, so a joiner learns more than its own neighbourhood (py-libp2p's lookup added every peer an answer
#: named; the random half of the connections is drawn from the table, and gossip needs it broad).
LEARNED = 60
#: Dials run concurrently, at most this many at a time.
DIAL_CONCURRENCY = 4
#: Peer lookups of the nodes of one trio run (the agents of one process) in flight at once: the others
#: wait their turn before their timeout starts, a joining node's ahead of routine ones
#: (:mod:`~ioa_p2p.node.net.lookup_slots`). A node alone in its process looks up one at a time anyway.
LOOKUP_SLOTS = 4
#: Other agents of its process a joining node's self-lookup asks too (:func:`joining_seeds`).
JOINING_SEEDS = 8
#: Peers a joining node asks first, outside the lookup slots (:func:`_first_contact`), and within how long.
FIRST_CONTACT = 4
FIRST_CONTACT_TIMEOUT = 5.0
_LOOKUPS: trio.lowlevel.RunVar[LookupSlots] = trio.lowlevel.RunVar("ioa_lookup_slots")
#: Seconds between the discovery loop's checks (no I/O) for a lost connection while it waits, and the
#: shortest gap between two rounds started by lost connections (a peer that keeps dropping us).
DEFICIT_CHECK = 5.0
LOST_ROUND_GAP = 30.0


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


def new_dht(host: Any, *, client: bool = False) -> KadDHT:
    """The node's Kademlia DHT; ``client``: in client mode from the start (a node stated private: peers
    cannot dial it, so it never offers the DHT protocol, not even for the moment before the first
    reachability check, and no routing table hands out its LAN addresses)."""
    # Every peer of a local testnet shares one /24 subnet: turn the subnet-diversity caps off.
    dht = KadDHT(
        host,
        DHTMode.CLIENT if client else DHTMode.SERVER,
        strict_validation=True,
        max_peers_per_subnet=0,
        max_peers_per_subnet_table=0,
    )
    count_kad(host)  # requests sent and streams served, by kind (node/net/traffic.py)
    serve_in_slots(dht)  # idle streams cannot keep newcomers out of the DHT (patch 23)
    return dht


def start_routing(
    net: Any, state: BootstrapState, config: Any, nursery: trio.Nursery, faults: Faults
) -> None:
    """Bootstrap keepers (one per bootstrap address) and the peer-discovery loop, in ``nursery``.
    ``net`` is the node's :class:`~ioa_p2p.node.net.network.Libp2pNetwork`."""
    trigger = RefreshTrigger()

    async def on_bootstrap(peer: PeerId) -> None:
        try:
            await net.dht.add_peer(to_libp2p_id(peer))
        except Exception as exc:
            log.debug("could not add bootstrap peer %s to the routing table: %s", peer, exc)
        trigger.poke()

    bootstrap_peers = {peer_info_from_addr(a).peer_id for a in state.peers}

    def knows_others() -> bool:  # peers besides the bootstrap ones: the node can join through them
        return _knows_others(net, bootstrap_peers)

    for addr in state.peers:
        nursery.start_soon(
            lambda a=addr: keep_bootstrap_connected(
                net.connect,
                net.is_connected,
                a,
                backoff=config.bootstrap_backoff,
                backoff_max=config.bootstrap_backoff_max,
                on_connected=on_bootstrap,
                state=state,
                knows_others=knows_others,
            )
        )

    async def connect_peer(peer: PeerId) -> None:
        await net.connect_peer(peer, deliberate=False)

    nursery.start_soon(
        tagged(
            "routing",
            lambda: run_peer_discovery(
                net.dht,
                connect_peer,
                net.connected_peers,
                policy=RefreshPolicy(slow=config.refresh_max, target_peers=config.target_peers),
                trigger=trigger,
                faults=faults,
            ),
        )
    )


def _knows_others(net: Any, bootstrap_peers: set[ID]) -> bool:
    """Whether the node's routing table or connections hold a peer that is not a bootstrap peer."""
    known = set(net.dht.routing_table.get_peer_ids()) | set(net.host.get_connected_peers())
    return bool(known - bootstrap_peers)


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
    lost = False  # this round was started early by a lost connection
    lost_at = -LOST_ROUND_GAP
    while True:
        if lost:
            lost_at = trio.current_time()
        table_before = dht.routing_table.size()
        grew = False
        with faults.boundary("peer discovery"):  # fed by other peers' FIND_NODE answers
            # the per-bucket refresh is py-libp2p's own (KadDHT's maintenance loop, every 600 s)
            await _lookup(dht, own_key)
            dialed = await _connect_more(dht, own_key, connect_peer, connected_peers, policy, rng)
            grew = dht.routing_table.size() > table_before or dialed > 0
        delay = policy.next_delay(delay, grew, len(connected_peers()))
        poked, lost = await _wait_next_round(
            trigger, delay, connected_peers, policy.target_peers, not_before=lost_at + LOST_ROUND_GAP
        )
        if poked:
            delay = policy.fast


async def _wait_next_round(
    trigger: RefreshTrigger,
    delay: float,
    connected_peers: Callable[[], list[PeerId]],
    target: int,
    *,
    not_before: float = -math.inf,
) -> tuple[bool, bool]:
    """Wait ``delay`` s, or less: ``(poked, lost)``. Poked: go fast again. Lost: a connection was lost
    while the node holds fewer than ``target`` (noticed from ``not_before`` on); one round now, whose
    outcome decides the pace after it."""
    deadline = trio.current_time() + delay
    held = len(connected_peers())
    while (left := deadline - trio.current_time()) > 0:
        if await trigger.wait_poke(min(left, DEFICIT_CHECK)):
            return True, False
        now_held = len(connected_peers())
        if now_held < held and now_held < target and trio.current_time() >= not_before:
            return False, True
        held = max(held, now_held) if trio.current_time() < not_before else now_held  # keep a loss for later
    return False, False


async def _lookup(dht: KadDHT, own_key: bytes) -> None:
    """:func:`_lookup_now` in one of the run's lookup slots (:data:`LOOKUP_SLOTS`: the agents of a process
    take turns, a node whose table holds fewer than :data:`JOINING_TABLE` peers first; the wait for a turn
    is not part of the lookup's timeout). A node that knows nobody to ask takes no slot; a joining node
    first asks the few peers it knows, outside the slots (:func:`_first_contact`)."""
    table = dht.routing_table.size()
    joining = table < JOINING_TABLE
    seeds = joining_seeds(dht) if joining else []
    if not table and not seeds and not known_peers(dht):
        return  # nobody to ask yet (its bootstrap not connected): a slot would only keep others waiting
    if joining:
        await _first_contact(dht, own_key, seeds)
        learned = dht.routing_table.size() > table
        joining = dht.routing_table.size() < JOINING_TABLE
        if joining and not learned:  # a lookup from the same peers would learn nothing either: the
            return  # next round asks them again (their tables fill as other joiners reach them)
    async with lookup_slots().slot(joining=joining):
        await _lookup_now(dht, own_key, seeds if joining else [])


async def _first_contact(dht: KadDHT, own_key: bytes, seeds: list[bytes]) -> None:
    """A joining node's first answers: one ``FIND_NODE`` of its own key to each of up to
    :data:`FIRST_CONTACT` peers it knows (its bootstrap peers first, then process-mates), within
    :data:`FIRST_CONTACT_TIMEOUT`, outside the lookup slots; the peers their answers name join its table.

    Measured (issue 26, ``bench/bench_join.py --joiners 100``): 100 nodes of one process joining at once
    queued their self-lookups for the run's 4 slots, each lookup holding its slot up to 10 s (asking the
    peers the bootstrap named, dialling each); after 60 s 96 lookups still waited and the median routing
    table held the bootstrap node alone. One request each costs the bootstrap node little (it served the
    100 joiners with under 2 % of a core) and gives every joiner peers to dial and ask at once."""
    start = list(dict.fromkeys([*known_peers(dht), *seeds]))[:FIRST_CONTACT]
    if not start:  # a table of peers that serve no DHT (NATed clients) or stale contacts: nobody to ask
        return
    lookup = Lookup([own_key], start, me=own_key, width=LEARNED, ask=len(start), budget=len(start))
    try:
        with trio.move_on_after(FIRST_CONTACT_TIMEOUT):
            await run_lookup(dht, lookup, CLOSEST)
    except Exception as exc:  # nothing a peer answers may end the discovery loop
        log.debug("first contact failed: %s", exc)
    await _learn(dht, lookup, own_key)


def joining_seeds(dht: KadDHT, rng: random.Random | None = None) -> list[bytes]:
    """Where a joining node's self-lookup starts besides the peers it knows: up to :data:`JOINING_SEEDS`
    other agents of its process (none for a node alone in its process), which answer in memory with the
    peers closest to it that they know, remote ones included. Measured (issue 26, ``bench/cross_diag.py``
    2 x 12 with a probe of every self-lookup): an agent that starts after the others knew only the
    bootstrap node, whose answer (4-8 s through the process's busy loop) missed the 5 s per-peer timeout
    lookup after lookup, so it kept a table of 1, no remote connection and no card-topic peer for a minute
    and more. Only while joining: a node whose table is filled asks the network, not its process."""
    mates = getattr(dht.host, "ioa_local_peers", None)
    if mates is None:
        return []
    found = [p.to_bytes() for p in mates() if p != dht.local_peer_id]
    return (rng or random.Random()).sample(found, min(JOINING_SEEDS, len(found)))


def lookup_slots() -> LookupSlots:
    """The run's lookup slots (:data:`LOOKUP_SLOTS`; made on first use)."""
    try:
        return _LOOKUPS.get()
    except LookupError:
        slots = LookupSlots(LOOKUP_SLOTS)
        _LOOKUPS.set(slots)
        return slots


async def _lookup_now(dht: KadDHT, own_key: bytes, seeds: list[bytes] | None = None) -> None:
    """Look up the peers closest to us (the Kademlia self-lookup) and add the :data:`LEARNED` closest found
    and every peer that answered to the routing table, within :data:`LOOKUP_TIMEOUT` in all; a lookup its
    timeout ends keeps what it learned.

    Our lookup driver (:func:`~ioa_p2p.node.net.kad_io.run_lookup` with ``FIND_NODE``), not py-libp2p's
    ``find_closest_peers_network``, which under load could leave a late joiner with part of the network
    (docs/performance.md, "A late joiner at N = 50" and the join step after it): it goes in rounds of up
    to 10 peers and waits for the slowest of each (one busy peer held the whole round until the 10 s
    deadline: the peers the first answers named were never asked), opens a new stream per request with
    three round trips of protocol negotiation, checks the signed peer record of each of the 20 peers every
    answer names (20 Ed25519 verifications per answer), and a request its deadline ended left its stream
    open at the peer, holding one of that peer's DHT handler slots (:mod:`~ioa_p2p.node.net.kad_slots`).
    Ours sends each request with its stream's negotiation (one round trip), asks the next candidates when a
    peer is slow (the hedge), reads only the peer IDs and addresses an answer names, and closes its streams
    shielded."""
    start = list(dict.fromkeys([*known_peers(dht), *(seeds or [])]))
    lookup = Lookup([own_key], start, me=own_key, width=LEARNED)
    try:
        with trio.move_on_after(LOOKUP_TIMEOUT):
            await run_lookup(dht, lookup, CLOSEST)
    except Exception as exc:  # nothing a peer answers may end the discovery loop
        log.debug("routing table lookup failed: %s", exc)
    await _learn(dht, lookup, own_key)


async def _learn(dht: KadDHT, lookup: Lookup, own_key: bytes) -> None:
    """Add to the routing table the closest peers ``lookup`` found (answered, named or still in flight
    when its timeout came) and every peer that answered."""
    answered = [p for p in lookup.contacted if p not in lookup.dead and p not in lookup.busy]
    for peer in dict.fromkeys([*lookup.closest(own_key), *answered]):
        with suppress(Exception):  # the library's table raises on churn
            await _add_to_table(dht, ID(peer))


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
                note_failure(dht, to_libp2p_id(peer), trio.current_time())  # a table peer's dial failed

    async with trio.open_nursery() as nursery:
        for peer in todo:
            nursery.start_soon(dial, peer)
    return dialed
