"""Issue 23 (p-compose3): after two lookups, "work out the rise", "compute that day's range" and "how far
apart are they" ask for the difference of the two values (planning/followups.py). Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request


@pytest.mark.parametrize(
    "goal",
    [
        "Look up the Tollan parking permit for 2026 and for the year before, then work out the rise.",
        "Read the highest and the lowest tide height of 3 June at Pell Quay and compute that day's range.",
        "Find the entry fee of the Orme lido and of the Vask lido and work out how far apart they are.",
        "Look up the Tollan parking permit for 2026 and for 2025 and give the increase.",
    ],
)
def test_a_change_between_two_values_is_their_difference(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[-1].template.replace(" ", "") == "abs(v1-v2)"


def test_a_rise_in_percent_is_no_plain_difference() -> None:
    goal = (
        "Look up the Tollan parking permit for 2025 and for 2026. Work out the rise from 2025 to 2026 in "
        "percent and assign it to r before executing: print(f'{r:.1f}%')"
    )
    steps = plan_request(goal).steps
    assert not any(s.template.replace(" ", "") == "abs(v1-v2)" for s in steps)
