"""The simulator's capability search and peer discovery follow the node's own loops (ioa_p2p.dht.sim).

CI-sized (a few hundred simulated nodes, virtual clock, fixed seeds); bench/bench_sim.py measures the same
at 1,000 to 10,000 nodes (docs/performance.md).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import page_key, read_page
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim import pagesearch
from ioa_p2p.dht.sim.cardflow import SearchSample, exact_ties, exact_top, run_searches
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import generated_agents, generated_queries
from ioa_p2p.dht.sim.preload import preload_cards
from ioa_p2p.dht.sim.search import SearchResult
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import HashingEmbedder, normalise
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery import pages as node_pages

SETTINGS = replace(DiscoverySettings(), min_stamp_bits=8)
EPOCH = 1_800_000_000_000


def test_the_page_search_timing_is_the_nodes() -> None:
    assert pagesearch.ROUNDS_SHARE == node_pages.ROUNDS_SHARE


def test_a_node_short_of_connections_looks_for_peers_again_within_short_max() -> None:
    """``RefreshPolicy.next_delay`` is given the connections held, as the node's loop gives it: in a
    network of 3 a node never holds ``low_peers`` connections, so its pace stays at ``short_max``."""
    world = World(SimConfig(nodes=3, seed=2))
    world.join_all()
    world.loop.run(until=400)
    policy = world.config.policy
    assert all(len(n.conns) < policy.low_peers for n in world.nodes)
    assert all(n.refresh_delay <= policy.short_max for n in world.nodes)
    assert policy.next_delay(policy.short_max, grew=False) > policy.short_max  # not said: the slow pace


@pytest.fixture(scope="module")
def card_set() -> CardSet:
    return CardSet.build(generated_agents(200), HashingEmbedder(), seed=3, stamp_bits=8)


def _preloaded(card_set: CardSet, nodes: int, seed: int) -> World:
    world = World(SimConfig(nodes=nodes, seed=seed), card_set)
    world.warm_start(connected_tables=True)
    world.loop.run(until=10)
    preload_cards(world, forest_for(card_set.model_id, card_set.dim), world.nodes, random.Random(seed))
    return world


def test_the_simulated_page_search_reads_what_the_nodes_loop_reads(
    card_set: CardSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds one at a time, each read in full before the next is named (``search_pages``): the simulated
    search asks the very pages, and ranks the very candidates, that the node's loop over the same pages
    does. The network is estimated at 3,000 peers so the search probes and expands (level 8) instead of
    listing every card."""
    world = _preloaded(card_set, 200, 7)
    forest = forest_for(card_set.model_id, card_set.dim)
    monkeypatch.setattr(pagesearch.PageSearchRun, "network_size", lambda self: 3000.0)
    runs: list[pagesearch.PageSearchRun] = []
    rounds_at_once: list[int] = []
    running = 0
    real_start = pagesearch.start_lookup

    def counted(*args: Any, on_done: Any, **kwargs: Any) -> Any:
        nonlocal running
        running += 1
        rounds_at_once.append(running)

        def done(run: Any) -> None:
            nonlocal running
            running -= 1
            on_done(run)

        return real_start(*args, on_done=done, **kwargs)

    monkeypatch.setattr(pagesearch, "start_lookup", counted)
    real_fetch = pagesearch.PageSearchRun._fetch

    def kept(self: pagesearch.PageSearchRun) -> None:
        runs.append(self)
        real_fetch(self)

    monkeypatch.setattr(pagesearch.PageSearchRun, "_fetch", kept)
    vectors = normalise(HashingEmbedder().embed(generated_queries(6)))
    samples = run_searches(world, forest, SETTINGS, [(v, []) for v in vectors], random.Random(8), spacing=30)
    assert len(samples) == len(runs) == 6 and not any(s.result.timed_out for s in samples)
    assert max(rounds_at_once) == 1  # one round at a time (the searches are 30 s apart)
    pages = _all_pages(world)
    for run in runs:
        loop = PageSearch(forest, run.vector, 3000.0, probes=SETTINGS.probes, width=SETTINGS.page_width)
        cells, rounds = loop.start(), 0
        while cells:
            for cell in cells:
                key = page_key(cell, forest.model_id, forest.dim).encode("utf-8")
                loop.offer(cell.key, read_page(pages.get(key), world.now_ms()))
            cells, rounds = loop.next_cells(), rounds + 1
        assert set(run.search.asked) == set(loop.asked)
        assert set(run.search.candidates) == set(loop.candidates)
        assert run.result.passes == rounds >= 2  # seeds, then at least one expansion
        me = [PeerId(run.node.peer)]
        assert set(run.search.best(5, exclude=me)) == set(loop.best(5, exclude=me))


