"""Issue 23 (p-retr): the right row and the right span in made-up documents (none from a goal suite).

- a question that names a column whose header starts with "first" / "last" ("last entry") reads the row it
  names, not the table's first or last row;
- a price list with dot leaders ("Rope, per metre ........ EUR 2.10") is a key and its value, not two facts,
  and each such line is a fact of its own;
- a row keyed by a range of weekdays ("Tuesday to Friday") answers for a day inside it;
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

Pitch fee ............................. 0.75 per day
Power hook-up ......................... 3.40 per kW per season

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
    # two leader lines one under the other are two facts, each its own key and value
    for question, number in (
        ("What is the Stonebeck power hook-up charge per kW?", 3.40),
        ("How much is the pitch fee per day at Stonebeck?", 0.75),
    ):
        assert (await value_of(tmp_path, question))["value"] == number, question


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


CLINIC = """# Brackwell Animal Clinic: fees

## Extras

- Microchipping: EUR 25.00 (EUR 15.00 when done during spaying).
- Nail clipping: EUR 8.00.

## Cut-off times

Runners must reach the Dunmore summit (8.2 km) within 2 hours 40 minutes of the start and finish within
5 hours 10 minutes; the short course closes 1 hour 50 minutes after its start.
"""


async def clinic_value(tmp_path: Path, question: str) -> dict[str, object]:
    docs = tmp_path / "clinic"
    docs.mkdir(exist_ok=True)
    (docs / "brackwell.md").write_text(CLINIC)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, (result.text, question)
    value = result.data["value"]
    assert isinstance(value, dict)
    return value


async def test_an_alternative_value_in_brackets_answers_the_condition_it_names(tmp_path: Path) -> None:
    assert (await clinic_value(tmp_path, "What does microchipping cost at Brackwell?"))["value"] == 25
    for question in (
        "What is the microchip price that applies when it's done during spaying (Brackwell)?",
        "How much is microchipping at Brackwell when done during spaying?",
    ):
        assert (await clinic_value(tmp_path, question))["value"] == 15, question


async def test_a_period_of_hours_and_minutes_is_one_duration(tmp_path: Path) -> None:
    for question, minutes in (
        ("Look up the Dunmore summit cut-off (in minutes)", 160),
        ("How long does the short course stay open after its start at Dunmore?", 110),
    ):
        value = await clinic_value(tmp_path, question)
        assert (value["value"], value["unit"]) == (minutes, "min"), question


LEASE = """# Licence Agreement: Studio 9, Marlow Yard

**Licensor:** Marlow Yard Studios Ltd, 4 Quay Row, Fenbridge **Licensee:** Mr Tobias Renwick **Studio:** 9

## 1. Fees

1.1 The licence fee is EUR 640.00 per month, payable in advance.

## 2. Deposit

2.1 The Licensee pays a deposit of EUR 1,280.00 before moving in. The deposit is registered with the
national Deposit Service within 30 days of receipt.

2.2 The deposit, less any agreed deductions, is returned within **fifteen working days** after the
Licensee has handed back all keys and the final inspection is done.
"""


async def test_a_period_in_words_answers_how_soon_whatever_the_names_in_the_head(tmp_path: Path) -> None:
    docs = tmp_path / "lease"
    docs.mkdir(exist_ok=True)
    (docs / "licence.md").write_text(LEASE)
    for question in (
        "Once Mr Renwick has handed back all keys and the final inspection of Studio 9 at Marlow Yard is "
        "done, how soon must his deposit be returned?",
        "How soon is the deposit for Studio 9 at Marlow Yard returned?",
    ):
        result = await ask(hashing_adapter(docs), question)
        assert result.ok, (result.text, question)
        value = result.data["value"]
        assert (value["value"], value["unit"]) == (15, "working days"), question


RULES = """GREYWELL COMMUNITY ORCHARD - RULES 2027

1. VISITS
   1.1 The orchard is open to members from dawn to dusk. Dogs must be kept on a lead at all
       times.
   1.2 Ladders may only be used by two people together.

2. FIRES
   2.1 Fires are allowed only in the brick pit and only after 16:00, so that smoke does not
       reach the school playground next door during lessons.
   2.2 Ash is spread on the compost heaps.

Why the gate closes at dusk
The gate closes at dusk because the lane has no street lights.
"""


async def test_why_answers_with_the_purpose_of_the_rule_named(tmp_path: Path) -> None:
    docs = tmp_path / "orchard"
    docs.mkdir(exist_ok=True)
    (docs / "rules.txt").write_text(RULES)
    for question in (
        "Why does Greywell Community Orchard only allow fires after 16:00?",
        "Why are fires at the Greywell orchard allowed only in the brick pit after four?",
    ):
        result = await ask(hashing_adapter(docs), question)
        assert result.ok, (result.text, question)
        text = str(result.data["value"]["text"])
        assert "smoke does not reach the school playground" in text and "Ash" not in text, question
