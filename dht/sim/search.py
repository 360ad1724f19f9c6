"""A capability search over the DHT in the simulator, as ``ioa_p2p.node.discovery.search.CardSearch`` does
it with a cold directory (the DHT-only find that a large network relies on).

1. The network's size is estimated from the routing table
   (:func:`~ioa_p2p.dht.keyspace.estimate_network_size`).
2. :func:`~ioa_p2p.dht.probing.plan_probes` picks the buckets: every level-4 bucket of table 0 in a
   network estimated at ``enumerate`` peers or fewer (listing), otherwise the query's own bucket in every
   table and the ``probes`` likeliest near ones at the level fitting the size (probing).
3. One batched ``GET_PROVIDERS`` lookup of those keys. Probing: when
   :func:`~ioa_p2p.dht.probing.needs_finer` says most own buckets came back full, the query is repeated one
   level finer; the providers are ranked (:func:`~ioa_p2p.dht.probing.rank_providers`) and the best
   ``max_fetch`` fetched. Listing: every provider is fetched (up to ``max(max_fetch, enumerate)``), and
   when :func:`~ioa_p2p.dht.probing.listing_incomplete` table 1 is listed too. (The node starts fetching
   a listing's cards while its lookup runs; here they are fetched after it: listing matters only below
   200 peers.)
4. Fetching (``CardSearch.fetch``): each card's owner is asked first (``GET_VALUE`` of its own record, all
   at once, :data:`DIRECT_TIMEOUT`), then the DHT for the owners that gave no valid record (one batched
   ``GET_VALUE`` lookup); every record is validated with the node's checks (signature, owner, freshness,
   stamp) and the newest kept.
5. The cards found are ranked by cosine similarity of their vectors with the query's; the node ranks
   with its offline matcher instead, which costs ~15 ms per card: the recall measured here is that of
   the DHT path with the ranking held fixed (the same ranking is applied to every card for the truth).

The DHT part is bounded by ``find_timeout`` (what was found by then is ranked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card import SignedCard, newest_record
from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.keyspace import K, estimate_network_size
from ioa_p2p.dht.probing import listing_incomplete, needs_finer, plan_probes, rank_providers
from ioa_p2p.dht.replicas import stale_replicas
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.fabric import Fabric
from ioa_p2p.dht.sim.kad import PROVIDERS, VALUE, LookupRun, serve_put_value, start_lookup
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.validators import card_key, check_stamp
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId

#: Seconds a fetch waits for the cards' owners before asking the DHT (``CardSearch``).
DIRECT_TIMEOUT = 1.0


@dataclass
class SearchResult:
    """What one search found and how long its parts took (seconds of virtual time)."""

    ranked: list[int]  # node indices, best first
    providers: int = 0
    fetched: int = 0
    lookup_s: float = 0.0
    fetch_s: float = 0.0
    total_s: float = 0.0
    listing: bool = False
    passes: int = 1
    timed_out: bool = False


class SearchBase:
    """What both searches share (this one and :class:`~ioa_p2p.dht.sim.pagesearch.PageSearchRun`): the
    network's size as the node estimates it, the ``find_timeout`` bound and the ranking of what was
    fetched, reported once to ``on_done``."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        vector: npt.NDArray[np.float32],
        forest: Forest,
        settings: DiscoverySettings,
        on_done: Callable[[SearchResult], Any],
        *,
        k: int = 5,
    ) -> None:
        self.world, self.node, self.vector, self.forest = world, node, vector, forest
        self.settings, self.on_done, self.k = settings, on_done, k
        self.started_at = world.loop.now
        self.result = SearchResult([])
        self.cards: dict[int, SignedCard] = {}
        self.done = False

    def network_size(self) -> float:
        """The node's estimate from its closest table peers and its connections."""
        node = self.node
        known = node.table.closest(node.position, K) + [self.world.nodes[i].peer for i in node.neighbours]
        return estimate_network_size(node.peer, known)

    def _timeout(self) -> None:
        if not self.done:
            self.result.timed_out = True
            self._finish()

    def _finish(self) -> None:
        self.done = True
        self.result.total_s = self.world.loop.now - self.started_at
        self.result.ranked = rank_fetched(self.world, list(self.cards), self.vector, self.k)
        self.on_done(self.result)


