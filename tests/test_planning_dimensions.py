"""Issue 23 (p-chain3): a value whose unit cannot be the dimension a question asks for is refused, never an
answer ("300 mm" for "how much water", "350 °C" for "how long"): planning/dimensions.py. Made-up documents
and wordings, two phrasings per dimension; the step is ``missing``, the goal report incomplete (exit 3), and
the retrieval reads on to a fact of the right dimension."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.api.goals import EXIT_TASKS_FAILED, goal_exit_code
from ioa_p2p.planning import LOOKUP, PlanStep, plan_request
from ioa_p2p.planning.derive import derive_expression, derive_missing
from ioa_p2p.planning.dimensions import asked_dimensions, dimension_of, mismatch
from ioa_p2p.planning.missing import MISSING
from ioa_p2p.planning.refusal import dimension_refusal
from ioa_p2p.planning.report import goal_report
from ioa_p2p.planning.results import answers
from ioa_p2p.planning.values import Value

from .test_retrieval import ask, hashing_adapter


def _n(number: float, unit: str) -> Value:
    return Value.of_number(number, unit)


@pytest.mark.parametrize(
    ("question", "wrong", "right"),
    [
        ("How much water did the Delmont reservoir lose in the leak?", _n(300, "mm"), _n(410, "m³")),
        ("How much diesel does the Kerrow generator burn in a shift?", _n(40, "°C"), _n(18, "L")),
        ("How long does the Pellin primer take to dry?", _n(350, "°C"), _n(4, "h")),
        ("How much time does a Pellin kiln firing need?", _n(12, "kg"), _n(90, "min")),
        ("How many minutes of studio time do I get for EUR 42?", _n(84, "EUR"), _n(84, "min")),
        ("How many litres does the Ostra tank hold?", _n(2, "m"), _n(500, "L")),
        ("What does the Brisca HG-1 weigh?", _n(25, "s"), _n(0.7, "kg")),
        ("How heavy is the Brisca HG-1?", _n(1800, "W"), _n(700, "g")),
        ("What is the price of a Tarnby day ticket?", _n(3, "h"), _n(6.8, "EUR")),
        ("How much does a Tarnby weekly ticket cost?", _n(7, "days"), _n(24, "EUR")),
    ],
)
def test_a_value_of_another_dimension_is_refused_one_of_the_asked_is_not(
    question: str, wrong: Value, right: Value
) -> None:
    assert mismatch(question, wrong), (question, wrong)
    assert not mismatch(question, right), (question, right)
    step = PlanStep(1, LOOKUP, question, question)
    assert not answers(step, wrong, None) and answers(step, right, None)
    lacking = dimension_refusal(step, wrong)
    assert lacking is not None and wrong.shown() in lacking.why
    assert dimension_refusal(step, right) is None


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("How long will the Brisca pump take to empty a 5,000-litre pond?", _n(160, "L/min")),  # a rate
        ("What is the Delmont figure for 2025?", _n(300, "mm")),  # asks for no dimension
        ("How much deposit does Ostra ask for?", _n(15, "%")),  # a share of a price
        ("How much annual leave does a Pellin employee get?", _n(25, "days")),
        ("How many jars does a batch of Orvo jam fill?", _n(6, "")),  # a count: any figure
        ("What is the Brisca booking fee?", _n(3, "%")),
    ],
)
def test_rates_shares_counts_and_questions_without_a_dimension_are_never_refused(
    question: str, value: Value
) -> None:
    assert not mismatch(question, value), (question, value, asked_dimensions(question))


def test_units_have_dimensions_rates_by_their_numerator() -> None:
    assert [dimension_of(u) for u in ("kg", "m³", "EUR/h", "CHF", "°C", "min", "jars", "")] == [
        "mass", "volume", "money", "money", "temperature", "time", "", "",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "goal",
    [
        "How much water did the Delmont reservoir lose in the leak?",
        "Delmont reservoir: how much water was lost?",
    ],
)
def test_a_lookup_answered_in_another_dimension_is_missing_and_the_goal_exits_3(goal: str) -> None:
    plan = plan_request(goal)
    lookup = next(s for s in plan.steps if s.kind == LOOKUP)
    task = {
        "title": f"step {lookup.index}/{len(plan.steps)}",
        "status": "completed",
        "assignee_name": "librarian",
        "text": "300 mm\nsource: leak.md:3: A 300 mm main burst under Delmont Road.",
        "data": {"value": {"kind": "number", "text": "300 mm", "value": 300, "unit": "mm"}},
    }
    report = goal_report(goal, [task], "No answer: ...")
    step = report["steps"][lookup.index - 1]
    assert step["status"] == MISSING and "volume" in step["missing"]["what"], step
    assert report["complete"] is False and report["answer"] == ""
    assert goal_exit_code("concluded", report["complete"]) == EXIT_TASKS_FAILED == 3


LEAK = """# Incident report: Delmont Road main

At 04:10 a 300 mm steel main burst under Delmont Road; the road was closed for 2 days.

## Impact

- Homes without water: 860
- Water lost: 410 m³
- Longest interruption: 9 h 20 min
"""


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("How much water did Delmont lose when the main burst?", "410"),
        ("Delmont Road burst: how much water was lost?", "410"),
    ],
)
async def test_the_retrieval_reads_on_to_a_fact_of_the_dimension_asked(
    tmp_path: Path, question: str, shown: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "delmont-incident.md").write_text(LEAK)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.text.startswith(shown), result.text


@pytest.mark.parametrize(
    ("question", "wrong", "right"),
    [
        (
            "Leaving Tarnby on the 09:10 bus, what's the earliest I can be in Ostra?",
            _n(6.4, "EUR"),
            _n(25, "min"),
        ),
        ("What time does the last Ostra ferry sail?", _n(12, "kg"), _n(40, "min")),
        ("When is the Pellin invoice due?", _n(84, "EUR"), _n(30, "days")),
        (
            "The site was down 9 hours. What share of the fee comes back as credit?",
            _n(840, "EUR"),
            _n(25, "%"),
        ),
        ("Late by a week - what percentage of the deposit is kept?", _n(120, "EUR"), _n(50, "%")),
    ],
)
def test_times_dates_and_shares_asked_refuse_other_dimensions_not_the_durations_that_move_them(
    question: str, wrong: Value, right: Value
) -> None:
    assert mismatch(question, wrong), (question, wrong, asked_dimensions(question))
    assert not mismatch(question, right), (question, right)


@pytest.mark.parametrize(
    ("question", "evidence"),
    [
        (
            "The Tarnby site was down 9 hours in a 30-day month. What share of the monthly fee is credited?",
            "The Tarnby monthly fee is EUR 42 per day of service.",
        ),
        (
            "Leaving the Ostra depot at 08:15, what's the earliest I can be at Pellin?",
            "An Ostra to Pellin day ticket costs EUR 6.40.",
        ),
    ],
)
def test_a_derivation_of_another_dimension_than_asked_is_missing_never_an_answer(
    question: str, evidence: str
) -> None:
    number = 42.0 if "42" in evidence else 6.4
    found = Value.of_number(number, "EUR").with_evidence((evidence,))
    lacking = derive_missing(question, found)
    assert lacking is not None, lacking  # the rate to apply, or the clock time asked for
    assert "clock time" in lacking.what or "%" in lacking.unit, lacking
    assert derive_expression(question, found) is None
