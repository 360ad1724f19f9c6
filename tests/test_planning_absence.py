"""Issue 23 (p-probe2): a lookup the documents do not answer is a missing value, named, exit 3.

When every attempt at a lookup failed and an agent that searched the documents said nothing in them answers
it (its result data carries ``absent``), the step is ``missing`` (planning/refusal.py ``absence_refusal``):
the offline planner's conclusion names it, the goal report is incomplete (``ioa goal`` exits 3), and the
goal benches count it as a refusal. Made-up documents and wordings (a chandlery's price list).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from ioa_p2p.api.goals import EXIT_TASKS_FAILED, goal_exit_code
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded
from ioa_p2p.embedding import WordLlamaEmbedder
from ioa_p2p.planning import CALC, LOOKUP, PlanStep, plan_request
from ioa_p2p.planning.missing import MISSING
from ioa_p2p.planning.refusal import ABSENT, absence_refusal
from ioa_p2p.planning.report import goal_report

from .conv_sim import Sim
from .goal_suite_checks import BENCH, load_module
from .test_offline_brain import MEMBERS, TEAM, real_runner
from .test_retrieval import ask, hashing_adapter

CHANDLERY = """# Greyhaven Chandlery -- rope prices

- Braided polyester, 10 mm: EUR 2.80 per metre
- Three-strand nylon, 12 mm: EUR 3.40 per metre
- Dyneema core line, 6 mm: EUR 4.10 per metre
"""


def test_a_lookup_the_documents_do_not_answer_is_missing_with_its_question_named() -> None:
    question = "What does Greyhaven charge for anchor chain per metre?"
    step = PlanStep(1, LOOKUP, question, question)
    lacking = absence_refusal(step, [{"index": {}, ABSENT: True}])
    assert lacking is not None and "anchor chain per metre" in lacking.what
    assert absence_refusal(step, [{"index": {}}, None]) is None  # failed for another reason: not named
    calc = PlanStep(2, CALC, "three times it", "v1 * 3", (1,))
    assert absence_refusal(calc, [{ABSENT: True}]) is None  # only a lookup reads documents


async def test_the_retrieval_says_when_its_documents_state_no_answer(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "greyhaven-ropes.md").write_text(CHANDLERY)
    found = await ask(hashing_adapter(docs), "What does Greyhaven charge per metre of three-strand nylon?")
    assert found.ok and ABSENT not in found.data
    missing = await ask(hashing_adapter(docs), "Which volcano erupted in Iceland in 1783?")
    assert not missing.ok and missing.data[ABSENT] is True


def test_the_goal_report_of_an_unanswered_lookup_is_missing_exit_3() -> None:
    goal = "How much is a Greyhaven mooring buoy?"
    total = len(plan_request(goal).steps)
    failed = {
        "title": f"step 1/{total}",
        "status": "failed",
        "assignee_name": "librarian",
        "text": "nothing in docs answers this (best 0.04: ...)",
        "data": {"index": {}, ABSENT: True},
    }
    report = goal_report(goal, [failed], "No answer: ...")
    assert report["complete"] is False and report["answer"] == ""
    assert report["steps"][0]["status"] == MISSING and "mooring buoy" in report["steps"][0]["missing"]["what"]
    assert goal_exit_code("concluded", report["complete"]) == EXIT_TASKS_FAILED == 3
    failed["data"] = {"index": {}}  # an agent that failed for another reason says nothing is absent
    assert goal_report(goal, [failed], "No answer: ...")["steps"][0]["status"] == "failed"


def absent_docs(member: str, task):
    """D searched the documents and found nothing; A (no adapter) and C (python) reject what they cannot
    do; B calculates."""
    if member == "A" or (member == "C" and "python" not in task.description.lower()):
        return 0.5, TaskOutcome(task.task_id, False, "not code", None, None, "rejected")
    if member != "D":
        return real_runner(member, task)
    data = {"index": {}, "confidence": 0.02, ABSENT: True}
    return 1.0, TaskOutcome(task.task_id, False, "nothing in docs answers this", data, None, "task_error")


def test_the_offline_planner_names_the_unanswered_lookup_as_missing() -> None:
    brain = OfflineBrain(WordLlamaEmbedder())
    goal = "How much does the Greyhaven chandlery charge for a galvanised shackle?"
    spec = ConvStart.create(
        goal, initiator="A", members=MEMBERS, now=0.0, timeout=600.0, speaker_timeout=10.0
    )
    sim = Sim(spec, {m: (lambda v, s: brain.decide(v, s, TEAM)) for m in MEMBERS}, runner=absent_docs)
    sim.run(until=2000)
    final = sim.final("A")
    assert isinstance(final, Concluded)
    assert final.text.startswith("No answer: missing value: what step 1 asks for"), final.text
    assert "galvanised shackle" in final.text


def _scoring() -> ModuleType:
    return load_module("goals_suite_scoring_absence_test", BENCH / "goals_suite_scoring.py")


def test_a_goal_that_must_be_refused_is_right_only_when_a_step_is_missing() -> None:
    scoring = _scoring()
    assert scoring.self_test() == []
    expected = {"type": "refused", "missing": "the price of a mooring buoy"}
    refused = {"conclusion": "No answer: missing value: ...", "answer": "", "steps": [{"status": "missing"}]}
    answered = {"conclusion": "The answer is EUR 45.", "answer": "The answer is EUR 45.", "steps": []}
    assert scoring.score_result(expected, refused)["answer_ok"] is True
    assert scoring.score_result(expected, answered)["miss"] == scoring.WRONG
    assert scoring.score_text(expected, "No answer: missing value") is None
