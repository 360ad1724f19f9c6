"""Task texts with the values of earlier steps bound (pure).

:func:`describe` writes the task a member gets for a step, with the values of the steps it needs bound:
numbers into the expression (``Calculate 48.5 * 3``), a derivation's expression from the documents'
definitions, a charge from their typed rules, dates into a date calculation, variables assigned before the
code (``result = 58.8``), looked-up values nowhere (a lookup is a question). A step's value and whether it
answers are read in ``results.py``; the conclusion is written in ``concluding.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace

from ioa_p2p.planning.changed import TEMPLATES as CHANGES
from ioa_p2p.planning.changed import change_expression
from ioa_p2p.planning.derive import DERIVE, derive_expression, typed_charge
from ioa_p2p.planning.doc_facts import givens_in
from ioa_p2p.planning.kept_lookup import kept_step
from ioa_p2p.planning.own_minimum import at_least_stated
from ioa_p2p.planning.paragraph_bounds import bounded
from ioa_p2p.planning.rule_step import (
    RULE,
    conditional_rule,
    rule_expression,
    stated_charge,
    stated_combination,
)
from ioa_p2p.planning.tariffs import CHARGE, render_charges
from ioa_p2p.planning.types import CALC, CODE, DATE, PlanStep
from ioa_p2p.planning.unit_offers import with_offers
from ioa_p2p.planning.units import DIMENSIONS, factor, unit_phrase
from ioa_p2p.planning.values import ALIASES, LIST, NUMBER, TEXT, Value, exact, format_number, numbers_in
from ioa_p2p.planning.values import DATE as DATE_VALUE


def _number(value: Value, as_fraction: bool) -> str:
    if value.kind == TEXT:  # a printed line such as "Total: 42 items": its one number
        found = numbers_in(value.text)
        value = Value.of_number(found[0].number, found[0].unit) if len(found) == 1 else value
    if value.kind == LIST:
        return "(" + " + ".join(format_number(n) for n in value.numbers()) + ")"
    if value.number is None or not math.isfinite(value.number):
        return value.shown() or "(missing)"  # not a number ("13:55"): the calculation says so, never crashes
    n = value.number
    if as_fraction and value.unit == "%":
        return f"({format_number(n)} / 100)"
    return format_number(n)


def describe(step: PlanStep, values: Mapping[int, Value]) -> str:
    """The task text for ``step`` with the values of the steps it needs; a charge worked out from a value
    looked up takes the free units its document grants off the count charged (planning/unit_offers.py)
    and keeps within the minimum or cap stated beside its rate (planning/paragraph_bounds.py)."""
    kept = kept_step(step, values)
    if kept is not None:  # the value looked up answers as asked: nothing applied to it (kept_lookup.py)
        return f"Calculate {kept}"
    text = _described(step, values)
    found = values.get(step.needs[0]) if step.kind == CALC and step.needs else None
    if (
        found is None
        or not text.startswith("Calculate ")
        or not (step.template == DERIVE or CHARGE.search(step.template))
    ):
        return text
    texts = [*found.evidence, *(r.text for r in (found.records.records if found.records else ()))]
    worked = with_offers(text.removeprefix("Calculate "), step.text, texts)
    worked = bounded(worked, found)  # a minimum or cap beside the rate (paragraph_bounds.py)
    return "Calculate " + at_least_stated(worked, found)  # "minimum 12 keys" in its line (own_minimum.py)


def _described(step: PlanStep, values: Mapping[int, Value]) -> str:
    if step.kind == CALC and re.fullmatch(r"v\d+", step.template.strip()) and step.unit:
        value = values.get(int(step.template.strip()[1:]))  # a conversion: the value times the factor
        src = (value.unit if value is not None else "") or step.fmt.removeprefix("from:")
        scale = factor(src, step.unit) if value is not None and src else None
        if value is not None and value.number is not None and scale is not None:
            return f"Calculate {format_number(value.number)} * {exact(scale, 12)}"
    stated = (stated_charge(step, values) or stated_combination(step, values)) if step.kind == CALC else None
    if stated is not None:  # the price's own sentence states its terms (planning/rule_step.py)
        return f"Calculate {stated}"
    product = _product_in_unit(step, values) if step.kind == CALC else None
    if product is not None:  # "42 W over 8,760 hours, in kWh": W x h = Wh, then in kWh
        return product
    if step.kind == CALC and step.template in CHANGES and step.needs:  # one thing's change (changed.py)
        return f"Calculate {change_expression(step, values.get(step.needs[0])) or '(missing)'}"
    if step.kind == CALC and step.template == DERIVE:
        found = values.get(step.needs[0]) if step.needs else None
        derived = derive_expression(step.text, found)
        conditioned = conditional_rule(step.text, found) if derived is None else None
        if conditioned is not None:  # a rule whose condition the question's quantity meets (rule_step.py)
            return f"Calculate {conditioned}"
        if derived is None:  # nothing to derive: the value looked up answers (times one, for the calculator)
            return f"Calculate {_number(found, False) if found else '(missing)'} * 1"
        return f"Calculate {derived[0]}"
    if step.kind == CALC and RULE.fullmatch(step.template.strip()):  # a documented rule (rule_step.py)
        return f"Calculate {rule_expression(step, values) or '(missing)'}"
    if step.kind == CALC and CHARGE.fullmatch(step.template.strip()) and step.needs:
        # the document's typed rules; the price's own terms, when the retrieval read them, stand
        ruled = typed_charge(step.text, values.get(step.needs[0]))
        if ruled is not None:  # the document's typed rules applied to the request (planning/ruled.py)
            return f"Calculate {ruled[0]}"
    if step.kind == CALC and CHARGE.search(step.template) and step.needs:
        step = _with_composed(step, values)  # "(charge(v1; 4.2 kg) * (1 + v2 / 100))": its rules composed
    shifted = date_shift(step, values) if step.kind == CALC else None
    if shifted is not None:  # "add 90 days to that date": date arithmetic, not a sum of numbers
        return f"Calculate {shifted}"
    if step.kind == CALC:
        expression = render_charges(step.template, values)  # a price on its terms, written out
        # "v1 / 100", "(v1 * 236500) / 100": the expression turns the percentage into a fraction itself
        percent_context = re.compile(r"(?:[\d.]+\s*\*\s*)?\bv(\d+)(?:\s*\*\s*[\d.]+)?\s*\)?\s*/\s*100\b")
        bare = {int(m.group(1)) for m in percent_context.finditer(expression)}
        # inputs are converted to the unit asked for only when they all are in one unit (tonnes -> kg);
        # a product of values in different units (days x hours per day) is left as it is
        one_unit = len({values[n].unit for n in step.needs if n in values}) == 1
        rated = per_units(step.text)  # a rate per unit U applied to a value in U: the value stays in U

        def sub(m: re.Match[str]) -> str:
            n = int(m.group(1))
            value = values.get(n)
            if value is None:
                return m.group(0)
            if value.kind == LIST and "total(" in expression:
                return _number(value, False)
            per = next((u for u in rated if value.unit and factor(value.unit, u) is not None), None)
            if per is not None:  # "28 days at 7.7 hours per day": days stay days (in the rate's unit)
                return _number(_in_unit(value, per), n not in bare)
            converts = one_unit and not converts_itself(expression, value, step.unit)
            return _number(_in_unit(value, step.unit) if converts else value, n not in bare)

        expression = re.sub(r"\bv(\d+)\b", sub, expression)
        expression = re.sub(r"total\(", "(", expression)
        expression = _tidy(expression)
        return f"Calculate {expression}"
    if step.kind == DATE:
        return re.sub(r"\{(\d+)\}", lambda m: _plain(values.get(int(m.group(1)))), step.template)
    if step.kind == CODE:
        lines = [f"{name} = {_literal(values.get(n))}" for name, n in step.bindings if values.get(n)]
        code = "\n".join([*lines, step.template])
        return f"Run this Python code:\n```python\n{code}\n```"
    return re.sub(r"\{(\d+)\}", lambda m: _plain(values.get(int(m.group(1)))), step.template)


_TIMES_STATED = re.compile(r"\(?\s*v(\d+)\s*\*\s*(\d+(?:\.\d+)?)\s*\)?")


def _product_in_unit(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """A value times an amount the step states is in the product of their units ("42 W" over "8,760
    hours": Wh), converted to the unit the step asks for (kWh: x 0.001); None when the value converts to
    that unit itself, or the two units make no known one."""
    m = _TIMES_STATED.fullmatch(step.template.strip())
    value = values.get(int(m.group(1))) if m and step.unit else None
    if m is None or value is None or value.kind != NUMBER or value.number is None or not value.unit:
        return None
    stated = [g for g in givens_in(step.text) if g.number == float(m.group(2)) and g.unit]
    if not stated or factor(value.unit, step.unit) is not None:
        return None
    scale = factor(value.unit + stated[0].unit, step.unit)  # "W" + "h": "Wh"
    if scale is None or scale == 1.0:
        return None
    return f"Calculate {format_number(value.number)} * {m.group(2)} * {exact(scale, 12)}"


def _with_composed(step: PlanStep, values: Mapping[int, Value]) -> PlanStep:
    """``step`` with each ``charge(vN; ...)`` inside a larger calculation replaced by the charge composed
    from the document's rules (planning/composer.py), when they compose one."""

    def sub(m: re.Match[str]) -> str:
        composed = typed_charge(step.text, values.get(int(m.group(1))), vat=False)
        return f"({composed[0]})" if composed is not None else m.group(0)

    return replace(step, template=CHARGE.sub(sub, step.template))


_SHIFT = re.compile(r"\(?\s*v(\d+)\s*([+-])\s*(\d+)\s*\)?")


def date_shift(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """ "Add 90 days to that date": a date value plus or minus a number of days, weeks, months or years the
    step's text names, as the calculator's date arithmetic (``2026-03-18 + 90 days``); None otherwise."""
    m = _SHIFT.fullmatch(step.template.strip())
    value = values.get(int(m.group(1))) if m else None
    if m is None or value is None or value.kind != DATE_VALUE:
        return None
    period = re.search(rf"\b{m.group(3)}\s*(days?|weeks?|months?|years?)\b", step.text, re.I)
    return f"{_plain(value)} {m.group(2)} {m.group(3)} {period.group(1).lower()}" if period else None


def shifts_a_date(step: PlanStep) -> bool:
    m = _SHIFT.fullmatch(step.template.strip())
    return (
        m is not None
        and re.search(rf"\b{m.group(3)}\s*(?:days?|weeks?|months?|years?)\b", step.text, re.I) is not None
    )


def converts_itself(expression: str, value: Value, unit: str) -> bool:
    """The calculation converts ``value`` to ``unit`` itself: it holds the conversion factor ("divide by
    1.609344" for km to miles, "multiply by 1,048,576" for MB to bytes), so the value goes in as it is."""
    scale = factor(value.unit, unit) if value.unit and unit and value.unit != unit else None
    if not scale:
        return False
    stated = [float(x) for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", expression)]
    return any(abs(x * scale - 1) < 1e-4 or abs(x / scale - 1) < 1e-4 for x in stated if x > 0)


_PER = re.compile(
    r"\b(?:per|a|an|each|every)\s+([a-z\u00b2\u00b3]+)\b|(?<=\d)\s*/\s*([a-z\u00b2\u00b3]+)\b", re.I
)


def per_units(text: str) -> list[str]:
    """The units rates in ``text`` are given per ("7.7 hours per day", "EUR 12 an hour", "EUR 9/h"), as
    unit symbols; words that are no unit are left out."""
    found = (unit_phrase(m.group(1) or m.group(2), ALIASES) for m in _PER.finditer(text))
    return [unit for unit in found if any(unit in units for units in DIMENSIONS.values())]


def _tidy(expression: str) -> str:
    """``( 391 * 2 )`` -> ``391 * 2``: no spaces inside parentheses, no pair around the whole."""
    expression = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(expression.split())))
    while expression.startswith("(") and expression.endswith(")") and _balanced(expression[1:-1]):
        expression = expression[1:-1].strip()
    return expression


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _in_unit(value: Value, unit: str) -> Value:
    """A number in the unit the step asks for, when it is in another unit of the same kind (66.8 t asked
    in kg: 66800 kg); otherwise the value as it is."""
    if not unit or value.kind != NUMBER or value.number is None or not value.unit:
        return value
    scale = factor(value.unit, unit)
    if scale is None or scale == 1.0:
        return value
    return Value.of_number(value.number * scale, unit)


def _plain(value: Value | None) -> str:
    if value is None:
        return "(missing)"
    if value.kind == LIST:
        return ", ".join(_plain(v) for v in value.items)
    return value.iso if value.kind == DATE_VALUE else value.shown()


def _literal(value: Value | None) -> str:
    if value is None:
        return "None"
    if value.kind == NUMBER and value.number is not None:
        n = value.number
        return str(int(n)) if n == int(n) and abs(n) < 1e15 else repr(n)
    if value.kind == LIST:
        return "[" + ", ".join(_literal(v) for v in value.items) + "]"
    return repr(value.iso if value.kind == DATE_VALUE else value.text)


__all__ = ["converts_itself", "date_shift", "describe", "per_units", "shifts_a_date"]
