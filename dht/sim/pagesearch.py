"""A capability search over bucket pages in the simulator, as ``ioa_p2p.node.discovery.search.CardSearch``
does it with ``[discovery] pages = true`` and a cold directory.

1. The network's size is estimated from the routing table, as for :class:`~ioa_p2p.dht.sim.search.SearchRun`.
2. :class:`~ioa_p2p.dht.expand.PageSearch` picks the seed pages; each round is one batched ``GET_VALUE``
   lookup of its page keys; every page value is offered to it as soon as an answer carries it, and the
   next round (the buckets of the best candidates not expanded yet) starts at once while fewer than
   :data:`IN_FLIGHT` rounds run, until it has nothing more to ask, ``max_pages`` were asked, or
   :data:`ROUNDS_SHARE` of ``find_timeout`` has passed.
3. The ``page_fetch`` best candidates by sketch are fetched (:class:`~ioa_p2p.dht.sim.search.FetchRun`:
   owners first, then the DHT), their sketches verified (signature, and that the card fetched is the one
   the sketch summarises), and the cards ranked by cosine with the query (the node ranks them with its
   matcher; here the ranking is the same for the truth, as in ``SearchRun``).

The whole search is bounded by ``find_timeout`` (what was fetched by then is ranked).
"""

from __future__ import annotations

from ioa_p2p.card import SignedCard
from ioa_p2p.card.sketch import matches_card
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.forest import Cell
from ioa_p2p.dht.pages import page_key, read_page
from ioa_p2p.dht.sim.kad import VALUE, LookupRun, start_lookup
from ioa_p2p.dht.sim.search import FetchRun, SearchBase
from ioa_p2p.errors import InvalidMessage

#: Share of ``find_timeout`` the page rounds may use; the rest is left for the card fetches.
ROUNDS_SHARE = 0.6
#: Page lookups running at once: the next round starts as soon as an answer changes the best candidates.
IN_FLIGHT = 3


class PageSearchRun(SearchBase):
    """One DHT-only page search from ``node`` for ``vector`` (see the module docstring)."""

    in_flight = 0
    fetching = False

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
        self.world.loop.after(s.find_timeout, self._timeout)
        self.world.loop.after(ROUNDS_SHARE * s.find_timeout, self._rounds_over)
        self._round(self.search.start())
        return self

    def _rounds_over(self) -> None:
        if not self.done and not self.fetching:
            self._fetch()

    def _round(self, cells: list[Cell]) -> None:
        """One batched ``GET_VALUE`` lookup of ``cells``' pages; pages are offered as answers carry them,
        and new rounds start while this one runs (:meth:`_more`)."""
        keys = {page_key(c, self.forest.model_id, self.forest.dim).encode("utf-8"): c for c in cells}
        seen: dict[bytes, int] = {}
        holder: list[LookupRun] = []
        self.in_flight += 1
        self.result.passes += 1

        def answered(key: bytes) -> None:
            if not self.done and holder and self._read(holder[0], keys, key, seen):
                self._more()

        def finished(run: LookupRun) -> None:
            self.in_flight -= 1
            if self.done:
                return
            for key in keys:
                self._read(run, keys, key, seen, final=True)
            self._more()

        holder.append(
            start_lookup(
                self.world,
                self.node,
                list(keys),
                VALUE,
                ask=self.settings.ask,
                on_answer=answered,
                on_done=finished,
            )
        )

    def _read(
        self,
        run: LookupRun,
        keys: dict[bytes, Cell],
        key: bytes,
        seen: dict[bytes, int],
        *,
        final: bool = False,
    ) -> bool:
        """Offer the page values of ``key`` read so far (if any are new); True when some were."""
        if key not in keys:
            return False
        values = run.lookup.values(key)
        own = self.node.values.get(key)
        if own is not None:
            values = [*values, own]
        if len(values) == seen.get(key, -1) and not final:
            return False
        seen[key] = len(values)
        now = self.world.now_ms()
        decode = self.world.records.decode_sketch
        entries = [e for v in values for e in read_page(v, now, decode=decode)]
        self.search.offer(keys[key].key, entries)
        return bool(entries)

    def _more(self) -> None:
        """Start the next round while fewer than :data:`IN_FLIGHT` run; fetch once none runs and none is
        left (or the rounds' share of ``find_timeout`` has passed)."""
        over = self.world.loop.now - self.started_at >= ROUNDS_SHARE * self.settings.find_timeout
        if not over and self.in_flight < IN_FLIGHT:
            cells = self.search.next_cells()
            if cells:
                self._round(cells)
                return
        if self.in_flight == 0 and not self.fetching:
            self._fetch()

    def _fetch(self) -> None:
        world, s = self.world, self.settings
        self.fetching = True
        self.result.passes -= 1  # SearchResult starts at 1
        self.result.lookup_s = world.loop.now - self.started_at
        self.result.providers = len(self.search.candidates)
        chosen = []
        for sketch in self.search.best(s.page_fetch + 8):
            try:
                world.records.verify_sketch(sketch)
            except InvalidMessage:
                self.search.drop(sketch.peer_id)
                continue
            if sketch.peer_id.raw != self.node.peer:
                chosen.append(sketch)
            if len(chosen) >= s.page_fetch:
                break
        self.sketches = {sk.peer_id.raw: sk for sk in chosen}
        self.result.fetched = len(chosen)
        self.fetch_started = world.loop.now
        FetchRun(world, self.node, list(self.sketches), s, self._fetched).start()

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


__all__ = ["IN_FLIGHT", "ROUNDS_SHARE", "PageSearchRun"]
