"""Issue 23 class 2 (p-chain3): units are values. A number divided by a rate found in the documents is in
the rate's denominator ("EUR 42" over "EUR 0.50 per minute" is 84 minutes, not EUR 84), and a number over a
plain amount is in no unit of it. Made-up plans and values."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, Plan, PlanStep, StepOutcome, Value, conclusion


def _plan(template: str, question: str) -> Plan:
    lookup = PlanStep(1, LOOKUP, question, question)
    calc = PlanStep(2, CALC, f"Calculate {template}", template, needs=(1,))
    return Plan(f"{question} then {template}", (lookup, calc), 2)


@pytest.mark.parametrize(
    ("template", "found", "number", "answer"),
    [
        (
            "(42 / v1)",
            Value.of_number(0.5, "EUR").with_terms((("per", "minute"),)),
            84,
            "The answer is 84 min.",
        ),
        ("(60 / v1)", Value.of_number(2.5, "EUR").with_terms((("per", "hour"),)), 24, "The answer is 24 h."),
        ("(100 / v1)", Value.of_number(4, "EUR"), 25, "The answer is 25."),
        ("(v1 * 3)", Value.of_number(4, "EUR").with_terms((("per", "hour"),)), 12, "The answer is EUR 12."),
    ],
)
def test_a_number_over_a_rate_is_in_the_rates_denominator(
    template: str, found: Value, number: float, answer: str
) -> None:
    plan = _plan(template, "What is the Quillon laser rate?")
    result = Value.of_number(number, "")  # what the calculator gives: a bare number
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", found, "completed"),
        2: StepOutcome(plan.steps[1], "calculator", result, "completed"),
    }
    text, info = conclusion(plan, outcomes)
    assert info["answer"] == answer, text
