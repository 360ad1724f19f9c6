"""Offline matching research bench: ranking and team formation per method and data file, plus costs.

    .venv/bin/python bench/bench_matching.py [--data DIR] [--files a.json,b.json] [--cost] [--cv] [--cv-teams]
                                             [--calibrate] [--find-cards 10000]

``--data`` defaults to ``<shared>/data`` (``bench/shared_data.py``: ``$IOA_SHARED``, else the nearest
``shared/`` folder beside the repository or one of its parents, i.e. ``../shared`` from a checkout).
Every agent of a file becomes a :class:`~ioa_p2p.matching.CardProfile` from its name and description only
(the held-out sets carry nothing else); each goal is a query.

Ranking: Top@1, Top@5, Top@10 and MRR of the best-ranked gold member. Team formation (``choose_team``):
hit (first member gold), recall (share of the gold team chosen, mean over goals), precision, exact (the
chosen team is the gold team) and mean team size. Methods are variants of one index (``variant``):
signal subsets of the hybrid matcher (the team choice is the node's: :func:`ioa_p2p.teaming.choose_team`).

``--calibrate`` prints the standardisation constants, the logistic map and the team thresholds fitted on
the first file (the hard dev set). ``--cv`` runs the family cross-validation (agents clustered into 35
families; 10 random halvings: weights and team thresholds tuned on the goals of half the families, tested
on the other half; ``--cv-teams``: the same without the fusion weights, minutes instead of hours).
``--cost`` prints install sizes, load time, RSS, ms per card and per query, and
``find`` latency over ``--find-cards`` synthetic cards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ioa_p2p.matching import HYBRID, LITE, Calibration, CardProfile, HybridMatcher
from ioa_p2p.matching.calibration import LEXICAL, MINILM, WORDLLAMA
from ioa_p2p.teaming import choose_team

sys.path.insert(0, str(Path(__file__).parent))
import matching_cost  # noqa: E402
import matching_eval as ev  # noqa: E402
import shared_data  # noqa: E402

DEFAULT_DATA = shared_data.shared_dir() / "data"
FILES = ("teaming-dev-hard.json", "teaming-dev.json")


def variants() -> dict[str, Calibration]:
    def only(**weights: float) -> Calibration:
        return Calibration(HYBRID.standard, weights, HYBRID.slope, HYBRID.offset, HYBRID.need_threshold,
                           HYBRID.cover_margin, HYBRID.context_weight, join=HYBRID.join)  # fmt: skip

    return {
        "wordllama (current)": only(**{WORDLLAMA: 1.0}),
        "minilm-int8": only(**{MINILM: 1.0}),
        "bm25": only(**{LEXICAL: 1.0}),
        "wordllama+minilm": only(**{WORDLLAMA: 1.0, MINILM: 1.0}),
        "lite: wordllama+bm25": LITE,
        "wordllama+minilm+bm25": only(**{WORDLLAMA: 1.0, MINILM: 1.0, LEXICAL: 2.0}),
        "hybrid (+late on shortlist)": HYBRID,
    }


def build(data: dict[str, Any]) -> HybridMatcher:
    matcher = HybridMatcher(HYBRID, query_cache=100_000)
    matcher.index({a["name"]: CardProfile.from_mapping(a) for a in data["agents"]})
    return matcher


def report(data_dir: Path, files: list[str]) -> None:
    print(f"{'file':<22} {'method':<28} {'Top@1':>6} {'Top@5':>6} {'Top@10':>6} {'MRR':>6} | "
          f"{'hit':>5} {'recall':>6} {'prec':>5} {'exact':>5} {'size':>4}")  # fmt: skip
    for name in files:
        data = ev.load(data_dir / name)
        base = build(data)
        for label, cal in variants().items():
            matcher = base.variant(cal)
            r = ev.ranking(matcher, data)
            t = ev.teams(lambda goal, m=matcher: choose_team(goal, m).keys, data)
            print(f"{name:<22} {label:<28} {r['top1']:>6.3f} {r['top5']:>6.3f} {r['top10']:>6.3f} "
                  f"{r['mrr']:>6.3f} | {ev.team_row(t)}")  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--cv-teams", action="store_true", help="--cv without the (slow) fusion-weight grid")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--find-cards", type=int, default=10_000)
    args = parser.parse_args(argv[1:])
    files = [f for f in args.files.split(",") if (args.data / f).exists()]
    if not files:
        print(f"no teaming data under {args.data}; nothing to measure (pass --data DIR)")
        return 0
    if args.cost:
        matching_cost.report(ev.load(args.data / files[0]), args.find_cards)
        return 0
    if args.calibrate:
        data = ev.load(args.data / files[0])
        ev.calibrate(build(data), data)
        return 0
    if args.cv or args.cv_teams:
        data = ev.load(args.data / files[0])
        ev.cross_validate(build(data), data, variants(), ranking_weights=args.cv)
        return 0
    report(args.data, files)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
