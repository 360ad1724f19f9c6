"""Round 6 gaps of issue 23 on made-up wordings: a number base asked inside a calculation, and a rate per
unit U applied to a value in U (the value is not converted first)."""

from __future__ import annotations

from ioa_p2p.planning.compose import describe, per_units
from ioa_p2p.planning.parse import plan_request
from ioa_p2p.planning.types import CALC, CODE, PlanStep
from ioa_p2p.planning.values import Value


def _kinds(goal: str) -> list[tuple[str, str]]:
    return [(s.kind, s.template) for s in plan_request(goal).steps]


def test_a_base_asked_inside_a_calculation_adds_a_code_step_that_shows_it() -> None:
    plan = plan_request("What does 31 times 12 come to in binary?")
    assert [s.kind for s in plan.steps] == [CALC, CODE]
    assert plan.steps[1].template == "print(bin(int(v1))[2:])" and plan.steps[1].needs == (1,)
    assert plan.answer_step == 2
    assert _kinds("Work out 700 - 445 as hexadecimal.")[-1] == (CODE, "print(hex(int(v1)))")
    assert _kinds("Express 9 * 9 in octal, please.")[-1] == (CODE, "print(oct(int(v1)))")


def test_a_later_code_step_that_only_prints_shows_the_base_the_calculation_asked_for() -> None:
    steps = plan_request(
        "How much is 14 × 3 in hex? Work out the product first and then print it using Python."
    ).steps
    assert [s.kind for s in steps] == [CALC, CODE]
    assert steps[1].template == "print(hex(int(v1)))"


def test_no_base_step_when_the_value_feeds_another_calculation_or_no_base_is_asked() -> None:
    assert [s.kind for s in plan_request("What is 6 x 7 in binary, then add 5 to it").steps] == [CALC, CALC]
    assert [s.kind for s in plan_request("What is 6 x 7?").steps] == [CALC]
    assert [s.kind for s in plan_request("What is 6 x 7 in total?").steps] == [CALC]


def test_the_units_rates_are_given_per() -> None:
    assert per_units("turn it into hours at 6.5 hours per day") == ["days"]
    assert per_units("at EUR 14 an hour") == ["h"]
    assert per_units("at 3 per person and a bit") == []


def test_a_value_in_the_rate_s_unit_is_not_converted_before_the_rate_applies() -> None:
    step = PlanStep(2, CALC, "turn it into hours at 6.5 hours per day", "(v1 * 6.5)", (1,), unit="h")
    assert describe(step, {1: Value.of_number(20, "days")}) == "Calculate 20 * 6.5"
    # a value in another unit of the rate's kind is put in the rate's unit: 3 weeks = 21 days
    assert describe(step, {1: Value.of_number(3, "weeks")}) == "Calculate 21 * 6.5"
    # without a rate the value is converted to the unit asked for, as before
    plain = PlanStep(2, CALC, "give it in kg", "(v1 * 1)", (1,), unit="kg")
    assert describe(plain, {1: Value.of_number(2, "t")}) == "Calculate 2000 * 1"