class SearchRun(SearchBase):
    """One DHT-only capability search over provider records (see the module docstring)."""

    found: dict[bytes, set[bytes]]

    def start(self) -> SearchRun:
        self.found = {}
        self.size = self.network_size()
        s = self.settings
        self.plan = plan_probes(
            self.forest, self.vector, self.size, probes=s.probes, enumerate_up_to=s.enumerate
        )
        self.result.listing = self.plan.listing
        self.world.loop.after(s.find_timeout, self._timeout)
        self._lookup(list(self.plan.keys), self._first_pass)
        return self

    def _lookup(self, keys: list[bytes], then: Callable[[LookupRun], Any]) -> None:
        start_lookup(self.world, self.node, keys, PROVIDERS, ask=self.settings.ask, on_done=then)

    def _collect(self, run: LookupRun) -> None:
        for key in run.lookup.keys:
            found = self.found.setdefault(key, set())
            found.update(run.lookup.providers(key))
            found.update(self.node.providers.get(key, ()))

    def _first_pass(self, run: LookupRun) -> None:
        if self.done:
            return
        self._collect(run)
        plan = self.plan
        if plan.listing:
            if listing_incomplete(plan, self.found, self.size):
                self.second = plan_probes(
                    self.forest, self.vector, self.size, probes=self.settings.probes, table=1
                )
                self.result.passes = 2
                self._lookup(list(self.second.keys), self._second_pass)
                return
        else:
            finer = needs_finer(plan, self.found, self.forest)
            if finer is not None:
                self.plan = plan_probes(
                    self.forest, self.vector, self.size, probes=self.settings.probes, level=finer
                )
                self.result.passes = 2
                self._lookup(list(self.plan.keys), self._second_pass)
                return
        self._choose()

    def _second_pass(self, run: LookupRun) -> None:
        if not self.done:
            self._collect(run)
            self._choose()

    def _choose(self) -> None:
        s, world = self.settings, self.world
        self.result.lookup_s = world.loop.now - self.started_at
        self.result.providers = len({p for peers in self.found.values() for p in peers})
        if self.plan.listing:
            ranked = sorted({p for peers in self.found.values() for p in peers})
            limit = max(s.max_fetch, s.enumerate)
        else:
            ranked = rank_providers(self.plan, self.found)
            limit = s.max_fetch
        chosen = [p for p in ranked if p != self.node.peer][:limit]
        self.result.fetched = len(chosen)
        self.fetch_started = world.loop.now
        FetchRun(world, self.node, chosen, s, self._fetched).start()

    def _fetched(self, records: dict[bytes, SignedCard]) -> None:
        if self.done:
            return
        for peer, card in records.items():
            node = self.world.node_of(peer)
            if node is not None:
                self.cards[node.index] = card
        self.result.fetch_s = self.world.loop.now - self.fetch_started
        self._finish()


