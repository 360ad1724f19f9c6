"""A quantity counted in a unit that a stated rate or an earlier value defines (pure).

A day of work is not 24 hours, nor a week of work 168: when a request states the rate ("convert 38.5
hours to days at 7.7 hours per day", "how many days are 60 hours at 7.5 hours a day") or an earlier step
found the length of one unit ("the length of the standard office week", then "a project takes 150 hours;
how many weeks is that?"), the quantity is divided by that rate when the answer is asked in the unit the
rate is per (hours -> days: 38.5 / 7.7), and multiplied when the quantity is in that unit and the answer
in the rate's own (4 days -> hours: 4 * 7.7). The direction comes from the units, never from the order of
the words.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.types import CALC, PlanStep
from ioa_p2p.planning.units import unit_phrase
from ioa_p2p.planning.values import ALIASES

_NUMBER = r"(\d+(?:\.\d+)?)"
#: "7.7 hours per day", "7.5 hours a day", "37.5 hours each week", "8 hours in a shift"
_RATE = re.compile(rf"{_NUMBER}\s*([a-z]+)\s+(?:per|a|an|each|every|in a|in an|in each)\s+([a-z]+)\b", re.I)
_QUANTITY = re.compile(rf"{_NUMBER}\s*([a-z]+)\b", re.I)
_ASKED = re.compile(
    r"\bhow many (?:working |work |whole |full )?([a-z]+)\b"
    r"|\b(?:to|into|in|as)\s+(?:working |work |whole |full )?([a-z]+)\s+(?:at|using|with|given)\b"
    r"|\b(?:to|into|in|as)\s+(?:working |work |whole |full )?([a-z]+)\s*[?.!]?$",
    re.I,
)


def _unit(word: str) -> str:
    return unit_phrase(word, ALIASES) or ALIASES.get(word.lower(), "")


def _asked(clause: str) -> str:
    m = _ASKED.search(clause)
    return _unit(next(g for g in m.groups() if g)) if m else ""


def at_stated_rate(clause: str, index: int) -> PlanStep | None:
    """ "Convert 38.5 hours to days at 7.7 hours per day" -> ``(38.5 / 7.7)`` in days; None unless the
    clause states one quantity, one rate of that quantity's unit per another unit, and asks one of them."""
    text = clause.replace(",", "")
    rate = _RATE.search(text)
    if rate is None:
        return None
    own, per = _unit(rate.group(2)), _unit(rate.group(3))
    others = [m for m in _QUANTITY.finditer(text) if not rate.start() <= m.start() < rate.end()]
    quantities = [(m.group(1), _unit(m.group(2))) for m in others if _unit(m.group(2))]
    asked = _asked(text[: rate.start()] + text[rate.end() :])
    if len(quantities) != 1 or not own or not per or own == per or not asked:
        return None
    number, unit = quantities[0]
    if unit == own and asked == per:  # hours -> days at hours per day
        return PlanStep(index, CALC, clause, f"({number} / {rate.group(1)})", unit=per)
    if unit == per and asked == own:  # days -> hours at hours per day
        return PlanStep(index, CALC, clause, f"({number} * {rate.group(1)})", unit=own)
    return None


def in_units_of(index: int, clause: str, before: list[PlanStep], source: PlanStep | None) -> PlanStep | None:
    """ "A project takes 150 hours; how many weeks is that?" after the length of one week: 150 / v."""
    m = _ASKED.search(clause)
    word = next(g for g in m.groups() if g).lower() if m else ""  # "weeks", "shifts"
    if source is None or not word:
        return None
    asked = _unit(word)
    quantities = [(q.group(1), _unit(q.group(2))) for q in _QUANTITY.finditer(clause.replace(",", ""))]
    quantities = [q for q in quantities if q[1]]
    if len(quantities) != 1 or quantities[0][1] == asked:
        return None
    names = {w.lower().rstrip("s") for w in re.findall(r"[a-z]+", source.text, re.I)}
    singular = next((w for w, u in ALIASES.items() if asked and u == asked and not w.endswith("s")), word)
    if word.rstrip("s") not in names and singular not in names:
        return None  # the earlier value is no length of one of the things asked for
    number = quantities[0][0]
    return PlanStep(index, CALC, clause, f"({number} / v{source.index})", (source.index,), unit=asked)


__all__ = ["at_stated_rate", "in_units_of"]
