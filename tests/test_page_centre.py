"""The breadth centre of a page search (pure: dht/expand.py ``PageSearch.centre``; the fetch choice that
uses it: tests/test_fetch_choice.py)."""

from __future__ import annotations

import numpy as np

from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.dht.expand import SAMPLE_MIN, SAMPLE_TABLE, PageSearch
from ioa_p2p.dht.fetchchoice import CENTRAL_FREE, centrality, choose_fetch, unit
from ioa_p2p.dht.forest import LEVELS, Forest
from ioa_p2p.identity import Identity
from tests.test_page_budget import DIM, MODEL, NOW, TTL, run, world


def sample_keys(forest: Forest) -> set[bytes]:
    return {forest.cell(SAMPLE_TABLE, LEVELS[0], p).key for p in range(1 << LEVELS[0])}


def test_a_probing_search_reads_the_networks_level4_pages_for_its_centre_and_lists_none_of_them() -> None:
    n = 4000
    forest, _, queries, _, pages = world(n)
    search = PageSearch(forest, queries[0], n)
    assert search.level == 8  # a probing search: it lists the query's neighbourhood only
    seed = search.start()
    assert sample_keys(forest) <= {c.key for c in seed}  # read with the seed round
    for cell in seed:
        search.offer(cell.key, pages.get(cell.key, []))
    cells = search.next_cells()
    while cells:
        for cell in cells:
            search.offer(cell.key, pages.get(cell.key, []))
        cells = search.next_cells()
    sample = {s.peer_id: s for key in sample_keys(forest) for s in pages.get(key, [])}
    assert search.sampled == len(sample) >= SAMPLE_MIN
    centre = search.centre()
    assert centre is not None
    assert np.allclose(centre, sum(unit(s) for s in sample.values()))

    # the sample's pages are neither candidates nor counted against the byte budget
    without = PageSearch(forest, queries[0], n)
    cells = without.start()
    while cells:
        for cell in cells:
            without.offer(cell.key, [] if cell.key in sample_keys(forest) else pages.get(cell.key, []))
        cells = without.next_cells()
    assert set(without.candidates) == set(search.candidates)
    assert without.bytes == search.bytes and search.sample_bytes > 0 == without.sample_bytes
    # too small a sample (its pages not reached): the candidates' centre, as before
    assert without.sampled == 0
    listed = without.centre()
    assert listed is not None
    assert np.allclose(listed, sum(unit(s) for _, s in without.candidates.values()))


def test_a_listing_is_its_own_sample() -> None:
    n = 300
    forest, _, queries, sketches, pages = world(n)
    search = PageSearch(forest, queries[1], n)
    assert search.level is None  # the level-4 pages of table 0 are the listing
    run(search, pages)
    assert set(search.candidates) == {s.peer_id for s in sketches} and search.sample_bytes == 0
    assert search.sampled == n
    centre = search.centre()
    assert centre is not None
    assert np.allclose(centre, sum(unit(s) for s in sketches))


def test_against_the_whole_networks_centre_the_best_cards_of_a_neighbourhood_look_less_broad() -> None:
    """The cause of recall@5 0.907 at 10,000 simulated nodes: against the centre of the query's
    neighbourhood the best honest cards there look broad; against the network's they do not, while a
    card that claims everything stays above the line."""
    n = 4000
    forest, _, queries, _, pages = world(n)
    rng = np.random.default_rng(5)
    topics = np.random.default_rng(3).normal(size=(40, DIM))  # world()'s topics (its seed, first draw)
    stuffed = [
        issue_sketch(
            Identity(bytes([i, 200, 9]) + b"\x06" * 29),
            version=1,
            model=MODEL,
            vector=topics[rng.choice(40, 32, replace=False)].mean(axis=0),
            now_ms=NOW,
            expires_at=NOW + TTL,
        )
        for i in range(10)
    ]
    neighbourhood, network = [], []
    for q in queries:
        search = PageSearch(forest, q, n)
        run(search, pages)
        listing = sum(unit(s) for _, s in search.candidates.values())
        best = search.best(10)
        neighbourhood += [centrality(s, listing, search.query) for s in best]
        network += [centrality(s, search.centre(), search.query) for s in best]
        assert min(centrality(s, search.centre(), search.query) for s in stuffed) > CENTRAL_FREE
        scored = [(9.0, s) for s in stuffed] + [(6.0 - 0.01 * i, s) for i, s in enumerate(best)]
        assert choose_fetch(scored, 10, centre=search.centre(), query=search.query) == best
    assert np.mean(network) < np.mean(neighbourhood) - 0.1
    assert np.percentile(network, 90) < np.percentile(neighbourhood, 90)
