"""Percentages, per-unit prices and date shifts applied to an earlier value (pure).

- **A percentage stated in the request** on an earlier value: "take 20 % off whatever it prints" ->
  ``v * (1 - 20 / 100)``, "add 15 % on top of it" -> ``v * (1 + 15 / 100)``;
- **a percentage found earlier** applied to an amount the request states: "add it to a freight bill of
  EUR 860" after looking up a surcharge percentage -> ``860 * (1 + v / 100)``; a discount comes off; "that
  share of EUR 1,200" is ``v / 100 * 1200``;
- **a price per unit** of an earlier value that states its quantity: "work out the price per kg" after
  "the price of a 25 kg sack" -> ``v / 25``;
- **a value split** between a number of parts: "split it between 6 families";
- **an amount per period** for another period: "turn it into a weekly figure" of a monthly rent;
- **the days between two dates** looked up: "tell me how many days late it is";
- **a date shift** with no reference after a question that asks for a date: "When was X resolved? Give
  the date two weeks later." -> the date found, two weeks on.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.types import CALC, DATE, LOOKUP, PlanStep
from ioa_p2p.planning.units import period_of, periods, unit_phrase
from ioa_p2p.planning.values import ALIASES, exact, numbers_in

_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent\b)", re.I)
_LESS = re.compile(
    r"\b(?:off|discount\w*|less|reduc\w*|cut|lower\w*|minus|subtract|deduct\w*|take away|knock)\b", re.I
)
_MORE = re.compile(
    r"\b(?:on top|more|extra|add|added|plus|increase\w*|rais\w*|mark(?:ed)? up|markup|surcharge|"
    r"including|incl|inclusive|with)\b",
    re.I,
)
_OF = re.compile(r"\b(?:of|share|portion|part)\b", re.I)
_SOURCE_SHARE = re.compile(r"\b(?:percent\w*|per cent|share|proportion)\b|%", re.I)
_SOURCE_LESS = re.compile(r"\b(?:discount|reduction|rebate|off|credit|deduct\w*)\b", re.I)


def percent_step(index: int, clause: str, source: PlanStep | None) -> PlanStep | None:
    """A percentage applied to an earlier value (see the module docstring), or None."""
    if source is None:
        return None
    text = digits(clause)
    stated = _PERCENT.findall(text)
    others = [n for n in numbers_in(_PERCENT.sub(" ", text)) if n.unit != "%"]
    v = f"v{source.index}"
    if len(stated) == 1 and not others:  # "take 20 % off it", "add 15 % on top"
        p = stated[0]
        if _LESS.search(clause):
            return PlanStep(index, CALC, clause, f"({v} * (1 - {p} / 100))", (source.index,))
        if _MORE.search(clause):
            return PlanStep(index, CALC, clause, f"({v} * (1 + {p} / 100))", (source.index,))
        return None
    found = source.kind == LOOKUP  # a percentage the documents give (a calculation's own % is no share)
    if stated or len(others) != 1 or not found or not _SOURCE_SHARE.search(source.text):
        return None
    amount = exact(others[0].number)
    if _LESS.search(clause) or (
        re.search(r"\bappl(?:y|ied)\b", clause, re.I) and _SOURCE_LESS.search(source.text)
    ):
        expression = f"({amount} * (1 - {v} / 100))"
    elif _MORE.search(clause) or re.search(r"\bappl(?:y|ied)\b", clause, re.I):
        expression = f"({amount} * (1 + {v} / 100))"
    elif _OF.search(clause):
        expression = f"({v} / 100 * {amount})"
    else:
        return None
    return PlanStep(index, CALC, clause, expression, (source.index,), unit=others[0].unit)


_PER_UNIT = re.compile(r"\bper ([a-z³²]+)\b", re.I)


def per_unit_step(index: int, clause: str, source: PlanStep | None) -> PlanStep | None:
    """ "Work out the price per kg" of an earlier value whose question states its quantity in kg."""
    if source is None or re.search(r"\d", digits(clause)):
        return None
    m = _PER_UNIT.search(clause)
    unit = unit_phrase(m.group(1), ALIASES) if m else ""
    if not unit:
        return None
    stated = [q for q in stated_quantities(digits(source.text)) if q.unit == unit]
    if len(stated) != 1 or _PER_UNIT.search(source.text):
        return None
    return PlanStep(index, CALC, clause, f"(v{source.index} / {exact(stated[0].number)})", (source.index,))


_SHIFT = re.compile(
    r"\b(\d+|a|one)\s+(days?|weeks?|months?|years?)\s+(later|afterwards|after|on|before|earlier|prior)\b",
    re.I,
)


def date_shift_step(index: int, clause: str, source: PlanStep | None) -> PlanStep | None:
    """ "Give the date two weeks later." after a question that asks for a date: that date moved."""
    if source is None or answer_type(source.template).kind != "date":
        return None
    text = digits(clause)
    m = _SHIFT.search(text)
    if m is None or not re.search(r"\b(?:date|day|when|deadline)\b", clause, re.I):
        return None
    way = "before" if m.group(3).lower() in ("before", "earlier", "prior") else "after"
    n = "1" if m.group(1).lower() in ("a", "one") else m.group(1)
    return PlanStep(
        index, DATE, clause, f"the date {n} {m.group(2)} {way} {{{source.index}}}", (source.index,)
    )


_SPLIT = re.compile(
    r"\b(?:split|share|divide|shared|split up)\b[^.;]*?\b(?:between|among|amongst|by|across)\s+(\d+)\b"
    r"|\bper (?:person|head|guest|family|member) (?:for|among|between)\s+(\d+)\b"
    # "split it into 4 equal payments", "each of the ten monthly instalments": a total in that many parts
    r"|\b(?:split|divide|spread)\b[^.;]*?\b(?:into|over)\s+(\d+)\s+(?:equal\s+)?(?:[a-z-]+\s+)?"
    r"(?:instalments|installments|payments|parts|shares|portions|bills|invoices)\b"
    r"|\beach of (?:the |its |their )?(?:[a-z-]+ )?(\d+)\s+(?:[a-z-]+\s+){0,2}"
    r"(?:instalments|installments|payments|parts|shares|portions|bills|invoices)\b",
    re.I,
)


def split_step(index: int, clause: str, source: PlanStep | None) -> PlanStep | None:
    """ "split it between 6 families", "each of the ten monthly instalments": the earlier value over the
    number of parts."""
    if source is None:
        return None
    m = _SPLIT.search(digits(clause))
    if m is None:
        return None
    parts = next(g for g in m.groups() if g)
    return PlanStep(index, CALC, clause, f"(v{source.index} / {parts})", (source.index,))


def period_step(index: int, clause: str, source: PlanStep | None) -> PlanStep | None:
    """ "turn it into a weekly figure" of an amount per month: the amount for the other period."""
    if source is None or re.search(r"\d", digits(clause)):
        return None
    src = period_of(source.text, per=True)
    dst = period_of(clause, per=True) or period_of(clause, per=False)
    k = periods(src, dst) if src and dst else None
    if k is None:
        return None
    return PlanStep(
        index, CALC, clause, f"(v{source.index} * {exact(k, 12)})", (source.index,), unit=source.unit
    )


_DAYS_ASKED = re.compile(r"\bhow (?:many (?:calendar |working |business )?(?:days|weeks)|long)\b", re.I)
_DATE_WORDS = re.compile(r"\b(?:dates?|when|day|deadline|start|end|begin\w*|finish\w*|due)\b", re.I)


def days_between_step(index: int, clause: str, before: list[PlanStep], pending: list[int]) -> PlanStep | None:
    """ "tell me how many days late it is" after looking up two dates: the days from the first to the
    second."""
    if len(pending) < 2 or not _DAYS_ASKED.search(clause) or re.search(r"\d", digits(clause)):
        return None
    a, b = pending[-2], pending[-1]
    if not all(_DATE_WORDS.search(before[n - 1].text) for n in (a, b)):
        return None
    return PlanStep(index, DATE, clause, f"How many days are there from {{{a}}} to {{{b}}}?", (a, b))


__all__ = [
    "date_shift_step",
    "days_between_step",
    "per_unit_step",
    "percent_step",
    "period_step",
    "split_step",
]
