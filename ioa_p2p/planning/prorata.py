"""Pro rata: a yearly charge for the whole months left of the year, when the documents say so (pure).

"A member who joins after the start of the year pays only for the whole months left in it (1/12 of the
yearly fee per month)"; "the membership year runs from 1 September to 31 August". A question that states
the day it starts ("I'm joining on 15 January 2027. What do I pay?") then pays the yearly amount times the
whole months from that day to the year's end, over 12: a start on the 1st counts its own month, any other
day from the next month on.

The rule must be stated (a sentence speaking of "whole months" / "full months" / "1/12" / "pro rata" /
"months remaining|left"); the year is the span a sentence about the year states with two dates ("runs
from 1 October 2026 to 30 September 2027", "1 September to 31 August"), else the calendar year when the
documents say "calendar year". :func:`prorated_expression` applies it to the yearly charge worked out
for the question (or the amount looked up); None when no rule, no year or no start date.
"""

from __future__ import annotations

import re
from datetime import date

from ioa_p2p.planning.values import MONTHS, NUMBER, Value, dates_in, format_number, is_money

_RULE = re.compile(
    r"\b(?:whole|full|complete) months?\b|\b1/12\b|\bone twelfth\b|\bpro[- ]rata\b|"
    r"\bmonths? (?:remaining|left)\b|\bremaining (?:whole |full )?months\b",
    re.I,
)
_YEAR = re.compile(r"\byear\b", re.I)
_START = re.compile(r"\b(?:from|on|starting|as of|joining|join|start)\b", re.I)


def prorated_expression(
    question: str, found: Value | None, derived: tuple[str, str] | None
) -> tuple[str, str] | None:
    """(expression, unit): the yearly charge ``derived`` (or the money ``found``) times the whole months
    left of the year from the day the question starts, over 12; None when the documents state no such
    rule or year, or the question no start date."""
    if found is None:
        return None
    texts = [s for text in found.evidence for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", text)]
    if found.records is not None:
        texts += [r.text for r in found.records.records]
    if not any(_RULE.search(t) and _YEAR.search(t) for t in texts):
        return None
    start = _start(question)
    if start is None:
        return None
    end = _year_end(texts, start)
    if end is None:
        return None
    months = whole_months_left(start, end)
    if months is None:
        return None
    if derived is None:
        if found.kind != NUMBER or found.number is None or not is_money(found.unit):
            return None
        derived = (format_number(found.number), found.unit)
    if not is_money(derived[1]):
        return None
    expr = derived[0] if " " not in derived[0] else f"({derived[0]})"
    return f"{expr} * {months} / 12", derived[1]


def whole_months_left(start: date, end: date) -> int | None:
    """Whole months from ``start`` (its own month when it is the 1st) to ``end`` (inclusive of end's
    month); None when ``start`` is after ``end``."""
    if start > end:
        return None
    first = (start.year, start.month) if start.day == 1 else _next(start.year, start.month)
    months = (end.year - first[0]) * 12 + end.month - first[1] + 1
    return max(0, min(12, months))


def _next(year: int, month: int) -> tuple[int, int]:
    return (year + 1, 1) if month == 12 else (year, month + 1)


def _start(question: str) -> date | None:
    found = dates_in(question)
    if len(found) != 1 or not _START.search(question):
        return None
    return found[0][2]


def _year_end(texts: list[str], start: date) -> date | None:
    """The end of the year (span) that holds ``start``: a span a sentence about the year states with
    two dates, else the calendar year when the documents name it."""
    for text in texts:
        if not _YEAR.search(text):
            continue
        spans = [d for _, _, d in dates_in(text)] or _day_months(text, start.year)
        if len(spans) < 2:
            continue
        first, last = spans[0], spans[1]
        for shift in (0, 1, -1):  # a span stated without its year ("1 September to 31 August")
            a, b = (
                _moved(first, start.year + shift - first.year),
                _moved(last, start.year + shift - first.year),
            )
            if b < a:
                b = _moved(b, 1)
            if a <= start <= b:
                return b
    if any(re.search(r"\bcalendar year\b", t, re.I) for t in texts):
        return date(start.year, 12, 31)
    return None


_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})\s+({'|'.join(sorted(MONTHS, key=len, reverse=True))})\b", re.I)


def _day_months(text: str, year: int) -> list[date]:
    """Days named without a year ("1 September to 31 August"), in ``year``."""
    out = []
    for m in _DAY_MONTH.finditer(text):
        try:
            out.append(date(year, MONTHS[m.group(2).lower()], int(m.group(1))))
        except ValueError:
            continue
    return out


def _moved(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)


__all__ = ["prorated_expression", "whole_months_left"]
