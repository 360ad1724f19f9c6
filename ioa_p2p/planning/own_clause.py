"""The clause of a rule's sentence that states its own percentage (pure).

A table of concessions is often read as one sentence, every row's figure in it ("Full-time students 20 %
off Members aged 65 or over 25 % off Employees of corporate partner companies 15 % off"), and each of its
percentages keeps that whole sentence as its condition. Matched against a question, every percentage then
meets a question that names the words of any one row: "my partner and I" meets the corporate partners'
15 % and, with it, the students' 20 % and the over-65s' 25 %, three discounts stacked on one price.

A careful reader gives each figure the words of its own row: :func:`own_clause` cuts the sentence at its
percentages and returns the part that belongs to ``number``: the words between the figure before it and
its own figure where the rows name their subject first ("Students 20 % off"), or the words from its figure
to the next where they state the figure first ("20 % off for students, 25 % off for seniors"). A sentence
that states one percentage, or that states ``number`` more than once, is returned as it is.
"""

from __future__ import annotations

import re

_FIGURE = re.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*(?:%|per ?cent\b)", re.I)
_WORD = re.compile(r"[A-Za-z]{3,}")


def own_clause(when: str, number: float) -> str:
    """The part of ``when`` that states the percentage ``number`` (its sign ignored) and the condition
    next to it; ``when`` itself unless it states two or more percentages and ``number`` exactly once."""
    figures = list(_FIGURE.finditer(when))
    if len({_value(m) for m in figures}) < 2:
        return when
    mine = [i for i, m in enumerate(figures) if abs(_value(m) - abs(number)) < 1e-9]
    if len(mine) != 1:
        return when
    i = mine[0]
    if _WORD.search(when[: figures[0].start()]):  # "Students 20 % off ...": each row names its subject first
        start = figures[i - 1].end() if i > 0 else 0
        return when[start : figures[i].end()].strip()
    end = figures[i + 1].start() if i + 1 < len(figures) else len(when)  # "20 % off for students, ..."
    return when[figures[i].start() : end].strip()


def _value(m: re.Match[str]) -> float:
    return float(m.group(1).replace(",", "."))


__all__ = ["own_clause"]
