"""Durations summed (planning/summed.py): the phases of the one item a question names, as the documents
list them, plus the durations the question states, in the unit asked; only for a question about a whole
span ("from ... until ...", "in total", "altogether").

The documents and questions are made up for these tests (a kiln maker's firing table, a ferry line's
crossing notes, a bakery's recipe card) and differ from every benchmark document.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.summed import durations_stated, summed_expression

from .planning_e2e import answer_through_adapters

KILNS = """\
# Ostrava Kilns: firing programmes

| Kiln  | Heat-up     | Hold        | Cool-down   |
|-------|-------------|-------------|-------------|
| K-30  | 4 hours     | 30 minutes  | 6 hours     |
| K-55  | 5 hours     | 45 minutes  | 8 hours     |

The lid must stay closed until the kiln is below 100 °C.
"""

FERRY = """\
Selka Ferries - crossing notes

- Route R7 (Harbour to Lund): check-in closes 15 minutes before sailing; the crossing takes 1 h 40 min;
  unloading takes 20 minutes.
- Route R9 (Lund to Orm): the crossing takes 55 min (55 min on Sundays as well).
Pets travel free on all routes.
"""

BAKERY = """\
Recipe card - Marten's Bakery

Rye loaf: mix 12 minutes, first rise 90 minutes, shape 10 minutes, bake 45 minutes.
Oat rolls: mix 8 minutes, rise 60 minutes, bake 18 minutes.
Store in a cool, dry place.
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


def total(question: str, text: str, path: str) -> tuple[float, str]:
    got = summed_expression(question, (text,), records(text, path))
    assert got is not None, question
    return float(Fraction(calculate(got[0])[-1].value)), got[1]


@pytest.mark.parametrize(
    ("question", "expected", "unit"),
    [
        (
            "How many hours does a firing of the K-30 take from switching on until it has cooled down?",
            10.5,
            "h",
        ),
        ("In total, how many minutes does the K-55 programme run?", 825, "min"),
        ("How long, in hours, is the whole K-55 firing altogether?", 13.75, "h"),
    ],
)
def test_the_phases_of_the_row_the_question_names(question: str, expected: float, unit: str) -> None:
    assert total(question, KILNS, "kilns.md") == (pytest.approx(expected), unit)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many minutes pass on route R7 from the close of check-in until unloading is done?", 135),
        ("With a 30-minute drive to the port first, how many minutes does the R7 trip take in total?", 165),
    ],
)
def test_the_phases_of_a_list_item_plus_what_the_question_states(question: str, expected: float) -> None:
    assert total(question, FERRY, "ferry.txt") == (pytest.approx(expected), "min")


def test_a_whole_span_asked_without_a_unit_is_in_the_first_phase_s_unit() -> None:
    assert total("How long does the K-30 firing take altogether?", KILNS, "kilns.md") == (
        pytest.approx(10.5),
        "h",
    )


def test_the_record_that_shares_most_words_when_no_item_is_named() -> None:
    assert total("How many minutes does the rye loaf take in total?", BAKERY, "bakery.txt") == (
        pytest.approx(157),
        "min",
    )


@pytest.mark.parametrize(
    ("question", "text", "path"),
    [
        ("How many minutes does the K-30 hold take?", KILNS, "kilns.md"),  # one phase, not a whole span
        ("How many minutes does the K-99 firing take in total?", KILNS, "kilns.md"),  # no such kiln
        (
            "In total, how many minutes does the R9 crossing take?",
            FERRY,
            "ferry.txt",
        ),  # one duration (+ an aside)
        ("How much does the rye loaf cost in total?", BAKERY, "bakery.txt"),  # not a duration
    ],
)
def test_nothing_without_a_whole_span_or_the_items_phases(question: str, text: str, path: str) -> None:
    assert summed_expression(question, (text,), records(text, path)) is None


def test_durations_stated_leave_asides_in_brackets_out() -> None:
    assert durations_stated("a 10-minute run; braking in 35 seconds (soft brake: 90 seconds)") == [
        (35.0, "s"),
        (10.0, "min"),
    ]


async def test_end_to_end_through_the_retrieval_and_calculator_adapters(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kilns.md").write_text(KILNS)
    (docs / "ferry.txt").write_text(FERRY)
    got = await answer_through_adapters(
        "How many hours does a firing of the K-30 take from switching on until it has cooled down?", docs
    )
    assert got == pytest.approx(10.5)
