"""Issue 23 (coordinator): values read by what the question asks of a fact: "how long is" a length or a
duration, whichever the document states (planning/answer_types.py); the upper or lower end of a range for a
maximum or minimum (number_span.range_ends); the labelled field of a line of several ("**Staging:** 8:00 ·
**Judging:** 11:00") that the question names, its day when it states no clock time, "2:00 pm" read as 14:00
(extract.py; docmodel/reader.py reads each field as a record); prose that starts left of a space-aligned table
is no wrapped cell of its last row (tables.py). Made-up documents and requests."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.agreement import designators
from ioa_p2p.adapters.retrieval.docmodel.reader import read_document
from ioa_p2p.adapters.retrieval.tables import table_at
from ioa_p2p.planning.answer_types import answer_type, hour_or_day
from ioa_p2p.planning.dimensions import asked_dimensions

from .test_retrieval import ask, hashing_adapter

ROOMS = """# Quarrybank Climbing Wall: sessions

Q: What sessions do you run?
A: Three sessions:
   * Taster - 2 to 6 climbers, 45 minutes, age 7+
   * Improver - 3 to 8 climbers, 90 minutes, age 10+
   * Lead course - 2 to 4 climbers, 180 minutes, age 16+

Q: What does it cost?
A: Price per climber by group size:
      climbers   weekday   weekend
      1-3        £18       £21
      4-8        £15       £17
   The lead course costs £12 per climber more than the table because it runs three hours.
"""

FAIR = """# Brackley Cheese Fair 2026

**Date:** Saturday 19 September 2026, Brackley Market Square
**Setup:** 7:00-9:30 am · **Judging:** 10:15 · **Gates open to visitors:** 1:30 pm
**Stall bookings close:** Monday 31 August 2026, by post or online
"""


def test_how_long_is_a_length_or_a_duration() -> None:
    wanted = answer_type("How long is a Taster session at Quarrybank?")
    assert "min" in wanted.units and "km" in wanted.units
    assert answer_type("How long does the glue take to cure?").kind == "duration"


def test_prose_left_of_a_table_is_not_its_last_rows_cell() -> None:
    lines = ROOMS.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("climbers"))
    table = table_at(lines, start)
    assert table is not None
    _header, rows, _used = table
    assert rows[-1][1] == ["4-8", "£15", "£17"]


def test_each_labelled_field_of_a_line_is_a_record() -> None:
    records = read_document("fair.md", FAIR).records
    keys = [r.key for r in records if r.kind == "field"]
    assert keys[:5] == ["Date", "Setup", "Judging", "Gates open to visitors", "Stall bookings close"]


async def test_a_range_end_a_duration_and_a_labelled_field(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "quarrybank.txt").write_text(ROOMS)
    (docs / "fair.md").write_text(FAIR)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("How long is an Improver session at Quarrybank?", 90.0),
        ("What is the maximum number of climbers on a Quarrybank Lead course?", 4.0),
        ("What is the minimum group size for the Quarrybank Improver session?", 3.0),
        ("What does a group of 5 pay per climber at Quarrybank on a weekend?", 17.0),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)
    for question, text in (
        ("What time does judging start at the Brackley Cheese Fair?", "10:15"),
        ("What time do the gates open to visitors at the Brackley Cheese Fair?", "13:30"),
        ("When do stall bookings close for the Brackley Cheese Fair?", "2026-08-31"),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        value = result.data["value"]
        assert text in (value.get("text"), value.get("iso"), value.get("value")), (question, result.text)


def test_when_may_be_answered_by_a_day_what_time_only_by_a_clock() -> None:
    assert "date" in asked_dimensions("When do stall bookings close for the Brackley Cheese Fair?")
    assert "date" not in asked_dimensions("What time do the gates open at the Brackley Cheese Fair?")
    assert hour_or_day("When does the ferry leave?")
    assert not hour_or_day("When is the ferry's departure time?")


PRICES = """# Ellerby Studios: hire and prizes

Rooms
- Rehearsal room beyond your included hours: EUR 14 per hour (the Live Room, up to 9 players: EUR 27 per hour)

Minimum booking
- off peak: 1
- peak: 3

| Category | Entry | 1st | 2nd | 3rd |
|---|---|---|---|---|
| 4 | Solo piano, any style | £40 | £25 | £10 |
| 5 | Duet, own arrangement | £60 | £35 | £15 |
"""


async def test_brackets_ordinals_and_contrary_keys(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ellerby.md").write_text(PRICES)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("What is the hourly rate for Ellerby's Live Room?", 27.0),
        ("What does an Ellerby rehearsal room cost per hour beyond your included hours?", 14.0),
        ("What is the minimum booking at Ellerby in a peak period?", 3.0),
        ("What is the minimum booking at Ellerby off peak?", 1.0),
        ("What's the second prize in category 5 at Ellerby?", 35.0),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)


LETTER = """Brindle Lane Primary School
Year 3 farm visit to Hollins Farm

Dear parents and carers,

Year 3 will visit Hollins Farm on Thursday 14 May 2026. The total cost is £18 per child.
"""


async def test_a_capitalised_unit_before_its_number_is_a_designator(tmp_path: Path) -> None:
    assert designators("How much does the Year 4 farm visit cost per child?") == [("Year", "4")]
    assert designators("What is the fee in year 4 of the lease?") == []  # a quantity's unit, lower case
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "farm-letter.txt").write_text(LETTER)
    adapter = hashing_adapter(docs)
    right = await ask(adapter, "How much does the Year 3 farm visit to Hollins Farm cost per child?")
    assert right.ok and right.data["value"].get("value") == 18.0, right.text
    other = await ask(adapter, "How much does the Year 4 farm visit to Hollins Farm cost per child?")
    assert not other.ok and "Year 4" in other.text, other.text
