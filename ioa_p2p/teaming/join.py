"""Who joins the lead: a calibrated rule that grows a team one member at a time (pure).

The offline team (:mod:`~ioa_p2p.teaming.offline`) scores a pool of candidates for the whole goal and for
each of its needs (clauses). Starting from the lead (the goal's best card), the candidate most likely to
belong in the team as well joins while that probability reaches the threshold, up to ``max_team``
members. The probability is a :class:`~ioa_p2p.matching.calibration.JoinRule` over three features of the
candidate *given the members chosen so far*, all in fused units:

- ``goal``: its score for the whole goal (a card that fits the goal at all);
- ``gap``: that score minus the lead's (a strong lead leaves less room for a second member);
- ``advantage``: over the goal's needs, its best lead over every chosen member on one need, the need's
  score read in the goal's context (``(1 - w) * need + w * goal``). A candidate that no need prefers to
  the members already chosen has a negative advantage: what it would bring is covered already, so it
  rarely joins. This is how "a member is added only for a need no chosen member covers" is decided: by
  how much better the candidate covers its best need, weighed with how well it fits the goal, not by a
  hard cut (a hard cut lost recall on the dev data: ``docs/matching.md``).

The weights and the threshold are fitted per matcher on the dev data (``bench/bench_matching.py
--calibrate``) and checked by family cross-validation (``--cv``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ioa_p2p.matching.calibration import ADVANTAGE, GAP, GOAL, JoinRule
from ioa_p2p.teaming.trust import NO_CAPS, TeamCaps

Scores = Mapping[str, float]
#: Fused units (one standard deviation of the matcher's score) by which an unproven candidate must cover
#: some need better than every chosen member to join when the window's unproven slots are given
#: (``TeamCaps.over_total``) and no proven candidate can join in its place.
NEED_MARGIN = 1.0


def in_context(need: Scores, goal: Scores, weight: float) -> dict[str, float]:
    """A need's fused score per card, read in the context of its goal: ``(1 - w) * need + w * goal``."""
    floor = min(goal.values(), default=0.0)
    return {k: (1.0 - weight) * v + weight * goal.get(k, floor) for k, v in need.items()}


def join_features(
    candidate: str, team: Sequence[str], goal: Scores, needs: Sequence[Scores]
) -> dict[str, float]:
    """The join rule's features for ``candidate`` given the chosen ``team`` (lead first).

    ``goal``: fused scores of the pool for the whole goal; ``needs``: per need, fused scores of the pool
    already read in context (:func:`in_context`).
    """
    floor = min(goal.values(), default=0.0)
    own = goal.get(candidate, floor)
    advantage = -1e9
    for scores in needs:
        low = min(scores.values(), default=0.0)
        covered = max((scores.get(k, low) for k in team), default=low)
        advantage = max(advantage, scores.get(candidate, low) - covered)
    if not needs:
        advantage = 0.0
    return {GAP: own - goal.get(team[0], floor), GOAL: own, ADVANTAGE: advantage}


def grow_team(
    lead: str,
    goal: Scores,
    needs: Sequence[Scores],
    rule: JoinRule,
    *,
    threshold: float,
    max_team: int,
    caps: TeamCaps = NO_CAPS,
) -> list[str]:
    """``lead`` and the candidates of ``goal`` that join it, in the order they joined (module docstring).

    ``needs`` are the per-need scores in context (:func:`in_context`); every candidate is a key of
    ``goal``. Ties go to the smaller key, so the choice does not depend on the pool's order. ``caps``
    (:mod:`~ioa_p2p.teaming.trust`): once the team holds ``max_young`` young or ``max_unproven`` unproven
    members, the best candidate that no cap blocks joins in place of a blocked one, if it reaches
    ``threshold``; else the blocked one may (nothing else covers what it brings). While the window's
    unproven slots are given (``caps.over_total``) a blocked unproven candidate yields to the best proven
    one, even a spent one, if it reaches ``threshold``, and whichever of the two it is joins only for a
    need it covers by :data:`NEED_MARGIN` better than every chosen member; else the team is complete.
    """
    team = [lead]
    while len(team) < max_team:
        best: tuple[float, str] | None = None
        settled: tuple[float, str] | None = None  # the best candidate no cap blocks
        unspent: tuple[float, str] | None = None  # the best candidate that is not spent
        known: tuple[float, str] | None = None  # the best candidate that only the exposure bound limits
        for key in sorted(goal):
            if key in team:
                continue
            p = rule.probability(join_features(key, team, goal, needs))
            if best is None or p > best[0]:
                best = (p, key)
            if not caps.blocks(key, team) and (settled is None or p > settled[0]):
                settled = (p, key)
            if caps.capped(key, team):
                continue
            if key not in caps.spent and (unspent is None or p > unspent[0]):
                unspent = (p, key)
            if known is None or p > known[0]:
                known = (p, key)
        if best is None or best[0] < threshold:
            break
        if caps.blocks(best[1], team):
            chosen = stand_in(best, settled, unspent, caps, threshold)
            if chosen == best and caps.over_total(best[1], team):  # nothing uncapped stands in for it
                if known is not None and known[0] >= threshold:
                    chosen = known
                if join_features(chosen[1], team, goal, needs)[ADVANTAGE] < NEED_MARGIN:
                    break  # what it brings is covered: the team is complete
            best = chosen
        team.append(best[1])
    return team


def stand_in(
    best: tuple[float, str],
    settled: tuple[float, str] | None,
    unspent: tuple[float, str] | None,
    caps: TeamCaps,
    threshold: float,
) -> tuple[float, str]:
    """Who joins when the ``best`` candidate (probability, key) is blocked by a cap: the best candidate
    no cap blocks (``settled``) if it reaches ``threshold``; else, when ``best`` is spent (its exposure
    budget used: :mod:`~ioa_p2p.teaming.exposure`), the best candidate that is not spent (``unspent``;
    the young and unproven caps yield to the exposure bound) if it reaches ``threshold``; else ``best``
    itself (nothing else able to join is there)."""
    if settled is not None and settled[0] >= threshold:
        return settled
    if best[1] in caps.spent and unspent is not None and unspent[0] >= threshold:
        return unspent
    return best


__all__ = ["NEED_MARGIN", "grow_team", "in_context", "join_features", "stand_in"]
