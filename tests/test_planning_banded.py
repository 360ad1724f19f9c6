"""A percentage chosen by the band a question's quantity falls in, applied to the amount it is of
(planning/banded.py): bands read from table cells, the quantity from the question (a percentage, a
measure, a count, the days before a stay), the base from the question's amount, the charge derived
otherwise or the row the question names; end to end through the real retrieval and calculator adapters.

The documents and questions are made up for these tests (a web host's SLA, a holiday flat's cancellation
terms, a printer's late-payment and volume tables) and differ from every benchmark document.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.banded import band_in, banded_expression
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.values import Value

from .planning_e2e import answer_through_adapters

HOSTING = """\
# Quillmoor Hosting: service levels

| Plan    | Monthly fee (EUR) | Uptime target |
|---------|-------------------|---------------|
| Basic   | 30                | 99.0 %        |
| Pro     | 120               | 99.9 %        |
| Scale   | 800               | 99.99 %       |

## Credits

If a month's uptime misses the plan's target, we credit part of that month's fee:

| Uptime in the month                    | Credit |
|----------------------------------------|--------|
| under the target, but 99.5 % or more    | 5 %    |
| 98 % to 99.5 %                          | 15 %   |
| less than 98 %                          | 40 %   |
"""

FLAT = """\
HARBOURSIDE FLAT - TERMS 2026
All prices in EUR.

Nightly rate: EUR 110.00 per night.

CANCELLATION

Notice given                          Cancellation charge
60 days or more before arrival        none
21-59 days before arrival             30 % of the stay
under 21 days before arrival          80 % of the stay
"""

PRINTER = """\
Inkwell Print: payment terms
============================

Late payment
------------

=========================  ==================
Days late                  Late-payment fee
=========================  ==================
1 to 7 days                2 % of the invoice
8 to 30 days               5 % of the invoice
more than 30 days          10 % of the invoice
=========================  ==================

Volume rebate
-------------

=========================  ==================
Orders in the year         Rebate
=========================  ==================
up to 49 orders            none
50 to 199 orders           3 %
200 orders or more         6 %
=========================  ==================
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


def value(expression: str) -> float:
    return float(Fraction(calculate(expression)[-1].value))


def banded(question: str, text: str, path: str, looked: float, other: tuple[str, str] | None = None) -> float:
    found = Value.of_number(looked, "EUR").with_records(records(text, path))
    got = banded_expression(question, found, other)
    assert got is not None, question
    return value(got[0])


@pytest.mark.parametrize(
    ("text", "low", "high", "low_open", "high_open", "unit"),
    [
        ("3 to 13 days before arrival", 3, 13, False, False, "days"),
        ("30 days or more before arrival", 30, math.inf, False, False, "days"),
        ("less than 3 days before arrival, or no-show", -math.inf, 3, False, True, "days"),
        ("below 99.0 %, but at least 95.0 %", 95, 99, False, True, "%"),
        ("below the commitment, but at least 99.0 %", 99, math.inf, False, False, "%"),
        ("more than 30 days", 30, math.inf, True, False, "days"),
        ("up to 49 orders", -math.inf, 49, False, False, "order"),
        ("21-59 days before arrival", 21, 59, False, False, "days"),
        ("over 15 kg", 15, math.inf, True, False, "kg"),
    ],
)
def test_bands_read_from_cells(
    text: str, low: float, high: float, low_open: bool, high_open: bool, unit: str
) -> None:
    band = band_in(text)
    assert band is not None, text
    assert (band.low, band.high, band.low_open, band.high_open, band.unit) == (
        low,
        high,
        low_open,
        high_open,
        unit,
    )


