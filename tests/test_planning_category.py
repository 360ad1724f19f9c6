"""The category a quantity falls in (planning/category.py): the one row of a table of bands that holds
the age or measure a question states, and its price; a refused lookup's charge starting from that row
(planning/salvage.py).

The documents and questions are made up for these tests (a lido's tickets, a courier's weight bands) and
differ from every benchmark document.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import describe, plan_request
from ioa_p2p.planning.category import ages_in, category_row
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.salvage import salvaged

LIDO = """\
# Fairmead Lido: tickets 2026

| Ticket            | Price (EUR) |
|-------------------|-------------|
| Adult (16-64)     | 6.00        |
| Junior (5-15)     | 3.50        |
| Under 5           | free        |
| Senior (65+)      | 4.00        |

Schools and clubs: groups of 10 or more swimmers booked together get 20 % off.
"""

COURIER = """\
FENWICK COURIERS - UK PARCEL PRICES

Weight            Price (GBP)
up to 2 kg        4.20
2 to 10 kg        7.90
10 to 30 kg       14.50

Prices include collection.
"""


ZOO = """\
Brackley Zoo - admission

| Visitor           | Price (CHF) |
|-------------------|-------------|
| Adult (18+)       | 24.00       |
| Child (6-17)      | 12.00       |
| Child (0-5)       | free        |

School classes of 15 or more pupils pay 10 % less per ticket.
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(
    ("question", "amount", "unit"),
    [
        ("What does a swim at Fairmead cost for my son, aged 9?", 3.5, "EUR"),
        ("Two 70-year-olds want to swim at the lido: what is the price?", 4.0, "EUR"),
        ("My daughter is 3 years old. How much is her lido ticket?", 0.0, "EUR"),
    ],
)
def test_the_row_of_the_age_band_the_question_states(question: str, amount: float, unit: str) -> None:
    row = category_row(question, records(LIDO, "lido.md"))
    assert row is not None and (row.amount, row.unit) == (amount, unit)


@pytest.mark.parametrize(
    "question",
    [
        "What does sending a 7 kg parcel with Fenwick cost?",
        "I have a parcel weighing 7 kg; what's Fenwick's price?",
    ],
)
def test_the_row_of_the_weight_band_the_question_states(question: str) -> None:
    row = category_row(question, records(COURIER, "courier.txt"))
    assert row is not None and (row.amount, row.unit) == (7.9, "GBP")


@pytest.mark.parametrize(
    ("question", "text", "path"),
    [
        ("What does a swim at Fairmead cost?", LIDO, "lido.md"),  # no age
        ("What does a 45 kg parcel cost with Fenwick?", COURIER, "courier.txt"),  # in no band
        ("What does a 10 kg parcel cost with Fenwick?", COURIER, "courier.txt"),  # in two bands
        ("What does a swim cost for a 40 kg child?", LIDO, "lido.md"),  # a weight, the bands are ages
    ],
)
def test_no_row_without_one_band_that_holds_the_quantity(question: str, text: str, path: str) -> None:
    assert category_row(question, records(text, path)) is None


def test_the_row_of_an_age_band_in_another_table_and_currency() -> None:
    row = category_row(
        "A class of 20 pupils, each aged 9, visits Brackley Zoo. What do they pay?", records(ZOO, "z.md")
    )
    assert row is not None and (row.amount, row.unit) == (12.0, "CHF")


def test_ages_read_in_several_forms() -> None:
    assert ages_in("kids aged 7 and 12 years old, and a 5-year-old") == [7.0, 12.0, 5.0]


@pytest.mark.parametrize(
    ("question", "text", "expected"),
    [
        ("A school group of 30 pupils, all aged 10, is booking together at Fairmead Lido. "
         "What do the pupils' tickets cost?", LIDO, 84),
        ("Five pupils, all aged 12, visit Fairmead Lido. What do the pupils' tickets cost?", LIDO, 17.5),
    ],
)  # fmt: skip
def test_a_refused_lookup_s_charge_starts_from_the_row_of_the_band(
    question: str, text: str, expected: float
) -> None:
    plan = plan_request(question)
    lookup, charge = plan.steps[0], plan.steps[-1]
    assert charge.needs == (1,)
    data = {"records": records_data(read_document("prices.md", text)), "confidence": 0.1}
    found = salvaged(plan, lookup, data)
    assert found is not None and found.number == 3.5
    task = describe(charge, {1: found})
    assert task.startswith("Calculate ")
    assert float(Fraction(calculate(task.removeprefix("Calculate "))[-1].value)) == pytest.approx(expected)


@pytest.mark.parametrize(
    "question",
    [
        # the charge the rules give leaves the 12 swimmers (or the 3 children) out: no answer, not a wrong one
        "A club of 12 swimmers, all aged 11, is booking together at Fairmead Lido. What do the tickets cost?",
        "Our group of 3 children, each aged 8, visits Fairmead Lido. What do their tickets cost?",
    ],
)
def test_a_charge_that_drops_a_count_the_question_states_is_not_taken(question: str) -> None:
    plan = plan_request(question)
    data = {"records": records_data(read_document("lido.md", LIDO)), "confidence": 0.1}
    assert salvaged(plan, plan.steps[0], data) is None
