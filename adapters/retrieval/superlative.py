"""Superlatives over a table (pure): "the heaviest pump", "the cheapest room", "the longest course".

A question that names the extreme of an attribute is answered by the row of the table it is about whose
value of that attribute is the largest (or smallest): the column of the attribute is the one whose header
names it ("Weight", "List price") or whose cells are in its units (kg, EUR); the row found then answers
the question like any row (its price, its name, ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.adapters.retrieval.facts import Fact, terms
from ioa_p2p.planning.answer_types import ATTRIBUTE_UNITS
from ioa_p2p.planning.values import numbers_in

#: superlative -> (attribute, +1 for the largest / -1 for the smallest)
SUPERLATIVES: dict[str, tuple[str, int]] = {
    "heaviest": ("weight", 1), "lightest": ("weight", -1),
    "cheapest": ("price", -1), "most expensive": ("price", 1), "least expensive": ("price", -1),
    "dearest": ("price", 1), "priciest": ("price", 1),
    "longest": ("length", 1), "shortest": ("length", -1),
    "largest": ("size", 1), "biggest": ("size", 1), "smallest": ("size", -1),
    "fastest": ("speed", 1), "slowest": ("speed", -1),
    "most powerful": ("power", 1), "least powerful": ("power", -1), "strongest": ("power", 1),
    "highest": ("", 1), "lowest": ("", -1), "most": ("", 1), "fewest": ("", -1), "least": ("", -1),
}  # fmt: skip
#: attribute -> header words that name it
_HEADER_WORDS = {
    "weight": {"weight", "mass", "kg"},
    "price": {"price", "cost", "fee", "rate", "eur", "fare", "charge"},
    "length": {"length", "duration", "distance", "long", "hours", "minutes", "time"},
    "size": {"size", "capacity", "area", "volume", "seats", "seated", "guests", "people"},
    "speed": {"speed", "flow"},
    "power": {"power", "output", "watt"},
}
_UNIT_ATTRIBUTE = {"weight": "weight", "price": "price", "length": "distance", "power": "power"}
_PATTERN = re.compile(
    r"\b(" + "|".join(sorted(SUPERLATIVES, key=len, reverse=True)) + r")\b(?:\s+(\w+))?", re.I
)


def superlative(question: str) -> tuple[set[str], set[str], int] | None:
    """(header words, units, direction) of the extreme the question asks for, or None."""
    m = _PATTERN.search(question)
    if not m:
        return None
    attribute, direction = SUPERLATIVES[m.group(1).lower()]
    if not attribute:  # "the highest flow", "the most seats": the attribute is the next word
        following = (m.group(2) or "").lower()
        if not following or following in ("one", "of", "the", "a", "an"):
            return None
        return terms(following), set(), direction
    words = {w for t in _HEADER_WORDS[attribute] for w in terms(t)}
    units: set[str] = set()
    for names, unit_list in ATTRIBUTE_UNITS:
        if _UNIT_ATTRIBUTE.get(attribute, attribute) in names:
            units |= set(unit_list)
    return words, units, direction


def extreme_row(question: str, top: Fact, facts: Sequence[Fact]) -> Fact | None:
    """The row of ``top``'s table with the extreme value the question asks for; None when the question
    asks for none or the table has no column of that attribute."""
    asked = superlative(question)
    if asked is None or not top.table or not top.cells:
        return None
    words, units, direction = asked
    rows = [f for f in facts if f.table == top.table and f.cells]
    rows = list({f.line: f for f in rows}.values())
    if len(rows) < 2 or any(_names_row(question, r) for r in rows):
        return None  # "the longest stay in berth B": the row named, not an extreme
    column = _column(rows, words, units)
    if column is None:
        return None

    def value(row: Fact) -> float | None:
        cell = next((c for h, c in row.cells if h == column), "")
        found = numbers_in(cell)
        return found[0].number if found else None

    valued = [(v, r) for r in rows if (v := value(r)) is not None]
    if len(valued) < 2:
        return None
    return (max if direction > 0 else min)(valued, key=lambda vr: vr[0])[1]


def _names_row(question: str, row: Fact) -> bool:
    key = re.sub(r"[*_`]", "", row.cells[0][1]).strip()
    return bool(key) and re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", question) is not None


def _column(rows: Sequence[Fact], words: set[str], units: set[str]) -> str | None:
    headers = [h for h, _ in rows[0].cells[1:]]
    named = [h for h in headers if terms(h) & words]
    if named:
        return named[0]
    for h in headers:
        cells = [c for r in rows for hh, c in r.cells if hh == h]
        if units and cells and all(any(n.unit in units for n in numbers_in(c)) for c in cells if c.strip()):
            return h
    return None


__all__ = ["SUPERLATIVES", "extreme_row", "superlative"]
