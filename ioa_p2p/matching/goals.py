"""A goal's needs: its clauses, found from its verbs, their objects and the connectives between them (pure).

1. Fenced code blocks are left out (material, not needs). The goal is cut into sentences (``.``, ``!``,
   ``?``, ``;``, line breaks, list marks) and at a colon that introduces parts ("Three days in Kyoto: plan
   our sightseeing").
2. Inside a sentence every connective (a comma, "and", "or", "then", "but", "plus", "before", "after",
   "and then", ...) is a possible cut. The text after it starts a new clause only when it has a clause's
   shape (:func:`~ioa_p2p.matching.grammar.clause_kind`): a verb in the base form with its object ("put
   the key articles into English", "email the team"), a question ("and how has NVDA traded since"), a
   subject with a verb ("before we hire developers"). Otherwise it is part of the clause before it, so
   noun lists stay whole ("rosemary and a bag of potatoes", "Netflix or Prime", "between 8 and 9 am").
   The verbs come from a lexicon (any English verb, "email", "put" and "turn" included), not a list.
3. Each clause is a :class:`Need` that knows whether it *asks* for something (an imperative, a question,
   "I need ...") or gives context ("Someone in accounts clicked a 'DocuSign' email", "Three days in Kyoto
   in November:"). Team formation weights context less: its words still reach every need through the
   goal as a whole (:mod:`~ioa_p2p.teaming.offline`).

:func:`split_goal` returns the needs in goal order (at most ``max_needs``, the tail merged into the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .grammar import ClauseKind, clause_kind, opens_clause
from .text import is_content, words

MAX_NEEDS = 8

_SENTENCE = re.compile(r"(?<=[.!?])[\"')\u201d\u2019]?\s+|\s*[;\n]+\s*|\s+[-\u2013\u2014]\s+")
_COLON = re.compile(r":\s+")
_CONNECTIVE = re.compile(
    r",?\s+(?:and\s+then|and\s+also|and\s+finally|and\s+after\s+that|after\s+that|and|or|then|but|plus|"
    r"before|after|also)\s+|,\s+",
    re.IGNORECASE,
)
_LIST_MARK = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)  # a fenced code block (or one left open)
_TRIM = " ,.;:!-\u2013\u2014"
_LOOKAHEAD = 80  # characters after a connective that decide whether a clause starts there


@dataclass(frozen=True, slots=True)
class Need:
    """One clause of a goal: its text, its position, and whether it asks for something."""

    text: str
    index: int
    asks: bool = True
    kind: str = ClauseKind.IMPERATIVE.value


def content_count(text: str) -> int:
    return sum(1 for w in words(text) if is_content(w))


def split_goal(goal: str, *, max_needs: int = MAX_NEEDS) -> tuple[Need, ...]:
    """The goal's needs in order; one need (the whole goal) when it has no separable clauses.

    Fenced code blocks are material for the clause that introduces them ("Run this Python code:"), not
    clauses of their own."""
    text = goal.strip()
    if not text:
        return ()
    clauses: list[tuple[str, ClauseKind]] = []
    for sentence in _SENTENCE.split(_FENCE.sub("\n", text)):
        sentence = _LIST_MARK.sub("", sentence).strip()
        heads = _COLON.split(sentence)
        for n, part in enumerate(heads):
            for clause in _clauses(part):
                kind = clause_kind(clause)
                if kind is ClauseKind.FRAGMENT and n < len(heads) - 1:
                    kind = ClauseKind.STATEMENT  # a heading before a colon sets the scene
                clauses.append((clause, kind))
    clauses = [(c.strip(_TRIM), k) for c, k in clauses if content_count(c)]
    if not clauses:
        return (Need(text, 0),)
    if len(clauses) > max_needs:
        tail = " ".join(c for c, _ in clauses[max_needs - 1 :])
        clauses = clauses[: max_needs - 1] + [(tail, ClauseKind.IMPERATIVE)]
    if not any(k.asks for _, k in clauses):  # nothing asks: every clause is what the user wants
        clauses = [(c, ClauseKind.FRAGMENT if k is ClauseKind.STATEMENT else k) for c, k in clauses]
    return tuple(
        Need(c, i, asks=k.asks or k is ClauseKind.FRAGMENT, kind=k.value) for i, (c, k) in enumerate(clauses)
    )


def _clauses(sentence: str) -> list[str]:
    """``sentence`` cut at the connectives that start a clause; other connectives stay inside."""
    out: list[str] = []
    start = 0
    for cut in _CONNECTIVE.finditer(sentence):
        after = sentence[cut.end() : cut.end() + _LOOKAHEAD]  # a clause's shape shows in its first words
        if not opens_clause(after) or not sentence[start : cut.start()].strip(_TRIM):
            continue
        out.append(sentence[start : cut.start()])
        start = cut.end()
    out.append(sentence[start:])
    return [c for c in out if c.strip(_TRIM)]


__all__ = ["MAX_NEEDS", "Need", "content_count", "split_goal"]
