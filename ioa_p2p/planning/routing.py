"""Which member does a step (pure): abilities first, wording second.

A member's abilities are its card's ``task_types`` (an open vocabulary; docs/adapters.md). A step of a kind
with known abilities (:data:`~ioa_p2p.planning.types.ABILITIES`) goes first to the members declaring one of
them, then to the other members that run an adapter, then to members without one (who could only delegate,
and only when no member is able to do the step); within each group by the similarity the caller measured
between the step's words and the member's card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.planning.types import ABILITIES, PlanStep


@dataclass(frozen=True, slots=True)
class Candidate:
    peer_id: str
    abilities: tuple[str, ...]
    works: bool  # runs an adapter


def able(step: PlanStep, abilities: Sequence[str]) -> bool:
    wanted = ABILITIES.get(step.kind, ())
    have = {a.strip().lower() for a in abilities}
    return any(w in have for w in wanted)


def rank_members(step: PlanStep, members: Sequence[Candidate], similarity: Sequence[float]) -> list[str]:
    """Peer ids from best to worst for ``step`` (``similarity[i]`` belongs to ``members[i]``). When a
    member is able to do the step, members without an adapter are left out: they could only hand the step
    to a sub-team, and a step a member of the team can do is never sent to a sub-team."""

    def key(i: int) -> tuple[int, float, int]:
        m = members[i]
        group = 0 if able(step, m.abilities) else (1 if m.works else 2)
        return group, -similarity[i], i

    order = sorted(range(len(members)), key=key)
    if any(able(step, m.abilities) for m in members):
        order = [i for i in order if members[i].works]
    return [members[i].peer_id for i in order]


__all__ = ["Candidate", "able", "rank_members"]
