"""ioa_p2p.teaming.join: the calibrated rule that grows a team from its lead (pure, no models)."""

from __future__ import annotations

import pytest

from ioa_p2p.matching import HYBRID, LITE
from ioa_p2p.matching.calibration import ADVANTAGE, GAP, GOAL, JOIN_FEATURES, JoinRule
from ioa_p2p.teaming.join import grow_team, in_context, join_features

RULE = JoinRule({GAP: 0.1, GOAL: 0.3, ADVANTAGE: 0.3}, -4.0)

# A goal with two needs: "translate the letter" (lead: translator) and "then plot the figures" (plotter);
# a second translator is as good as the lead on the first need and brings nothing for the second.
GOAL_SCORES = {"translator": 14.0, "translator-2": 13.0, "plotter": 10.0, "weather": 1.0}
NEEDS = [
    {"translator": 16.0, "translator-2": 15.5, "plotter": 0.0, "weather": 0.0},
    {"translator": 2.0, "translator-2": 1.5, "plotter": 15.0, "weather": 1.0},
]


def test_join_rule_probability_is_a_bounded_logistic() -> None:
    assert set(RULE.weights) == set(JOIN_FEATURES)
    low = RULE.probability({GAP: -10.0, GOAL: 0.0, ADVANTAGE: -5.0})
    high = RULE.probability({GAP: 0.0, GOAL: 12.0, ADVANTAGE: 8.0})
    assert 0.0 <= low < 0.05 < 0.85 < high <= 1.0
    assert JoinRule({GOAL: 1.0}, 0.0).probability({GOAL: -1e6}) == 0.0
    assert JoinRule({GOAL: 1.0}, 0.0).probability({GOAL: 1e6}) == 1.0
    for cal in (HYBRID, LITE):  # the shipped matchers are calibrated with a join rule
        assert cal.join is not None and set(cal.join.weights) == set(JOIN_FEATURES)
        assert 0.0 < cal.need_threshold < 1.0


def test_in_context_mixes_the_need_with_the_goal() -> None:
    mixed = in_context({"a": 4.0, "b": 0.0}, {"a": 2.0}, 0.5)
    assert mixed == {"a": 3.0, "b": 1.0}  # a card missing from the goal scores takes the goal's floor
    assert in_context({"a": 4.0}, {"a": 2.0}, 0.0) == {"a": 4.0}


def test_join_features_measure_what_a_candidate_adds_to_the_team() -> None:
    plotter = join_features("plotter", ["translator"], GOAL_SCORES, NEEDS)
    assert plotter == {GAP: -4.0, GOAL: 10.0, ADVANTAGE: 13.0}  # it covers need 2, which the lead does not
    twin = join_features("translator-2", ["translator"], GOAL_SCORES, NEEDS)
    assert twin[ADVANTAGE] == pytest.approx(-0.5)  # nothing the lead does not cover already
    alone = join_features("translator-2", ["plotter"], GOAL_SCORES, NEEDS)
    assert alone[ADVANTAGE] == pytest.approx(15.5) and alone[GAP] == pytest.approx(3.0)
    both = join_features("translator-2", ["plotter", "translator"], GOAL_SCORES, NEEDS)
    assert both[ADVANTAGE] == pytest.approx(-0.5)  # the advantage is over every chosen member
    assert join_features("weather", ["translator"], GOAL_SCORES, [])[ADVANTAGE] == 0.0


def test_grow_team_adds_only_members_that_cover_an_uncovered_need() -> None:
    team = grow_team("translator", GOAL_SCORES, NEEDS, RULE, threshold=0.5, max_team=4)
    assert team == ["translator", "plotter"]  # not the second translator, though it fits the goal better
    assert grow_team("translator", GOAL_SCORES, NEEDS, RULE, threshold=0.5, max_team=1) == ["translator"]
    assert grow_team("translator", GOAL_SCORES, NEEDS, RULE, threshold=0.9999, max_team=4) == ["translator"]
    # a permissive threshold lets the best remaining candidates join, one at a time, up to max_team
    assert grow_team("translator", GOAL_SCORES, NEEDS, RULE, threshold=0.0, max_team=3) == [
        "translator",
        "plotter",
        "translator-2",
    ]
    assert grow_team("solo", {"solo": 5.0}, [], RULE, threshold=0.0, max_team=4) == ["solo"]
