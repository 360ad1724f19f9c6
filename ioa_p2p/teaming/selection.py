"""Team selection (pure): who should work on a goal, from ranked candidates and embeddings.

- :func:`split_goal` cuts a goal into clauses (its sub-needs / steps): sentences, lines, list items,
  ``;`` and sequencing words (``then``, ``after that``, ``finally``, ``next``), and ``and`` / ``,`` when the
  next words start with an action verb ("sum the numbers and plot them" -> two clauses; "add 2 and 3"
  stays one). Each clause records whether it was introduced by a sequencing word.
- :func:`choose_team` (no LLM): each sub-need goes to the candidate whose vector is most similar to it,
  if that similarity reaches ``threshold``; the team is the distinct winners (at most ``max_team``, the ones
  covering most needs first). When nobody reaches the threshold for any need, the candidate most similar
  to the whole goal is taken and the choice is flagged ``below_threshold``.
- The LLM variant, as IoA does it but with a ranked shortlist: :data:`TEAM_TOOLS` (``search_agents`` with
  several queries, then ``team_up``), :func:`merge_results` (one shortlist from several searches),
  :func:`render_shortlist` (what the model sees) and :func:`parse_team_choice` (names, peer ids or
  shortlist numbers back to candidates). The async loop that drives the model lives in
  :mod:`ioa_p2p.conversation.brains.llm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card import AgentCard, card_text
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import UsageError
from ioa_p2p.teaming.clauses import split_goal

Vector = npt.NDArray[np.float32]


# --------------------------------------------------------------------------- choosing by similarity


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible teammate: what discovery returns, reduced to what selection needs."""

    peer_id: str
    name: str
    description: str
    vector: Vector | None = None  # L2-normalised, made by the same embedder as the goal's vectors
    score: float = 0.0  # similarity to the search query that found it
    skills: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()  # the card's task types

    @classmethod
    def from_card(cls, card: AgentCard, embedder: Embedder, score: float = 0.0) -> Candidate:
        """From a verified agent card; its vector is used only if ``embedder`` made it, else re-embedded."""
        if card.model == embedder.model_id and card.dim == embedder.dim:
            vector = card.embedding()
        else:
            text = card_text(card.name, card.description, card.skills, card.task_types)
            vector = embedder.embed([text])[0]
        return cls(
            str(card.peer),
            card.name,
            card.description,
            vector,
            score,
            tuple(card.skills),
            tuple(card.task_types),
        )


@dataclass(frozen=True, slots=True)
class NeedCover:
    need: str
    peer_id: str  # "" when no candidate reached the threshold for this need
    score: float


@dataclass(frozen=True, slots=True)
class TeamChoice:
    members: tuple[Candidate, ...]
    coverage: tuple[NeedCover, ...]
    below_threshold: bool = False

    @property
    def peer_ids(self) -> tuple[str, ...]:
        return tuple(c.peer_id for c in self.members)


def choose_team(
    goal_vector: Any,
    needs: Sequence[str],
    need_vectors: Any,
    candidates: Sequence[Candidate],
    *,
    max_team: int = 4,
    threshold: float = 0.2,
    exclude: Sequence[str] = (),
) -> TeamChoice:
    """Pick 1..``max_team`` teammates covering the goal's sub-needs (see the module docstring)."""
    if max_team < 1:
        raise UsageError("max_team must be at least 1")
    goal = np.asarray(goal_vector, dtype=np.float32).reshape(-1)
    need_matrix = np.asarray(need_vectors, dtype=np.float32).reshape(len(needs), -1)
    pool = _usable(candidates, goal.shape[0], exclude)
    if not pool:
        return TeamChoice((), tuple(NeedCover(n, "", 0.0) for n in needs))
    matrix = np.stack([c.vector for c in pool if c.vector is not None])
    goal_scores = matrix @ goal
    order = sorted(range(len(pool)), key=lambda j: (-float(goal_scores[j]), pool[j].peer_id))
    pool = [pool[j] for j in order]
    matrix, goal_scores = matrix[order], goal_scores[order]
    need_scores = need_matrix @ matrix.T if len(needs) else np.zeros((0, len(pool)))
    best = [int(np.argmax(row)) for row in need_scores]  # argmax keeps the first (goal-ranked) on ties
    winners: dict[int, list[float]] = {}
    for i, j in enumerate(best):
        if need_scores[i, j] >= threshold:
            winners.setdefault(j, []).append(float(need_scores[i, j]))
    ranked = sorted(winners, key=lambda j: (-len(winners[j]), -max(winners[j]), j))[:max_team]
    below = False
    if not ranked:
        ranked, below = [0], float(goal_scores[0]) < threshold
    chosen = set(ranked)
    coverage = []
    for i, need in enumerate(needs):
        row = need_scores[i]
        j = max(chosen, key=lambda k: (float(row[k]), -k))
        ok = float(row[j]) >= threshold or below or len(chosen) == 1
        coverage.append(NeedCover(need, pool[j].peer_id if ok else "", float(row[j])))
    return TeamChoice(tuple(pool[j] for j in ranked), tuple(coverage), below)


