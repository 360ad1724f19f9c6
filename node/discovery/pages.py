"""Bucket pages on a running node (``[discovery] pages = true``): publishing our sketch, searching pages.

- :class:`PagePublisher` (``Discovery.pages``): the signed sketch of our current card
  (:func:`~ioa_p2p.card.sketch.issue_sketch`, once per card version; version 2: with the rest of the card
  vector and the card's term hashes; version 3 when ``[discovery] stamp_bits`` is set: stamped, the nonce
  minted in a worker thread once per content and reused by later versions) and the page keys of its cells at
  the levels the network's size calls for; ``loops.publish_pages`` puts the page holding it at the closest
  peers of every key (``CardNetPort.put_pages``; each storing peer merges it), when its
  :class:`~ioa_p2p.dht.pacing.PublishPolicy` says so (new version, new keys, table grown, refresh).
- :func:`search_pages`: a DHT find over pages (:class:`~ioa_p2p.dht.expand.PageSearch`): rounds of one
  batched ``GET_VALUE`` each (seed pages, then the buckets of the best candidates; a round ends
  :data:`LISTING_GRACE` of its time after every page has a copy, not when its slowest peer answers),
  bounded by :data:`ROUNDS_SHARE` of ``find_timeout``, sketches scored like the matcher scores cards
  (:class:`~ioa_p2p.dht.sketchscore.SketchScorer`: family and rest cosines, term hashes); then the
  ``page_fetch`` best candidates' sketches are verified (half as many fetched when their sketches carry
  a comparable MiniLM part: :func:`~ioa_p2p.dht.sketchscore.fetch_count`) and their cards fetched
  (:func:`~ioa_p2p.node.discovery.fetching.fetch_ranked`: owners first with an adaptive wait, then the
  DHT; ending early once all but the last sixth have answered), and each fetched card is
  checked against the sketch that got it fetched (a sketch that lied is counted in
  ``stats["sketch_mismatch"]``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import trio

from ioa_p2p.card import SignedCard
from ioa_p2p.card.sketch import (
    MAX_SKETCH_DIM,
    CardSketchV3,
    SignedSketch,
    issue_sketch,
    matches_card,
    sketch_stamp_bits,
)
from ioa_p2p.card.stamp import yield_gil
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.fetchchoice import POOL, choose_fetch, evidence_units
from ioa_p2p.dht.forest import Forest, forest_for
from ioa_p2p.dht.lsh import CardBuckets, card_buckets
from ioa_p2p.dht.pacing import PublishPolicy
from ioa_p2p.dht.pages import encode_page, page_key, read_copies
from ioa_p2p.dht.probing import kept_levels
from ioa_p2p.dht.sketchscore import SketchScorer, card_terms, fetch_count, query_terms, settle_count
from ioa_p2p.dht.timing import collect as collect_timings
from ioa_p2p.dht.timing import summarize as summarize_timings
from ioa_p2p.errors import InvalidCard, InvalidMessage, InvalidPeerId, UsageError
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery.fetching import fetch_ranked
from ioa_p2p.node.discovery.prefetch import Prefetch
from ioa_p2p.node.discovery.search import CardSearch

log = logging.getLogger("ioa_p2p.discovery")

#: Share of ``find_timeout`` the page rounds may use; the rest is left for the card fetches.
ROUNDS_SHARE = 0.6
#: Once every page of a round has a copy, the round waits this share of its time so far for more copies
#: (:func:`~ioa_p2p.dht.lookup.grace_after_covered`), not for the slowest storing peer it asked: every
#: copy of a page merges the same puts, and a find's listing waited for the slowest of ~30 busy peers.
LISTING_GRACE = 0.25
#: Owner fetches of the best candidates start while the seed round's pages arrive
#: (:mod:`~ioa_p2p.node.discovery.prefetch`). Off: measured at N = 50 processes on the 2-core box
#: (``bench_find.py --ab all``, load 32), the ~40 early owner requests competed with the page answers
#: for the same CPUs and a find took longer (p50 2.1 s against 1.2 s): it pays only where answers wait
#: on the network, not on busy CPUs.
PREFETCH = False


class PagePublisher:
    """Our sketch and its pages (see the module docstring)."""

    def __init__(self) -> None:
        self.policy = PublishPolicy()
        self._sketch: SignedSketch | None = None
        #: the last page and keys :meth:`record` made, with the sketch, forest and levels they came from
        #: (the publishing loop asks every second: the cells and the page are worth making once each)
        self._made: tuple[SignedSketch, Forest, tuple[int, ...], tuple[tuple[str, ...], bytes]] | None = None

    def stale(self, card: SignedCard) -> bool:
        """Whether :meth:`record` must issue a new sketch for ``card`` (it may mint a stamp: blocking)."""
        sketch = self._sketch
        return sketch is None or sketch.version != card.version or sketch.peer_id != card.peer_id

    def record(
        self,
        identity: Identity,
        card: SignedCard,
        vector: Any,
        lsh: CardBuckets,
        now_ms: int,
        network_size: float,
        stamp_bits: int = 0,
    ) -> tuple[tuple[str, ...], bytes] | None:
        """The page keys of our current ``card`` (its ``vector``, our scheme's family ``lsh``) and the page
        to put under them (None: a family too large to sketch, or a card expired at ``now_ms``: a node
        starved for longer than its card's TTL publishes its republished card's page, not a dead one's).
        Blocking when a new sketch content is stamped (``stamp_bits``): call it through
        ``NodePort.run_sync``."""
        if lsh.planes.dim > MAX_SKETCH_DIM or card.is_expired(now_ms):
            return None
        sketch = self._sketch
        if sketch is None or self.stale(card):
            held = sketch.body if sketch is not None and sketch.peer_id == card.peer_id else None
            sketch = self._sketch = issue_sketch(
                identity,
                version=card.version,
                model=lsh.planes.model_id,
                vector=lsh.view(vector),
                now_ms=now_ms,
                expires_at=card.card.expires_at,
                scheme=card.model,
                rest=rest_of(lsh, vector),
                terms=card_terms(card.card),
                stamp_bits=stamp_bits,
                stamp=held.stamp if isinstance(held, CardSketchV3) else b"",
                pause=yield_gil,  # run in a worker thread: the event loop keeps its wake-ups
            )
        forest = forest_for(lsh.planes.model_id, lsh.planes.dim)
        made = self._made
        levels = kept_levels(None if made is None else made[2], network_size)
        if made is not None and made[0] is sketch and made[1] is forest and made[2] == levels:
            return made[3]
        keys = tuple(page_key(c, forest.model_id, forest.dim) for c in forest.cells(sketch.vector(), levels))
        result = keys, encode_page([sketch.encoded])
        self._made = (sketch, forest, levels, result)
        return result


def rest_of(lsh: CardBuckets, vector: Any) -> Any:
    """The values of a card (or query) vector after its family's view (None: the view is all of it)."""
    if lsh.part is None:
        return None
    return np.asarray(vector, dtype=np.float64).reshape(-1)[lsh.part :]


async def search_pages(search: CardSearch, vector: Any, text: str = "", k: int = 5) -> dict[str, Any]:
    """A DHT find over bucket pages for the query ``text`` (embedded: ``vector``; see the module
    docstring) whose best ``k`` the node will return; returns what it did, for ``last_find``."""
    settings, net = search.settings, search.net
    started = trio.current_time()
    size = net.network_size()
    family = search.lsh
    scorer = SketchScorer(
        family.view(vector), scheme=search.model_id, rest=rest_of(family, vector), terms=query_terms(text)
    )
    pages = PageSearch(
        search.forest,
        family.view(vector),
        size,
        probes=settings.probes,
        enumerate_up_to=settings.enumerate,
        width=settings.page_width,
        max_pages=settings.max_pages,
        budget=settings.page_budget,
        scorer=scorer,
    )
    listing = pages.listing
    rounds = 0
    cpu_started = time.process_time()
    prefetch: Prefetch | None = None
    async with trio.open_nursery() as prefetching:  # the prefetch's owner requests: ended with the find
        with collect_timings() as listed, trio.move_on_after(ROUNDS_SHARE * settings.find_timeout):
            cells = pages.start()
            while cells:
                keys = {page_key(c, search.forest.model_id, search.forest.dim): c for c in cells}
                if PREFETCH and rounds == 0:  # the seed round: the fetch overlaps the listing
                    prefetch = Prefetch(
                        search, prefetching, scorer, limit=settings.page_fetch, keys=len(keys)
                    )
                on_value = prefetch.on_value if prefetch is not None and rounds == 0 else None
                found = await net.get_values(
                    list(keys), ask=settings.ask, grace=LISTING_GRACE, on_value=on_value
                )
                now = search.now_ms()
                for key, cell in keys.items():
                    pages.offer(cell.key, read_copies(found.get(key, []), now))
                rounds += 1
                cells = pages.next_cells()
        listed_at, cpu_listed = trio.current_time(), time.process_time()
        count = fetch_count(
            scorer, pages.best(settings.page_fetch, exclude=[search.me]), settings.page_fetch, k
        )
        chosen = _verified_best(pages, count, search, _priors(search))
        wanted = [s.peer_id for s in chosen if search.needs_fetch(s.peer_id, s.version)]
        chosen_at, cpu_chosen = trio.current_time(), time.process_time()
        with collect_timings() as fetched:
            fetch = await fetch_ranked(search, wanted, settle=settle_count(len(wanted), k), prefetch=prefetch)
        prefetching.cancel_scope.cancel()
    fetched_at = trio.current_time()
    _check_sketches(search, chosen)
    return {
        "size": round(size),
        "pages": len(pages.asked),
        "passes": rounds,
        "listing": listing,
        "providers": len(pages.candidates),
        "page_bytes": pages.bytes,
        "sample_bytes": pages.sample_bytes,  # the breadth centre's pages (dht/expand.py), outside the budget
        "fetched": len(wanted),
        "providers_s": listed_at - started,
        "fetch_s": fetched_at - listed_at,
        # where each step's time went (dht/timing.py): our backlog, the remotes' answers, the slowest
        "listing_t": summarize_timings(listed, started, listed_at, cpu_listed - cpu_started),
        "choose_s": chosen_at - listed_at,
        "fetch_t": summarize_timings(fetched, chosen_at, fetched_at, time.process_time() - cpu_chosen),
        **({} if prefetch is None else prefetch.status(chosen_at)),
        **fetch,
    }


def _priors(search: CardSearch) -> dict[PeerId, float]:
    """This node's standing of each peer (:meth:`~ioa_p2p.dht.ranking.CardRanker.priors`: what the peer's
    card it fetched before says, its breadth and whether it copies another, plus its reputation from
    this node's signed histories; none without a ranker)."""
    ranker = search.directory.ranker
    if ranker is None:
        return {}
    out = {}
    for key, prior in ranker.priors().items():
        try:
            out[PeerId.from_string(key)] = prior
        except InvalidPeerId:
            continue
    return out


def _young_priors(
    search: CardSearch, pool: list[SignedSketch], priors: dict[PeerId, float] | None
) -> dict[PeerId, float] | None:
    """``priors`` plus ``-young_penalty`` for each listed peer that is young and whose card this node never
    held (a peer never held was first seen now: :mod:`ioa_p2p.teaming.trust`)."""
    settled, penalty = search.settled, search.young_penalty
    if settled is None or not penalty:
        return priors
    out = dict(priors or {})
    for sketch in pool:
        peer = sketch.peer_id
        if str(peer) not in settled and peer not in search.directory:
            out[peer] = out.get(peer, 0.0) - penalty
    return out


def _proven(search: CardSearch, pool: list[SignedSketch]) -> set[PeerId]:
    """The listed peers with a signed task done for this node, or trusted (``CardSearch.proven``)."""
    proven = search.proven
    return {s.peer_id for s in pool if str(s.peer_id) in proven} if proven else set()


def _verified_best(
    pages: PageSearch, count: int, search: CardSearch, priors: dict[PeerId, float] | None = None
) -> list[SignedSketch]:
    """The candidates (not us) to fetch: ``count`` distinct contents and the copies
    :func:`~ioa_p2p.dht.fetchchoice.choose_fetch` adds, chosen among the :data:`POOL` times ``count`` best
    by sketch score after the evidence about each peer (its negative reputation and flood penalty:
    :func:`~ioa_p2p.dht.fetchchoice.pool_of`; a crowd that outscores an honest candidate cannot push it out
    of the pool where no evidence lifts it) with the sketch-level spam defences (reputation, copies,
    supersets, breadth, slots for proven peers, floods of new identities), among
    those whose sketch signature verifies and whose stamp has ``[discovery] min_stamp_bits`` (a page
    holder that stored under-stamped entries gains their makers nothing); the others are dropped and the
    choice is made again."""
    verified: set[bytes] = set()  # sketch encodings whose signature verified
    for _ in range(POOL):  # each pass drops at least one candidate whose signature failed
        listed = [sketch for _, sketch in pages.candidates.values()]
        # the evidence about each listed peer acts before the pool is cut (fetchchoice.pool_of)
        every = _young_priors(search, listed, priors)
        flood = search.fetch_flood(s.peer_id for s in listed)
        evidence = {s.peer_id: evidence_units(s.peer_id, every, flood) for s in listed}
        pool = pages.best(POOL * count, exclude=[search.me], evidence=evidence)
        if not pool:
            return []
        known = {s.peer_id for s in pool if not search.needs_fetch(s.peer_id)}
        proven = _proven(search, pool)
        picked = choose_fetch(
            pages.scored(pool),
            count,
            priors=every,
            known=known,
            centre=pages.centre(),
            query=pages.query,
            proven=proven,
            flood=flood,
        )
        failed = []
        for sketch in picked:
            if sketch.encoded in verified:
                continue
            try:
                sketch.envelope.verify()
                if sketch_stamp_bits(sketch) < search.settings.min_stamp_bits:
                    raise InvalidCard(f"the sketch of {sketch.peer_id} is under-stamped")
                verified.add(sketch.encoded)
            except InvalidMessage:
                failed.append(sketch)
        if not failed:
            return picked
        for sketch in failed:
            pages.drop(sketch.peer_id)
    return [s for s in picked if s not in failed]


def _check_sketches(search: CardSearch, chosen: list[SignedSketch]) -> None:
    """A fetched card of the version a sketch summarised must be that sketch's vector (its scheme's family
    view: a 640-d card is sketched by its first 256 values)."""
    now = search.now_ms()
    for sketch in chosen:
        entry = search.directory.entry(sketch.peer_id, now)
        if entry is None or entry.card.version != sketch.version:
            continue
        card = entry.card
        try:
            lsh = card_buckets(card.model, card.card.dim)
            view, rest = lsh.view(card.embedding()), rest_of(lsh, card.embedding())
        except UsageError:
            continue
        if not matches_card(sketch, sketch.version, view, rest):
            search.stats["sketch_mismatch"] = search.stats.get("sketch_mismatch", 0) + 1
            log.info("the sketch of %s does not match its card (version %d)", sketch.peer_id, sketch.version)


__all__ = ["LISTING_GRACE", "PREFETCH", "ROUNDS_SHARE", "PagePublisher", "rest_of", "search_pages"]
