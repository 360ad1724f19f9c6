"""An order's total from the things the user lists (planning/basket.py; issue 23, p-chain5).

Made-up wording: the things listed (each with its count) are looked up one by one, with the scene's proper
names, and the total is the counted sum; lists of people or periods and lists with money in them are left
to the rules that price them.
"""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.basket import basket_plan
from ioa_p2p.planning.types import CALC, LOOKUP


def test_a_listed_order_after_a_colon_is_looked_up_and_counted() -> None:
    steps = basket_plan(
        "Lunch for five at the Larch Cafe: three carrot cakes and two lemon drizzles. What's the total?"
    )
    assert steps is not None
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[0].template == "How much is the carrot cake at Larch Cafe?"
    assert steps[1].template == "How much is the lemon drizzle at Larch Cafe?"
    assert steps[2].template == "3 * v1 + 2 * v2" and steps[2].needs == (1, 2)


def test_things_named_in_the_question_with_one_each() -> None:
    steps = basket_plan("What would a Bramley pie, a flapjack and 4 oat biscuits cost me together?")
    assert steps is not None
    assert [s.template for s in steps[:3]] == [
        "How much is the Bramley pie?",
        "How much is the flapjack?",
        "How much is the oat biscuit?",
    ]
    assert steps[3].template == "v1 + v2 + 4 * v3"


def test_people_periods_and_money_are_not_an_order() -> None:
    assert basket_plan("Two adults and a child: what's the total?") is None
    assert basket_plan("Three nights and two breakfasts at the Fernhill Inn: what's the total?") is None
    assert basket_plan("Our order: a £4 cake and two teas. What's the total?") is None
    assert basket_plan("What is the total of the Larch Cafe's invoice?") is None
    assert basket_plan("Order: one carrot cake. What's the total?") is None  # one thing: a lookup


def test_planned_through_the_planner() -> None:
    plan = plan_request(
        "Table for two at Quayside Grill: two fish pies and a crab salad. What's the food total?"
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, CALC]
    assert plan.steps[-1].template == "2 * v1 + v2"
