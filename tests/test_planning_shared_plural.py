"""Issue 23 (p-compose3): "the senior and the junior weekly locker fees" asks for one fee each: the plural
head and what follows it are shared by both modifiers ("the senior weekly locker fee", "the junior weekly
locker fee"), as are the modifiers one side has beyond the other (planning/lookups.py). A noun of its own
("the deposit and the monthly fees") keeps its own lookup. Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, plan_request
from ioa_p2p.planning.lookups import split_lookup


@pytest.mark.parametrize(
    ("clause", "first", "second"),
    [
        ("Get the senior and the junior weekly locker fees at Parrow baths",
         "the senior weekly locker fee at Parrow baths", "the junior weekly locker fee at Parrow baths"),
        ("Look up the off-peak and the peak-hour fares of route 9",
         "the off-peak fare of route 9", "the peak-hour fare of route 9"),
        ("Find the Tier 1 and the Tier 3 storage charges",
         "the Tier 1 storage charge", "the Tier 3 storage charge"),
        ("Retrieve the family winter and summer berth rates",
         "the family winter berth rate", "the family summer berth rate"),
        ("Take the head groundsman's and the assistant gardener's hourly rates",
         "the head groundsman's hourly rate", "the assistant gardener's hourly rate"),
        ("Take the guest day and the guest week court prices",
         "the guest day court price", "the guest week court price"),
    ],
)  # fmt: skip
def test_modifiers_share_a_plural_head_of_values(clause: str, first: str, second: str) -> None:
    parts = split_lookup(clause)
    assert parts is not None
    assert first in parts[0] and second in parts[1]


@pytest.mark.parametrize(
    "clause",
    [
        "Find the deposit and the monthly fees",  # a value of its own
        "Find the address and the opening hours",  # hours are no values of a price list
    ],
)
def test_a_noun_of_its_own_keeps_its_own_lookup(clause: str) -> None:
    parts = split_lookup(clause)
    assert parts is None or not parts[0].rstrip("?").endswith(("fee", "hour"))


def test_a_shared_head_feeds_the_calculation_and_the_code() -> None:
    goal = (
        "Get the member and the non-member sauna prices at Parrow baths, take the difference, and pass it "
        "as d to `print(d * 10)`."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert "member sauna price at Parrow baths" in steps[0].template
    assert "non-member sauna price at Parrow baths" in steps[1].template


def test_an_owner_and_a_source_go_with_both_lookups() -> None:
    assert split_lookup("Retrieve Hallam Yard's weekday and weekend hire rates") == [
        "What is Hallam Yard's weekday hire rate?",
        "What is Hallam Yard's weekend hire rate?",
    ]
    parts = split_lookup("From the Orrel staff handbook take the porter's and the cook's daily allowances")
    assert parts is not None
    assert parts[0].startswith("What is the porter's daily allowance in the Orrel staff handbook")
    assert parts[1].startswith("What is the cook's daily allowance in the Orrel staff handbook")


def test_a_sum_handed_to_code_is_its_own_step() -> None:
    goal = (
        "Get the Hallam Yard weekday and weekend hire rates, add them, and hand the sum to `print(x / 2)` "
        "as x."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC, CODE]
    assert steps[2].template.replace(" ", "") == "(v1+v2)"
    assert steps[3].bindings == (("x", 3),)
