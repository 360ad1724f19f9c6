"""Local index: recall@10 and query time of the annoy snapshot (+ exact delta) against exact numpy search.

    .venv/bin/python bench/bench_index.py [--sizes 10000,100000] [--queries 200]

Vectors are real wordllama embeddings (256-d) of generated agent descriptions, so they have the
clustered structure of real cards (random Gaussian vectors would flatter neither method). Each size is
measured with a fresh snapshot and again after 5% of the cards changed (the delta is searched exactly,
the changed cards are filtered out of the snapshot). Recall@10 is the share of the exact top 10 that the
index returns; the order of what it returns is exact by construction (every candidate is re-scored).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

import numpy as np

from ioa_p2p.dht.index import AnnoyIndex, ExactIndex
from ioa_p2p.embedding import WordLlamaEmbedder

ROLES = [
    "analyst",
    "assistant",
    "planner",
    "writer",
    "coder",
    "reviewer",
    "tutor",
    "researcher",
    "designer",
    "translator",
    "scheduler",
    "tester",
    "monitor",
    "negotiator",
    "summarizer",
    "navigator",
]
ACTIONS = [
    "plots charts of",
    "summarizes",
    "translates",
    "queries databases about",
    "writes reports on",
    "forecasts",
    "debugs code for",
    "searches the web for",
    "schedules meetings about",
    "draws images of",
    "transcribes audio about",
    "answers questions on",
    "audits",
    "optimizes",
    "monitors",
    "explains",
]
TOPICS = [
    "revenue",
    "weather",
    "stock prices",
    "medical records",
    "legal contracts",
    "robot arms",
    "recipes",
    "travel plans",
    "sports results",
    "chemistry",
    "music",
    "customer emails",
    "supply chains",
    "genomes",
    "tax returns",
    "satellite images",
    "energy use",
    "traffic",
    "elections",
    "poetry",
    "invoices",
    "job offers",
    "real estate",
    "video games",
    "insurance claims",
    "astronomy",
    "crypto markets",
]
STYLES = ["", "quickly", "in French", "for beginners", "with Python", "in detail", "for children", "at scale"]


def texts(n: int, seed: int) -> list[str]:
    combos = list(itertools.product(ROLES, ACTIONS, TOPICS, STYLES))
    rng = random.Random(seed)
    rng.shuffle(combos)
    out = []
    for i in range(n):
        role, action, topic, style = combos[i % len(combos)]
        out.append(f"{role} that {action} {topic} {style} #{i // len(combos)}".strip())
    return out


def timed_queries(index: object, queries: np.ndarray, k: int) -> tuple[list[list[str]], list[float]]:
    results, times = [], []
    for q in queries:
        start = time.perf_counter()
        found = index.search(q, k)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - start) * 1000)
        results.append([key for key, _ in found])
    return results, times


def recall(found: list[list[str]], truth: list[list[str]]) -> float:
    return statistics.mean(len(set(f) & set(t)) / len(t) for f, t in zip(found, truth, strict=True))


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def run(
    size: int, n_queries: int, embedder: WordLlamaEmbedder, configs: list[tuple[int, int | None]]
) -> None:
    started = time.perf_counter()
    vectors = embedder.embed(texts(size, seed=1))
    queries = embedder.embed([t.split(" #")[0] for t in texts(n_queries, seed=2)])
    print(f"\n== {size} cards ({time.perf_counter() - started:.1f} s to embed), {n_queries} queries, k=10")
    exact = ExactIndex(embedder.dim, capacity=size)
    for i, v in enumerate(vectors):
        exact.upsert(str(i), v)
    truth, exact_times = timed_queries(exact, queries, 10)
    print(
        f"{'exact numpy':<36} recall 1.000  p50 {pct(exact_times, 50):6.2f} ms  "
        f"p95 {pct(exact_times, 95):6.2f} ms"
    )
    for n_trees, search_k in configs:
        index = AnnoyIndex(embedder.dim, min_size=1, n_trees=n_trees, search_k=search_k)
        for i, v in enumerate(vectors):
            index.upsert(str(i), v)
        build_start = time.perf_counter()
        index.install(index.prepare_rebuild().build())
        build = time.perf_counter() - build_start
        found, times = timed_queries(index, queries, 10)
        label = f"annoy {n_trees} trees, search_k {search_k or 'auto'}"
        print(
            f"{label:<36} recall {recall(found, truth):.3f}  p50 {pct(times, 50):6.2f} ms  "
            f"p95 {pct(times, 95):6.2f} ms  (build {build:.1f} s)"
        )
    # 5% churn after the snapshot: changed cards live in the exact delta.
    n_trees, search_k = configs[-1]
    index = AnnoyIndex(embedder.dim, min_size=1, n_trees=n_trees, search_k=search_k, min_rebuild=size)
    for i, v in enumerate(vectors):
        index.upsert(str(i), v)
    index.install(index.prepare_rebuild().build())
    rng = np.random.default_rng(3)
    changed = rng.choice(size, size // 20, replace=False)
    fresh = embedder.embed(texts(len(changed), seed=4))
    for i, v in zip(changed, fresh, strict=True):
        index.upsert(str(i), v)
        exact.upsert(str(i), v)
    truth, _ = timed_queries(exact, queries, 10)
    found, times = timed_queries(index, queries, 10)
    label = "  + 5% changed since the snapshot"
    print(
        f"{label:<36} recall {recall(found, truth):.3f}  p50 {pct(times, 50):6.2f} ms  "
        f"p95 {pct(times, 95):6.2f} ms  (delta {index.delta_size})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    embedder = WordLlamaEmbedder()
    configs = [(10, 1000), (50, 1000), (50, None)]
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.queries, embedder, configs)


if __name__ == "__main__":
    main()