class FetchRun:
    """The newest valid card records of ``peers``: owners first, then the DHT (see the module docstring)."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        peers: list[bytes],
        settings: DiscoverySettings,
        on_done: Callable[[dict[bytes, SignedCard]], Any],
        *,
        direct: bool = True,
        withdrawals: dict[bytes, Any] | None = None,
        repair: bool = False,
    ) -> None:
        self.world, self.node, self.peers, self.settings, self.on_done = world, node, peers, settings, on_done
        self.direct = direct
        self.repair = repair
        self.from_owner: set[bytes] = set()  # peers whose own answer gave the record kept
        self.repaired = 0
        self.records: dict[bytes, Any] = {}  # peer -> newest valid record (card or withdrawal)
        self.withdrawals = withdrawals
        self._waiting: set[bytes] = set()
        self._dht_started = False

    def start(self) -> FetchRun:
        if not self.peers:
            self._done()
            return self
        if not self.direct:
            self._ask_dht()
            return self
        world = self.world
        world.loop.after(DIRECT_TIMEOUT, self._direct_over)  # one timer for all the owners asked
        for peer in self.peers:
            owner = world.node_of(peer)
            self._waiting.add(peer)
            if owner is None:
                continue
            key = key_of(peer)
            world.net.request(
                self.node,
                owner,
                "get_value",
                1,
                partial(held, owner, key),
                partial(self._direct, peer),
            )
        return self

    def _direct(self, peer: bytes, values: list[bytes | None]) -> None:
        if self._dht_started or peer not in self._waiting:
            return
        self._waiting.discard(peer)
        self._accept(peer, [v for v in values if v is not None])
        if peer in self.records:
            self.from_owner.add(peer)
        if not self._waiting:
            self._direct_over()

    def _direct_over(self) -> None:
        if not self._dht_started:
            self._ask_dht()

    def _ask_dht(self) -> None:
        self._dht_started = True
        rest = [p for p in self.peers if p not in self.records]
        if not rest:
            self._done()
            return
        keys = {key_of(p): p for p in rest}

        def got(run: LookupRun) -> None:
            for key, peer in keys.items():
                values = run.lookup.values(key)
                own = self.node.values.get(key)
                self._accept(peer, values + ([own] if own is not None else []))
                if self.repair and peer in self.records:
                    self._correct(run, key, self.records[peer])
            self._done()

        start_lookup(self.world, self.node, list(keys), VALUE, ask=self.settings.ask, on_done=got)

    def _accept(self, peer: bytes, values: list[bytes]) -> None:
        now = self.world.now_ms()
        pid = PeerId(peer)
        records: list[Any] = []
        for value in values:
            try:
                record = self.world.records.parse(value, now_ms=now, peer=pid)
                check_stamp(record, self.settings.min_stamp_bits)
                records.append(record)
            except InvalidMessage:
                self.world.counters["fetch rejected"] += 1
        best = newest_record(records)
        if best is not None:
            record = records[best]
            held = self.records.get(peer)
            if held is None or record.version > held.version:
                self.records[peer] = record

    def _correct(self, run: LookupRun, key: bytes, newest: Any) -> None:
        """Put the newest record at the peers of the lookup's closest that answered with an older one or
        none (:func:`~ioa_p2p.dht.replicas.stale_replicas`): storing peers that were offline when a
        withdrawal or a new version was put catch up when someone reads the key."""
        answers = run.answers.get(key, {})
        closest = run.lookup.closest(key)
        world, now = self.world, self.world.now_ms()
        for peer in stale_replicas(answers, closest, newest.version, self._version_of, now):
            target = world.node_of(peer)
            if target is None:
                continue
            self.repaired += 1
            world.counters["replica repaired"] += 1
            world.net.request(
                self.node,
                target,
                "put_value",
                1,
                partial(serve_put_value, world, target, self.node, key, newest.encoded),
                _ignore,
            )

    def _version_of(self, value: bytes, now_ms: int) -> int | None:
        try:
            return self.world.records.parse(value, now_ms=now_ms).version
        except InvalidMessage:
            return None

    def _done(self) -> None:
        cards = {p: r for p, r in self.records.items() if isinstance(r, SignedCard)}
        if self.withdrawals is not None:
            self.withdrawals.update({p: r for p, r in self.records.items() if not isinstance(r, SignedCard)})
        self.on_done(cards)


def _ignore(_: Any) -> None:
    return None


def rank_fetched(world: Fabric, indices: list[int], vector: npt.NDArray[Any], k: int) -> list[int]:
    """The ``k`` best fetched cards (node indices) by exact cosine with the query: what a find returns."""
    cards = world.cards
    assert cards is not None
    if not indices:
        return []
    scores = cards.vectors[indices] @ vector
    order = np.argsort(-scores, kind="stable")[:k]
    return [indices[int(i)] for i in order]


def held(node: SimNode, key: bytes) -> list[bytes | None]:
    """What ``node`` answers to ``GET_VALUE`` of ``key`` (a list: an answer without a value is one)."""
    return [node.values.get(key)]


def key_of(peer: bytes) -> bytes:
    """The DHT key of a peer's card record, as bytes."""
    return card_key(PeerId(peer)).encode("utf-8")


__all__ = ["DIRECT_TIMEOUT", "FetchRun", "SearchBase", "SearchResult", "SearchRun", "key_of", "rank_fetched"]
