"""Issue 23 (p-rules, class 7): "what time does the first bus get to the stadium?" over a document that
states the departures and how long the ride takes: the departure looked up plus the journey
(planning/clock.py :func:`journey_arrival`), never the departure itself; an arrival the documents state
stays as it is. Made-up documents and wordings."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP
from ioa_p2p.planning.clock import CLOCK, render_clock
from ioa_p2p.planning.derive import DERIVE, derive_expression, derived_plan
from ioa_p2p.planning.values import Value

BUS = (
    "## Shuttle\n\nA free bus runs from the Orla Hotel to the stadium every 15 minutes from 08:10 to 10:00,"
    " and back from 17:30 to 19:00. The ride takes 25 minutes.\n"
)
TIMETABLE = "Pellin | dep | 08:10 | 09:40\nOstra | arr | 08:55 | 10:25\nThe crossing takes 45 minutes.\n"


@pytest.mark.parametrize(
    ("question", "departure", "arrival"),
    [
        ("What time does the first bus from the Orla Hotel get to the stadium?", "08:10", "08:35"),
        ("When does the last bus back from the stadium reach the Orla Hotel?", "19:00", "19:25"),
    ],
)
def test_a_departure_plus_the_journey_the_documents_state(
    question: str, departure: str, arrival: str
) -> None:
    plan = derived_plan(question)
    assert plan is not None and [s.kind for s in plan] == [LOOKUP, CALC] and plan[1].template == DERIVE
    derived = derive_expression(question, Value.of_text(departure).with_evidence((BUS,)))
    assert derived is not None and derived[1] == CLOCK, derived
    left, _, right = derived[0].partition(" + ")
    assert render_clock(float(left) + float(right)) == arrival


def test_an_arrival_the_documents_state_is_not_moved_on() -> None:
    question = "What time does the first ferry from Pellin arrive in Ostra?"
    derived = derive_expression(question, Value.of_text("08:55").with_evidence((TIMETABLE,)))
    assert derived is not None and " + " not in derived[0], derived
