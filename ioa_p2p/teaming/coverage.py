"""Ability coverage (pure): a team can do every step of the goal's plan.

After the offline team is chosen (:func:`~ioa_p2p.teaming.offline.choose_team`), :func:`cover_steps`
adds, up to ``max_team`` members:

1. for each step kind of the offline plan with known abilities (:data:`~ioa_p2p.planning.ABILITIES`:
   ``calc`` needs ``arithmetic``/``math``...), the best-scoring candidate able to do it when no member
   is (:func:`add_able`);
2. each step's best agent by the step's own words (``best[i]``, ranked by the caller), when it reaches
   ``threshold`` and is not in the team yet (:func:`add_best`): a converter for "convert 12 miles to km",
   so a step is never left to an agent that merely accepts any text.

Both respect the team caps of :mod:`~ioa_p2p.teaming.trust` (:class:`~ioa_p2p.teaming.trust.TeamCaps`:
young and unproven members): an able candidate that a cap blocks joins only when no able candidate
is unblocked (nothing else can do the step); a step's best agent that a cap blocks is not added (the
step is left to the members, and an able one was added by the first rule).
"""

from __future__ import annotations

from collections.abc import Sequence

from ioa_p2p.planning import ABILITIES, PlanStep
from ioa_p2p.teaming.candidates import Candidate
from ioa_p2p.teaming.trust import NO_CAPS, TeamCaps


def step_abilities(steps: Sequence[PlanStep]) -> list[tuple[str, ...]]:
    """The ability sets the plan's step kinds need (one per kind that needs any), in a stable order."""
    kinds = sorted({step.kind for step in steps})
    return [tuple(ABILITIES[k]) for k in kinds if ABILITIES.get(k)]


def add_able(
    members: Sequence[Candidate],
    pool: Sequence[Candidate],
    wanted: Sequence[Sequence[str]],
    *,
    max_team: int,
    caps: TeamCaps = NO_CAPS,
) -> list[Candidate]:
    """``members`` plus, for each ability set in ``wanted`` that no member has, the best-scoring candidate
    of ``pool`` that has one of them (the plan's steps need someone able to do them), up to ``max_team``;
    one that ``caps`` blocks only when every able candidate is blocked, never a ``barred`` one."""
    team = list(members)
    for abilities in wanted:
        want = {a.lower() for a in abilities}
        if not want or any(want & {a.lower() for a in m.abilities} for m in team):
            continue
        able = sorted((c for c in pool if want & {a.lower() for a in c.abilities}), key=lambda c: -c.score)
        fresh = [
            c
            for c in able
            if c.peer_id not in {m.peer_id for m in team} and str(c.peer_id) not in caps.barred
        ]
        keys = [str(m.peer_id) for m in team]
        open_ = [c for c in fresh if not caps.blocks(str(c.peer_id), keys)]
        if (open_ or fresh) and len(team) < max_team:
            team.append((open_ or fresh)[0])
    return team


def add_best(
    members: Sequence[Candidate],
    best: Sequence[Candidate | None],
    *,
    max_team: int,
    threshold: float,
    caps: TeamCaps = NO_CAPS,
) -> list[Candidate]:
    """``members`` plus each step's best agent (``best[i]``: the best-ranked card for step i's own words,
    None when none) that is not in the team yet and reaches ``threshold``, up to ``max_team``: a team
    covers every planned step's best agent, so a step is never left to an agent that merely accepts any
    text. A best agent that ``caps`` blocks is left out."""
    team = list(members)
    for c in best:
        if c is None or c.score < threshold or any(m.peer_id == c.peer_id for m in team):
            continue
        if caps.blocks(str(c.peer_id), [str(m.peer_id) for m in team]):
            continue
        if len(team) < max_team:
            team.append(c)
    return team


def cover_steps(
    members: Sequence[Candidate],
    pool: Sequence[Candidate],
    steps: Sequence[PlanStep],
    best: Sequence[Candidate | None],
    *,
    max_team: int,
    threshold: float,
    caps: TeamCaps = NO_CAPS,
) -> list[Candidate]:
    """``members`` completed so the team covers the plan's ``steps`` (see the module docstring)."""
    team = add_able(members, pool, step_abilities(steps), max_team=max_team, caps=caps)
    return add_best(team, best, max_team=max_team, threshold=threshold, caps=caps)


__all__ = ["add_able", "add_best", "cover_steps", "step_abilities"]
