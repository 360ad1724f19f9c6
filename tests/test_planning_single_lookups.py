"""Issue 23, round 3: the planner's side of single lookups. The answer type read from the question's
structure ("which <measure>" asks for a figure, "what percentage" for a share), a year in a request
is a period and never a quantity to multiply by, a question for a rate gets the rate (not a total worked
out with an amount from the documents), and a value looked up is given in the unit the question names.
Made-up wordings and documents (no suite's)."""

from __future__ import annotations

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.doc_facts import facts_in, givens_in
from ioa_p2p.planning.values import Value

KILNS = """# Ashdown Pottery: studio rates

Kiln firing is charged at EUR 0.42 per kg of ware.
A full kiln holds 60 kg of ware.
Until 31 December 2025 firing was charged at EUR 0.35 per kg; work brought in 2025 is still charged
at that old rate.
"""


def test_which_measure_asks_for_a_figure_and_which_thing_for_a_name() -> None:
    assert answer_type("Which buffer size did the release set the cache to?").kind == "number"
    assert answer_type("Which voltage does the charger need?").kind == "number"
    assert answer_type("Which kiln is booked on Fridays?").kind == "name"


def test_what_percentage_asks_for_a_share_whatever_it_is_of() -> None:
    asked = answer_type("What percentage is the late-booking surcharge?")
    assert asked.units == ("%",)
    assert answer_type("What share of the levy goes to the harbour fund?").units == ("%",)


def test_a_year_in_a_request_is_a_period_not_a_quantity() -> None:
    assert [g.number for g in givens_in("What was the firing rate for work brought in 2025?")] == []
    assert [g.number for g in givens_in("Since March 2024, how many kg of clay were fired?")] == []
    assert [g.number for g in givens_in("What does firing 2025 kg of ware cost?")] == [2025.0]


def test_a_rate_asked_for_is_the_rate_not_a_total_worked_out_with_it() -> None:
    found = Value.of_number(0.35, "EUR", "EUR 0.35").with_evidence((KILNS,))
    question = "What per-kg firing rate did Ashdown charge for work brought in 2025?"
    assert derive_expression(question, found) is None
    # with a quantity of its own, the question still gets the total
    total = derive_expression("What does Ashdown charge to fire 30 kg of ware?", found)
    assert total is not None and "30" in total[0]


def test_a_value_looked_up_is_given_in_the_unit_the_question_names() -> None:
    found = Value.of_number(3, "h", "3 hours").with_evidence(("The glaze cures in 3 hours.",))
    assert derive_expression("In minutes, how long does the glaze take to cure?", found) == ("3 * 60", "min")
    assert derive_expression("How long does the glaze take to cure?", found) is None


CELLAR = """HARLAND CHEESE CELLAR -- STOCK COUNT

WHEELS (12 kg wheels unless noted)

Batch    Cheese                 Wheels   Kg per wheel   Cost EUR/kg
-------  ---------------------  ------   ------------   -----------
C-201    Aged Gouda reserve         14             12         11.20
C-204    Smoked Tomme                9              8         14.50
"""


def test_an_aligned_table_gives_typed_quantities_named_by_their_row_and_headers() -> None:
    facts = facts_in(CELLAR)
    tomme = [f for f in facts if "tomme" in f.words]
    assert any(f.number == 9 and f.unit == "wheel" for f in tomme)  # "Wheels": a count of wheels
    assert any(f.number == 8 and f.unit == "kg" and f.per == ("wheel",) for f in tomme)  # "Kg per wheel"
    assert any(f.number == 14.5 and f.unit == "EUR" and f.per == ("kg",) for f in tomme)  # "Cost EUR/kg"
    sized = [f for f in facts if f.number == 12 and f.unit == "kg" and not f.words & {"gouda"}]
    assert sized and sized[0].per == ("wheel",)  # "12 kg wheels": the size of each


def test_a_row_worth_is_worked_out_through_its_own_cells() -> None:
    found = Value.of_number(14.5, "EUR", "14.50").with_evidence((CELLAR,))
    worked = derive_expression("What is the Harland smoked Tomme stock worth at cost?", found)
    assert worked is not None
    assert eval(worked[0]) == 14.5 * 8 * 9  # noqa: S307 - a plain arithmetic expression of numbers


def test_a_rate_in_the_unit_the_question_counts_in() -> None:
    found = Value.of_number(40, "L/min", "40 L/min").with_evidence(("The pump moves 40 L/min.",))
    assert derive_expression("How many litres an hour does the pump move?", found) == ("40 * 60", "L/h")


def test_when_in_a_clause_of_condition_asks_no_time() -> None:
    from ioa_p2p.planning.clock import asks_time

    assert asks_time("When does the last ferry leave?")
    assert asks_time("The meeting is moved; by when must I reply?")
    assert not asks_time("How much water does the pump lift when it has to push it 6 metres up?")
