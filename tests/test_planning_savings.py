"""Issue 23 (p-compose3): after two lookups of prices, "how much does the card save compared with paying for
twelve swims one by one" is the difference of two costs, the counted one taken that many times; the count
goes to the price whose lookup does not state it already (planning/savings.py). Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, plan_request
from ioa_p2p.planning.savings import saving_step
from ioa_p2p.planning.types import PlanStep


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Look up the 12-swim card and the single swim price at Tamsey pool. How much does the card save "
         "compared with paying for twelve swims one by one?", "abs(12 * v2 - v1)"),
        ("Look up the single swim price and the 12-swim card at Tamsey pool. What does the card save over "
         "buying 12 single swims?", "abs(12 * v1 - v2)"),
        ("Get the resident and the visitor swim prices at Tamsey pool. How much does a resident save?",
         "abs(v1 - v2)"),
    ],
)  # fmt: skip
def test_a_saving_is_the_difference_of_two_costs(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[-1].template.replace(" ", "") == template.replace(" ", "")
    assert steps[-1].needs == (1, 2)


def test_how_much_more_separate_days_cost_feeds_the_code() -> None:
    goal = (
        "Look up the 3-day rover ticket and the day ticket on the Ilsey ferry, work out how much more three "
        "separate days would cost than the 3-day rover, and pass that as extra to `print(extra * 4)`."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert steps[2].template.replace(" ", "") == "abs(3*v2-v1)"
    assert steps[3].bindings == (("extra", 3),)


def _lookup(index: int, text: str) -> PlanStep:
    return PlanStep(index, LOOKUP, text, text + "?")


@pytest.mark.parametrize(
    "clause",
    [
        "How much does the card save compared with 10 swims and 2 saunas?",  # two counts: not one option
        "What does the card save at the Orme lido?",  # another place than the lookups name
        "What is the card's saving of 15% worth?",  # a percentage: not a count of the other option
    ],
)
def test_no_saving_step_where_the_options_are_not_the_two_values(clause: str) -> None:
    before = [_lookup(1, "What is the 10-swim card at Tamsey pool"), _lookup(2, "What is the swim price")]
    assert saving_step(3, clause, before) is None


def test_no_saving_step_after_one_lookup() -> None:
    assert saving_step(2, "How much does the card save?", [_lookup(1, "What is the swim card")]) is None


def test_the_smaller_from_the_larger_is_the_difference_not_two_lookups() -> None:
    goal = (
        "Take the porter's and the cook's daily allowances at Orrel, subtract the smaller from the larger, "
        "and pass the gap as d to `print(d * 5)`."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert steps[2].template.replace(" ", "") == "abs(v1-v2)"
