"""Issue 23 (p-natural5): a charge stated as the greater or lesser of a fixed sum and a multiple of a
price (planning/whichever.py), applied to the price looked up when the question names what the rule is
for. Documents and wordings are made up here and differ from every suite's."""

from __future__ import annotations

from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.values import Value
from ioa_p2p.planning.whichever import whichever_charge

TRAMS = """\
Vessling Tramways - fares from 1 May 2031

Single, zones 1-2: EUR 2.40
Single, zones 1-4: EUR 3.90

Onboard fine: EUR 40 or three times the single for your journey, whichever is greater.
Refunds: a handling charge of 10 % of the ticket or EUR 1.50, whichever is less.
"""


def _found(number: float) -> Value:
    records = records_from_data(records_data(read_document("fares.txt", TRAMS)))
    return replace(Value.of_number(number, "EUR"), evidence=(TRAMS,), records=records)


def test_the_greater_of_a_fixed_sum_and_a_multiple_of_the_price_looked_up() -> None:
    q = "I was caught without a ticket on a zones 1-4 tram. What onboard fine do I have to pay?"
    assert whichever_charge(q, _found(3.9)) == ("max(40, 3.9 * 3)", "EUR")
    derived = derive_expression(q, _found(3.9))
    assert derived is not None and derived[0] == "max(40, 3.9 * 3)"


def test_a_rule_the_question_does_not_name_or_the_fixed_sum_looked_up_gives_nothing() -> None:
    assert whichever_charge("What does a single for zones 1-4 cost?", _found(3.9)) is None
    assert whichever_charge("What onboard fine do I pay?", _found(40.0)) is None
