"""How often the cards a page search fetches hold the node's own top 5 (offline; no network).

    .venv/bin/python bench/bench_sketch_coverage.py [--sizes 50,160] [--fetch 8,12,16,24]

A DHT-only find ranks the sketches it lists (``ioa_p2p.dht.sketchscore.SketchScorer``), fetches the
``page_fetch`` best cards and ranks those with the node's hybrid matcher. Its recall@5 against the matcher
over every card is therefore bounded by this *coverage*: the share of the matcher's top 5 that lies among
the best F candidates by sketch score. For the agents and goals of ``bench/bench_find.py``
(``agents_and_goals``), every card is sketched as a node does it (real signed sketches through
:func:`~ioa_p2p.card.sketch.issue_sketch`, version 1: the wordllama part only; version 2: with the MiniLM
part and the term hashes) and scored as the page search scores them, all cards listed (what a search of a
network up to 512 peers sees). Printed per N and F, the coverage of:

- ``v1``: version 1 sketches (the wordllama view alone);
- ``v2 wordllama cards``: version 2 sketches of cards of the default scheme (``[embedding] backend =
  "wordllama"``): the view and the term hashes, no rest; the query has no rest either;
- ``v2 matcher cards, no terms`` and ``v2 matcher cards``: cards of the matcher's 640-d scheme
  (``backend = "matcher"``), whose sketches carry the MiniLM rest (with and without the term hashes).

Figures are load-independent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_find import agents_and_goals  # noqa: E402

from ioa_p2p.card.sketch import issue_sketch  # noqa: E402
from ioa_p2p.dht.expand import PageSearch  # noqa: E402
from ioa_p2p.dht.forest import forest_for  # noqa: E402
from ioa_p2p.dht.lsh import card_buckets  # noqa: E402
from ioa_p2p.dht.sketchscore import SketchScorer, query_terms  # noqa: E402
from ioa_p2p.identity import Identity  # noqa: E402
from ioa_p2p.matching import HYBRID_MODEL_ID, LITE_MODEL_ID, CardProfile, make_matcher  # noqa: E402
from ioa_p2p.matching.text import terms  # noqa: E402

NOW = 1_800_000_000_000


def coverage(n: int, fetches: list[int]) -> dict[str, dict[int, float]]:
    agents, goals = agents_and_goals(n)
    matcher = make_matcher({"matcher": "hybrid"})
    profiles = {f"a{i}": CardProfile.make(name, text) for i, (name, text) in enumerate(agents)}
    matcher.index(profiles)
    vectors = np.asarray(matcher.card_vectors(list(profiles.values())), dtype=np.float64)
    lsh = card_buckets(HYBRID_MODEL_ID, vectors.shape[1])
    forest = forest_for(lsh.planes.model_id, lsh.planes.dim)
    part = lsh.part or vectors.shape[1]
    designs: dict[str, list] = {
        "v1": [],
        "v2 wordllama cards": [],
        "v2 matcher cards, no terms": [],
        "v2 matcher cards": [],
    }
    for i, (key, profile) in enumerate(profiles.items()):
        identity = Identity(i.to_bytes(4, "big") * 8)
        common = {
            "version": 1,
            "model": lsh.planes.model_id,
            "vector": lsh.view(vectors[i]),
            "now_ms": NOW,
            "expires_at": NOW + 60_000,
        }
        card_terms = [t for text in profile.lexical_fields().values() for t in terms(text)]
        designs["v1"].append((key, issue_sketch(identity, **common)))
        lite = issue_sketch(identity, **common, scheme=LITE_MODEL_ID, terms=card_terms)
        designs["v2 wordllama cards"].append((key, lite))
        rest = vectors[i][part:]
        v2_plain = issue_sketch(identity, **common, scheme=HYBRID_MODEL_ID, rest=rest)
        designs["v2 matcher cards, no terms"].append((key, v2_plain))
        designs["v2 matcher cards"].append(
            (key, issue_sketch(identity, **common, scheme=HYBRID_MODEL_ID, rest=rest, terms=card_terms))
        )
    out: dict[str, dict[int, list[float]]] = {name: {f: [] for f in fetches} for name in designs}
    for goal in goals:
        top = {m.key for m in matcher.rank(goal, 5)}
        query = np.asarray(matcher.embed([goal])[0], dtype=np.float64)
        for name, sketches in designs.items():
            if name.startswith("v2 wordllama"):  # the asking node's query: wordllama only
                scorer = SketchScorer(lsh.view(query), scheme=LITE_MODEL_ID, terms=query_terms(goal))
            else:
                scorer = SketchScorer(
                    lsh.view(query), scheme=HYBRID_MODEL_ID, rest=query[part:], terms=query_terms(goal)
                )
            search = PageSearch(forest, lsh.view(query), n, scorer=scorer)
            search.offer(b"all", [s for _, s in sketches])
            keys = {s.peer_id: k for k, s in sketches}
            for f in fetches:
                chosen = {keys[s.peer_id] for s in search.best(f)}
                out[name][f].append(len(chosen & top) / len(top))
    return {name: {f: round(statistics.mean(v), 3) for f, v in per.items()} for name, per in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="50,160")
    parser.add_argument("--fetch", default="8,12,16,24")
    args = parser.parse_args()
    fetches = [int(f) for f in args.fetch.split(",")]
    for n in (int(s) for s in args.sizes.split(",")):
        print(json.dumps({"n": n, "coverage_of_top5": coverage(n, fetches)}), flush=True)


if __name__ == "__main__":
    main()
