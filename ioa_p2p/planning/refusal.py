"""Steps the planner refuses to hand out: a value they need is missing (pure).

:func:`refusal` is asked before a ready step is assigned, with the values of the steps done so far. It
returns the :class:`~ioa_p2p.planning.missing.Missing` value when the step cannot be worked out honestly
from them:

- a derivation (``derive(v1)``, planning/derive.py) whose chain does not close: the value looked up is an
  amount the documents state for none of the quantities the request states ("EUR 18" for "what will the
  bike cost me for a round trip"), so the rate that would apply it is missing;
- a calculation over a value that carries no number at all (a lookup answered by a sentence where the
  calculation needs an amount): the number is missing.

:func:`dimension_refusal` is asked after a step's results were all rejected: when the last one states an
amount of a dimension the step's question cannot be answered in ("300 mm" for "how much water was lost",
"350 °C" for "how long does it heat up": planning/dimensions.py), the quantity asked for is missing: the
step's status is ``missing`` and the goal exits 3, never answered with a value of another dimension.

:func:`absence_refusal` is asked when every attempt at a lookup failed: when an agent that searched the
documents reported that nothing in them answers the step (its result data carries ``absent``: the retrieval
adapter's "no passage matches" and "nothing answers this"), the value the step asks for is missing: a
question about a plan, a release or a product no document has ("the enterprise plan", "version 3.5")
exits 3 naming it, like any other missing value, instead of ending as a failed task.

The drivers (the offline planner's tracker, the dry run, the goal report) treat a refused step as done
with: status ``missing``, its :class:`Missing` in the outcome, the conclusion naming it, exit code 3.
The same values give the same refusal on every member, so a fallback speaker refuses alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ioa_p2p.planning.accounted import unaccounted
from ioa_p2p.planning.changed import TEMPLATES as CHANGES
from ioa_p2p.planning.changed import change_missing
from ioa_p2p.planning.clock import clock_times
from ioa_p2p.planning.derive import DERIVE, derive_missing, typed_charge
from ioa_p2p.planning.dimensions import asked_dimensions, mismatch
from ioa_p2p.planning.doc_facts import Quantity, singular
from ioa_p2p.planning.kept_lookup import kept_step
from ioa_p2p.planning.missing import Missing, unapplied
from ioa_p2p.planning.quantities import Quantity as ChargeQuantity
from ioa_p2p.planning.relative import relative_base
from ioa_p2p.planning.rule_step import RULE, rule_missing, stated_charge
from ioa_p2p.planning.season import out_of_period
from ioa_p2p.planning.tariffs import CHARGE, charge_quantities, render_charges
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, PlanStep
from ioa_p2p.planning.values import NUMBER, TEXT, Value, format_number, numbers_in

_SHIFT = re.compile(r"\(?\s*v\d+\s*[+-]\s*\d+\s*\)?")


def refusal(step: PlanStep, values: Mapping[int, Value]) -> Missing | None:
    """The value ``step`` needs and ``values`` do not give (see the module docstring); None when the step
    can be worked out (or still waits for the steps it needs)."""
    if step.kind == CODE and all(n in values for n in step.needs):
        return _code_read_twice(step, values)
    if step.kind != CALC or any(n not in values for n in step.needs):
        return None
    if kept_step(step, values) is not None:  # the value looked up answers as asked (kept_lookup.py)
        return None
    if step.template in CHANGES and step.needs:  # an end of the change not stated (changed.py)
        return change_missing(step, values[step.needs[0]])
    if step.template == DERIVE and step.needs:
        return derive_missing(step.text, values[step.needs[0]])
    if RULE.fullmatch(step.template.strip()):  # a documented rule applied: read, or named as missing
        return rule_missing(step, values)
    if CHARGE.search(step.template):  # a charge on its own sentence's terms (rule_step.py) is worked out
        return None if stated_charge(step, values) is not None else _charge_refusal(step, values)
    if _SHIFT.fullmatch(step.template.strip()):
        return None  # a date moved by a period: the date is the value (planning/compose.py date_shift)
    for n in step.needs:
        value = values[n]
        if value.kind == TEXT and not numbers_in(value.text) and not clock_times(value.text):
            shown = " ".join(value.text.split())[:80]
            return Missing(f"a number from step {n}", "number", f'step {n} gave the text "{shown}"')
    return same_read_twice(step, values)


#: A difference or a ratio of two earlier values (what two equal operands make 0 or 1 of).
_CONTRAST = re.compile(
    r"^\(?\s*(?:abs\()?\s*\(?\s*v(\d+)\s*[-/]\s*v(\d+)\s*\)?\s*\)?(?:\s*[*/]\s*100(?:\.0)?)?\s*\)?$"
    r"|^\(?\s*100(?:\.0)?\s*\*\s*\(?\s*v(\d+)\s*[-/]\s*v(\d+)\s*\)?(?:\s*/\s*v\d+)?\s*\)?$"
)


def same_read_twice(step: PlanStep, values: Mapping[int, Value]) -> Missing | None:
    """Two lookups contrasted (a difference, a ratio) that read the same number from the same passage:
    the second operand was not found, its neighbour was taken (probe7 x-004, probe4 s-004: "the escape of
    water excess" and "the Contents excess" both EUR 150 off one row). Refused, the second named as
    missing, rather than a difference of 0 or a ratio of 1 that answers nothing."""
    shown = re.sub(r"^round\((.*), \d+\)$", r"\1", step.template.strip())  # "round(v1 / v2, 2)"
    m = _CONTRAST.match(shown)
    return _read_twice([int(g) for g in (m.groups() if m else ()) if g], values)


def _code_read_twice(step: PlanStep, values: Mapping[int, Value]) -> Missing | None:
    """:func:`same_read_twice` for code that subtracts or divides two of its inputs ("(curr - prev)")."""
    bound = dict(step.bindings)
    for x, y in ((x, y) for x in bound for y in bound if x != y):
        if re.search(rf"(?<![\w.]){x}\s*[-/]\s*{y}(?![\w(])", step.template):
            return _read_twice([bound[x], bound[y]], values)
    return None


def _read_twice(refs: list[int], values: Mapping[int, Value]) -> Missing | None:
    if len(refs) != 2 or refs[0] == refs[1] or any(n not in values for n in refs):
        return None
    a, b = values[refs[0]], values[refs[1]]
    if a.kind != NUMBER or b.kind != NUMBER or a.number != b.number or a.unit != b.unit:
        return None
    if not a.evidence or a.evidence[:1] != b.evidence[:1]:
        return None  # read from different passages: two equal values, each found
    later = max(refs)
    return Missing(
        f"the value step {later} asks for",
        b.unit,
        f"step {later} gave {b.shown()}, the number step {min(refs)} read from the same passage",
    )


def dimension_refusal(step: PlanStep, value: Value | None) -> Missing | None:
    """The quantity ``step`` asks for, when the value a member gave is of another dimension (see the
    module docstring); None when the value is of a dimension the question allows, or says none."""
    outside = out_of_period(step.template, value) if step.kind == LOOKUP else None
    if (
        outside is not None
    ):  # a time the document does not cover ("the first Sunday train", planning/season.py)
        return outside
    reason = mismatch(step.template, value) if step.kind in (LOOKUP, TASK) else ""
    base = relative_base(step.template, value) if step.kind in (LOOKUP, TASK) and not reason else ""
    if base and value is not None:  # an offset from another quantity: that quantity is what is missing
        return Missing(base, "", f"{value.shown()} was found, stated relative to it")
    if not reason or value is None:
        return None
    wanted = " or ".join(sorted(asked_dimensions(step.template)))
    return Missing(f"the {wanted} asked for", wanted, f"{value.shown()} was found: {reason}")


#: The key of a task result's data by which an agent says the documents it searched do not state the answer.
ABSENT = "absent"


def absence_refusal(step: PlanStep, attempts: Sequence[Mapping[str, Any] | None]) -> Missing | None:
    """What ``step`` asks for, when it is a lookup and an agent that searched the documents said none of
    them answers it (``attempts``: the failed attempts' result data); None otherwise."""
    if step.kind != LOOKUP or not any(isinstance(d, Mapping) and d.get(ABSENT) for d in attempts):
        return None
    asked = " ".join(step.template.split()).rstrip("?.!")[:120]
    return Missing(f'what step {step.index} asks for ("{asked}")', "", "no document searched states it")


def _charge_refusal(step: PlanStep, values: Mapping[int, Value]) -> Missing | None:
    """A price applied to the request's quantities (``charge(v1; 3 days)``, planning/tariffs.py): the
    document's typed rules give the charge, or the price's own terms do; a price that is per nothing the
    quantities measure, stated for none of them ("List price: EUR 2,900" for "hiring it for 3 days"),
    leaves the rate missing, as does a price or a quantity the terms need and nobody gave."""
    found = values.get(step.needs[0]) if step.needs else None
    if (outside := out_of_period(step.text, found)) is not None:  # December, prices for April-October
        return outside
    whole = CHARGE.fullmatch(step.template.strip()) is not None
    typed = typed_charge(step.text, found, vat=whole)  # inside a calculation: only a composition of rules
    taken = [q for m in CHARGE.finditer(step.template) for q in charge_quantities(m.group(2))]
    if typed is not None:  # the document's typed rules (planning/ruled.py), if they apply all it gives
        return unaccounted(step.text, typed[0], found, taken)
    for m in CHARGE.finditer(step.template):
        value = values.get(int(m.group(1)))
        rendered = render_charges(m.group(0), values)
        gap = re.search(r"\(missing: ([^()]*)\)", rendered)
        if gap is not None:
            return Missing(gap.group(1), "", f"the price found: {value.shown() if value else 'none'}")
        if value is None or value.kind != NUMBER or any(name == "per" for name, _ in value.terms):
            continue
        counted = [q for q in charge_quantities(m.group(2)) if q.number != 1.0]
        given = [Quantity(q.number, q.unit or singular(q.what), text=_written(q)) for q in counted]
        lacking = unapplied(given, [value.unit] if value.unit else [], value)
        if lacking is not None:
            return lacking
    if CHARGE.fullmatch(step.template.strip()):  # the price's own terms: applied to all the question gives
        return unaccounted(step.text, render_charges(step.template, values), found, taken)
    return None


def _written(q: ChargeQuantity) -> str:
    return q.text or f"{format_number(q.number)} {q.unit or q.what}"


__all__ = ["ABSENT", "absence_refusal", "dimension_refusal", "refusal", "same_read_twice"]
