"""Every request of a goal becomes a step (issue 23, item 9), in the order the goal says ("... first"), and
steps over dates, periods and money (items 2-3). Made-up companies and wordings (none from a goal suite)."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, DATE, LOOKUP, TASK, plan_request


@pytest.mark.parametrize(
    ("goal", "kinds"),
    [
        ("Uppercase 'abc'; compute 2 ** 8.", [TASK, CALC]),
        ('Translate "thank you" into French\nCount: alpha beta gamma', [TASK, TASK]),
        ("Reverse the string 'stressed'. Calculate 17 * 4.", [TASK, CALC]),
        ("Convert 5 kg to pounds, then encode the word 'kilo' as base64.", [CALC, TASK]),
        ("Look up the Brask Cycles city bike price. Spell 'bicycle' backwards.", [LOOKUP, TASK]),
    ],
)
def test_every_request_is_a_step_of_its_own(goal: str, kinds: list[str]) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == kinds
    assert all(not s.needs for s in steps)  # none of them works on another's value


def test_asking_to_be_told_a_new_thing_is_a_request_asking_for_the_result_is_not() -> None:
    steps = plan_request(
        "Take the start date and the end date of the Orlo Telecom OT-77 outage from the incident log and "
        "tell me how many days it lasted."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, DATE]
    assert steps[2].template == "How many days are there from {1} to {2}?"
    steps = plan_request("Run this code and tell me what it prints: `print(6 * 7)`").steps
    assert [s.kind for s in steps] == [CODE]


@pytest.mark.parametrize(
    "goal",
    [
        "How many minutes of LC-9 cutter time does a Brask member get for EUR 42? Look up the member rate "
        "per minute first.",
        "How many hours of Tamsin Hall studio time does EUR 90 buy? Find the hourly studio rate per hour "
        "beforehand.",
    ],
)
def test_a_request_said_to_come_first_comes_first(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert "first" not in steps[0].template and "beforehand" not in steps[0].template
    assert ("Brask" in steps[0].template) or ("Tamsin Hall" in steps[0].template)
    assert steps[1].template in ("(42 / v1)", "(90 / v1)")


@pytest.mark.parametrize(
    ("goal", "k"),
    [
        ("Look up the Tamsin Hall monthly rent, turn it into a weekly figure.", 7 / (365 / 12)),
        ("Find the Orlo Telecom monthly fee and express it as an annual amount.", 12.0),
        ("Get the Brask Cycles weekly rental rate, then turn it into a daily figure.", 1 / 7),
    ],
)
def test_an_amount_per_period_for_another_period(goal: str, k: float) -> None:
    step = plan_request(goal).steps[-1]
    assert step.kind == CALC and step.needs == (1,)
    assert step.template.startswith("(v1 * ")
    assert abs(float(step.template.removeprefix("(v1 * ").rstrip(")")) - k) < 1e-9


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("Look up the Oskarby Pavilion Saturday hire fee and split it between 6 families.", "(v1/6)"),
        ("Find the Tamsin Hall deposit and the cleaning fee, then work out their average.", "((v1+v2)/2)"),
        ("Get the Brask Cycles city bike day rate. For a group of 7 riders renting for 3 days, what is the "
         "total?", "(v1*7*3)"),
        ("Find the Drummel Logistics van payload in kg. How many 40 kg crates can one van carry?",
         "floor(v1/40)"),
        ("Look up the Brask Cycles e-bike battery range in km and how many km a rider covers a day. How many "
         "days does one charge last?", "(v1/v2)"),
        ("Find Kessing Junction's busiest hour passenger count and divide it by the number of carriages, 8.",
         "(v1/8)"),
    ],
)  # fmt: skip
def test_values_split_averaged_fitted_and_lasting(goal: str, expression: str) -> None:
    step = plan_request(goal).steps[-1]
    assert step.kind == CALC and step.template.replace(" ", "") == expression
    assert all(s.kind == LOOKUP for s in plan_request(goal).steps[:-1])


def test_a_date_after_a_date_is_no_rate_applied() -> None:
    steps = plan_request(
        "On what date did the Orlo Telecom OT-12 outage begin? Give the date 45 days after it."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, DATE]


def test_two_calculations_in_one_request_are_two_steps_each_bound_by_position() -> None:
    steps = plan_request(
        "Compute 15 * 4 and 9 * 7, then run print(x - y) with x as the first result and y as the second."
    ).steps
    assert [s.kind for s in steps] == [CALC, CALC, CODE]
    assert steps[2].bindings == (("x", 1), ("y", 2))


def test_code_variables_bound_to_values_named_by_what_they_are() -> None:
    steps = plan_request(
        "Look up the Tamsin Hall deposit and the Tamsin Hall cleaning fee, then run print(a + 2 * b) with a "
        "set to the deposit and b to the cleaning fee."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CODE]
    assert dict(steps[2].bindings) == {"a": 1, "b": 2}
    plan = plan_request("Calculate 6 * 7, then run print(p + q) with p set to it.")
    assert not plan.steps and "q" in plan.unplanned  # never run with a variable missing
