"""Two planner quirks fixed by mechanism (made-up wordings): a lookup that names its own subject never
inherits another subject's name, and ';' between statements of code never cuts the code in two."""

from __future__ import annotations

from ioa_p2p.planning import CALC, CODE, LOOKUP, plan_request
from ioa_p2p.planning.segment import CODE_SEMICOLON, keep_code_semicolons


def _steps(goal: str) -> list[tuple[str, str]]:
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    return [(s.kind, s.template) for s in plan.steps]


def test_the_second_lookup_keeps_its_own_subject() -> None:
    steps = _steps(
        "Look up the battery of the Varo T4 scooter and the battery of the T2 scooter, then add them."
    )
    assert steps[1][0] == LOOKUP and "T2" in steps[1][1] and "T4" not in steps[1][1]
    steps = _steps("Find the rent of the Quay Street unit and the deposit, then add them.")
    assert "Quay Street" in steps[1][1]  # a part with no subject of its own still inherits the first's


def test_the_company_name_is_still_carried_to_the_second_lookup() -> None:
    steps = _steps(
        "Find the wingspan of the Halcyon HX9 glider and the wingspan of the HX5, then subtract them."
    )
    assert "HX5" in steps[1][1] and "HX9" not in steps[1][1] and "Halcyon" in steps[1][1]


def test_semicolons_between_statements_keep_the_code_whole() -> None:
    for goal in (
        "Run p = 9; q = 4; print(p - q), then triple the result.",
        "Execute this: p = 9; q = 4; print(p - q). Then triple the result.",
        "Please run `p = 9; q = 4; print(p - q)` and triple the output.",
    ):
        steps = _steps(goal)
        assert steps[0] == (CODE, "p = 9; q = 4; print(p - q)"), goal
        assert steps[1][0] == CALC and "v1" in steps[1][1]


def test_semicolons_between_requests_still_separate_them() -> None:
    steps = _steps("Calculate 15 * 6; then add 4 to it.")
    assert [k for k, _ in steps] == [CALC, CALC]
    assert CODE_SEMICOLON not in keep_code_semicolons("Look up the fee; then double it.")
    assert CODE_SEMICOLON in keep_code_semicolons("run a = 1; print(a)")


def test_a_calculation_names_the_code_output_and_a_lookup_by_what_they_are() -> None:
    for goal in (
        "Run `print(3 ** 4)`, then look up the toll for a Brask ferry crossing, then calculate the toll "
        "minus the code's output.",
        "Run `print(3 ** 4)`, then look up the toll for a Brask ferry crossing, then subtract the program's "
        "result from the toll.",
    ):
        plan = plan_request(goal)
        last = plan.steps[-1]
        assert last.kind == CALC and last.template.replace(" ", "").strip("()") == "v2-v1", goal
        assert set(last.needs) == {1, 2}


def test_two_legs_of_a_route_in_one_lookup_are_two_lookups_each_with_its_own_places() -> None:
    goal = "Look up the Holm Ferries crossing time from Vard to Eske and from Eske to Lunn, then add them."
    plan = plan_request(goal)
    first, second = plan.steps[0].template, plan.steps[1].template
    assert "Vard to Eske" in first and "Eske to Lunn" in second and "Vard" not in second
    assert plan.steps[2].kind == CALC and set(plan.steps[2].needs) == {1, 2}
