"""Issue 23 class 2 (p-chain5): a value times a stated amount is in the product of their units ("a 60 W
pump over 1,500 hours" is 90,000 Wh), converted to the unit the step asks for ("in kWh": 90 kWh), never
the bare product (planning/compose.py). Made-up plans."""

from __future__ import annotations

from ioa_p2p.planning import CALC, LOOKUP, PlanStep, Value, describe, plan_request


def _calc(template: str, text: str, unit: str) -> PlanStep:
    return PlanStep(2, CALC, text, template, needs=(1,), unit=unit)


def test_watts_over_hours_in_kilowatt_hours() -> None:
    step = _calc("(v1 * 1500)", "work out its energy use in kWh over 1,500 hours", "kWh")
    assert describe(step, {1: Value.of_number(60, "W")}) == "Calculate 60 * 1500 * 0.001"


def test_the_product_already_in_the_unit_asked_and_other_units_stay() -> None:
    step = _calc("(v1 * 1500)", "work out its energy use in kWh over 1,500 hours", "kWh")
    assert describe(step, {1: Value.of_number(0.06, "kW")}) == "Calculate 0.06 * 1500"
    priced = _calc("(v1 * 3)", "work out the cost of 3 kg in EUR", "EUR")
    assert describe(priced, {1: Value.of_number(4, "EUR")}) == "Calculate 4 * 3"


def test_the_plan_of_such_a_request() -> None:
    goal = "Get the Larrow pump's rated power, then work out its energy use in kWh over 1,500 hours."
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC] and steps[1].unit == "kWh"
    assert describe(steps[1], {1: Value.of_number(60, "W")}) == "Calculate 60 * 1500 * 0.001"
