"""Issue 23 (p-probe2): a percentage named by what it is ("the 25% deposit on it", "with the 12% discount",
"including a 10 % service charge") works on the amount it is on: a share of it, the amount less it, or the
amount plus it (planning/expr.py). Made-up wordings, none of a suite's."""

from __future__ import annotations

import pytest

from ioa_p2p.planning.expr import to_expression


def _value(expression: str | None, **names: float) -> float:
    assert expression is not None
    return float(eval(expression, {"__builtins__": {}}, names))  # our own checked expression


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("then work out the 30% booking deposit on v1", 0.3 * 250),
        ("what is a 4 % agent's commission of v1", 0.04 * 250),
        ("give v1 with the 15% loyalty discount", 250 * 0.85),
        ("price v1 after a 20 percent reduction", 250 * 0.8),
        ("apply a 5% early-bird rebate to v1", 250 * 0.95),
        ("v1 including a 10 % service charge", 250 * 1.1),
        ("quote v1 with the 21% VAT", 250 * 1.21),
    ],
)
def test_a_named_percentage_works_on_the_amount_it_is_on(clause: str, want: float) -> None:
    assert _value(to_expression(clause, "v1"), v1=250) == pytest.approx(want)


def test_the_amount_may_be_the_previous_value_left_unnamed() -> None:
    assert _value(to_expression("and with a 12% member discount", "v2"), v2=80) == pytest.approx(70.4)
    assert _value(to_expression("plus the 7% tourist tax", "v3"), v3=100) == pytest.approx(107)


def test_a_bare_percentage_of_an_amount_is_unchanged() -> None:
    assert _value(to_expression("what is 15% of v1", "v1"), v1=40) == pytest.approx(6)
    assert _value(to_expression("add 19% to v1", "v1"), v1=100) == pytest.approx(119)
