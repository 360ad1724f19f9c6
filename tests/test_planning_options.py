"""Two ways of buying one thing compared, one of them counted (planning/options.py; issue 23, p-chain5).

Made-up wording: each way is looked up once (the second way borrows the first's "of ..." words and the
question's place), and the saving is the counted dearer way less the cheaper one.
"""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.options import options_plan
from ioa_p2p.planning.types import CALC, LOOKUP


def test_a_pack_against_the_same_things_one_at_a_time() -> None:
    steps = options_plan("How much cheaper is a crate of Cox apples than the same twelve bags one at a time?")
    assert steps is not None
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[0].template == "How much is a crate of Cox apples?"
    assert steps[1].template == "How much is a bag of Cox apples?"
    assert steps[2].template == "12 * v2 - v1"


def test_a_saving_at_a_place() -> None:
    steps = options_plan("At the juice bar, how much do you save buying a litre jug rather than five cups?")
    assert steps is not None
    assert steps[0].template == "How much is a litre jug at the juice bar?"
    assert steps[1].template == "How much is a cup at the juice bar?"
    assert steps[2].template == "5 * v2 - v1"


def test_how_much_more_is_the_first_less_the_second() -> None:
    steps = options_plan("How much more do three day tickets cost than a weekly ticket?")
    assert steps is not None and steps[2].template == "3 * v1 - v2"


def test_uncounted_comparisons_and_money_are_left_alone() -> None:
    assert options_plan("How much cheaper is the Larch Cafe's scone than its flapjack?") is None
    assert options_plan("How much cheaper is a £20 jug than four glasses?") is None
    assert options_plan("What does a jug cost?") is None


def test_planned_through_the_planner() -> None:
    plan = plan_request(
        "At the Fernhill kiosk, how much do you save buying a family pass rather than four single passes?"
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, CALC]
    assert plan.steps[-1].template == "4 * v2 - v1"
