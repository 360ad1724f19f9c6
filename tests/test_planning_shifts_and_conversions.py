"""Issue 23 (suite 3 misses, round 7), made-up goals: a date looked up then shifted by a period in a
separate sentence ("Add 45 days to that date.") is date arithmetic whose answer is a date; a conversion whose
factor the request states ("convert it to miles by dividing by 1.609344") gets the value in its own unit,
never converted twice."""

from __future__ import annotations

import datetime as dt
import re

from ioa_p2p.planning import CALC, answers, describe, plan_request
from ioa_p2p.planning.values import Value


def _calc_text(goal: str, found: Value) -> tuple[str, bool]:
    plan = plan_request(goal)
    step = next(s for s in plan.steps if s.kind == CALC)
    return describe(step, {1: found}), step.needs == (1,)


def test_a_date_shifted_by_a_period_is_date_arithmetic_and_answers_with_a_date() -> None:
    opened = Value.of_date(dt.date(2025, 5, 1))
    for goal, expected in (
        ("When did the Hollow Bridge open? Add 45 days to that date.", "Calculate 2025-05-01 + 45 days"),
        ("When did the Hollow Bridge open? Then subtract 3 weeks from it.", "Calculate 2025-05-01 - 3 weeks"),
    ):
        plan = plan_request(goal)
        step = plan.steps[-1]
        text = describe(step, {1: opened})
        if step.kind == CALC:
            assert text == expected, goal
        assert answers(step, Value.of_date(dt.date(2025, 6, 15)), {}), goal
    plan = plan_request("Calculate 12 + 30. Then add 5 to it.")
    assert not answers(plan.steps[-1], Value.of_date(dt.date(2025, 6, 15)), {})  # numbers give no date


def test_a_conversion_with_its_stated_factor_takes_the_value_in_its_own_unit() -> None:
    length = Value.of_number(32.2, "km", "32.2 km")
    for goal in (
        "Look up the length of the Brannock trail in km, convert it to miles by dividing by 1.609344, "
        "then run `print(round(d))` with d as the miles.",
        "Find the Brannock trail's length in km and convert it to miles (divide by 1.609344).",
    ):
        text, bound = _calc_text(goal, length)
        expression = text.removeprefix("Calculate ")
        assert bound and re.fullmatch(r"[\d.\s*/]+", expression), (goal, text)
        assert abs(eval(expression) - 32.2 / 1.609344) < 1e-6, (goal, text)  # noqa: S307 - digits only
    size = Value.of_number(16, "MB", "16 MB")
    text, _ = _calc_text(
        "Look up the upload limit in MB and convert it to bytes by multiplying by 1,048,576.", size
    )
    assert text.startswith("Calculate 16 *"), text


def test_a_value_multiplied_by_two_counts_and_a_named_amount_added() -> None:
    for goal, template in (
        (
            "Look up the Quay Inn's harbour fee per person per night, multiply it by 3 guests and 4 nights.",
            "v1*3*4",
        ),
        ("Find the cabin rate per person per day, then multiply it by 2 adults and 6 days.", "v1*2*6"),
        ("Look up the Quay Inn's room rate and add a cleaning charge of EUR 25 to it.", "v1+25"),
        ("Find the tram pass price, then add a card fee of 4 to it.", "v1+4"),
    ):
        plan = plan_request(goal)
        step = plan.steps[-1]
        assert step.kind == CALC and step.template.replace(" ", "").strip("()") == template, (goal, step)


def test_a_stated_factor_keeps_every_digit() -> None:
    plan = plan_request("Find the upload limit in MB, then convert it to bytes by multiplying by 1,048,576.")
    assert "1048576" in plan.steps[-1].template, plan.steps
    plan = plan_request("Look up the grant in EUR, then multiply it by 1.0000375.")
    assert "1.0000375" in plan.steps[-1].template, plan.steps
