"""Timetable connections (planning/connections.py): trips read from a leaflet's lines and a table's rows,
the change time the document states, and the three connection questions, through the planner's
derivation too.

The leaflet, the table and every question are made up for this test.
"""

from __future__ import annotations

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import plan_request
from ioa_p2p.planning.clock import render_clock
from ioa_p2p.planning.connections import Timetable, asks_connection, connection_expression, timetable_of
from ioa_p2p.planning.derive import DERIVE, derive_expression, derive_missing
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.values import Value

LEAFLET = """\
FENWICK VALLEY BUS  +  LOCH ARRAN BOAT
Winter timetable

BUS   Fenwick -> Arran Jetty          every journey takes 42 minutes

  dep. Fenwick      07:10   08:30   10:15   13:40

BOAT  Arran Jetty -> Innis Mor        every crossing takes 35 minutes

  dep. Arran Jetty  08:00   09:30   11:45   14:30   16:00

CHANGING AT ARRAN JETTY
  The walk from the bus stop to the jetty takes 6 minutes. Boarding closes 4 minutes
  before each departure.
"""

TABLE = """\
# Tollan Sound boats

Boarding closes 10 minutes before departure.

| Boat | Tollan | Brae | Esk |
|------|--------|------|-----|
| T1   | 07:00  | 08:20 | 09:05 |
| T2   | 12:00  | 13:20 | 14:05 |

| Boat | Esk   | Brae  | Tollan |
|------|-------|-------|--------|
| E1   | 10:00 | 10:45 | 12:05 |
| E2   | 12:30 | 13:15 | 14:35 |
| E3   | 17:00 | 17:45 | 19:05 |
"""


def _table(text: str) -> Timetable:
    """The timetable of a document as the retrieval sends its records (sentences joined across lines)."""
    return timetable_of(records_from_data(records_data(read_document("leaflet.txt", text))))


def _answer(question: str, text: str) -> str:
    found = connection_expression(question, _table(text))
    assert found is not None, question
    return render_clock(eval(found[0], {"max": max}))  # noqa: S307 - a made-up expression of numbers


def test_a_leaflet_reads_as_trips_and_a_change_time() -> None:
    table = _table(LEAFLET)
    assert table.change == 6 + 4
    assert (("Fenwick", 7 * 60 + 10), ("Arran Jetty", 7 * 60 + 52)) in table.trips
    assert (("Arran Jetty", 9 * 60 + 30), ("Innis Mor", 10 * 60 + 5)) in table.trips


def test_the_next_departure_after_the_arrival_and_the_change() -> None:
    # 08:30 + 42 = 09:12, + 10 = 09:22: the 09:30 boat, 35 minutes: 10:05
    assert _answer("If I catch the 08:30 bus from Fenwick, when do I get to Innis Mor?", LEAFLET) == "10:05"
    # 07:10 + 42 = 07:52, + 10 = 08:02: the 08:00 boat has gone, the 09:30 it is
    taking = "Taking the 07:10 bus out of Fenwick, what time will I reach Innis Mor?"
    assert _answer(taking, LEAFLET) == "10:05"


def test_the_latest_departure_that_makes_a_given_connection() -> None:
    question = "What's the latest bus from Fenwick that still gets me onto the 11:45 boat?"
    assert _answer(question, LEAFLET) == "10:15"  # 10:15 + 42 + 10 = 11:07; 13:40 is too late


def test_a_return_after_a_stay_from_a_table_of_trips() -> None:
    document = read_document("boats.md", TABLE)
    records = records_from_data(records_data(document))
    question = (
        "I arrive at Brae on the boat that left Tollan at 07:00 and stay 2 hours. "
        "What time is the first return boat from Brae I can catch?"
    )
    assert asks_connection(question)
    found = connection_expression(question, timetable_of(records))
    assert found is not None
    # 08:20 + 120 + 10 = 10:30: E1 left Brae at 10:45 (towards Tollan); an outward T2 would not be a return
    assert render_clock(eval(found[0], {"max": max})) == "10:45"  # noqa: S307


def test_the_planner_derives_a_connection_and_refuses_one_the_timetable_cannot_make() -> None:
    question = "If I catch the 08:30 bus from Fenwick, when do I get to Innis Mor?"
    plan = plan_request(question)
    assert [s.template for s in plan.steps][-1] == DERIVE
    document = read_document("leaflet.txt", LEAFLET)
    looked = Value.of_text("08:30").with_records(records_from_data(records_data(document)))
    derived = derive_expression(question, looked)
    assert derived is not None and render_clock(eval(derived[0], {"max": max})) == "10:05"  # noqa: S307
    elsewhere = "If I catch the 08:30 bus from Fenwick, when do I get to Glenbrae?"  # no trip reaches it
    assert derive_expression(elsewhere, looked) is None
    missing = derive_missing(elsewhere, looked)
    assert missing is not None and "connection" in missing.what


ROUTE = """\
# Brook Valley buses: route 4

Departures from Lowford (Monday to Friday): 06:50, 09:20, 11:35.

Journey times: Lowford to Mill End takes 20 minutes; Mill End to Hatherby takes 45 minutes.
"""

SAILINGS = """\
SATURDAY SAILINGS

  Pell dep.      Garra dep.
  08:00          09:15
  12:30          13:45
"""


def test_one_route_of_legs_stated_together_and_no_trip_from_a_row_of_departures() -> None:
    assert _answer("If I catch the 09:20 bus from Lowford, when do I reach Hatherby?", ROUTE) == "10:25"
    assert (("Pell dep.", 8 * 60), ("Garra dep.", 9 * 60 + 15)) not in _table(SAILINGS).trips
    assert (
        connection_expression(
            "If I catch the 08:00 boat from Pell, when do I get to Garra?", _table(SAILINGS)
        )
        is None
    )


def test_other_time_questions_are_no_connections() -> None:
    assert not asks_connection("What time does the first boat leave Arran Jetty?")
    assert not asks_connection("How long does the crossing to Innis Mor take?")
    assert connection_expression("When does the 08:30 bus get in?", _table(LEAFLET)) is None
