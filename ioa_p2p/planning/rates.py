"""Naturally worded questions that apply a rate from the documents to a quantity from the request (pure).

The request states a quantity (a number with a unit or a count of things: "a 5,000-litre pond", "650
business cards", "fourteen jars", "a 3 kg parcel") and asks for something the documents define per unit
of it. Three relations cover most such questions:

- **how long** for a quantity of volume, length, mass or energy: the quantity over the rate at which the
  named thing moves it ("how long will the AL-350 take to empty a 5,000-litre pond at full flow" ->
  ``5000 / v1`` with v1 the AL-350's maximum flow in L/min: minutes);
- **what it costs** (cost, price, pay, charge, claim) for a count or a measured quantity: the rate per unit
  times the quantity ("what would 650 business cards cost" -> the per-card rate for an order of 650,
  ``v1 * 650``);
- **how much of an ingredient** for a count of what a batch makes: the amount per batch over what one batch
  makes, times the count ("how much sugar for fourteen jars of lemon curd" -> ``v1 / v2 * 14``).

Each relation asks the documents for one or two values, worded with the names the request uses; the
retrieval's answer types, bands and units do the rest. None of these shapes: None.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import MONEY_UNITS, answer_type
from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.literal import digits, names_in
from ioa_p2p.planning.party import age_spans
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.units import DIMENSIONS
from ioa_p2p.planning.values import ALIASES, exact, numbers_in

#: what moves a quantity of each kind (the rate a "how long" question divides by)
RATE_OF = {"volume": "maximum flow", "length": "speed", "mass": "throughput", "energy": "power"}
_COST = re.compile(r"\b(?:cost|costs|price|pay|charge|charged|claim|bill|fee|spend|come to|worth)\b", re.I)
_COUNTABLE = re.compile(r"^[a-z][a-z-]+$")
_NOT_THINGS = frozenset(
    "of the a an and or to for in on at by with from per each every year years month months day days".split()  # noqa: SIM905
)


#: words after a number that say it counts a thing named before it ("when 25 are ordered")
_VERBS = frozenset("are is were was be will would get got have has had".split())  # noqa: SIM905
#: a price asked per item ("cost each", "apiece", "the unit price"): the count only selects the price
_EACH = re.compile(
    r"\b(?:cost|costs|charged|priced|price|pay|is|are)\s+(?:each|apiece)\b|\bunit price\b", re.I
)


def _dimension(unit: str) -> str:
    return next((dim for dim, units in DIMENSIONS.items() if unit in units), "")


def quantity(text: str) -> tuple[float, str, str] | None:
    """The one quantity a request states: (number, unit or "", the thing counted or measured)."""
    spelled = re.sub(r"(\d)-(?=[a-z])", r"\1 ", digits(text))  # "a 5,000-litre pond"
    found = [n for n in numbers_in(spelled) if not (n.unit == "" and 1900 <= n.number <= 2100)]
    found = [n for n in found if n.unit or not spelled[n.end : n.end + 1].isalpha()]  # "Flat 4B": a code
    ages = age_spans(spelled)  # "I'm 70 and ...", "aged 12": an age, never a count
    found = [n for n in found if not any(a <= n.start < b for a, b in ages)]
    if len(found) != 1:
        return None
    n = found[0]
    after = spelled[n.end :].lstrip(" -")
    words = re.findall(r"[a-z][a-z-]*", after.lower())[:4]
    if not n.unit and words and words[0] in _VERBS:  # "when 25 are ordered": the thing is named before
        return n.number, "", ""
    if n.unit:
        return n.number, n.unit, " ".join(w for w in words[:2] if w not in _NOT_THINGS)
    thing = next((w for w in words if w not in _NOT_THINGS and _COUNTABLE.match(w)), "")
    unit = ALIASES.get(thing.removesuffix("-"), "")
    return n.number, unit, thing


def _subject(question: str, thing: str = "") -> str:
    """What a question is about: the phrase after "<thing> of" ("fourteen jars of Marrow Lane lemon curd"
    -> "Marrow Lane lemon curd"), else the names it uses ("Brennfeld AL-350")."""
    if thing:
        m = re.search(rf"\b{re.escape(thing)} of (?:the |our |your )?([^.,;?!]+)", question, re.I)
        if m and names_in(m.group(1)):
            return " ".join(m.group(1).split()[:6])
    names = names_in(question)
    return " ".join(dict.fromkeys(names)) if names else ""


def apply_rate(question: str) -> tuple[PlanStep, ...] | None:
    """The steps for a question of one of the three relations (see the module docstring), or None."""
    asked = answer_type(question)
    stated = quantity(question)
    if stated is None:
        return None
    number, unit, thing = stated
    subject = _subject(question, thing)
    if not subject:
        return None
    n = exact(number)
    if asked.kind == "duration" and _dimension(unit):
        at = re.search(r"\bat (?:its |the )?((?:full|maximum|max\.?|top|rated|nominal) [a-z]+|[a-z]+ rate)\b",
                       question, re.I)  # fmt: skip
        rate = at.group(1) if at else RATE_OF.get(_dimension(unit), "")
        if not rate:
            return None
        lookup = PlanStep(1, LOOKUP, f"{rate} of the {subject}", f"What is the {rate} of the {subject}?")
        return lookup, PlanStep(2, CALC, question, f"{n} / v1", (1,))
    if asked.kind == "amount" or (asked.kind == "number" and _COST.search(question)):
        if (not thing and not unit) or _EACH.search(question):
            return None  # "what does a poster cost each when 25 are ordered": the price each, not times 25
        per = singular(thing) if thing and not unit else (unit or thing)  # "boxes" -> box, "business" stays
        q = f"What is the price per {per} of {subject} for {n} {thing or unit}?"
        lookup = PlanStep(1, LOOKUP, q.rstrip("?"), q)
        return lookup, PlanStep(2, CALC, question, f"v1 * {n}", (1,), unit=MONEY_UNITS[0])
    how_much = re.search(r"\bhow (?:much|many) ([a-z]+(?: [a-z]+)?)", question, re.I)
    if how_much and thing and not unit and asked.kind in ("number", "amount", "count"):
        what = how_much.group(1)
        if what.split()[0] in ("money", "euros", "it") or thing.startswith(what.split()[-1][:4]):
            return None
        made = thing if thing.endswith("s") else thing + "s"
        first = f"How much {what} does one batch of {subject} need?"
        second = f"How many {made} does one batch of {subject} make?"
        return (
            PlanStep(1, LOOKUP, first.rstrip("?"), first),
            PlanStep(2, LOOKUP, second.rstrip("?"), second),
            PlanStep(3, CALC, question, f"v1 / v2 * {n}", (1, 2)),
        )
    return None


__all__ = ["RATE_OF", "apply_rate", "quantity"]
