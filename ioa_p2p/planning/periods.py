"""Periods a document's labels state and the day or month a question names (pure).

A price list often prices one thing in several columns that hold in different periods: "Early entry
(until 31 Dec 2026)", "Standard entry (1 Jan - 28 Feb 2027)", "Low season (Jan-Mar, Nov-Dec)",
"High season (Apr-Oct)", "from May to September". :func:`period_in` reads such a label into a
:class:`Period` (month sets or a span of days); :func:`asked_when` reads the day ("on 15 January 2027",
"arriving 30 March 2026") or the month ("in May", "in November 2026") a question names; :func:`holds`
says whether a period holds for it (None when the label states no period or the question names no
time). The caller picks the column whose period holds (planning/anchored.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ioa_p2p.planning.values import MONTHS, dates_in

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_MONTH_RANGE = re.compile(rf"\b(?:from\s+)?({_MONTH})\s*(?:-|–|to|until|till)\s*({_MONTH})(?!\s*\d)", re.I)
_DAY = rf"(\d{{1,2}})\s+({_MONTH})(?:\s+(\d{{4}}))?"
_DAY_RANGE = re.compile(rf"\b(?:from\s+)?{_DAY}\s*(?:-|–|to|until|till)\s*{_DAY}", re.I)
_UNTIL = re.compile(rf"\b(?:until|till|up to|before|by)\s+{_DAY}", re.I)
_FROM = re.compile(rf"\b(?:from|after|since)\s+{_DAY}(?!\s*(?:-|–|to|until|till)\s*\d)", re.I)
_IN_MONTH = re.compile(
    rf"\b(?:in|during|for|of)\s+(?:early\s+|late\s+|mid-?\s*)?({_MONTH})(?:\s+(\d{{4}}))?\b", re.I
)


@dataclass(frozen=True, slots=True)
class Period:
    months: frozenset[int] = frozenset()  # months of any year ("Jan-Mar, Nov-Dec")
    start: date | None = None  # a span of days (either end may be open)
    end: date | None = None


@dataclass(frozen=True, slots=True)
class When:
    """The time a question names: a day, or a month (of a year, when it says which)."""

    day: date | None = None
    month: int = 0
    year: int = 0


def _month(word: str) -> int:
    return MONTHS.get(word.lower().rstrip(".")[:4], 0) or MONTHS.get(word.lower().rstrip(".")[:3], 0)


def _day(d: str, m: str, y: str | None, year: int) -> date | None:
    try:
        return date(int(y) if y else year, _month(m), int(d))
    except ValueError:
        return None


def period_in(label: str) -> Period | None:
    """The period ``label`` states; None when it states none."""
    days = _DAY_RANGE.search(label)
    if days:
        d1, m1, y1, d2, m2, y2 = days.groups()
        year2 = int(y2 or y1 or 0)
        end = _day(d2, m2, y2, year2) if year2 else None
        start = _day(d1, m1, y1, year2 - (1 if _month(m1) > _month(m2) else 0)) if year2 else None
        if start and end:
            return Period(start=start, end=end)
    until = _UNTIL.search(label)
    if until and until.group(3):
        return Period(end=_day(until.group(1), until.group(2), until.group(3), 0))
    since = _FROM.search(label)
    if since and since.group(3):
        return Period(start=_day(since.group(1), since.group(2), since.group(3), 0))
    months: set[int] = set()
    for m in _MONTH_RANGE.finditer(label):
        a, b = _month(m.group(1)), _month(m.group(2))
        if a and b:
            months |= set(range(a, b + 1)) if a <= b else set(range(a, 13)) | set(range(1, b + 1))
    return Period(months=frozenset(months)) if months else None


def asked_when(question: str) -> When | None:
    """The day or month ``question`` names (the first); None when it names none."""
    found = dates_in(question)
    if found:
        return When(day=found[0][2])
    for m in _IN_MONTH.finditer(question):
        word = m.group(1)
        if word.lower().startswith("may") and not word.startswith("M"):
            continue  # "in may": the verb, not the month
        if _month(word):
            return When(month=_month(word), year=int(m.group(2) or 0))
    return None


def holds(period: Period, when: When) -> bool:
    """Whether ``period`` holds on the day (or for some day of the month) ``when`` names."""
    if period.months:
        month = when.day.month if when.day else when.month
        return month in period.months
    if when.day is not None:
        day = when.day
        return (period.start is None or day >= period.start) and (period.end is None or day <= period.end)
    if not when.month:
        return False
    years = [when.year] if when.year else sorted({d.year for d in (period.start, period.end) if d})
    for year in years:
        first, last = date(year, when.month, 1), date(year, when.month, 28)
        if (period.start is None or last >= period.start) and (period.end is None or first <= period.end):
            return True
    return False


__all__ = ["Period", "When", "asked_when", "holds", "period_in"]
