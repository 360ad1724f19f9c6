"""Daily allowances for a trip (pure): a per diem worked out on the documents' rules from the trip's days.

"Out on Monday morning, back Tuesday evening, one night in a hotel with breakfast: how much daily
allowance do I get?", "leaving Monday, back Thursday, breakfast included on Tuesday, Wednesday and
Thursday: what per diem can I claim?". Handbooks state such rules in a few common forms: a rate for a full
day away, a rate for the day of departure and the day of return (an amount, or a share of the full rate)
and a deduction for each meal provided (an amount, or a share of the full rate). The question gives the
trip: its first and last day (weekdays, dates, or a number of nights), and the meals provided (on named
days, or with each hotel night). The plan:

1. a lookup of the full-day rate, worded with the question's own name for the allowance and its names
   (company, destination, "abroad");
2. a lookup of the rate for the day of departure or return;
3. per kind of meal provided, a lookup of what is deducted for it;
4. the calculation ``2 * part(v2 of v1) + (days - 2) * v1 - meals * part(v3 of v1)`` (a one-day trip: one
   travel day); :func:`render_parts` writes ``part(vA of vB)`` as ``vA`` when it is an amount and as
   ``vB * vA / 100`` when it is a percentage.

A question that states no trip span (no weekdays, dates or nights) gets None: it is no trip to work out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.values import Value, dates_in, format_number

_ALLOWANCE = re.compile(
    r"\b(per[- ]diems?|daily (?:allowance|rate|subsistence)|subsistence allowance|meal allowance|"
    r"travel allowance|day allowance)\b",
    re.I,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")s?\b", re.I)
_RETURN = re.compile(
    r"\b(?:back|return\w*|home|fly(?:ing)? back|come back|coming back|arriv\w* home)\b", re.I
)
_NIGHTS = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|a single) nights?\b", re.I)
_NUMBERS = {"one": 1, "a single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_MEALS = ("breakfast", "lunch", "dinner")
_WHERE = re.compile(
    r"\b(abroad|domestic|in (?:the )?(?:country|netherlands|germany|uk)|overseas|foreign)\b", re.I
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
_DAY_LIST = re.compile(rf"\b(\d{{1,2}}(?:(?:,\s*|\s+and\s+)\d{{1,2}})*)\s+(?:of\s+)?{_MONTH}\b", re.I)
_DESTINATION = re.compile(r"\b(?:to|in|at|visit(?:ing)?)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
PART = re.compile(r"part\(v(\d+) of v(\d+)\)")


def trip_days(question: str) -> int | None:
    """Calendar days of the trip, the first and the last included; None when the question states none."""
    days = dates_in(question)
    if len(days) >= 2:
        first: date = days[0][2]
        last: date = days[-1][2]
        return (last - first).days + 1 if last >= first else None
    named = [(m.start(), _WEEKDAYS.index(m.group(1).lower())) for m in _DAY.finditer(question)]
    back = _RETURN.search(question)
    if len(named) >= 2 and back is not None:
        out = named[0][1]
        after = [d for at, d in named if at > back.start()]
        home = after[0] if after else named[-1][1]
        return (home - out) % 7 + 1
    nights = _NIGHTS.search(question)
    if nights is not None:
        word = nights.group(1).lower()
        return (int(word) if word.isdigit() else _NUMBERS[word]) + 1
    return None


def meals_provided(question: str, days: int) -> dict[str, int]:
    """How many of each meal the trip is given ("breakfast ... on Tuesday, Wednesday and Thursday": 3;
    "a hotel that includes breakfast" with one night: 1, one per night)."""
    out: dict[str, int] = {}
    for clause in re.split(r"[.;]|\bbut\b", question):
        for meal in _MEALS:
            if not re.search(rf"\b{meal}s?\b", clause, re.I):
                continue
            if re.search(rf"\b(?:no|without|not|excluding)\b[^.]*\b{meal}", clause, re.I):
                continue
            said = re.search(rf"\b{meal}", clause, re.I)
            rest = clause[said.start() :] if said else clause  # the days it is provided on follow it
            on_days = len({m.group(1).lower() for m in _DAY.finditer(rest) if not _RETURN.search(rest)})
            listed = _DAY_LIST.search(rest)  # "on 3, 4 and 5 June"
            on_days = on_days or (len(re.findall(r"\d{1,2}", listed.group(1))) if listed else 0)
            counted = re.search(
                rf"(?<![\d,.])\b([1-9]|1\d|one|two|three|four|five|six|seven) {meal}s?\b", clause, re.I
            )
            if counted:
                word = counted.group(1).lower()
                n = int(word) if word.isdigit() else _NUMBERS[word]
            elif on_days:
                n = on_days
            else:  # with the hotel: one per night
                n = max(days - 1, 1) if re.search(r"\bhotel|night", clause, re.I) else 1
            out[meal] = out.get(meal, 0) + n
    return out


def allowance_plan(question: str) -> tuple[PlanStep, ...] | None:
    """The steps for a trip's allowance (see the module docstring), or None."""
    asked = _ALLOWANCE.search(question)
    if asked is None or not re.search(r"\bhow much\b|\bwhat\b|\bclaim\b", question, re.I):
        return None
    days = trip_days(question)
    if days is None or not 1 <= days <= 366:
        return None
    name = asked.group(1).lower()
    where = [m.group(1) for m in _WHERE.finditer(question)][:1]
    found = names_in(question)
    going = {m.group(1) for m in _DESTINATION.finditer(question)}
    # the destination sets the full day's rate; the rules for travel days and meals are the company's
    about = _about([*found, *where])
    rules = _about([n for n in found if n not in going] + where)
    full = f"What is the {name} for a full calendar day away{about}?"
    travel = f"What is the {name} or rate for the day of departure or return{rules}?"
    steps = [PlanStep(1, LOOKUP, full.rstrip("?"), full), PlanStep(2, LOOKUP, travel.rstrip("?"), travel)]
    meals = meals_provided(question, days)
    deductions: list[str] = []
    for meal, count in meals.items():
        index = len(steps) + 1
        ask = f"What is deducted from the {name} for a {meal} provided{rules}?"
        steps.append(PlanStep(index, LOOKUP, ask.rstrip("?"), ask))
        deductions.append(f" - {count} * part(v{index} of v1)")
    travel = "part(v2 of v1)" if days == 1 else f"2 * part(v2 of v1) + {days - 2} * v1"
    expression = f"({travel}{''.join(deductions)})"
    needs = tuple(s.index for s in steps)
    steps.append(PlanStep(len(steps) + 1, CALC, question, expression, needs, unit="EUR"))
    return tuple(steps)


def _about(names: list[str]) -> str:
    return f" ({', '.join(dict.fromkeys(names))})" if names else ""


def render_parts(expression: str, values: Mapping[int, Value]) -> str:
    """``part(vA of vB)`` as the amount vA, or as vA percent of vB when vA is a percentage."""

    def part(m: re.Match[str]) -> str:
        a, b = values.get(int(m.group(1))), values.get(int(m.group(2)))
        if a is None or a.number is None:
            return f"v{m.group(1)}"
        if a.unit == "%" and b is not None and b.number is not None:
            return f"({format_number(b.number)} * {format_number(a.number)} / 100)"
        return format_number(a.number)

    return PART.sub(part, expression)


__all__ = ["PART", "allowance_plan", "meals_provided", "render_parts", "trip_days"]