def _all_pages(world: World) -> dict[bytes, bytes]:
    """Every page key's fullest copy held in the network (the preload leaves them complete at the
    closest nodes of each key)."""
    out: dict[bytes, bytes] = {}
    for node in world.nodes:
        for key, value in node.values.items():
            if key.startswith(b"/ioa/page/") and len(value) > len(out.get(key, b"")):
                out[key] = value
    return out


def test_recall_against_exact_counts_a_card_that_ties_the_fifth_as_exact() -> None:
    """Cards of equal score are interchangeable to an exact search: returning either is exact."""
    result = SearchResult([4, 1, 2, 3, 9])
    sample = SearchSample(result, (1, 2, 3, 4, 5), (), ties=frozenset({9}))
    assert sample.recall_exact == 1.0
    assert SearchSample(result, (1, 2, 3, 4, 5), ()).recall_exact == 0.8


def test_exact_ties_are_the_cards_that_score_as_high_as_the_exact_last() -> None:
    agents = generated_agents(12)
    agents[9] = agents[3]  # the same card text: the same vector
    card_set = CardSet.build(agents, HashingEmbedder(), seed=1, stamp_bits=0)
    world = World(SimConfig(nodes=12, seed=1), card_set)
    for node in world.nodes:
        node.card = card_set.issue(node.index, world.now_ms())
    vector = np.asarray(card_set.vectors[3], dtype=np.float32)
    top = exact_top(world, vector, 1)
    assert top[0] in (3, 9)
    assert exact_ties(world, vector, top) == {12 - top[0]}  # the other of 3 and 9
    assert exact_ties(world, vector, top, exclude=12 - top[0]) == frozenset()


def test_a_simulated_page_holder_refuses_sketches_stamped_below_min_stamp_bits(card_set: CardSet) -> None:
    """As the node's ``PageValidator`` (``min_sketch_bits`` = ``[discovery] min_stamp_bits``)."""
    from ioa_p2p.card.sketch import issue_sketch, sketch_stamp_bits
    from ioa_p2p.dht.pages import encode_page
    from ioa_p2p.dht.sim.kad import serve_put_value

    world = World(SimConfig(nodes=4, seed=1, min_stamp_bits=8), card_set)
    owner, holder = world.nodes[1], world.nodes[2]
    card = card_set.issue(1, world.now_ms())
    forest = forest_for(card_set.model_id, card_set.dim)
    stamped = card_set.sketch(1, card, world.now_ms())
    bare = issue_sketch(
        card_set.identities[1],
        version=card.version,
        model=card_set.model_id,
        vector=card_set.vectors[1],
        now_ms=world.now_ms(),
        expires_at=card.card.expires_at,
    )
    assert sketch_stamp_bits(stamped) >= 8 > sketch_stamp_bits(bare)
    cell = next(iter(forest.cells(stamped.vector(), (4,))))
    key = page_key(cell, forest.model_id, forest.dim).encode("utf-8")
    assert not serve_put_value(world, holder, owner, key, encode_page([bare.encoded]))
    assert world.counters["page refused"] == 1 and key not in holder.values
    assert serve_put_value(world, holder, owner, key, encode_page([stamped.encoded]))
    assert read_page(holder.values[key], world.now_ms()) == [stamped]


def test_levels_keep_a_margin_for_an_overestimated_network_size() -> None:
    """The size estimate is often a third too high: a searcher keeps the level the network calls for."""
    from ioa_p2p.dht.expand import expand_level, page_level

    assert page_level(10_000) == page_level(15_000) == 8  # 10,000 peers estimated at 15,000
    assert page_level(16_500) == 12  # a level-8 page would hold more than its 64 entries
    assert expand_level(2_000, 8) == expand_level(2_500, 8) == 8  # 2,000 estimated at 2,500
    assert expand_level(3_000, 8) == expand_level(10_000, 8) == 12


def test_the_copies_of_a_page_are_read_once(card_set: CardSet) -> None:
    """Every storing peer that answers a lookup holds its own copy of a page: a search offers each
    peer's entry once (its highest version), so copies neither repeat candidates nor use up the budget."""
    from ioa_p2p.dht.pages import encode_page, read_copies

    now = EPOCH
    old = [card_set.sketch(i, card_set.issue(i, now), now) for i in range(3)]
    newer = card_set.sketch(1, card_set.issue(1, now + 1000), now + 1000)
    copies = [encode_page(s.encoded for s in old), encode_page(s.encoded for s in old), None]
    copies.append(encode_page([newer.encoded, old[2].encoded]))
    read = read_copies(copies, now + 2000)
    assert sorted(s.encoded for s in read) == sorted([old[0].encoded, newer.encoded, old[2].encoded])
    assert read_copies([], now) == []
