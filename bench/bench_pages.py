"""The page search's design alone (no network): recall@5 against the exact top 5 as N grows.

    nice -n 10 .venv/bin/python bench/bench_pages.py [--nodes 1000,10000] [--queries 120] [--width 20]

Every agent of the simulator's corpus (``teaming-dev-hard.json`` grown to N by recombining sentences,
:func:`~ioa_p2p.dht.sim.corpus.recombined`; wordllama card vectors) signs a real sketch
(:func:`~ioa_p2p.card.sketch.issue_sketch`); each sketch is merged into the page of each of its cells at
the levels a network of N provides (:func:`~ioa_p2p.dht.probing.provided_levels`) with the storing
peers' own rule (:func:`~ioa_p2p.dht.pages.merge_page`: at most 64 per page, first come, in a random
order). Each goal then runs :class:`~ioa_p2p.dht.expand.PageSearch` to the end, every page it asks read
in full (what a lookup that reaches the page's storing peers returns; the simulator adds the network:
``bench/bench_sim.py``), and its top 5 by sketch cosine is held against the exact top 5 by cosine over
all cards. Printed per N: recall@5, pages asked, candidates ranked (sketches listed, and their share of
the N), bytes of sketches read per find (every entry of every page, repeats included), rounds, and the
same for the previous design (provider records: ``plan_probes`` with 40 probes, ``rank_providers``, the
64 best fetched and ranked exactly).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import numpy as np
from bench_sim import load_corpus

from ioa_p2p.card import card_text
from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.dht.expand import BUDGET, PageSearch
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.keyspace import K
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.dht.probing import plan_probes, provided_levels, rank_providers
from ioa_p2p.embedding import WordLlamaEmbedder, normalise
from ioa_p2p.identity import Identity

NOW = 1_800_000_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--width", type=int, default=20)
    parser.add_argument("--settle", type=int, default=None, help="end once this many best are expanded")
    parser.add_argument("--budget", type=int, default=BUDGET, help="bytes of sketches a find reads at most")
    args = parser.parse_args()
    embedder = WordLlamaEmbedder()
    for n in (int(x) for x in args.nodes.split(",")):
        rng = random.Random(n)
        agents, goals, source = load_corpus(n, args.queries, rng)
        vectors = normalise(embedder.embed([card_text(a.name, a.description, a.skills) for a in agents]))
        queries = normalise(embedder.embed([g for g, _ in goals]))
        forest = forest_for(embedder.model_id, int(vectors.shape[1]))
        began = time.perf_counter()
        sketches = [
            issue_sketch(
                Identity(rng.randbytes(32)),
                version=1,
                model=forest.model_id,
                vector=vectors[i],
                now_ms=NOW,
                expires_at=NOW + 1_800_000,
            )
            for i in range(n)
        ]
        index = {s.peer_id: i for i, s in enumerate(sketches)}
        pages: dict[bytes, list] = {}
        providers: dict[bytes, list[int]] = {}
        levels = provided_levels(n)
        for i in rng.sample(range(n), n):  # arrival order at the storing peers
            for cell in forest.cells(sketches[i].vector(), levels):
                page = pages.setdefault(cell.key, [])
                if len(page) < PAGE_ENTRIES:
                    page.append(sketches[i])
            for cell in forest.cells(vectors[i], levels):
                held = providers.setdefault(cell.key, [])
                if len(held) < K:
                    held.append(i)
        built = time.perf_counter() - began
        recall, asked, listed, rounds, old, read = [], [], [], [], [], []
        for q in queries:
            exact = set(np.argsort(-(vectors @ q))[:5].tolist())
            search = PageSearch(forest, q, n, width=args.width, settle=args.settle, budget=args.budget)
            cells = search.start()
            while cells:
                for cell in cells:
                    search.offer(cell.key, pages.get(cell.key, []))
                cells = search.next_cells()
            got = {index[s.peer_id] for s in search.best(5)}
            recall.append(len(exact & got) / 5)
            asked.append(len(search.asked))
            listed.append(len(search.candidates))
            rounds.append(search.rounds)
            read.append(search.bytes)
            plan = plan_probes(forest, q, n, probes=40)
            fetched = rank_providers(plan, {k: providers.get(k, []) for k in plan.keys})[:64]
            best = sorted(fetched, key=lambda i: -float(vectors[i] @ q))[:5]
            old.append(len(exact & set(best)) / 5)
        row = {
            "N": n,
            "source": source,
            "queries": len(queries),
            "recall@5 pages": round(statistics.mean(recall), 3),
            "pages asked": round(statistics.mean(asked), 1),
            "pages asked p95": float(np.percentile(asked, 95)),
            "sketches ranked": round(statistics.mean(listed), 1),
            "share of sketches listed": round(statistics.mean(listed) / n, 3),
            "KB read": round(statistics.mean(read) / 1024, 1),
            "KB read p95": round(float(np.percentile(read, 95)) / 1024, 1),
            "rounds": round(statistics.mean(rounds), 1),
            "recall@5 provider records (before)": round(statistics.mean(old), 3),
            "build_s": round(built, 1),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
