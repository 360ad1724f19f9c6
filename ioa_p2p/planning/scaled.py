"""A value looked up, scaled to the amount a later calculation names (pure; issue 23 class 2).

- :func:`stated_base`: a value looked up for a stated amount of something ("how many points a EUR 5
  voucher takes", "a tart that serves 8") scaled to another amount of it ("EUR 40 of vouchers", "20
  servings") is multiplied by their ratio, not by the new amount;
- :func:`counted_in_size`: things counted in an amount ("how many parts a 200 MiB file is sent in", after
  the part's size in MiB) are the amount over one's size, rounded up;
- :func:`applied_percentage`: a percentage looked up and applied to an amount ("apply the VAT rate to a
  net bill of EUR 212.40", "apply the member discount to a EUR 80 order") gives the amount with it added or
  taken off, as the percentage's name says; "the VAT on EUR 150" stays the share.

A rate stated per a base ("per 100 mL") is :func:`ioa_p2p.planning.operations.per_base`'s.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.doc_facts import givens_in
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.values import ALIASES, format_number

_TIMES_CONST = re.compile(r"\(?\s*v(\d+)\s*\*\s*(\d+(?:\.\d+)?)\s*\)?")


def stated_base(steps: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """A value looked up for a stated amount of something ("how many points a EUR 5 voucher takes", "the
    flour in a loaf that serves 8") scaled to another amount of it ("for EUR 40 of vouchers", "scale that to
    20 servings") is multiplied by their ratio, M / N, not by M: a calculation ``vK * M`` whose step states
    M in the unit (or of the thing) the lookup states N of becomes ``vK * M / N``. A rate (per, monthly,
    each ...) is never so scaled: "the monthly fee of a 12-month plan" times 24 months is 24 fees."""
    out = list(steps)
    for n, step in enumerate(steps):
        m = _TIMES_CONST.fullmatch(step.template.strip()) if step.kind == CALC else None
        source = steps[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(steps) else None
        if m is None or source is None or source.kind != LOOKUP or _RATE_WORDS.search(source.text):
            continue
        amount = float(m.group(2))
        asked = [g for g in givens_in(step.text) if g.number == amount]
        base = _base_of(source.text, asked[0].unit if asked else "", _SCALED.search(step.text) is not None)
        if asked and base is not None and base != amount:
            out[n] = replace(step, template=f"(v{m.group(1)} * {m.group(2)} / {format_number(base)})")
    return tuple(out)


def counted_in_size(steps: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """ "How many parts is a 200 MiB file sent in", after looking up the part's size in MiB: the things
    counted are the amount over the size of one, rounded up (``ceil(M / vK)``), never the amount times it:
    a calculation ``vK * M`` that asks how many of something that is no unit, whose M is stated in the unit
    the lookup asks the size in."""
    out = list(steps)
    for n, step in enumerate(steps):
        m = _TIMES_CONST.fullmatch(step.template.strip()) if step.kind == CALC else None
        source = steps[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(steps) else None
        counted = _HOW_MANY_THINGS.search(step.text)
        if m is None or source is None or source.kind != LOOKUP or counted is None:
            continue
        thing = counted.group(1).lower()
        if ALIASES.get(thing) or _RATE_WORDS.search(source.text) or thing in {"times", "more", "fewer"}:
            continue  # "how many kg", "how many times": no count of things
        stated = [g for g in givens_in(step.text) if g.number == float(m.group(2)) and g.unit]
        unit = stated[0].unit if stated else ""
        if unit and re.search(rf"\bin {re.escape(unit)}\b", source.text, re.I):
            out[n] = replace(step, template=f"ceil({m.group(2)} / v{m.group(1)})")
    return tuple(out)


_HOW_MANY_THINGS = re.compile(r"\bhow many ([a-z]+)\b", re.I)
_RATE_WORDS = re.compile(
    r"\b(?:per|each|every|rates?|a piece|apiece|hourly|daily|weekly|monthly|yearly|annual|annually|nightly"
    r"|first|up to|over|above|under|below|beyond|more than|less than|at least|at most"  # a band's bound
    r"|an? (?:hour|day|night|week|month|year|minute|kg|km|litre|person|unit))\b",
    re.I,
)
_SCALED = re.compile(r"\b(?:scale[ds]?|scaling)\b", re.I)
_SERVES = re.compile(
    r"\b(?:serves|serving|feeds|makes|yields|for)\s+(\d+)\b|\b(\d+)\s+(?:servings|portions)\b", re.I
)


def _base_of(lookup: str, unit: str, scaled: bool) -> float | None:
    """The one amount the lookup's question states in ``unit`` (more than 1); for a step that asks to
    scale, the number of servings or people the lookup's thing is for ("(serves 8)")."""
    same = {g.number for g in givens_in(lookup) if unit and g.unit == unit and g.number > 1}
    if len(same) == 1:
        return same.pop()
    served = {float(m.group(1) or m.group(2)) for m in _SERVES.finditer(lookup)} if scaled else set()
    return served.pop() if len(served) == 1 and not same else None


def applied_percentage(steps: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """A percentage looked up and *applied* to an amount ("apply it to a net bill of EUR 212.40", "the
    gross amount of a EUR 150 net bill", "apply the discount to a EUR 80 order") is the amount with it added
    (VAT, a tax, a surcharge, a tip) or taken off (a discount, a rebate): ``M * (1 + vK)`` or ``M * (1 -
    vK)``, the percentage as a fraction; "the VAT on a EUR 150 bill" stays ``vK * M``, the share."""
    out = list(steps)
    for n, step in enumerate(steps):
        m = _TIMES_CONST.fullmatch(step.template.strip()) if step.kind == CALC else None
        source = steps[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(steps) else None
        if m is None or source is None or source.kind != LOOKUP:
            continue
        adds, takes = _ADDED.search(source.text), _TAKEN.search(source.text)
        later = " ".join(s.text for s in steps[n:])
        if (adds is None) == (takes is None) or not _APPLIED.search(later):
            continue
        sign = "+" if adds else "-"
        out[n] = replace(step, template=f"({m.group(2)} * (1 {sign} v{m.group(1)}))")
    return tuple(out)


_ADDED = re.compile(r"\b(?:vat|tax|surcharge|mark-?up|tip|gratuity|service charge|levy|interest)\b", re.I)
_TAKEN = re.compile(r"\b(?:discount|rebate|reduction|markdown)\b", re.I)
#: the amount with the percentage applied, not the percentage's share of it
_APPLIED = re.compile(
    r"\bapply (?:it|this|that|the (?:rate|percentage|discount|vat|tax))\b|\bgross\b|\bincluding\b"
    r"|\bafter (?:the )?(?:discount|vat|tax)\b"
    r"|\bwith (?:the )?(?:discount|vat|tax|tip|surcharge) (?:added|applied)\b",
    re.I,
)
