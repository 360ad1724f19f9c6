"""A needed value the planner does not have (pure): named and typed, never guessed.

When a derivation cannot close without a quantity the documents read do not state (a rate per hour to
apply to the request's "3 hours", a price of the thing the question names), it says so with a
:class:`Missing`: **what** is missing (the quantity, in words), its **unit** or type (``EUR/h``,
``count``, ``date``), the step that needs it and **why** the values at hand do not give it. The goal's
driver (the offline planner, and under a model its floor) then assigns that step to nobody: the step
fails as "missing", the conclusion names the value first ("No answer: missing value: ...") and ``ioa
goal`` exits 3 (docs/goals.md, section 10). A refusal that names what is missing is worth more to a user
than a confident wrong number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import STOP, Quantity, convert
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, format_number, numbers_in

#: The status of a step the planner refused to work on: a value it needs is missing.
MISSING = "missing"


@dataclass(frozen=True, slots=True)
class Missing:
    """A value a step needs and nobody gave: ``what`` (in words), ``unit`` (a unit symbol such as ``EUR``
    or ``EUR/h``, or a type such as ``count``, ``date``; "" when unknown) and ``why`` (what was found
    instead, or what it would be applied to)."""

    what: str
    unit: str = ""
    why: str = ""

    def named(self) -> str:
        """``a rate in EUR per h [EUR/h]``: what is missing, without why (the conclusion's first line)."""
        return f"{self.what} [{self.unit}]" if self.unit and self.unit not in self.what else self.what

    def shown(self) -> str:
        """``a rate in EUR per h (the documents read state none to apply to "3 hours")``."""
        unit = f" [{self.unit}]" if self.unit and self.unit not in self.what else ""
        why = f" ({self.why})" if self.why else ""
        return f"{self.what}{unit}{why}"

    def to_dict(self) -> dict[str, str]:
        return {"what": self.what, "unit": self.unit, "why": self.why}


def rate_wanted(want: str, per: str) -> str:
    """ "EUR" per "h" -> "EUR/h" (the unit of a rate that would close the derivation)."""
    if want and want == per:
        return "%"  # a share of an amount in the same unit
    return f"{want}/{per}" if want and per else want or per


_MONTHS = frozenset(
    re.findall(
        r"\S+",
        "january february march april may june july august september october november december "
        "jan feb mar apr jun jul aug sep sept oct nov dec",
    )
)
_ONE = {"days": "day", "weeks": "week", "months": "month", "years": "year", "nights": "night"}
_RANGE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:-|\u2013|\u2014|to)\s*(\d+(?:\.\d+)?)(?![\d.])")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n")


def unapplied(counted: list[Quantity], wants: list[str], found: Value) -> Missing | None:
    """The rate missing when the value looked up (an amount the documents state) is given as the answer
    to a request that states quantities (``counted``: "3 hours", "two suitcases") none of which the
    documents state it for: the value applies to none of them, so the answer would be a guess. None when
    there is no such quantity, or the sentence the value was read from states it for that quantity
    ("a 3-hour rental costs EUR 30" answers "what does a 3-hour rental cost")."""
    if found.kind != NUMBER or found.number is None:
        return None
    quantities = [g for g in counted if _counts_something(g) and not _stated_with(found, g)]
    if not quantities:
        return None
    g = quantities[0]
    fits = not wants or any(convert(found.unit, w) is not None for w in wants)
    want = found.unit if found.unit and fits else (wants[0] if wants else "")
    per = g.unit
    one = _ONE.get(per, per)
    what = f"a rate in {want} per {one}" if want and want != per else f"a share of {g.text}"
    what = what if want else f"a value per {one}"
    why = f"{found.shown()} was found, stated for none of the request's {g.text}"
    return Missing(what, rate_wanted(want, per), why)


def _counts_something(g: Quantity) -> bool:
    """A quantity of a unit or of things ("3 h", "2 suitcases"), not a stray number ("Year 9", "12 and",
    a day of a month)."""
    unit = g.unit.lower()
    year = g.number == int(g.number) and 1900 <= g.number <= 2100 and g.unit not in ALIASES.values()
    named = bool(unit) and unit not in STOP and unit not in _MONTHS and (len(unit) > 2 or not unit.isalpha())
    return named and not year


def _stated_with(found: Value, g: Quantity) -> bool:
    """Some sentence of the passages ``found`` was read from states both its number and ``g``'s."""
    for passage in found.evidence:
        for sentence in _SENTENCES.split(passage):
            numbers = {n.number for n in numbers_in(sentence)}
            if found.number not in numbers:
                continue
            if g.number in numbers or format_number(g.number) in sentence or _in_a_range(g.number, sentence):
                return True
    return not found.evidence  # nothing to check against: the value stands as it was found


_ITEM_CODE = re.compile(
    r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Z])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b"
)


def item_codes(text: str) -> frozenset[str]:
    """The model or item codes a text names (``K2``, ``VC-24R``, ``AL-350``): a letter first, a capital
    and a digit in it ("3rd", "mp3" are none)."""
    return frozenset(m.group(0).upper() for m in _ITEM_CODE.finditer(text))


def names_another(text: str, question: str) -> bool:
    """``text`` (a rate's sentence or row) is about another item than the question: it names item codes
    and none of the codes the question names ("The K1 can be hired for EUR 45 per day" for the K2)."""
    asked = item_codes(question)
    stated = item_codes(text)
    return bool(asked) and bool(stated) and not asked & stated


def _in_a_range(number: float, sentence: str) -> bool:
    """The sentence states a band the number falls in ("Child (4-17) | 7.50" for a 9-year-old)."""
    return any(float(a) <= number <= float(b) for a, b in _RANGE.findall(sentence))


__all__ = ["MISSING", "Missing", "item_codes", "names_another", "rate_wanted", "unapplied"]
