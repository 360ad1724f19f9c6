"""Issue 23 (p-chain5): "the old and the new annual fee" asks for two fees, the old one's head spelt out
from the new one's (planning/lookups.py); "the rise as a percentage of the old fee" is the change over the
old value, not the new value over it (planning/ordered.py); "how many points separate A from B" is the
difference of the points of each (planning/coordinated.py). Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request


@pytest.mark.parametrize(
    ("goal", "first", "second"),
    [
        ("Look up the old and the new yearly berth charge in the Wenlow marina notice, then add them.",
         "old yearly berth charge in the Wenlow marina notice",
         "new yearly berth charge in the Wenlow marina"),
        ("Look up the standard and the reduced entry fee of the Holm lido, then compute the difference.",
         "standard entry fee of the Holm lido", "reduced entry fee of the Holm lido"),
    ],
)  # fmt: skip
def test_two_modifiers_of_one_head_are_two_lookups_of_it(goal: str, first: str, second: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert first in steps[0].template and second in steps[1].template


def test_a_noun_of_its_own_keeps_its_own_lookup() -> None:
    steps = plan_request("Look up the deposit and the monthly rent of Flat 7, then add them.").steps
    assert "monthly rent" not in steps[0].template and "deposit" in steps[0].template


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Look up the old and the new yearly berth charge in the Wenlow marina notice, then give the "
         "increase as a percentage of the old charge.", "((v2 - v1) / v1 * 100)"),
        ("Look up the Holm lido's entry fee for 2024 and for 2025, then work out the drop as a percentage "
         "of the 2024 fee.", "((v1 - v2) / v1 * 100)"),
        ("Look up the Holm lido's entry fee for 2024 and for 2025, then give the 2025 fee as a percentage "
         "of the 2024 fee.", "(v2 / v1 * 100)"),
    ],
)  # fmt: skip
def test_a_change_as_a_percentage_of_one_value(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    assert steps[-1].kind == CALC
    assert steps[-1].template.replace(" ", "") == template.replace(" ", "")


@pytest.mark.parametrize(
    "goal",
    [
        "How many votes separated Anna Berg and Tom Lund in the Wexby ward count?",
        "How many points separate Orrin Rovers from Kettle Vale in the Dunlow table?",
    ],
)
def test_what_separates_two_named_things_is_the_difference_of_their_values(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template.replace(" ", "") == "abs(v1-v2)"
    assert "Anna Berg" in steps[0].template or "Orrin Rovers" in steps[0].template
    assert "Tom Lund" in steps[1].template or "Kettle Vale" in steps[1].template
