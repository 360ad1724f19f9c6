"""Specificity by query history: do spam cards match more *unrelated* queries than honest ones?

    cd bench && nice -n 10 ../.venv/bin/python spam_specificity.py [--attack drip] [--ratio 10] [--top 3,8]

A measurement for issue 25 (not a node rule): a card that claims many unrelated things ranks near the top
for many unrelated queries, so the spread of the queries a card ranked in the top ``m`` for (the
participation ratio of their unit wordllama vectors, as ``ioa_p2p.matching.breadth`` measures a card's
items: about 1 when the queries say the same thing, about their number when they are unrelated) could
discount it. Queries: the 120 goals of ``teaming-dev-hard.json`` (shared data; said when absent) and
their clauses (``split_goal``, 6 queries per goal at most, as the node's ``find_all``); scores: the
page search's sketch scores over every card (honest ones and ``--ratio`` spam identities per honest card
of ``--attack``). Printed per kind (honest, spam): how many cards ranked in some query's top ``m``, and
the spread of their queries (median, 90th and 99th percentiles, most) and their number of queries.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

import numpy as np
import numpy.typing as npt
from shared_data import data_file, require
from spam_world import Sketches, make_card, spam_for

from ioa_p2p.dht.sketchscore import SketchScorer, query_terms
from ioa_p2p.embedding import normalise
from ioa_p2p.identity import Identity
from ioa_p2p.matching import split_goal
from ioa_p2p.matching.calibration import HYBRID, WORDLLAMA


def spread(rows: npt.NDArray[np.float64]) -> float:
    """The participation ratio of unit rows (1.0 for fewer than two)."""
    if len(rows) < 2:
        return 1.0
    eigen = np.clip(np.linalg.eigvalsh(rows @ rows.T), 0.0, None)
    return float(eigen.sum() ** 2 / (eigen**2).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attack", default="drip")
    parser.add_argument("--ratio", type=int, default=10)
    parser.add_argument("--top", default="3,8", help="comma-separated m: a card matches a query in its top m")
    args = parser.parse_args()
    data = json.loads(require(data_file("teaming-dev-hard.json")).read_text(encoding="utf-8"))
    honest = [(a["name"], a["description"]) for a in data["agents"]]
    world, kind = Sketches(), {}
    for name, description in honest:
        identity = Identity.generate()
        card = make_card(identity, name, description)
        world.add(identity, card)
        kind[str(card.peer_id)] = "honest"
    texts = spam_for(args.attack, honest, args.ratio * len(honest), random.Random(25)) if args.ratio else []
    for i, (description, skills) in enumerate(texts):
        identity = Identity.generate()
        card = make_card(identity, f"agent-{i}", description, skills)
        world.add(identity, card)
        kind[str(card.peer_id)] = "spam"
    sketches = list(world.by_key.values())
    keys = [str(s.peer_id) for s in sketches]
    matrix = np.stack([s.vector() for s in sketches])
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    mean, std = HYBRID.standard[WORDLLAMA]
    queries = [
        q
        for g in data["goals"]
        if g.get("team")
        for q in list(dict.fromkeys([g["goal"], *(n.text for n in split_goal(g["goal"]))]))[:6]
    ]
    tops = [int(m) for m in args.top.split(",")]
    hits: dict[int, dict[str, list[int]]] = {m: {} for m in tops}
    views = []
    for index, query in enumerate(queries):
        vector = normalise(world.embedder.embed([query]))[0]
        scorer = SketchScorer(vector, scheme=world.embedder.model_id, terms=query_terms(query))
        for sketch in sketches:
            scorer.listed(sketch)
        lexical = scorer.lexical(s.peer_id.raw for s in sketches)
        dense = ((matrix @ scorer.view) - mean) / std
        scores = dense + np.array([lexical.get(s.peer_id.raw, 0.0) for s in sketches])
        views.append(np.asarray(scorer.view) / np.linalg.norm(scorer.view))
        order = np.argsort(-scores)
        for m in tops:
            for i in order[:m]:
                hits[m].setdefault(keys[i], []).append(index)
    rows = np.stack(views)
    print(f"# {args.attack}, ratio {args.ratio}: {len(queries)} queries, {len(keys)} cards")
    for m in tops:
        for who in ("honest", "spam"):
            found = {k: v for k, v in hits[m].items() if kind[k] == who}
            if not found:
                continue
            spreads = np.array([spread(rows[sorted(set(v))]) for v in found.values()])
            p50, p90, p99, most = np.quantile(spreads, [0.5, 0.9, 0.99, 1.0])
            count = sum(1 for k in kind.values() if k == who)
            print(
                f"top {m}: {who:<6} cards in some top {m}: {len(found)} of {count}; spread of their queries "
                f"p50 {p50:.2f} p90 {p90:.2f} p99 {p99:.2f} max {most:.2f}; queries per card p50 "
                f"{np.median([len(v) for v in found.values()]):.0f}"
            )


if __name__ == "__main__":
    sys.exit(main())
