"""Two lookups contrasted that read the same number off the same passage: the second operand was not found
(issue 23, the wrong-answer class p-compose3 found). Made-up values and passages, none from a goal suite."""

from __future__ import annotations

from ioa_p2p.planning import CALC, PlanStep
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.values import Value

ROW = "Kestrel Mutual schedule | Buildings | EUR 410,000 | excess EUR 250"


def _v(number: float, passage: str) -> Value:
    return Value.of_number(number, "EUR").with_evidence((passage,))


def test_a_difference_of_one_number_read_twice_off_one_passage_is_refused() -> None:
    step = PlanStep(3, CALC, "how much bigger the first is", "abs(v1 - v2)", (1, 2))
    missing = refusal(step, {1: _v(250, ROW), 2: _v(250, ROW)})
    assert missing is not None and "step 2" in missing.what and "same passage" in missing.why


def test_a_ratio_rounded_is_refused_alike() -> None:
    step = PlanStep(3, CALC, "what share", "round(v2 / v1, 2)", (1, 2))
    assert refusal(step, {1: _v(250, ROW), 2: _v(250, ROW)}) is not None


def test_equal_values_from_different_passages_are_worked_out() -> None:
    step = PlanStep(3, CALC, "the difference", "abs(v1 - v2)", (1, 2))
    assert refusal(step, {1: _v(250, ROW), 2: _v(250, "Contents | EUR 62,000 | excess EUR 250")}) is None


def test_a_sum_of_equal_values_is_worked_out() -> None:
    step = PlanStep(3, CALC, "both together", "v1 + v2", (1, 2))
    assert refusal(step, {1: _v(250, ROW), 2: _v(250, ROW)}) is None


def test_different_numbers_off_one_passage_are_worked_out() -> None:
    step = PlanStep(3, CALC, "the difference", "v1 - v2", (1, 2))
    assert refusal(step, {1: _v(410000, ROW), 2: _v(250, ROW)}) is None


def test_code_subtracting_one_number_read_twice_is_refused() -> None:
    step = PlanStep(
        3, "code", "run it", "print((after - before) * 1000)", (1, 2), (("after", 2), ("before", 1))
    )
    assert refusal(step, {1: _v(250, ROW), 2: _v(250, ROW)}) is not None
    assert refusal(step, {1: _v(250, ROW), 2: _v(310, ROW)}) is None
