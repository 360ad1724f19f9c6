"""Issue 23 (p-rule): a three-agent goal whose middle step applies a rule the documents state ("take the
Owl Railcard discount off it", "add the late-booking surcharge", "with the multiplier in the fare
rules") is planned as ``rule(vN)``; the rule is read from the value's own document and applied, or the
step is refused naming the rule (exit 3), never a guessed proportion (planning/rule_step.py). Made-up
wording and documents."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, describe, plan_request
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.rule_step import conditional_rule, stated_charge, stated_combination
from ioa_p2p.planning.types import PlanStep
from ioa_p2p.planning.values import Value

DOC = """# Pimbury Ferries - fares and rules 2026

| From      | To        | Single |
|-----------|-----------|-------:|
| Ostrand   | Pimbury   |   9.30 |
| Ostrand   | Calloway  |  14.60 |

Fare rules
1. A day return costs 1.75 times the single fare.
2. Owl Railcard: one third off adult fares.
3. Booking on board adds EUR 2.50 to the fare.
4. Children aged 5 to 15 pay half the adult fare.
5. Pensioners get 20 % off the single fare.
"""


def _found(number: float, doc: str = DOC) -> Value:
    return Value.of_number(number, "EUR").with_evidence((doc,))


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Look up the Ostrand to Pimbury single, take the Owl Railcard discount off it, then run "
         "`print(round(p, 2))` with p being the discounted fare.", "9.3 * (1 - 1/3)"),
        ("Take the Ostrand to Calloway single, compute the day return price with the multiplier in the "
         "fare rules, then run `print(x)` with x holding that price.", "14.6 * 1.75"),
        ("Get the Ostrand to Pimbury single, add the on-board booking surcharge, and hand the total to "
         "this code as total:\n```python\nprint(total * 2)\n```", "9.3 + 2.5"),
        ("Find the Ostrand to Calloway single, apply the pensioners' discount, and print it with "
         "`print(d)` where d is the discounted fare.", "14.6 * (1 - 0.2)"),
    ],
)  # fmt: skip
def test_the_documented_rule_is_the_middle_step(goal: str, expected: str) -> None:
    plan = plan_request(goal)
    kinds = [s.kind for s in plan.steps]
    assert kinds == [LOOKUP, CALC, CODE]
    rule_step, code = plan.steps[1], plan.steps[2]
    assert rule_step.template == "rule(v1)" and rule_step.needs == (1,)
    assert code.needs == (2,)
    number = 9.3 if "Pimbury single" in goal else 14.6
    assert describe(rule_step, {1: _found(number)}) == f"Calculate {expected}"
    assert refusal(rule_step, {1: _found(number)}) is None


def test_a_rule_no_sentence_states_is_refused_by_name() -> None:
    goal = (
        "Look up the Ostrand to Pimbury single, take the Gull Card discount off it, then run `print(p)` "
        "with p being the discounted fare."
    )
    step = plan_request(goal).steps[1]
    assert step.template == "rule(v1)"
    lacking = refusal(step, {1: _found(9.3)})
    assert lacking is not None and "discount rule" in lacking.what and "Gull Card" in lacking.what


def test_two_sentences_that_state_the_rule_differently_are_refused() -> None:
    doc = DOC + "6. Owl Railcard holders travelling at weekends get 50 % off adult fares.\n"
    goal = (
        "Look up the Ostrand to Pimbury single, take the Owl Railcard discount off it, then run `print(p)` "
        "with p being the discounted fare."
    )
    step = plan_request(goal).steps[1]
    assert refusal(step, {1: _found(9.3, doc)}) is not None


def test_a_clause_with_its_own_number_is_no_rule_step() -> None:
    plan = plan_request("Look up the Ostrand to Pimbury single, take a 10 % discount off it, then print it.")
    assert all(s.template != "rule(v1)" for s in plan.steps)


TARIFF = """# Quayside Boat Club - charges 2026

