"""The page search's reading order, expansion level and byte budget (pure: dht/expand.py; the fetch
choice: tests/test_fetch_choice.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.dht.expand import EXPAND_OCCUPANCY, PageSearch, expand_level
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.identity import Identity

MODEL, DIM = "example/64", 64
NOW = 1_700_000_000_000
TTL = 30 * 60 * 1000


def world(n: int, seed: int = 3):
    """``n`` signed sketches around 40 topics, their pages (first come, 64 a page), and 20 queries."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(40, DIM))
    cards = topics[rng.integers(0, 40, n)] + 0.9 * rng.normal(size=(n, DIM))
    queries = topics[rng.integers(0, 40, 20)] + 2.5 * rng.normal(size=(20, DIM))
    cards /= np.linalg.norm(cards, axis=1, keepdims=True)
    forest = forest_for(MODEL, DIM)
    sketches = [
        issue_sketch(
            Identity(bytes([i % 256, i // 256, 9]) + b"\x05" * 29),
            version=1,
            model=MODEL,
            vector=cards[i],
            now_ms=NOW,
            expires_at=NOW + TTL,
        )
        for i in range(n)
    ]
    pages: dict[bytes, list] = {}
    for s in sketches:
        for cell in forest.cells(s.vector(), (4, 8, 12)):
            page = pages.setdefault(cell.key, [])
            if len(page) < PAGE_ENTRIES:
                page.append(s)
    return forest, cards, queries, sketches, pages


def run(search: PageSearch, pages: dict[bytes, list]) -> list[list[bytes]]:
    rounds = []
    cells = search.start()
    while cells:
        rounds.append([c.key for c in cells])
        for cell in cells:
            search.offer(cell.key, pages.get(cell.key, []))
        cells = search.next_cells()
    return rounds


def test_candidates_are_expanded_at_the_level_whose_pages_are_small() -> None:
    assert expand_level(1_000, 8) == 8  # ~4 sketches a level-8 page
    assert expand_level(3_000, 8) == 12  # ~12 a level-8 page: level 12 is provided from 1,024 peers
    assert expand_level(10_000, 8) == 12
    assert expand_level(600, 8) == 8  # level 12 is not provided yet
    assert expand_level(200_000, 12) == 12  # nothing finer
    for n in (1_000, 3_000, 10_000, 40_000):
        level = expand_level(n, 8)
        assert n / (1 << level) <= EXPAND_OCCUPANCY or level == 12


def test_a_round_asks_the_best_candidates_own_buckets_first() -> None:
    forest, _, queries, _, pages = world(1500)
    search = PageSearch(forest, queries[0], 1500)
    for cell in search.start():
        search.offer(cell.key, pages.get(cell.key, []))
    best = search.best(1)[0]
    level = expand_level(1500, search.level or 8)
    own = {c.key for c in forest.cells(best.vector(), (level,))}
    first = search.next_cells()
    # the best candidate's own buckets not asked yet (cost 0, the highest score) lead the round
    fresh = own - set(search.asked) - {c.key for c in first}
    leading = {c.key for c in first[: len(own)]}
    assert not fresh and (own & {c.key for c in first}) <= leading
    assert first[0].key in own


def test_a_byte_budget_bounds_what_a_search_reads_and_keeps_most_of_its_recall() -> None:
    n = 3000
    forest, cards, queries, sketches, pages = world(n)
    index = {s.peer_id: i for i, s in enumerate(sketches)}
    full_bytes, budget_bytes, full_recall, budget_recall = [], [], [], []
    budget = 330_000
    for q in queries:
        exact = set(np.argsort(-(cards @ q))[:5].tolist())
        for limit, read, recall in ((10**12, full_bytes, full_recall), (budget, budget_bytes, budget_recall)):
            search = PageSearch(forest, q, n, budget=limit)
            run(search, pages)
            assert search.next_cells() == []
            read.append(search.bytes)
            recall.append(len(exact & {index[s.peer_id] for s in search.best(5)}) / 5)
    # the budget ends the search: it overshoots by what the last round's page sizes were underestimated
    assert max(budget_bytes) <= 1.3 * budget, max(budget_bytes)
    assert budget < 0.75 * np.mean(full_bytes) and max(budget_bytes) < np.mean(full_bytes)  # it acted
    assert np.mean(full_recall) >= 0.9, np.mean(full_recall)
    assert np.mean(budget_recall) >= np.mean(full_recall) - 0.1, np.mean(budget_recall)


def test_the_budget_is_a_discovery_setting_with_bounds() -> None:
    from ioa_p2p.dht.expand import BUDGET
    from ioa_p2p.dht.settings import DiscoverySettings
    from ioa_p2p.errors import ConfigError

    assert DiscoverySettings().page_budget == BUDGET
    assert DiscoverySettings.from_section({"page_budget": 65536}).page_budget == 65536
    with pytest.raises(ConfigError, match="page_budget"):
        DiscoverySettings.from_section({"page_budget": 1000})
