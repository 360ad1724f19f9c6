"""Issue 23 (p-lookup): one charge asked is read alone. A venue's name the question writes ("Pennyfold
Barn") names no item of its bill (the "Barn, per hour" row), a quantity the chosen row is for already
("repainting one room") brings in no charge per room, and hours the question excludes ("outside Mon-Fri
08:00-18:00") are not the row of those hours (adapters/retrieval/bill.py, facts.py). Made-up documents."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.bill import consumed, question_words
from ioa_p2p.adapters.retrieval.facts import Fact, Scorer

from .test_retrieval import ask, hashing_adapter

PRICES = """PENNYFOLD EVENTS - HIRE CHARGES (Pennyfold Barn, 2027)

  Barn, per hour (minimum 3 hours)           GBP 40.00
  Glassware, per guest                       GBP 0.80
  Cleaning after the event (flat)            GBP 50.00
"""

SCHEDULE = """# Weirside Lettings - charges to tenants 2027

| Item                                   | Charge (GBP) |
|----------------------------------------|-------------:|
| Replacement door key (each)            |        35.00 |
| Lock-out call-out, Mon-Fri 08:00-18:00 |        75.00 |
| Lock-out call-out, any other time      |       125.00 |
| Professional cleaning, per hour        |        26.00 |
| Carpet shampoo, per room               |        38.00 |
| Repainting one room (walls only)       |       190.00 |
"""


def test_a_venue_name_the_folder_partly_states_names_no_item() -> None:
    common, headed = {"pennyfold", "event"}, "pennyfold events - hire charges (pennyfold barn, 2027)"
    asked = question_words("How much is glassware per guest at Pennyfold Barn?", common, headed)
    assert "barn" not in asked and "glassware" in asked
    # after the business's possessive, a name is its own thing ("Pennyfold's Night Saver" tariff)
    assert "night" in question_words("On Pennyfold's Night Saver tariff, what do we pay?", common, headed)
    # a name no heading states whole may name a room of the venue ("Pennyfold Long Room")
    assert "room" in question_words("What does the Pennyfold Long Room cost?", common, headed)


def test_hours_that_bound_a_price_are_no_quantity_used() -> None:
    assert consumed("a call-out outside Monday-Friday 08:00-18:00?") == []
    assert [q.text for q in consumed("we hired it 08:00-18:00 on Monday")] == ["08:00-18:00"]


def test_the_row_of_excluded_hours_is_weighed_down() -> None:
    rows = [
        Fact(
            "s.txt",
            5,
            "Lock-out call-out, Mon-Fri 08:00-18:00 | 75.00",
            "",
            (("ITEM", "Lock-out call-out, Mon-Fri 08:00-18:00"),),
        ),
        Fact(
            "s.txt",
            6,
            "Lock-out call-out, any other time | 125.00",
            "",
            (("ITEM", "Lock-out call-out, any other time"),),
        ),
    ]
    scorer = Scorer("the lock-out call-out charge outside Mon-Fri 08:00-18:00", rows)
    assert scorer.excludes(rows[0]) and not scorer.excludes(rows[1])
    assert scorer.score(rows[1]) > scorer.score(rows[0])


async def test_one_charge_is_read_alone(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "pennyfold-events").mkdir(parents=True)
    (docs / "pennyfold-events" / "hire-charges.txt").write_text(PRICES)
    (docs / "weirside-lettings").mkdir()
    (docs / "weirside-lettings" / "charges.txt").write_text(SCHEDULE)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("How much is glassware per guest at Pennyfold Barn?", 0.8),
        ("What does Weirside Lettings charge for repainting one room?", 190),
        ("What is Weirside Lettings' lock-out call-out charge outside Monday-Friday 08:00-18:00?", 125),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)


def test_names_the_question_excludes_are_no_match_and_their_fact_is_not_it() -> None:
    facts = [
        Fact("h.md", 40, "The nightly hotel allowance is EUR 115 per night including taxes.", ""),
        Fact("h.md", 41, "In Oslo, Zurich and Dublin the allowance is EUR 160 per night.", ""),
    ]
    scorer = Scorer("What is the nightly hotel allowance outside Oslo, Zurich and Dublin?", facts)
    assert scorer.excluded == {"oslo", "zurich", "dublin"}
    assert scorer.excludes(facts[1]) and not scorer.excludes(facts[0])
    assert scorer.score(facts[0]) > scorer.score(facts[1])
    assert not Scorer("What is the nightly hotel allowance in Oslo?", facts).excluded


async def test_the_fact_outside_the_excluded_names_answers(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brindle-travel-policy.md").write_text(
        "# Brindle Logistics travel policy\n\n## Hotels\n\n"
        "The nightly hotel allowance is **EUR 115 per night** including taxes. "
        "In Oslo, Zurich and Dublin the allowance is **EUR 160 per night**.\n\n"
        "## Meals\n\nBreakfast is covered when the hotel rate excludes it.\n"
    )
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "What is Brindle's nightly hotel allowance outside Oslo, Zurich and Dublin?")
    assert result.ok, result.text
    assert result.data["value"].get("value") == 115, result.text
