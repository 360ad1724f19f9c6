"""Pro rata (planning/prorata.py): a yearly charge for the whole months left of the year, when the
documents state the rule and the year, from the day the question starts.

The documents and questions are made up for these tests (a rowing club's fees, a town's parking permits)
and differ from every benchmark document.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.prorata import prorated_expression, whole_months_left
from ioa_p2p.planning.values import Value

from .planning_e2e import answer_through_adapters

CLUB = """\
Tamsin Rowing Club - fees

The membership year runs from 1 September to 31 August.
Annual membership fee: EUR 180.
Members who join after 1 September pay only for the whole months left in the membership year (1/12 of
the annual fee per month).
"""

PERMITS = """\
RESIDENTS' PARKING PERMITS

Permits run for the calendar year and cost EUR 240 per year. A permit bought during the year is charged
pro rata for the full months remaining in the year.
"""

NO_RULE = """\
Annual membership fee: EUR 180. The membership year runs from 1 September to 31 August.
"""


def worked(question: str, text: str, amount: float) -> float:
    found = Value.of_number(amount, "EUR").with_evidence((text,))
    got = derive_expression(question, found)
    assert got is not None and got[1] == "EUR", question
    return float(Fraction(calculate(got[0])[-1].value))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("I'm joining the Tamsin club on 15 January 2027. What do I pay?", 105),  # Feb-Aug: 7 months
        ("What is the fee if I join on 1 March 2027?", 90),  # Mar-Aug: 6
        ("Starting on 2 September 2026, how much is my membership?", 165),  # Oct-Aug: 11
    ],
)
def test_whole_months_left_of_a_year_the_documents_define(question: str, expected: float) -> None:
    assert worked(question, CLUB, 180) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("I need a permit from 1 October 2026. How much will it cost?", 60),
        ("Buying a permit on 20 June 2026, what do I pay?", 120),
    ],
)
def test_whole_months_left_of_the_calendar_year(question: str, expected: float) -> None:
    assert worked(question, PERMITS, 240) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("I'm joining the club on 15 January 2027. What do I pay?", NO_RULE),  # no pro-rata rule
        ("What does a year's membership of the club cost?", CLUB),  # no start date
    ],
)
def test_nothing_without_the_rule_or_a_start_date(question: str, text: str) -> None:
    found = Value.of_number(180, "EUR").with_evidence((text,))
    assert prorated_expression(question, found, None) is None


def test_whole_months_count_the_first_month_only_from_its_first_day() -> None:
    assert whole_months_left(date(2027, 4, 1), date(2027, 9, 30)) == 6
    assert whole_months_left(date(2027, 4, 2), date(2027, 9, 30)) == 5
    assert whole_months_left(date(2027, 10, 1), date(2027, 9, 30)) is None


async def test_end_to_end_through_the_retrieval_and_calculator_adapters(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "club.md").write_text(CLUB)
    (docs / "permits.txt").write_text(PERMITS)
    got = await answer_through_adapters(
        "I'm joining the Tamsin Rowing Club on 15 January 2027. "
        "How much is the annual membership fee for me?",
        docs,
    )
    assert got == pytest.approx(105)
