"""The offline planner: step planning, matching steps to members by embeddings, sync/async by dependencies,
failover, fallback speakers continuing the plan, and the label on everything it writes."""

from __future__ import annotations

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import MemberInfo, turn_origin
from ioa_p2p.conversation.brains.offline import PREFIX, OfflineBrain
from ioa_p2p.conversation.costs import COSTS_HEADING
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded, TaskStatus
from ioa_p2p.embedding import WordLlamaEmbedder
from ioa_p2p.errors import TaskRejected
from ioa_p2p.planning import parse_value, plan_request

from .conv_sim import Sim


def plan_steps(goal: str):  # issue 11: the plan comes from ioa_p2p.planning (typed steps, needs)
    return plan_request(goal).steps


TEAM = [
    MemberInfo("A", "coordinator", "Talks with the user and coordinates the team."),
    MemberInfo("B", "calculator", "Exact calculator: evaluates arithmetic in plain-language tasks "
               "(percentages, fractions, powers, roots, sums, averages).", ("arithmetic", "math")),
    MemberInfo("C", "python", "Runs Python code in a sandbox and returns its output and files.",
               ("code", "python", "programming")),
    MemberInfo("D", "docs", "Answers questions from a folder of documents, with citations.",
               ("retrieval", "documentation", "search")),
]  # fmt: skip
MEMBERS = tuple(m.peer_id for m in TEAM)


@pytest.fixture(scope="module")
def brain() -> OfflineBrain:
    return OfflineBrain(WordLlamaEmbedder())


def real_runner(member: str, task):
    """B computes with the real calculator adapter code; C and D answer canned text."""
    if member == "B":
        try:
            lines = [f"{c.expression} = {c.shown()}" for c in calculate(task.description)]
        except TaskRejected as exc:
            return 0.5, TaskOutcome(task.task_id, False, str(exc), None, None, "rejected")
        return 0.5, TaskOutcome(task.task_id, True, "\n".join(lines))
    answers = {"C": "2 3 5 7 11 13 17 19 23 29", "D": "audit checks every signature [docs/audit.md]"}
    return 2.0, TaskOutcome(task.task_id, True, answers.get(member, "ok"))


def run(goal, brain, *, runner=real_runner, crash=(), leave=(), **spec_kw):
    spec = ConvStart.create(goal, initiator="A", members=MEMBERS, now=0.0,
                            **{"timeout": 600.0, "speaker_timeout": 10.0, **spec_kw})  # fmt: skip
    sim = Sim(spec, {m: (lambda v, s: brain.decide(v, s, TEAM)) for m in MEMBERS}, runner=runner)
    for who, when in crash:
        sim.crash(who, when)
    for who, when in leave:
        sim.leave(who, when)
    sim.run(until=2000)
    return sim


def test_plan_steps_and_dependencies() -> None:
    steps = plan_steps("Compute 17 * 23, then multiply it by 2. Find in the docs how audit works.")
    # issue 11: steps carry their kind and the steps whose values they need
    assert [(s.index, s.kind, s.needs) for s in steps] == [
        (1, "calc", ()),
        (2, "calc", (1,)),
        (3, "lookup", ()),
    ]
    assert len(plan_steps("What is 2 + 2?")) == 1
    value = parse_value("17 * 23 = 391")
    assert value is not None and value.number == 391


def test_steps_go_to_the_best_matching_member(brain) -> None:
    steps = plan_steps("Calculate 15% of 80. Write and run a Python program printing primes. "
                       "Look up in the documentation how the audit works.")  # fmt: skip
    ranking = brain.rank(steps, TEAM)
    assert [r[0] for r in ranking] == ["B", "C", "D"]


def test_parallel_steps_async_then_dependent_step_sync(brain) -> None:
    goal = ("Compute 17 * 23, then compute it times 2. Write and run a Python script printing "
            "the first 10 primes. Find in the docs how the audit works.")  # fmt: skip
    sim = run(goal, brain)
    view = sim.members["C"].conv.view()
    kinds = [t.kind for t in view.turns]
    assert kinds == [cm.TASK_ASYNC, cm.PAUSE, cm.TASK_SYNC, cm.CONCLUSION]
    first = view.turns[0]
    assigned = {view.task(t).title: view.task(t).assignee for t in first.task_ids}
    assert assigned == {"step 1/4": "B", "step 3/4": "C", "step 4/4": "D"}
    step2 = next(t for t in view.tasks if t.title == "step 2/4")
    # issue 11: the task carries the value bound into the expression, not the clause's words
    assert step2.description == "Calculate 391 * 2" and step2.mode == "sync"
    assert step2.text.endswith("= 782")
    conclusion = sim.final("A")
    assert isinstance(conclusion, Concluded) and "782" in conclusion.text and "2 3 5 7" in conclusion.text
    # issue 11: the conclusion's first line is the answer; the planner's label closes it, before the
    # cost per agent every conclusion ends with (issue 13)
    assert all(t.text.startswith(PREFIX) for t in view.turns if t.kind != cm.CONCLUSION)
    answer, costs = conclusion.text.split("\n\n" + COSTS_HEADING, 1)
    assert answer.startswith("The answers are: ") and answer.endswith("(offline planner)")
    assert "\ntotal  4 (4 ok)" in costs  # the four tasks of B, C and D
    # every turn, the answer-first conclusion with its cost table included, is the offline planner's
    assert {turn_origin(t.text) for t in view.turns} == {"offline"}
    assert {type(sim.final(m)) for m in MEMBERS} == {Concluded}


