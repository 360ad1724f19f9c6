"""Arithmetic asked in words over earlier values becomes a calculation bound to them (issue 23, p-words2).

Made-up requests: a verb or a noun names the work ("average them", "compute the percentage", "take the
larger of the two", "add all three up", "the mean snowfall per snow day", "round to the nearest pound")
and the operands are only pointed at. On the planner before, each of these was a task no agent does (or
the rounding was dropped), so the code after it never ran or the answer was not the one asked for.
"""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, CODE, LOOKUP, PlanStep, plan_request
from ioa_p2p.planning.worded import worded_step


def _lookups(*texts: str) -> list[PlanStep]:
    return [PlanStep(i + 1, LOOKUP, t, f"{t}?") for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    "clause",
    ["average them", "Then take the mean.", "work out their average", "what's the mean of the two?"],
)
def test_a_mean_asked_in_words_is_the_mean_of_the_values_found(clause: str) -> None:
    step = worded_step(3, clause, _lookups("What is the Monday footfall", "What is the Tuesday footfall"))
    assert step is not None and step.kind == CALC
    assert step.template == "((v1 + v2) / 2)" and step.needs == (1, 2)


def test_a_count_word_takes_the_last_values_only() -> None:
    before = _lookups("What is the fee of A", "What is the fee of B", "What is the fee of C")
    step = worded_step(4, "average the two", before)
    assert step is not None and step.template == "((v2 + v3) / 2)"
    three = worded_step(4, "add all three up", before)
    assert three is not None and three.template == "(v1 + v2 + v3)"


def test_a_percentage_takes_the_whole_as_its_base() -> None:
    before = _lookups("What is the Trellby Library grant total", "What is the part spent on books")
    step = worded_step(3, "compute the percentage", before)
    assert step is not None and step.template == "(v2 / v1 * 100)" and step.unit == "%"


@pytest.mark.parametrize(
    ("clause", "fn"),
    [("take the larger of the two", "max"), ("use whichever is lower", "min"), ("the cheaper one", "min")],
)
def test_the_larger_or_smaller_of_the_values(clause: str, fn: str) -> None:
    step = worded_step(3, clause, _lookups("What is the Norvik quote", "What is the Bellam quote"))
    assert step is not None and step.template == f"{fn}(v1, v2)"


def test_a_mean_per_thing_is_the_total_over_the_count_of_that_thing() -> None:
    before = _lookups("What is the total snowfall at Kettle Pass", "How many snow days were there")
    step = worded_step(3, "get the mean snowfall per snow day", before)
    assert step is not None and step.template == "(v1 / v2)"


def test_a_clause_that_names_something_new_or_a_number_is_not_read_here() -> None:
    before = _lookups("What is the Norvik quote", "What is the Bellam quote")
    assert worded_step(3, "average the Corran quotes", before) is None
    assert worded_step(3, "take the larger of 5 and 7", before) is None
    assert worded_step(1, "average them", []) is None


def test_a_mean_in_words_feeds_the_code_after_it() -> None:
    plan = plan_request(
        "Look up the Kettle Pass snowfall for January and the one for February, average them, and run "
        "`print(round(m / 10, 1))` with m the mean."
    )
    calc = next(s for s in plan.steps if s.kind == CALC)
    code = plan.steps[-1]
    assert calc.template.startswith("((v") and calc.template.endswith("/ 2)")
    assert code.kind == CODE and code.bindings == (("m", calc.index),)


def test_a_percentage_in_words_feeds_the_code_after_it() -> None:
    plan = plan_request(
        "What share of the Trellby grant went on books? Take the part spent on books and the grant total, "
        "compute the percentage, and pass it as p to `print(f'{p:.1f}%')`."
    )
    calc = next(s for s in plan.steps if s.kind == CALC)
    assert calc.template == "(v1 / v2 * 100)" and plan.steps[-1].bindings == (("p", calc.index),)


@pytest.mark.parametrize(
    ("request_", "template"),
    [
        ("Look up the price of a Lomo kettle and of a Lomo toaster. Add them up and round to the nearest "
         "pound.", "round((v1 + v2), 0)"),
        ("Look up the Lomo kettle's price. Halve it, then round to the nearest penny.",
         "round(( v1 / 2 ), 2)"),
    ],
)  # fmt: skip
def test_rounding_to_a_currency_unit_rounds_the_value(request_: str, template: str) -> None:
    plan = plan_request(request_)
    assert plan.steps[-1].kind == CALC and plan.steps[-1].template == template


def test_an_operation_by_a_fact_looks_the_fact_up_and_applies_it_to_the_value() -> None:
    plan = plan_request(
        "Get the Kestrel pea seeds per gram, multiply by the grams in a sachet, then run `print(n * 4)` "
        "with n bound to the product."
    )
    kinds = [s.kind for s in plan.steps]
    assert kinds == [LOOKUP, LOOKUP, CALC, CODE], plan.steps
    assert "grams in a sachet" in plan.steps[1].template
    assert plan.steps[2].template == "(v1 * v2)" and plan.steps[3].bindings == (("n", 3),)


def test_a_fact_added_to_the_value_names_what_it_is_about() -> None:
    plan = plan_request(
        "Look up the Harbour Desk monthly price, add the key deposit Wexcombe takes for it to the first "
        "month's fee, and run `print(x)` with x bound to that sum."
    )
    lookup, calc = plan.steps[1], plan.steps[2]
    assert lookup.kind == LOOKUP and "for the Harbour Desk" in lookup.template
    assert calc.kind == CALC and calc.template == "(v1 + v2)"
