"""Issue 23 (p-natural5): a minimum number of units in a rate's own line raises the count the rate is
charged for (planning/own_minimum.py; planning/compose.py applies it to the calculator's task).
Wordings are made up here and differ from every suite's."""

from __future__ import annotations

from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.own_minimum import at_least_stated
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.values import Value

LIST = """\
Hollow Lane Events - hire list
Folding chairs ............ £1.80 per chair, minimum 40 chairs
Trestle tables ............ £6.00 per table
Staffing .................. £16 per steward per hour, minimum 4 hours
Marquee lighting .......... £2.50 per metre (min. 10 metres)
"""


def _found(number: float) -> Value:
    records = records_from_data(records_data(read_document("hire.txt", LIST)))
    return replace(Value.of_number(number, "GBP"), evidence=(LIST,), records=records)


def test_a_count_below_the_minimum_of_what_the_rate_is_per_is_raised() -> None:
    assert at_least_stated("1.8 * 25", _found(1.8)) == "1.8 * max(25, 40)"
    assert at_least_stated("(2.5) * 6", _found(2.5)) == "(2.5) * max(6, 10)"


def test_other_minimums_and_rates_without_one_are_left_alone() -> None:
    assert at_least_stated("6 * 9", _found(6.0)) == "6 * 9"  # no minimum on its line
    assert at_least_stated("16 * 3", _found(16.0)) == "16 * 3"  # per steward per hour: 3 of which?
    assert at_least_stated("1.8 * 1", _found(99.0)) == "1.8 * 1"  # not the rate looked up