def test_failed_step_fails_over_to_the_next_best_member(brain) -> None:
    def runner(member, task):
        if member == "B":
            return 1.0, TaskOutcome(task.task_id, False, "calculator crashed", None, None, "crash")
        return 1.0, TaskOutcome(task.task_id, True, "12 * 12 = 144")  # issue 11: "ok" answers nothing

    sim = run("Compute 12 * 12", brain, runner=runner)
    view = sim.members["A"].conv.view()
    attempts = [t for t in view.tasks if t.title == "step 1/1"]
    assert [t.assignee for t in attempts][0] == "B" and len(attempts) == 2
    assert attempts[0].status is TaskStatus.FAILED and attempts[1].assignee != "B"
    assert isinstance(sim.final("A"), Concluded)


def test_step_of_a_member_who_leaves_is_reassigned(brain) -> None:
    def runner(member, task):
        if member == "B":
            return None  # B never answers; it leaves
        return 1.0, TaskOutcome(task.task_id, True, "12 * 12 = 144")  # issue 11: "ok" answers nothing

    sim = run("Compute 12 * 12", brain, runner=runner, leave=[("B", 5.0)])
    view = sim.members["A"].conv.view()
    attempts = [t for t in view.tasks if t.title == "step 1/1"]
    assert attempts[0].assignee == "B" and attempts[0].failure == "left"
    assert len(attempts) == 2 and attempts[1].assignee != "B"
    assert sim.end_time("A") < 60.0


def test_fallback_speaker_continues_the_same_plan(brain) -> None:
    goal = "Compute 17 * 23, then compute it times 2"
    sim = run(goal, brain, crash=[("A", 1.0)])  # the initiator dies after its first turn
    view = sim.members["B"].conv.view()
    assert view.turns[0].author == "A"
    assert any(t.author != "A" and t.level > 0 for t in view.turns)
    step2 = next(t for t in view.tasks if t.title == "step 2/2")
    assert step2.description == "Calculate 391 * 2" and step2.status is TaskStatus.COMPLETED
    final = sim.final("B")
    assert isinstance(final, Concluded) and "782" in final.text


def test_forced_conclusion_reports_what_is_there(brain) -> None:
    def runner(member, task):
        return (5000.0, TaskOutcome(task.task_id, True, "too late")) if member == "C" else real_runner(
            member, task)  # fmt: skip

    goal = "Compute 2 + 2. Write and run a Python script printing primes."
    sim = run(goal, brain, runner=runner, timeout=200.0, task_timeout=1000.0)
    final = sim.final("A")
    assert isinstance(final, Concluded) and final.forced
    # issue 11: the conclusion states the answer it has and names the step still running
    assert final.text.startswith("The answers are: Compute 2 + 2: 4")
    assert "step 2 (" in final.text and "still running" in final.text
    late = next(t for t in sim.members["A"].conv.view().tasks if t.assignee == "C")
    assert late.status is TaskStatus.FAILED and "deadline is near" in late.text


def test_an_unplanned_request_concludes_at_once_saying_why(brain) -> None:
    sim = run("How much do the K1 drone plus the K2 charger weigh?", brain)
    final = sim.final("A")
    assert isinstance(final, Concluded) and final.text.startswith("No answer: the question combines")
    assert not sim.members["A"].conv.view().tasks  # nothing assigned, nothing "completed"


def test_members_without_an_adapter_rank_after_those_that_do_the_work(brain) -> None:
    from dataclasses import replace

    # The calculator matches the step best; as a coordinator without an adapter it ranks last.
    steps = plan_steps("Calculate 15% of 80.")
    assert brain.rank(steps, TEAM)[0][0] == "B"
    team = [replace(m, works=False) if m.peer_id == "B" else m for m in TEAM]
    ranking = brain.rank(steps, team)[0]
    assert ranking[-1] == "B" and ranking[0] != "B"
