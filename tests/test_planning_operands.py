"""Operands a calculation names (looked up), amounts at a rate, two questions in one sentence, a statement
and "find it", a statement with a quantity before its calculation, lookups that name nothing (issue 23,
items 2-3 and 9). Made-up companies and wordings (none from a goal suite)."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, plan_request
from ioa_p2p.planning.operands import amounts_at_rate, split_questions


def _kinds(goal: str) -> list[str]:
    return [s.kind for s in plan_request(goal).steps]


@pytest.mark.parametrize(
    ("goal", "op", "asked"),
    [
        ("Look up the Brask Cycles city bike price, then subtract the member discount from it.", "-",
         "member discount"),
        ("Get the Orlo Telecom basic plan fee and add the activation charge to it.", "+",
         "activation charge"),
        ("Find the Orlo Telecom basic plan fee and multiply it by the number of months in the minimum term.",
         "*", "number of months in the minimum term"),
        ("Check the Tamsin Hall day rate, then divide it by the number of seats in the main room.", "/",
         "number of seats in the main room"),
    ],
)  # fmt: skip
def test_an_operand_that_is_a_fact_becomes_a_lookup(goal: str, op: str, asked: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC], steps
    assert asked in steps[1].template
    names = steps[0].template.split()[3]  # the company named first goes with the new lookup
    assert names in steps[1].template
    assert steps[2].template.replace(" ", "") == f"(v1{op}v2)" and set(steps[2].needs) == {1, 2}


def test_references_are_no_operands_to_look_up() -> None:
    steps = plan_request("Find the Brask Cycles city bike price, then add the result to 40.").steps
    assert _kinds("Find the Brask Cycles city bike price, then add the result to 40.") == [LOOKUP, CALC]
    assert steps[1].needs == (1,)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Add v1 to 5 hours at the v2.", "Add v1 to (5 * v2)."),
        ("add 3 nights at v2 to v1", "add (3 * v2) to v1"),
        ("how many minutes 20000 litres take at v1", "how many minutes 20000 litres take at v1"),
    ],
)
def test_an_amount_at_a_rate_beside_another_value_is_a_product(text: str, expected: str) -> None:
    assert amounts_at_rate(text) == expected


def test_a_deposit_plus_hours_at_a_rate() -> None:
    steps = plan_request(
        "What is the Tamsin Hall deposit and what is its hourly rate? Add the deposit to 5 hours at the rate."
    ).steps
    assert steps[-1].kind == CALC and steps[-1].template.replace(" ", "") == "((5*v2)+v1)"


@pytest.mark.parametrize(
    "goal",
    [
        "How many credits is the Pellworth College welding course, and what is the fee per credit? "
        "Multiply them.",
        "What is the Oskarby Pavilion's floor area, and how much is the rent per square metre? "
        "Multiply them.",
    ],
)
def test_two_questions_in_one_sentence_are_two_lookups(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    first_name = "Pellworth" if "Pellworth" in goal else "Oskarby"
    assert first_name in steps[1].template  # the second question is about what the first names


def test_a_second_question_pointing_back_stays_one_lookup() -> None:
    assert (
        split_questions("Which month had the most late trains at Kessing Junction, and how many were there?")
        is None
    )
    assert split_questions("What is the Brask price?") is None


@pytest.mark.parametrize(
    "goal",
    [
        "The Drummel depot pays a mileage allowance per km. Find it and compute what a 412 km trip is worth.",
        "Orlo Telecom charges a roaming fee per day. Look it up, then work out 9 days of it.",
    ],
)
def test_a_statement_then_find_it_looks_up_the_statement(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert ("Drummel" in steps[0].template) or ("Orlo" in steps[0].template)
    assert steps[1].needs == (1,)


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("Look up the Brask ferry fare per metre of vehicle. A 4.6 m trailer pays for every metre or part "
         "of one; work out its fare.", "(v1 * ceil(4.6))"),
        ("Find the Quenby Mill price per kg of rye. We need 12 kg; calculate the cost.", "(v1 * 12)"),
    ],
)  # fmt: skip
def test_a_statement_with_a_quantity_is_the_situation_of_the_calculation(goal: str, expression: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC] and steps[1].template == expression


def test_a_lookup_naming_nothing_is_about_what_the_earlier_lookups_name() -> None:
    steps = plan_request(
        "Look up the Tamsin Hall hourly rate. Then find the cleaning fee. Add 3 hours at the rate to the fee."
    ).steps
    assert steps[1].kind == LOOKUP and "Tamsin Hall" in steps[1].template
    assert steps[2].template.replace(" ", "") == "(v2+(3*v1))"


@pytest.mark.parametrize(
    ("goal", "expression", "second"),
    [
        ("What is the Orlo Telecom basic plan fee plus the activation charge?", "(v1 + v2)", "Orlo Telecom"),
        ("By how much does the Brask cargo bike price exceed the city bike price?", "(v1 - v2)", "Brask"),
        ("What's the difference between the Quenby Mill rye price and its spelt price per kg?",
         "abs(v1 - v2)", "Quenby Mill"),
        ("How much longer is the Tamsin Hall main room than the Tamsin Hall studio?", "abs(v1 - v2)",
         "studio"),
    ],
)  # fmt: skip
def test_two_facts_combined_in_one_question(goal: str, expression: str, second: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template.replace("abs", "") in (expression, expression.replace("abs", ""))
    assert second in steps[1].template


def test_a_combination_of_stated_numbers_is_no_lookup() -> None:
    assert LOOKUP not in _kinds("What is 14 plus 29?")


def test_bind_then_inline_code_and_a_combined_total_told() -> None:
    steps = plan_request("Work out 2,450 x 18 %, bind it to `x`, and run `print(x // 7)`.").steps
    assert [s.kind for s in steps] == [CALC, "code"] and steps[1].bindings == (("x", 1),)
    steps = plan_request(
        "Look up the Tamsin Hall capacity and the Oskarby Pavilion capacity, and tell me the combined total."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]


def test_code_with_numbers_before_a_calculation_stays_a_step_of_its_own() -> None:
    """A code clause holds numbers but is no situation: the calculation after it uses its result."""
    from ioa_p2p.planning.parse import plan_request

    for goal in (
        "Calculate 6 * 7. print(max(range(40)))  # Python. Then calculate the result times 5",
        "Work out 12 + 30. print(len('abcdef') * 2)  # Python code. Then multiply the result by 4.",
    ):
        kinds = [step.kind for step in plan_request(goal).steps]
        assert kinds == ["calc", "code", "calc"], (goal, kinds)
