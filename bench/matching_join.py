"""Fitting and checking the team join rule (ioa_p2p.teaming.join) for bench/bench_matching.py.

The rule is a logistic model over three features of a candidate given the members chosen so far (see
``ioa_p2p/teaming/join.py``). Training samples come from the gold teams: for each goal, the team states
"lead alone" and "lead plus the first gold members" (in goal-score order), and for each state every other
pool candidate, labelled gold or not. Features are standardised for the fit (L2 1.0) and the weights
mapped back to fused units. The threshold is the one with the best recall among thresholds keeping
``MIN_PRECISION`` on the same goals (else the best F1).

``MIN_PRECISION`` is 0.75, the precision issue 14's work accepts for whole-team recall >= 0.85 (phase A's
cover rule was calibrated at 0.78: ``matching_eval.MIN_PRECISION``). At 0.78 the same fit picks threshold
0.2 (recall 0.846, precision 0.816 on dev-hard); ``docs/matching.md`` gives both operating points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ioa_p2p.matching import HybridMatcher
from ioa_p2p.matching.calibration import JOIN_FEATURES, JoinRule
from ioa_p2p.teaming.join import grow_team, in_context, join_features
from ioa_p2p.teaming.offline import PoolScores, score_pool

MIN_PRECISION = 0.75
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 17))


@dataclass
class Scored:
    """One goal's pool scores, computed once (the same calls ``choose_team`` makes)."""

    gold: set[str]
    pool: PoolScores
    needs: list[dict[str, float]]  # per need, in context


def score_goals(matcher: HybridMatcher, data: dict[str, Any], weight: float | None = None) -> list[Scored]:
    w = matcher.calibration.context_weight if weight is None else weight
    out = []
    for goal in data["goals"]:
        pool = score_pool(goal["goal"], matcher)
        needs = [in_context(pool.alone[n.index], pool.goal, w) for n in pool.needs]
        out.append(Scored(set(goal["team"]), pool, needs))
    return out


def samples(scored: Sequence[Scored]) -> tuple[np.ndarray, np.ndarray]:
    x, y = [], []
    for s in scored:
        lead = s.pool.ranked[0].key
        gold = sorted((g for g in s.gold if g != lead and g in s.pool.goal), key=lambda k: -s.pool.goal[k])
        states = [[lead]] + [[lead, *gold[: i + 1]] for i in range(len(gold) - 1)]
        for team in states:
            for key in s.pool.goal:
                if key not in team:
                    f = join_features(key, team, s.pool.goal, s.needs)
                    x.append([f[name] for name in JOIN_FEATURES])
                    y.append(key in s.gold)
    return np.array(x, dtype=float), np.array(y, dtype=float)


def fit_rule(scored: Sequence[Scored], l2: float = 1.0, steps: int = 4000) -> JoinRule:
    x, y = samples(scored)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        w -= 0.5 * (z.T @ (p - y) / len(y) + l2 * w / len(y))
        b -= 0.5 * float(np.mean(p - y))
    weights = w / sd
    offset = b - float(np.sum(w * mu / sd))
    return JoinRule({f: round(float(v), 4) for f, v in zip(JOIN_FEATURES, weights, strict=True)},
                    round(offset, 4))  # fmt: skip


def team_metrics(scored: Sequence[Scored], rule: JoinRule, threshold: float) -> dict[str, float]:
    hit, recall, precision, exact, size = [], [], [], [], []
    for s in scored:
        chosen = grow_team(s.pool.ranked[0].key, s.pool.goal, s.needs, rule, threshold=threshold, max_team=4)
        right = len(s.gold & set(chosen))
        hit.append(chosen[0] in s.gold)
        recall.append(right / len(s.gold))
        precision.append(right / len(chosen))
        exact.append(set(chosen) == s.gold)
        size.append(len(chosen))
    values = {"hit": hit, "recall": recall, "precision": precision, "exact": exact, "size": size}
    return {k: float(np.mean(v)) for k, v in values.items()}


def pick_threshold(scored: Sequence[Scored], rule: JoinRule) -> tuple[float, dict[str, float]]:
    """The threshold with the best recall at precision >= MIN_PRECISION (else the best F1)."""
    best: tuple[tuple[float, float], float, dict[str, float]] | None = None
    for threshold in THRESHOLDS:
        t = team_metrics(scored, rule, threshold)
        f1 = 2 * t["recall"] * t["precision"] / max(t["recall"] + t["precision"], 1e-9)
        key = (t["recall"], t["precision"]) if t["precision"] >= MIN_PRECISION else (f1 - 1.0, 0.0)
        if best is None or key > best[0]:
            best = (key, threshold, t)
    assert best is not None
    return best[1], best[2]


def fit(scored: Sequence[Scored]) -> tuple[JoinRule, float, dict[str, float]]:
    rule = fit_rule(scored)
    threshold, t = pick_threshold(scored, rule)
    return rule, threshold, t
