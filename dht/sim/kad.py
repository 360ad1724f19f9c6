"""Kademlia in the simulator: the node's lookups (the pure :class:`~ioa_p2p.dht.lookup.Lookup`, driven as
``ioa_p2p.node.net.kad_io.run_lookup`` drives it) and what a DHT server answers (as py-libp2p 0.8.1 does).

Client side, :class:`LookupRun`: each peer gets its keys in one batch; an answer is applied at once and
the next requests go out (no rounds); a peer silent for :data:`HEDGE` seconds is reported slow, one silent
for :data:`PEER_TIMEOUT` failed; the run ends when the lookup is done (answers still in flight are
ignored). It also records the *hop* of every peer it contacts (the peers it knew at the start are hop 1, a
peer first named by a hop-``h`` peer is hop ``h + 1``): the hops of a lookup are those of the peer whose
answer carried the first result, or, for a lookup of closest peers, the largest hop among the ``ask``
closest peers that answered.

Server side (:func:`serve_find`, :func:`serve_put_value`, :func:`serve_add_providers`): ``FIND_NODE``,
``GET_PROVIDERS`` and ``GET_VALUE`` answer the ``K`` closest peers of the routing table (without the
asker) and the providers or the value held;
``PUT_VALUE`` is checked by the node's own validator
(:class:`~ioa_p2p.dht.validators.IoaNamespaceValidator`: signature, owner, freshness, stamp, rate limits)
and replaces the stored value only with a newer version (its ``select``); ``ADD_PROVIDER`` is rate
limited per provider and in total (:class:`~ioa_p2p.dht.admission.CardAdmission`) and stored as
py-libp2p stores it (the first ``K`` providers of a key). The asker joins the server's routing table (as
py-libp2p adds the peer of every inbound KAD stream); when its bucket is full, the least recently seen
peer is pinged and replaced if it is gone.

The timing constants are the node's (``tests/test_sim.py`` pins them to ``ioa_p2p.node.net.kad_io``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.pages import PAGE_PREFIX, store_page
from ioa_p2p.dht.rtt import Hedges
from ioa_p2p.dht.sim.fabric import Fabric
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.errors import InvalidMessage, OverBudget
from ioa_p2p.identity import PeerId

#: Seconds before a silent peer is reported slow, and before it is given up (``kad_io``): the hedge
#: before any round trip was measured, then ``srtt + 4 rttvar`` of the node's lookups within its bounds
#: (:func:`round_trips`), as ``kad_io.run_lookup`` waits.
HEDGE = 0.4
HEDGE_LOW, HEDGE_HIGH = 0.4, 1.5
#: The lower bound of a dial's reach wait, and how long a peer not reached is suspected (``kad_io``).
REACH_LOW = 0.2
SUSPECT_TTL = 120.0
PEER_TIMEOUT = 5.0
#: Peers asked per key; at least this many by the lookups that place records (``kad``).
DEFAULT_ASK = 2
PLACE_ASK = 3
FIND_NODE, PROVIDERS, VALUE = "find_node", "get_providers", "get_value"

Answer = tuple[list[bytes], list[bytes], bytes | None]  # closer peers, providers, value


def round_trips(by_connection: bool = True, *, reach: bool = False) -> Hedges:
    """A node's measured round trips as ``kad_io.round_trips_of`` starts them (their wait is the hedge):
    ``reach`` (the node since 2026-11-28): by connection, a dialled request hedged at its handshake's
    reach wait first (:class:`~ioa_p2p.dht.rtt.Hedges`); ``by_connection=False``: one estimator for
    requests on open connections and dialled ones (the node before)."""
    if reach:
        return Hedges(low=HEDGE_LOW, high=HEDGE_HIGH, initial=HEDGE, reach=True, reach_low=REACH_LOW)
    make = Hedges if by_connection else Hedges.shared
    return make(low=HEDGE_LOW, high=HEDGE_HIGH, initial=HEDGE)


def met(world: Fabric, server: SimNode, asker: SimNode) -> None:
    """``asker`` opened a KAD stream to ``server``: it joins the server's routing table (a sign of life:
    no longer a stale contact there)."""
    server.table.add(asker.peer, world.ping)
    if server.contacts is not None:
        server.contact_heard(asker.peer)


def serve_find(world: Fabric, server: SimNode, asker: SimNode, keys: list[bytes], kind: str) -> list[Answer]:
    """``FIND_NODE`` / ``GET_PROVIDERS`` / ``GET_VALUE`` of ``keys`` at ``server``."""
    met(world, server, asker)
    out: list[Answer] = []
    stale = None if server.contacts is None else server.contacts.peers  # never named (dht/contacts.py)
    for key in keys:
        closer = server.table.closest(position(key), K, exclude=asker.peer, skip=stale)
        providers = list(server.providers.get(key, ())) if kind == PROVIDERS else []
        value = server.values.get(key) if kind == VALUE else None
        out.append((closer, providers, value))
    return out


def serve_put_value(world: Fabric, server: SimNode, asker: SimNode, key: bytes, value: bytes) -> bool:
    """Validate and store ``value`` (py-libp2p's ``PUT_VALUE`` with our validator); True when stored."""
    met(world, server, asker)
    validator = server.validator
    assert validator is not None
    text = key.decode("utf-8")
    if text.startswith(PAGE_PREFIX):
        return _store_page(world, server, key, text, value)
    try:
        validator.validate(text, value)
    except (InvalidMessage, ValueError):
        world.counters["put refused"] += 1
        return False
    except OverBudget:  # the admission rate limit: the node refuses the put (alive, try later)
        world.counters["put over budget"] += 1
        return False
    old = server.values.get(key)
    if old is not None and old != value and validator.select(text, [value, old]) != 0:
        return False
    server.values[key] = value
    return True


def _store_page(world: Fabric, server: SimNode, key: bytes, text: str, value: bytes) -> bool:
    """A page put merged into the page held (``dht/pages.py``, as the node's value store does); new
    peers of a page count against the provider rate limits."""
    admission, validator = server.admission, server.validator
    assert validator is not None
    now = world.loop.now

    def admit(peer: PeerId) -> bool:
        return admission is None or admission.admit_provider(peer.raw, now)

    try:
        records = world.records
        merged = store_page(
            server.values.get(key),
            text,
            value,
            world.now_ms(),
            admit,
            decode=records.decode_sketch,
            verify=records.verify_sketch,
            min_bits=validator.page.min_stamp_bits,  # the node's PageValidator
        )
    except (InvalidMessage, ValueError):
        world.counters["page refused"] += 1
        return False
    world.counters["page entries refused"] += merged.refused
    if merged.page is not None:
        server.values[key] = merged.page
    return True


def serve_add_providers(world: Fabric, server: SimNode, asker: SimNode, keys: list[bytes]) -> int:
    """``ADD_PROVIDER`` of ``asker`` for ``keys``: how many were acknowledged (py-libp2p acknowledges
    every request it reads; a refused one is simply not stored)."""
    met(world, server, asker)
    admission = server.admission
    now = world.loop.now
    for key in keys:
        if admission is None or admission.admit_provider(asker.peer, now):
            server.add_provider(key, asker.peer)
        else:
            world.counters["provider refused"] += 1
    return len(keys)


class LookupRun:
    """One lookup driven over the simulated network (see the module docstring)."""

    __slots__ = (
        "world",
        "node",
        "lookup",
        "kind",
        "on_answer",
        "on_closer",
        "on_done",
        "started_at",
        "in_flight",
        "hedged",
        "hops",
        "first_hit",
        "finished",
        "contacted",
        "answers",
        "dialled",
        "reach",
        "due",
    )

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        lookup: Lookup,
        kind: str,
        *,
        on_answer: Callable[[bytes], Any] | None = None,
        on_closer: Callable[[list[bytes]], Any] | None = None,
        on_done: Callable[[LookupRun], Any] | None = None,
    ) -> None:
        self.world, self.node, self.lookup, self.kind = world, node, lookup, kind
        self.on_answer, self.on_closer, self.on_done = on_answer, on_closer, on_done
        self.started_at = world.loop.now
        self.in_flight: dict[bytes, float] = {}  # peer -> when its batch went out
        self.hedged: set[bytes] = set()
        self.hops: dict[bytes, int] = {}
        for state in lookup.keys.values():
            for peer in state.candidates:
                self.hops[peer] = 1
        self.first_hit: dict[bytes, int] = {}  # key -> hops of the first answer with a result
        self.finished = False
        self.contacted = 0
        #: ``GET_VALUE``: what each peer that answered held under each key (None: nothing)
        self.answers: dict[bytes, dict[bytes, bytes | None]] = {}
        self.dialled: set[bytes] = set()  # peers asked without an open connection (their last ask)
        self.reach: dict[bytes, float] = {}  # dialled peers in flight: when their handshake is through
        self.due: dict[bytes, float] = {}  # peers in flight: when they are reported slow
        unreached, stale = node.unreached, node.contacts
        if unreached is not None and lookup.suspect is None:  # as kad_io.run_lookup does
            loop = world.loop
            if stale is None:
                lookup.suspect = lambda peer: unreached.holds(peer, loop.now)
            else:
                lookup.suspect = lambda peer: peer in stale or unreached.holds(peer, loop.now)
        if node.round_trips is not None:
            lookup.spare = node.round_trips.spare()

    @property
    def elapsed(self) -> float:
        return self.world.loop.now - self.started_at

    def start(self) -> LookupRun:
        self._pump()
        return self

    def _pump(self) -> None:
        if self.finished:
            return
        world, node, loop = self.world, self.node, self.world.loop
        hedges = node.round_trips
        for peer, keys in self.lookup.requests().items():
            target = world.node_of(peer)
            at = self.in_flight[peer] = loop.now
            connected = target is not None and target.index in node.conns
            if connected:
                self.dialled.discard(peer)
            else:
                self.dialled.add(peer)
            reach_wait = None if hedges is None or connected else hedges.reach_wait()
            self.hedged.discard(peer)
            self.contacted += 1
            if target is None:  # a made-up peer ID: nobody will answer
                self.reach[peer] = math.inf
                self.due[peer] = at + (HEDGE if hedges is None else reach_wait or hedges.wait(connected))
                loop.at(self.due[peer], self._hedge, peer, at)
                loop.after(PEER_TIMEOUT, self._timeout, peer, at)
                continue
            eta = world.net.request(
                node,
                target,
                self.kind,
                len(keys),
                partial(serve_find, world, target, node, keys, self.kind),
                partial(self._answered, peer, keys),
                partial(self._lost, peer, at),
            )
            if hedges is None:
                hedge_at = at + HEDGE
            elif reach_wait is None:
                hedge_at = at + hedges.wait(connected)
            else:  # two stages, as kad_io: the handshake within the reach wait, then the request's own wait
                reach_at = self.reach[peer] = world.net.reach_at
                hedge_at = at + reach_wait if reach_at > at + reach_wait else reach_at + hedges.wait(True)
            self.due[peer] = hedge_at
            # the timers are scheduled only when they would fire before the answer (links.Network.request)
            if eta > hedge_at:
                loop.at(hedge_at, self._hedge, peer, at)
            if eta > at + PEER_TIMEOUT:
                loop.after(PEER_TIMEOUT, self._timeout, peer, at)
        if self.lookup.done:
            self._finish()

    def _lost(self, peer: bytes, at: float) -> None:
        """No answer will come from ``peer``: the timers skipped when it was asked fire at their times."""
        loop = self.world.loop
        loop.at(self.due.get(peer, at + HEDGE), self._hedge, peer, at)
        loop.at(at + PEER_TIMEOUT, self._timeout, peer, at)

    def _answered(self, peer: bytes, keys: list[bytes], answers: list[Answer]) -> None:
        if self.finished:
            return
        asked_at = self.in_flight.pop(peer, None)
        hedges, reach_at = self.node.round_trips, self.reach.pop(peer, None)
        if asked_at is not None and hedges is not None:
            hedges.sample(self.world.loop.now - asked_at, peer not in self.dialled)
            if reach_at is not None:
                hedges.sample_reach(reach_at - asked_at)
                hedges.sample(self.world.loop.now - reach_at, True)  # the request after the handshake
                if peer not in self.hedged:  # reached within its wait (the node notes it at the handshake)
                    hedges.note_dial(missed=False)
        if self.node.unreached is not None:
            self.node.unreached.clear(peer)
        if self.node.contacts is not None:
            self.node.contact_heard(peer)
        lookup, hops = self.lookup, self.hops
        hop = hops.get(peer, 1)
        for key, (closer, providers, value) in zip(keys, answers, strict=True):
            for p in closer:
                if hops.get(p, math.inf) > hop + 1:
                    hops[p] = hop + 1
            if self.on_closer is not None:
                self.on_closer(closer)
            lookup.answered(peer, key, closer, providers=providers, value=value)
            if self.kind == VALUE:
                self.answers.setdefault(key, {})[peer] = value
            if (providers or value is not None) and key not in self.first_hit:
                self.first_hit[key] = hop
        lookup.batch_done(peer)
        if self.on_answer is not None:
            for key in keys:
                self.on_answer(key)
        self._pump()

    def _hedge(self, peer: bytes, at: float) -> None:
        if not self.finished and self.in_flight.get(peer) == at and peer not in self.hedged:
            now, unreached = self.world.loop.now, self.node.unreached
            if unreached is not None and self.reach.get(peer, 0.0) > now:  # its handshake is not through
                unreached.note(peer, now)
                if self.node.round_trips is not None:
                    self.node.round_trips.note_dial(missed=True)
            self.hedged.add(peer)
            self.lookup.slow(peer)
            self._pump()

    def _timeout(self, peer: bytes, at: float) -> None:
        if not self.finished and self.in_flight.get(peer) == at:
            del self.in_flight[peer]
            node, now = self.node, self.world.loop.now
            if node.unreached is not None:
                node.unreached.note(peer, now)
            target = self.world.node_of(peer)
            if node.contacts is not None and (target is None or target.index not in node.conns):
                node.contact_failed(peer, now)  # a request without a connection failed (kad_io)
            self.lookup.failed(peer)
            self._pump()

    def _finish(self) -> None:
        self.finished = True
        if self.on_done is not None:
            self.on_done(self)

    def converged_hops(self, key: bytes) -> int:
        """The largest hop among the ``ask`` closest peers that answered for ``key``."""
        state = self.lookup.keys[key]
        answered = [p for p in state.candidates if state.asked.get(p) == "answered"][: self.lookup.ask]
        return max((self.hops.get(p, 1) for p in answered), default=0)


