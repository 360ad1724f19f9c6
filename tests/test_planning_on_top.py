"""Issue 23 (p-compose3): after looking up an amount and a percentage added or taken off ("the VAT rate",
"the member discount"), "what is one month including VAT?", "add the VAT to the price" and "what does a
member pay after the discount?" are the amount with the percentage applied (planning/on_top.py).
Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, describe, plan_request
from ioa_p2p.planning.results import value_of


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Find the weekly rent of a Tollan studio and the VAT rate charged on top; what is one week "
         "including VAT?", "(v1*(1+v2))"),
        ("Find the weekly rent of a Tollan studio and the VAT rate, then add the VAT to the rent.",
         "(v1*(1+v2))"),
        ("Look up the Tollan bike hire price and the member discount. What does a member pay after the "
         "discount?", "(v1*(1-v2))"),
    ],
)  # fmt: skip
def test_a_percentage_looked_up_is_applied_to_the_amount(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[-1].template.replace(" ", "") == template


def test_the_percentage_enters_the_calculation_as_a_fraction() -> None:
    steps = plan_request(
        "Find the weekly rent of a Tollan studio and the VAT rate, then add the VAT to it."
    ).steps
    values = {1: value_of("EUR 300", None, ""), 2: value_of("20%", None, "")}
    assert "300 * (1 + (20 / 100))" in describe(steps[-1], values)


def test_the_share_alone_is_no_amount_with_it() -> None:
    steps = plan_request(
        "Find the weekly rent of a Tollan studio and the VAT rate. How much is the VAT on it?"
    ).steps
    assert "(1 +" not in steps[-1].template
