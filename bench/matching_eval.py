"""Evaluation helpers of bench/bench_matching.py: metrics, calibration fits, family cross-validation."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import matching_join as mj  # bench/ is on sys.path (bench_matching.py)
import numpy as np

from ioa_p2p.matching import LITE, Calibration, HybridMatcher
from ioa_p2p.matching.calibration import LATE, LEXICAL, MINILM, SIGNALS, WORDLLAMA
from ioa_p2p.teaming import choose_team

Chooser = Callable[[str], Sequence[str]]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def ranks(matcher: HybridMatcher, data: dict[str, Any], goals: Sequence[int] | None = None) -> list[int]:
    n = len(data["agents"])
    out = []
    for i in goals if goals is not None else range(len(data["goals"])):
        goal = data["goals"][i]
        ranked = [m.key for m in matcher.rank(goal["goal"], n)]
        out.append(min((ranked.index(g) + 1 for g in goal["team"] if g in ranked), default=n + 1))
    return out


def ranking(
    matcher: HybridMatcher, data: dict[str, Any], goals: Sequence[int] | None = None
) -> dict[str, float]:
    r = np.array(ranks(matcher, data, goals))
    return {"top1": float(np.mean(r == 1)), "top5": float(np.mean(r <= 5)),
            "top10": float(np.mean(r <= 10)), "mrr": float(np.mean(1.0 / r))}  # fmt: skip


def teams(choose: Chooser, data: dict[str, Any], goals: Sequence[int] | None = None) -> dict[str, float]:
    hit, recall, precision, exact, size = [], [], [], [], []
    for i in goals if goals is not None else range(len(data["goals"])):
        goal = data["goals"][i]
        gold, chosen = set(goal["team"]), list(choose(goal["goal"]))
        right = len(gold & set(chosen))
        hit.append(bool(chosen) and chosen[0] in gold)
        recall.append(right / len(gold))
        precision.append(right / len(chosen) if chosen else 0.0)
        exact.append(set(chosen) == gold)
        size.append(len(chosen))
    values = {"hit": hit, "recall": recall, "precision": precision, "exact": exact, "size": size}
    return {k: float(np.mean(v)) for k, v in values.items()}


def team_row(t: dict[str, float]) -> str:
    return (f"{t['hit']:>5.3f} {t['recall']:>6.3f} {t['precision']:>5.3f} {t['exact']:>5.3f} "
            f"{t['size']:>4.2f}")  # fmt: skip


# ----------------------------------------------------------------------------- calibration


def all_pairs(matcher: HybridMatcher, data: dict[str, Any]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Raw signal matrices (goals x agents) with late interaction over every card, and the gold mask."""
    names = [a["name"] for a in data["agents"]]
    full = HybridMatcher(matcher.calibration, shortlist=len(names))
    full.index({a["name"]: matcher._profiles[a["name"]] for a in data["agents"]})  # noqa: SLF001
    raw = {s: np.zeros((len(data["goals"]), len(names))) for s in SIGNALS}
    gold = np.zeros_like(raw[WORDLLAMA], dtype=bool)
    for i, goal in enumerate(data["goals"]):
        for m in full.rank(goal["goal"], len(names)):
            for s in SIGNALS:
                raw[s][i, names.index(m.key)] = m.parts.get(s, 0.0)
        for g in goal["team"]:
            gold[i, names.index(g)] = True
    return raw, gold


def fused(raw: dict[str, np.ndarray], cal: Calibration) -> np.ndarray:
    out = np.zeros_like(raw[WORDLLAMA])
    for s, w in cal.weights.items():
        if w:
            out += w * (raw[s] if s == LEXICAL else (raw[s] - cal.standard[s][0]) / cal.standard[s][1])
    return out


def logistic_fit(x: np.ndarray, y: np.ndarray, steps: int = 3000) -> tuple[float, float]:
    a, b = 1.0, -5.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(a * x + b)))
        ga, gb = float(np.mean((p - y) * x)), float(np.mean(p - y))
        a, b = a - 0.05 * ga, b - 0.5 * gb
    return a, b


