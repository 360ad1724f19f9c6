"""From plan + values to work and answers (pure).

- :func:`describe` writes the task a member gets for a step, with the values of the steps it needs bound:
  numbers into the expression (``Calculate 48.5 * 3``), dates into a date calculation, variables assigned
  before the code (``result = 58.8``), looked-up values nowhere (a lookup is a question);
- :func:`value_of` reads a result's value: its ``data["value"]`` when the adapter gave one, else the value
  its text states; :func:`answers` says whether a completed result answers its step (a calculation that
  returns no number, a lookup without a value, code that printed nothing do not);
- :func:`conclusion` writes the conclusion: the answer sentence first, then one line per step (who, what,
  value), then the citations; a missing step is named.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.clock import CLOCK
from ioa_p2p.planning.derive import DERIVE, derive_expression, derive_missing, typed_charge
from ioa_p2p.planning.dimensions import mismatch
from ioa_p2p.planning.missing import MISSING, Missing
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.structured import structured_of, structured_value
from ioa_p2p.planning.tariffs import CHARGE, render_charges
from ioa_p2p.planning.types import CALC, CODE, DATE, LOOKUP, TASK, Plan, PlanStep
from ioa_p2p.planning.units import DIMENSIONS, factor, unit_phrase
from ioa_p2p.planning.values import (
    ALIASES,
    LIST,
    NUMBER,
    TEXT,
    UNITS,
    Value,
    exact,
    format_number,
    is_money,
    numbers_in,
    parse_value,
)
from ioa_p2p.planning.values import DATE as DATE_VALUE


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What became of one step: who did it, its value (None when it failed or never ran)."""

    step: PlanStep
    who: str = ""
    value: Value | None = None
    status: str = "not started"  # "completed" | "failed" | "missing" | "running" | "not started"
    citation: Mapping[str, Any] | None = None
    note: str = ""  # why it failed
    missing: Missing | None = None  # status "missing": the value the step needs (planning/refusal.py)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step.index,
            "kind": self.step.kind,
            "what": self.step.text,
            "who": self.who,
            "status": self.status,
            "value": self.value.to_dict() if self.value else None,
        }
        if self.note:
            out["note"] = self.note
        if self.missing is not None:
            out["missing"] = self.missing.to_dict()
        return out


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
    """The task text for ``step`` with the values of the steps it needs."""
    if step.kind == CALC and re.fullmatch(r"v\d+", step.template.strip()) and step.unit:
        value = values.get(int(step.template.strip()[1:]))  # a conversion: the value times the factor
        src = (value.unit if value is not None else "") or step.fmt.removeprefix("from:")
        scale = factor(src, step.unit) if value is not None and src else None
        if value is not None and value.number is not None and scale is not None:
            return f"Calculate {format_number(value.number)} * {exact(scale, 12)}"
    if step.kind == CALC and step.template == DERIVE:
        found = values.get(step.needs[0]) if step.needs else None
        derived = derive_expression(step.text, found)
        if derived is None:  # nothing to derive: the value looked up answers (times one, for the calculator)
            return f"Calculate {_number(found, False) if found else '(missing)'} * 1"
        return f"Calculate {derived[0]}"
    if step.kind == CALC and CHARGE.fullmatch(step.template.strip()) and step.needs:
        # the document's typed rules; the price's own terms, when the retrieval read them, stand
        ruled = typed_charge(step.text, values.get(step.needs[0]))
        if ruled is not None:  # the document's typed rules applied to the request (planning/ruled.py)
            return f"Calculate {ruled[0]}"
    shifted = date_shift(step, values) if step.kind == CALC else None
    if shifted is not None:  # "add 90 days to that date": date arithmetic, not a sum of numbers
        return f"Calculate {shifted}"
    if step.kind == CALC:
        expression = render_charges(step.template, values)  # a price on its terms, written out
        percent_context = re.compile(r"\bv(\d+)\s*/\s*100\b")
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


def _shifts_a_date(step: PlanStep) -> bool:
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


