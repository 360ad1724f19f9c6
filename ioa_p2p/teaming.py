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
  :mod:`ioa_p2p.llm_brain`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .card import AgentCard, card_text
from .embedding import Embedder
from .errors import ModelOutputError, UsageError

Vector = npt.NDArray[np.float32]

#: Verbs that start a new clause after "and" or a comma.
ACTION_VERBS = frozenset(
    """add analyse analyze answer build calculate chart check compare compile compute convert count create
    describe design draft draw estimate evaluate explain extract fetch find fix format generate get give
    graph list look make measure multiply outline plot prepare produce read recommend report retrieve
    review run search send sort state subtract sum summarise summarize tell test translate verify write
    divide solve cite quote show print""".split()  # noqa: SIM905
)
_SEQUENCE = r"(?:and\s+then|then|after\s+that|afterwards|and\s+finally|finally)"
_BOUNDARY = re.compile(rf"(?<=[.!?])\s+|\n+|;\s*|(?<!and),?\s+(?={_SEQUENCE}\b)", re.IGNORECASE)
_LEADING_SEQUENCE = re.compile(rf"^{_SEQUENCE}\b[\s,]*", re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_AND_VERB = re.compile(r"\s*(?:,\s*and|,|\band)\s+(?=(\w+))", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Clause:
    text: str
    sequenced: bool  # introduced by "then", "after that", ... (so it comes after the previous clause)


def split_goal(goal: str, *, max_clauses: int = 8) -> tuple[Clause, ...]:
    """The goal's clauses in order (at least one when the goal has any text)."""
    clauses: list[Clause] = []
    pieces = _pieces(goal)
    for text, sequenced in pieces:
        for j, part in enumerate(_split_on_and(text)):
            part = part.strip(" ,.;:")
            if len(part) >= 2:
                clauses.append(Clause(part, sequenced and j == 0))
    if not clauses and goal.strip():
        clauses.append(Clause(goal.strip(), False))
    if len(clauses) > max_clauses:  # keep the count bounded: merge the tail into the last clause
        tail = "; ".join(c.text for c in clauses[max_clauses - 1 :])
        clauses = clauses[: max_clauses - 1] + [Clause(tail, clauses[max_clauses - 1].sequenced)]
    return tuple(clauses)


def _pieces(goal: str) -> list[tuple[str, bool]]:
    pieces: list[tuple[str, bool]] = []
    for raw in _BOUNDARY.split(goal):
        text = _LIST_MARK.sub("", raw.strip())
        match = _LEADING_SEQUENCE.match(text)
        if match:
            text = text[match.end() :]
        if text.strip():
            pieces.append((text.strip(), match is not None))
    return pieces


def _split_on_and(text: str) -> list[str]:
    parts: list[str] = []
    position = 0
    for match in _AND_VERB.finditer(text):
        left = text[position : match.start()].split()
        right = text[match.end() :].split()
        if match.group(1).lower() in ACTION_VERBS and len(left) >= 2 and len(right) >= 2:
            parts.append(text[position : match.start()])
            position = match.end()
    parts.append(text[position:])
    return [p for p in parts if p.strip()]


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

    @classmethod
    def from_card(cls, card: AgentCard, embedder: Embedder, score: float = 0.0) -> Candidate:
        """From a verified agent card; its vector is used only if ``embedder`` made it, else re-embedded."""
        if card.model == embedder.model_id and card.dim == embedder.dim:
            vector = card.embedding()
        else:
            text = card_text(card.name, card.description, card.skills, card.task_types)
            vector = embedder.embed([text])[0]
        return cls(str(card.peer), card.name, card.description, vector, score, tuple(card.skills))


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

SEARCH_TOOL: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_agents",
        "description": "Search the network for agents by what they can do. Give several short natural "
        "language queries (skills, tasks, expertise); you get back a ranked shortlist.",
        "parameters": {
            "type": "object",
            "properties": {
                "queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}
            },
            "required": ["queries"],
        },
    },
}
TEAM_UP_TOOL: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": "team_up",
        "description": "Form the team that will work on the goal in a group chat. Name agents from the "
        "shortlist by their number or name (you are included automatically).",
        "parameters": {
            "type": "object",
            "properties": {"members": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            "required": ["members"],
        },
    },
}
TEAM_TOOLS: tuple[Mapping[str, Any], ...] = (SEARCH_TOOL, TEAM_UP_TOOL)


