"""Issue 23 class 2 (p-chain4): a rate looked up "per 100 mL" and applied to "350 mL" is 3.5 times the
rate: the calculation divides by the rate's base when the amount it applies is in the base's unit. Made-up
requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Find how much resin Ellory mixes per 250 ml of hardener, then compute the resin for 600 ml.",
         "(v1 * 600 / 250)"),
        ("Look up the Tarrow toll per 10 km and compute the toll for 45 km.", "(v1 * 45 / 10)"),
        ("Look up the Tarrow toll per km and compute the toll for 45 km.", "(v1 * 45)"),  # a base of one
        ("Look up the Tarrow toll per 10 km and multiply it by 4.", "(v1 * 4)"),  # no amount in the unit
    ],
)  # fmt: skip
def test_a_rate_per_a_base_applied_to_an_amount(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert steps[1].template.replace(" ", "") == template.replace(" ", "")
