"""Capacity filters over a table (pure): "which room can seat 150 theatre-style", "which van takes 900 kg".

A "which" question that states a count or a measure and names a column of a table (its header's words:
"Theatre", "Payload (kg)"), or a table with a column of capacities ("Seats", "Max. guests"), is answered by
the rows whose cell in that column holds at least the stated amount, tightest fit first (the rows listed
when several fit; none fitting: None, the question is answered as before). A row without a figure in that
column ("-") never fits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.adapters.retrieval.facts import Fact, question_terms, terms
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import factor, unit_in_header
from ioa_p2p.planning.values import ALIASES, Value, numbers_in

_CAPACITY = re.compile(
    r"\b(?:capacity|capacities|seats?|seated|guests|people|persons|max(?:imum|\.)?|holds?|payload)\b", re.I
)
_WHICH = re.compile(r"\bwhich\b|\bwhat (?:room|space|hall|venue|vehicle|van|model|size|option)\b", re.I)
_GENERIC = frozenset({"room", "rate", "price", "eur", "hour", "per", "weekday", "weekend", "min", "hire"})
MAX_LISTED = 5


def fitting_rows(question: str, row: Fact, facts: Sequence[Fact]) -> Value | None:
    """The rows of ``row``'s table that hold what the question states (see the module docstring)."""
    if not _WHICH.search(question) or not row.table:
        return None
    stated = stated_quantities(question)
    if len(stated) != 1:
        return None
    need = stated[0]
    asked = question_terms(question) - _GENERIC
    rows = [f for f in facts if f.table == row.table and f.cells]
    headers = [h for h, _ in row.cells[1:]]
    named = [h for h in headers if (terms(h) - _GENERIC) & asked]
    columns = named or [h for h in headers if _CAPACITY.search(h)]
    if not columns:
        return None
    column = columns[0]
    unit = unit_in_header(column, ALIASES)
    fits: list[tuple[float, str]] = []
    for f in rows:
        cell = dict(f.cells).get(column, "")
        nums = numbers_in(cell)
        if not nums:
            continue
        have = nums[0].number
        if need.unit and (nums[0].unit or unit):
            scale = factor(need.unit, nums[0].unit or unit)
            if scale is None:
                return None
            wanted = need.number * scale
        else:
            wanted = need.number
        if have >= wanted:
            fits.append((have, f.cells[0][1].strip()))
    if not fits:
        return None
    fits.sort()
    unique = list(dict.fromkeys(name for _, name in fits))  # a row read from two passages is one row
    names = tuple(Value.of_text(name) for name in unique[:MAX_LISTED])
    return names[0] if len(names) == 1 else Value.of_list(names)


__all__ = ["fitting_rows"]
