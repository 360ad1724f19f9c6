"""The offline team: who should work on a goal, and which need each member covers, by the matcher (pure).

1. The goal as a whole is ranked; its best card is the first member (the lead pick, what ``find`` shows).
2. The goal is cut into needs, its clauses (:func:`~ioa_p2p.matching.goals.split_goal`), and every need
   is scored over a pool: the goal's ``pool`` best cards plus each need's ``need_pool`` best cards.
3. A clause alone says too little ("where is my package really" reads like software packages), so a
   need's score for a card is read in the context of its goal: ``(1 - w) * need + w * goal`` (fused
   units), with ``w`` the calibration's :attr:`~ioa_p2p.matching.Calibration.context_weight`.
4. Members join the lead one at a time (:mod:`~ioa_p2p.teaming.join`): the candidate most likely to
   belong in the team as well, by the calibration's :class:`~ioa_p2p.matching.calibration.JoinRule`
   (its fit to the goal, its gap to the lead, and how much better than every chosen member it covers
   its best need), joins while that probability reaches ``need_threshold``, up to ``max_team``.
   Calibrations without a join rule keep phase A's *cover rule* (:func:`_cover_rule`): a need adds its
   best candidate only when no chosen member comes within ``cover_margin`` of it.
5. Each need is reported with the member that covers it best (or none).

Against a crowd of identities (:mod:`~ioa_p2p.teaming.trust`, :mod:`~ioa_p2p.teaming.kin`,
:mod:`~ioa_p2p.teaming.exposure`): with team caps or kinship the pools are :data:`CAPPED_WIDEN` times
larger; near-duplicate cards count as one (only a group's leader stays in the pool: :func:`without`)
and share one exposure budget (:func:`shared_spent`); a young, unproven or spent best card leads only
when no less limited card comes within :data:`LEAD_MARGIN` of it (:func:`lead_first`); a spent member's
scores lose :data:`SPENT_PENALTY` (:func:`lowered`), or with a strict bound it is left out.

The join rule, ``need_threshold``, ``cover_margin`` and ``context_weight`` are calibrated per matcher on
the dev data (``bench/bench_matching.py --calibrate``); callers may override them.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ioa_p2p.errors import UsageError
from ioa_p2p.matching.base import Match, Matcher
from ioa_p2p.matching.calibration import Calibration, JoinRule
from ioa_p2p.matching.goals import Need, split_goal
from ioa_p2p.teaming.join import grow_team, in_context
from ioa_p2p.teaming.kin import Kinship
from ioa_p2p.teaming.trust import NO_CAPS, TeamCaps

POOL = 12  # best cards for the whole goal that may join (their need scores decide)
NEED_POOL = 4  # best cards of each need that may join too
#: With team caps in force, the pools are this many times larger: ten paraphrases of a card, all
#: unproven, would otherwise fill a need's pool and leave out the proven card a cap should pick instead.
CAPPED_WIDEN = 4
#: Fused units within which a card no cap limits leads instead of a better young or unproven card (one
#: standard deviation of the matcher's score, like ``young_penalty``).
LEAD_MARGIN = 1.0
#: Fused units off a spent member's scores (its exposure budget used: :mod:`~ioa_p2p.teaming.exposure`;
#: one standard deviation, like ``LEAD_MARGIN``): it joins only when it is still needed after it.
SPENT_PENALTY = 1.0
#: How many times :data:`LEAD_MARGIN` an unproven best card must lead by while the window's unproven slots
#: are given (``TeamCaps.closed_to``: :mod:`~ioa_p2p.teaming.exposure`): it leads only when clearly better
#: than any proven card.
CLOSED_LEAD_FACTOR = 2.0


@dataclass(frozen=True, slots=True)
class Member:
    """A chosen teammate: its key, its calibrated score for the goal and the needs it covers."""

    key: str
    score: float
    needs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NeedCover:
    need: str
    key: str  # "" when no member covers it
    score: float  # calibrated score of that member (or of the best candidate when uncovered)


@dataclass(frozen=True, slots=True)
class TeamPick:
    members: tuple[Member, ...]
    coverage: tuple[NeedCover, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.members)


@dataclass(frozen=True, slots=True)
class PoolScores:
    """What team formation knows of a goal: the lead's ranking, the needs, and the pool's fused scores
    for the whole goal and for each need's own text (``alone``, keyed by :attr:`Need.index`)."""

    ranked: tuple[Match, ...]
    needs: tuple[Need, ...]
    goal: Mapping[str, float]
    alone: Mapping[int, Mapping[str, float]]