def value_of(text: str, data: Mapping[str, Any] | None, request: str = "") -> Value | None:
    """The value a result carries: ``data["value"]`` if valid, else its structured answer (the field
    ``request`` asks for; planning/structured.py), else what its text states."""
    if data and "sub_chat" in data:  # a sub-team's conclusion: its first line states its answer
        lines = [line for line in text.splitlines()[1:] if line.strip()]
        m = re.match(r"The answer is (.+?)\.?$", lines[0].strip()) if lines else None
        return parse_value(m.group(1)) if m else None
    if data:
        value = Value.from_dict(data.get("value"))
        if value is not None:
            return value.with_evidence(_evidence(data)).with_records(records_from_data(data.get("records")))
        stdout = data.get("stdout")
        if isinstance(stdout, str) and stdout.strip():
            return parse_value(stdout)
    raw = structured_of(text, data)
    if raw is not None:
        return structured_value(raw, request)
    return parse_value(text)


MAX_EVIDENCE = 8
MAX_EVIDENCE_CHARS = 16_000


def _evidence(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The texts of the passages a retrieval result was read from (bounded)."""
    raw = data.get("passages")
    raw = raw[:MAX_EVIDENCE] if isinstance(raw, list) else []
    document = data.get("document")  # the whole document the value was read from, when sent
    if isinstance(document, Mapping) and isinstance(document.get("text"), str):
        raw = [document]
    texts = [p.get("text") for p in raw if isinstance(p, Mapping)]
    return tuple(t[:MAX_EVIDENCE_CHARS] for t in texts if isinstance(t, str) and t.strip())


def answers(step: PlanStep, value: Value | None, data: Mapping[str, Any] | None) -> bool:
    """Whether a completed result answers its step (the planner never accepts one that does not)."""
    if value is None:
        return False
    if data and "sub_chat" in data and step.kind in (CALC, DATE, LOOKUP):
        return value.kind in (NUMBER, DATE_VALUE, LIST)
    if step.kind == LOOKUP and _counts(step.template) and value.unit in _AMOUNT_UNITS:
        return False  # "how many customers ...?" answered by "EUR 85"
    if step.kind == LOOKUP and step.unit and value.kind != NUMBER:
        return False  # "how many weeks ...?" answered by a text or a date
    if step.kind == LOOKUP and step.unit and value.unit and value.unit != step.unit:
        return False  # "how many weeks ...?" answered by "10 %": the passage answers another question
    if step.kind in (CALC,):  # a date shifted by a period ("add 90 days to that date") gives a date
        return value.kind in (NUMBER, LIST) or (value.kind == DATE_VALUE and _shifts_a_date(step))
    if step.kind in (LOOKUP, TASK) and not typed_fit(step, value):
        return False  # "how long ...?" answered by a name, "convert 12 miles to km" by a text
    if step.kind in (LOOKUP, TASK) and mismatch(step.template, value):
        return False  # "how much water ...?" answered by "300 mm": another dimension (planning/dimensions.py)
    if step.kind == DATE:
        return value.kind in (NUMBER, DATE_VALUE)
    return True


_AMOUNT_UNITS = frozenset(UNITS) - {"cycles"}


def typed_fit(step: PlanStep, value: Value) -> bool:
    """Whether ``value`` is of the type the step's question asks for (planning/answer_types.py): a number
    (or a list of them) for a count, an amount or a duration, a date for "when", a text for a name."""
    asked = answer_type(step.template)
    numeric = value.kind in (NUMBER, LIST) or (value.kind == TEXT and bool(numbers_in(value.text)))
    if asked.kind in ("duration", "amount", "count"):
        return numeric
    if asked.kind in ("date", "dates"):
        return value.kind in (DATE_VALUE, LIST)
    if asked.kind == "time":
        return value.kind == TEXT and bool(re.search(r"\d{1,2}[:.]\d{2}", value.text))
    if step.kind == TASK and re.search(r"\b(?:convert|express)\b.*\b(?:to|into|in)\b", step.template, re.I):
        return value.kind == NUMBER  # a conversion gives a number, never the request's own words back
    return True


def _counts(question: str) -> bool:
    m = re.search(r"\bhow many ([\w-]+)|\bnumber of ([\w-]+)", question, re.I)
    return m is not None and (m.group(1) or m.group(2)).lower() not in ALIASES


def _with_unit(value: Value, unit: str) -> Value:
    if value.kind == NUMBER and value.number is not None and unit and not value.unit:
        return Value.of_number(_rounded(value.number), unit)
    if value.kind == NUMBER and value.number is not None:
        return Value.of_number(_rounded(value.number), value.unit)
    return value


def _rounded(n: float) -> float:
    return float(f"{n:.10g}")


def final_unit(plan: Plan, outcomes: Mapping[int, StepOutcome], index: int = 0) -> str:
    """The unit of step ``index``'s value (default: the answer step): the plan's, else one carried unchanged
    through scaling steps."""
    index = index or plan.answer_step
    step = plan.step(index) if index else None
    if step is None:
        return ""
    if step.kind == CALC and CHARGE.fullmatch(step.template.strip()) and step.needs:
        found = outcomes.get(step.needs[0])
        ruled = typed_charge(step.text, found.value if found else None)
        if ruled is not None:  # the currency of the document's own rate
            return ruled[1]
    if step.unit:  # a charge in the currency of the price it applies, never a currency it assumed
        money = {
            o.value.unit for n in step.needs if (o := outcomes.get(n)) and o.value and is_money(o.value.unit)
        }
        return money.pop() if is_money(step.unit) and len(money) == 1 and "cent" not in money else step.unit
    if step.kind == CALC and step.template == DERIVE and step.needs:  # the derivation's unit
        found = outcomes.get(step.needs[0])
        value = found.value if found else None
        derived = derive_expression(step.text, value)
        return derived[1] if derived else (value.unit if value is not None and value.kind == "number" else "")
    if step.kind == CALC and _SCALING.fullmatch(step.template.strip()):
        scaled = [o.value for n in step.needs if (o := outcomes.get(n)) and o.value]
        units = {v.unit for v in scaled}
        if len(units) == 1 and "%" not in units:
            per = next((w for v in scaled for name, w in v.terms if name == "per"), "")
            return _scaled_unit(units.pop(), step.template, per)
    if step.kind == CALC and re.fullmatch(r"\(?\s*v\d+\s*\*\s*v\d+\s*\)?", step.template.strip()):
        seen = [o.value.unit for n in step.needs if (o := outcomes.get(n)) and o.value]
        named = [u for u in seen if u]
        if len(seen) == 2 and len(named) == 1 and named[0] != "%":
            return named[0]  # a count times an amount: the amount's unit
    return ""


_SCALING = re.compile(
    r"\(?\s*v\d+\s*[*/]\s*[\d.]+\s*\)?|\(?\s*[\d.]+\s*[*/]\s*v\d+\s*\)?|"
    r"\(?\s*v\d+ [-+] v\d+\s*\)?|abs\(\s*v\d+ - v\d+\s*\)|total\(v\d+\)"
)


def _scaled_unit(unit: str, template: str, per: str = "") -> str:
    """A rate times a quantity is in the rate's numerator (L/min x min -> L); a quantity over a rate in its
    denominator (L / (L/min) -> min; EUR 42 over "EUR 0.50 per minute" -> min); a number over an amount is
    in no unit of it (42 / EUR 0.5 is no amount of money); anything else keeps the unit."""
    top, _, bottom = unit.partition("/")
    inverse = re.fullmatch(r"\(?\s*[\d.]+\s*/\s*v\d+\s*\)?", template.strip()) is not None
    if not bottom and inverse:
        return ALIASES.get(per.lower().strip(), "") if per else ""
    if not bottom:
        return unit
    if inverse:
        return bottom
    return top if "*" in template else unit


def answer_steps(plan: Plan) -> list[int]:
    """The steps whose values answer the request: the plan's answer step, or, when the request has several
    independent parts (steps no later step needs), each of them."""
    if not plan.steps:
        return []
    if plan.answer_step and plan.answer_step != len(plan.steps):
        return [plan.answer_step]
    needed = {n for s in plan.steps for n in s.needs}
    return [s.index for s in plan.steps if s.index not in needed] or [len(plan.steps)]


_STATUS = {"running": "still running", "not started": "never started", MISSING: "a value it needs is missing"}


def _undisputed_derivations(outcomes: Mapping[int, StepOutcome]) -> dict[int, StepOutcome]:
    """A derivation with nothing to derive (the value looked up answers the question) that no member
    did (a team without a calculator) is the looked-up value, never a missing step."""
    out = dict(outcomes)
    for n, o in outcomes.items():
        step = o.step
        derives = step.kind == CALC and step.template == DERIVE and bool(step.needs)
        if o.status in ("completed", MISSING) or not derives:
            continue
        found = outcomes.get(step.needs[0])
        if found is None or found.status != "completed" or found.value is None:
            continue
        lacking = derive_missing(step.text, found.value)
        if lacking is not None:  # the value looked up applies to none of the request's quantities
            out[n] = StepOutcome(step, "", None, MISSING, None, "", lacking)
        elif derive_expression(step.text, found.value) is None:
            why = "the value looked up answers"
            out[n] = StepOutcome(step, found.who, found.value, "completed", None, why)
    return out


def conclusion(plan: Plan, outcomes: Mapping[int, StepOutcome]) -> tuple[str, dict[str, Any]]:
    """(conclusion text, {"answer", "steps", "citations", "missing"})."""
    outcomes = _undisputed_derivations(outcomes)
    missing = [o for o in outcomes.values() if o.status != "completed"]
    finals = [outcomes[i] for i in answer_steps(plan) if i in outcomes]
    citations = [
        {"step": o.step.index, **dict(o.citation)}
        for o in outcomes.values()
        if o.citation and o.value is not None
    ]

    def shown(o: StepOutcome) -> str:
        assert o.value is not None
        return _with_unit(o.value, final_unit(plan, outcomes, o.step.index)).shown()

    done = [o for o in finals if o.value is not None]
    answer = ""
    if len(finals) == 1 and done:
        answer = f"The answer is {shown(done[0])}."
    elif done:
        parts = "; ".join(f"{_short(o.step.text, 60).rstrip('.')}: {shown(o)}" for o in done)
        answer = f"The answers are: {parts}."
    names = "; ".join(
        f"step {o.step.index} ({_short(o.step.text, 80)}): {_STATUS.get(o.status, o.status)}" for o in missing
    )
    lacking = [o for o in missing if o.missing is not None]
    if lacking and not plan.unplanned:  # the value a step needs is named first (planning/refusal.py)
        named = "; ".join(f"{o.missing.named()}, needed by step {o.step.index}" for o in lacking if o.missing)
        others = "; ".join(
            f"step {o.step.index} ({_short(o.step.text, 80)}): {_STATUS.get(o.status, o.status)}"
            for o in missing
            if o.missing is None
        )
        names = f"missing value: {named}" + (f"; the team could not complete {others}" if others else "")
        head = f"{answer} Incomplete: {names}." if answer else f"No answer: {names}."
    elif plan.unplanned:
        head = f"No answer: {plan.unplanned}."
    elif answer and not missing:
        head = answer
    elif answer:
        head = f"{answer} Incomplete: the team could not complete {names}."
    else:
        head = f"No answer: the team could not complete {names}."
    lines = [head, "", "How:"] if outcomes else [head]
    for o in outcomes.values():
        value = o.value.shown() if o.value is not None else _STATUS.get(o.status, o.status)
        if o.value is not None and final_unit(plan, outcomes, o.step.index) == CLOCK:
            value = f"{shown(o)} ({value} min after midnight)"  # a time (planning/clock.py)
        note = f" ({o.note[:120]})" if o.note and o.value is None else ""
        if o.missing is not None:  # the step was refused: what it needs is named, not a failure
            value, note = f"missing: {o.missing.shown()[:200]}", ""
        lines.append(f"{o.step.index}. {o.who or '-'}: {_short(o.step.text, 90)} -> {value}{note}")
    if citations:
        lines.append("")
        lines.append("Sources:")
        for c in citations:
            lines.append(
                f"- step {c['step']}: {c.get('path')}:{c.get('line')}: {_short(str(c.get('text', '')), 160)}"
            )
    info = {
        "answer": answer,
        "steps": [o.to_dict() for o in outcomes.values()],
        "citations": citations,
        "missing": [o.step.index for o in missing] or ([0] if plan.unplanned else []),
        "missing_values": [{"step": o.step.index, **o.missing.to_dict()} for o in lacking if o.missing],
    }
    return "\n".join(lines), info


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


__all__ = ["StepOutcome", "answer_steps", "answers", "conclusion", "describe", "final_unit", "value_of"]
