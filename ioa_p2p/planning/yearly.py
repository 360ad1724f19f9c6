"""A year of a monthly price paid at once (pure): the document's own rule for paying a year up front
(issue 23, class 7).

"What does a year of the Full plan cost when paid up front?" over a price list of monthly fees is not
twelve times the fee when the document says how a year paid at once is charged: "Paying a whole year up
front costs 11 monthly fees instead of 12" (``42 * 11``), or an annual discount ("annual_discount_pct =
15", "15 % off when you pay a year in advance": ``29 * 12 * 0.85``). :func:`yearly_expression` reads that
rule when the question asks for a year paid at once and the price looked up is a monthly one (the document
prices by the month and the amount's own record says nothing of a year); None otherwise, and the planner's
other readings answer.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.values import Value, format_number, is_money

_YEAR_ASKED = re.compile(r"\b(?:a|one|the|whole|full)\s+year\b|\bannual(?:ly)?\b|\byearly\b", re.I)
_AT_ONCE = re.compile(r"\bup[ -]?front\b|\bin advance\b|\bannually\b|\bpaid (?:yearly|for the year)\b|"
                      r"\bin one (?:go|payment)\b", re.I)  # fmt: skip
_MONTHLY = re.compile(r"\bper month\b|\bmonthly\b|\ba month\b|\beach month\b", re.I)
_YEAR_WORDS = re.compile(r"\b(?:annual\w*|year\w*|up[ -]?front)\b", re.I)
_FEES_INSTEAD = re.compile(r"\b(\d{1,2}|eleven|ten|nine)\s+monthly\s+(?:fees|payments|prices|instalments)\s+"
                           r"instead of\s+(?:12|twelve)\b", re.I)  # fmt: skip
_ANNUAL_PERCENT = re.compile(
    r"\b(?:annual|yearly|year)\w*\b[^.\n]{0,40}?(\d+(?:\.\d+)?)\s*(?:%|pct|per ?cent)|"
    r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)\s+(?:off|discount)[^.\n]{0,40}?\b(?:annual\w*|a year|up[ -]?front|"
    r"in advance)\b|"
    r"\b(?:annual|yearly)[ _](?:discount|reduction)[ _](?:pct|percent)\s*[=:]\s*(\d+(?:\.\d+)?)",
    re.I,
)
_WORDS = {"eleven": 11, "ten": 10, "nine": 9}


def yearly_expression(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, currency) of a year of the monthly price ``found`` paid at once, on the document's
    rule for it (see the module docstring); None when the question or the document asks no such thing."""
    if found is None or found.records is None or found.number is None:
        return None
    unit = found.unit if is_money(found.unit) else found.records.currency  # "42" in a table of EUR
    if not unit or (found.unit and not is_money(found.unit)):
        return None
    if not (_YEAR_ASKED.search(question) and _AT_ONCE.search(question)):
        return None
    records = found.records
    if not _monthly_price(records, found.number):
        return None
    price = format_number(found.number)
    for record in records.records:
        m = _FEES_INSTEAD.search(record.text)
        if m:
            raw = m.group(1).lower()
            months = _WORDS.get(raw) or int(raw)
            return f"{price} * {months}", unit
    for record in records.records:
        m = _ANNUAL_PERCENT.search(record.text)
        if m:
            share = float(m.group(1) or m.group(2) or m.group(3)) / 100
            return f"{price} * 12 * {format_number(1 - share)}", unit
    return None


def _monthly_price(records: DocRecords, number: float) -> bool:
    """Whether the document prices by the month and the record of ``number`` says nothing of a year (an
    annual price is already one: "Annual, paid upfront | 420.00")."""
    if not any(_MONTHLY.search(t) for r in records.records for t in (r.text, *r.section)):
        return False
    shown = re.escape(format_number(number))
    own = [r for r in records.records if re.search(rf"(?<![\d.]){shown}(?:\.0+)?(?![\d]|\.\d)", r.text)]
    return bool(own) and not any(_YEAR_WORDS.search(r.text) for r in own)


__all__ = ["yearly_expression"]
