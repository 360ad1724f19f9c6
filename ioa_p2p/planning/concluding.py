"""The conclusion of a plan's outcomes (pure).

:func:`conclusion` writes the answer sentence first (in the unit :func:`final_unit` gives the answer
step), then one line per step (who, what, value), then the citations; a step that did not complete is
named, a refused step's missing value first (planning/refusal.py). :func:`answer_steps` says which steps
answer the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ioa_p2p.planning.clock import CLOCK
from ioa_p2p.planning.derive import DERIVE, derive_expression, derive_missing, typed_charge
from ioa_p2p.planning.missing import MISSING
from ioa_p2p.planning.results import StepOutcome
from ioa_p2p.planning.tariffs import CHARGE
from ioa_p2p.planning.types import CALC, Plan
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, is_money


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


__all__ = ["answer_steps", "conclusion", "final_unit"]
