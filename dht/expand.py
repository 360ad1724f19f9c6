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
   the best ones so far; repeated until the :data:`SETTLE` best are all expanded or ``max_pages`` were
   asked;
4. **fetches** the ``fetch`` best cards only (:meth:`best`), which the node ranks with its matcher.

A listing whose pages look incomplete (one came back full, or fewer entries than
:data:`~ioa_p2p.dht.probing.LISTING_COVERAGE` of the estimated network) continues as a probing search at
level 8. The driver (the node's ``CardSearch`` or the simulator) asks for the pages :meth:`start` and
:meth:`next_cells` name, feeds what it reads to :meth:`offer`, and stops at its deadline with what it has.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card.sketch import SignedSketch
from ioa_p2p.dht.forest import LEVELS, Cell, Forest
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.dht.probing import ENUMERATE_UP_TO, LISTING_COVERAGE, plan_probes
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
MAX_PAGES = 400
#: Cards fetched at most (the node halves it when sketches carry a MiniLM part:
#: :func:`~ioa_p2p.dht.sketchscore.fetch_count`).
FETCH = 24


def page_level(network_size: float, enumerate_up_to: int = ENUMERATE_UP_TO) -> int | None:
    """``None`` (list level 4 of table 0) up to ``max(enumerate_up_to,`` :data:`PAGE_LISTING` ``)`` peers;
    else the coarsest level whose pages hold about :data:`PAGE_OCCUPANCY` sketches or fewer (8 up to
    ~12,000 peers, then 12)."""
    if network_size <= max(enumerate_up_to, PAGE_LISTING):
        return None
    for level in LEVELS[1:]:
        if network_size / (1 << level) <= PAGE_OCCUPANCY:
            return level
    return LEVELS[-1]


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
        scorer: SketchScorer | None = None,
    ) -> None:
        self.forest, self.size = forest, network_size
        q = np.asarray(view, dtype=np.float64).reshape(-1)
        self.query = q / (float(np.linalg.norm(q)) or 1.0)
        self.scorer = scorer if scorer is not None else SketchScorer(q)
        self.probes, self.enumerate_up_to = probes, enumerate_up_to
        self.width, self.near, self.max_pages = width, near, max_pages
        #: the search ends once its ``settle`` best candidates are all expanded (default: ``width``)
        self.settle = min(SETTLE if settle is None else settle, max(width, 1))
        self.level = page_level(network_size, enumerate_up_to)
        self.listing = self.level is None
        self.asked: dict[bytes, Cell] = {}
        self.answered: dict[bytes, int] = {}  # cell key -> entries its page held
        self.candidates: dict[PeerId, tuple[float, SignedSketch]] = {}
        self.expanded: set[PeerId] = set()
        self.rounds = 0

    def start(self) -> list[Cell]:
        """The seed pages."""
        plan = plan_probes(
            self.forest,
            self.query,
            self.size,
            probes=self.probes,
            enumerate_up_to=max(self.enumerate_up_to, PAGE_LISTING),
            level=self.level,
        )
        return self._ask(plan.cells)

    def offer(self, cell_key: bytes, sketches: Iterable[SignedSketch]) -> None:
        """What the page of ``cell_key`` held (an empty or missing page is an answer too)."""
        count = 0
        for sketch in sketches:
            count += 1
            peer = sketch.peer_id
            held = self.candidates.get(peer)
            if held is not None and held[1].version >= sketch.version:
                continue
            self.scorer.listed(sketch, None if held is None else held[1])
            self.candidates[peer] = (self.scorer.dense(sketch), sketch)
        self.answered[cell_key] = max(count, self.answered.get(cell_key, 0))

    def next_cells(self) -> list[Cell]:
        """The pages to list next (empty: the search is done): after an incomplete listing, a probing
        seed at level 8; otherwise the buckets of the best candidates not expanded yet."""
        if self.listing:
            self.listing = False
            if not self._listing_incomplete():
                return []
            self.level = LEVELS[1]
            return self.start()
        if self.level is None:
            return []
        if all(s.peer_id in self.expanded for s in self.best(self.settle)):
            return []
        self.rounds += 1
        cells: list[Cell] = []
        for sketch in self.best(self.width):
            if len(self.asked) + len(cells) >= self.max_pages:
                break
            if sketch.peer_id in self.expanded:
                continue
            self.expanded.add(sketch.peer_id)
            plan = plan_probes(self.forest, sketch.vector(), self.size, probes=self.near, level=self.level)
            cells += [c for c in plan.cells if c.key not in self.asked]
        return self._ask(cells)

    def best(self, count: int, exclude: Iterable[PeerId] = ()) -> list[SignedSketch]:
        """The ``count`` best candidates by sketch score (ties: by peer ID bytes)."""
        skip = set(exclude)
        lexical = self.scorer.lexical(p.raw for p in self.candidates)
        ranked = sorted(
            (
                (score + lexical.get(sketch.peer_id.raw, 0.0), sketch.peer_id.raw, sketch)
                for peer, (score, sketch) in self.candidates.items()
                if peer not in skip
            ),
            key=lambda item: (-item[0], item[1]),
        )
        return [sketch for _, _, sketch in ranked[:count]]

    def drop(self, peer: PeerId) -> None:
        """Forget a candidate (its sketch did not verify, or lied about its card)."""
        held = self.candidates.pop(peer, None)
        if held is not None:
            self.scorer.dropped(held[1])

    def _ask(self, cells: Iterable[Cell]) -> list[Cell]:
        out = []
        for cell in cells:
            if cell.key in self.asked or len(self.asked) >= self.max_pages:
                continue
            self.asked[cell.key] = cell
            out.append(cell)
        return out

    def _listing_incomplete(self) -> bool:
        if any(count >= PAGE_ENTRIES for count in self.answered.values()):
            return True
        return len(self.candidates) < LISTING_COVERAGE * (self.size - 1)


__all__ = [
    "FETCH",
    "MAX_PAGES",
    "NEAR",
    "PAGE_LISTING",
    "PAGE_OCCUPANCY",
    "WIDTH",
    "PageSearch",
    "page_level",
]
