"""Issue 23 (p-compose3): "work out three weeks of summer grazing plus one farrier visit" after looking up
the two prices: each count's words name the lookup it counts, ``3 * v1 + 1 * v2`` (planning/counted.py).
Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Retrieve the summer-grazing weekly price and the price of a farrier visit at Orrel Farm. Work out "
         "three weeks of summer grazing plus one farrier visit.", "(3*v1+1*v2)"),
        ("Find the price of a bowl of soup and of a pot of tea at the Orrel cafe, then work out 4 pots of "
         "tea plus 2 bowls of soup.", "(4*v2+2*v1)"),
    ],
)  # fmt: skip
def test_each_count_multiplies_the_lookup_its_words_name(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[-1].template.replace(" ", "") == template


def test_a_count_that_names_no_lookup_is_no_such_sum() -> None:
    goal = (
        "Find the price of a bowl of soup and of a pot of tea at the Orrel cafe, then work out 4 pots of "
        "tea plus 2 sandwiches."
    )
    steps = plan_request(goal).steps
    assert "2 * v" not in steps[-1].template.replace("2*v", "2 * v")


def test_two_prices_the_request_names_are_both_paid_per_quantity() -> None:
    goal = (
        "Find the visitor adult overnight price and the adult breakfast price at Orrel hostel, then work out "
        "what two visitor adults pay for three nights with breakfast."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[-1].template.replace(" ", "") == "((v1+v2)*2*3)"