def score_pool(
    goal: str,
    matcher: Matcher,
    *,
    among: Collection[str] | None = None,
    exclude: Collection[str] = (),
    pool: int = POOL,
    need_pool: int = NEED_POOL,
) -> PoolScores:
    """Steps 1-2 of the module docstring: the goal's ranking, its needs and the pool's scores."""
    candidates = _allowed(among, exclude)
    ranked = tuple(m for m in matcher.rank(goal, pool, among=candidates) if m.key not in exclude)
    needs = split_goal(goal)
    if not ranked:
        return PoolScores((), needs, {}, {})
    keys = {m.key for m in ranked}
    for need in needs if need_pool else ():
        keys.update(
            m.key for m in matcher.rank(need.text, need_pool, among=candidates) if m.key not in exclude
        )
    goal_scores = {m.key: m.fused for m in matcher.rank(goal, len(keys), among=keys)}
    alone = {n.index: {m.key: m.fused for m in matcher.rank(n.text, len(keys), among=keys)} for n in needs}
    return PoolScores(ranked, needs, goal_scores, alone)


def choose_team(
    goal: str,
    matcher: Matcher,
    *,
    among: Collection[str] | None = None,
    exclude: Collection[str] = (),
    max_team: int = 4,
    need_threshold: float | None = None,
    cover_margin: float | None = None,
    context_weight: float | None = None,
    pool: int = POOL,
    need_pool: int = NEED_POOL,
    join: JoinRule | None = None,
    caps: TeamCaps = NO_CAPS,
    kin: Kinship | None = None,
    lead_margin: float | None = LEAD_MARGIN,
) -> TeamPick:
    """Pick 1..``max_team`` members for ``goal`` from the matcher's cards (see the module docstring).

    ``join`` overrides the calibration's join rule (benchmarks); ``need_threshold`` is the probability a
    candidate must reach to join (the join rule's, or with no join rule the cover rule's). ``caps``: at
    most ``max_young`` young and ``max_unproven`` unproven members unless nothing else covers the need
    (:mod:`~ioa_p2p.teaming.trust`; a young card's score penalty is the matcher's prior, set by the caller),
    the lead included: a young or unproven best card leads only when no card the caps leave alone comes
    within ``lead_margin`` (None: the best card always leads). ``kin``: near-duplicate cards count as
    one, their leader (:mod:`~ioa_p2p.teaming.kin`).
    """
    if max_team < 1:
        raise UsageError("max_team must be at least 1")
    cal = matcher.calibration
    threshold = cal.need_threshold if need_threshold is None else need_threshold
    margin = cal.cover_margin if cover_margin is None else cover_margin
    weight = cal.context_weight if context_weight is None else context_weight
    rule = cal.join if join is None else join
    if caps.active or kin is not None:  # a crowd of near-copies must not hide the others
        pool, need_pool = pool * CAPPED_WIDEN, need_pool * CAPPED_WIDEN
    scored = score_pool(goal, matcher, among=among, exclude=exclude, pool=pool, need_pool=need_pool)
    if kin is not None:
        followers = kin.followers(list(scored.goal))
        scored = without(scored, followers)
        caps = shared_spent(caps, followers)
    if lead_margin is not None:
        scored = lead_first(scored, caps, lead_margin)
    if caps.spent and scored.ranked:  # a spent identity may lead; as a member it must be clearly needed
        spent = caps.spent - {scored.ranked[0].key}
        barred = spent if caps.strict else spent & caps.barred
        scored = lowered(without(scored, barred), spent - barred, SPENT_PENALTY)
    ranked, needs = scored.ranked, scored.needs
    if not ranked:
        return TeamPick((), tuple(NeedCover(n.text, "", 0.0) for n in needs))
    table = {i: in_context(scores, scored.goal, weight) for i, scores in scored.alone.items()}
    if rule is not None:
        chosen = grow_team(
            ranked[0].key,
            scored.goal,
            [table[n.index] for n in needs],
            rule,
            threshold=threshold,
            max_team=max_team,
            caps=caps,
        )
    else:
        chosen = _cover_rule(ranked[0].key, scored, table, cal, (threshold, margin, max_team), caps)
    return _pick(chosen, ranked, needs, table, cal)


