"""The item of an enumeration the question names, and answers that do not fit the question's kind (issue 23,
p-sealed: the misses of the cover suite, bench/goal_suite_cover/). Made-up documents and wordings.

- a sentence listing several values, each with its label before or after it: the value of the item the
  question names, the sentence's lead and a shared "per month" belonging to every item;
- a clock time of a "check-in from ..., check-out by ..." sentence, the end of a table's opening hours for
  "when does it close";
- "how many sessions" never answered by "6 credits"; "how long does the ride take" never by "every 15
  minutes"; "how often" never by a share; "in which month" by the month's name;
- "a 3-year warranty" read as a period;
- a year only a document's title states does not make its reference-only section current.
"""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.fit import bare_clock_count, misfit, unnamed_row
from ioa_p2p.planning.values import Value

from .test_retrieval import ask, hashing_adapter

CLUB = """# Harrowgate Pet Practice: fees 2026

## Care plans

Care plan: dogs EUR 15.20, cats EUR 10.40, ferrets EUR 7.90 per month.

## Other charges

Cremation: EUR 80.00 for pets up to 15 kg, EUR 140.00 over 15 kg.

## Rides

Riders must be at least 16 on the day for the Century ride, 14 for the Half Century and 10 for the
Family loop.

## Storage

Photo storage costs EUR 0.15 per GB per month on Basic and Plus and EUR 0.11 per GB per month on Pro.

## Stay

Check-in from 14:00, check-out by 10:30. A free minibus leaves the station every 15 minutes; the ride
takes 12 minutes.

## Shop hours

| Day       | Hours         |
|-----------|---------------|
| Weekdays  | 08:00 - 18:30 |
| Saturday  | 10:00 - 14:00 |

## Courses

The Pottery course (P-12) is worth 6 credits. The Pottery course (P-12) runs for 10 sessions.

## Loyalty

Members get a EUR 20.00 voucher once a year in November.

## Support

The status board is refreshed every 20 minutes during an outage; 5 % of calls are answered by a robot.

## Warranty

Every kennel has a 4-year warranty from delivery. An extended plan adds 2 more years within 60 days.
"""

ALLOTMENTS = """ALLOTMENT RULES FOR THE 2026-27 YEAR

1. RENT
   1.1 Rent is EUR 0.52 per square metre per year.

FOR REFERENCE ONLY - 2025-26 RENTS (NO LONGER APPLY)
   Rent 2025-26: EUR 0.44 per square metre.
"""


async def answer_of(tmp_path: Path, question: str, text: str = CLUB) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "harrowgate.md").write_text(text)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return result.text.splitlines()[0]  # the value as shown


async def test_the_item_the_question_names_and_a_per_that_every_item_shares(tmp_path: Path) -> None:
    for question, wanted in (
        ("How much is the Harrowgate care plan per month for a cat?", "EUR 10.4"),
        ("What does the care plan cost a month for a dog at Harrowgate?", "EUR 15.2"),
        ("What does cremation cost at Harrowgate for a pet over 15 kg?", "EUR 140"),
        ("How much does photo storage cost per GB per month on Pro?", "EUR 0.11"),
    ):
        assert await answer_of(tmp_path, question) == wanted, question


async def test_the_lead_of_a_list_labels_no_item(tmp_path: Path) -> None:
    asked = "How old must riders be to enter the Half Century?"
    assert await answer_of(tmp_path, asked) == "14"


async def test_the_clock_time_of_the_item_and_the_end_of_opening_hours(tmp_path: Path) -> None:
    assert await answer_of(tmp_path, "By what time must guests check out at Harrowgate?") == "10:30"
    assert await answer_of(tmp_path, "When does the Harrowgate shop close on Saturday?") == "14:00"
    assert await answer_of(tmp_path, "When does the Harrowgate shop open on Saturday?") == "10:00"


async def test_a_count_of_another_thing_and_a_frequency_answer_nothing_asked(tmp_path: Path) -> None:
    assert await answer_of(tmp_path, "How many sessions does the Pottery course P-12 have?") == "10"
    assert await answer_of(tmp_path, "How long does the minibus ride from the station take?") == "12 min"
    assert await answer_of(tmp_path, "In which month do Harrowgate members get their voucher?") == "November"


async def test_a_hyphened_period_is_a_period(tmp_path: Path) -> None:
    assert await answer_of(tmp_path, "How long is the standard warranty on a Harrowgate kennel?") == "4 years"


