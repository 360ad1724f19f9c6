"""What a plan binds its code inputs to, for the planner's code-binding tests."""

from __future__ import annotations

from ioa_p2p.planning.types import LOOKUP, Plan

CODE = "code"


def bound_inputs(plan: Plan) -> dict[str, str]:
    """Each input of the plan's last (code) step -> the question of the lookup it is bound to."""
    assert not plan.unplanned, plan.unplanned
    code = plan.steps[-1]
    assert code.kind == CODE
    by_index = {s.index: s.template for s in plan.steps if s.kind == LOOKUP}
    return {name: by_index[index] for name, index in code.bindings}
