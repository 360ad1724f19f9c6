"""Issue 23 class 2 (p-chain5): a value looked up for a stated amount of something ("the tokens a EUR 20
gift card costs", "the stock in a soup that serves 6") scaled to another amount of the same thing is
multiplied by their ratio, never by the new amount alone; a rate or a band's bound is not such an amount
(planning/scaled.py). Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Look up how many tokens a EUR 20 Quillmoor gift card costs, then work out the tokens for EUR 70 "
         "of gift cards.", "(v1 * 70 / 20)"),
        ("How much stock goes into the Tavish leek soup (serves 6)? Scale it up to 15 servings.",
         "(v1 * 15 / 6)"),
        ("Find the stock in the Tavish leek soup, which serves 6, then scale it to 15 servings.",
         "(v1 * 15 / 6)"),
        ("Look up the weight of a 12 m Corvel rope and work out the weight of 30 m of it.", "(v1 * 30 / 12)"),
    ],
)  # fmt: skip
def test_a_value_for_a_stated_amount_scales_by_the_ratio(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps][:2] == [LOOKUP, CALC]
    assert steps[1].template.replace(" ", "") == template.replace(" ", "")


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        # a rate per period, whatever the contract's length: 24 fees
        ("Look up the monthly fee of the 12-month Orvan plan, then work out the cost of 24 months.",
         "(v1 * 24)"),
        # a band's bound is no amount the value is for
        ("Check Pellow's mileage rate for the first 5,000 km, then compute the claim for a 180 km trip.",
         "(v1 * 180)"),
        # another unit than the stated amount's: a count of the things
        ("Look up the price of a 500 g Brannock coffee bag and work out the cost of 3 bags.", "(v1 * 3)"),
    ],
)  # fmt: skip
def test_rates_bounds_and_counts_are_not_rescaled(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert steps[1].kind == CALC
    assert steps[1].template.replace(" ", "") == template.replace(" ", "")


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Find the Corla crate's capacity in kg and work out how many crates 130 kg of apples fill.",
         "ceil(130 / v1)"),
        ("Look up the Vessa drive's block size in KiB, then work out how many blocks a 900 KiB file takes.",
         "ceil(900 / v1)"),
        # a unit counted, or a rate: no count of things
        ("Look up the Tarrow toll per 10 km and compute how many euros 45 km cost.", "(v1 * 45 / 10)"),
    ],
)  # fmt: skip
def test_things_counted_in_an_amount_are_the_amount_over_one_s_size(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert steps[1].kind == CALC
    assert steps[1].template.replace(" ", "") == template.replace(" ", "")


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Find the VAT rate Orla Energy charges, then apply it to a net invoice of EUR 310.",
         "(310 * (1 + v1))"),
        ("Look up the Tavi club's member discount and apply it to a EUR 80 basket.", "(80 * (1 - v1))"),
        ("Look up the VAT rate of Orla Energy and work out the gross amount of a EUR 150 net bill.",
         "(150 * (1 + v1))"),
        # the share itself
        ("Look up the VAT rate of Orla Energy and work out the VAT on a EUR 150 bill.", "(v1 * 150)"),
    ],
)  # fmt: skip
def test_a_percentage_applied_to_an_amount_adds_or_takes_off(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert steps[1].kind == CALC
    assert steps[1].template.replace(" ", "") == template.replace(" ", "")
