"""A question about a time the document does not cover (pure): refused, never answered with the nearest
price (issue 23, class 7).

"How much is a dorm bed for 2 nights in December?" over a reply that says "here is how our prices work
this season (1 April to 31 October 2027)" has no answer: the document's prices hold in a period that
leaves December out. Likewise "the first Sunday train" over a timetable "Mondays to Saturdays only". A
document states the period it covers in a sentence that gives no price ("valid 1 May to 30 September",
"this season (1 April to 31 October)", "Mondays to Saturdays only"); the labels of its prices state
periods too ("Low season (Nov-Mar)"). :func:`out_of_period` refuses a question whose month, day or
weekday lies outside **every** period the document states, when one of them is such a coverage
sentence; a document that states none, one period that holds, or a heading that names the year of the
day asked for ("ROOM RATES 2025", beside "2024 rates, superseded, for bookings before 1 January 2025"),
leaves the question to the planner's readings.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.periods import asked_when, holds, period_in
from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.values import Value, is_money, numbers_in

_COVERS = re.compile(
    r"\b(?:valid|validity|season|covers?|cover(?:ed|ing)|appl(?:y|ies)|effective|in force|timetable|"
    r"prices?|rates?|fares?|tariffs?|runs?|operat\w*|only|summer|winter|spring|autumn)\b",
    re.I,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORD = r"(mon|tues|wednes|thurs|fri|satur|sun)days?"
_WEEKDAY_RANGE = re.compile(rf"\b{_DAY_WORD}\s*(?:to|until|till|-|\u2013)\s*{_DAY_WORD}\b", re.I)
_ASKED_WEEKDAY = re.compile(rf"\b{_DAY_WORD}\b", re.I)
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")  # fmt: skip


def out_of_period(question: str, found: Value | None) -> Missing | None:
    """The price (or service) for the time ``question`` names, missing when the document ``found`` came
    from covers another period (see the module docstring); None otherwise."""
    if found is None or found.records is None:
        return None
    return _outside_dates(question, found.records) or _outside_weekdays(question, found.records)


def _outside_dates(question: str, records: DocRecords) -> Missing | None:
    when = asked_when(question)
    if when is None:
        return None
    year = when.day.year if when.day else when.year
    covering = ""
    for text in _texts(records):
        period = period_in(text)
        if period is None and year and re.search(rf"(?<![\d/.-]){year}(?![\d/.-])", text):
            return None  # "ROOM RATES 2025" for a day in 2025: prices of that year, whatever else is dated
        if period is None:
            continue
        if holds(period, when):
            return None
        if not covering and _coverage(text):
            covering = text
    if not covering:
        return None
    asked = when.day.isoformat() if when.day else _MONTH_NAMES[when.month - 1]
    return Missing(f"the price for {asked}", "", f"the document covers another period: {_short(covering)}")


def _outside_weekdays(question: str, records: DocRecords) -> Missing | None:
    asked = _ASKED_WEEKDAY.search(question)
    if asked is None:
        return None
    day = _WEEKDAYS.index(asked.group(1).lower() + "day")
    covering = ""
    for text in _texts(records):
        for m in _WEEKDAY_RANGE.finditer(text):
            a = _WEEKDAYS.index(m.group(1).lower() + "day")
            b = _WEEKDAYS.index(m.group(2).lower() + "day")
            days = range(a, b + 1) if a <= b else [*range(a, 7), *range(0, b + 1)]
            if day in days:
                return None
            if not covering and _coverage(text):
                covering = text
    if not covering:
        return None
    return Missing(
        f"the service on {_WEEKDAYS[day].capitalize()}",
        "",
        f"the document covers other days: {_short(covering)}",
    )


def _texts(records: DocRecords) -> list[str]:
    """The records' texts and the headings of their sections (a leaflet's "Summer timetable 2027 -
    Mondays to Saturdays only"), each once."""
    return list(dict.fromkeys(t for r in records.records for t in (*r.section, r.text)))


def _coverage(text: str) -> bool:
    """A sentence that states what period the document covers: its words say so and it gives no price."""
    return bool(_COVERS.search(text)) and not any(is_money(n.unit) for n in numbers_in(text))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 100 else text[:99] + "\u2026"


__all__ = ["out_of_period"]
