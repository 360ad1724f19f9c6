"""Charges: a price from the documents applied, on the documents' terms, to the quantities of a request.

A naturally worded question about what something costs ("I'm parking in Zone B from 9:40 until 2 pm; how
much will that be?", "we want the Glasshouse for a two-hour reception: what will the room hire come to
with VAT?") is planned by what it asks for and which quantities the documents define, not by its
sentences:

1. a **lookup** of the price, worded as the request (its conditions, "Saturday", "Blue Badge", "registered
   charity", choose the row and the rules); the retrieval answers with the amount, what it is charged per
   and the terms it is charged on (:class:`~ioa_p2p.planning.values.Value` ``terms``:
   adapters/retrieval/tariff.py);
2. when the request wants VAT included, a lookup of the VAT rate;
3. a **calculation** ``charge(v1; 260 min; ...)``: :func:`render_charge` writes it out, when the values are
   known, as the arithmetic the terms say, step by step in one expression the calculator checks (the
   derivation is the expression):

   - the quantity in the unit the price is per (260 min at a price per hour: ``260 / 60``);
   - less a free allowance (``max(q - 2, 0)``), rounded up to the increment (``ceil(q / 0.25) * 0.25``),
     at least the minimum (``max(q, 3)``);
   - times the price, times every other quantity it is per ("per guard per hour": 3 guards);
   - less a percentage off, at most the cap (``min(amount, 9)``);
   - a fixed price for the very measure the request states (a ``for`` term: "90 min" in the price's own
     row for "a 90-minute lesson") is the charge itself (``84 * 1``, for the calculator).

When the situation incurs several charges the documents list separately (the retrieval answers with the
list of them, adapters/retrieval/bill.py), the charge is their sum, each on its own terms; a measure the
request qualifies ("220 kWh at night") goes to the charge whose label names the qualifier.

A price per a unit the request states no quantity of cannot be applied: the calculation then names the
missing quantity and fails, and the conclusion says so (never a guess).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from ioa_p2p.planning.allowances import allowance_plan, render_parts
from ioa_p2p.planning.answer_types import MONEY_UNITS, answer_type
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.quantities import Quantity, dimension_of, stated_quantities
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.units import DIMENSIONS, factor
from ioa_p2p.planning.values import ALIASES, LIST, Value, format_number

MAX_ITEMS = 6

CHARGE = re.compile(r"charge\(v(\d+)((?:; [^;()]+)*)\)")
_WITH_VAT = re.compile(
    r"\b(?:with|including|incl\.?|inclusive of|plus|and) (?:the )?vat\b|\bvat included\b|\bgross\b", re.I
)
_WITHOUT_VAT = re.compile(
    r"\b(?:before|excluding|excl\.?|without|net of|leave out|leaving out)\b[^.?]*\bvat\b", re.I
)


def charge_plan(question: str) -> tuple[PlanStep, ...] | None:
    """The steps for a question about what something costs for the quantities it states (see the module
    docstring); None when it asks no amount, states no quantity or names nothing to look up."""
    allowance = allowance_plan(question)  # a trip's per diem: days, travel days, meals provided
    if allowance is not None:
        return allowance
    if answer_type(question).kind != "amount" or not names_in(question):
        return None
    stated = [q for q in stated_quantities(question) if q.dimension]
    if not stated:
        return None
    asked = re.sub(r"\s+", " ", question).strip()
    lookup = PlanStep(1, LOOKUP, f"the price for: {_short(asked)}", asked)
    quantities = "".join(
        f"; {format_number(q.number)} {q.unit or q.what or 'items'}{_qualifier(asked, q)}" for q in stated
    )
    charge = f"charge(v1{quantities})"
    if _WITH_VAT.search(question) and not _WITHOUT_VAT.search(question):
        found = list(dict.fromkeys(names_in(question)))
        # the company's name (names of several words), not a room's or a product's: VAT is the company's
        names = ", ".join([n for n in found if len(n.split()) >= 2][:1] or found[:1])
        vat = PlanStep(2, LOOKUP, "the VAT rate", f"What is the VAT rate ({names})?")
        total = PlanStep(3, CALC, question, f"({charge} * (1 + v2 / 100))", (1, 2), unit=MONEY_UNITS[0])
        return lookup, vat, total
    return lookup, PlanStep(2, CALC, question, charge, (1,), unit=MONEY_UNITS[0])


_QUALIFIER = re.compile(r"\s+(?:at|during|in|by|over|on)\s+(?:the\s+)?([a-z]+)\b(?![ -]\d)")


def _qualifier(question: str, q: Quantity) -> str:
    """ " at night" for "220 kWh at night": what a measure is of, when its words say so."""
    if not q.unit or q.what or not q.text:
        return ""
    at = question.find(q.text)
    m = _QUALIFIER.match(question[at + len(q.text) :]) if at >= 0 else None
    return f" at {m.group(1)}" if m and m.group(1) not in _NOT_QUALIFIERS else ""


_NOT_QUALIFIERS = frozenset("a an the total all each my our your their its this that".split())  # noqa: SIM905


def _short(text: str) -> str:
    return text if len(text) <= 120 else text[:119] + "\u2026"


def render_charges(expression: str, values: Mapping[int, Value]) -> str:
    """``expression`` with every ``charge(vN; ...)`` written out as arithmetic (see the module docstring),
    and every ``part(vA of vB)`` of an allowance (planning/allowances.py)."""
    expression = render_parts(expression, values)
    return CHARGE.sub(
        lambda m: render_charge(values.get(int(m.group(1))), charge_quantities(m.group(2))), expression
    )


def charge_quantities(raw: str) -> list[Quantity]:
    """The quantities of a ``charge(vN; 3 days; 2 adults)``: ``; 3 days; 2 adults``."""
    out = []
    for part in raw.split(";"):
        m = re.match(r"\s*([\d.]+)\s+(.+?)(?: at ([a-z]+))?\s*$", part)
        if m:
            unit = m.group(2) if dimension_of(m.group(2)) not in ("", "count") else ""
            out.append(Quantity(float(m.group(1)), unit, m.group(3) or ("" if unit else m.group(2))))
    return out


def render_charge(value: Value | None, quantities: list[Quantity]) -> str:
    """One charge as arithmetic; ``(missing: ...)`` when the price or a quantity it is per is missing. A list
    of charges (the items of a bill, adapters/retrieval/bill.py) is their sum, each on its own terms and
    free to use any of the quantities."""
    if value is not None and value.kind == LIST and value.items:
        parts = [render_charge(item, quantities) for item in value.items[:MAX_ITEMS]]
        missing = next((p for p in parts if p.startswith("(missing")), None)
        return missing or "(" + " + ".join(parts) + ")"
    if value is None or value.number is None:
        return "(missing: the price)"
    terms: dict[str, str] = {}
    per: list[str] = []
    for name, raw in value.terms:
        if name == "per":
            per.append(raw)
        else:
            terms.setdefault(name, raw)
    amount = _exact(value.number) + (" / 100" if value.unit == "cent" else "")
    label = frozenset(terms.get("label", "").split())
    factors: list[str] = []
    used: set[int] = set()
    # the terms are about the measured unit the price is per (hours, days, metres), else the first one
    measured = [i for i, u in enumerate(per) if dimension_of(ALIASES.get(u, u)) not in ("", "count")]
    primary = measured[0] if measured else 0
    for i, unit in enumerate(per):
        picked = _pick(unit, quantities, used, label)
        if picked is None:
            return f"(missing: a quantity in {unit})"
        used.add(picked)
        q = quantities[picked]
        if q.unit in _CALENDAR and ALIASES.get(unit, unit) in _SUB_DAY:  # "7 weeks" at a price per hour
            return f"(missing: a quantity in {unit})"  # the hours of use: no calendar span states them
        x = _convert(q, unit)
        if i == primary:
            x = _on_terms(x, unit, terms)
        factors.append(x)
    expression = " * ".join([_wrap(amount), *factors]) if factors else amount
    if not factors and "for" in terms:  # the price of the very measure asked ("90 min"): the charge itself
        expression = f"{_wrap(amount)} * 1"
    if "discount" in terms:
        expression = f"{_wrap(expression)} * (1 - {_number_of(terms['discount'])} / 100)"
    if "minimum_charge" in terms:
        expression = f"max({expression}, {_number_of(terms['minimum_charge'])})"
    if "cap" in terms and per:
        expression = f"min({expression}, {_number_of(terms['cap'])})"
    return f"({expression})"


_SUB_DAY = frozenset({"s", "min", "h"})
_CALENDAR = frozenset({"days", "weeks", "months", "years", "night"})


def _pick(
    unit: str, quantities: list[Quantity], used: set[int], label: frozenset[str] = frozenset()
) -> int | None:
    """The quantity a price per ``unit`` applies to: one of the unit's kind (hours for a price per hour; of
    several, the one whose qualifier the price's label names: "220 kWh at night" for the night rate), or a
    count of the thing ("guard" for 3 guards; the one count when there is one)."""
    dim = dimension_of(ALIASES.get(unit, unit))
    free = [i for i in range(len(quantities)) if i not in used]
    if dim and dim != "count":
        kind = [i for i in free if quantities[i].dimension == dim]
        qualified = [
            i for i in kind if quantities[i].what and any(_same_word(quantities[i].what, w) for w in label)
        ]
        chosen = qualified or kind
        return chosen[0] if chosen else None
    counts = [i for i in free if quantities[i].dimension == "count"]
    named = [i for i in counts if _same_word(quantities[i].what, unit)]
    if named:
        return named[0]
    return counts[0] if len(counts) == 1 else None


def _same_word(a: str, b: str) -> bool:
    a, b = a.lower().rstrip("s"), b.lower().rstrip("s")
    return bool(a) and (a == b or a.startswith(b) or b.startswith(a))


def _convert(q: Quantity, unit: str) -> str:
    """``q`` in ``unit`` as an exact expression ("260 / 60" for 260 min in hours)."""
    target = ALIASES.get(unit, unit)
    if not q.unit or q.unit == target or dimension_of(target) in ("", "count"):
        return _exact(q.number)
    scale = factor(q.unit, target)
    if scale is None:
        return _exact(q.number)
    ratio = Fraction(DIMENSIONS[q.dimension][q.unit]) / Fraction(DIMENSIONS[q.dimension][target])
    ratio = ratio.limit_denominator(10**6)
    number = _exact(q.number)
    if ratio.denominator == 1:
        return f"{number} * {ratio.numerator}" if ratio.numerator != 1 else number
    return f"{number} / {ratio.denominator}" if ratio.numerator == 1 else f"{number} * {ratio}"


def _on_terms(x: str, unit: str, terms: Mapping[str, str]) -> str:
    if "free" in terms:
        x = f"max({x} - {_in_unit(terms['free'], unit)}, 0)"
    if "step" in terms:
        step = _in_unit(terms["step"], unit)
        x = f"ceil(({x}) / {_wrap(step)}) * {_wrap(step)}"
    if "minimum" in terms:
        x = f"max({x}, {_in_unit(terms['minimum'], unit)})"
    return _wrap(x)


def _in_unit(raw: str, unit: str) -> str:
    """A term such as "15 min" in the unit the price is per ("15 / 60" for hours)."""
    m = re.match(r"\s*([\d.]+)\s*(.*)$", raw)
    if not m:
        return "0"
    q = Quantity(float(m.group(1)), ALIASES.get(m.group(2).strip(), m.group(2).strip()))
    return _convert(q, unit) if q.unit and dimension_of(q.unit) not in ("", "count") else _exact(q.number)


def _number_of(raw: str) -> str:
    m = re.search(r"[\d.]+", raw)
    return _exact(float(m.group(0))) if m else "0"


def _exact(number: float) -> str:
    return format_number(number)


def _wrap(x: str) -> str:
    return x if re.fullmatch(r"[\w.]+", x) else f"({x})"


__all__ = ["CHARGE", "charge_plan", "charge_quantities", "render_charge", "render_charges"]
