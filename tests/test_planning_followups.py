"""Requests over earlier values they do not name (issue 23, items 2-3): counts of containers rounded up,
repeated batches, two earlier values combined by what the result is called, a rate just looked up applied
to the quantity a follow-up question states. Made-up companies and wordings (none from a goal suite)."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, Value, describe, plan_request
from ioa_p2p.planning.followups import names_new_thing


def _calc(goal: str) -> tuple[str, tuple[int, ...]]:
    steps = plan_request(goal).steps
    assert steps[-1].kind == CALC, steps
    assert all(s.kind == LOOKUP for s in steps[:-1]), steps
    return steps[-1].template, steps[-1].needs


@pytest.mark.parametrize(
    "goal",
    [
        "Look up how many portions one tray of Pellworth Bakery's apple crumble gives. "
        "For a party of 90 portions, how many trays must we bake?",
        "Find the number of guests per round table at the Oskarby Pavilion. We expect 130 guests; "
        "how many tables do we need?",
        "Check how many parcels a Drummel Logistics van carries. How many vans are needed for 410 parcels?",
    ],
)
def test_containers_for_a_number_of_things_are_rounded_up(goal: str) -> None:
    template, needs = _calc(goal)
    assert template.startswith("ceil(") and "/ v1" in template and needs == (1,)


@pytest.mark.parametrize(
    ("goal", "capacity"),
    [
        ("What is the Oskarby Pavilion's standing capacity? If each table seats 8, how many tables "
         "does that many guests need?", "8"),
        ("Look up how many delegates the Tamsin Hall can hold. With tables of 10, how many tables is that?",
         "10"),
    ],
)  # fmt: skip
def test_a_stated_capacity_divides_the_value_found(goal: str, capacity: str) -> None:
    template, needs = _calc(goal)
    assert template == f"ceil(v1 / {capacity})" and needs == (1,)


def test_batches_one_after_another_take_the_time_of_one_batch_each() -> None:
    goal = (
        "Find the Pellworth Bakery rye loaf baking time and the number of loaves per batch. "
        "How many minutes does baking 50 loaves take, batch after batch?"
    )
    template, needs = _calc(goal)
    assert template == "(ceil(50 / v2) * v1)" and set(needs) == {1, 2}
    step = plan_request(goal).steps[-1]
    text = describe(step, {1: Value.of_number(35, "min"), 2: Value.of_number(12)})
    assert "ceil(50 / 12)" in text and "35" in text


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("Look up the Brask Cycles city bike price and the Brask Cycles cargo bike price; what is the "
         "difference?", "abs(v1 - v2)"),
        ("Find the Quenby Mill's weekday opening hours and its weekend opening hours. How much longer is "
         "the weekday?", "abs(v1 - v2)"),
        ("Find the Oskarby Pavilion's hall area and its ceiling height, then multiply them.", "(v1 * v2)"),
        ("Get the Holt & Verne list price and the Holt & Verne dealer price, then add them up.",
         "(v1 + v2)"),
        ("Look up the Ravel Dairy morning yield and the Ravel Dairy evening yield; give the average of "
         "the two.", "((v1 + v2) / 2)"),
    ],
)  # fmt: skip
def test_two_values_combine_by_what_the_result_is_called(goal: str, expression: str) -> None:
    template, needs = _calc(goal)
    assert template == expression and set(needs) == {1, 2}


@pytest.mark.parametrize(
    "goal",
    [
        "Look up the number of late trains at Kessing Junction last week and the average delay of one, "
        "then the total delay.",
        "Find how many refunds Orlo Telecom paid in May and the mean amount per refund, then the total "
        "paid out.",
    ],
)
def test_a_count_and_an_amount_per_item_total_as_a_product(goal: str) -> None:
    template, needs = _calc(goal)
    assert template == "(v1 * v2)" and set(needs) == {1, 2}


@pytest.mark.parametrize(
    ("goal", "factor"),
    [
        ("Find out the Tamsin Hall hire rate per hour. A 4-hour booking costs how much?", "4"),
        ("Look up what the Drummel Logistics courier charges per km. What would a 35 km run cost?", "35"),
        ("Check Quenby Mill's price per kg of flour. How much do 12 kg come to?", "12"),
    ],
)
def test_a_rate_just_found_applies_to_the_quantity_the_next_question_states(goal: str, factor: str) -> None:
    template, needs = _calc(goal)
    assert template == f"(v1 * {factor})" and needs == (1,)


def test_a_request_naming_something_new_is_a_new_lookup() -> None:
    steps = plan_request(
        "Find the Brask Cycles city bike price. What does the Orlo Telecom basic plan cost for 3 months?"
    ).steps
    assert steps[0].kind == LOOKUP and steps[1].kind == LOOKUP
    before = list(plan_request("Find the Brask Cycles city bike price.").steps)
    assert names_new_thing("What does the Orlo Telecom plan cost?", before)
    assert names_new_thing("And the BX-40 model?", before)
    assert not names_new_thing("For 30 bikes, what is the Brask total?", before)
    assert not names_new_thing("A 3-hour hire costs how much?", before)


@pytest.mark.parametrize(
    "goal",
    [
        "Determine the Orlo Telecom roaming fee per day, then multiply it by 9.",
        "Tell me the deposit the Tamsin Hall asks for. Then calculate 3 times it.",
        "Identify the Quenby Mill's price per kg of rye, and then double it.",
    ],
)
def test_requests_for_a_fact_in_other_words_are_lookups(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC] and steps[1].needs == (1,)


def test_asking_to_give_the_total_adds_no_step() -> None:
    steps = plan_request("What is the Tamsin Hall deposit? Multiply that by 4 and give the total.").steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]


@pytest.mark.parametrize(
    ("goal", "name"),
    [
        ("Look up the Tamsin Hall hourly rate, multiply it by 6, and plug the result into this script as "
         "cost:\nprint(cost * 1.2)", "cost"),
        ("Find the Orlo Telecom monthly fee. Compute a year of it. Pass that total into the following code "
         "as `annual`:\n```python\nprint(annual / 365)\n```", "annual"),
        ("Look up the Brask Cycles day rate, calculate 9 days of it, store it in total and run:\n"
         "print(total - 20)", "total"),
        ("What is the Tamsin Hall deposit? Take 15 % of it. Then run this Python code, substituting the "
         "result for d:\nprint(d * 3)", "d"),
    ],
)  # fmt: skip
def test_the_value_handed_to_code_is_bound_to_the_name_given(goal: str, name: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC, "code"], steps
    assert steps[2].bindings == ((name, 2),)


def test_numbered_step_labels_are_no_part_of_a_request() -> None:
    steps = plan_request(
        "Step 1: find the Brask Cycles cargo bike price. Step 2: take 10 % off it. "
        "Step 3: run `print(int(p))` with p = the discounted price."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC, "code"]
    assert not steps[0].template.lower().startswith("step")


@pytest.mark.parametrize(
    "goal",
    [
        "Find the rate per hour at the Tamsin Hall and the hours of a full-day booking. "
        "What does a full day cost?",
        "Look up the Orlo Telecom daily roaming fee and the days in its travel bundle. "
        "What does the bundle come to?",
    ],
)
def test_a_rate_and_an_amount_of_its_unit_multiply(goal: str) -> None:
    template, needs = _calc(goal)
    assert template == "(v1 * v2)" and set(needs) == {1, 2}
