"""Which LSH buckets a DHT ``find`` asks for, and which of the providers found it fetches first (pure).

A query's choice depends on the network's size ``n`` (:func:`~ioa_p2p.dht.keyspace.estimate_network_size`):

- **Listing** (``n <= enumerate_up_to``, default 200): every level-4 bucket of table 0 (16 keys). A table
  partitions all cards, so its providers are the whole network; every card is fetched and ranked. When
  the listing looks incomplete (:func:`listing_incomplete`: a bucket came back full, i.e. at the
  20-providers limit of its storing peers, or fewer providers than the network's estimated size), the
  caller lists table 1 as well (``table=1``), which partitions the cards differently. Exact, and cheap
  while the network is small. (Why not similarity probes at this size: query-to-card cosines are low,
  0.35 for the best card and 0.2 for the fifth against 0.03 for the median, so random hyperplanes
  separate them poorly, and a probe set covering the best five covers most of a small network anyway;
  ``docs/performance.md``.)
- **Probing** (larger ``n``): the level whose buckets hold about :data:`OCCUPANCY` cards (the smallest
  ``l`` of ``LEVELS`` above 4 with ``n / 2**l <= OCCUPANCY``), the query's own bucket in every table plus the
  ``probes`` likeliest near buckets (one or two of the prefix bits flipped, cheapest first: the cost of
  a flip is the query's closeness to that hyperplane, ``|projection| / (|v| |plane|)``). Providers are
  ranked by the summed weight of the buckets they were found in (``exp(-cost / COST_SCALE)`` per
  bucket: a card in the query's own bucket of several tables comes first) and the best ``fetch`` are
  fetched.

:func:`needs_finer` tells the caller to probe again one level finer when most own buckets came back full
(the network is larger than estimated).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ioa_p2p.dht.forest import LEVELS, LISTED_TABLES, Cell, Forest
from ioa_p2p.dht.keyspace import K

Peer = TypeVar("Peer", bound=Hashable)

#: Cards per bucket a probing query aims at (well under the 20 providers a storing peer keeps).
OCCUPANCY = 8
#: Largest estimated network that a find lists in full.
ENUMERATE_UP_TO = 200
#: A card is provided at a level once the network is this many times smaller than where queries use it.
PROVIDE_MARGIN = 2
#: A listing that found fewer providers than this share of the other peers is completed from table 1
#: (the estimate counts peers without a card too, bootstrap nodes, so the share is not 1).
LISTING_COVERAGE = 0.8
#: The cost at which a near bucket's weight falls to 1/e of the query's own bucket (a cost is a sum of
#: ``|cos|`` of the angles between the query and the flipped hyperplanes' normals: 0.05 is typical).
COST_SCALE = 0.05


@dataclass(frozen=True, slots=True)
class ProbePlan:
    """The keys to ask (best first), each with its weight; ``listing`` when they cover every card."""

    keys: tuple[bytes, ...]
    weights: Mapping[bytes, float]
    level: int
    listing: bool
    cells: tuple[Cell, ...] = ()  #: the cell of each key, in the same order


def provided_levels(network_size: float) -> tuple[int, ...]:
    """The forest levels a card is provided under in a network of about ``network_size`` peers: level 4
    always; a finer level once the network is half the size at which queriers start to use it (a
    margin for estimates that differ between nodes): level 8 from ``ENUMERATE_UP_TO / 2`` = 100 peers,
    level 12 from ``OCCUPANCY * 256 / 2`` = 1024. A small network so carries 2 forest keys per card,
    not 18 (providing costs one ADD_PROVIDER per key and storing peer, paced at 10 per 10 s per peer)."""
    levels = [LEVELS[0]]
    if network_size >= ENUMERATE_UP_TO / PROVIDE_MARGIN:
        levels.append(LEVELS[1])
    if network_size >= OCCUPANCY * (1 << LEVELS[1]) / PROVIDE_MARGIN:
        levels.append(LEVELS[2])
    return tuple(levels)


#: A card provided at a finer level keeps it until the network's estimated size falls below this share of
#: the size that adds the level (:func:`kept_levels`).
LEVEL_STAY = 0.8


def kept_levels(held: tuple[int, ...] | None, network_size: float) -> tuple[int, ...]:
    """:func:`provided_levels` for a card provided at ``held`` levels until now: a finer level is added at
    once, but dropped only once the estimate is below :data:`LEVEL_STAY` of the size that adds it. At
    N = 101 the estimate moves around the 100 that adds level 8, and each move changed the card's 10 keys
    to 2 and back: a provide round and a page round each time (issue 26, l-idle9). Providing a level
    longer costs a few keys and loses no finder (queriers use it only from twice that size)."""
    fresh = provided_levels(network_size)
    if held is None or len(fresh) >= len(held):
        return fresh
    return held if provided_levels(network_size / LEVEL_STAY) == held else fresh


def choose_level(network_size: float) -> int:
    """The coarsest probing level (8 or 12) whose buckets hold at most about :data:`OCCUPANCY` cards."""
    for level in LEVELS[1:]:
        if network_size / (1 << level) <= OCCUPANCY:
            return level
    return LEVELS[-1]


def plan_probes(
    forest: Forest,
    vector: Sequence[float] | npt.NDArray[Any],
    network_size: float,
    *,
    probes: int,
    enumerate_up_to: int = ENUMERATE_UP_TO,
    level: int | None = None,
    table: int = 0,
) -> ProbePlan:
    """The buckets to ask for ``vector`` in a network of about ``network_size`` peers (module docstring);
    ``table``: the table a listing lists (0, or 1 for the second pass)."""
    proj = forest.projections(vector)
    norm = float(np.linalg.norm(np.asarray(vector, dtype=np.float64))) or 1.0
    margins = np.abs(proj) / (norm * math.sqrt(forest.dim))  # |cos| of the angle to each plane's normal
    codes = forest.codes(vector)
    if level is None and network_size <= enumerate_up_to:
        first = LEVELS[0]
        if not 0 <= table < min(LISTED_TABLES, forest.tables):
            raise ValueError(f"only tables 0..{LISTED_TABLES - 1} have level-{first} buckets, not {table}")
        scored = [(_flip_cost(margins[table], codes[table] ^ p, first), table, p) for p in range(1 << first)]
        return _plan(forest, sorted(scored), first, listing=True)
    chosen = choose_level(network_size) if level is None else max(level, LEVELS[1])
    mask = (1 << chosen) - 1
    own = [(0.0, t, codes[t] & mask) for t in range(forest.tables)]
    near: list[tuple[float, int, int]] = []
    for t in range(forest.tables):
        m = margins[t][:chosen]
        order = np.argsort(m, kind="stable")
        for pos, i in enumerate(order):
            near.append((float(m[i]), t, (codes[t] ^ (1 << int(i))) & mask))
            for j in order[pos + 1 : pos + 3]:
                near.append((float(m[i] + m[j]), t, (codes[t] ^ (1 << int(i)) ^ (1 << int(j))) & mask))
    extra = heapq.nsmallest(max(0, probes), near, key=lambda c: (c[0], c[1], c[2]))
    return _plan(forest, own + extra, chosen, listing=False)


def rank_providers(plan: ProbePlan, found: Mapping[bytes, Collection[Peer]]) -> list[Peer]:
    """Providers found under ``plan``'s keys, best first (summed bucket weights; ties: first seen)."""
    score: dict[Peer, float] = {}
    for key in plan.keys:
        for peer in found.get(key, ()):
            score[peer] = score.get(peer, 0.0) + plan.weights[key]
    return sorted(score, key=lambda p: -score[p])


