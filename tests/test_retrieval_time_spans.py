"""Issue 23 (p-probe2): a span of two clock times answers "when does it end / close / until when" with its
end and "when does it open / start" with its start (adapters/retrieval/picks.py ``range_end``), over a
made-up document; a question that asks neither keeps the nearest time."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.adapters.retrieval.picks import range_end

from .test_retrieval import ask, hashing_adapter

RINK = """# Calder Ice Rink -- visitor notes

Public skating runs between 10:30 and 16:45 on weekdays.
The cafe is open 09:00-18:00 every day.
Skate hire closes 30 minutes before the last session ends.
"""


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("What time does public skating end on weekdays at Calder?", "16:45"),
        ("At what time do the weekday public skating sessions at Calder finish?", "16:45"),
        ("When does public skating start at Calder Ice Rink?", "10:30"),
        ("What time does the Calder rink cafe close?", "18:00"),
        ("When does the cafe at Calder open?", "09:00"),
    ],
)
async def test_a_time_span_answers_with_the_end_the_question_asks_for(
    tmp_path: Path, question: str, want: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "calder-rink.md").write_text(RINK)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.data["value"]["text"] == want, result.text


def test_only_a_question_about_one_end_picks_it() -> None:
    text = "Deliveries are accepted from 06:15 to 11:40."
    assert range_end("When do deliveries stop?", text) == (text.index("11:40"), text.index("11:40") + 5)
    assert range_end("From what time are deliveries accepted?", text) == (
        text.index("06:15"),
        text.index("06:15") + 5,
    )
    assert range_end("What are the delivery hours?", text) is None  # neither end: the whole span is asked
    assert range_end("When does it open and when does it close?", text) is None  # both
    assert range_end("When does it close?", "Closes at 17:00 on Fridays.") is None  # no span


def test_the_first_service_of_a_run_is_its_start_and_a_shuttle_asks_no_end() -> None:
    """ "The first minibus" of "every 15 minutes from 06:50 to 08:05" is 06:50; "shuttle" is no "shut"."""
    text = "A minibus runs from Harlow Lodge to the campus every 15 minutes from 06:50 to 08:05."
    start = range_end("When does the first minibus from Harlow Lodge reach the campus?", text)
    assert start is not None and text[start[0] : start[1]] == "06:50"
    shuttle = "Guests take the hotel shuttle between 06:50 and 08:05."
    assert range_end("Which hotel shuttle goes to the campus?", shuttle) is None
    last = range_end("When does the last shuttle leave?", shuttle)  # "last": neither end asked
    assert last is None