#: Precision a calibrated team setting must keep; among those, the one with the best recall is chosen.
MIN_PRECISION = 0.78
TEAM_GRID = {
    "context_weight": (0.0, 0.25, 0.5),
    "need_threshold": (0.05, 0.1, 0.2, 0.35, 0.5),
    "cover_margin": (0.5, 1.0, 2.0, 3.0),
}


def team_grid(
    matcher: HybridMatcher, data: dict[str, Any], goals: Sequence[int] | None = None
) -> list[tuple[float, dict[str, float], dict[str, float]]]:
    """Every team setting of :data:`TEAM_GRID` with its metrics, best first: the highest recall among
    settings keeping :data:`MIN_PRECISION` (ties: precision), then the others by F1."""
    rows = []
    for values in itertools.product(*TEAM_GRID.values()):
        setting = dict(zip(TEAM_GRID, values, strict=True))

        def chooser(g: str, s: dict[str, float] = setting) -> Sequence[str]:
            return choose_team(g, matcher, **s).keys

        t = teams(chooser, data, goals)
        f1 = 2 * t["recall"] * t["precision"] / max(t["recall"] + t["precision"], 1e-9)
        key = (t["recall"], t["precision"]) if t["precision"] >= MIN_PRECISION else (f1 - 1.0, 0.0)
        rows.append((key, setting, t))
    rows.sort(key=lambda r: r[0], reverse=True)
    return [(2 * t["recall"] * t["precision"] / max(t["recall"] + t["precision"], 1e-9), s, t)
            for _, s, t in rows]  # fmt: skip


def calibrate(matcher: HybridMatcher, data: dict[str, Any]) -> None:
    raw, gold = all_pairs(matcher, data)
    print("standardisation (mean, std) over all goal x agent pairs:")
    for s in (WORDLLAMA, MINILM, LATE):
        print(f"  {s:<10} ({raw[s].mean():.4f}, {raw[s].std():.4f})")
    cal = matcher.calibration
    standard = {s: (float(raw[s].mean()), float(raw[s].std())) for s in (WORDLLAMA, MINILM, LATE)}
    lite = LITE
    for label, weights in (("hybrid", cal.weights), ("lite", {WORDLLAMA: 1.0, LEXICAL: 1.0})):
        c = Calibration(standard, weights, 1.0, 0.0)
        x, y = fused(raw, c).ravel(), gold.ravel().astype(float)
        a, b = logistic_fit(x, y)
        print(f"{label}: logistic slope {a:.3f} offset {b:.3f} (fused mean {x.mean():.2f}, gold mean "
              f"{x[y == 1].mean():.2f})")  # fmt: skip
    print(f"join rule (best recall at precision >= {mj.MIN_PRECISION} over thresholds {mj.THRESHOLDS}):")
    for variant, c in (("hybrid", matcher.calibration), ("lite", lite)):
        rule, threshold, t = mj.fit(mj.score_goals(matcher.variant(c), data))
        print(f"  {variant}: JoinRule({dict(rule.weights)}, offset {rule.offset}) need_threshold {threshold}"
              f"  {team_row(t)}")  # fmt: skip
    print("cover rule (calibrations without a join rule), best first:")
    for variant, c in (
        ("hybrid", replace(matcher.calibration, join=None)),
        ("lite", replace(lite, join=None)),
    ):
        print(f"  {variant}:")
        for f1, setting, t in team_grid(matcher.variant(c), data)[:3]:
            print(f"    {setting}  F1 {f1:.3f}  {team_row(t)}")


# ----------------------------------------------------------------------------- cross-validation


def families(matcher: HybridMatcher, data: dict[str, Any], count: int = 35) -> dict[str, int]:
    """Agents clustered into ``count`` families (average linkage on the hybrid card vectors)."""
    names = [a["name"] for a in data["agents"]]
    vectors = matcher.card_vectors([matcher._profiles[n] for n in names])  # noqa: SLF001
    sim = vectors @ vectors.T
    clusters = [[i] for i in range(len(names))]
    while len(clusters) > count:
        best = max(((sim[np.ix_(a, b)].mean(), i, j) for i, a in enumerate(clusters)
                    for j, b in enumerate(clusters) if i < j))  # fmt: skip
        _, i, j = best
        clusters[i] += clusters.pop(j)
    return {names[i]: k for k, c in enumerate(clusters) for i in c}


