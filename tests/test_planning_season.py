"""Issue 23, class 7: a question about a time the document does not cover is refused with the period
named (planning/season.py), never answered with the nearest price. Documents and wordings are made up
here and differ from every suite's."""

from __future__ import annotations

from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import plan_request
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.refusal import dimension_refusal, refusal
from ioa_p2p.planning.season import out_of_period
from ioa_p2p.planning.values import Value

LODGE = """\
Hello and thank you for asking about Birchwater Lodge.

Our rates for this summer (from 15 May to 15 September 2027) are simple.
A twin cabin is EUR 64 per night. Canoes are EUR 12 per half day.
"""

BOATS = """\
LOCH ARRAN WATER BUS -- Timetable, Tuesdays to Sundays only

Pier Road    09:10   11:40   14:20
Island pier  09:35   12:05   14:45
"""

SEASONS = """\
# Fellside Bunkhouse prices 2027

| Season                 | Bunk per night |
|------------------------|---------------:|
| High (Jun-Sep)         | EUR 28         |
| Low (Oct-May)          | EUR 19         |
"""

YEARS = """\
CLIFFTOP HALL - HIRE RATES 2026
Main hall ............ EUR 80 per hour

2025 RATES (SUPERSEDED - for bookings confirmed before 1 January 2026 only)
Main hall ............ EUR 70 per hour
"""


def _found(text: str, number: float) -> Value:
    records = records_from_data(records_data(read_document("doc.txt", text)))
    assert isinstance(records, DocRecords)
    return replace(Value.of_number(number, "EUR"), records=records)


def test_a_month_outside_the_season_the_document_covers_is_missing() -> None:
    lacking = out_of_period(
        "What would a twin cabin at Birchwater cost for 3 nights in March?", _found(LODGE, 64)
    )
    assert lacking is not None and "March" in lacking.what and "15 May to 15 September" in lacking.why
    assert out_of_period("What would a twin cabin cost for 3 nights in July?", _found(LODGE, 64)) is None
    assert out_of_period("What would a twin cabin cost for 3 nights?", _found(LODGE, 64)) is None


def test_a_weekday_the_timetable_does_not_run_is_missing() -> None:
    lacking = out_of_period("When is the first Monday water bus from Pier Road?", _found(BOATS, 0))
    assert lacking is not None and "Monday" in lacking.what
    assert out_of_period("When is the first Saturday water bus from Pier Road?", _found(BOATS, 0)) is None


def test_a_price_label_that_holds_or_a_heading_of_the_year_keeps_the_answer() -> None:
    assert out_of_period("What is a bunk for 2 nights in November?", _found(SEASONS, 19)) is None
    assert out_of_period("What is the main hall for 3 hours on 4 March 2026?", _found(YEARS, 80)) is None


def test_the_refusal_paths_name_the_missing_period() -> None:
    q = "What would a twin cabin at Birchwater Lodge cost for 3 nights in March?"
    plan = plan_request(q)
    last = plan.steps[-1]
    values = {s.index: _found(LODGE, 64) for s in plan.steps if s.index != last.index}
    lacking = refusal(last, values) if last.needs else dimension_refusal(last, _found(LODGE, 64))
    assert lacking is not None and "March" in lacking.what
