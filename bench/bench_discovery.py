"""Discovery quality on the teaming dev set: Top@1, Top@5 and MRR of the gold agent per goal.

    .venv/bin/python bench/bench_discovery.py [path/to/teaming-dev.json]

Each agent of the set becomes a card exactly as a node would issue it (``card_text(name, description)``
embedded by the embedder); each goal is embedded as a ``find`` query and the cards are ranked by cosine
similarity through the same :class:`~ioa_p2p.dht.directory.Directory` the node uses. A goal whose team
has several agents counts the best-ranked member. Figures are printed per embedder and per goal subset.
Exits 0 with a message when the data file is absent.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from shared_data import data_file, require

from ioa_p2p.card import card_text, issue_card
from ioa_p2p.dht.directory import Directory
from ioa_p2p.embedding import Embedder, HashingEmbedder, WordLlamaEmbedder
from ioa_p2p.identity import Identity

DEFAULT_PATH = data_file("teaming-dev.json")
NOW = 1_700_000_000_000


def evaluate(data: dict[str, Any], embedder: Embedder) -> dict[str, dict[str, float]]:
    agents = data["agents"]
    identities = [Identity(i.to_bytes(32, "big")) for i in range(1, len(agents) + 1)]
    vectors = embedder.embed([card_text(a["name"], a.get("description", "")) for a in agents])
    directory = Directory(embedder.model_id, embedder.dim)
    for identity, agent, vector in zip(identities, agents, vectors, strict=True):
        card = issue_card(
            identity,
            name=agent["name"],
            description=agent.get("description", ""),
            model=embedder.model_id,
            vector=vector,
            version=1,
            now_ms=NOW,
        )
        directory.offer(card, NOW, "bench")
    goals = data["goals"]
    started = time.perf_counter()
    queries = embedder.embed([g["goal"] for g in goals])
    per_subset: dict[str, list[int]] = defaultdict(list)
    for goal, query in zip(goals, queries, strict=True):
        ranked = [m.card.card.name for m in directory.search(query, len(agents), NOW)]
        rank = min((ranked.index(name) + 1 for name in goal["team"] if name in ranked), default=0)
        per_subset["all"].append(rank)
        per_subset[goal.get("set", "-")].append(rank)
    elapsed = time.perf_counter() - started
    out = {}
    for subset, ranks in per_subset.items():
        n = len(ranks)
        out[subset] = {
            "n": n,
            "top1": sum(r == 1 for r in ranks) / n,
            "top5": sum(1 <= r <= 5 for r in ranks) / n,
            "mrr": sum(1 / r for r in ranks if r) / n,
        }
    out["all"]["ms_per_goal"] = 1000 * elapsed / len(goals)
    return out


def main(argv: list[str]) -> int:
    path = require(Path(argv[1]) if len(argv) > 1 else DEFAULT_PATH)
    if not path.exists():
        print(f"teaming data set not found at {path}; nothing to measure (pass a path to a teaming-*.json)")
        return 0
    data = json.loads(path.read_text(encoding="utf-8"))
    print(f"{path.name}: {len(data['agents'])} agents, {len(data['goals'])} goals")
    print(f"{'embedder':<28} {'subset':<10} {'n':>3} {'Top@1':>6} {'Top@5':>6} {'MRR':>6}")
    for embedder in (WordLlamaEmbedder(), HashingEmbedder(256)):
        results = evaluate(data, embedder)
        for subset, row in sorted(results.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            print(
                f"{embedder.model_id:<28} {subset:<10} {row['n']:>3.0f} "
                f"{row['top1']:>6.3f} {row['top5']:>6.3f} {row['mrr']:>6.3f}"
            )
        print(f"{'':<28} (embedding + ranking: {results['all']['ms_per_goal']:.2f} ms per goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