def family_halves(
    matcher: HybridMatcher, data: dict[str, Any], reps: int = 10
) -> list[tuple[list[int], list[int]]]:
    """``reps`` random halvings of the agent families: (train goals, test goals), seeded."""
    family = families(matcher, data)
    goal_family = [family[g["team"][0]] for g in data["goals"]]
    rng = np.random.default_rng(14)
    out = []
    for _ in range(reps):
        fams = sorted(set(goal_family))
        rng.shuffle(fams)
        half = set(fams[: len(fams) // 2])
        out.append(([i for i, f in enumerate(goal_family) if f in half],
                     [i for i, f in enumerate(goal_family) if f not in half]))  # fmt: skip
    return out


def cross_validate(
    matcher: HybridMatcher,
    data: dict[str, Any],
    variants: dict[str, Calibration],
    *,
    ranking_weights: bool = True,
) -> None:
    """Family cross-validation: the join rule (and with ``ranking_weights`` the fusion weights, slow:
    every weight setting re-encodes the goals) fitted on the goals of half the families, tested on the
    other half, next to the committed settings on the same halves."""
    grid = [{WORDLLAMA: a, MINILM: b, LEXICAL: c, LATE: d} for a in (0.5, 1) for b in (0.5, 1)
            for c in (0, 1, 2, 3) for d in (0, 0.5, 1, 2) if a + b + d > 0]  # fmt: skip
    base = matcher.calibration
    assert base.join is not None
    scored = mj.score_goals(matcher, data)
    cover = matcher.variant(replace(base, join=None, need_threshold=0.1))
    rows = []
    for rep, (train, test) in enumerate(family_halves(matcher, data)):

        def score(weights: dict[str, float], goals: list[int]) -> dict[str, float]:
            cal = Calibration(base.standard, weights, base.slope, base.offset)
            return ranking(matcher.variant(cal), data, goals)

        rule, threshold, _ = mj.fit([scored[i] for i in train])
        test_scored = [scored[i] for i in test]
        row = {"team": mj.team_metrics(test_scored, rule, threshold),
               "team_default": mj.team_metrics(test_scored, base.join, base.need_threshold),
               "team_cover": teams(lambda g: choose_team(g, cover).keys, data, test)}  # fmt: skip
        print(f"split {rep}: train {len(train)} goals, test {len(test)}; join rule fitted on train "
              f"{dict(rule.weights)} offset {rule.offset} threshold {threshold}")  # fmt: skip
        if ranking_weights:
            tuned = max(grid, key=lambda w: (lambda r: r["top1"] + r["mrr"])(score(w, train)))
            row |= {"tuned": score(tuned, test), "default": score(dict(base.weights), test),
                    "wordllama": score({WORDLLAMA: 1.0}, test)}  # fmt: skip
            print(f"   weights tuned on train {tuned}")
            for k in ("tuned", "default", "wordllama"):
                print(f"   test {k:<10} Top@1 {row[k]['top1']:.3f} MRR {row[k]['mrr']:.3f}")
        print(f"   test team (join rule fitted on train) {team_row(row['team'])}")
        print(f"   test team (committed join rule)       {team_row(row['team_default'])}")
        print(f"   test team (phase A cover rule)        {team_row(row['team_cover'])}", flush=True)
        rows.append(row)
    for k in ("tuned", "default", "wordllama") if ranking_weights else ():
        print(f"mean over splits, {k:<10}: Top@1 {np.mean([r[k]['top1'] for r in rows]):.3f} "
              f"MRR {np.mean([r[k]['mrr'] for r in rows]):.3f}")  # fmt: skip
    for k, label in (("team", "join rule fitted on train"), ("team_default", "committed join rule"),
                     ("team_cover", "phase A cover rule")):  # fmt: skip
        mean = {m: float(np.mean([r[k][m] for r in rows])) for m in rows[0][k]}
        print(f"mean over splits, team ({label}): hit recall prec exact size {team_row(mean)}")
