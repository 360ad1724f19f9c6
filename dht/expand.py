"""A capability search over bucket pages: seed, expand, then fetch the few best cards (pure).

Query-to-card cosines are low (0.3-0.4 for the best cards against 0.04 for the median on the teaming
data), so random hyperplanes put the best cards of a query in its own or near buckets only some of the
time: the probed buckets of the previous design held 0.47 of the exact top 5 at 1,000 cards
(``docs/matching.md``). Card-to-card cosines among the best cards of a query are much higher, so their
buckets find each other well. :class:`PageSearch` therefore:

1. **Seeds**: lists the pages (:mod:`~ioa_p2p.dht.pages`) of the query's buckets,
   :func:`~ioa_p2p.dht.probing.plan_probes` at the level :func:`page_level` picks for the network's size
   (up to :data:`PAGE_LISTING` peers, 512: every level-4 page of table 0, the whole network);
2. **ranks** every sketch listed by its score for the query (:class:`~ioa_p2p.dht.sketchscore.SketchScorer`:
   the matcher's first stage on what sketches carry; no card is fetched for this);
3. **expands**: the ``width`` best candidates not expanded yet have their own buckets (every table, plus
   ``near`` near buckets; computed from their sketches) listed in turn, which finds the cards most like
   the best ones so far; repeated until the :data:`SETTLE` best are all expanded, ``max_pages`` were
   asked or ``budget`` bytes of sketches were read. A candidate's buckets are listed at the
   :func:`expand_level` of the network (the finest provided level whose pages hold about
   :data:`EXPAND_OCCUPANCY` sketches: level 12 from ~2,000 peers), so an expansion reads the few cards
   closest to it, not a level-8 page of 40 (at 10,000 peers: 3.4 MB of sketches per find instead of 6.1,
   ``docs/matching.md``). The pages of a round are asked best first (multi-probe order: the candidate's
   score minus the flip cost of the bucket, :meth:`PageSearch.frontier`), so a byte budget that ends a
   search cuts the least promising pages;
4. **fetches** the ``fetch`` best cards only (:meth:`best`; which ones, with the sketch-level spam defences:
   :func:`~ioa_p2p.dht.fetchchoice.choose_fetch`, given :meth:`PageSearch.centre`), which the node ranks
   with its matcher.

**The breadth centre** (:meth:`PageSearch.centre`): a card that claims everything lies near the centre of
*all* cards, so that is what its breadth is measured against. Up to a few hundred peers the listing is
the whole network and its candidates give that centre. A probing search lists only the query's
neighbourhood (0.4 of the cards at 10,000), whose centre the best honest cards there share: measured
against it they looked broad and were not fetched (recall@5 0.907 of exact at 10,000 simulated nodes,
``docs/performance.md``). So a probing search also reads, with its seed round, the 16 level-4 pages of
table :data:`SAMPLE_TABLE` (every card is in exactly one of them; each holds the first 64 that reached
it: ~1,000 sketches from the whole network, ~650 KB of stamped 256-d sketches, outside ``budget``, none made a
candidate) and takes the centre from them once they hold :data:`SAMPLE_MIN` sketches. This holds for a
cold node (no card held, no evidence) and rests on no card's claim about itself (a storing peer admits
an entry only in its own bucket, so no identity is in two of these pages). A flood of stuffed cards
that reaches these pages moves the centre towards itself, which makes it look more central, not less;
a flood of far-off cards that filled them first could move it away (each page keeps its first 64
entries until they expire): that costs a stamped identity per entry, 1,024 of them, kept fresh.

A listing whose pages look incomplete continues: when one came back full (the network outgrew the
listing) as a probing search at level 8; when it only holds fewer entries than
:data:`~ioa_p2p.dht.probing.LISTING_COVERAGE` of the estimated network (the estimate, from the routing
table, is often off by half at 25-50 peers), first by listing the 16 level-4 pages of table 1, an
independent copy of every card's entry: when they name no more than :data:`NEW_SHARE` new candidates,
the two tables agree and the listing is complete (one round, instead of a probing search of ~350 pages
that took 6 s at 25 processes on a loaded machine); otherwise entries are missing and the probing
search follows. The driver (the node's ``CardSearch`` or the simulator) asks for the pages :meth:`start` and
:meth:`next_cells` name, feeds what it reads to :meth:`offer`, and stops at its deadline with what it has.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card.sketch import SignedSketch
from ioa_p2p.dht.forest import LEVELS, Cell, Forest
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.dht.probing import COST_SCALE, ENUMERATE_UP_TO, LISTING_COVERAGE, plan_probes, provided_levels
from ioa_p2p.dht.sketchscore import SketchScorer
from ioa_p2p.identity import PeerId

#: Mean sketches per page a probing search aims at (pages hold :data:`~ioa_p2p.dht.pages.PAGE_ENTRIES`).
PAGE_OCCUPANCY = 48
#: Largest estimated network whose level-4 pages of table 0 (16) are listed in full: half their capacity
#: (a bigger ``enumerate`` setting raises it; a page that came back full starts a probing search).
PAGE_LISTING = 16 * PAGE_ENTRIES // 2
#: Defaults: candidates expanded per round, near buckets listed per expanded candidate, pages asked at
#: most per search, cards fetched.
WIDTH = 20
#: A search ends once its best ``SETTLE`` candidates are all expanded (2 rounds at 1,000 and 10,000 cards,
#: recall@5 0.99 and 0.98 of exact; ending once the best ``WIDTH`` are: 3.3 rounds, same recall).
SETTLE = 5
NEAR = 8
MAX_PAGES = 1200
#: Share of new candidates the second table's listing may name for the listing to count as complete.
NEW_SHARE = 0.05
#: Cards fetched at most (the node halves it when sketches carry a MiniLM part:
#: :func:`~ioa_p2p.dht.sketchscore.fetch_count`).
FETCH = 24
#: Sketches per page an expansion aims at: a candidate's buckets are listed at the coarsest provided level
#: whose pages hold about this many (finer pages: the candidate's closest cards, fewer bytes).
EXPAND_OCCUPANCY = 8
#: When candidates are expanded at a finer level than the seeds (each expansion then reads ~1/16 of the
#: bytes), this many times ``width`` candidates are expanded per round (10,000 peers: recall@5 0.982 with
#: 40, 0.967 with 20; 3.4 and 2.3 MB read).
FINER_WIDTH = 2
#: How far past the sizes above a search keeps the coarser level: the network-size estimate (the
#: routing table's closest peers) is often off by a third or more (10th/90th percentiles 0.73 N / 1.46 N
#: in a simulated network of 1,000), and a searcher that overestimated switched to level-12 seeds or
#: expansions the network does not call for yet: design recall@5 0.927 instead of 0.980 at 10,000 cards
#: estimated at 13,000 (docs/performance.md). Applied to the seeds' level (:func:`page_level`).
SIZE_MARGIN = 1.5
#: The same margin for the expansion level, smaller: a searcher at 2,000 peers that estimated 2,200
#: expanded at level 12 (design recall@5 0.967 instead of 0.987), while level-8 expansions at 3,000 read
#: pages of 12 that a tight byte budget cuts (``tests/test_page_budget.py``).
EXPAND_MARGIN = 1.25
#: The pages a probing search reads for its breadth centre (module docstring): the level-4 pages of this
#: table (16: the whole network, 64 sketches each at most), and the fewest sketches they must hold to set
#: the centre (fewer, e.g. pages not reached: the candidates' centre).
SAMPLE_TABLE = 0
SAMPLE_MIN = 64
#: Default bytes of sketches a search reads at most (its pages are asked best first; ~7,500 sketches of
#: a 256-d family).
BUDGET = 4 * 1024 * 1024


def page_level(network_size: float, enumerate_up_to: int = ENUMERATE_UP_TO) -> int | None:
    """``None`` (list level 4 of table 0) up to ``max(enumerate_up_to,`` :data:`PAGE_LISTING` ``)`` peers;
    else the coarsest level whose pages hold about :data:`PAGE_OCCUPANCY` sketches or fewer at an
    estimate :data:`SIZE_MARGIN` too high, and never more than a page holds (8 up to ~16,000 peers
    estimated, then 12)."""
    if network_size <= max(enumerate_up_to, PAGE_LISTING):
        return None
    most = min(PAGE_OCCUPANCY * SIZE_MARGIN, PAGE_ENTRIES)
    for level in LEVELS[1:]:
        if network_size / (1 << level) <= most:
            return level
    return LEVELS[-1]


def expand_level(network_size: float, level: int) -> int:
    """The level at which candidates found at ``level`` are expanded: the coarsest level at least as fine
    as ``level`` whose pages hold about :data:`EXPAND_OCCUPANCY` sketches or fewer, among the levels a
    network of ``network_size`` provides (:func:`~ioa_p2p.dht.probing.provided_levels`), at an estimate
    :data:`EXPAND_MARGIN` too high (level 8 up to ~2,560 peers estimated)."""
    provided = [lv for lv in provided_levels(network_size) if lv >= level]
    for lv in provided:
        if network_size / (1 << lv) <= EXPAND_OCCUPANCY * EXPAND_MARGIN:
            return lv
    return provided[-1] if provided else level


class PageSearch:
    """One search's state (see the module docstring); ``view`` is the query in the family's space,
    ``scorer`` how sketches are scored (default: by their family part only)."""

    def __init__(
        self,
        forest: Forest,
        view: Sequence[float] | npt.NDArray[Any],
        network_size: float,
        *,
        probes: int = 40,
        enumerate_up_to: int = ENUMERATE_UP_TO,
        width: int = WIDTH,
        near: int = NEAR,
        max_pages: int = MAX_PAGES,
        settle: int | None = None,
        budget: int = BUDGET,
        scorer: SketchScorer | None = None,
    ) -> None:
        self.forest, self.size = forest, network_size
        q = np.asarray(view, dtype=np.float64).reshape(-1)
        self.query = q / (float(np.linalg.norm(q)) or 1.0)
        self.scorer = scorer if scorer is not None else SketchScorer(q)
        self.probes, self.enumerate_up_to = probes, enumerate_up_to
        self.width, self.near, self.max_pages, self.budget = width, near, max_pages, budget
        #: the search ends once its ``settle`` best candidates are all expanded (default: ``width``)
        self.settle = min(SETTLE if settle is None else settle, max(width, 1))
        self.level = page_level(network_size, enumerate_up_to)
        self.listing = self.level is None
        self.second_table = False  # table 1 listed after a listing that looked incomplete
        self._listed_first = 0  # candidates the listing of table 0 named
        self.asked: dict[bytes, Cell] = {}
        self.answered: dict[bytes, int] = {}  # cell key -> entries its page held
        self.candidates: dict[PeerId, tuple[float, SignedSketch]] = {}
        self.expanded: set[PeerId] = set()
        self.rounds = 0
        #: bytes of sketches read so far (every entry of every page offered, repeats included)
        self.bytes = 0
        #: pages to ask, best first: (-priority, cell name, cell); priority = the proposing candidate's
        #: score minus the bucket's flip cost (``COST_SCALE`` units of ``|cos|``)
        self._frontier: list[tuple[float, str, Cell]] = []
        self._read_at: dict[int, tuple[int, int]] = {}  # level -> (bytes, pages) read at it
        self._entries = 0
        self._sum = np.zeros_like(self.query)  # of the candidates' unit vectors (the query's shape)
        #: the breadth sample (module docstring): its page keys, those read for it alone (a probing
        #: search's), the peers in it and the sum of their unit vectors; bytes read for it alone
        self._sample_keys = {
            forest.cell(SAMPLE_TABLE, LEVELS[0], prefix).key for prefix in range(1 << LEVELS[0])
        }
        self._sample_only: set[bytes] = set()
        self._sampled: set[PeerId] = set()
        self._sample_sum = np.zeros_like(self.query)
        self.sample_bytes = 0

    def start(self) -> list[Cell]:
        """The seed pages; for a probing search, with the breadth sample's (module docstring)."""
        plan = plan_probes(
            self.forest,
            self.query,
            self.size,
            probes=self.probes,
            enumerate_up_to=max(self.enumerate_up_to, PAGE_LISTING),
            level=self.level,
        )
        cells = self._ask(plan.cells)
        if self.level is None:
            return cells  # a listing: its level-4 pages are the sample
        sample = self._ask(
            self.forest.cell(SAMPLE_TABLE, LEVELS[0], prefix) for prefix in range(1 << LEVELS[0])
        )
        self._sample_only.update(cell.key for cell in sample)
        return cells + sample

    def offer(self, cell_key: bytes, sketches: Iterable[SignedSketch]) -> None:
        """What the page of ``cell_key`` held (an empty or missing page is an answer too)."""
        if cell_key in self._sample_only:
            sketches = list(sketches)
            self.sample_bytes += sum(len(sketch.encoded) for sketch in sketches)
            self._sample(sketches)
            return
        if cell_key in self._sample_keys:
            sketches = list(sketches)
            self._sample(sketches)
        count = size = 0
        for sketch in sketches:
            count += 1
            size += len(sketch.encoded)
            peer = sketch.peer_id
            held = self.candidates.get(peer)
            if held is not None and held[1].version >= sketch.version:
                continue
            self.scorer.listed(sketch, None if held is None else held[1])
            if held is not None:
                self._sum -= self._unit(held[1])
            self._sum += self._unit(sketch)
            self.candidates[peer] = (self.scorer.dense(sketch), sketch)
        self.answered[cell_key] = max(count, self.answered.get(cell_key, 0))
        self.bytes += size
        self._entries += count
        cell = self.asked.get(cell_key)
        if cell is not None:
            read, pages = self._read_at.get(cell.level, (0, 0))
            self._read_at[cell.level] = (read + size, pages + 1)

    def next_cells(self) -> list[Cell]:
        """The pages to list next (empty: the search is done): after a listing that looked incomplete, the
        level-4 pages of table 1, then (the tables disagree, or a page was full) a probing seed at level
        8; otherwise the buckets of the best candidates not expanded yet."""
        if self.listing:
            if self.second_table:
                new = len(self.candidates) - self._listed_first
                if not self._page_full() and new <= NEW_SHARE * max(self._listed_first, 1):
                    self.listing = False
                    return []  # the two tables agree: complete
            elif self._listing_incomplete() and not self._page_full():
                self.second_table, self._listed_first = True, len(self.candidates)
                plan = plan_probes(
                    self.forest,
                    self.query,
                    self.size,
                    probes=self.probes,
                    enumerate_up_to=max(self.enumerate_up_to, PAGE_LISTING),
                    table=1,
                )
                return self._ask(plan.cells)
            elif not self._listing_incomplete():
                self.listing = False
                return []
            self.listing = False
            self.level = LEVELS[1]
            return self.start()
        if self.level is None or self.bytes >= self.budget:
            return []
        if all(s.peer_id in self.expanded for s in self.best(self.settle)):
            return []
        self.rounds += 1
        level = expand_level(self.size, self.level)
        width = self.width * (FINER_WIDTH if level > self.level else 1)
        for sketch in self.best(width):
            if sketch.peer_id in self.expanded:
                continue
            self.expanded.add(sketch.peer_id)
            score = self.candidates[sketch.peer_id][0]
            plan = plan_probes(self.forest, sketch.vector(), self.size, probes=self.near, level=level)
            for cell in plan.cells:
                if cell.key not in self.asked:
                    cost = -math.log(plan.weights[cell.key]) * COST_SCALE
                    heapq.heappush(self._frontier, (cost - score, cell.name, cell))
        return self._ask(self.frontier())

    def frontier(self) -> list[Cell]:
        """The queued pages not asked yet, best first, as many as ``max_pages`` and the bytes left of the
        budget allow (:meth:`page_bytes`)."""
        room = self.max_pages - len(self.asked)
        left = float(self.budget - self.bytes)
        out: dict[bytes, Cell] = {}
        while self._frontier and len(out) < room and left > 0:
            _, _, cell = heapq.heappop(self._frontier)
            if cell.key not in self.asked and cell.key not in out:
                out[cell.key] = cell
                left -= self.page_bytes(cell.level)
        return list(out.values())

    def page_bytes(self, level: int) -> float:
        """The expected size of a page of ``level``: the mean of those read at that level, else the
        network's mean page occupancy at that level, doubled (a search reads where cards are dense), times
        the mean entry size read so far."""
        read, pages = self._read_at.get(level, (0, 0))
        if pages:
            return read / pages
        entry = self.bytes / self._entries if self._entries else 512.0
        return min(float(PAGE_ENTRIES), max(1.0, 2 * self.size / (1 << level))) * entry

    def best(
        self, count: int, exclude: Iterable[PeerId] = (), evidence: Mapping[PeerId, float] | None = None
    ) -> list[SignedSketch]:
        """The ``count`` best candidates by sketch score plus the ``evidence`` units about each peer
        (:func:`~ioa_p2p.dht.fetchchoice.evidence_units`; ties: by peer ID bytes)."""
        skip = set(exclude)
        lexical = self.scorer.lexical(p.raw for p in self.candidates)
        units = evidence or {}
        ranked = sorted(
            (
                (
                    score + lexical.get(sketch.peer_id.raw, 0.0) + units.get(sketch.peer_id, 0.0),
                    sketch.peer_id.raw,
                    sketch,
                )
                for peer, (score, sketch) in self.candidates.items()
                if peer not in skip
            ),
            key=lambda item: (-item[0], item[1]),
        )
        return [sketch for _, _, sketch in ranked[:count]]

    def scored(self, sketches: Iterable[SignedSketch]) -> list[tuple[float, SignedSketch]]:
        """``(score, sketch)`` of these candidates by the score :meth:`best` ranks by (for
        :func:`~ioa_p2p.dht.fetchchoice.choose_fetch`); sketches no longer candidates are left out."""
        lexical = self.scorer.lexical(p.raw for p in self.candidates)
        out = []
        for sketch in sketches:
            held = self.candidates.get(sketch.peer_id)
            if held is not None:
                out.append((held[0] + lexical.get(sketch.peer_id.raw, 0.0), held[1]))
        return out

    def drop(self, peer: PeerId) -> None:
        """Forget a candidate (its sketch did not verify, or lied about its card)."""
        held = self.candidates.pop(peer, None)
        if held is not None:
            self.scorer.dropped(held[1])
            self._sum -= self._unit(held[1])

    def centre(self) -> npt.NDArray[np.float64] | None:
        """The centre a card that claims everything lies near (:func:`~ioa_p2p.dht.fetchchoice.centrality`;
        None: none): the sum of the breadth sample's unit vectors once it holds :data:`SAMPLE_MIN`
        sketches (module docstring), else of the candidates' (those of the query's shape)."""
        if len(self._sampled) >= SAMPLE_MIN and float(np.linalg.norm(self._sample_sum)) > 0:
            return self._sample_sum.copy()
        return self._sum.copy() if self.candidates and float(np.linalg.norm(self._sum)) > 0 else None

    @property
    def sampled(self) -> int:
        """Distinct sketches in the breadth sample."""
        return len(self._sampled)

    def _sample(self, sketches: Iterable[SignedSketch]) -> None:
        """Add a sample page's sketches (each peer once) to the breadth centre; a page read for the
        sample alone counts in :attr:`sample_bytes`, not against ``budget``."""
        for sketch in sketches:
            if sketch.peer_id not in self._sampled:
                self._sampled.add(sketch.peer_id)
                self._sample_sum += self._unit(sketch)

    def _unit(self, sketch: SignedSketch) -> npt.NDArray[np.float64]:
        v = sketch.vector()
        if v.shape != self.query.shape:
            return np.zeros_like(self.query)
        return v / (float(np.linalg.norm(v)) or 1.0)

    def _ask(self, cells: Iterable[Cell]) -> list[Cell]:
        out = []
        for cell in cells:
            if cell.key in self.asked or len(self.asked) >= self.max_pages:
                continue
            self.asked[cell.key] = cell
            out.append(cell)
        return out

    def _page_full(self) -> bool:
        return any(count >= PAGE_ENTRIES for count in self.answered.values())

    def _listing_incomplete(self) -> bool:
        return self._page_full() or len(self.candidates) < LISTING_COVERAGE * (self.size - 1)


__all__ = [
    "BUDGET",
    "EXPAND_MARGIN",
    "EXPAND_OCCUPANCY",
    "FETCH",
    "FINER_WIDTH",
    "MAX_PAGES",
    "NEAR",
    "NEW_SHARE",
    "PAGE_LISTING",
    "PAGE_OCCUPANCY",
    "SAMPLE_MIN",
    "SAMPLE_TABLE",
    "SIZE_MARGIN",
    "WIDTH",
    "PageSearch",
    "expand_level",
    "page_level",
]
