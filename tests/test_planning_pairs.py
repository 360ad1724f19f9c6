"""Issue 23 (p-retr): plans that keep two values of one lookup and compare them (made-up requests).

- "the A and B <plural head>" gives each its head ("the baseline and forecast dates": a date each), and two
  dates then "how many days late" is the days between them;
- "the price of the Gold plan and the Silver plan": the second is the same attribute of the second thing;
- "how many GB more", "how many kg heavier", "how much cheaper": the difference of the two values, a unit
  word after "how many" being no new name.
"""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, DATE, LOOKUP, plan_request


def kinds(goal: str) -> list[tuple[str, str]]:
    return [(s.kind, s.template) for s in plan_request(goal).steps]


@pytest.mark.parametrize(
    ("goal", "first", "second"),
    [
        (
            "Take the baseline and forecast dates for handover (H2) from the Ormley status report and "
            "tell me how many calendar days late it is forecast to be.",
            "What is the baseline date for handover (H2) from the Ormley status report?",
            "What is the forecast date for handover (H2) from the Ormley status report?",
        ),
        (
            "Get the start and end dates of the Harlow office move, then tell me how many days it takes.",
            "What is the start date of the Harlow office move?",
            "What is the end date of the Harlow office move?",
        ),
    ],
)
def test_a_shared_plural_head_gives_a_date_each_and_days_between(goal: str, first: str, second: str) -> None:
    steps = plan_request(goal).steps
    assert [(s.kind, s.template) for s in steps[:2]] == [(LOOKUP, first), (LOOKUP, second)]
    assert steps[2].kind == DATE and steps[2].needs == (1, 2)
    assert steps[2].template == "How many days are there from {1} to {2}?"


@pytest.mark.parametrize(
    ("goal", "first", "second"),
    [
        (
            "Look up the price of the Gold plan and the Silver plan and tell me how much more Gold costs.",
            "What is the price of the Gold plan?",
            "What is the price of the Silver plan?",
        ),
        (
            "Find the length of the red trail and the blue trail, then add them.",
            "What is the length of the red trail?",
            "What is the length of the blue trail?",
        ),
    ],
)
def test_the_second_thing_of_one_kind_gets_the_same_attribute(goal: str, first: str, second: str) -> None:
    assert [t for _, t in kinds(goal)[:2]] == [first, second]


@pytest.mark.parametrize(
    "goal",
    [
        "Look up how much storage Nimbra Drive includes on the Team plan and on the Solo plan, then tell me "
        "how many GB more Team includes.",
        "Find the weight of the A2 pump and of the B7 pump, then say how many kg heavier the B7 is.",
        "Look up the fare of the Route A ticket and of the Route C ticket and tell me how much cheaper the "
        "Route A ticket is.",
    ],
)
def test_how_many_units_more_is_the_difference_of_the_two(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template == "abs(v1 - v2)"


@pytest.mark.parametrize(
    ("goal", "looked_up"),
    [
        (
            "Find Brackwell's fee for spaying a cat, and add the microchip price that applies when it's "
            "done during spaying.",
            "What is the microchip price that applies when it's done during spaying (Brackwell)?",
        ),
        (
            "Look up the Orla Spa day pass price and add the towel hire fee.",
            "What is the towel hire fee (Orla Spa)?",
        ),
        (
            "Find the base rent of Unit 4 at Kellow Yard, then add the service charge that applies to "
            "ground-floor units.",
            "What is the service charge that applies to ground-floor units (Kellow Yard)?",
        ),
    ],
)
def test_add_an_amount_to_the_value_just_found_looks_it_up(goal: str, looked_up: str) -> None:
    steps = plan_request(goal).steps
    assert [(s.kind, s.template) for s in steps[1:]] == [(LOOKUP, looked_up), (CALC, "( v1 + v2 )")]


@pytest.mark.parametrize(
    ("goal", "asked"),
    [
        (
            "Look up the Dunmore Trail Run's summit cut-off, convert it to minutes, and run "
            "`print(m * 2)` with m set to those minutes.",
            "Look up the Dunmore Trail Run's summit cut-off (in minutes)",
        ),
        (
            "Find the Pellow ferry's crossing time limit, then convert it to hours.",
            "Find the Pellow ferry's crossing time limit",  # it asks for a time already
        ),
    ],
)
def test_a_lookup_converted_to_a_unit_of_time_asks_for_a_period(goal: str, asked: str) -> None:
    assert plan_request(goal).steps[0].template == asked


def test_adding_the_two_numbers_looks_nothing_up() -> None:
    goal = (
        "First run `print(7 * 13)` in Python. Then look up how many stops tram line 4 has. "
        "Finally add the two numbers."
    )
    assert [(s.kind, s.template) for s in plan_request(goal).steps][2] == (CALC, "( v1 + v2 )")
