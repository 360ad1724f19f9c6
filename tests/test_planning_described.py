"""Values described in words where code needs them, and code whose output is referred to before the code
(issue 23: wording robustness of chained and three-agent requests). Made-up companies and wordings, none
from a goal suite."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, describe, parse_value, plan_request
from ioa_p2p.planning.described import drop_hints, mask_brackets, unmask

BLOCK = "```python\nprint(round(n / 4, 2))\n```"


def _at(expression: str, v1: float) -> float:
    """The expression's value with v1 set (operands in either order compare equal)."""
    return float(eval(expression.replace("v1", repr(v1)), {"__builtins__": {}}))


def _kinds(goal: str) -> list[str]:
    return [s.kind for s in plan_request(goal).steps]


@pytest.mark.parametrize(
    "goal",
    [
        f"Run this with n set to 12 % of 950:\n{BLOCK}",
        f"Execute the code below, where n is 12 percent of 950:\n{BLOCK}",
        f"Set n to 12% of 950 and run:\n{BLOCK}",
        f"Let n be 12 % of 950. Then execute:\n{BLOCK}",
        "Run `print(round(n / 4, 2))` where n equals 12 % of 950.",
        "Run `print(round(n / 4, 2))`, n being twelve percent of 950.",
    ],
)
def test_a_code_input_described_as_a_calculation_is_computed_first(goal: str) -> None:
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    calc, code = plan.steps[-2], plan.steps[-1]
    assert calc.kind == CALC and "950" in calc.template and "12" in calc.template
    assert code.kind == CODE and code.bindings == (("n", calc.index),)


@pytest.mark.parametrize(
    "goal",
    [
        f"Run this with n set to the number of lockers in the Brackwater gym:\n{BLOCK}",
        "Run `print(round(n / 4, 2))` where n is the number of lockers in the Brackwater gym.",
        f"Set n to the number of lockers in the Brackwater gym, then run:\n{BLOCK}",
    ],
)
def test_a_code_input_described_as_a_fact_is_looked_up_first(goal: str) -> None:
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    lookup, code = plan.steps[0], plan.steps[-1]
    assert lookup.kind == LOOKUP and "Brackwater" in lookup.template and "locker" in lookup.template
    assert code.kind == CODE and dict(code.bindings)["n"] in {s.index for s in plan.steps[:-1]}


@pytest.mark.parametrize(
    "goal",
    [
        "Look up the deposit for a Ferncombe kayak, add 10 % to it and run this with n set to the result:\n"
        + BLOCK,
        f"Look up the deposit for a Ferncombe kayak and run this with n set to that amount:\n{BLOCK}",
        "Look up the deposit for a Ferncombe kayak, add 10 % and run this with n set to the new amount:\n"
        + BLOCK,
    ],
)
def test_a_binding_that_names_an_earlier_value_plans_nothing_new(goal: str) -> None:
    plan = plan_request(goal)
    code = plan.steps[-1]
    assert code.kind == CODE and code.bindings == (("n", code.index - 1),)
    assert sum(1 for s in plan.steps if s.kind == LOOKUP) == 1


def test_a_described_input_is_asked_for_never_guessed() -> None:
    plan = plan_request("Run `print(n * 2)` where n is whatever Quenby thinks is best.")
    code = plan.steps[-1]
    asked = plan.step(dict(code.bindings)["n"])
    assert code.kind == CODE and asked.kind == LOOKUP and "Quenby" in asked.template


@pytest.mark.parametrize(
    ("goal", "calc"),
    [
        ("Divide the output of this code by 6:\n```python\nprint(3 * 14)\n```", "/ 6"),
        ("Add 20 % to the number this script prints:\n```python\nprint(3 * 14)\n```", "20"),
        ("Multiply what this prints by five:\n```python\nprint(3 * 14)\n```", "* 5"),
    ],
)
def test_a_clause_on_the_output_of_code_below_runs_the_code_first(goal: str, calc: str) -> None:
    plan = plan_request(goal)
    assert _kinds(goal) == [CODE, CALC], plan.steps
    assert calc in plan.steps[1].template and plan.steps[1].needs == (1,)


def test_code_below_that_reads_no_input_runs_before_an_earlier_lookup() -> None:
    goal = (
        "Find the number of berths in Tollmarsh marina and subtract it from what this prints:\n"
        "```python\nprint(40 * 3)\n```"
    )
    plan = plan_request(goal)
    assert [s.kind for s in plan.steps] == [CODE, LOOKUP, CALC], plan.steps
    assert plan.steps[2].template.replace(" ", "") in {"(v1-v2)"}


