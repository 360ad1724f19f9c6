"""A fact's dated validity against the month a question asks about (pure).

A price list that keeps its old figures "for your records" says when they ended: "Old prices (until
30 April 2026)"; a notice says when new ones start: "from 1 June 2026 the fee is ...". A question that
names a month and its year ("from May 2026", "in June 2026", "May 2026's price") is not answered by a fact
whose stated validity ends before that month or starts after it. Only dated bounds count (month AND
year, on both sides): "until April" alone could be any year's April, and "from 1 October" without a year
may run into the next year, so they never decide.

- ``until``, ``till``, ``up to``, ``through``: the fact holds up to and including that month; ``before``:
  up to the month before it;
- ``from``, ``since``, ``as of``, ``starting``, ``effective``, ``valid from``: the fact holds from that
  month on; ``after``: from the month after it.

A fact with both bounds ("from 1 May 2026 until 30 April 2027") holds between them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ioa_p2p.planning.values import MONTHS

_MONTH = (
    r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DAY = r"(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
_YEAR = r",?\s+((?:19|20)\d\d)\b"
_BOUND = re.compile(
    rf"\b(until|till|up to|through|before|from|since|as of|starting|effective|valid from|after)\s+"
    rf"(?:the\s+)?{_DAY}{_MONTH}\.?{_YEAR}",
    re.IGNORECASE,
)
#: a month the question asks about, with its year ("May 2026", "in June, 2026", "1 May 2026")
_ASKED = re.compile(rf"\b{_DAY}{_MONTH}\.?{_YEAR}", re.IGNORECASE)
_ENDS = {"until": 0, "till": 0, "up to": 0, "through": 0, "before": -1}
_STARTS = {"from": 0, "since": 0, "as of": 0, "starting": 0, "effective": 0, "valid from": 0, "after": 1}


def _month(token: str) -> int:
    return MONTHS.get(token.lower().rstrip(".")[:3], 0)


def _index(month: str, year: str) -> int:
    return int(year) * 12 + _month(month) - 1


@lru_cache(maxsize=64)
def asked_month_indices(question: str) -> tuple[int, ...]:
    """The months (year * 12 + month - 1) ``question`` names with their year (read once per question:
    every fact is judged against it)."""
    return tuple(_index(m.group(1), m.group(2)) for m in _ASKED.finditer(question) if _month(m.group(1)))


def validity(fact: str) -> tuple[int | None, int | None]:
    """The first and last month ``fact`` states it holds in (None: unbounded on that side)."""
    first: int | None = None
    last: int | None = None
    for m in _BOUND.finditer(fact):
        word = " ".join(m.group(1).lower().split())
        at = _index(m.group(2), m.group(3))
        if word in _ENDS:
            last = at + _ENDS[word] if last is None else min(last, at + _ENDS[word])
        elif word in _STARTS:
            first = at + _STARTS[word] if first is None else max(first, at + _STARTS[word])
    return first, last


def out_of_validity(question: str, fact: str) -> bool:
    """Whether every dated month ``question`` asks about lies outside the validity ``fact`` states."""
    asked = asked_month_indices(question)
    if not asked:
        return False
    first, last = validity(fact)
    if first is None and last is None:
        return False
    return all((first is not None and a < first) or (last is not None and a > last) for a in asked)


__all__ = ["asked_month_indices", "out_of_validity", "validity"]