def listing_incomplete(plan: ProbePlan, found: Mapping[bytes, Collection[Any]], network_size: float) -> bool:
    """A listing whose buckets hit the storing peers' limit, or that found fewer providers than
    :data:`LISTING_COVERAGE` of the peers the network is estimated to have (ourselves included)."""
    if any(len(found.get(k, ())) >= K for k in plan.keys):
        return True
    providers = {p for k in plan.keys for p in found.get(k, ())}
    return len(providers) < LISTING_COVERAGE * network_size


def needs_finer(plan: ProbePlan, found: Mapping[bytes, Collection[Any]], forest: Forest) -> int | None:
    """The next finer level when most of the query's own buckets came back full (at least ``K`` providers,
    the storing peers' limit): the network is larger than estimated. ``None`` otherwise."""
    if plan.listing:
        full = sum(len(found.get(k, ())) >= K for k in plan.keys)
        return LEVELS[1] if full * 4 >= len(plan.keys) else None
    own = plan.keys[: forest.tables]
    full = sum(len(found.get(k, ())) >= K for k in own)
    finer = [level for level in LEVELS if level > plan.level]
    return finer[0] if finer and full * 2 > len(own) else None


def _flip_cost(margins: npt.NDArray[np.float64], flipped: int, level: int) -> float:
    return float(sum(margins[i] for i in range(level) if flipped >> i & 1))


def _plan(forest: Forest, scored: list[tuple[float, int, int]], level: int, *, listing: bool) -> ProbePlan:
    keys: dict[bytes, float] = {}
    cells: dict[bytes, Cell] = {}
    for cost, table, prefix in scored:
        cell = forest.cell(table, level, prefix)
        keys.setdefault(cell.key, math.exp(-cost / COST_SCALE))
        cells.setdefault(cell.key, cell)
    return ProbePlan(tuple(keys), keys, level, listing, tuple(cells.values()))


__all__ = [
    "COST_SCALE",
    "ENUMERATE_UP_TO",
    "LEVEL_STAY",
    "LISTING_COVERAGE",
    "OCCUPANCY",
    "PROVIDE_MARGIN",
    "ProbePlan",
    "choose_level",
    "kept_levels",
    "listing_incomplete",
    "needs_finer",
    "plan_probes",
    "provided_levels",
    "rank_providers",
]
