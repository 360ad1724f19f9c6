"""A charge for what goes beyond an allowance (planning/allowance.py): "N units (per period) included;
each further unit costs R", the class a label names ("Groups A to D", "Zones 1-3"), the units used and
the periods from the question; end to end through the real retrieval and calculator adapters. And a rate
that brings a fixed fee in its own clause ("per litre plus a handling fee of EUR 12", planning/derive.py).

The documents and questions are made up for these tests (a van hire, a mobile tariff, a cloud drive, a
print shop's copier lease) and differ from every benchmark document.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.allowance import allowance_expression, allowances_in
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.values import Value

from .planning_e2e import answer_through_adapters

VANS = """\
GREENWAY VAN HIRE - PRICES 2026
All prices in EUR.

Daily rates: small van EUR 55.00 per day, large van EUR 80.00 per day.

MILEAGE: Classes 1 to 2: 200 km per hire day included; each further km costs EUR 0.18. Class 3: 150 km
per hire day included; each further km costs EUR 0.25.
"""

MOBILE = """\
# Tallis Mobile: monthly plans

Every plan includes 300 minutes a month; extra minutes at EUR 0.08 each.
The first 10 GB of data per month are free, then EUR 1.50 per additional GB.
"""

COPIER = """\
Copier lease terms

The lease includes 2,000 copies per month, and each additional copy costs EUR 0.02.
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


def value(expression: str) -> float:
    return float(Fraction(calculate(expression)[-1].value))


def extra(question: str, text: str, path: str) -> float:
    found = Value.of_number(1, "EUR").with_records(records(text, path))
    got = allowance_expression(question, found)
    assert got is not None, question
    assert got[1] == "EUR"
    return value(got[0])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "We hired a Greenway class 2 van for 3 days and drove 760 km. What do the extra kilometres cost?",
            28.8,
        ),
        (
            "Greenway class 3, 2 days, 420 km driven: what is the charge for kilometres over the allowance?",
            30,
        ),
        ("What will the additional km cost on a 5-day Greenway hire of a class 1 van with 900 km?", 0),
        (
            "I drove 1,000 km in a class 3 Greenway van over 4 days. How much for the excess mileage in km?",
            100,
        ),
    ],
)
def test_units_beyond_an_allowance_per_day_of_the_class_the_question_names(
    question: str, expected: float
) -> None:
    assert extra(question, VANS, "vans.txt") == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "text", "path", "expected"),
    [
        ("I used 340 minutes on Tallis Mobile in 1 month. What do the extra minutes cost?", MOBILE, "m.md",
         3.2),
        ("Tallis Mobile: 14 GB used in a month - what's the charge for the additional data in GB?", MOBILE,
         "m.md", 6),
        ("Our copier made 2,450 copies in one month. What do the additional copies cost?", COPIER, "c.txt",
         9),
    ],
)  # fmt: skip
def test_allowances_per_month_worded_in_several_ways(
    question: str, text: str, path: str, expected: float
) -> None:
    assert extra(question, text, path) == pytest.approx(expected)


def test_allowance_statements_typed() -> None:
    vans = allowances_in(" ".join(VANS.split()))
    assert [(a.amount, a.unit, a.period, a.rate) for a in vans] == [
        (200, "km", "days", 0.18),
        (150, "km", "days", 0.25),
    ]
    mobile = allowances_in(" ".join(MOBILE.split()))
    assert [(a.amount, a.unit, a.period, a.rate) for a in mobile] == [
        (300, "min", "months", 0.08),
        (10, "gb", "months", 1.5),
    ]


@pytest.mark.parametrize(
    "question",
    [
        "We hired a Greenway van for 3 days and drove 760 km. What do the extra kilometres cost?",  # no class
        "We hired a Greenway class 2 van and drove 760 km. What do the extra kilometres cost?",  # no days
        "We hired a Greenway class 2 van for 3 days and drove 760 km. What is the daily rate?",  # not extra
        "What does a Greenway class 2 van cost over 3 days with 760 km driven?",  # the whole hire
    ],
)
def test_nothing_without_the_class_the_periods_or_a_question_about_the_extra(question: str) -> None:
    found = Value.of_number(1, "EUR").with_records(records(VANS, "vans.txt"))
    assert allowance_expression(question, found) is None


async def test_end_to_end_through_the_retrieval_and_calculator_adapters(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vans.txt").write_text(VANS, encoding="utf-8")
    (docs / "copier.txt").write_text(COPIER, encoding="utf-8")
    goal = "We hired a Greenway class 2 van for 3 days and drove 760 km. What do the extra kilometres cost?"
    with trio.fail_after(60):
        assert await answer_through_adapters(goal, docs) == pytest.approx(28.8)


FUEL = """\
RETURN CONDITIONS
All prices in EUR.

A boat returned with less fuel is refuelled at EUR 3.10 per litre plus a handling fee of EUR 12.00.
Cleaning: EUR 40.00 per hour.
"""


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("We returned the boat 20 litres short. What does the refuelling cost?", 74),  # 3.10 x 20 + 12
        ("How much is charged for refuelling 5 litres of missing fuel?", 27.5),
    ],
)
def test_a_rate_brings_the_fixed_fee_of_its_own_clause(question: str, expected: float) -> None:
    found = Value.of_number(3.1, "EUR").with_records(records(FUEL, "fuel.txt")).with_evidence((FUEL,))
    got = derive_expression(question, found)
    assert got is not None and got[1] == "EUR", got
    assert value(got[0]) == pytest.approx(expected)
