"""Issue 23, round 3: the planner's side of single lookups. The answer type read from the question's
structure ("which <measure>" asks for a figure, "what percentage" for a share), a year in a request
is a period and never a quantity to multiply by, a question for a rate gets the rate (not a total worked
out with an amount from the documents), and a value looked up is given in the unit the question names.
Made-up wordings and documents (no suite's)."""

from __future__ import annotations

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.doc_facts import givens_in
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
