"""Issue 23, chained and three-agent requests: values flowing between steps, each mechanism on made-up
requests written for these tests (none from a goal suite)."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, Value, describe, plan_request


@pytest.mark.parametrize(
    "naming",
    [
        "and hand it over as per_seat",
        "then put that into `per_seat`",
        "assign the result to per_seat before running it",
        "with per_seat holding that quotient",
        "call the quotient per_seat and evaluate",
    ],
)
def test_a_clause_that_only_names_a_value_binds_the_code_input(naming: str) -> None:
    goal = f"Find the Orwell Hall seat count; divide 9000 by it, {naming}:\nprint(per_seat + 1)"
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC, CODE]  # the naming is no step of its own
    assert steps[2].bindings == (("per_seat", 2),) and steps[2].needs == (2,)
    assert "per_seat = 30" in describe(steps[2], {1: Value.of_number(300), 2: Value.of_number(30)})


def test_a_naming_clause_for_another_name_stays_a_request() -> None:
    plan = plan_request("Compute 6 * 7, then store it in `answer`. Run this:\nprint(total + 1)")
    assert not plan.steps and "total" in plan.unplanned  # the code's input is never set to the wrong value


TWO_WEIGHTS = "Look up the weight of the Tarn T3 crate. Look up the weight of the Tarn T8 crate. "


@pytest.mark.parametrize(
    ("ask", "template", "unit"),
    [
        ("What is the first as a percentage of the second?", "(v1 / v2 * 100)", "%"),
        ("Express the T8 crate's weight as a percentage of the T3 crate's.", "(v2 / v1 * 100)", "%"),
        ("What share of the T8 weight is the T3 weight?", "(v1 / v2 * 100)", "%"),
        ("How many times as heavy as the T3 is the T8?", "(v2 / v1)", ""),
        ("By how much does the T8 exceed the T3?", "abs(v1 - v2)", ""),
    ],
)
def test_two_earlier_values_are_related_in_the_order_their_meaning_says(
    ask: str, template: str, unit: str
) -> None:
    steps = plan_request(TWO_WEIGHTS + ask).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template == template and set(steps[2].needs) == {1, 2}
    assert steps[2].unit == unit


def test_an_amount_per_thing_divides_by_the_value_about_that_thing() -> None:
    goal = (
        "Find how many visitors the Quillby museum had in March and its ticket income for March; "
        "from those, what was the income per visitor?"
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert "visitor" in steps[0].template and steps[2].template == "(v2 / v1)"


@pytest.mark.parametrize(
    ("goal", "first", "second", "relation"),
    [
        (
            "Sum the hire fees of Corvel's Hall A and Hall C.",
            "Hall A",
            "Hall C",
            "(v1 + v2)",
        ),
        (
            "The M-40 and the M-60 from Dunmore: how much do they weigh together?",
            "M-40",
            "M-60",
            "(v1 + v2)",
        ),
        (
            "What is the difference between the number of seats in the Pell theatre and the number of "
            "seats in the Arden cinema?",
            "Pell theatre",
            "Arden cinema",
            "abs(v1 - v2)",
        ),
        (
            "Find Osgood's Route 4 Peak and Route 4 Off-peak fares for an adult.",
            "Route 4 Peak",
            "Route 4 Off-peak",
            None,
        ),
    ],
)
def test_one_request_about_two_things_is_a_lookup_each_and_the_relation_asked(
    goal: str, first: str, second: str, relation: str | None
) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps[:2]] == [LOOKUP, LOOKUP]
    assert first in steps[0].template and second not in steps[0].template.replace(first, "")
    assert second in steps[1].template and first not in steps[1].template.replace(second, "")
    if relation is None:
        assert len(steps) == 2
    else:
        assert len(steps) == 3 and steps[2].kind == CALC and steps[2].template == relation


def test_a_relative_who_does_not_make_a_count_a_name() -> None:
    from ioa_p2p.planning.answer_types import answer_type

    assert answer_type("What is the number of guests who stayed two nights?").kind == "count"
    assert answer_type("Who signed the lease for the shop?").kind == "name"


@pytest.mark.parametrize("goal", ["How many minutes are there between 14:02 and 14:48?", "Add 3 and 4."])
def test_numbers_and_clock_times_are_no_pair_of_things(goal: str) -> None:
    from ioa_p2p.planning.coordinated import two_things

    assert two_things(goal) is None


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Give the Halden P-9 pump's rated flow in litres per second.", 2.0),
        ("What is the Halden P-9 pump's rated flow in cubic metres per hour?", 7.2),
    ],
)
def test_a_lookup_asked_in_a_unit_is_looked_up_then_converted(goal: str, expected: float) -> None:
    lookup, convert = plan_request(goal).steps
    assert lookup.kind == LOOKUP and " in " not in lookup.template.split("flow")[-1]
    assert convert.kind == CALC and convert.needs == (1,) and "/" in convert.unit
    shown = describe(convert, {1: Value.of_number(120, "L/min")}).removeprefix("Calculate ")
    assert abs(eval(shown, {"__builtins__": {}}) - expected) < 1e-6  # 120 L/min converted


def test_two_questions_in_one_sentence_are_two_lookups_with_their_context() -> None:
    goal = (
        "In the Wexley museum's 2025 report, how many visitors came in March and what was the ticket "
        "income for March? From those, what was the income per visitor?"
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert all("Wexley" in s.template for s in steps[:2])
    assert steps[2].template == "(v2 / v1)"


def test_a_closing_report_instruction_is_no_request() -> None:
    goal = "Run print(6 * 7). Multiply it by the Orwell Hall cleaning fee, and report the amount."
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [CODE, LOOKUP, CALC] and "cleaning fee" in steps[1].template


@pytest.mark.parametrize(
    ("goal", "template", "unit"),
    [
        ("Convert 38.5 hours to days at 7.7 hours per day.", "(38.5 / 7.7)", "days"),
        ("How many days do 60 hours make at 7.5 hours a day?", "(60 / 7.5)", "days"),
        ("Convert 4 days to hours at 7.5 hours a day.", "(4 * 7.5)", "h"),
    ],
)
def test_a_stated_rate_converts_in_the_direction_the_units_require(
    goal: str, template: str, unit: str
) -> None:
    (step,) = plan_request(goal).steps
    assert step.kind == CALC and step.template == template and step.unit == unit


def test_a_quantity_counted_in_units_an_earlier_value_measures_is_divided_by_it() -> None:
    goal = "Find the length of the Quarry Lane working week. A job takes 150 hours; how many weeks is that?"
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC] and "150 / v1" in steps[1].template  # never 150 * v1
    shifts = "Find the length of the Quarry Lane shift. A job takes 60 hours; how many shifts is that?"
    assert "60 / v1" in plan_request(shifts).steps[1].template


def test_a_topic_before_a_colon_leaves_the_request_after_it() -> None:
    goal = (
        "Plum jam at Orvo Kitchen: find the sugar for one batch and how many jars a batch fills, work out "
        "the grams of sugar per jar, then run this with per_jar set to it:\nprint(per_jar * 12)"
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert "work out" not in steps[0].template and steps[2].template == "(v1 / v2)"
    assert steps[3].bindings == (("per_jar", 3),)
