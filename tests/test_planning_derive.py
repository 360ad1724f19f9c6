"""Questions answered by how the documents define what they ask for (planning/derive.py, doc_facts.py).

Made-up documents and wordings (no suite's): the derivation works backwards from the unit asked for through
the rates the documents state, binding each operand to the request's quantities or to stated amounts.
"""

from __future__ import annotations

import re

from ioa_p2p.planning import CALC, LOOKUP, describe, plan_request, value_of
from ioa_p2p.planning.derive import DERIVE, derive_expression, derived_plan
from ioa_p2p.planning.doc_facts import facts_in, givens_in
from ioa_p2p.planning.values import Value

WAREHOUSE = """# Dunmore Logistics - site notes

## Lighting

The Dunmore warehouse has 120 lamps. Lighting uses 12 kWh per lamp per month.

## Energy

Electricity is bought at EUR 0.30 per kWh.

## Water

The rain tank holds 9,000 litres. The transfer pump moves 150 litres per minute.
"""

PANCAKES = """# Ferrow Cafe recipes

## Buttermilk pancakes

Makes 8 pancakes.

- 200 g plain flour
- 300 ml buttermilk
- 1 egg

Cook each side for 2 minutes.
"""

CRATES = """# Halvard crate range

| Crate | Empty mass | Volume  |
|-------|-----------:|--------:|
| R5    | 3.5 kg     | 40 L    |
| R7    | 4.25 kg    | 65 L    |
"""


def _calc(expression: str) -> float:
    assert re.fullmatch(r"[\d.\s*/()+-]+", expression), expression
    return float(eval(expression))  # noqa: S307 - digits and operators only (checked above)


def _derived(question: str, text: str, found: Value) -> tuple[float, str]:
    got = derive_expression(question, found.with_evidence((text,)))
    assert got is not None, question
    return _calc(got[0]), got[1]


def test_rates_amounts_and_what_they_are_per_are_read_from_sentences_and_tables() -> None:
    facts = {(f.number, f.unit, f.per) for f in facts_in(WAREHOUSE + CRATES)}
    assert (12.0, "kWh", ("lamp", "months")) in facts
    assert (0.30, "EUR", ("kWh",)) in facts
    assert (120.0, "lamp", ()) in facts
    assert (150.0, "L", ("min",)) in facts
    assert (4.25, "kg", ("r7",)) in facts  # a row's value is per one of the row's thing
    recipe = {(f.number, f.unit, f.per) for f in facts_in(PANCAKES)}
    assert (25.0, "g", ("pancake",)) in recipe  # a batch's amount per item it makes
    assert not any(f[1] == "min" and f[2] == ("pancake",) for f in recipe)  # a cooking time never scales


def test_the_requests_quantities_are_read_with_what_they_count() -> None:
    givens = {(g.number, g.unit) for g in givens_in("How much flour for twenty Ferrow pancakes over a week?")}
    assert (20.0, "ferrow") in givens and (1.0, "weeks") in givens
    twenty = next(g for g in givens_in("How much flour for twenty Ferrow pancakes?") if g.number == 20)
    assert "pancake" in twenty.alts


def test_a_cost_is_derived_through_the_rates_that_define_it() -> None:
    q = "What does lighting the Dunmore warehouse cost for a year?"
    number, unit = _derived(q, WAREHOUSE, Value.of_number(0.30, "EUR"))
    assert unit == "EUR" and abs(number - 0.30 * 12 * 120 * 12) < 1e-6


def test_a_duration_divides_an_amount_by_a_rate_per_unit_of_time() -> None:
    q = "How long does the Dunmore transfer pump take to empty the full rain tank?"
    number, unit = _derived(q, WAREHOUSE, Value.of_number(150, "L"))
    assert (number, unit) in ((60.0, "min"), (1.0, "h"))


def test_a_recipe_scales_to_the_number_the_request_asks_for() -> None:
    number, unit = _derived("How much flour do 20 Ferrow pancakes need?", PANCAKES, Value.of_number(200, "g"))
    assert (number, unit) == (500.0, "g")


def test_a_row_value_times_the_count_the_request_names() -> None:
    q = "What is the empty mass of six Halvard R7 crates?"
    number, unit = _derived(q, CRATES, Value.of_number(4.25, "kg"))
    assert abs(number - 25.5) < 1e-9 and unit == "kg"


def test_a_stated_amount_needs_no_derivation() -> None:
    q = "How many lamps does the Dunmore warehouse have?"
    assert derive_expression(q, Value.of_number(120, "lamp").with_evidence((WAREHOUSE,))) is None
    q = "What does electricity cost the Dunmore warehouse?"  # nothing counts kWh: the rate is the answer
    assert derive_expression(q, Value.of_number(0.30, "EUR").with_evidence((WAREHOUSE,))) is None


