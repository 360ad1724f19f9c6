"""Issue 23 classes 4 and 9 (p-chain3): every request of a goal becomes a step, and an earlier value is bound
into code under the name the request gives. Made-up wordings: a calculation between a lookup and a code step
that the code's binding phrase leads ("..., multiply it by 4, and with t set to that run `...`") is a step of
its own, never swallowed by the code step."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, Value, describe, plan_request


@pytest.mark.parametrize(
    ("goal", "factor", "name"),
    [
        (
            "Look up the warm-up time of the Brisca HG-1 in seconds, multiply it by 4, and with t set to "
            "that run `print(t / 60)`.",
            "4",
            "t",
        ),
        (
            "Find the price of the Orvo K2, add 19 % to it, and with gross bound to the result execute "
            "`print(round(gross, 1))`.",
            "19",
            "gross",
        ),
        ("Get the Orvo K2's weight, double it, using w set to that value run `print(w * 1000)`.", "2", "w"),
    ],
)
def test_a_calculation_before_a_code_step_led_by_its_binding_is_a_step(
    goal: str, factor: str, name: str
) -> None:
    plan = plan_request(goal)
    kinds = [s.kind for s in plan.steps]
    assert kinds == [LOOKUP, CALC, CODE], [(s.kind, s.template) for s in plan.steps]
    calc, code = plan.steps[1], plan.steps[2]
    assert factor in calc.template and calc.needs == (1,) and code.needs == (2,)
    task = describe(code, {1: Value.of_number(45, "s"), 2: Value.of_number(180, "")})
    assert f"{name} = 180" in task, task


def test_a_binding_inside_one_clause_still_binds_the_value_before_it() -> None:
    plan = plan_request("Compute 12 * 7, with x set to the result run `print(x + 1)`.")
    assert [s.kind for s in plan.steps] == [CALC, CODE]
    assert "x = 84" in describe(plan.steps[1], {1: Value.of_number(84, "")})
