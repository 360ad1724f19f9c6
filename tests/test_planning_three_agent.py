"""Three-agent goals (a lookup, a calculation on it, code run on the result): how each step's value is bound
into the next one (issue 23). Made-up wording, no suite's goal."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.types import CALC, CODE, LOOKUP


def _bindings(goal: str) -> dict[str, int]:
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    code = [s for s in plan.steps if s.kind == CODE]
    assert len(code) == 1
    return dict(code[0].bindings)


@pytest.mark.parametrize("who", ["your result", "your answer", "my result"])
def test_your_result_is_the_previous_step(who: str) -> None:
    goal = (
        "Look up the Brindle Works day ticket price, add a 30% weekend surcharge to it, "
        f"then run `print(round(total - base, 2))` with base = the day ticket price and total = {who}."
    )
    plan = plan_request(goal)
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC, CODE]
    assert _bindings(goal) == {"base": 1, "total": 2}


def test_two_variables_one_named_by_its_lookup_with_a_number_one_by_the_result() -> None:
    goal = (
        "Look up the zone 3 locker rent at Harwick Station, calculate the rent of a second locker "
        "(20% less than the zone rent), then run `print(a + b)` with a = the zone 3 rent and "
        "b = your result."
    )
    plan = plan_request(goal)
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC, CODE]
    assert _bindings(goal) == {"a": 1, "b": 2}


def test_a_description_two_steps_share_without_a_number_to_tell_them_apart_stays_unbound() -> None:
    goal = (
        "Look up the locker rent at Harwick Station, calculate the rent of a second locker "
        "(20% less than the locker rent), then run `print(a + b)` with a = the locker rent and "
        "b = your result."
    )
    plan = plan_request(goal)
    assert not plan.steps and plan.unplanned and "a" in plan.unplanned  # never bound by a guess


def test_a_calculation_after_a_lead_phrase_works_on_the_value_the_lead_names() -> None:
    goal = (
        "Using the average queue length of the Fenwick help desk, estimate waiting calls as "
        "length x 48 / 10. With calls equal to that estimate, what does `print(round(calls))` output?"
    )
    plan = plan_request(goal)
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC, CODE]
    assert "queue length" in plan.steps[0].template and "Fenwick" in plan.steps[0].template
    assert "v1" in plan.steps[1].template and "48" in plan.steps[1].template
    assert dict(plan.steps[2].bindings) == {"calls": 2}


def test_a_lead_phrase_the_calculation_does_not_name_is_no_lookup_of_its_own() -> None:
    from ioa_p2p.planning.scene import led_lookup

    assert (
        led_lookup("Using the Fenwick help desk's staffing plan, estimate the calls for 48 callers.", 1)
        is None
    )
    assert led_lookup("Using the queue length of the Fenwick desk, what is the busiest hour?", 1) is None
    made = led_lookup("Using the queue length of the Fenwick desk, multiply the length by 3.", 4)
    assert made is not None
    lookup, rest = made
    assert lookup.index == 4 and lookup.kind == LOOKUP and rest == "multiply it by 3."


def test_counts_of_kinds_each_priced_by_its_own_lookup() -> None:
    goal = (
        "Get the Orrin Bay ferry single fare for a senior and the one for a student. Work out the cost for "
        "3 seniors plus 4 students. Then execute this with cost as that amount: `print(round(cost * 2, 2))`"
    )
    plan = plan_request(goal)
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert "senior" in plan.steps[0].template and "student" in plan.steps[1].template
    assert plan.steps[2].template == "(3 * v1 + 4 * v2)"
    assert dict(plan.steps[3].bindings) == {"cost": 3}


def test_a_count_no_lookup_is_about_is_not_priced_by_a_guess() -> None:
    from ioa_p2p.planning.counted import counted_kinds
    from ioa_p2p.planning.types import PlanStep

    before = [
        PlanStep(1, LOOKUP, "What is the Orrin Bay ferry single fare for a senior?", "q"),
        PlanStep(2, LOOKUP, "What is the Orrin Bay ferry single fare for a student?", "q"),
    ]
    assert counted_kinds("Work out the cost for 3 seniors plus 4 dogs.", before, 3) is None
    assert counted_kinds("Work out the cost for 3 fares plus 4 students.", before, 3) is None  # shared word
    assert (
        counted_kinds("Work out the cost for 3 seniors.", before, 3) is None
    )  # one count: planned elsewhere
    made = counted_kinds("Calculate 2 students and 5 seniors.", before, 3)
    assert made is not None and made.template == "(2 * v2 + 5 * v1)" and made.needs == (2, 1)


def test_counts_in_words_of_kinds_a_compound_word_names() -> None:
    from ioa_p2p.planning.counted import counted_kinds
    from ioa_p2p.planning.types import PlanStep

    before = [
        PlanStep(1, LOOKUP, "What is the Brisk Haulage overnight subsistence?", "q"),
        PlanStep(2, LOOKUP, "What is the yearly glove allowance at Brisk Haulage?", "q"),
    ]
    made = counted_kinds("Compute nine nights plus two glove payments.", before, 3)  # "overnight" ends in it
    assert made is not None and made.template == "(9 * v1 + 2 * v2)"
    assert counted_kinds("Compute nine sub plus two gloves.", before, 3) is None  # a prefix names nothing


@pytest.mark.parametrize(
    ("template", "task"),
    [
        ("( v1 * 236500 ) / 100", "Calculate (12.5 * 236500) / 100"),  # "rate x 236,500 / 100"
        ("(v1 / 100 * 80)", "Calculate 12.5 / 100 * 80"),
        ("(v1 * 80)", "Calculate (12.5 / 100) * 80"),  # no division of its own: the fraction
    ],
)
def test_a_percentage_the_expression_divides_by_100_itself_is_its_figure(template: str, task: str) -> None:
    from ioa_p2p.planning import describe
    from ioa_p2p.planning.types import PlanStep
    from ioa_p2p.planning.values import Value

    step = PlanStep(2, CALC, "estimate it", template, (1,))
    assert describe(step, {1: Value.of_number(12.5, "%")}) == task
