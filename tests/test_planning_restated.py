"""Issue 23 (p-refuse): a lookup is never "answered" by arithmetic over its own question's numbers.

"How long was the labour warranty under the 2026-3 edition of the terms?" is a question over documents; a
calculator that reads "2026-3" as a subtraction and answers 2023 looked nothing up. planning/results.py
:func:`restated` says so from the calculator's own result data, so no driver accepts it and the step is
refused like any lookup the documents do not answer. Made-up wordings.
"""

from __future__ import annotations

import trio

from ioa_p2p.adapters.base import Task, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.api.goals import EXIT_TASKS_FAILED, goal_exit_code
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded
from ioa_p2p.embedding import WordLlamaEmbedder
from ioa_p2p.planning import CALC, LOOKUP, PlanStep, plan_request
from ioa_p2p.planning.missing import MISSING
from ioa_p2p.planning.refusal import ABSENT
from ioa_p2p.planning.report import goal_report
from ioa_p2p.planning.results import answers, restated, value_of

from .conv_sim import Sim
from .test_offline_brain import MEMBERS, TEAM
from .test_planning_absence import absent_docs

QUESTION = "How long was the labour warranty on kettles under the 2026-3 edition of Brightwell's terms?"


def _calculated(text: str) -> tuple[str, dict[str, object]]:
    calculator = adapter_from_config({"name": "calculator", "adapter": "calculator"})

    async def go() -> tuple[str, dict[str, object]]:
        result = await run_task(calculator, Task.create(text, timeout=10))
        assert result.ok, result.text
        return result.text, dict(result.data)

    return trio.run(go)


def test_a_calculation_of_the_questions_own_numbers_answers_no_lookup() -> None:
    text, data = _calculated(QUESTION)
    lookup = PlanStep(1, LOOKUP, QUESTION, QUESTION)
    value = value_of(text, data, lookup.template)
    assert value is not None and value.number == 2023
    assert restated(lookup, data)
    assert not answers(lookup, value, data)


def test_a_calculation_step_and_a_lookup_with_a_looked_up_number_are_kept() -> None:
    text, data = _calculated("Calculate 2026 - 3")
    calc = PlanStep(2, CALC, "( v1 - 3 )", "Calculate 2026 - 3", (1,))
    assert not restated(calc, data)
    assert answers(calc, value_of(text, data, calc.template), data)
    # a lookup whose result was read from a document (no calculations in its data) is not touched
    lookup = PlanStep(1, LOOKUP, "How many kettles were returned in 2026?", "How many kettles?")
    documented = {"value": {"kind": "number", "value": 41, "unit": "", "text": "41"}, "citation": {}}
    assert not restated(lookup, documented)
    # arithmetic using a number the question does not state: not a restatement
    assert not restated(lookup, {"results": [{"expression": "2026 - 1985"}]})


EDITION = "How long was the Brightwell labour warranty under the 2026-3 edition of the terms?"


def test_the_goal_report_names_the_lookup_missing_after_a_restated_answer() -> None:
    total = len(plan_request(EDITION).steps)
    absent = {
        "title": f"step 1/{total}",
        "status": "failed",
        "assignee_name": "librarian",
        "text": "terms.md never names 2026: its '2 years' answers another question",
        "data": {"index": {}, ABSENT: True},
    }
    text, data = _calculated(EDITION)
    made_up = {
        "title": f"step 1/{total}",
        "status": "completed",
        "assignee_name": "calculator",
        "text": text,
        "data": data,
    }
    report = goal_report(EDITION, [absent, made_up], "No answer: ...")
    assert report["complete"] is False and report["answer"] == ""
    assert report["steps"][0]["status"] == MISSING
    assert goal_exit_code("concluded", report["complete"]) == EXIT_TASKS_FAILED


def test_the_offline_planner_refuses_the_lookup_a_calculator_restated() -> None:
    brain = OfflineBrain(WordLlamaEmbedder())
    spec = ConvStart.create(
        EDITION, initiator="A", members=MEMBERS, now=0.0, timeout=600.0, speaker_timeout=10.0
    )
    sim = Sim(spec, {m: (lambda v, s: brain.decide(v, s, TEAM)) for m in MEMBERS}, runner=calculator_data)
    sim.run(until=2000)
    final = sim.final("A")
    assert isinstance(final, Concluded)
    assert final.text.startswith("No answer: missing value: what step 1 asks for"), final.text
    assert "The answer is 2023" not in final.text


def calculator_data(member: str, task):  # type: ignore[no-untyped-def]
    """As absent_docs (D searched the documents and found nothing), but B is the real calculator adapter
    and sends its result data, as a node does."""
    if member != "B":
        return absent_docs(member, task)
    text, data = _calculated(task.description)
    return 0.5, TaskOutcome(task.task_id, True, text, data)
