"""The fact an answer is read from is evidence for the thing asked (retrieval/evidence_scope.py).

Made-up wording, none of any goal suite's.
"""

from __future__ import annotations

from ioa_p2p.adapters.retrieval.evidence_scope import (
    amount_read_back,
    asked_subjects,
    label_as_amount,
    money_numbers,
    scope_misses,
    share_for_price,
    superseded_fact,
)
from ioa_p2p.planning.values import Value

_BILL = """\
HALVERN WATER                         Your water bill
Customer 9 Orchard Row, Pellby
Meter ref (55120987)
  Supply charge   92 days x 41.2p per day          EUR   37.90
  Volume          31 m3 x EUR 1.84                 EUR   57.04
  Total                                            EUR   94.94
Note: your previous tariff charged EUR 1.62 per m3 until 30 June.
"""

_CATALOGUE = """\
LOTS
211   A pair of brass candlesticks, c.1900            £60-90
212   WITHDRAWN
213   A walnut writing slope, brass bound             £120-180
"""


def test_money_numbers_reads_spaced_codes_symbols_and_pence() -> None:
    assert {37.90, 57.04, 94.94, 1.84, 1.62, 41.2} <= money_numbers(_BILL)
    assert 9.0 not in money_numbers(_BILL)


def test_a_house_number_is_no_price() -> None:
    asked = "What price per m3 do I pay for waste water at Orchard Row?"
    missing = label_as_amount(asked, _BILL, Value.of_number(9))
    assert [q.kind for q in missing] == ["amount"]


def test_a_bracketed_reference_and_a_lot_number_are_no_amounts() -> None:
    assert label_as_amount("What is the balance on meter (55120987)?", _BILL, Value.of_number(55120987))
    assert label_as_amount("What is the estimate for lot 212?", _CATALOGUE, Value.of_number(213))


def test_a_bare_amount_the_document_states_as_money_stands() -> None:
    # 94.94 is stated with its currency; a decimal amount is never a label
    assert label_as_amount("What is the total to pay?", _BILL, Value.of_number(94.94)) == []
    assert label_as_amount("What is the total to pay?", _BILL, Value.of_number(3.5)) == []
    # a question that asks no amount of money: a house number may be the answer
    assert label_as_amount("Which house number is the supply address?", _BILL, Value.of_number(9)) == []
    assert (
        label_as_amount("Which meter number was the bill paid for?", _BILL, Value.of_number(55120987)) == []
    )
    # a document without amounts of money: nothing to tell labels from amounts by
    assert (
        label_as_amount("What does a lot cost?", "Lot 4 Oak Lane\nLot 5 Elm Row\n", Value.of_number(4)) == []
    )


def test_an_amount_the_question_states_is_no_lookup_answer() -> None:
    asked = "How much of each EUR 30 entry fee goes to the prize fund?"
    assert [q.kind for q in amount_read_back(asked, Value.of_number(30, "EUR"))] == ["restated"]
    assert amount_read_back(asked, Value.of_number(12, "EUR")) == []
    assert amount_read_back("How much is the prize fund's share?", Value.of_number(30, "EUR")) == []


def test_a_previous_value_does_not_answer_a_question_about_now() -> None:
    fact = "Note: your previous tariff charged EUR 1.62 per m3 until 30 June."
    price = Value.of_number(1.62, "EUR")
    assert [q.kind for q in superseded_fact("What do I pay per m3 of water?", fact, price)] == ["period"]
    assert superseded_fact("What did I pay per m3 before July?", fact, price) == []
    assert superseded_fact("What was the previous tariff's rate per m3?", fact, price) == []
    assert superseded_fact("What do I pay per m3 of water?", "Volume 31 m3 x EUR 1.84", price) == []
    old = "Last season's fee for a junior member was £40."
    assert superseded_fact("What is the junior membership fee?", old, Value.of_number(40, "GBP"))
    assert superseded_fact("What was last season's junior fee?", old, Value.of_number(40, "GBP")) == []
    # a relative period is no superseded value
    spend = "Gold: spend EUR 2,500 in the previous 12 months."
    assert superseded_fact("How much must I spend to reach Gold?", spend, Value.of_number(2500, "EUR")) == []
    # a fact that refers to last year for another purpose, for a question that asks no price
    estimate = "Without a reading we estimate your use from the same month last year."
    assert superseded_fact("Within how many days must a reading be sent?", estimate, Value.of_number(5)) == []


def test_a_situated_questions_thing_asked_must_be_in_the_document() -> None:
    asked = "We're a family of four. What would a lakeside cabin cost us for two nights?"
    missing = asked_subjects(asked, _BILL, "halvern/bill.txt", Value.of_number(37.9, "EUR"))
    assert "lakeside" in [q.shown for q in missing]
    # the givens of the situation are not checked, only the asking sentence
    given = "We're bringing our canoe and a trailer. What is the supply charge per day for us?"
    assert asked_subjects(given, _BILL, "halvern/bill.txt", Value.of_number(41.2, "cent")) == []
    # a question not about the asker: its noun phrases, whatever number answers it
    plain = "Look up what Halvern charges for a lakeside cabin"
    assert [q.shown for q in asked_subjects(plain, _BILL, "halvern/bill.txt", Value.of_number(37))] == [
        "lakeside",
        "cabin",
    ]
    # a balance is asked of an account the question names in its own words: not checked
    balance = "What was the garden's bank balance at the end of March?"
    assert asked_subjects(balance, _BILL, "b.txt", Value.of_number(94.94, "EUR")) == []
    # a share asked for is no amount of money: its words are not checked here
    shared = "What deposit secures a lakeside cabin, as a share of the charge?"
    assert asked_subjects(shared, _BILL, "b.txt", Value.of_number(30, "%")) == []
    # a question that asks no amount of money is not checked here
    assert asked_subjects("Which lakeside cabin is nearest?", _BILL, "b.txt", Value.of_number(3)) == []


def test_scope_misses_joins_every_class_and_passes_a_good_answer() -> None:
    fact = "  Volume          31 m3 x EUR 1.84                 EUR   57.04"
    asked = "What do I pay per m3 of water?"
    assert scope_misses(asked, _BILL, "halvern/bill.txt", fact, Value.of_number(1.84, "EUR")) == []
    old = "Note: your previous tariff charged EUR 1.62 per m3 until 30 June."
    kinds = [
        q.kind for q in scope_misses(asked, _BILL, "halvern/bill.txt", old, Value.of_number(1.62, "EUR"))
    ]
    assert kinds == ["period"]


def test_a_percentage_is_no_price_unless_a_share_is_asked() -> None:
    share = Value.of_number(10, "%")
    assert [q.kind for q in share_for_price("Look up the daily wetsuit rental at Orla", share)] == ["share"]
    assert [q.kind for q in share_for_price("What is the hourly rate for a tutor?", share)] == ["share"]
    assert share_for_price("What discount do groups get on the daily wetsuit rental?", share) == []
    assert share_for_price("How much VAT is charged on a rental?", share) == []
    assert share_for_price("What share of the fee goes to the club?", share) == []
    # a share of an amount the question gives is how that price is stated
    assert share_for_price("An invoice of EUR 900 was paid late: what is the late fee?", share) == []
    assert share_for_price("Look up the daily wetsuit rental at Orla", Value.of_number(10, "EUR")) == []
