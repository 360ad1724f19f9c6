"""Percentages, prices per unit, date shifts, durations at a rate and shares of a whole applied to earlier
values (issue 23, item 2). Made-up companies and wordings (none from a goal suite)."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, DATE, LOOKUP, describe, plan_request
from ioa_p2p.planning.values import parse_value


def _last(goal: str) -> tuple[str, str, tuple[int, ...]]:
    step = plan_request(goal).steps[-1]
    return step.kind, step.template.replace(" ", ""), step.needs


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("Run:\nnums = [4, 6, 10]\nprint(sum(nums) * 5)\nthen take 20 % off whatever it prints.",
         "(v1*(1-20/100))"),
        ("Look up the Brask Cycles cargo bike price, then knock 15 percent off it.", "(v1*(1-15/100))"),
        ("Find the Orlo Telecom basic plan fee and add 8 % on top of it.", "(v1*(1+8/100))"),
    ],
)  # fmt: skip
def test_a_percentage_the_request_states_changes_the_earlier_value(goal: str, expression: str) -> None:
    kind, template, _ = _last(goal)
    assert kind == CALC and template == expression


@pytest.mark.parametrize(
    ("goal", "expression", "shown"),
    [
        ("Check the Drummel Logistics fuel surcharge percentage, then add it to a freight bill of EUR 860.",
         "(860*(1+v1/100))", "860 * (1 + 12.5 / 100)"),
        ("Find the Brask Cycles student discount percentage and apply it to a EUR 420 order.",
         "(420*(1-v1/100))", "420 * (1 - 12.5 / 100)"),
        ("Look up the Orlo Telecom reseller commission percentage, then work out that share of EUR 2,000.",
         "(v1/100*2000)", "12.5 / 100 * 2000"),
    ],
)  # fmt: skip
def test_a_percentage_found_in_the_documents_applies_to_the_stated_amount(
    goal: str, expression: str, shown: str
) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert steps[1].template.replace(" ", "") == expression
    assert describe(steps[1], {1: parse_value("12.5 %")}) == f"Calculate {shown}"


def test_a_calculated_percentage_is_no_share_found_in_documents() -> None:
    steps = plan_request("Calculate 12% of 3,150, then add 9 squared to the result.").steps
    assert "1 + v1 / 100" not in steps[1].template


def test_the_price_per_unit_of_a_pack_divides_by_its_size() -> None:
    kind, template, needs = _last(
        "What does the Quenby Mill charge for a 25 kg sack of spelt? Work out the price per kg."
    )
    assert kind == CALC and template.endswith("/25)") and needs


@pytest.mark.parametrize(
    ("goal", "n", "way"),
    [
        ("When was the Orlo Telecom outage OT-77 resolved? Give the date two weeks later.", "2 weeks",
         "after"),
        ("On what date does the Tamsin Hall lease end? What day is 10 days earlier?", "10 days", "before"),
    ],
)  # fmt: skip
def test_a_date_shift_after_a_date_question_moves_that_date(goal: str, n: str, way: str) -> None:
    kind, _, needs = _last(goal)
    step = plan_request(goal).steps[-1]
    assert kind == DATE and needs == (1,) and f"{n} {way} {{1}}" in step.template


@pytest.mark.parametrize(
    ("goal", "factor"),
    [
        ("Tell me what the Kessing Junction car park charges per hour, then compute a stay from 08:15 to "
         "17:45 at that rate.", "9.5"),
        ("Find the Tamsin Hall hourly rate and work out 90 minutes at it.", "1.5"),
        ("Look up the Brask Cycles daily rate. What do 36 hours cost?", "1.5"),
    ],
)  # fmt: skip
def test_a_duration_at_a_rate_per_time_is_in_the_rate_s_unit(goal: str, factor: str) -> None:
    kind, template, needs = _last(goal)
    assert kind == CALC and template == f"(v1*{factor})" and needs == (1,)


def test_a_share_of_a_whole_and_how_many_more() -> None:
    kind, template, _ = _last(
        "Look up what percentage of Orlo Telecom's customers are on the basic plan, and the total number of "
        "customers. How many basic-plan customers is that?"
    )
    assert kind == CALC and template == "(v1/100*v2)"
    kind, template, _ = _last(
        "Find the Oskarby Pavilion's standing capacity and its seated capacity. How many more people fit "
        "standing?"
    )
    assert kind == CALC and template == "abs(v1-v2)"


def test_a_format_line_is_not_merged_into_the_question() -> None:
    steps = plan_request(
        "How long does a Pellworth rye loaf prove? If I prove four batches one after another, how many "
        "hours is that in total? One decimal."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert steps[1].template.replace(" ", "") == "round((v1*4),1)" and steps[1].unit == "h"


def test_three_steps_with_a_percentage_then_code() -> None:
    steps = plan_request(
        "Look up the Oskarby Pavilion Saturday hire fee, then take 10 % off it, and run this with net set "
        "to it:\nprint(net // 2)"
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC, CODE] and steps[2].bindings == (("net", 2),)