@pytest.mark.parametrize("text", ["Standard", "every day 07:00-23:00 CET", "below the commitment", "none"])
def test_cells_that_bound_no_quantity_are_no_bands(text: str) -> None:
    assert band_in(text) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Our Quillmoor Pro site was up 98.6 % in May. How much credit do we get?", 18),  # 120 x 15 %
        ("What credit is a Quillmoor Basic customer owed after a month at 97.2 % uptime?", 12),  # 30 x 40 %
        ("Quillmoor Scale, 99.7 % uptime last month: what's our credit?", 40),  # 800 x 5 %
        ("How much credit does Quillmoor give our Pro plan for 99.6 % availability?", 6),
    ],
)
def test_a_credit_by_the_band_of_the_stated_percentage_of_the_named_rows_fee(
    question: str, expected: float
) -> None:
    # the lookup found some other number of the document (its answer is not the base)
    assert banded(question, HOSTING, "sla.md", 99.9) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "other", "expected"),
    [
        # 4 nights x 110 derived otherwise; 9 days' notice: 80 %
        ("We booked the Harbourside flat for 4 nights from 20 to 24 August 2026 and cancel on 11 August. "
         "What is the cancellation charge?", ("110 * 4", "EUR"), 352),
        ("Booked 1-6 June 2026 (5 nights) at the Harbourside flat, cancelling on 2 May 2026: how much is the "
         "cancellation charge?", ("110 * 5", "EUR"), 165),  # 30 days: 30 %
        ("If I cancel my Harbourside stay of 3 nights 45 days before arrival, what cancellation charge do I "
         "pay?", ("110 * 3", "EUR"), 99),
        ("Harbourside flat, 2 nights, cancelled 70 days before arrival. Cancellation charge?",
         ("110 * 2", "EUR"), 0),
    ],
)  # fmt: skip
def test_a_cancellation_charge_by_the_notice_band_of_the_stay_derived_otherwise(
    question: str, other: tuple[str, str], expected: float
) -> None:
    assert banded(question, FLAT, "flat.txt", 110, other) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Our Inkwell invoice of EUR 2,400 was paid 12 days late. What's the late-payment fee?", 120),
        ("We paid Inkwell Print 3 days late on an invoice of EUR 850. What late-payment fee applies?", 17),
        ("An Inkwell invoice for EUR 1,000 is 45 days late: how big is the late-payment fee?", 100),
        (
            "We placed 120 orders with Inkwell this year, worth EUR 9,000 in total. What rebate do we get?",
            270,
        ),
        ("How much rebate does Inkwell pay on EUR 4,000 of orders if we placed 30 orders?", 0),
    ],
)
def test_a_fee_or_rebate_by_the_band_of_days_or_a_count_of_the_amount_the_question_states(
    question: str, expected: float
) -> None:
    # the other derivation uses the band's quantity as an operand: it is not the base
    assert banded(question, PRINTER, "terms.rst", 2, ("2 * 12", "EUR")) == pytest.approx(expected)


@pytest.mark.parametrize(
    "question",
    [
        "What is the Quillmoor Pro plan's monthly fee?",  # asks for no credit
        "Our Quillmoor Pro site was up 99.95 % in May. How much credit do we get?",  # in no band
        "How much credit do we get from Quillmoor?",  # no uptime stated
        "What does our Quillmoor Pro plan cost in May after the credit for 98.6 % uptime?",  # credit applied
        "Our Quillmoor site was up 98.6 % in May. How much credit do we get?",  # no plan named, no amount
    ],
)
def test_no_percentage_without_the_column_a_band_and_a_base(question: str) -> None:
    found = Value.of_number(99.9, "EUR").with_records(records(HOSTING, "sla.md"))
    assert banded_expression(question, found) is None


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Our Quillmoor Hosting Pro site was up 98.6 % in May. How much credit do we get?", 18),
        ("Our Inkwell Print invoice of EUR 2,400 was paid 12 days late. What's the late-payment fee?", 120),
    ],
)
async def test_end_to_end_through_the_retrieval_and_calculator_adapters(
    goal: str, expected: float, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sla.md").write_text(HOSTING, encoding="utf-8")
    (docs / "flat.txt").write_text(FLAT, encoding="utf-8")
    (docs / "terms.rst").write_text(PRINTER, encoding="utf-8")
    with trio.fail_after(60):
        assert await answer_through_adapters(goal, docs) == pytest.approx(expected)
