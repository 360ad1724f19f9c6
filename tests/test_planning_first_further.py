"""Two prices summed and multiplied by a count when one is not per unit (planning/first_further.py;
issue 23, p-chain5). Made-up wording: before, every such plan was ``(v1 + v2) * N``."""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.first_further import first_and_further
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep


def _steps(first: str, second: str, calc: str = "((v1 + v2) * 5)") -> tuple[PlanStep, ...]:
    return (
        PlanStep(1, LOOKUP, first, first + "?"),
        PlanStep(2, LOOKUP, second, second + "?"),
        PlanStep(3, CALC, "price five", calc, (1, 2)),
    )


def test_the_first_one_and_each_further_one() -> None:
    steps = first_and_further(
        _steps("What is the price for the first chimney flue", "What is each further flue")
    )
    assert steps[2].template == "(v1 + (5 - 1) * v2)"


def test_a_fee_charged_once_beside_a_rate() -> None:
    steps = first_and_further(_steps("What is the hourly rate of Ashby Plumbing", "What is its call-out fee"))
    assert steps[2].template == "(v1 * 5 + v2)"
    swapped = first_and_further(_steps("What is the booking fee", "What is the price per lesson"))
    assert swapped[2].template == "(v2 * 5 + v1)"


def test_other_sums_are_left_alone() -> None:
    plain = _steps("What is the adult fare", "What is the child fare")
    assert first_and_further(plain) == plain
    periods = _steps(
        "What is the first-week rate of the X-9 hire", "What is the extra-day rate of the X-9 hire"
    )
    assert first_and_further(periods) == periods  # a week and a day: not the same unit
    other = _steps("What is the price for the first chimney flue", "What is each further flue", "(v1 + v2)")
    assert first_and_further(other) == other


def test_planned_through_the_planner() -> None:
    plan = plan_request(
        "Find Ashby Sweeps' price for the first flue and for each further flue, "
        "then price a visit for three flues."
    )
    assert plan.steps[-1].template == "(v1 + (3 - 1) * v2)"
