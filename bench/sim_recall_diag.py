"""Where a simulated page search loses recall: per search, the rounds (their times), whether the rounds'
share of ``find_timeout`` cut it, and for each card of the exact top 5 whether it was listed, chosen for
fetching, fetched and returned (issue 25).

    nice -n 10 .venv/bin/python bench/sim_recall_diag.py --nodes 10000 --queries 30 [--find-timeout 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np
from bench_sim import form, load_corpus

from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.cardflow import exact_ties, exact_top, publish_cards
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.links import LinkModel
from ioa_p2p.dht.sim.pagesearch import PageSearchRun
from ioa_p2p.dht.sim.preload import preload_cards
from ioa_p2p.embedding import WordLlamaEmbedder, normalise


class Traced(PageSearchRun):
    """A page search that records its rounds and how it ended."""

    def start(self) -> Traced:
        self.rounds_at: list[tuple[float, int]] = []  # (start, pages) of each round
        self.cut = False
        self.started_at = self.world.loop.now
        super().start()
        self.level = self.search.level
        self.size_est = self.search.size
        return self

    def _rounds_over(self) -> None:
        if not self.done and not self.fetching:
            self.cut = True
        super()._rounds_over()

    def _verified_best(self) -> list[Any]:
        from ioa_p2p.dht.fetchchoice import POOL, breadth_penalty, centrality, copy_groups, superset_copies
        from ioa_p2p.dht.sketchscore import fetch_count
        from ioa_p2p.identity import PeerId

        picked = super()._verified_best()
        pages, me = self.search, [PeerId(self.node.peer)]
        count = fetch_count(
            pages.scorer, pages.best(self.settings.page_fetch, exclude=me), self.settings.page_fetch, self.k
        )
        pool = pages.best(POOL * count, exclude=me)
        scored = pages.scored(pool)
        supers = superset_copies([s for _, s in scored])
        centre = pages.centre()
        groups = copy_groups([s for _, s in scored])
        group_of = {scored[i][1].peer_id: len(g) for g in groups for i in g}
        self.why = {}
        for score, sk in scored:
            c = centrality(sk, centre, pages.query)
            self.why[sk.peer_id.raw] = (
                f"score {score:.2f} central {c:.2f} (-{breadth_penalty(c):.1f}) "
                f"superset {sk.peer_id in supers} group {group_of.get(sk.peer_id)} count {count}"
            )
        chosen = {s.peer_id.raw for s in picked}
        adj = sorted(
            (sc - breadth_penalty(centrality(sk, centre, pages.query)) - (100 if sk.peer_id in supers else 0))
            for sc, sk in scored
            if sk.peer_id.raw in chosen
        )
        self.why_floor = f"chosen {len(picked)} adjusted min {adj[0] if adj else 0:.2f}"
        return picked

    def _round(self, cells: list[Any]) -> None:
        if cells and not self.done and not self.fetching:
            self.rounds_at.append((self.world.loop.now - self.started_at, len(cells)))
        super()._round(cells)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--nodes", type=int, default=10000)
    p.add_argument("--queries", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--find-timeout", type=float, default=10.0)
    p.add_argument("--page-budget", type=int, default=0)
    p.add_argument("--publishers", type=int, default=20)
    args = p.parse_args()
    ns = argparse.Namespace(
        seed=args.seed,
        split="any",
        refresh_lookups=2,
        hedge="reach",
        self_lookup="node",
        loss=0.0,
        request_rtts=1,
        dial_rtts=LinkModel().dial_rtts,
        warm_from=1000,
        connected_tables=True,
        settle=20.0,
    )
    n = args.nodes
    began = time.perf_counter()
    rng = random.Random(args.seed + n)
    agents, goals, source = load_corpus(n, args.queries, rng)
    embedder = WordLlamaEmbedder()
    cards = CardSet.build(agents, embedder, seed=args.seed, stamp_bits=8)
    vectors = normalise(embedder.embed([q for q, _ in goals]))
    print(f"{source}; cards in {time.perf_counter() - began:.0f} s", flush=True)
    world = form(n, 0.0, cards, ns)
    world.loop.run(world.loop.now + 10)
    rng = random.Random(args.seed * 1000 + n)
    forest = forest_for(cards.model_id, cards.dim)
    publishers = rng.sample(world.nodes, args.publishers)
    chosen = {x.index for x in publishers}
    preload_cards(world, forest, [x for x in world.nodes if x.index not in chosen], rng)
    publish_cards(world, forest, publishers, rng, window=60)
    settings = replace(DiscoverySettings(), min_stamp_bits=8, find_timeout=args.find_timeout)
    if args.page_budget:
        settings = replace(settings, page_budget=args.page_budget)
    print(f"formed and published at {time.perf_counter() - began:.0f} s", flush=True)
    runs: list[tuple[Traced, tuple[int, ...], frozenset[int]]] = []
    done: list[Any] = []
    for i, (_, gold) in enumerate(goals):
        vector = np.asarray(vectors[i], dtype=np.float32)
        online = [x for x in world.nodes if x.online and x.index not in gold]
        node = online[rng.randrange(len(online))]
        exact = tuple(exact_top(world, vector, 5, exclude=node.index))
        ties = exact_ties(world, vector, exact, exclude=node.index)
        run = Traced(world, node, vector, forest, settings, done.append)
        world.loop.at(world.loop.now + i * 0.5, run.start)
        runs.append((run, exact, ties))
    world.loop.run(
        world.loop.now + len(goals) * 0.5 + 3 * settings.find_timeout + 60,
        done=lambda: len(done) >= len(goals),
    )
    fates: Counter[str] = Counter()
    recalls = []
    for run, exact, ties in runs:
        got = set(run.result.ranked)
        recall = min(len(got & (set(exact) | ties)), 5) / 5
        recalls.append(recall)
        best = [s.peer_id.raw for s in run.search.best(200)]
        fate = []
        for idx in exact:
            peer = world.nodes[idx].peer
            from ioa_p2p.identity import PeerId

            if idx in got:
                f = "returned"
            elif PeerId(peer) not in run.search.candidates:
                f = "not listed"
            elif peer not in run.sketches:
                f = (
                    f"listed, rank {best.index(peer) if peer in best else '>200'}, not chosen: "
                    + run.why.get(peer, "not in pool")
                    + " / "
                    + run.why_floor
                )
            elif idx not in run.cards:
                f = "chosen, not fetched"
            else:
                f = "fetched, outranked"
            fate.append(f)
            fates[f.split(",")[0] + ("" if "rank" not in f else ", not chosen")] += 1
        rounds = " ".join(f"{t:.2f}:{k}" for t, k in run.rounds_at)
        print(
            f"recall {recall:.1f} est {run.size_est:.0f} level {run.level} passes {run.result.passes} "
            f"cut {run.cut} timeout {run.result.timed_out} lookup {run.result.lookup_s:.2f} "
            f"fetch {run.result.fetch_s:.2f} total {run.result.total_s:.2f} cand {run.result.providers} "
            f"bytes {run.search.bytes} pages {len(run.search.asked)} rounds [{rounds}] | "
            + "; ".join(f for f in fate if f != "returned"),
            flush=True,
        )
    print(
        f"recall {statistics.mean(recalls):.3f}; fates {dict(fates)}; "
        f"cut {sum(r.cut for r, _, _ in runs)}; wall {time.perf_counter() - began:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