def choose_team_for_goal(
    goal: str,
    embedder: Embedder,
    candidates: Sequence[Candidate],
    *,
    max_team: int = 4,
    threshold: float = 0.2,
    exclude: Sequence[str] = (),
) -> TeamChoice:
    """:func:`choose_team` with the goal and its clauses embedded by ``embedder``.

    The default threshold (0.2) suits the wordllama default: on realistic cards, relevant agents score
    0.23-0.71 against a clause and unrelated ones at most 0.18.
    """
    needs = [c.text for c in split_goal(goal)] or [goal]
    vectors = embedder.embed([goal, *needs])
    return choose_team(vectors[0], needs, vectors[1:], candidates, max_team=max_team,
                       threshold=threshold, exclude=exclude)  # fmt: skip


def add_able(
    members: Sequence[Candidate], pool: Sequence[Candidate], wanted: Sequence[Sequence[str]], *, max_team: int
) -> list[Candidate]:
    """``members`` plus, for each ability set in ``wanted`` that no member has, the best-scoring candidate
    of ``pool`` that has one of them (the plan's steps need someone able to do them), up to ``max_team``."""
    team = list(members)
    for abilities in wanted:
        want = {a.lower() for a in abilities}
        if not want or any(want & {a.lower() for a in m.abilities} for m in team):
            continue
        able = sorted((c for c in pool if want & {a.lower() for a in c.abilities}), key=lambda c: -c.score)
        fresh = [c for c in able if c.peer_id not in {m.peer_id for m in team}]
        if fresh and len(team) < max_team:
            team.append(fresh[0])
    return team


def add_best(
    members: Sequence[Candidate], best: Sequence[Candidate | None], *, max_team: int, threshold: float
) -> list[Candidate]:
    """``members`` plus each step's best agent (``best[i]``: the best-ranked card for step i's own words,
    None when none) that is not in the team yet and reaches ``threshold``, up to ``max_team``: a team
    covers every planned step's best agent, so a step is never left to an agent that merely accepts any
    text."""
    team = list(members)
    for c in best:
        if c is None or c.score < threshold or any(m.peer_id == c.peer_id for m in team):
            continue
        if len(team) < max_team:
            team.append(c)
    return team


def _usable(candidates: Sequence[Candidate], dim: int, exclude: Sequence[str]) -> list[Candidate]:
    by_peer: dict[str, Candidate] = {}
    for c in candidates:
        if c.peer_id in exclude or c.vector is None:
            continue
        if np.asarray(c.vector).shape != (dim,):
            raise UsageError(
                f"candidate {c.name!r} has a vector of shape {np.asarray(c.vector).shape}, the goal "
                f"has ({dim},): both must come from the same embedding model"
            )
        if c.peer_id not in by_peer or c.score > by_peer[c.peer_id].score:
            by_peer[c.peer_id] = c
    return list(by_peer.values())


# --------------------------------------------------------------------------- the LLM variant


__all__ = [
    "add_able",
    "add_best",
    "Candidate",
    "NeedCover",
    "TeamChoice",
    "choose_team",
    "choose_team_for_goal",
]
