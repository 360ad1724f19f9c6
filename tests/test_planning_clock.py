"""Clock times as a planner value (planning/clock.py): arithmetic that produces a time, end to end over
made-up requests and a made-up ferry guide."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, LOOKUP, StepOutcome, conclusion, describe, plan_request, value_of
from ioa_p2p.planning.clock import CLOCK, clock_expression, clock_times, durations, render_clock
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.expr import check_expression
from ioa_p2p.planning.values import Value, format_number

GUIDE = (
    "The crossing from Wenlow Pier to Tarn Island takes 1 hour 40 minutes. "
    "Boarding closes at the pier kiosk at 06:00 sharp."
)


def _answer(goal: str) -> str:
    """The conclusion of a goal whose plan is one calculation, the calculator played by Python."""
    plan = plan_request(goal)
    assert len(plan.steps) == 1 and plan.steps[0].kind == CALC
    step = plan.steps[0]
    task = describe(step, {})
    expression = task.removeprefix("Calculate ").strip()
    assert check_expression(expression), task
    result = eval(expression, {"__builtins__": {}})  # numbers and + - only (checked above)
    value = value_of(f"{expression} = {result}", None, step.template)
    text, _ = conclusion(plan, {1: StepOutcome(step, "calculator", value, "completed")})
    head, _, how = text.partition("\n\nHow:\n")
    assert "min after midnight)" in how  # the step's own number, shown as the time it is
    return head


def test_clock_times_read_the_common_forms() -> None:
    assert clock_times("leave at 08:40, back by 7.15 pm or 11 am; noon; midnight") == [520, 1155, 660, 720, 0]
    assert clock_times("version 2.3.4 costs 12.50 EUR") == []
    assert clock_times("13:75 and 25:10") == []


def test_durations_are_minutes() -> None:
    assert durations("a drive of 2 hours 35 minutes and a 20-minute stop") == [155, 20]
    assert durations("1.5 hours, an hour, half an hour, 95 min") == [90, 60, 30, 95]


def test_render_states_the_day_roll_over() -> None:
    assert render_clock(675) == "11:15"
    assert render_clock(1465) == "00:25 (next day)"
    assert render_clock(-30) == "23:30 (previous day)"
    assert render_clock(3000) == "02:00 (+2 days)"
    assert format_number(805, CLOCK) == "13:25"


def test_a_time_plus_the_durations_the_request_states() -> None:
    assert _answer("If I set off at 08:40 and the ride takes 2 hours 35 minutes, what time do I arrive?") == (
        "The answer is 11:15."
    )
    assert _answer("A coach leaves at 22:50 and the trip takes 95 minutes. When does it get in?") == (
        "The answer is 00:25 (next day)."
    )
    assert _answer("When do we arrive if we leave at 7 pm, stop for 20 minutes and drive 1.5 hours?") == (
        "The answer is 20:50."
    )


def test_a_latest_start_subtracts() -> None:
    goal = (
        "The hike takes 3 hours and I must be back at the hut by 16:30. What is the latest time I can start?"
    )
    assert _answer(goal) == "The answer is 13:30."


@pytest.mark.parametrize(
    "question",
    [
        "What time is the first bus after 08:40 if I stay 2 hours?",  # an item of a schedule
        "What time is it in Lisbon when it is 14:00 in Paris?",  # no duration
        "The meeting runs 45 minutes from 09:00 to 09:45. When does it end?",  # two clock times
        "How long does the drive take if I leave at 08:40?",  # asks a duration, not a time
    ],
)
def test_questions_that_do_not_close_by_clock_arithmetic(question: str) -> None:
    assert clock_expression(question) is None


def test_a_duration_the_documents_state_moves_the_requests_time_on() -> None:
    q = (
        "A private launch leaves Wenlow Pier at 09:10 and takes the same time as the crossing to Tarn"
        " Island. At what time does it arrive?"
    )
    plan = plan_request(q)
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC]
    found = Value.of_number(100, "min")
    assert derive_expression(q, found) == ("550 + 100", CLOCK)
    as_text = Value.of_text("12:05").with_evidence(
        (GUIDE,)
    )  # a row's time looked up; the passage has the span
    assert derive_expression(q, as_text) == ("550 + 100", CLOCK)


def test_a_time_looked_up_answers_when_nothing_moves_it() -> None:
    q = "At what time does the kiosk close, leaving from 09:10 on the pier? The crossing takes how long?"
    found = Value.of_text("06:00")
    assert derive_expression(q, found) == ("360 * 1", CLOCK)
    assert derive_expression(q, Value.of_text("no times here")) is None