def test_the_plan_looks_up_then_derives_and_the_task_text_is_an_expression() -> None:
    plan = plan_request("What does lighting the Dunmore warehouse cost for a year?")
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC] and plan.steps[1].template == DERIVE
    data = {"value": {"kind": "number", "value": 0.3, "unit": "EUR"}, "document": {"text": WAREHOUSE}}
    found = value_of("EUR 0.30", data, plan.steps[0].template)
    assert found is not None and found.evidence == (WAREHOUSE,)
    text = describe(plan.steps[1], {1: found})
    assert text.startswith("Calculate ") and abs(_calc(text.removeprefix("Calculate ")) - 5184) < 1e-6
    # without passages (a third-party librarian) the value looked up is the answer
    bare = describe(plan.steps[1], {1: Value.of_number(0.3, "EUR")})
    assert _calc(bare.removeprefix("Calculate ")) == 0.3


def test_only_questions_for_a_quantity_are_derived() -> None:
    assert derived_plan("Who signs off a Dunmore purchase order?") is None
    assert derived_plan("How many days are there between 3 May 2025 and 9 June 2025?") is None
    assert derived_plan("How much does a Halvard R7 crate weigh?") is not None


PRESERVES = """# Oakhollow Preserves

### Damson jam

*One batch fills 8 jars.*

| Ingredient | Per batch (8 jars) |
|------------|--------------------|
| Damsons    | 1.6 kg             |
| Sugar      | 1,200 g            |

> Plum jam: the same method with 900 g sugar.
"""


def test_a_batch_defined_in_items_scales_to_a_count_in_words() -> None:
    q = "We want to make eighteen jars of Oakhollow damson jam. How much sugar should we buy?"
    number, unit = _derived(q, PRESERVES, Value.of_number(1200, "g"))
    assert (round(number, 6), unit) == (2700.0, "g")  # 1,200 g per batch of 8 jars, for 18 jars
    plan = plan_request(q)
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC] and plan.steps[-1].template == DERIVE


CANTEEN = """# Pardell Works canteen

On a typical day 60 workers eat in the canteen and each drinks 2 cups of tea.
A cup of tea uses 2.5 g of tea leaves. Tea leaves cost EUR 30 per kilogram.
"""


def test_each_makes_a_rate_per_the_thing_counted_before_it_and_a_typical_day_a_period() -> None:
    facts = {(f.number, f.unit, f.per) for f in facts_in(CANTEEN)}
    assert (2.0, "cup", ("worker",)) in facts and (60.0, "worker", ("days",)) in facts
    q = "What do the tea leaves for a typical day at the Pardell canteen cost?"
    number, unit = _derived(q, CANTEEN, Value.of_number(30, "EUR"))
    assert unit == "EUR" and abs(number - 60 * 2 * 2.5 / 1000 * 30) < 1e-9
    number, _ = _derived("How many cups of tea does the Pardell canteen serve in a 5-day week?", CANTEEN,
                         Value.of_number(2, "cup"))  # fmt: skip
    assert number == 600


def test_a_count_names_only_the_phrase_after_it() -> None:
    givens = givens_in("What does the room cost for 12 people over a year?")
    twelve = next(g for g in givens if g.number == 12)
    assert "years" not in twelve.alts and "people" in twelve.alts


def test_a_derivation_with_nothing_to_derive_is_the_value_looked_up_even_without_a_calculator() -> None:
    from ioa_p2p.planning import StepOutcome, conclusion

    plan = plan_request("How many lamps does the Dunmore warehouse have?")
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC]
    found = Value.of_number(120, "lamp").with_evidence((WAREHOUSE,))
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", found, "completed"),
        2: StepOutcome(plan.steps[1], "", None, "failed", note="no member can do arithmetic"),
    }
    text, info = conclusion(plan, outcomes)
    assert text.startswith("The answer is 120") and not info["missing"]
    # a derivation that has something to compute is never replaced by the lookup
    plan = plan_request("What does lighting the Dunmore warehouse cost for a year?")
    rate = Value.of_number(0.30, "EUR").with_evidence((WAREHOUSE,))
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", rate, "completed"),
        2: StepOutcome(plan.steps[1], "", None, "failed"),
    }
    text, info = conclusion(plan, outcomes)
    assert text.startswith("No answer") and info["missing"] == [2]


def test_the_answer_is_in_the_unit_the_question_names() -> None:
    number, unit = _derived("How many litres of buttermilk do 16 Ferrow pancakes need?", PANCAKES,
                            Value.of_number(300, "ml"))  # fmt: skip
    assert (round(number, 9), unit) == (0.6, "L")
