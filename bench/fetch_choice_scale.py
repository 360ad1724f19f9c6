"""Does the node's fetch choice keep the exact top 5 a page search listed, as N grows? (issue 25)

    nice -n 10 .venv/bin/python bench/fetch_choice_scale.py --nodes 2000 --queries 30

No network: every card of the simulator's corpus (``teaming-dev-hard.json`` grown to N, wordllama
vectors, real signed and stamped sketches: :class:`~ioa_p2p.dht.sim.cards.CardSet`) is merged into the
pages of its cells as storing peers merge them (64 entries, first come, random order); each goal runs
:class:`~ioa_p2p.dht.expand.PageSearch` to its end over those pages, then the node's choice of what to
fetch (:func:`~ioa_p2p.dht.sketchscore.fetch_count`, then
:func:`~ioa_p2p.dht.fetchchoice.choose_fetch` among ``POOL`` times as many, a cold node). Printed:
recall@5 of the chosen cards against the exact top 5, the same for the 5 best by sketch score (what the
listing allowed), the centrality of each exact top-5 card that was listed but not chosen, and the
quantiles of the centrality of the 200 best candidates; then with the breadth centre of the listed
candidates (the node's before the whole network's sample of pages), the breadth penalty off and the
superset penalty off, to see which defence drops honest cards.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np
from bench_sim import load_corpus

from ioa_p2p.dht import fetchchoice
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sketchscore import fetch_count
from ioa_p2p.embedding import WordLlamaEmbedder, normalise

NOW = 1_800_000_000_000


def evaluate(
    label: str, searches: list[Any], cards: CardSet, index: dict[Any, int], listed_centre: bool = False
) -> None:
    """``listed_centre``: the breadth centre of the candidates listed (what the node used before the
    whole network's sample of pages, ``PageSearch.centre``)."""
    fetch = DiscoverySettings().page_fetch
    recall, listed, missed = [], [], []
    for query, exact, search in searches:
        count = fetch_count(search.scorer, search.best(fetch), fetch, 5)
        pool = search.best(fetchchoice.POOL * count)
        centre = search.centre()
        if listed_centre:
            centre = fetchchoice.centre_of(sketch for _, sketch in search.candidates.values())
        picked = fetchchoice.choose_fetch(search.scored(pool), count, centre=centre, query=search.query)
        got = [index[s.peer_id] for s in picked]
        top = sorted(got, key=lambda i: -float(cards.vectors[i] @ query))[:5]
        recall.append(len(set(top) & set(exact)) / 5)
        listed.append(len({index[s.peer_id] for s in search.best(5)} & set(exact)) / 5)
        for i in exact:
            sketch = search.candidates.get(cards.identities[i].peer_id)
            if i not in got and sketch is not None:
                missed.append(round(fetchchoice.centrality(sketch[1], centre, search.query), 2))
    print(
        f"{label}: recall@5 of the chosen {statistics.mean(recall):.3f}; of the 5 best by sketch "
        f"{statistics.mean(listed):.3f}; listed but not chosen, their centrality {sorted(missed)}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    n = args.nodes
    rng = random.Random(n + 1)
    agents, goals, source = load_corpus(n, args.queries, rng)
    embedder = WordLlamaEmbedder()
    began = time.perf_counter()
    cards = CardSet.build(agents, embedder, seed=1, stamp_bits=8)
    queries = normalise(embedder.embed([g for g, _ in goals]))
    forest = forest_for(cards.model_id, cards.dim)
    sketches = [cards.sketch(i, cards.issue(i, NOW), NOW) for i in range(n)]
    index = {s.peer_id: i for i, s in enumerate(sketches)}
    pages: dict[bytes, list[Any]] = {}
    for i in rng.sample(range(n), n):
        for cell in forest.cells(sketches[i].vector(), provided_levels(n)):
            page = pages.setdefault(cell.key, [])
            if len(page) < PAGE_ENTRIES:
                page.append(sketches[i])
    searches = []
    for q in queries:
        query = np.asarray(q, dtype=np.float32)
        exact = [int(i) for i in np.argsort(-(cards.vectors @ query))[:5]]
        search = PageSearch(forest, query, n)
        cells = search.start()
        while cells:
            for cell in cells:
                search.offer(cell.key, pages.get(cell.key, []))
            cells = search.next_cells()
        searches.append((query, exact, search))
    print(f"{source}: built and searched in {time.perf_counter() - began:.0f} s", flush=True)
    evaluate("defences as the node", searches, cards, index)
    evaluate("centre of the listed candidates (before)", searches, cards, index, listed_centre=True)
    free, penalty = fetchchoice.CENTRAL_FREE, fetchchoice.SUPERSET_PENALTY
    fetchchoice.CENTRAL_FREE = 10.0
    evaluate("breadth penalty off", searches, cards, index)
    fetchchoice.CENTRAL_FREE, fetchchoice.SUPERSET_PENALTY = free, 0.0
    evaluate("superset penalty off", searches, cards, index)
    fetchchoice.SUPERSET_PENALTY = penalty
    central = [
        fetchchoice.centrality(s, search.centre(), search.query)
        for _, _, search in searches
        for s in search.best(200)
    ]
    print(
        "centrality of the 200 best candidates, 10/50/90/99th percentiles:",
        np.percentile(central, [10, 50, 90, 99]).round(2),
    )


if __name__ == "__main__":
    main()
