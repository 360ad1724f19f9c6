"""The second operand of a rate the lookup found: the situation's quantity its unit takes, or refused (pure).

A natural question's lookup often finds a rate, not the answer: "EUR 3.20 per zone travelled" for "what is
an adult single fare from Ashby to Kellow", "EUR 1.80 per square metre per month" for "what do the cleaners
charge per month for the open-plan areas", "EUR 12 per child" for "what do two adults and three children
pay". When no derivation closes (planning/derive.py), the value looked up used to answer as it was, times
one: the rate given as the total. :func:`rate_operand` decides instead, from the unit of the rate's own
fact (what the sentence the value was read from states it **per**):

- each unit the question asks per ("per month", "a night", "nightly", "each") stays a rate's unit;
- each other unit takes the situation's quantity of that unit (planning/situation_values.py: measures and
  durations by their units, counts by the thing counted, a stay's nights between two dates, the party's
  persons or the members of the kind the rate names): ``3.2 * 3`` for three zones, ``12 * 3`` for three
  children, ``95 * 3`` for a stay from 5 to 8 October;
- a unit no quantity of the situation fits is the missing value: the step is refused (exit 3) naming it
  ("the number of zones the question is about"), never answered with the bare rate. A period ("per
  month", "per night") the situation gives no duration for, and a person when it names no party, leave
  the rate as the answer: "what does the Full plan cost" is the monthly fee, "an adult ticket" one
  person's; so does a thing the question names as one ("a visit", "each bag").

None when the value looked up is no rate (its fact is per nothing, or per one item of a table's row).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.doc_facts import Quantity, convert, facts_in, singular
from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.situation_values import SituationValue, situation_values
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, format_number

#: units of time a rate may be per: a rate per period answers a question that gives no duration
_PERIODS = frozenset(
    {
        "min",
        "h",
        "days",
        "day",
        "night",
        "week",
        "weeks",
        "months",
        "month",
        "year",
        "years",
        "quarter",
        "quarters",
        "season",
        "term",
        "session",
        "shift",
    }
)
#: units a rate is per one person of: they multiply a party, else the rate is one person's
_PERSONS = frozenset(
    {
        "person",
        "people",
        "head",
        "adult",
        "child",
        "children",
        "senior",
        "student",
        "guest",
        "passenger",
        "traveller",
        "pupil",
        "teenager",
        "member",
        "visitor",
        "rider",
    }
)
#: words a rate's "per" may take that are no unit ("per extra hour": its unit is the hour)
_NOT_UNITS = frozenset(
    {
        "extra",
        "additional",
        "further",
        "each",
        "every",
        "started",
        "full",
        "part",
        "whole",
        "one",
        "the",
        "a",
        "an",
        "cent",
    }
)
#: how a question names a unit it asks the rate per
_ADVERBS = {
    "night": "nightly",
    "days": "daily",
    "h": "hourly",
    "weeks": "weekly",
    "months": "monthly",
    "years": "yearly|annual|annually|a year|per year",
    "quarters": "quarterly",
}
_NAMES = {
    "h": "hours?|hr",
    "min": "minutes?|min",
    "days": "days?",
    "weeks": "weeks?",
    "months": "months?",
    "years": "years?",
    "m²": r"square met(?:re|er)s?|m²|m2|sqm",
    "kg": "kilo(?:gram)?s?|kg",
    "km": "kilomet(?:re|er)s?|km",
    "kWh": "kWh",
    "person": "persons?|people|heads?",
    "children": "child(?:ren)?",
    "child": "child(?:ren)?",
    "night": "nights?",
}


def _name(unit: str) -> str:
    return _NAMES.get(unit, rf"{re.escape(singular(unit))}(?:e?s)?")


def rate_fact(found: Value) -> Quantity | None:
    """The fact of ``found``'s passages that states its number as a rate (per something); None when
    none does, or it is an amount per one item of a table's row."""
    if found.kind != NUMBER or found.number is None:
        return None
    for passage in found.evidence:
        for fact in facts_in(passage):
            if fact.number == found.number and fact.unit == found.unit:
                per = fact.per or _per_after(fact.text[fact.at :])
                return replace(fact, per=per) if per and not fact.per_item else None
    return None


