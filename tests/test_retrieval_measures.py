"""Issue 23 (p-lookup): a size, rating or strength the question states ("a 16 A hook-up", "a 150 sq ft
unit", "a 15 mm trowel") selects the row or item stated with it; a row of another size is weighed down,
and a document that lists other sizes only is a near miss, refused (adapters/retrieval/measures.py).
Made-up documents and questions."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.agreement import near_misses
from ioa_p2p.adapters.retrieval.measures import asked_measures, conflicts, measures, unlisted_measures

from .test_retrieval import ask, hashing_adapter

PITCHES = """# Brackwater Meadow touring park - nightly charges 2027

| Item                           | Per night (GBP) |
|--------------------------------|----------------:|
| Grass pitch, two people        |           24.00 |
| Hardstanding pitch, two people |           29.00 |
| Electric hook-up (6 A)         |            4.50 |
| Electric hook-up (16 A)        |            7.25 |
| Extra adult                    |            8.00 |
| Dog                            |            2.00 |
"""

LOCKERS = """Tollgate Self Store - price sheet

Lockers are let by the month. Monthly fee by size:
  Locker 15 sq ft ........ 38.00
  Locker 35 sq ft ........ 61.00
  Locker 75 sq ft ........ 104.00
A deposit of one month's fee is taken at the start.
Insurance is charged per 1,000 GBP of cover.
"""


def test_quantities_of_physical_units_are_read_with_their_ranges() -> None:
    shown = [(m.low, m.high, m.unit) for m in measures("a 6-10 mm bead, up to 12 mm, 5 kg or more, 230 V")]
    assert shown == [(6.0, 10.0, "mm"), (0.0, 12.0, "mm"), (5.0, float("inf"), "kg"), (230.0, 230.0, "V")]
    assert [m.unit for m in measures("socket 16A; 20 sq ft; 3.5 m²")] == ["A", "ft²", "m²"]
    assert measures("GBP 2 per 10 litres, each 5 kg bag") == []  # a rate's base is no size
    assert measures("a tray of 6 a day") == []  # "a" after a number is no ampere
    covered = measures("70 mL in 10 L of water treats 200 m², one can covers 12 m²")
    assert [m.unit for m in covered] == ["ml", "L"]  # what an amount covers is a base, no size


def test_the_question_states_points_not_durations_or_money() -> None:
    assert [m.shown for m in asked_measures("the price of a 16 A hook-up for 3 days")] == ["16 A"]
    assert asked_measures("How much is a 2-hour slot for GBP 30?") == []


def test_a_fact_of_another_size_conflicts_and_one_of_a_range_does_not() -> None:
    asked = asked_measures("What does a 16 A hook-up cost a night?")
    assert [m.shown for m in conflicts(asked, "Electric hook-up (6 A) | 4.50")] == ["16 A"]
    assert conflicts(asked, "Electric hook-up (16 A) | 7.25") == []
    assert conflicts(asked, "Hook-ups from 10 to 32 A | 7.25") == []
    assert conflicts(asked, "Dog | 2.00") == []  # no size stated: nothing to disagree with
    # a band row is the band checks' own ("5 to 7.9 kg" for "a 45 kg child": agreement.py refuses it)
    assert conflicts(asked_measures("the dose for a 45 kg child"), "| 5 to 7.9 kg | 2.5 mL |") == []
    # "shorter than 8 m" bounds: it holds "a 6.5 m scull", and so does the fact that says so
    scull = "EUR 14 per metre; a boat shorter than 8 m is charged as 8 m."
    assert conflicts(asked_measures("to store a 6.5 m scull"), scull) == []
    assert unlisted_measures("to store a 6.5 m scull", scull, scull) == []


def test_a_size_no_line_states_is_a_near_miss_where_other_sizes_are_listed() -> None:
    question = "What is the monthly fee for a 50 sq ft locker at Tollgate?"
    missed = unlisted_measures(question, LOCKERS, "Locker 35 sq ft ........ 61.00")
    assert [q.shown for q in missed] == ["50 sq ft"]
    assert [q.kind for q in near_misses(question, LOCKERS, "tollgate/prices.txt", "A deposit ...")] == [
        "quantity"
    ]  # the lines list 15, 35 and 75 sq ft beside "locker": whatever fact was read, 50 is none of them
    assert unlisted_measures("the fee for a 35 sq ft locker", LOCKERS, "Locker 35 sq ft .. 61.00") == []
    # a size the document's amounts cover ("treats 200 m²"): an operand to scale by, not a variant
    label = "Gravel paths: 70 mL of product in 10 L of water treats 200 m²."
    assert unlisted_measures("How much product for a 340 m² drive?", label, label) == []
    # a size of a thing the document lists by no size of that unit: nothing to refuse on
    assert unlisted_measures("the fee for a locker 2 m deep", LOCKERS, "Locker 35 sq ft .. 61.00") == []


async def test_the_row_of_the_size_asked_answers_and_an_unlisted_size_is_refused(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brackwater-charges.md").write_text(PITCHES)
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "What does Brackwater Meadow charge a night for a 16 A electric hook-up?")
    assert result.ok, result.text
    assert result.data["value"].get("value") == 7.25, result.text
    refused = await ask(adapter, "What does Brackwater Meadow charge a night for a 32 A electric hook-up?")
    assert not refused.ok and "32 A" in refused.text, refused.text