def shared_spent(caps: TeamCaps, followers: Mapping[str, str]) -> TeamCaps:
    """``caps`` with a kin group's leader spent when one of its followers is: near-duplicates share one
    exposure budget (a family that takes turns among its identities is still one candidate)."""
    spent = {leader for follower, leader in followers.items() if follower in caps.spent}
    if spent <= caps.spent:
        return caps
    return replace(caps, spent=caps.spent | spent)


def lowered(scored: PoolScores, keys: Collection[str], penalty: float) -> PoolScores:
    """``scored`` with ``penalty`` fused units off the goal and need scores of ``keys`` (spent members)."""
    if not keys or not penalty:
        return scored
    low = frozenset(keys)

    def down(scores: Mapping[str, float]) -> dict[str, float]:
        return {k: v - penalty if k in low else v for k, v in scores.items()}

    alone = {i: down(s) for i, s in scored.alone.items()}
    return PoolScores(scored.ranked, scored.needs, down(scored.goal), alone)


def without(scored: PoolScores, left_out: Collection[str]) -> PoolScores:
    """``scored`` without the ``left_out`` keys (kin that follow a leader of the pool)."""
    if not left_out:
        return scored
    gone = frozenset(left_out)
    ranked = tuple(m for m in scored.ranked if m.key not in gone)
    goal = {k: v for k, v in scored.goal.items() if k not in gone}
    alone = {i: {k: v for k, v in s.items() if k not in gone} for i, s in scored.alone.items()}
    return PoolScores(ranked, scored.needs, goal, alone)


def lead_first(scored: PoolScores, caps: TeamCaps, margin: float = LEAD_MARGIN) -> PoolScores:
    """``scored`` with the lead moved to the front of its ranking: the goal's best card, unless a cap
    limits it (young, unproven or spent) and a less limited card (:meth:`TeamCaps.tier`) comes within
    ``margin`` of it (fused score for the goal); the best of the least limited such cards leads then (a
    crowd of unproven cards does not win the lead that a proven card about as good would take, and a
    spent identity does not lead while an unspent one about as good is there). While the window's
    unproven slots are given (``caps.closed_to``) an unproven best card must lead by
    :data:`CLOSED_LEAD_FACTOR` times ``margin``."""
    ranked = scored.ranked
    if not ranked or not caps.limited(ranked[0].key):
        return scored
    if caps.closed_to(ranked[0].key):
        margin *= CLOSED_LEAD_FACTOR
    best, tier = scored.goal.get(ranked[0].key, ranked[0].fused), caps.tier(ranked[0].key)
    choice: int | None = None
    for i, match in enumerate(ranked[1:], start=1):
        if scored.goal.get(match.key, match.fused) < best - margin:
            break
        if caps.tier(match.key) < tier:
            choice, tier = i, caps.tier(match.key)
            if tier == 0:
                break
    if choice is None:
        return scored
    moved = (ranked[choice], *ranked[:choice], *ranked[choice + 1 :])
    return PoolScores(moved, scored.needs, scored.goal, scored.alone)


