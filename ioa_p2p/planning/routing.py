"""Which member does a step (pure): abilities first, wording second.

A member's abilities are its card's ``task_types`` (an open vocabulary; docs/adapters.md). A step of a kind
with known abilities (:data:`~ioa_p2p.planning.types.ABILITIES`) goes first to the members declaring one of
them, then to the other members that run an adapter, then to members without one (who could only delegate);
within each group by the similarity the caller measured between the step's words and the member's card.
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
    """Peer ids from best to worst for ``step`` (``similarity[i]`` belongs to ``members[i]``)."""

    def key(i: int) -> tuple[int, float, int]:
        m = members[i]
        group = 0 if able(step, m.abilities) else (1 if m.works else 2)
        return group, -similarity[i], i

    return [members[i].peer_id for i in sorted(range(len(members)), key=key)]


__all__ = ["Candidate", "able", "rank_members"]
