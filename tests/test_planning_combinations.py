"""Issue 23, round 2: how a plan combines the values it looks up, on made-up requests (none from a goal
suite): two heads sharing a tail in one lookup, a calculation named by what it is (ratio, index, expected
value), per-unit prices added before the quantity, a rate times every quantity, sums of two named amounts,
"how many minutes longer ... than", "by how much did X grow", whole containers for a quantity, constants
given for code variables; and the calculator's min/max (caps and minimum charges).
"""

from __future__ import annotations

import pytest
import trio

from ioa_p2p.adapters.base import Task, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.planning import CALC, CODE, LOOKUP, Value, describe, plan_request
from ioa_p2p.planning.answer_types import request_act


def shape(goal: str) -> list[tuple[str, str]]:
    return [(s.kind, s.template.replace(" ", "")) for s in plan_request(goal).steps]


def test_two_heads_sharing_a_tail_are_two_lookups_and_the_calculation_named_combines_them() -> None:
    steps = plan_request(
        "Read the weight and volume of the Osk timber pallet in the warehouse sheet, compute its density to "
        "two decimals, then run `print(round(load / d))` with d set to it and load = 900."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert steps[0].template == "What is the weight of the Osk timber pallet in the warehouse sheet?"
    assert steps[1].template == "What is the volume of the Osk timber pallet in the warehouse sheet?"
    assert steps[2].template.replace(" ", "") == "round((v1/v2),2)"  # "two decimals" is no quantity
    assert steps[3].template.startswith("load = 900\n") and steps[3].bindings == (("d", 3),)
    ev = shape(
        "Look up the likelihood and loss of hazard H-7 in the Brack mine register, then compute its "
        "expected value."
    )
    assert ev[-1] == (CALC, "(v1*v2)")


def test_per_unit_prices_looked_up_together_are_added_before_the_quantity() -> None:
    steps = plan_request(
        "Find Pellow Print's per-sheet rate for 300 posters and the price of the gloss option, then "
        "compute the price of 300 glossy posters."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template.replace(" ", "") == "((v1+v2)*300)"
    values = {1: Value.of_number(0.4, "EUR"), 2: Value.of_number(0.05, "EUR")}
    assert describe(steps[2], values) == "Calculate (0.4 + 0.05) * 300"


def test_a_rate_is_applied_to_every_quantity_and_an_aside_is_no_quantity() -> None:
    assert shape("Find the Delmar Hotel's nightly rate per room, then cost four rooms for three nights.") == [
        (LOOKUP, "FindtheDelmarHotel'snightlyrateperroom"),
        (CALC, "(v1*4*3)"),
    ]
    assert shape("Look up the Oslo per diem, calculate 75 % of it (the travel-day rate), then double it.")[
        1
    ] == (CALC, "(75/100*v1)")
    steps = plan_request(
        "Take the Orwin Cafe's lunch menu price, compute it for 40 guests plus the 12 % service charge."
    ).steps
    assert steps[0].kind == LOOKUP and steps[1].template.replace(" ", "") == "((v1*40)*(1+12/100))"
    assert request_act("cost four rooms for three nights") == "compute"
    assert request_act("Take the H3 inverter's weight from the datasheet") == "question"


def test_two_named_amounts_are_looked_up_and_added() -> None:
    steps = plan_request(
        "Add Brindle Library's fee for a late return to the charge for a lost library card."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[1].template == "What is the charge for a lost library card (Brindle Library)?"
    steps = plan_request(
        "Using the Orwin Sports Club price list, what do a racket restring and two court bookings add up to?"
    ).steps
    assert "Orwin Sports Club price list" in steps[0].template and "court bookings" in steps[1].template
    assert steps[2].template == "(v1 + 2 * v2)"


def test_how_many_units_longer_asks_the_same_question_of_both_things() -> None:
    steps = plan_request(
        "How many minutes longer per coat does gloss varnish dry than matt varnish in the Pell workshop "
        "guide?"
    ).steps
    assert [s.template for s in steps[:2]] == [
        "How many minutes per coat does gloss varnish dry in the Pell workshop guide?",
        "How many minutes per coat does matt varnish dry in the Pell workshop guide?",
    ]
    assert steps[2].template == "abs(v1 - v2)" and steps[2].unit == "min"


def test_by_how_much_did_it_grow_is_the_later_value_less_the_earlier() -> None:
    steps = plan_request("By how much did Carrow Mills' export sales grow from Q1 to Q2 2023?").steps
    assert [s.template for s in steps] == [
        "Carrow Mills' export sales in Q1 2023?",
        "Carrow Mills' export sales in Q2 2023?",
        "(v2 - v1)",
    ]
    assert (
        plan_request("By how much did the Orwin stock fall from May to June?").steps[2].template
        == "(v1 - v2)"
    )


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        (
            "Boxes hold twelve jars and we need 347 jars. How many boxes do we have to order?",
            "ceil(347 / 12)",
        ),
        ("We have 95 guests and round tables seat 10. How many tables do we need?", "ceil(95 / 10)"),
        ("Seedlings come in trays of 24. How many trays for 100 seedlings?", "ceil(100 / 24)"),
    ],
)
def test_whole_containers_for_a_quantity_are_rounded_up(goal: str, template: str) -> None:
    (step,) = plan_request(goal).steps
    assert step.kind == CALC and step.template == template


def test_the_calculator_takes_min_and_max() -> None:
    calculator = adapter_from_config({"name": "c", "adapter": "calculator"})

    async def main() -> list[str]:
        out = []
        for text in (
            "Calculate min(ceil(130 / 15) * 0.5, 4)",
            "Calculate max(2, 3.5) * 40",
            "the maximum of 7, 3 and 9",
        ):
            result = await run_task(calculator, Task.create(text, timeout=10))
            out.append(result.text if result.ok else "failed")
        return out

    capped, minimum, largest = trio.run(main)
    assert capped == "min(ceil(130 / 15) * 0.5, 4) = 4"
    assert minimum == "max(2, 3.5) * 40 = 140"
    assert largest == "max(7, 3, 9) = 9"
