"""Goal splitting (pure): cut a goal into clauses, its sub-needs or steps.

:func:`split_goal` splits on sentences, lines, list items, ``;`` and sequencing words (``then``, ``after
that``, ``finally``, ``next``), and on ``and`` / ``,`` when the next words start with an action verb ("sum
the numbers and plot them" -> two clauses; "add 2 and 3" stays one). Each clause records whether it was
introduced by a sequencing word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


__all__ = [
    "ACTION_VERBS",
    "Clause",
    "split_goal",
]
