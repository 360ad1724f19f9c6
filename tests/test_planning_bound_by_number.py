"""Issue 23 class 4 (p-chain5): code inputs bound by what they are: "your result" is the previous value,
and of two earlier steps whose words both hold "the zone 3 price", the one that names its number too
(planning/code.py, refs.py). Made-up request."""

from __future__ import annotations

from ioa_p2p.planning import CODE, plan_request


def test_code_inputs_named_by_their_numbers_and_your_result() -> None:
    goal = (
        "Look up the zone 3 season ticket price at Harlow Ferries, calculate the price of a second ticket "
        "for the same family (40% more than the zone price), then run `print(one + two)` with one = the "
        "zone 3 price and two = your result."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps][-1] == CODE
    assert dict(steps[-1].bindings) == {"one": 1, "two": 2}