def start_lookup(
    world: Fabric,
    node: SimNode,
    keys: Iterable[bytes],
    kind: str,
    *,
    ask: int = DEFAULT_ASK,
    connections: bool = True,
    on_answer: Callable[[bytes], Any] | None = None,
    on_closer: Callable[[list[bytes]], Any] | None = None,
    on_done: Callable[[LookupRun], Any] | None = None,
) -> LookupRun:
    """Start a lookup of ``keys`` from ``node``, seeded as the node seeds it (:func:`known_peers`;
    ``connections=False``: from the routing table only, as py-libp2p's own lookups and bucket refresh
    start); ``on_answer(key)`` after each answer for ``key``, ``on_closer(peers)`` with the peers each
    answer names, ``on_done(run)`` once it is done."""
    keys = list(dict.fromkeys(keys))
    known = known_peers(world, node, keys, connections=connections)
    lookup = Lookup(keys, known, me=node.peer, ask=ask)
    run = LookupRun(world, node, lookup, kind, on_answer=on_answer, on_closer=on_closer, on_done=on_done)
    return run.start()


def known_peers(
    world: Fabric, node: SimNode, keys: list[bytes], *, connections: bool = True, count: int = K
) -> list[bytes]:
    """The peers a lookup starts from. The node (``kad_io.known_peers``) passes its whole routing table
    and every open connection, of which the lookup keeps its ``width`` closest per key (``count``: ``K``,
    or ``LEARNED`` for the self-lookup); here the ``count`` closest per key of the table and of the open
    connections are passed (the same candidates, without sorting thousands of peers), and the
    connections peer discovery keeps; stale contacts of the table (``dht/contacts.py``) are left out.
    ``connections=False``: the table's and the kept connections only (py-libp2p's own lookups)."""
    table, nodes = node.table, world.nodes
    stale = None if node.contacts is None else node.contacts.peers  # left out, as in kad_io.known_peers
    out: dict[bytes, None] = {}
    conns = list(node.conns) if connections else []
    many = len(conns) > count
    if many:
        index = np.fromiter(conns, dtype=np.int64, count=len(conns))
        top = _top_positions(nodes)[index]
    for key in keys:
        target = position(key)
        out.update(dict.fromkeys(table.closest(target, count, skip=stale)))
        if many:
            out.update((nodes[i].peer, None) for i in _closest_of(nodes, index, top, target, count))
        else:
            out.update((nodes[i].peer, None) for i in conns)
    for i in node.neighbours:
        out[nodes[i].peer] = None
    return list(out)


