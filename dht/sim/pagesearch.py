"""A capability search over bucket pages in the simulator, as the node runs it
(``ioa_p2p.node.discovery.pages.search_pages``, ``[discovery] pages = true``, a cold directory).

1. The network's size is estimated from the routing table, as for :class:`~ioa_p2p.dht.sim.search.SearchRun`.
2. :class:`~ioa_p2p.dht.expand.PageSearch` picks the seed pages; each round is one batched ``GET_VALUE``
   lookup of its page keys (``kad.get_values_many``); once it is done every page value read is offered to
   the search, which names the next round (the buckets of the best candidates not expanded yet), until it
   has nothing more to ask, ``max_pages`` were asked, or :data:`ROUNDS_SHARE` of ``find_timeout`` has
   passed (the node's ``move_on_after``: a round still running then is lost, what earlier rounds read is
   kept). One round at a time, as the node does.
3. The candidates to fetch are chosen as the node chooses them
   (:func:`~ioa_p2p.dht.sketchscore.fetch_count` of the ``page_fetch`` best, then
   :func:`~ioa_p2p.dht.fetchchoice.choose_fetch` among :data:`~ioa_p2p.dht.fetchchoice.POOL` times as
   many best by sketch, with the sketch-level spam defences; no reputation priors and no card held: a
   cold node), their sketches verified (signature, and a stamp of ``min_stamp_bits``), and their cards
   fetched (:class:`~ioa_p2p.dht.sim.search.FetchRun`: owners first, then the DHT); a card of the
   version a sketch summarised must be that sketch's vector; the cards are ranked by cosine with the
   query (the node ranks them with its matcher; here the ranking is the same for the truth, as in
   ``SearchRun``).

The whole search is bounded by ``find_timeout`` (what was fetched by then is ranked).
"""

from __future__ import annotations

from ioa_p2p.card import SignedCard
from ioa_p2p.card.sketch import SignedSketch, matches_card, sketch_stamp_bits
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.fetchchoice import POOL, choose_fetch
from ioa_p2p.dht.forest import Cell
from ioa_p2p.dht.pages import page_key, read_copies
from ioa_p2p.dht.sim.kad import VALUE, LookupRun, start_lookup
from ioa_p2p.dht.sim.search import FetchRun, SearchBase
from ioa_p2p.dht.sketchscore import fetch_count
from ioa_p2p.errors import InvalidCard, InvalidMessage
from ioa_p2p.identity import PeerId

#: Share of ``find_timeout`` the page rounds may use; the rest is left for the card fetches (the node's
#: ``ioa_p2p.node.discovery.pages.ROUNDS_SHARE``, pinned by ``tests/test_sim.py``).
ROUNDS_SHARE = 0.6


class PageSearchRun(SearchBase):
    """One DHT-only page search from ``node`` for ``vector`` (see the module docstring)."""

    fetching = False
    #: the round running (its lookup), ``None`` between rounds
    running: LookupRun | None = None

    def start(self) -> PageSearchRun:
        s = self.settings
        self.search = PageSearch(
            self.forest,
            self.vector,
            self.network_size(),
            probes=s.probes,
            enumerate_up_to=s.enumerate,
            width=s.page_width,
            max_pages=s.max_pages,
            budget=s.page_budget,
        )
        self.result.listing = self.search.listing
        self.result.passes = 0
        self.world.loop.after(s.find_timeout, self._timeout)
        self.world.loop.after(ROUNDS_SHARE * s.find_timeout, self._rounds_over)
        self._round(self.search.start())
        return self

    def _rounds_over(self) -> None:
        if not self.done and not self.fetching:
            self._fetch()

    def _round(self, cells: list[Cell]) -> None:
        """One batched ``GET_VALUE`` lookup of ``cells``' pages, read once it is done; then the next."""
        if not cells:
            self._fetch()
            return
        keys = {page_key(c, self.forest.model_id, self.forest.dim).encode("utf-8"): c for c in cells}
        self.result.passes += 1

        def finished(run: LookupRun) -> None:
            if self.done or self.fetching:
                return  # the rounds' time was over: this round's answers are lost, as the node's
            self._read(run, keys)
            self._round(self.search.next_cells())

        start_lookup(self.world, self.node, list(keys), VALUE, ask=self.settings.ask, on_done=finished)

    def _read(self, run: LookupRun, keys: dict[bytes, Cell]) -> None:
        """Offer every page value the round read, and our own copy (``get_values_many``)."""
        now = self.world.now_ms()
        decode = self.world.records.decode_sketch
        for key, cell in keys.items():
            values = run.lookup.values(key)
            own = self.node.values.get(key)
            if own is not None:
                values = [*values, own]
            self.search.offer(cell.key, read_copies(values, now, decode=decode))

    def _fetch(self) -> None:
        world, s = self.world, self.settings
        self.fetching = True
        self.result.lookup_s = world.loop.now - self.started_at
        self.result.providers = len(self.search.candidates)
        chosen = self._verified_best()
        self.sketches = {sk.peer_id.raw: sk for sk in chosen}
        self.result.fetched = len(chosen)
        self.fetch_started = world.loop.now
        FetchRun(world, self.node, list(self.sketches), s, self._fetched).start()

    def _verified_best(self) -> list[SignedSketch]:
        """The node's choice (``pages._verified_best`` of a cold node): ``fetch_count`` of the best, chosen
        with ``choose_fetch`` among ``POOL`` times as many; sketches that fail to verify are dropped and
        the choice made again."""
        pages, me = self.search, [PeerId(self.node.peer)]
        page_fetch = self.settings.page_fetch
        count = fetch_count(pages.scorer, pages.best(page_fetch, exclude=me), page_fetch, self.k)
        picked: list[SignedSketch] = []
        for _ in range(POOL):
            pool = pages.best(POOL * count, exclude=me)
            if not pool:
                return []
            picked = choose_fetch(pages.scored(pool), count, centre=pages.centre(), query=pages.query)
            failed = []
            for sketch in picked:
                try:
                    self.world.records.verify_sketch(sketch)
                    if sketch_stamp_bits(sketch) < self.settings.min_stamp_bits:
                        raise InvalidCard(f"the sketch of {sketch.peer_id} is under-stamped")
                except InvalidMessage:
                    failed.append(sketch)
            if not failed:
                return picked
            for sketch in failed:
                pages.drop(sketch.peer_id)
        return [s for s in picked if s.peer_id in pages.candidates]

    def _fetched(self, records: dict[bytes, SignedCard]) -> None:
        if self.done:
            return
        for peer, card in records.items():
            node = self.world.node_of(peer)
            sketch = self.sketches.get(peer)
            if node is None or sketch is None:
                continue
            if sketch.version == card.version and not matches_card(sketch, card.version, card.embedding()):
                self.world.counters["sketch lied"] += 1
                continue
            self.cards[node.index] = card
        self.result.fetch_s = self.world.loop.now - self.fetch_started
        self._finish()


__all__ = ["ROUNDS_SHARE", "PageSearchRun"]
