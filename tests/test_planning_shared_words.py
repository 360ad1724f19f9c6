"""Issue 23 (p-probe2): two coordinated things get the words they share (planning/shared.py): the words
around two items of one kind ("the tessa 2.0.1 and 2.0.4 builds"), the attribute before "of" and the
place after the second phrase ("the boiling points of the red flask and the blue flask in the lab log").
Made-up wordings, none of a suite's."""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.shared import shared_attribute, shared_words


def test_words_around_two_items_of_one_kind_are_shared() -> None:
    assert shared_words("the tessa 2.0.1", "2.0.4 builds") == (
        "the tessa 2.0.1 build",
        "the tessa 2.0.4 build",
    )
    assert shared_words("the HX-40", "HX-60 pumps") == ("the HX-40 pump", "the HX-60 pump")
    assert shared_words("the 2019 census", "the 2024 census") == ("the 2019 census", "the 2024 census")
    assert shared_words("12 March 2026", "2 May 2026") == (
        "12 March 2026",
        "2 May 2026",
    )  # dates: as they are


def test_the_attribute_and_the_place_are_shared() -> None:
    first, second = shared_attribute("the boiling points of the red flask", "the blue flask in the lab log")
    assert first == "the boiling points of the red flask in the lab log"
    assert second == "the boiling points of the blue flask in the lab log"
    assert shared_attribute("the mass of the anvil", "the length of the rail") == (
        "the mass of the anvil",
        "the length of the rail",
    )  # each names its own attribute


def test_days_between_two_releases_plans_two_whole_lookups() -> None:
    steps = plan_request("How many days passed between the tessa 2.0.1 and 2.0.4 builds?").steps
    assert [s.template for s in steps[:2]] == [
        "When was the tessa 2.0.1 build?",
        "When does the tessa 2.0.4 build?",
    ]


def test_a_difference_between_two_coordinated_things_looks_both_up_whole() -> None:
    goal = "What is the difference between the boiling points of the red flask and the blue flask in the log?"
    lookups = [s.template for s in plan_request(goal).steps if s.kind == "lookup"]
    assert lookups[0].startswith("What is the boiling points of the red flask in the log")
    assert lookups[1].startswith("What is the boiling points of the blue flask in the log")
