"""Dimensions (pure): what a unit measures and what a question asks to be measured.

A value's **dimension** is read from its unit (its numerator for a rate: "EUR/h" is money): mass, volume,
length, area, time, energy, power, money, temperature, share (``%``), voltage; "" for a bare number, a count
of things ("jars", "guests") or a unit we do not know. A question's **asked dimensions** come from its own
words, only where they cannot mean anything else:

==============================================  ==========================
asked by                                        dimensions
==============================================  ==========================
how long / how much time / how many minutes     time
how many <unit> ("how many kg", "litres")       the unit's
how much does it cost, what is the price / fee  money
the weight of, how heavy                        mass
the temperature of, how hot                     temperature
how much <substance> ("how much water")         mass, volume, money, energy, share, time
what time, the earliest I can be there           clock (or time: a duration moves it)
when, which day, the deadline                    date (or time)
what share / percentage of                       share
==============================================  ==========================

:func:`mismatch` says when a value's unit **cannot** be an answer to its question ("300 mm" for "how much
water was lost", "350 °C" for "how long does it take", "EUR 84" for "how many minutes"): such a value is
refused, never passed on as an answer (planning/compose.py :func:`~ioa_p2p.planning.compose.answers`, the
retrieval's answer spans, :func:`~ioa_p2p.planning.refusal.dimension_refusal`). A question that asks for no
dimension, a value without one, and a rate ("160 L/min": an answer is derived from it) are never refused.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type, hour_or_day
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, is_money

_OF_UNIT: dict[str, str] = {
    **dict.fromkeys(("g", "kg", "t", "lb"), "mass"),
    **dict.fromkeys(("ml", "L", "m³"), "volume"),
    **dict.fromkeys(("mm", "cm", "m", "km", "miles"), "length"),
    "m²": "area",
    **dict.fromkeys(("s", "min", "h", "days", "weeks", "months", "years"), "time"),
    **dict.fromkeys(("Wh", "kWh", "MWh", "J", "kJ", "MJ"), "energy"),
    **dict.fromkeys(("W", "kW"), "power"),
    **dict.fromkeys(("°C", "°F"), "temperature"),
    "%": "share",
    "V": "voltage",
    "mAh": "charge",
}


def dimension_of(unit: str) -> str:
    """What ``unit`` measures ("kg" -> mass, "EUR/h" -> money, "L/min" -> volume); "" when it is a count,
    a bare number or unknown."""
    top = unit.partition("/")[0].strip()
    if is_money(top):
        return "money"
    return _OF_UNIT.get(top, "")


_SUBSTANCE = re.compile(r"\bhow much ([a-z]+)\b(?! (?:per|a|an|each|every)\b)")
#: "how much <word>" where the word is no substance: a verb, or a space between things
_NOT_SUBSTANCE = frozenset(
    """does do did is are was were will would can could should it in for to of we i you they he she
    altogether overall total more less extra space room clearance gap power wattage electricity current
    voltage pressure heat light noise""".split()  # noqa: SIM905
)
#: what "how much <substance>" may be answered in: an amount of matter, its price, energy, a share, a time
#: ("how much water", "how much gas" in kWh, "how much deposit", "how much leave"): never a length, a
#: temperature, an area, a power or a voltage
_AMOUNT_OF = frozenset({"mass", "volume", "money", "energy", "share", "time"})
_SHARE_ASKED = re.compile(
    r"(?:^|[,.:;!?\u2013\u2014-])\s*(?:what|which) (?:percentage|share|proportion|per ?cent)\b|\bwhat %"
)
_MONEY_WORDS = re.compile(r"\b(?:cost|costs|price|prices|fee|fees|fare|fares|charge|charged|rent|pay|paid)\b")
_WEIGHT = re.compile(r"\b(?:weight|weigh|weighs|heavy|heavier|mass)\b")
_TEMPERATURE = re.compile(r"\b(?:temperature|how hot|how cold|how warm)\b")


def asked_dimensions(question: str) -> frozenset[str]:
    """The dimensions an answer to ``question`` may have (see the module docstring); empty when the
    question does not say (then any unit may answer)."""
    q = " ".join(question.lower().split())
    asked = answer_type(question)
    if asked.kind == "duration":
        return frozenset({"time"})
    if asked.kind == "time" and hour_or_day(q):
        return frozenset({"clock", "date", "time"})  # "when do entries close": an hour or a day
    if asked.kind in ("time", "date"):  # a clock time or a date; a duration is what moves one
        return frozenset({"clock" if asked.kind == "time" else "date", "time"})
    if _SHARE_ASKED.search(q):  # "what share of the fee": a percentage, never the amount itself
        return frozenset({"share"})
    many = re.search(r"\bhow many ([\w³²-]+(?: metres| meters)?)", q)
    if many:
        unit = ALIASES.get(many.group(1), "") or ALIASES.get(many.group(1).split()[0], "")
        dim = dimension_of(unit)
        return frozenset({dim}) if dim else frozenset()
    if asked.kind == "amount":
        return frozenset({"money", "share"})  # a fee may be a percentage of something
    much = _SUBSTANCE.search(q) if asked.kind == "number" else None
    if much and much.group(1) not in _NOT_SUBSTANCE and not _MONEY_WORDS.search(q):
        # "how much water / sugar / gas", per day too ("12.8 L a day": a rate is never refused, mismatch)
        return _AMOUNT_OF
    if asked.kind != "number" or re.search(r"\bper\b|\brate\b|\bratio\b|\bshare\b|\bpercent", q):
        return frozenset()  # a rate or a share may be stated in any unit of its own
    found = set()
    if _WEIGHT.search(q):
        found.add("mass")
    if _TEMPERATURE.search(q):
        found.add("temperature")
    if _MONEY_WORDS.search(q) and not found:
        return frozenset({"money", "share"})
    return frozenset(found) if len(found) == 1 else frozenset()


def mismatch(question: str, value: Value | None) -> str:
    """Why ``value`` cannot answer ``question`` ("a length (mm) where the question asks for a mass or a
    volume"); "" when it may (a dimension the question asks for, or either says none)."""
    if value is None or value.kind != NUMBER or not value.unit:
        return ""
    if "/" in value.unit or any(name == "per" for name, _ in value.terms):
        return ""  # a rate ("160 L/min") is what a duration or an amount is derived from, not a wrong answer
    have = dimension_of(value.unit)
    wanted = asked_dimensions(question)
    if not have or not wanted or have in wanted:
        return ""
    return f"a {have} ({value.unit}) where the question asks for {' or '.join(sorted(wanted))}"


__all__ = ["asked_dimensions", "dimension_of", "mismatch"]
