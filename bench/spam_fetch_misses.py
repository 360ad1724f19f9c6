"""Where a cold node's page search loses the gold agents to spam (``--fetch-only``'s world, one pass).

    cd bench && nice -n 10 ../.venv/bin/python spam_fetch_misses.py [--attack patient] [--arrival trickle]
        [--kin-line 0.65]

The honest cards of ``teaming-dev-hard.json`` (shared data; said when absent) and ``--ratio`` spam
identities per honest card of ``--attack`` (``spam_attacks.py``'s held-out generator or this benchmark's
own), when the node first saw each as ``--arrival`` says (``spam_world.ARRIVAL``); a node with no evidence
(no standing, nothing held) runs each goal's fetch choice (:func:`~ioa_p2p.dht.fetchchoice.choose_fetch`
with the sketch defences) and reports, over the goals: the gold agents among the fetched, the spam share of
the fetch by kind, and for every gold agent not fetched whether it was in the candidate pool (the best
``POOL * FETCH`` by sketch score), its place there and the kinds of the candidates scored above it.

``--kin-line C``: a measurement of *near-duplicate crowds sharing one fetch slot* (not the node's rule):
copy groups (``fetchchoice.copy_groups``) are merged, best first, into the first earlier group whose best
member is within wordllama cosine ``C`` of theirs, so a crowd costs one slot and the crowds of the best
``FULL_GROUPS`` are fetched whole, as copies are.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

import spam_world
from shared_data import data_file, require
from spam_attacks import HELDOUT, heldout_texts
from spam_world import Sketches, make_card, spam_texts

import ioa_p2p.dht.fetchchoice as fetchchoice
from ioa_p2p.card.sketch import SignedSketch
from ioa_p2p.identity import Identity


def crowd_groups(line: float) -> Any:
    """``copy_groups`` with near-duplicate crowds merged at cosine ``line`` (module docstring)."""
    copies = fetchchoice.copy_groups

    def groups(sketches: Sequence[SignedSketch]) -> list[list[int]]:
        units = [fetchchoice.unit(s) for s in sketches]
        leaders: list[int] = []
        out: list[list[int]] = []
        for group in copies(sketches):
            for k, leader in enumerate(leaders):
                if float(units[leader] @ units[group[0]]) >= line:
                    out[k] = out[k] + group
                    break
            else:
                leaders.append(group[0])
                out.append(list(group))
        return out

    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attack", default="patient")
    parser.add_argument("--arrival", default="trickle", choices=("flood", "trickle", "forget", "none"))
    parser.add_argument("--ratio", type=int, default=10)
    parser.add_argument("--kin-line", type=float, default=None)
    args = parser.parse_args()
    spam_world.ARRIVAL[0] = args.arrival
    data = json.loads(require(data_file("teaming-dev-hard.json")).read_text(encoding="utf-8"))
    honest = [(a["name"], a["description"]) for a in data["agents"]]
    goals = [g for g in data["goals"] if g.get("team")]
    world, names, kind_of = Sketches(), {}, {}
    for name, description in honest:
        identity = Identity.generate()
        card = make_card(identity, name, description)
        world.add(identity, card)
        world.honest.add(str(card.peer_id))
        names[name] = str(card.peer_id)
    rng, picked = random.Random(25), []
    count = args.ratio * len(honest)
    if args.attack in HELDOUT:
        texts = heldout_texts(args.attack, honest, count, rng, picked)
    else:
        texts, picked = spam_texts(args.attack, honest, count, rng), [args.attack] * count
    for i, (description, skills) in enumerate(texts):
        identity = Identity.generate()
        card = make_card(identity, f"agent-{i}", description, skills)
        world.add(identity, card)
        kind_of[str(card.peer_id)] = picked[i]
    world.schedule(args.attack, random.Random(f"arrival-{args.attack}"))
    if args.kin_line is not None:
        fetchchoice.copy_groups = crowd_groups(args.kin_line)
    pools: list[list[str]] = []
    choose = spam_world.choose_fetch

    def spy(scored: Any, count: int, **kw: Any) -> Any:
        scored = list(scored)
        pools.append([str(s.peer_id) for _, s in scored])
        return choose(scored, count, **kw)

    spam_world.choose_fetch = spy
    shares, by_kind, ahead, places = [], Counter[str](), Counter[str](), []
    missed = outside = 0
    for goal in goals:
        got = world.fetched(goal["goal"], {}, True)
        gold = {names[n] for n in goal["team"] if n in names}
        shares.append(len(gold & set(got)) / len(gold) if gold else 0.0)
        by_kind.update(kind_of.get(k, "honest") for k in got)
        pool = pools[-1]
        for key in gold - set(got):
            missed += 1
            if key not in pool:
                outside += 1
                continue
            place = pool.index(key)
            places.append(place)
            ahead.update(kind_of.get(k, "honest") for k in pool[:place])
    fetched = sum(by_kind.values())
    row = {
        "attack": args.attack,
        "arrival": args.arrival,
        "kin_line": args.kin_line,
        "gold_fetched": round(statistics.mean(shares), 3),
        "fetch_share": {k: round(v / fetched, 3) for k, v in sorted(by_kind.items())},
        "gold_missed": missed,
        "missed_outside_pool": outside,
        "missed_place_in_pool_p50": statistics.median(places) if places else None,
        "scored_above_missed_by_kind": dict(sorted(ahead.items())),
    }
    print(json.dumps(row))


if __name__ == "__main__":
    sys.exit(main())