def _cover_rule(
    lead: str,
    scored: PoolScores,
    table: Mapping[int, Mapping[str, float]],
    cal: Calibration,
    limits: tuple[float, float, int],
    caps: TeamCaps,
) -> list[str]:
    """Phase A's rule (calibrations without a join rule): needs from the most confidently matched; a
    need adds its best card when no chosen member comes within ``margin`` of it on the need's own text
    and that card's probability in context reaches ``threshold`` (``limits``: threshold, margin,
    max_team). Past a cap of ``caps``, the need's best card that no cap blocks stands in for its best
    card when it reaches ``threshold``."""
    threshold, margin, max_team = limits
    chosen = [lead]
    for need in sorted(scored.needs, key=lambda n: -max(table[n.index].values(), default=0.0)):
        scores = table[need.index]
        if not scores or len(chosen) >= max_team:
            continue
        best = max(scores, key=lambda k: (scores[k], k))
        settled = [k for k in scores if not caps.blocks(k, chosen) and k not in chosen]
        unspent = [k for k in scores if k not in caps.spent and k not in chosen]
        if caps.blocks(best, chosen):
            for others in (settled, unspent if best in caps.spent else []):
                alternative = max(others, key=lambda k: (scores[k], k), default=None)
                if alternative is not None and cal.probability(scores[alternative]) >= threshold:
                    best = alternative
                    break
        if best in chosen:
            continue
        own = scored.alone[need.index]  # covered: a member is about as good for the need itself
        if max(own.get(k, -math.inf) for k in chosen) >= own[best] - margin:
            continue
        if cal.probability(scores[best]) >= threshold:
            chosen.append(best)
    return chosen


def _allowed(among: Collection[str] | None, exclude: Collection[str]) -> Collection[str] | None:
    if not exclude:
        return among
    if among is None:
        return None  # excluded keys are filtered from the results instead
    return [k for k in among if k not in exclude]


def _pick(
    chosen: list[str],
    ranked: Sequence[Match],
    needs: Sequence[Need],
    table: Mapping[int, Mapping[str, float]],
    cal: Calibration,
) -> TeamPick:
    goal_scores = {m.key: m.score for m in ranked}
    covers: dict[str, list[str]] = {k: [] for k in chosen}
    coverage = []
    for need in needs:
        scores = table[need.index]
        present = [k for k in chosen if k in scores]
        if not present:
            best = max(scores.values(), default=None)
            coverage.append(NeedCover(need.text, "", 0.0 if best is None else cal.probability(best)))
            continue
        key = max(present, key=lambda k: scores[k])
        covers[key].append(need.text)
        coverage.append(NeedCover(need.text, key, cal.probability(scores[key])))
    members = tuple(Member(k, goal_scores.get(k, 0.0), tuple(covers[k])) for k in chosen)
    return TeamPick(members, tuple(coverage))


def team_shortlist(
    goal: str,
    matcher: Matcher,
    *,
    size: int = 10,
    among: Collection[str] | None = None,
    exclude: Collection[str] = (),
    pick: TeamPick | None = None,
) -> tuple[str, ...]:
    """The cards an LLM may choose a team from for ``goal``, chosen offline, best first (at most ``size``).

    The offline team (``pick``, or :func:`choose_team`'s) comes first, then the goal's ranking and each
    need's ranking in turns (the goal's next card, each need's next card, ...), without repeats. The LLM
    never sees the whole directory; its choice is checked against this list by the caller.
    """
    if size < 1:
        raise UsageError("the shortlist must hold at least one card")
    pick = pick if pick is not None else choose_team(goal, matcher, among=among, exclude=exclude)
    candidates = _allowed(among, exclude)
    lists = [matcher.rank(goal, size, among=candidates)]
    lists += [matcher.rank(n.text, size, among=candidates) for n in split_goal(goal)]
    out = dict.fromkeys(k for k in pick.keys if k not in exclude)
    for turn in range(size):
        for ranked in lists:
            if turn < len(ranked) and ranked[turn].key not in exclude:
                out.setdefault(ranked[turn].key)
    return tuple(out)[:size]


__all__ = [
    "CAPPED_WIDEN",
    "LEAD_MARGIN",
    "NEED_POOL",
    "SPENT_PENALTY",
    "CLOSED_LEAD_FACTOR",
    "POOL",
    "Member",
    "NeedCover",
    "PoolScores",
    "TeamPick",
    "choose_team",
    "lead_first",
    "lowered",
    "score_pool",
    "shared_spent",
    "team_shortlist",
    "without",
]
