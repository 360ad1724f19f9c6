"""Issue 23 (p-retr): the right row and the right span in made-up documents (none from a goal suite).

- a question that names a column whose header starts with "first" / "last" ("last entry") reads the row it
  names, not the table's first or last row;
- a price list with dot leaders ("Rope, per metre ........ EUR 2.10") is a key and its value, not two facts;
- an enumeration whose items are named before their numbers ("Sprint 900 places, Relay 1,200, 5K 2,500")
  gives the number of the item named, a name such as "5K" being no number;
- a sentence of several sizes gives the size of the thing named, with the unit the sentence spells out
  ("125 square metres": m²).
"""

from __future__ import annotations

from pathlib import Path

from .test_retrieval import ask, hashing_adapter

QUARRY = """# Stonebeck Quarry Museum: visiting

## Opening hours

| Day | Open | Close | Last entry |
|-----|------|-------|------------|
| Tuesday to Friday | 10:00 | 17:00 | 16:00 |
| Saturday and Sunday | 09:00 | 18:30 | 17:15 |
| Late opening (last Friday of the month) | 10:00 | 22:00 | 21:00 |

## Shop

SHOP (open on weekends)
   Climbing rope, per metre ............... EUR 2.10
   Fossil kit, boxed ...................... EUR 14.50
   Hard hat, child size ................... EUR 9.00

## Site rent

Pitch rent is EUR 0.60 per square metre per season.

## Races

Entries close on 1 May or when a race is full (Sprint 900 places, Relay 1,200, 5K 2,500).

## Pens

A large pen measures 40 square metres. A small pen measures 18 square metres. A kid pen measures 6 square
metres.
"""


def make(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "stonebeck.md").write_text(QUARRY)
    return docs


async def value_of(tmp_path: Path, question: str) -> dict[str, object]:
    result = await ask(hashing_adapter(make(tmp_path)), question)
    assert result.ok, (result.text, result.data.get("query"))
    value = result.data["value"]
    assert isinstance(value, dict)
    return value


async def test_last_entry_is_a_column_of_the_row_the_question_names(tmp_path: Path) -> None:
    for question in (
        "What time is last entry at the Stonebeck Quarry Museum on a Sunday?",
        "When is last entry on Saturday at Stonebeck?",
    ):
        assert (await value_of(tmp_path, question))["text"] == "17:15", question
    assert (await value_of(tmp_path, "What time is last entry on a Wednesday at Stonebeck?"))[
        "text"
    ] == "16:00"


async def test_a_dot_leader_joins_an_item_and_its_price(tmp_path: Path) -> None:
    for question, number in (
        ("Get the price of climbing rope per metre from the Stonebeck shop", 2.10),
        ("How much does a boxed fossil kit cost in the Stonebeck shop?", 14.50),
        ("What does a child size hard hat cost at Stonebeck?", 9.00),
    ):
        value = await value_of(tmp_path, question)
        assert (value["value"], value["unit"]) == (number, "EUR"), question


async def test_an_enumeration_gives_the_number_of_the_item_named_before_it(tmp_path: Path) -> None:
    for question, number in (
        ("How many places does the Stonebeck 5K have?", 2500),
        ("Find how many places the Stonebeck Relay has", 1200),
        ("How many places are there in the Sprint at Stonebeck?", 900),
    ):
        assert (await value_of(tmp_path, question))["value"] == number, question


async def test_the_size_of_the_thing_named_with_its_spelled_unit(tmp_path: Path) -> None:
    for question, number in (
        ("How big is a small pen at Stonebeck?", 18),
        ("What size is a large pen at Stonebeck?", 40),
    ):
        value = await value_of(tmp_path, question)
        assert (value["value"], value["unit"]) == (number, "m²"), question
