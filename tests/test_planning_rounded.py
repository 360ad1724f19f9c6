"""Issue 23 (p-natural5): the rounding a rule's sentence states (planning/rounded.py), applied where the
situation selects the rule (planning/situated.py), and a rule whose subject is one word ("Railcard
holders", "Pensioners") selected by a question that names that word. Wordings are made up here."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.rounded import rounded_as_stated, stated_rounding
from ioa_p2p.planning.situated import situated_charge
from ioa_p2p.planning.situation_words import selects, telling_stems
from ioa_p2p.planning.values import Value

FERRY = """\
Kestle Point Ferry - fares

Foot passenger single: EUR 7.30
Foot passenger return: EUR 12.10
Bicycle: EUR 2.00 each way.
Seniors' pass holders get one quarter off any return, rounded down to the nearest 10 cents.
The kiosk opens 30 minutes before the first crossing.
"""


def _records(text: str) -> DocRecords:
    records = records_from_data(records_data(read_document("fares.txt", text)))
    assert records is not None
    return records


def _exact(expression: str) -> Fraction:
    """The expression in exact fractions, as the calculator works it out."""
    names = {"floor": math.floor, "ceil": math.ceil, "round": round, "min": min, "max": max}
    text = re.sub(r"(\d+(?:\.\d+)?)", r'F("\1")', expression)
    return Fraction(eval(text, {"__builtins__": {}, "F": Fraction, **names}))


def test_the_rounding_a_sentence_states() -> None:
    assert stated_rounding("Child fares are half the adult fare, rounded down to the nearest 5p.") == (
        "floor",
        0.05,
    )
    assert stated_rounding("rounded up to the next 10 cents") == ("ceil", 0.1)
    assert stated_rounding("then rounded to the nearest whole euro") == ("round", 1.0)
    assert stated_rounding("rounded down to the nearest EUR 0.50") == ("floor", 0.5)
    assert stated_rounding("Fares are shown to the cent.") is None
    assert rounded_as_stated("No rounding here.", "3 * 2") == "3 * 2"
    assert _exact(rounded_as_stated("rounded down to the nearest 5p", "9.7 * (1 - 1/3)")) == Fraction("6.45")


def test_a_one_word_subject_is_selected_by_the_word_and_the_rounding_applied() -> None:
    found = replace(Value.of_number(12.10, "EUR"), records=_records(FERRY))
    q = "I have a seniors' pass and want a foot passenger return across to Kestle Point. What do I pay?"
    charged = situated_charge(q, found)
    assert charged is not None
    assert _exact(charged[0]) == Fraction("9.00")  # 12.10 * 3/4 = 9.075, down to the nearest 10 cents


def test_a_one_word_subject_the_question_does_not_name_is_not_selected() -> None:
    sentences = ["Pensioners get 20% off every ticket.", "Day tickets cost GBP 9.", "Parking is free."]
    telling = telling_stems(sentences)
    assert selects("As pensioners, what do two day tickets cost?", sentences[0], telling)
    assert not selects("What do two day tickets cost for students?", sentences[0], telling)


STAGES = """\
Brackwater Buses - fares

A single costs EUR 2.10 per stage travelled.
A return costs 1.5 times the single fare.
"""


def test_a_rule_selected_by_one_word_never_composes_a_rate_without_its_quantity() -> None:
    found = replace(Value.of_number(2.10, "EUR"), records=_records(STAGES))
    assert situated_charge("What does a return from Holt to Ashby cost on Brackwater Buses?", found) is None
    charged = situated_charge("What does a return over 4 stages cost on Brackwater Buses?", found)
    assert charged is None or _exact(charged[0]) == Fraction("12.6")
