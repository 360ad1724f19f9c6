"""Honest failures (issue 23): a value a step needs and nobody gave is named, never guessed.

Made-up documents and wordings (no suite's). planning/refusal.py says which value is missing; the
conclusion names it first; the offline planner assigns the step to nobody and the goal report is not
complete (``ioa goal`` exits 3).
"""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.api.goals import EXIT_TASKS_FAILED, goal_exit_code
from ioa_p2p.planning import CALC, LOOKUP, Plan, PlanStep, StepOutcome, conclusion, plan_request
from ioa_p2p.planning.derive import DERIVE, derive_missing
from ioa_p2p.planning.doc_facts import givens_in
from ioa_p2p.planning.missing import MISSING, Missing, item_codes, names_another
from ioa_p2p.planning.rates import apply_rate
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.report import goal_report
from ioa_p2p.planning.ruled import ruled_expression
from ioa_p2p.planning.values import Value, exact, format_number, numbers_in

from .goal_suite_checks import BENCH, load_module

HIRE = """# Drone hire

- List price of the K2 survey drone: EUR 2,900
- The K1 hobby drone can be hired for EUR 45 per day.
"""


def _found(number: float, unit: str, *evidence: str) -> Value:
    return Value.of_number(number, unit).with_evidence(tuple(evidence))


@pytest.mark.parametrize(
    "question",
    [
        "What does hiring the K2 survey drone cost for 3 days?",
        "How much would renting the K2 for 3 days come to?",
        "K2 drone, 3 days of hire: what's the bill?",
    ],
)
def test_a_price_stated_for_none_of_the_requests_quantities_is_missing_a_rate(question: str) -> None:
    found = _found(2900, "EUR", "List price of the K2 survey drone: EUR 2,900")
    lacking = derive_missing(question, found)
    assert lacking is not None and lacking.unit == "EUR/days", lacking
    assert "a rate in EUR per day" in lacking.named() and "3" in lacking.why


@pytest.mark.parametrize(
    ("question", "evidence"),
    [
        ("What does a 3-day hire of the K2 cost?", "A 3-day hire of the K2 costs EUR 120."),
        ("How much is a ticket for a 9-year-old?", "Child (4-17) | 7.50 EUR"),
        ("What's the price of an adult ticket?", "Adult ticket: EUR 12"),
    ],
)
def test_a_value_stated_for_the_requests_quantity_answers_without_refusal(
    question: str, evidence: str
) -> None:
    number = [n for n in (120.0, 7.5, 12.0) if f"{n:g}" in evidence][0]
    assert derive_missing(question, _found(number, "EUR", evidence)) is None


def test_a_percentage_counts_no_months() -> None:
    (uptime,) = [
        g for g in givens_in("The service was up 98.7 % last month. How much credit?") if g.number != 1
    ]
    assert uptime.unit == "%" and uptime.alts == ("%",)


def test_item_codes_tell_a_rate_of_another_item() -> None:
    assert item_codes("the VC-24R and the K2, not mp3 or the 3rd one") == frozenset({"VC-24R", "K2"})
    assert names_another("The K1 can be hired for EUR 45 per day.", "hire the K2 for 3 days")
    assert not names_another("The K2 can be hired for EUR 60 per day.", "hire the K2 for 3 days")
    assert not names_another("Hire costs EUR 60 per day.", "hire the K2 for 3 days")  # names no item


def test_typed_rules_never_price_one_item_at_another_items_rate() -> None:
    data = records_data(read_document("hire.md", HIRE))
    records = records_from_data(json.loads(json.dumps(data)))  # as it crosses the wire
    assert ruled_expression("What does hiring the K1 hobby drone cost for 3 days?", records) is not None
    other = ruled_expression("What does hiring the K2 survey drone cost for 3 days?", records)
    assert other is None or "45" not in other[0], other


def test_a_charge_of_a_price_per_nothing_is_refused_with_the_rate_named() -> None:
    plan = plan_request("What does hiring the K2 survey drone cost for 3 days?")
    assert [s.kind for s in plan.steps] == [LOOKUP, CALC]
    found = _found(2900, "EUR", "List price of the K2 survey drone: EUR 2,900")
    lacking = refusal(plan.steps[1], {1: found})
    assert lacking is not None and lacking.unit == "EUR/days"