def merge_results(results: Sequence[Sequence[Candidate]], *, limit: int = 10) -> list[Candidate]:
    """One ranked shortlist from several searches: each peer once, at its best score."""
    best: dict[str, Candidate] = {}
    for found in results:
        for c in found:
            if c.peer_id not in best or c.score > best[c.peer_id].score:
                best[c.peer_id] = c
    return sorted(best.values(), key=lambda c: (-c.score, c.peer_id))[:limit]


def render_shortlist(shortlist: Sequence[Candidate]) -> str:
    if not shortlist:
        return "No agents found."
    lines = []
    for i, c in enumerate(shortlist, 1):
        skills = f" Skills: {', '.join(c.skills)}." if c.skills else ""
        lines.append(f"{i}. {c.name} (score {c.score:.2f}): {c.description[:300]}{skills}")
    return "\n".join(lines)


def parse_search_queries(arguments: Mapping[str, Any], *, limit: int = 5) -> tuple[str, ...]:
    queries = arguments.get("queries")
    if isinstance(queries, str):
        queries = [queries]
    if not isinstance(queries, list) or not queries:
        raise ModelOutputError('search_agents needs {"queries": [at least one string]}')
    cleaned = [q.strip()[:300] for q in queries if isinstance(q, str) and q.strip()]
    if not cleaned:
        raise ModelOutputError("search_agents got no usable query")
    return tuple(dict.fromkeys(cleaned))[:limit]


def parse_team_choice(
    arguments: Mapping[str, Any], shortlist: Sequence[Candidate], *, max_team: int = 4
) -> tuple[Candidate, ...]:
    """The candidates the model named (by shortlist number, name or peer id); unknown entries dropped.

    Raises :class:`ModelOutputError` when none of the entries names a shortlisted agent.
    """
    raw = arguments.get("members", arguments.get("team_members"))
    if isinstance(raw, str | int):
        raw = [raw]
    if not isinstance(raw, list):
        raise ModelOutputError('team_up needs {"members": [numbers or names from the shortlist]}')
    by_name: dict[str, Candidate] = {}
    for c in shortlist:
        by_name.setdefault(c.name.strip().lower(), c)
    by_peer = {c.peer_id: c for c in shortlist}
    chosen: dict[str, Candidate] = {}
    for entry in raw:
        found = _lookup(entry, shortlist, by_name, by_peer)
        if found is not None:
            chosen.setdefault(found.peer_id, found)
    if not chosen:
        raise ModelOutputError(
            f"team_up named no agent from the shortlist ({raw!r}); use the numbers 1..{len(shortlist)}"
        )
    return tuple(chosen.values())[:max_team]


def _lookup(
    entry: Any,
    shortlist: Sequence[Candidate],
    by_name: Mapping[str, Candidate],
    by_peer: Mapping[str, Candidate],
) -> Candidate | None:
    if isinstance(entry, bool):
        return None
    if isinstance(entry, int):
        return shortlist[entry - 1] if 1 <= entry <= len(shortlist) else None
    if not isinstance(entry, str):
        return None
    text = entry.strip()
    number = re.fullmatch(r"#?(\d+)\.?", text)
    if number:
        return _lookup(int(number.group(1)), shortlist, by_name, by_peer)
    if text in by_peer:
        return by_peer[text]
    text = re.sub(r"^\d+\.\s*", "", text)  # "2. calculator"
    text = re.sub(r"\s*\(.*\)$", "", text).strip().lower()  # "calculator (score 0.8)"
    return by_name.get(text)


__all__ = [
    "ACTION_VERBS",
    "SEARCH_TOOL",
    "TEAM_TOOLS",
    "TEAM_UP_TOOL",
    "Candidate",
    "Clause",
    "NeedCover",
    "TeamChoice",
    "choose_team",
    "choose_team_for_goal",
    "merge_results",
    "parse_search_queries",
    "parse_team_choice",
    "render_shortlist",
    "split_goal",
]
