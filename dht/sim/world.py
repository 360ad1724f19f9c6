"""The simulated network of nodes: joining, peer discovery, churn, and the shared services of a run.

:class:`World` holds the event loop, the seeded random generator, the links, every :class:`SimNode`
and the counters. What a node does on its own follows the node's rules:

- **joining** (:meth:`World.join`): the node knows one bootstrap peer (node 0, which is always online)
  and starts its peer discovery;
- **peer discovery** (:meth:`World.discovery_round`, as ``ioa_p2p.node.net.routing.run_peer_discovery``
  paced by :class:`~ioa_p2p.dht.refresh.RefreshPolicy`): a lookup of its own key, a full per-bucket refresh
  at the slow pace, then dials until ``target_peers`` connections (the closest half, then random
  table peers); the next round comes ``fast`` seconds later while the table or the connections grew,
  doubling up to ``slow`` otherwise. The self-lookup is the node's own (:meth:`World.self_lookup`, as
  ``routing._lookup_now``): the project's :class:`~ioa_p2p.dht.lookup.Lookup` of its own key from its
  table and open connections, keeping the :data:`LEARNED` closest peers named, bounded by
  :data:`LOOKUP_TIMEOUT`; the :data:`LEARNED` closest found and every peer that answered join the
  table (``SimConfig.self_lookup = "py-libp2p"``: as py-libp2p's ``find_closest_peers_network`` did
  before, ``ask`` = 3 from the table only, every peer an answer names offered to the table). The
  per-bucket refresh is py-libp2p's own in the node (``refresh_routing_table``), which cannot run here:
  the simulator looks up one random key per non-empty bucket (py-libp2p hashes the key again before the
  lookup, so the targets are random positions, not the bucket's), or only the ``refresh_lookups`` first
  ones, with the project's :class:`~ioa_p2p.dht.lookup.Lookup` (``ask`` = 3, py-libp2p's ``BETA``),
  offering every peer an answer names to the routing table, as py-libp2p does;
- **churn** (:meth:`World.start_churn`): each node's online sessions and offline gaps are exponential,
  with means ``session`` and ``session * churn / (1 - churn)``, so a share ``churn`` of the nodes is
  offline at any moment. A node that leaves keeps its state (keys, routing table, stored records, its
  directory: a laptop closing its lid, the worst case for stale cards) and loses its connections; back
  online, it dials the bootstrap peer and runs its peer discovery at the fast pace again;
- **stale contacts** (``SimConfig.stale_contacts``, the node since 2026-11-29): every peer connected to
  a node that leaves sees the remote end that connection, as does the far end of a connection closed
  past ``LinkModel.max_connections``; each applies :mod:`~ioa_p2p.dht.contacts` as
  ``ioa_p2p.node.net.stale_contacts`` does (the contact is demoted, left out of its answers and
  suspected by its lookups; evicted at a second failure, or by a sweep once its grace ran out without a
  sign of life: an answer, an inbound request, a new connection).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.contacts import StaleContacts
from ioa_p2p.dht.early import SURE_RANK
from ioa_p2p.dht.kbuckets import Split
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.refresh import RefreshPolicy
from ioa_p2p.dht.rtt import Unreached
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.events import EventLoop
from ioa_p2p.dht.sim.kad import (
    FIND_NODE,
    PLACE_ASK,
    SUSPECT_TTL,
    LookupRun,
    known_peers,
    round_trips,
    start_lookup,
)
from ioa_p2p.dht.sim.links import LinkModel, Network
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.records import RecordCache
from ioa_p2p.dht.validators import IoaNamespaceValidator
from ioa_p2p.identity import Identity

#: Virtual time at which runs start (a plausible wall clock in ms for card issue times).
EPOCH_MS = 1_800_000_000_000
#: The node's self-lookup (``ioa_p2p.node.net.routing``, pinned by ``tests/test_sim.py``): the closest
#: peers it keeps for the routing table, and its bound in seconds.
LEARNED = 60
LOOKUP_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class SimConfig:
    """One simulated network. ``refresh_lookups``: bucket-refresh lookups per full refresh at most
    (``None``: one per non-empty bucket, as py-libp2p). ``hedge``: each node's lookups hedge as
    ``kad_io`` does (``reach``: a request on an open connection after ``srtt + 4 rttvar`` of such
    requests, a dialled one once its handshake missed the reach wait or after that wait from the
    handshake's end, and peers recently not reached asked without being waited for), or after ``srtt +
    4 rttvar`` of all its answers (``adaptive``: the node before 2026-11-28), or of those over open
    connections and of dialled ones apart (``by-connection``, :class:`~ioa_p2p.dht.rtt.Hedges`), or after
    the fixed ``kad.HEDGE``."""

    nodes: int
    seed: int = 1
    links: LinkModel = field(default_factory=LinkModel)
    split: Split = "any"
    policy: RefreshPolicy = field(default_factory=RefreshPolicy)
    refresh_lookups: int | None = None
    join_spacing: float = 0.02
    churn: float = 0.0
    session: float = 1800.0
    new_cards: int = 120
    updates: int = 30
    min_stamp_bits: int = 8
    card_checks: Literal["full", "dht"] = "full"
    hedge: Literal["reach", "adaptive", "by-connection", "fixed"] = "reach"
    #: stores sent during the lookup to candidates nearer than ``early_rank / N`` of the keyspace
    #: (:mod:`~ioa_p2p.dht.early`, the node since 2026-11-28); 0: only once the lookup is done
    early_rank: float = SURE_RANK
    #: ``node``: the node's self-lookup (:meth:`World.self_lookup`); ``py-libp2p``: the library's, as the
    #: node ran it before 2026-11-27 (every figure of docs/performance.md measured before then)
    self_lookup: Literal["node", "py-libp2p"] = "node"
    #: each node tells a connection the remote ended from one it ended and keeps its table's stale
    #: contacts (:mod:`~ioa_p2p.dht.contacts`: hidden from answers, suspected, evicted at the second
    #: failure or after the grace); False: gone peers stay in tables (the node before 2026-11-29)
    stale_contacts: bool = True

    def __post_init__(self) -> None:
        if self.nodes < 2:
            raise ValueError("a simulated network needs at least 2 nodes")
        if not 0 <= self.churn < 1:
            raise ValueError(f"churn is the share of nodes offline, in [0, 1), not {self.churn}")


class World:
    """Every node of one simulated network (see the module docstring)."""

    def __init__(self, config: SimConfig, cards: CardSet | None = None) -> None:
        self.config = config
        self.loop = EventLoop()
        self.rng = random.Random(config.seed)
        self.net = Network(self.loop, self.rng, config.links)
        self.records = RecordCache()
        self.counters: Counter[str] = Counter()
        self.stats: Counter[str] = Counter()  # messages sent, by kind
        self.cards = cards
        self.early_rank = config.early_rank
        if cards is not None and len(cards) < config.nodes:
            raise ValueError(f"{len(cards)} cards for {config.nodes} nodes")
        identities = (
            cards.identities[: config.nodes]
            if cards is not None
            else [Identity(self.rng.randbytes(32)) for _ in range(config.nodes)]
        )
        self.nodes = [SimNode(i, ident, self.stats, split=config.split) for i, ident in enumerate(identities)]
        self.by_peer = {n.peer: n for n in self.nodes}
        for node in self.nodes:
            self._add_validator(node)
            if config.hedge == "reach":
                node.round_trips = round_trips(reach=True)
                node.unreached = Unreached(ttl=SUSPECT_TTL)
            elif config.hedge != "fixed":
                node.round_trips = round_trips(by_connection=config.hedge == "by-connection")
            if config.stale_contacts:
                node.contacts = StaleContacts[bytes]()
        self.bootstrap = self.nodes[0]
        if config.stale_contacts:
            self.net.on_closed = self.closed
        self.joined = 0
        self.gone: set[int] = set()  # nodes that left for good

    # ------------------------------------------------------------------ basics

    def now_ms(self) -> int:
        return EPOCH_MS + int(self.loop.now * 1000)

    def node_of(self, peer: bytes) -> SimNode | None:
        return self.by_peer.get(peer)

    def ping(self, peer: bytes) -> bool:
        """py-libp2p pings the least recently seen peer of a full bucket before replacing it."""
        self.stats["ping"] += 1
        node = self.by_peer.get(peer)
        return node is not None and node.online

    def online(self) -> list[SimNode]:
        return [n for n in self.nodes if n.online]

    def _add_validator(self, node: SimNode) -> None:
        config = self.config
        node.admission = CardAdmission(new_cards=config.new_cards, updates=config.updates, me=node.peer)
        validator = IoaNamespaceValidator(
            self.now_ms,
            min_stamp_bits=config.min_stamp_bits,
            admission=node.admission,
            parse=self.records.parse,
            min_sketch_bits=config.min_stamp_bits,  # page entries cost what cards cost (discovery/run.py)
        )
        values = node.values
        validator.stored = lambda key: key.encode("utf-8") in values
        node.validator = validator

    # ------------------------------------------------------------------ joining and peer discovery

    def join_all(self, spacing: float | None = None) -> None:
        """Every node joins, one every ``spacing`` seconds (node 0, the bootstrap peer, first)."""
        gap = self.config.join_spacing if spacing is None else spacing
        for i, node in enumerate(self.nodes):
            self.loop.at(self.loop.now + i * gap, self.join, node)

    def warm_start(self, random_peers: int = 200, *, connected_tables: bool = False) -> None:
        """Bring every node online at once with the routing table of a network that has formed (a
        shortcut for large runs, where simulating every node's joining costs an hour of CPU): each node's
        table is offered its ``K`` neighbours on each side in keyspace order and ``random_peers`` random
        nodes (the table's own rules decide what it keeps), it dials its connections, and its peer
        discovery continues at the slow pace from a random moment of the first period.

        ``connected_tables``: each node also holds a connection to every peer of its table (least
        recently used closed past ``LinkModel.max_connections``). That is the steady state of a formed
        network on py-libp2p: a peer enters a routing table only over a connection (an inbound KAD
        stream, or an answer to a lookup), and neither py-libp2p nor the node closes connections. Without
        it, every table peer a lookup asks first costs a dial."""
        policy = self.config.policy
        order = sorted(self.nodes, key=lambda n: n.position)
        for rank, node in enumerate(order):
            node.online = True
            node.session += 1
            node.joined_at = self.loop.now
            node.refresh_delay = policy.slow
            self.joined += 1
            offered = order[max(0, rank - K) : rank + K + 1]
            offered += self.rng.sample(self.nodes, min(random_peers, len(self.nodes)))
            node.table.add_many([other.peer for other in offered])
        if connected_tables:
            by_peer = self.by_peer
            for node in self.nodes:
                self.net.connect_many(node, [by_peer[peer] for peer in node.table])
        for node in self.nodes:
            self.connect_more(node)
            self.loop.after(self.rng.random() * policy.slow, self.discovery_round, node, node.session)

    def join(self, node: SimNode) -> None:
        if node.online:
            return
        node.online = True
        node.session += 1
        node.joined_at = self.loop.now
        node.refresh_delay = self.config.policy.fast
        self.joined += 1
        if node is not self.bootstrap:
            node.table.add(self.bootstrap.peer)
        self.loop.after(0.0, self.discovery_round, node, node.session)

    def leave(self, node: SimNode, *, for_good: bool = False) -> None:
        """``node`` goes offline; ``for_good``: churn never brings it back (an owner that left)."""
        if for_good:
            self.gone.add(node.index)
        if node is self.bootstrap or not node.online:
            return
        node.online = False
        for index in node.conns:
            other = self.nodes[index]
            other.conns.pop(node.index, None)
            self.remote_closed(other, node)  # its host's kernel ended every connection (FIN / reset)
        node.forget_state()

    # ------------------------------------------------------------------ stale contacts

    def closed(self, node: SimNode, index: int) -> None:
        """``node`` closed its connection to node ``index`` (its connection limit): the other end loses it
        too, and to it the remote closed it (its own close is no failure of a contact to ``node``)."""
        other = self.nodes[index]
        other.conns.pop(node.index, None)
        self.remote_closed(other, node)

    def remote_closed(self, node: SimNode, peer: SimNode) -> None:
        """``peer`` ended ``node``'s connection to it (``node/net/stale_contacts.py``): a failure of the
        contact (no other connection is ever left here), and a sweep scheduled for its grace."""
        contacts = node.contacts
        if contacts is None:
            return
        node.contact_failed(peer.peer, self.loop.now)
        self._schedule_sweep(node)

    def _schedule_sweep(self, node: SimNode) -> None:
        contacts = node.contacts
        due = None if contacts is None else contacts.next_due()
        if due is not None and due < node.sweep_at:
            node.sweep_at = max(due, self.loop.now)
            self.loop.at(node.sweep_at, self._sweep, node, node.sweep_at)

    def _sweep(self, node: SimNode, at: float) -> None:
        """Evict ``node``'s stale contacts whose grace ran out and that it holds no connection to."""
        if node.sweep_at != at or node.contacts is None:
            return
        node.sweep_at = math.inf
        for peer in node.contacts.due(self.loop.now):
            other = self.by_peer.get(peer)
            if other is None or other.index not in node.conns:
                node.table.remove(peer)
                self.counters["stale evicted"] += 1
        self._schedule_sweep(node)

    def discovery_round(self, node: SimNode, session: int) -> None:
        """One round of the node's peer discovery (see the module docstring)."""
        if not node.online or node.session != session:
            return
        policy = self.config.policy
        before = len(node.table)
        full = policy.full_refresh(node.refresh_delay)
        targets = [node.peer]
        if full:
            buckets = [b for b in node.table.buckets if b.peers]
            limit = self.config.refresh_lookups
            for bucket in buckets if limit is None else self.rng.sample(buckets, min(limit, len(buckets))):
                del bucket  # a random position, whatever the bucket (see the module docstring)
                targets.append(self.rng.randbytes(32))
        pending = len(targets)

        def done(_: LookupRun) -> None:
            nonlocal pending
            pending -= 1
            if pending == 0:
                self._after_discovery(node, session, before)

        if self.config.self_lookup == "node":
            self.self_lookup(node, on_done=done)
            targets = targets[1:]
        for target in targets:
            self.find_node(node, target, on_done=done)

    def _after_discovery(self, node: SimNode, session: int, before: int) -> None:
        if not node.online or node.session != session:
            return
        dialed = self.connect_more(node)
        grew = len(node.table) > before or dialed > 0
        # the connections held count, as in the node's loop (``routing.run_peer_discovery``): a node
        # with fewer than ``low_peers`` has not joined yet and looks again within ``short_max``
        node.refresh_delay = self.config.policy.next_delay(node.refresh_delay, grew, len(node.conns))
        self.loop.after(node.refresh_delay, self.discovery_round, node, session)

    def find_node(
        self, node: SimNode, key: bytes, on_done: Callable[[LookupRun], Any] | None = None
    ) -> LookupRun:
        """A lookup of the peers closest to ``key`` whose answers fill the routing table."""
        table, ping = node.table, self.ping

        def learn(peers: list[bytes]) -> None:
            table.add_many(peers, ping)

        return start_lookup(
            self, node, [key], FIND_NODE, ask=PLACE_ASK, connections=False, on_closer=learn, on_done=on_done
        )

    def self_lookup(self, node: SimNode, on_done: Callable[[LookupRun], Any] | None = None) -> LookupRun:
        """The node's self-lookup (``routing._lookup_now``): our lookup of its own key from the table and
        the open connections (``kad_io.known_peers``), ``ask`` = 3, keeping the :data:`LEARNED` closest
        peers named; once done, or after :data:`LOOKUP_TIMEOUT` with what it has, the :data:`LEARNED`
        closest found and every peer that answered join the routing table."""
        own = node.peer
        lookup = Lookup([own], known_peers(self, node, [own], count=LEARNED), me=own, width=LEARNED)

        def finished(run: LookupRun) -> None:
            answered = [p for p in lookup.contacted if p not in lookup.dead and p not in lookup.busy]
            node.table.add_many(list(dict.fromkeys([*lookup.closest(own), *answered])), self.ping)
            if on_done is not None:
                on_done(run)

        run = LookupRun(self, node, lookup, FIND_NODE, on_done=finished)

        def timeout() -> None:
            if not run.finished:
                run.finished = True  # answers still in flight are ignored, as the node's move_on_after
                finished(run)

        self.loop.after(LOOKUP_TIMEOUT, timeout)
        return run.start()

    def connect_more(self, node: SimNode) -> int:
        """Dial table peers until ``target_peers`` connections are kept (the closest half, then random);
        gone peers leave the table, as a failed dial makes py-libp2p forget them. Returns the dials
        that worked."""
        policy = self.config.policy
        kept = {i for i in node.neighbours if self.nodes[i].online}
        node.neighbours = list(kept)
        wanted = policy.target_peers - len(kept)
        if wanted <= 0:
            return 0
        half = policy.target_peers // 2
        closest = node.table.closest(node.position, half + len(kept))
        others = self.rng.sample(list(node.table), min(len(node.table), 4 * policy.target_peers))
        by_distance = closest + [p for p in others if p not in closest]
        connected = {self.nodes[i].peer for i in kept}
        dialed = 0
        for peer in policy.peers_to_dial(by_distance, connected, self.rng):
            other = self.by_peer[peer]
            self.stats["dial"] += 1
            if not other.online:
                node.table.remove(peer)
                continue
            self.net.connect(node, other)
            node.contact_heard(peer)
            node.neighbours.append(other.index)
            if node.index not in other.neighbours and len(other.neighbours) < 2 * policy.target_peers:
                other.neighbours.append(node.index)
            dialed += 1
        return dialed

    # ------------------------------------------------------------------ churn

    def start_churn(self) -> None:
        """From now on, nodes leave and come back (see the module docstring); a share ``churn`` of the
        nodes (never the bootstrap peer) goes offline at once, as in the steady state."""
        config = self.config
        if config.churn <= 0:
            return
        mean_off = config.session * config.churn / (1 - config.churn)
        for node in self.nodes[1:]:
            if self.rng.random() < config.churn:
                self.leave(node)
                self.loop.after(self.rng.expovariate(1 / mean_off), self._come_back, node, mean_off)
            else:
                self.loop.after(self.rng.expovariate(1 / config.session), self._go_away, node, mean_off)

    def _go_away(self, node: SimNode, mean_off: float) -> None:
        self.leave(node)
        self.counters["left"] += 1
        self.loop.after(self.rng.expovariate(1 / mean_off), self._come_back, node, mean_off)

    def _come_back(self, node: SimNode, mean_off: float) -> None:
        if node.index in self.gone:
            return
        self.join(node)
        self.counters["came back"] += 1
        self.loop.after(self.rng.expovariate(1 / self.config.session), self._go_away, node, mean_off)

    # ------------------------------------------------------------------ views

    def closest_online(self, key: bytes, count: int = K) -> list[SimNode]:
        """The ``count`` online nodes closest to ``key`` (the truth a lookup is measured against)."""
        target = position(key)
        return sorted((n for n in self.nodes if n.online), key=lambda n: n.position ^ target)[:count]

    def table_sizes(self) -> list[int]:
        return [len(n.table) for n in self.nodes if n.online]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank; NaN when empty)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


__all__ = ["EPOCH_MS", "SimConfig", "World", "percentile"]
