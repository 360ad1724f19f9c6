"""A check the user asks for becomes a step whose answer is yes or no (issue 23, p-words2).

Made-up requests and documents: "check that it is within the weight limit", "is their total under 100?",
"is the budget of EUR 100 enough for both?", "does it exceed the limit?". On the planner before, the check
was dropped (the sum alone answered "is their total under 100?"), read as a multiplication ("is the budget
of 100 enough for both?" -> (v1 + v2) * 100) or planned as a task. A bound the documents do not state is
looked up and, when nothing states it, named missing: the check never runs and the goal is incomplete.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ioa_p2p.planning import CALC, CODE, LOOKUP, PlanStep, plan_request
from ioa_p2p.planning.checked import check_steps

from .goal_suite_checks import BENCH, load_module


def _lookups(*texts: str) -> list[PlanStep]:
    return [PlanStep(i + 1, LOOKUP, t, f"{t}?") for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    ("clause", "test"),
    [
        ("Check that it is under 500.", "value < 500"),
        ("is it within 40 kg?", "value <= 40"),
        ("Is that more than EUR 250?", "value > 250"),
        ("check whether it is at least 12", "value >= 12"),
        ("Will £90 cover it?", "90 >= value"),
        ("Is the budget of EUR 100 enough for it?", "100 >= value"),
    ],
)
def test_a_check_against_a_stated_number_prints_yes_or_no(clause: str, test: str) -> None:
    steps = check_steps(2, clause, _lookups("What is the price of the Hadley tent"))
    assert steps is not None and len(steps) == 1
    (check,) = steps
    assert check.kind == CODE and check.template == f"print('yes' if {test} else 'no')"
    assert check.bindings == (("value", 1),)


def test_both_values_are_summed_before_the_check() -> None:
    plan = plan_request("Look up the price of a Pell kettle and of a Pell toaster. Is their total under 100?")
    total, check = plan.steps[-2:]
    assert total.kind == CALC and total.template == "v1 + v2"
    assert check.template == "print('yes' if value < 100 else 'no')" and check.bindings == (("value", 3),)


def test_a_bound_found_before_is_the_limit_and_not_the_value_checked() -> None:
    before = _lookups("What is the weight of the Zarvo X1 crate", "What is the weight limit of the Brume van")
    steps = check_steps(3, "Does it exceed the limit?", before)
    assert steps is not None
    assert steps[-1].template == "print('yes' if value > limit else 'no')"
    assert steps[-1].bindings == (("value", 1), ("limit", 2))


def test_a_bound_nobody_found_is_looked_up_first() -> None:
    steps = check_steps(
        2, "Check that it is within the weight limit.", _lookups("What is the Zarvo X1 weight")
    )
    assert steps is not None and [s.kind for s in steps] == [LOOKUP, CODE]
    assert "weight limit" in steps[0].template and steps[-1].bindings == (("value", 1), ("limit", 2))


def test_no_check_without_an_earlier_value_or_a_comparison() -> None:
    assert check_steps(1, "Is it under 500?", []) is None
    assert check_steps(2, "Is it open on Sundays?", _lookups("What are the Zarvo hours")) is None


ZARVO = "# Zarvo crates\n\n- The Zarvo X2 crate weighs 65 kg when packed.\n"
BRUME = "# Brume courier van\n\nThe Brume van takes parcels up to a weight limit of 50 kg each.\n"
ASK = "Look up the weight of the Zarvo X2 crate. Check that it is within the Brume van's weight limit."


def _run(docs: Path, goal: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, object]]:
    monkeypatch.syspath_prepend(str(BENCH))  # the bench's own modules, as when it runs
    dry = load_module("goals_dry_run_checked_test", BENCH / "goals_dry_run.py")

    async def main() -> tuple[str, dict[str, object]]:
        run = dry.DryRun(docs, 60.0)
        try:
            with trio.fail_after(120):
                text, info = await run.run(goal, [])
        finally:
            await run.aclose()
        return text, info

    return trio.run(main)


def test_a_check_answers_yes_or_no_from_the_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "zarvo.md").write_text(ZARVO, encoding="utf-8")
    (tmp_path / "brume.md").write_text(BRUME, encoding="utf-8")
    text, info = _run(tmp_path, ASK, monkeypatch)
    assert text.startswith("The answer is no."), text
    assert not info["missing"]


def test_a_check_whose_bound_no_document_states_names_it_and_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "zarvo.md").write_text(ZARVO, encoding="utf-8")
    text, info = _run(tmp_path, ASK, monkeypatch)
    assert text.startswith("No answer: missing value:") and "weight limit" in text, text
    assert info["missing"]
    assert "never started" in text  # the check's code did not run with the limit missing
