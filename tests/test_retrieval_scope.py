"""Issue 23, round 2: the document set a question names (adapters/retrieval/scope.py), pure."""

from __future__ import annotations

from ioa_p2p.adapters.retrieval.scope import OFF_SCOPE, question_names, scope_weights, set_of

SETS = {
    "harbour-co": "harbour-co/fees.md\nharbour co fees: mooring eur 20 per night. vat 21 %.",
    "pine-lodge": "pine-lodge/rates.md\npine lodge: a room is eur 80 per night. vat 9 %.",
    "quarry-tours": "quarry-tours/prices.md\nquarry tours: eur 15 per adult. vat 21 %.",
}


def test_the_names_of_a_question() -> None:
    assert question_names("What does a night at Pine Lodge cost incl. VAT?")[:2] == ["pine", "lodge"]
    assert set_of("pine-lodge/rates.md") == "pine-lodge" and set_of("top.md") == ""


def test_the_set_a_question_names_keeps_its_weight_the_others_are_weighed_down() -> None:
    weights = scope_weights("What does a night at Pine Lodge cost?", SETS)
    assert weights == {"harbour-co": OFF_SCOPE, "pine-lodge": 1.0, "quarry-tours": OFF_SCOPE}


def test_a_name_most_sets_use_names_no_subject() -> None:
    assert scope_weights("What is the VAT rate in EUR?", SETS) == {}  # eur and vat are everywhere
    assert scope_weights("how much is a night?", SETS) == {}  # no names at all
    assert scope_weights("What does Pine Lodge charge?", {"pine-lodge": SETS["pine-lodge"]}) == {}


def test_the_set_with_most_of_the_names_wins() -> None:
    weights = scope_weights("Is the Harbour mooring cheaper than a Quarry tour for Harbour guests?", SETS)
    assert weights["pine-lodge"] == OFF_SCOPE
    assert weights["harbour-co"] == weights["quarry-tours"] == 1.0