def test_instructions_in_brackets_are_hints_and_other_brackets_stay_whole() -> None:
    assert drop_hints("Multiply 9 by the width of the Orlo gate (look it up).") == (
        "Multiply 9 by the width of the Orlo gate."
    )
    assert "(kWh)" in drop_hints("the capacity (kWh) of the Z4")
    masked = mask_brackets("the fare (adults; then children) and then run")
    assert "; then" not in masked and unmask(masked) == "the fare (adults; then children) and then run"
    plan = plan_request("Look up the fare for a Pemberly tram (adults, then children over 12). Double it.")
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC]


@pytest.mark.parametrize(
    ("goal", "expression", "question"),
    [
        (
            "Multiply 7.5 m by the ceiling height of the Ostmark hall.",
            "(7.5*v1)",
            "ceiling height of the Ostmark",
        ),
        ("Divide 30 × 12 by the weight of the Q9 drone.", "((30*12)/v1)", "weight of the Q9 drone"),
        ("Calculate 40 times the daily fee in the Brindle kennel price list.", "(40*v1)", "daily fee"),
        ("Take the Lyon stock of Z3 pumps minus 120.", "(v1-120)", "Lyon stock of Z3 pumps"),
        ("Multiply the Z3 pump's rated flow by 4.", "(v1*4)", "rated flow of the Z3 pump"),
    ],
)
def test_an_operand_naming_a_fact_is_looked_up_first(goal: str, expression: str, question: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC], steps
    assert question in steps[0].template
    assert _at(steps[1].template, 3.0) == _at(expression, 3.0) and steps[1].needs == (1,)


def test_an_operand_that_is_code_is_run_first() -> None:
    steps = plan_request("Subtract the Q9 drone's price from what print(3 ** 7) prints in Python.").steps
    assert [s.kind for s in steps] == [LOOKUP, CODE, CALC], steps
    assert steps[2].template.replace(" ", "") == "(v2-v1)"


def test_an_explicit_subtraction_is_not_read_as_a_rate() -> None:
    steps = plan_request("Find the number of berths in Tollmarsh marina, take 25 away from it.").steps
    assert steps[-1].template.replace(" ", "") == "(v1-25)"


def test_a_participle_after_that_is_no_reference_to_a_step_by_its_words() -> None:
    goal = (
        "Multiply 9 by the round-trip loss of the Z3 pump, then use Python to print that rounded to 2 places."
    )
    steps = plan_request(goal).steps
    assert steps[-1].kind == CODE and steps[-1].needs == (steps[-2].index,), steps


@pytest.mark.parametrize(
    "goal",
    [
        "What is 12% of 3,150? Take that and add 6^2 to it.",
        "What is 12% of 3,150? Compute that first, then add 6 ** 2 to it.",
    ],
)
def test_a_clause_that_only_names_the_last_value_adds_no_step(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [CALC, CALC], steps
    assert _at(steps[1].template, 3.0) == 3.0 + 36


def test_the_one_in_a_second_setting_is_the_first_lookups_thing() -> None:
    steps = plan_request(
        "Look up the Q9 drone's list price in the 2025 catalogue and the one in the 2023 catalogue."
    )
    assert [s.kind for s in steps.steps] == [LOOKUP, LOOKUP]
    assert "Q9 drone's list price in the 2023 catalogue" in steps.steps[1].template


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("How many Z3 pumps are in the Lyon depot? Subtract the safety stock of 40.", "(v1-40)"),
        ("Find the number of seats in the Orlo hall and divide it by the rows, 12.", "(v1/12)"),
    ],
)
def test_an_operand_stating_its_value_is_that_value(goal: str, expression: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC], steps
    assert _at(steps[1].template, 480.0) == _at(expression, 480.0)


def test_its_attribute_is_a_fact_about_what_the_earlier_lookup_names() -> None:
    steps = plan_request(
        "What is the gross weight of the Q9 drone? Subtract its battery weight from it."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC], steps
    assert "battery weight" in steps[1].template and "Q9" in steps[1].template
    assert _at(steps[2].template.replace("v2", "1.0"), 5.0) == 4.0


def test_hexadecimal_output_and_a_declared_unit() -> None:
    steps = plan_request("Compute 12.5 % of 640, then print the result in hexadecimal with Python.").steps
    assert steps[-1].kind == CODE and "hex(" in steps[-1].template
    printed = parse_value("0x1e0")
    assert printed is not None and printed.shown() == "0x1e0"
    steps = plan_request("What is 40 times 2.5? Treat it as kilometres and convert it to miles.").steps
    assert steps[0].unit == "km" and len(steps) == 2, steps


@pytest.mark.parametrize(
    "goal",
    [
        "Convert the output of this code from kWh to megajoules:\n```python\nprint(60 - 15)\n```",
        "Run:\nprint(60 - 15)\nIt prints a number of kWh. How many MJ is that?",
    ],
)
def test_a_unit_stated_for_printed_output_converts_it(goal: str) -> None:
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [CODE, CALC] and steps[0].unit == "kWh", steps
    printed = parse_value("45")
    assert printed is not None and describe(steps[1], {1: printed}) == "Calculate 45 * 3.6"
