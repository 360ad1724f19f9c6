"""Issue 23 (p-natural5): terms stated once for many charges, read against the asker's situation
(planning/table_terms.py, planning/ruled.py). A table caption's minimum quantity binds each of its rows (the
alternative whose condition the question meets); a surcharge whose own sentence frees what the question
names is left out; "and only need" names no other charge. Documents and wordings are made up here."""

from __future__ import annotations

import math
from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.anchored import anchored_expression
from ioa_p2p.planning.records import MINIMUM, DocRecords, records_from_data
from ioa_p2p.planning.rule_fit import words_of
from ioa_p2p.planning.ruled import ruled_expression
from ioa_p2p.planning.table_terms import caption_minimums, frees
from ioa_p2p.planning.values import Value

ROOMS = """\
Fernside Arts Centre                         Room hire 2031

Table 2. Room rates (minimum booking 3 hours; 4 hours on Sundays)

  Room                    Members        Visitors
                          per hour       per hour
  Blue Studio (30 seats)  £14.00         £21.00
  Dance Room (60 seats)   £19.00         £28.50

Lighting surcharge: £3.00 per hour on the Dance Room and the foyer (the Blue Studio is lit at no
extra charge).

EXTRAS
  Piano (tuned, booking only) .......... £12 per session
  Late locking after 23:00 (members only) ..... £30 per half hour or part
"""


def _records(text: str) -> DocRecords:
    records = records_from_data(records_data(read_document("rates.txt", text)))
    assert records is not None
    return records


def _records_md(text: str) -> DocRecords:
    records = records_from_data(records_data(read_document("lockers.md", text)))
    assert records is not None
    return records


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_a_caption_minimum_binds_a_row_and_only_names_no_extra_charge() -> None:
    q = "We're members and only need the Blue Studio for two hours on a Wednesday. What will we be charged?"
    assert _value(ruled_expression(q, _records(ROOMS), (), 14.0)) == 42  # 3 hours at least, nothing added


def test_the_caption_alternative_whose_condition_the_question_meets() -> None:
    q = "As members we want the Blue Studio for 2 hours on a Sunday. What's the charge?"
    assert _value(ruled_expression(q, _records(ROOMS), (), 14.0)) == 56  # 4 hours on Sundays


def test_a_longer_hire_is_charged_as_booked_with_the_surcharge_its_room_pays() -> None:
    q = "As members we want the Dance Room for 5 hours on a Tuesday. What's the charge?"
    assert _value(ruled_expression(q, _records(ROOMS), (), 19.0)) == 19 * 5 + 3 * 5


def test_a_minimum_is_added_only_to_the_rows_under_the_caption() -> None:
    words = words_of("the Blue Studio on a Monday")
    records = _records(ROOMS + "\nPiano tuning ........ £20 per hour\n")
    rows = {r.record for r in caption_minimums(records, words) if r.kind == MINIMUM and r.number == 3}
    assert len(rows) == 3  # the caption's own record and the two rows, not the later price
    assert all(
        r.kind != MINIMUM for r in caption_minimums(_records(ROOMS.replace("(minimum", "(from")), words)
    )


def test_a_sentence_frees_what_it_lists_when_the_question_names_it() -> None:
    heating = "Heating: £2 per hour on the Barn (the Loft and the Snug are heated at no extra charge)."
    assert frees(heating, words_of("the Snug for an afternoon"))
    assert frees(heating, words_of("the Loft"))
    assert not frees(heating, words_of("the Barn for an afternoon"))
    assert frees("Towels £1 each, except for members of the swim club.", words_of("swim club members"))
    assert not frees("Towels £1 each, except for members of the swim club.", words_of("a visitor"))
    assert frees("The levy does not apply to school groups.", words_of("our school group"))


LOCKERS = """\
# Brightwater Lido: locker hire

| Locker     | Per day  |
|------------|----------|
| Small      | EUR 2.00 |
| Large      | EUR 3.50 |

Lockers are hired by the day.
Registered swimming clubs and lifeguard trainees are never charged locker fees.
"""


def test_an_exemption_holds_only_for_a_class_the_question_names_by_most_of_its_words() -> None:
    def fee(question: str) -> float:
        found = replace(Value.of_number(3.5, "EUR"), records=_records_md(LOCKERS))
        got = anchored_expression(question, found)
        assert got is not None, question
        return _value(got)

    assert fee("Our registered swimming club needs a large locker for 2 days. What are the locker fees?") == 0
    assert (
        fee("I'm at the lido with my book club and need a large locker for 2 days. What are the fees?") == 7
    )