async def test_a_title_year_does_not_make_reference_figures_current(tmp_path: Path) -> None:
    asked = "What is the allotment rent per square metre for 2026-27?"
    assert await answer_of(tmp_path, asked, ALLOTMENTS) == "EUR 0.52"


def test_misfits_are_named() -> None:
    five = Value.of_number(5, "", "5")
    assert misfit("How many sessions does it have?", "It is worth 5 credits.", five)
    assert misfit("How many sessions does it have?", "It runs 5 sessions.", five) is None
    assert misfit("How many permits may a household hold?", "at most 5 resident permits", five) is None
    every = Value.of_number(20, "min", "20 minutes")
    assert misfit("How long does the ride take?", "A bus leaves every 20 minutes.", every)
    assert misfit("How often does a bus leave?", "A bus leaves every 20 minutes.", every) is None
    share = Value.of_number(5, "%", "5 %")
    assert misfit("How often is the board refreshed?", "5 % of calls", share)
    assert misfit("In which month is it paid?", "EUR 20 in November", Value.of_number(20, "EUR", "EUR 20"))
    assert misfit("In which month is it paid?", "in November", Value.of_text("November")) is None


def test_misfits_of_kind_per_and_designator() -> None:
    ml = Value.of_number(2.5, "ml", "2.5 ml")
    assert misfit("What is the minimum interval between doses?", "2.5 ml four times", ml)
    days = Value.of_number(10, "days", "10 days")
    assert misfit("What is the most syrup a child may have in a day?", "keeps 10 days", days)
    assert misfit(
        "How much buttermilk is in the pancakes?", "about 2 minutes", Value.of_number(2, "min", "2 min")
    )
    share = Value.of_number(60, "%", "60 %")
    assert misfit("What is the rate per A5 flyer?", "A6 flyers cost 60 % of the A5 rate", share)
    travel = Value.of_number(75, "%", "75 %")
    assert (
        misfit("What is the per diem for the day of return?", "paid at 75 % of the daily rate", travel)
        is None
    )
    minutes = Value.of_number(55, "min", "55 minutes")
    assert misfit("How long does the Route B crossing take?", "ROUTE A crossing time 55 minutes", minutes)
    assert (
        misfit("How long does the Route B crossing take?", "ROUTE B crossing time 55 minutes", minutes)
        is None
    )
    sixty = Value.of_number(60, "", "60")
    assert misfit("How many visitor vouchers may we buy?", "at most 60 vouchers (6 books)", sixty) is None
    assert misfit("How many visitor vouchers may we buy?", "at most 60 books", sixty)
    tickets = Value.of_number(612, "", "612")
    assert (
        misfit("How many customers opened tickets during it?", "612 customers opened tickets", tickets)
        is None
    )


async def test_a_designated_line_of_a_joined_list(tmp_path: Path) -> None:
    text = (
        "TIMES\n\nLINE A   NORTH QUAY <-> MILL ISLE      crossing time 40 minutes\n"
        "LINE B   MILL ISLE <-> FARR HEAD        crossing time 15 minutes\n"
    )
    asked = "How long does the Line B crossing to Farr Head take?"
    assert await answer_of(tmp_path, asked, text) == "15 min"


def test_a_row_the_question_does_not_name_and_a_count_per_period_are_no_answer() -> None:
    science = (("Subject", "Science"), ("Year 9", "8"))
    assert unnamed_row("How many maths lessons does Year 9 have?", science)
    maths = (("Subject", "Mathematics"), ("Year 9", "7"))
    assert not unnamed_row("How many maths lessons does Year 9 have?", maths)
    van = (("Size", "M"), ("Example model", "Ford Transit Custom"), ("3-6 days", "66.00"))
    assert not unnamed_row("What is the 3-6 day rate for a size M van?", van)
    dvds = (("Item type", "DVDs and Blu-ray discs"), ("Loan period", "7 days"))
    assert not unnamed_row("How long can I keep a DVD?", dvds)
    banded = (("Weight", "5 to 9 kg"), ("Dose", "4 ml"))
    assert not unnamed_row("What is the dose for a 7 kg child?", banded)
    table = "Mathematics | 8 | 7 \0 Subject Year 8 Year 9 CURRICULUM: LESSONS PER FORTNIGHT"
    assert bare_clock_count("How many hours of maths does Year 9 get?", Value.of_number(7), table)
    runtime = "10 | 31 \0 Ambient (°C) Runtime (h)"
    assert not bare_clock_count("For how many hours does it run at 10 °C?", Value.of_number(31), runtime)