def test_a_calculation_over_a_value_without_a_number_is_refused() -> None:
    step = PlanStep(2, CALC, "double it", "(v1 * 2)", (1,))
    lacking = refusal(step, {1: Value.of_text("Ask at the front desk")})
    assert lacking is not None and lacking.unit == "number" and "front desk" in lacking.why
    assert refusal(step, {1: Value.of_number(4)}) is None
    assert refusal(step, {}) is None  # still waiting for step 1: nothing to refuse yet


def _derived_plan() -> Plan:
    question = "What does hiring the K2 survey drone cost for 3 days?"
    steps = (PlanStep(1, LOOKUP, question, question), PlanStep(2, CALC, question, DERIVE, (1,)))
    return Plan(question, steps, 2)


def test_the_conclusion_names_the_missing_value_first() -> None:
    plan = _derived_plan()
    found = _found(2900, "EUR", "List price of the K2 survey drone: EUR 2,900")
    lacking = Missing("a rate in EUR per day", "EUR/days", "EUR 2900 was found")
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", found, "completed"),
        2: StepOutcome(plan.steps[1], "", None, MISSING, None, "", lacking),
    }
    text, info = conclusion(plan, outcomes)
    first = text.splitlines()[0]
    assert first == "No answer: missing value: a rate in EUR per day [EUR/days], needed by step 2."
    assert info["answer"] == "" and info["missing"] == [2]
    assert info["missing_values"] == [{"step": 2, "what": "a rate in EUR per day", "unit": "EUR/days",
                                       "why": "EUR 2900 was found"}]  # fmt: skip
    assert info["steps"][1]["status"] == MISSING and info["steps"][1]["missing"]["unit"] == "EUR/days"


def test_a_derivation_nobody_did_is_never_filled_in_with_the_looked_up_value() -> None:
    # a team without a calculator: the derivation was not run; the lookup's value applies to none of the
    # request's quantities, so it does not stand in as the answer
    plan = _derived_plan()
    found = _found(2900, "EUR", "List price of the K2 survey drone: EUR 2,900")
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", found, "completed"),
        2: StepOutcome(plan.steps[1]),
    }
    text, info = conclusion(plan, outcomes)
    assert text.startswith("No answer: missing value: a rate in EUR per day") and info["answer"] == ""


def test_the_goal_report_of_a_refused_step_is_incomplete_exit_3() -> None:
    goal = "What does hiring the K2 survey drone cost for 3 days?"
    plan = plan_request(goal)
    total = len(plan.steps)
    lookup = {
        "title": f"step 1/{total}",
        "status": "completed",
        "assignee_name": "librarian",
        "text": "EUR 2900\nsource: hire.md:3: List price of the K2 survey drone: EUR 2,900",
        "data": {
            "value": {"kind": "number", "text": "EUR 2900", "value": 2900, "unit": "EUR"},
            "passages": [{"text": "List price of the K2 survey drone: EUR 2,900"}],
        },
    }
    report = goal_report(goal, [lookup], "No answer: missing value: ...")
    assert report["complete"] is False and report["answer"] == ""
    assert report["steps"][1]["status"] == MISSING and report["steps"][1]["missing"]["unit"] == "EUR/days"
    assert goal_exit_code("concluded", report["complete"]) == EXIT_TASKS_FAILED == 3


@pytest.mark.parametrize(
    ("text", "number", "unit"),
    [
        ("CHF 41", 41, "CHF"),
        ("41 CHF", 41, "CHF"),
        ("a fee of GBP 1,200 per month", 1200, "GBP"),
        ("£20.50", 20.5, "GBP"),
        ("¥3000", 3000, "JPY"),
        ("costs 30 zł", 30, "PLN"),
        ("SEK 95 per night", 95, "SEK"),
        ("EUR 4,290", 4290, "EUR"),
        ("$9.99", 9.99, "USD"),
        ("12 euros", 12, "EUR"),
    ],
)
def test_currencies_are_general_iso_codes_and_symbols(text: str, number: float, unit: str) -> None:
    (found,) = numbers_in(text)
    assert (found.number, found.unit) == (number, unit)
    assert format_number(found.number, found.unit) == f"{unit} {format_number(found.number)}"


@pytest.mark.parametrize("text", ["SKU 12", "try 5 times", "ISO 9001", "PIN 4455"])
def test_capital_words_and_lower_case_words_are_no_currency(text: str) -> None:
    assert [n.unit for n in numbers_in(text)] == [""]


