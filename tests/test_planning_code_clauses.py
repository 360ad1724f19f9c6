"""Issue 23 (p-compose3): "..., add them, and let <code> round it" and "..., and have <code> show ..."
leave the calculation a step of its own, the code bound to its result (planning/clauses.py). Made-up
requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, plan_request


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Get the Tollan day rate and the Tollan night rate, add them, and let `print(round(b))` round it, "
         "with b that sum.", "(v1+v2)"),
        ("Retrieve the Tollan day rate, multiply it by 3, and have `print(fee / 7)` show the cost per day, "
         "fee being that price.", "(v1*3)"),
    ],
)  # fmt: skip
def test_the_calculation_before_let_or_have_code_is_its_own_step(goal: str, template: str) -> None:
    steps = plan_request(goal).steps
    calc, code = steps[-2], steps[-1]
    assert calc.kind == CALC and calc.template.replace(" ", "") == template
    assert code.kind == CODE and code.needs == (calc.index,)
