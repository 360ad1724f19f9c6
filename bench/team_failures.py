"""Why whole-team recall is lost: every missed gold member of a teaming data set, by cause.

    .venv/bin/python bench/team_failures.py [--data DIR] [--file teaming-dev-hard.json] [--list]

For the committed join rule and for phase A's cover rule (the same matcher without a join rule), each
gold member that ``choose_team`` leaves out is put in one class: a solo goal whose lead is wrong, a card
outside the pool team formation scores (the goal's best cards plus each need's), a card that no clause
ranks first (alone or read in the goal's context), a clause's best card that the rule judged covered or
under its threshold. Also counted: chosen members that are not gold (wrong leads, extra members).
``--list`` prints each miss with the goal's clauses and the chosen team.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from ioa_p2p.matching import HybridMatcher
from ioa_p2p.teaming import choose_team
from ioa_p2p.teaming.join import in_context
from ioa_p2p.teaming.offline import score_pool

sys.path.insert(0, str(Path(__file__).parent))
import matching_eval as ev  # noqa: E402
import shared_data  # noqa: E402
from bench_matching import build  # noqa: E402


def cause(member: str, goal: dict[str, Any], matcher: HybridMatcher, chosen: tuple[str, ...]) -> str:
    pool = score_pool(goal["goal"], matcher)
    weight = matcher.calibration.context_weight
    if goal["set"] == "solo":
        return "solo goal, wrong lead, the gold card not added"
    if member not in pool.goal:
        return "outside the pool (goal's best cards + each need's best)"
    alone = [pool.alone[n.index] for n in pool.needs]
    context = [in_context(a, pool.goal, weight) for a in alone]
    if any(max(c, key=lambda k: c[k]) == member for c in context):
        return "best card of a clause in context, judged covered or under the threshold"
    if any(max(a, key=lambda k: a[k]) == member for a in alone):
        return "best card of a clause alone, not in the goal's context"
    return "in the pool, no clause ranks it first"


def breakdown(label: str, matcher: HybridMatcher, data: dict[str, Any], listing: bool) -> None:
    misses: Counter[str] = Counter()
    extra: Counter[str] = Counter()
    for goal in data["goals"]:
        chosen = choose_team(goal["goal"], matcher).keys
        gold = set(goal["team"])
        for member in sorted(gold - set(chosen)):
            why = cause(member, goal, matcher, chosen)
            misses[why] += 1
            if listing:
                print(f"  [{why}] {member}: {goal['goal']!r} -> {list(chosen)}")
        for key in set(chosen) - gold:
            kind = "wrong lead" if key == chosen[0] else f"extra member on a {goal['set']} goal"
            extra[kind] += 1
    total = sum(len(g["team"]) for g in data["goals"])
    print(f"{label}: {sum(misses.values())} of {total} gold members missed")
    for why, n in misses.most_common():
        print(f"  {n:>3}  {why}")
    print(f"  chosen but not gold: {dict(extra)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=shared_data.shared_dir() / "data")
    parser.add_argument("--file", default="teaming-dev-hard.json")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv[1:])
    data = ev.load(shared_data.require(args.data / args.file))
    matcher = build(data)
    breakdown("join rule (committed)", matcher, data, args.list)
    cover = matcher.variant(replace(matcher.calibration, join=None, need_threshold=0.1))
    breakdown("phase A cover rule", cover, data, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
