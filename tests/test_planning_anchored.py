"""A charge worked out from the price the lookup found and the rules around it (planning/anchored.py,
planning/periods.py): the price's own cap, its section's "per day, at most N days", the column whose
period holds, every N-th unit free, fixed amounts and percentages whose condition the question meets, a
count of what the price is for, an exemption; end to end through the real retrieval and calculator
adapters in one process.

The documents and questions are made up for these tests (a bike hire, a cabin site, a fun run, a tool
library) and differ from every benchmark document.
"""

from __future__ import annotations

import json
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import CALC, LOOKUP, plan_request
from ioa_p2p.planning.anchored import anchored_expression
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.periods import When, asked_when, holds, period_in
from ioa_p2p.planning.persons import party_expression, party_of
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.values import Value

from .planning_e2e import answer_through_adapters

BIKES = """\
PEDALWORKS BIKE HIRE - PRICES 2026
All prices in EUR.

BIKES
  Cargo bikes: EUR 12.00 per day, at most EUR 60.00 per rental.
  E-bikes: EUR 20.00 per day, at most EUR 110.00 per rental.

ACCESSORIES (per day, at most 5 days charged per hire)
  Helmet                 EUR 3.00
  Pannier bags           EUR 4.50
"""

CABINS = """\
Brackenfold Cabins: rates 2026
==============================

Cabin rates per cabin per night (EUR)
-------------------------------------

==============  ============================  ======================  ==============
Cabin           Off-peak (Jan-Apr, Oct-Dec)   Peak (May-Sep)          Sleeps at most
==============  ============================  ======================  ==============
Hut             55                            80                      2
Lodge           90                            130                     6
==============  ============================  ======================  ==============

Stays of 5 nights or more get the 5th night and every 5th night after it free.
"""

FUN_RUN = """\
# Riverbend 10K 2027: entry

## Entry fees

| Race      | Early (until 31 Jan 2027) | Standard (1 Feb - 31 Mar 2027) |
|-----------|---------------------------|--------------------------------|
| 10K       | EUR 20.00                 | EUR 26.00                      |
| 5K        | EUR 12.00                 | EUR 15.00                      |

Students with a valid card pay EUR 4.00 less on any entry.
A timing-chip fee of EUR 1.50 is added to every entry.
Runners in the veterans' wave pay EUR 2.00 more on any entry because of the separate start.
Teams of 4 to 8 runners entered together get 10 % off every team member's entry fee.
"""

TOOLS = """\
# Oakhill Tool Library: borrowing rules

## Members

- **Standard member**: EUR 30.00 a year.
- **Volunteer member** (people who staff a shift each month): free. Volunteer members are never charged
  late fees.

## Late fees

| Tool type            | Late fee per day | Maximum late fee per tool |
|----------------------|------------------|---------------------------|
| Hand tools           | EUR 0.50         | EUR 5.00                  |
| Power tools          | EUR 2.00         | EUR 20.00                 |
"""


SERVICE = """\
Kesto Instruments: service plans
================================

Service plans
-------------

==========  =====================  ====================
Plan        Covers                 Price per year (EUR)
==========  =====================  ====================
Basic       1 visit                200
Plus        2 visits and parts     350
==========  =====================  ====================

The K9 costs EUR 80 more per year on every plan because of its heater.
"""