def test_numbers_keep_every_digit_without_an_exponent() -> None:
    assert exact(1048576.0) == "1048576" and exact(1.5e-07) == "0.00000015"
    assert exact(1 / 1.609344, 12) == "0.621371192237" and exact(2.5) == "2.5"
    assert format_number(12345678901.5) == "12345678901.5" and format_number(1e20) == "1" + "0" * 20
    assert format_number(0.1 + 0.2) == "0.3" and format_number(1.5e-7, "kg") == "0.00000015 kg"
    rated = apply_rate(
        "How long will the Brennfeld AL-350 take to empty a 1234567.5-litre pond at full flow?"
    )
    assert rated is not None and rated[-1].template == "1234567.5 / v1", rated
    costed = apply_rate("What would 1048576 business cards from Pellham Print cost?")
    assert costed is not None and costed[-1].template == "v1 * 1048576", costed
    assert "per business of" in costed[0].template  # a word ending in s is no plural of "busine"


def test_a_charge_is_in_the_currency_of_the_price_it_applies() -> None:
    plan = plan_request("What would 650 business cards from Pellham Print cost?")
    assert plan.steps[-1].unit == "EUR"  # the planner's default currency ...
    price = Value.of_number(0.12, "CHF")
    outcomes = {
        1: StepOutcome(plan.steps[0], "librarian", price, "completed"),
        2: StepOutcome(plan.steps[1], "calculator", Value.of_number(78), "completed"),
    }
    text, info = conclusion(plan, outcomes)
    assert info["answer"] == "The answer is CHF 78.", text  # ... never stated over the price's own


def _bench_scoring() -> ModuleType:
    return load_module("goals_suite_scoring_refusal_test", BENCH / "goals_suite_scoring.py")


def test_the_goal_benches_count_refusals_apart_from_wrong_answers() -> None:
    scoring = _bench_scoring()
    expected = {"type": "number", "value": 135, "tol": 0.01, "unit": "EUR"}
    refused = {
        "conclusion": "No answer: missing value: a rate in EUR per day [EUR/days], needed by step 2.",
        "answer": "",
        "steps": [{"step": 1, "status": "completed"}, {"step": 2, "status": "missing"}],
    }
    wrong = {"conclusion": "The answer is EUR 2900.", "answer": "The answer is EUR 2900.", "steps": []}
    failed = {"conclusion": "No answer: the team could not complete step 1 (...): failed", "steps": []}
    right = {"conclusion": "The answer is EUR 135.", "answer": "The answer is EUR 135.", "steps": []}
    got = [scoring.score_result(expected, r)["miss"] for r in (refused, wrong, failed, right)]
    assert got == [scoring.REFUSED, scoring.WRONG, scoring.NO_ANSWER, ""]


def test_a_no_answer_conclusion_is_never_scored_right_by_a_number_in_its_explanation() -> None:
    scoring = _bench_scoring()
    expected = {"type": "number", "value": 2, "tol": 0.01}
    refused = {
        "conclusion": "No answer: missing value: the fee per night, needed by step 2.",
        "answer": "",
        "steps": [{"step": 1, "status": "completed"}, {"step": 2, "status": "missing"}],
    }
    failed = {"conclusion": "No answer: step 2 failed after 2 attempts.", "steps": []}
    right = {"conclusion": "The answer is 2.", "answer": "The answer is 2.", "steps": []}
    got = [scoring.score_result(expected, r)["miss"] for r in (refused, failed, right)]
    assert got == [scoring.REFUSED, scoring.NO_ANSWER, ""]


def test_a_comma_separated_table_is_read_as_rows_never_as_one_sentence() -> None:
    text = (
        "# Stock at close of business\n"
        "sku,description,qty_on_hand,unit_cost_eur\n"
        "KT-01,Cable ties 200 mm (pack of 100),340,2.15\n"
        "KT-02,Masking tape 50 m,95,3.40\n"
    )
    records = read_document("stock.csv", text).records
    rows = [r for r in records if r.kind == "row"]
    assert [r.line for r in rows] == [3, 4], records
    assert dict(rows[0].cells)["unit cost (eur)"] == "2.15" and dict(rows[1].cells)["sku"] == "KT-02"
    assert not [r for r in records if "qty_on_hand" in r.text]  # the header is no sentence with amounts