#: "EUR 8 a visit", "EUR 12/hour", "30 EUR a day": what an amount is per when no "per" says it
_A_UNIT = re.compile(r"^\S+(?:\s+[A-Z]{3})?(?:\s+[A-Z]{3}|\s*[\d.,]+)?\s*(?:/\s*|\s+an?\s+)([a-z]+)\b")


def _per_after(text: str) -> tuple[str, ...]:
    m = _A_UNIT.match(text)
    if m is None or m.group(1) in _NOT_UNITS:
        return ()
    return (ALIASES.get(m.group(1), singular(m.group(1))),)


def _asked_per(question: str, unit: str) -> bool:
    """The question asks for the rate per ``unit`` ("per month", "a night", "nightly", "for each bag")."""
    name = _name(unit)
    if re.search(rf"\b(?:per|a|an|each|every|one)\s+(?:[a-z-]+\s+){{0,2}}?(?:{name})\b", question, re.I):
        return True
    adverb = _ADVERBS.get(unit)
    return bool(adverb and re.search(rf"\b(?:{adverb})\b", question, re.I)) or f"/{unit}" in question


def _fits(unit: str, value: SituationValue) -> bool:
    if unit in _PERSONS:
        return value.what == ("person" if unit in ("person", "people", "head") else singular(unit))
    if unit == "night":
        return value.what in ("night", "nights")
    return convert(value.what, unit) is not None


def _operand(unit: str, values: list[SituationValue]) -> str | None:
    """The situation's quantity in ``unit`` as an operand (converted: "90 min" for a rate per hour is
    ``1.5``); None when none fits."""
    for value in values:
        if _fits(unit, value):
            scale = 1.0 if unit in _PERSONS or unit == "night" else convert(value.what, unit) or 1.0
            return format_number(value.number * scale)
    return None


def _head(unit: str, text: str) -> str:
    """The unit a rate's words end in when ``unit`` only qualifies it ("per rental day": days)."""
    m = re.search(rf"\bper\s+(?:{_name(unit)})\s+([a-z]+)\b", text, re.I)
    if m is None:
        return unit
    word = m.group(1).lower()
    head = ALIASES.get(word, "") or ("night" if word.startswith("night") else singular(word))
    return head if head in _PERIODS or head in _PERSONS else unit


def _modifies(unit: str, later: list[str], text: str) -> bool:
    """``unit`` only qualifies the unit after it ("per rental day": the day), unless joined to it as a
    product ("per engineer-hour": engineers times hours)."""
    return any(
        re.search(rf"\b(?:{_name(unit)})\s+(?:{_name(after)})\b", text, re.I) is not None
        for after in later[:1]
    )


def _plural(unit: str) -> str:
    word = {"h": "hour", "min": "minute", "m²": "square metre", "km": "kilometre", "kg": "kilogram"}.get(
        unit, singular(unit)
    )
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def rate_operand(question: str, found: Value) -> tuple[str, str] | Missing | None:
    """(expression, unit) of the rate ``found`` times the situation's quantities of its units; the
    :class:`Missing` quantity when a unit takes none; None when ``found`` is no rate, or every unit is one
    the question asks per or leaves as the rate's (see the module docstring)."""
    fact = rate_fact(found)
    if fact is None or found.number is None:
        return None
    values = situation_values(question)
    operands: list[str] = []
    units = [_head(u, fact.text) for u in dict.fromkeys(fact.per) if u.lower() not in _NOT_UNITS]
    for unit in [u for i, u in enumerate(units) if not _modifies(u, units[i + 1 :], fact.text)]:
        if _asked_per(question, unit):
            continue
        operand = _operand(unit, values)
        if operand is not None:
            operands.append(operand)
            continue
        if unit in _PERIODS or unit in _PERSONS:
            continue  # no duration, no party: the rate per period, or one person's, answers
        one = re.escape(singular(unit))
        if re.search(rf"\b{one}\b", question, re.I) and not re.search(rf"\b{one}e?s\b", question, re.I):
            continue  # the question names the thing itself ("a visit", "the zone"): one of it
        shown = " ".join(fact.text.split())[:100]
        return Missing(
            f"the number of {_plural(unit)} the question is about",
            "count",
            f"{found.shown()} is stated per {singular(unit)} ({shown}); the question gives no number of them",
        )
    if not operands:
        return None
    return " * ".join([format_number(found.number), *operands]), found.unit


__all__ = ["rate_fact", "rate_operand"]