#: Bits of a keyspace position (SHA-256) and of its prefix the nearest connections are preselected by.
POSITION_BITS = 256
PREFIX_BITS = 64
_prefixes: list[tuple[list[SimNode], npt.NDArray[np.uint64]]] = []  # the last network's, at most one


def _top_positions(nodes: list[SimNode]) -> npt.NDArray[np.uint64]:
    """The top :data:`PREFIX_BITS` of each node's position, by index (made once per network)."""
    if not _prefixes or _prefixes[0][0] is not nodes or len(_prefixes[0][1]) != len(nodes):
        shift = POSITION_BITS - PREFIX_BITS
        top = np.fromiter((n.position >> shift for n in nodes), dtype=np.uint64, count=len(nodes))
        _prefixes[:] = [(nodes, top)]
    return _prefixes[0][1]


def _closest_of(
    nodes: list[SimNode], index: npt.NDArray[np.int64], top: npt.NDArray[np.uint64], target: int, count: int
) -> list[int]:
    """The ``count`` nodes of ``index`` closest to ``target`` by XOR, closest first: what
    ``heapq.nsmallest(count, index, key=distance)`` returns. The distance's top bits order every pair
    whose top bits differ, so the ``count`` closest are among those whose top distance is at most the
    ``count``-th smallest; only those are compared in full."""
    near = top ^ np.uint64(target >> (POSITION_BITS - PREFIX_BITS))
    bound = np.partition(near, count - 1)[count - 1]
    chosen = index[near <= bound].tolist()
    return heapq.nsmallest(count, chosen, key=lambda i: nodes[i].position ^ target)


__all__ = [
    "DEFAULT_ASK",
    "FIND_NODE",
    "HEDGE",
    "HEDGE_HIGH",
    "HEDGE_LOW",
    "PEER_TIMEOUT",
    "PLACE_ASK",
    "REACH_LOW",
    "SUSPECT_TTL",
    "PROVIDERS",
    "VALUE",
    "Answer",
    "LookupRun",
    "known_peers",
    "met",
    "round_trips",
    "serve_add_providers",
    "serve_find",
    "serve_put_value",
    "start_lookup",
]
