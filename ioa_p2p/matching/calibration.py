"""Calibration constants of each matcher: how raw signals become one fused score and a score in [0, 1].

Raw signals live on different scales (a wordllama cosine of 0.3 is high, a MiniLM one is ordinary; BM25 is
unbounded), so each dense signal is standardised with fixed constants, ``(raw - mean) / std``, measured
over every (goal, agent) pair of the hard dev set (``bench/bench_matching.py --calibrate`` prints them).
Fixed constants, unlike per-query z-scores, do not depend on how many cards a node holds. The lexical
signal is BM25 divided by the query's best BM25 score (in [0, 1]). The fused score is the weighted sum;
:meth:`Calibration.probability` maps it through a logistic fitted on the same pairs (gold or not), so
``Match.score`` reads as "how likely this card is a right pick" and thresholds mean the same for every
query and directory size.

Team formation is calibrated per matcher from the dev data too: the :class:`JoinRule` (a logistic model
of "this candidate belongs in the team as well", fitted on the dev goals' gold teams) and the probability
it must reach (:attr:`Calibration.need_threshold`); ``docs/matching.md`` has the fit and its
cross-validation.
Weights are not tuned per data set: each signal counts once (BM25 twice, its [0, 1] range being about
half the spread of a standardised signal); cross-validation over agent families showed tuned weights do
no better on unseen families.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

WORDLLAMA = "wordllama"
MINILM = "minilm"
LEXICAL = "lexical"
LATE = "late"
SIGNALS = (WORDLLAMA, MINILM, LEXICAL, LATE)


#: Features of the join rule (:mod:`~ioa_p2p.teaming.join` computes them), in fused units.
GAP = "gap"  # the candidate's score for the whole goal minus the lead's (<= 0 for the lead's rivals)
GOAL = "goal"  # the candidate's score for the whole goal
ADVANTAGE = "advantage"  # its best lead over the team on one need, read in the goal's context
JOIN_FEATURES = (GAP, GOAL, ADVANTAGE)


def _frozen(values: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(values))


@dataclass(frozen=True, slots=True)
class JoinRule:
    """Logistic model of the probability that a candidate belongs in a team besides the members chosen so
    far: ``1 / (1 + exp(-(sum(weights[f] * features[f]) + offset)))`` over :data:`JOIN_FEATURES`."""

    weights: Mapping[str, float]
    offset: float

    def probability(self, features: Mapping[str, float]) -> float:
        x = self.offset + sum(w * features.get(f, 0.0) for f, w in self.weights.items())
        if x < -60.0:
            return 0.0
        return 1.0 / (1.0 + math.exp(-min(x, 60.0)))


@dataclass(frozen=True, slots=True)
class Calibration:
    """Standardisation, fusion weights, probability map and team thresholds of one matcher."""

    #: signal -> (mean, std) of its raw value over unrelated and related pairs alike.
    standard: Mapping[str, tuple[float, float]]
    #: signal -> weight in the fused score (0 or absent = signal off).
    weights: Mapping[str, float]
    #: logistic map of the fused score: p = 1 / (1 + exp(-(slope * fused + offset))).
    slope: float
    offset: float
    #: a candidate joins the team only when its probability reaches this: the join rule's probability
    #: when there is a :attr:`join` rule, else its need's best-candidate probability (cover rule).
    need_threshold: float = 0.5
    #: cover rule only: a chosen member covers a need when its fused score for it is within this of the
    #: best candidate's.
    cover_margin: float = 1.0
    #: weight of the whole goal in a need's score for a card: (1 - w) * need + w * goal.
    context_weight: float = 0.0
    extra: Mapping[str, float] = field(default_factory=dict)
    #: who else joins the lead (:mod:`~ioa_p2p.teaming.join`); None: the cover rule of phase A.
    join: JoinRule | None = None

    def uses(self, signal: str) -> bool:
        return self.weights.get(signal, 0.0) != 0.0

    def standardise(self, signal: str, raw: float) -> float:
        mean, std = self.standard.get(signal, (0.0, 1.0))
        return (raw - mean) / std

    def probability(self, fused: float) -> float:
        x = self.slope * fused + self.offset
        if x < -60.0:
            return 0.0
        return 1.0 / (1.0 + math.exp(-x))


#: Measured on teaming-dev-hard.json (120 goals x 160 agents) with bench/bench_matching.py --calibrate.
_STANDARD: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        WORDLLAMA: (0.0349, 0.0822),
        MINILM: (0.0545, 0.0901),
        LATE: (0.1368, 0.0488),
    }
)

HYBRID = Calibration(
    standard=_STANDARD,
    weights=_frozen({WORDLLAMA: 1.0, MINILM: 1.0, LEXICAL: 2.0, LATE: 1.0}),
    slope=0.672,
    offset=-7.414,
    need_threshold=0.15,
    cover_margin=2.0,
    context_weight=0.5,
    join=JoinRule({GAP: 0.1164, GOAL: 0.3173, ADVANTAGE: 0.2596}, -3.8417),
)
"""The default matcher: wordllama + MiniLM cosines, BM25, MiniLM late interaction on the shortlist."""

LITE = Calibration(
    standard=_STANDARD,
    weights=_frozen({WORDLLAMA: 1.0, LEXICAL: 1.0}),
    slope=1.584,
    offset=-6.694,
    need_threshold=0.2,
    cover_margin=2.0,
    context_weight=0.25,
    join=JoinRule({GAP: 0.4971, GOAL: 0.8958, ADVANTAGE: 0.467}, -3.9016),
)
"""Without onnxruntime: wordllama cosine + BM25 only."""


__all__ = [
    "ADVANTAGE",
    "GAP",
    "GOAL",
    "HYBRID",
    "JOIN_FEATURES",
    "LATE",
    "LEXICAL",
    "LITE",
    "MINILM",
    "SIGNALS",
    "WORDLLAMA",
    "Calibration",
    "JoinRule",
]
