"""A price with the documents' VAT added, in the wordings natural.py's "including VAT" misses
(planning/taxed.py; issue 23, p-chain5). Made-up wording throughout."""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.taxed import vat_plan
from ioa_p2p.planning.types import CALC, LOOKUP


def test_once_vat_is_on_it() -> None:
    steps = vat_plan("What does Fernhill's annual parking permit cost once VAT is on it?")
    assert steps is not None
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[0].template == "What is the price of Fernhill's annual parking permit?"
    assert steps[1].template == "What is the VAT rate (Fernhill)?"
    assert steps[2].template == "(v1 * (1 + v2 / 100))" and steps[2].needs == (1, 2)


def test_an_amount_noun_is_looked_up_as_it_is() -> None:
    steps = vat_plan("What will the Quayside Grill's March gas bill come to once VAT is added?")
    assert steps is not None
    assert steps[0].template == "What is the Quayside Grill's March gas bill?"
    assert steps[1].template == "What is the VAT rate (Quayside Grill)?"


def test_plus_vat_after_any_verb() -> None:
    steps = vat_plan("How much is a Larch Cafe birthday cake plus VAT?")
    assert steps is not None and steps[0].template == "What is the price of a Larch Cafe birthday cake?"


def test_a_rate_the_question_gives_and_other_questions_are_left_alone() -> None:
    assert vat_plan("What does the permit cost once VAT at 20% is added?") is None
    assert vat_plan("What does the permit cost?") is None
    assert vat_plan("What does it cost once VAT is added?") is None


def test_planned_through_the_planner() -> None:
    plan = plan_request("What does Fernhill's annual parking permit cost once VAT is on it?")
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, CALC]