GALLERY = """\
# Wrenfield Gallery: tickets

## Tickets

| Ticket                 | Price (EUR) |
|------------------------|-------------|
| Adult                  | 14.00       |
| Senior (65+)           | 11.00       |
| Child (5-15)           | 6.00        |

## Summer show

The summer show is a supplement on top of a gallery ticket: EUR 5.00 for adults and seniors, EUR 2.00
for children.
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


def value(expression: str) -> float:
    return float(Fraction(calculate(expression)[-1].value))


def charge(question: str, text: str, path: str, looked: float, unit: str = "EUR") -> float:
    found = Value.of_number(looked, unit).with_records(records(text, path))
    got = anchored_expression(question, found)
    assert got is not None, question
    return value(got[0])


@pytest.mark.parametrize(
    ("question", "looked", "expected"),
    [
        ("What does a cargo bike cost for 8 days at Pedalworks?", 12, 60),  # 96, capped per rental
        ("How much is a Pedalworks cargo bike for three days?", 12, 36),
        ("I want an e-bike from Pedalworks for 4 days. What will that cost?", 20, 80),
        ("What do I pay for an e-bike over 9 days at Pedalworks?", 20, 110),
        ("What does a helmet cost for a 9-day hire at Pedalworks?", 3, 15),  # at most 5 days charged
        ("Pannier bags for 2 days from Pedalworks - how much?", 4.5, 9),
    ],
)
def test_a_price_per_day_is_bounded_by_its_own_cap_and_its_sections_days(
    question: str, looked: float, expected: float
) -> None:
    assert charge(question, BIKES, "bikes.txt", looked) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "looked", "expected"),
    [
        ("What does a Hut at Brackenfold cost for 3 nights in July?", 55, 240),  # peak column
        ("What does a Hut at Brackenfold cost for 3 nights in February?", 55, 165),
        ("How much is a Lodge at Brackenfold Cabins for 5 nights in June?", 90, 520),  # 5th night free
        ("Staying in a Brackenfold Lodge for 11 nights in March: what's the cost?", 90, 810),  # 2 free
        ("Two of us in a Brackenfold Hut for 3 nights, arriving 29 April 2026: what's the cost?", 55, 190),
        (
            "What do 4 nights in a Lodge at Brackenfold cost from 29 September 2026?",
            90,
            440,
        ),  # 2 x 130 + 2 x 90
    ],
)
def test_the_column_whose_season_holds_and_every_nth_night_free(
    question: str, looked: float, expected: float
) -> None:
    assert charge(question, CABINS, "cabins.rst", looked, "") == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "looked", "expected"),
    [
        ("What does the Riverbend 10K cost to enter on 20 February 2027, chip fee included?", 20, 27.5),
        ("I'm a student entering the Riverbend 5K on 10 January 2027. What's the entry fee?", 12, 9.5),
        ("A student entering the Riverbend 10K in March 2027 pays how much, timing chip included?", 20, 23.5),
        ("What's the entry fee for the veterans' wave of the Riverbend 10K on 3 January 2027?", 20, 23.5),
    ],
)
def test_the_date_band_column_and_fixed_amounts_whose_condition_the_question_meets(
    question: str, looked: float, expected: float
) -> None:
    assert charge(question, FUN_RUN, "fun-run.md", looked) == pytest.approx(expected)


def test_a_team_of_people_each_paying_a_discounted_entry_with_the_fee_and_not_a_denied_discount() -> None:
    q = (
        "There are five of us entering the Riverbend 10K together as a team on 10 January 2027; none of us"
        " is a student. What's the total?"
    )
    assert charge(q, FUN_RUN, "fun-run.md", 20) == pytest.approx((20 * 0.9 + 1.5) * 5)
    q = "Two students are entering the Riverbend 5K on 5 February 2027. What do they pay altogether?"
    assert charge(q, FUN_RUN, "fun-run.md", 15) == pytest.approx((15 - 4 + 1.5) * 2)  # no team of 2


def test_a_count_of_items_times_the_capped_amount_per_item_and_an_exemption() -> None:
    q = "I brought three power tools back to the Oakhill Tool Library 4 days late. What are the late fees?"
    assert charge(q, TOOLS, "tools.md", 2) == pytest.approx(24)  # 2 x 4 per tool, times 3 tools
    q = "Two hand tools went back to Oakhill Tool Library 14 days late; what do I owe?"
    assert charge(q, TOOLS, "tools.md", 0.5) == pytest.approx(10)  # 7 per tool capped at 5, times 2
    q = "Four power tools came back to Oakhill 2 days late. What is the late fee for each tool?"
    assert charge(q, TOOLS, "tools.md", 2) == pytest.approx(4)  # the fee of one, not of the four
    q = "I'm a volunteer member and returned a power tool to Oakhill 3 days late - what's the late fee?"
    assert charge(q, TOOLS, "tools.md", 2) == 0
    q = "I'm a standard member and returned a power tool to Oakhill 3 days late - what's the late fee?"
    assert charge(q, TOOLS, "tools.md", 2) == pytest.approx(6)  # the exemption is not the question's


def test_nothing_is_worked_out_without_the_measure_a_price_is_per_or_a_price_of_the_document() -> None:
    found = Value.of_number(12, "EUR").with_records(records(BIKES, "bikes.txt"))
    assert anchored_expression("What does a cargo bike cost at Pedalworks?", found) is None  # no days
    other = Value.of_number(13, "EUR").with_records(records(BIKES, "bikes.txt"))
    assert anchored_expression("What does a cargo bike cost for 8 days?", other) is None  # not its price
    assert anchored_expression("How long may I keep a cargo bike?", found) is None  # not a charge


def test_a_supplement_the_lookup_found_goes_on_top_of_the_price_it_is_more_than() -> None:
    q = "What does a Plus service plan for one Kesto K9 cost per year?"
    assert charge(q, SERVICE, "service.rst", 80) == pytest.approx(430)
    q = "What does the Basic plan cost per year for my Kesto K9?"
    assert charge(q, SERVICE, "service.rst", 200) == pytest.approx(280)
    q = "What does the Basic plan cost per year for a Kesto K2?"  # not the K9: no supplement
    assert charge(q, SERVICE, "service.rst", 200) == pytest.approx(200)
    found = Value.of_number(80, "EUR").with_records(records(SERVICE, "service.rst"))
    got = derive_expression(q.replace("Basic", "Plus").replace("K2", "K9"), found)
    assert got is not None and value(got[0]) == pytest.approx(430)  # "cost per year": not a bare rate


def test_a_party_of_several_kinds_of_people_each_at_its_own_row_and_supplement() -> None:
    q = "What will two adults and a child pay to see the Wrenfield Gallery and the summer show?"
    assert charge(q, GALLERY, "gallery.md", 5) == pytest.approx(2 * (14 + 5) + 6 + 2)
    q = "How much are Wrenfield Gallery tickets for a senior and two children, without the summer show?"
    assert charge(q, GALLERY, "gallery.md", 11) == pytest.approx(11 + 2 * 6)  # no supplement asked for
    assert party_of("two adults, a senior and 3 children") == [(2, "adult"), (1, "senior"), (3, "child")]
    gallery = records(GALLERY, "gallery.md")
    assert party_expression("What does a senior pay at the Wrenfield Gallery?", gallery) is None


def test_a_name_is_not_a_connective_and_a_date_is_not_a_count_of_things() -> None:
    steps = plan_request("What does a Plus service plan for one Kesto K2 cost per year?").steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]  # "Plus" names the plan: one lookup and its derivation
    steps = plan_request(
        "Two of us staying 3 nights in a Hut at Brackenfold, arriving 29 April 2026: what's the cost?"
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC] and "29" not in steps[-1].template


def test_periods_read_from_labels_and_questions() -> None:
    early = period_in("Early (until 31 Jan 2027)")
    standard = period_in("Standard entry (1 Feb - 31 Mar 2027)")
    peak = period_in("Peak season (May-Sep)")
    winter = period_in("Low season (Nov-Feb)")  # across the new year
    assert early is not None and standard is not None and peak is not None and winter is not None
    assert period_in("Sleeps at most") is None
    assert holds(early, When(day=date(2027, 1, 15))) and not holds(standard, When(day=date(2027, 1, 15)))
    assert holds(standard, When(month=3, year=2027)) and not holds(early, When(month=3, year=2027))
    assert holds(winter, When(month=1)) and holds(winter, When(month=12)) and not holds(winter, When(month=3))
    assert asked_when("arriving 30 March 2026") == When(day=date(2026, 3, 30))
    assert asked_when("for 7 nights in May") == When(month=5)
    assert asked_when("in November 2026, nobody") == When(month=11, year=2026)
    assert asked_when("what may I bring in my bag?") is None


def test_an_rst_simple_tables_header_is_the_line_under_its_top_border() -> None:
    doc = read_document("cabins.rst", CABINS)
    hut = next(r for r in doc.records if r.text.startswith("Hut"))
    assert [h for h, _ in hut.cells] == [
        "Cabin",
        "Off-peak (Jan-Apr, Oct-Dec)",
        "Peak (May-Sep)",
        "Sleeps at most",
    ]


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("What does a cargo bike from Pedalworks Bike Hire cost for 8 days?", 60),
        ("What does a helmet cost for a 9-day hire with Pedalworks?", 15),
        ("How much is a Lodge at Brackenfold Cabins for 5 nights in June?", 520),
    ],
)
async def test_end_to_end_through_the_retrieval_and_calculator_adapters(
    goal: str, expected: float, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bikes.txt").write_text(BIKES, encoding="utf-8")
    (docs / "cabins.rst").write_text(CABINS, encoding="utf-8")
    (docs / "fun-run.md").write_text(FUN_RUN, encoding="utf-8")
    with trio.fail_after(60):
        assert await answer_through_adapters(goal, docs) == pytest.approx(expected)
