"""A possible teammate as team formation sees it (pure): :class:`Candidate`, from a verified agent card.

Discovery finds the cards (``node/goals/teams.py``); the offline team (:mod:`~ioa_p2p.teaming.offline`)
ranks them by the matcher; what a candidate says it can do (its card's task types, ``abilities``) decides
ability coverage (:mod:`~ioa_p2p.teaming.coverage`); the LLM team-up re-ranks a shortlist of them
(:mod:`~ioa_p2p.teaming.llm_team`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ioa_p2p.card import AgentCard


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible teammate: what discovery returns, reduced to what team formation needs."""

    peer_id: str
    name: str
    description: str
    score: float = 0.0  # the matcher's calibrated score for the query that found it (0..1)
    skills: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()  # the card's task types

    @classmethod
    def from_card(cls, card: AgentCard, score: float = 0.0) -> Candidate:
        """From a verified agent card, with the score the query that found it gave it."""
        return cls(
            str(card.peer), card.name, card.description, score, tuple(card.skills), tuple(card.task_types)
        )


__all__ = ["Candidate"]
