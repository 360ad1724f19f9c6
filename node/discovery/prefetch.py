"""Card fetches of a page search started while its pages still arrive (network I/O; issue 25).

A find's two network steps (list the bucket pages, then fetch the best cards) each wait for answers from
busy peers; run one after the other, a find costs two of those waits. :class:`Prefetch` overlaps them:
as page copies arrive (``CardNetPort.get_values(on_value=...)``) it scores their sketches
(:meth:`~ioa_p2p.dht.sketchscore.SketchScorer.dense`) and, once :data:`PREFETCH_SHARE` of the round's pages
have a copy, asks the owners of the ``limit`` best candidates seen so far for their cards (and of later
entrants into that best set), at most :data:`PREFETCH_FACTOR` times ``limit`` owners in all.

What the owners answer is **held here, unverified and unapplied**: the find's own choice
(:func:`~ioa_p2p.node.discovery.pages.search_pages`: signatures, stamps, the sketch-level spam defences)
is made on the whole listing as before, and :func:`~ioa_p2p.node.discovery.fetching.fetch_ranked` then
uses a held answer (or waits for one in flight) for each chosen candidate instead of asking again. An
answer for a candidate that was not chosen is dropped with the find, so a prefetch never puts a card
into the directory (or the ranking) that the choice left out. The cost: the owner requests of the
candidates that looked best early and were not chosen (one small request each).
"""

from __future__ import annotations

from typing import Any

import trio

from ioa_p2p.card.sketch import SignedSketch
from ioa_p2p.dht.pages import read_page
from ioa_p2p.dht.sketchscore import SketchScorer
from ioa_p2p.dht.timing import RequestTiming
from ioa_p2p.dht.timing import collect as collect_timings
from ioa_p2p.dht.validators import card_key
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery.search import DIRECT_TIMEOUT, CardSearch

#: Share of a listing round's pages that must have a copy before the first prefetch (the best of fewer
#: pages is mostly whatever came first).
PREFETCH_SHARE = 0.5
#: Owners asked at most, as a multiple of the fetch's ``limit``.
PREFETCH_FACTOR = 2
#: An owner's answer is awaited this long at most (as :data:`~ioa_p2p.node.discovery.fetching.OWNER_LIMIT`).
PREFETCH_LIMIT = 2 * DIRECT_TIMEOUT


class Prefetch:
    """Owner fetches started during one listing round (see the module docstring)."""

    def __init__(
        self,
        search: CardSearch,
        nursery: trio.Nursery,
        scorer: SketchScorer,
        *,
        limit: int,
        keys: int,
    ) -> None:
        self.search, self.nursery, self.scorer = search, nursery, scorer
        self.limit, self.keys = limit, keys
        self.pages: set[str] = set()  # page keys with a copy so far
        self.seen: dict[PeerId, tuple[float, SignedSketch]] = {}
        self.asked: dict[PeerId, trio.Event] = {}
        self.answers: dict[PeerId, tuple[dict[str, list[bytes]], float]] = {}  # found, round trip
        self.timings: list[RequestTiming] = []  # its owner requests (dht/timing.py)

    def on_value(self, key: str, value: bytes) -> None:
        """A copy of the page under ``key`` arrived: score its sketches, start the fetches now due."""
        self.pages.add(key)
        try:
            sketches = read_page(value, self.search.now_ms())
        except InvalidMessage:
            return
        for sketch in sketches:
            held = self.seen.get(sketch.peer_id)
            if held is None or held[1].version < sketch.version:
                self.seen[sketch.peer_id] = (self.scorer.dense(sketch), sketch)
        if len(self.pages) >= PREFETCH_SHARE * self.keys:
            self._start_best()

    def _start_best(self) -> None:
        me, search = self.search.me, self.search
        ranked = sorted(self.seen.values(), key=lambda item: (-item[0], item[1].peer_id.raw))
        for _, sketch in ranked[: self.limit]:
            peer = sketch.peer_id
            if len(self.asked) >= PREFETCH_FACTOR * self.limit:
                return
            if peer == me or peer in self.asked or not search.needs_fetch(peer, sketch.version):
                continue
            self.asked[peer] = trio.Event()
            self.nursery.start_soon(self._fetch, peer)

    async def _fetch(self, peer: PeerId) -> None:
        started = trio.current_time()
        try:
            with collect_timings(self.timings):  # not the listing's requests: this prefetch's own
                found = await self.search.net.ask_values({peer: [card_key(peer)]}, per_peer=PREFETCH_LIMIT)
            self.answers[peer] = (found, trio.current_time() - started)
        finally:
            self.asked[peer].set()

    def has(self, peer: PeerId) -> bool:
        """Whether the owner of ``peer``'s card was asked by this prefetch."""
        return peer in self.asked

    async def wait_answer(self, peer: PeerId) -> tuple[dict[str, list[bytes]], float] | None:
        """The owner's answer (what it returned, and its round trip) once it is in; None when it failed."""
        await self.asked[peer].wait()
        return self.answers.get(peer)

    def status(self, chosen_at: float) -> dict[str, Any]:
        """What it did, for ``last_find``: owners asked, answers in, and those in when the choice was made."""
        early = sum(t.answered is not None and t.answered <= chosen_at for t in self.timings)
        return {"prefetched": len(self.asked), "prefetch_answers": len(self.answers), "prefetch_early": early}


__all__ = ["PREFETCH_FACTOR", "PREFETCH_LIMIT", "PREFETCH_SHARE", "Prefetch"]
