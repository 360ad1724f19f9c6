"""Card fetches started while a find's pages arrive (node/discovery/prefetch.py, issue 25): the owners of the
best candidates seen are asked early, their answers are held unapplied, and the fetch of the candidates
the find then chooses uses them; a prefetched card that was not chosen never reaches the directory."""

from __future__ import annotations

import numpy as np
import trio
from trio.testing import MockClock

from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.dht.pages import encode_page
from ioa_p2p.dht.sketchscore import SketchScorer
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery.fetching import fetch_ranked
from ioa_p2p.node.discovery.prefetch import PREFETCH_FACTOR, Prefetch
from tests.test_card_fetch import DIM, MODEL, NOW_MS, make


def _page(indexes: list[int]) -> bytes:
    """A page holding the sketches of agents ``indexes`` (``make``'s identities; vector ``e_i + 0.1``)."""
    sketches = [
        issue_sketch(
            Identity(bytes([i + 1]) * 32),
            version=NOW_MS,
            model=MODEL,
            vector=np.eye(DIM)[i % DIM] + 0.1,
            now_ms=NOW_MS,
            expires_at=NOW_MS + 3_600_000,
        ).encoded
        for i in indexes
    ]
    return encode_page(sketches)


async def test_the_best_seen_are_asked_early_and_only_the_chosen_are_applied(
    autojump_clock: MockClock,
) -> None:
    search, net, peers = make(4, [0.05] * 4)
    asked: list[object] = []
    ask = net.ask_values

    async def counted(requests: dict, *, per_peer: float) -> dict:  # type: ignore[type-arg]
        asked.extend(requests)
        return await ask(requests, per_peer=per_peer)

    net.ask_values = counted  # type: ignore[method-assign]
    scorer = SketchScorer(np.eye(DIM)[1] * 2 + np.eye(DIM)[2])  # agent 1 best, then agent 2
    async with trio.open_nursery() as nursery:
        prefetch = Prefetch(search, nursery, scorer, limit=2, keys=4)
        prefetch.on_value("page-a", _page([0, 1]))
        assert asked == [] and not prefetch.has(peers[1])  # 1 page of 4: too early to tell the best
        prefetch.on_value("page-b", _page([2, 3]))
        await trio.sleep(0.1)
        assert set(asked) == {peers[1], peers[2]}  # the two best by sketch
        assert len(search.directory) == 0  # held, not applied
        started = trio.current_time()
        done = await fetch_ranked(search, [peers[1]], settle=1, prefetch=prefetch)
        assert trio.current_time() == started  # the answer was in: no wait, no new request
        assert done["owners"] == 1 and asked.count(peers[1]) == 1
        assert peers[1] in search.directory and peers[2] not in search.directory  # not chosen: dropped
        nursery.cancel_scope.cancel()


async def test_a_prefetch_asks_a_bounded_number_of_owners(autojump_clock: MockClock) -> None:
    search, _, peers = make(8, [0.05] * 8)
    async with trio.open_nursery() as nursery:
        prefetch = Prefetch(search, nursery, SketchScorer(np.ones(DIM)), limit=1, keys=2)
        for i in range(8):  # each page makes a new best: the owners asked stay within the factor
            prefetch.on_value(f"page-{i}", _page([i]))
        assert sum(prefetch.has(p) for p in peers) == PREFETCH_FACTOR * 1
        nursery.cancel_scope.cancel()