Dinghy storage: EUR 9 per metre of hull length per season; a boat shorter than 4 m is charged as 4 m.
Slipway use: EUR 3 per started hour.
Late collection: EUR 5 per day after a 2-day grace period, capped at EUR 30.
Lakeside pitches (above 300 m): the season fee is 20 % higher.
Members over 70 get 25 % off the season fee.
"""


def _charge(number: float, quantity: str) -> str:
    step = PlanStep(2, CALC, "the charge", f"charge(v1; {quantity})", (1,), unit="EUR")
    return describe(step, {1: Value.of_number(number, "EUR").with_evidence((TARIFF,))})


@pytest.mark.parametrize(
    ("number", "quantity", "expected"),
    [
        (9, "3.2 m", "Calculate 9 * max(3.2, 4)"),
        (9, "5 m", "Calculate 9 * max(5, 4)"),
        (3, "150 min", "Calculate 3 * ceil(2.5)"),
        (5, "9 days", "Calculate min(5 * max(9 - 2, 0), 30)"),
    ],
)
def test_a_charge_on_the_terms_its_own_sentence_states(number: float, quantity: str, expected: str) -> None:
    assert _charge(number, quantity) == expected


def test_a_plain_rate_is_left_to_the_other_readings() -> None:
    plain = "Kayak hire: EUR 12 per hour."
    step = PlanStep(2, CALC, "the charge", "charge(v1; 3 h)", (1,), unit="EUR")
    assert stated_charge(step, {1: Value.of_number(12, "EUR").with_evidence((plain,))}) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Our pitch is 340 m up by the lake. What is our season fee?", "150 * (1 + 0.2)"),
        ("Our pitch is 120 m up by the lake. What is our season fee?", None),  # the condition fails
        ("What is the season fee?", None),  # no quantity in the condition's unit
    ],
)
def test_a_rule_applies_when_the_question_meets_its_condition(question: str, expected: str | None) -> None:
    found = Value.of_number(150, "EUR").with_evidence((TARIFF,))
    assert conditional_rule(question, found) == expected


TERMS = """# Brindle Bikes - extended cover

| Model   | Extended cover |
|---------|----------------|
| Tourer  | EUR 49         |

Buy the extended cover within 14 days of purchase at the price above; buying it later adds EUR 15 to that
price.
"""


@pytest.mark.parametrize(("days", "expected"), [(20, "Calculate 49 + 15"), (10, None)])
def test_a_surcharge_after_a_period_the_question_exceeds(days: int, expected: str | None) -> None:
    question = f"I bought my Brindle Tourer {days} days ago. What does the extended cover cost me now?"
    step = PlanStep(2, CALC, question, f"charge(v1; {days} days)", (1,), unit="EUR")
    found = Value.of_number(49, "EUR").with_evidence((TERMS,))
    if expected is None:
        assert stated_charge(step, {1: found}) is None
    else:
        assert describe(step, {1: found}) == expected


def test_a_fee_and_a_rate_combine_as_their_sentence_states() -> None:
    doc = (
        "# Tamsin Plumbing - charges\n\nA visit inside the guarantee is free. Outside it, the visit fee is "
        "EUR 70 plus EUR 52 per hour\nof work, charged in half-hour steps (a started half hour counts in "
        "full).\n"
    )
    step = PlanStep(3, CALC, "the charge for a visit with 2 hours of work", "((v1 + v2) * 2)", (1, 2))
    values = {n: Value.of_number(x, "EUR").with_evidence((doc,)) for n, x in ((1, 70), (2, 52))}
    assert stated_combination(step, values) == "70 + 52 * ceil(2 / 0.5) * 0.5"
    assert describe(step, values) == "Calculate 70 + 52 * ceil(2 / 0.5) * 0.5"
    other = {n: Value.of_number(x, "EUR").with_evidence((doc,)) for n, x in ((1, 70), (2, 40))}
    assert stated_combination(step, other) is None  # no sentence states these two together


def test_a_fraction_of_the_value_is_no_quantity_of_time() -> None:
    goal = (
        "Get the berth limit per pontoon from the Wenlow notes, take three quarters of it, and feed the "
        "result as q into `print(int(q))`."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC, CODE]
    assert steps[1].template.replace(" ", "") == "(v1*3/4)"
