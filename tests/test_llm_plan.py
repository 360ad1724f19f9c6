"""Issue 11's contract for the LLM brain: a model's turn may produce the plan (the planner's types, as JSON);
the plan is posted in the chat, checked, worked step by step by ability with values bound in (whatever
brain the next speaker runs), and concluded answer first; an invalid plan is sent back to the model."""

from __future__ import annotations

import json
from typing import Any

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.conversation.brains.base import MemberInfo
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.planning.posted import PLAN_PREFIX, posted_plan
from ioa_p2p.testing.models import ScriptedModel

from .conv_sim import Sim

TEAM = [
    MemberInfo("A", "coordinator", "Coordinates the team.", works=False),
    MemberInfo("B", "calculator", "Exact arithmetic.", ("math",), abilities=("arithmetic",)),
    MemberInfo("D", "librarian", "Answers questions from documents.", ("search",), abilities=("question",)),
]
GOAL = "What do three K2 drones weigh?"
PLAN = {
    "steps": [
        {
            "kind": "lookup",
            "text": "weight of one K2 drone",
            "template": "What is the weight of the K2 drone?",
        },
        {"kind": "calc", "text": "three of them", "template": "v1 * 3", "needs": [1]},
    ],
    "answer_step": 2,
}


def decision(plan: Any) -> str:
    return json.dumps({"thought": "", "message_type": "discussion", "content": "Look it up, then multiply.",
                       "next_speakers": ["coordinator"], "work_plan": plan})  # fmt: skip


def runner(member: str, task: Any) -> tuple[float, TaskOutcome]:
    if member == "B":
        lines = [f"{c.expression} = {c.shown()}" for c in calculate(task.description)]
        return 0.5, TaskOutcome(task.task_id, True, "\n".join(lines))
    value = {"kind": "number", "value": 3.4, "unit": "kg", "text": "3.4 kg"}
    return 0.5, TaskOutcome(task.task_id, True, "3.4 kg [drones.md:5]", {"value": value})


async def run(model: ScriptedModel) -> Sim:
    brain = LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=1)

    async def take(view: Any, speak: Any) -> Any:
        return await brain.take_turn(view, speak, TEAM)

    ids = tuple(m.peer_id for m in TEAM)
    spec = ConvStart.create(GOAL, initiator="A", members=ids, now=0.0, speaker_timeout=30.0, timeout=600.0)
    sim = Sim(spec, {p: take for p in ids}, runner=runner)
    await sim.arun(until=600)
    return sim


async def test_a_model_plan_is_posted_worked_by_ability_and_answered_first() -> None:
    model = ScriptedModel([decision(PLAN)])
    sim = await run(model)
    final = sim.final("A")
    assert isinstance(final, Concluded) and final.text.startswith("The answer is 10.2 kg."), final
    assert len(model.calls) == 1  # the model planned once; every later turn worked the posted plan
    view = sim.members["B"].conv.view()
    assert view.turns[0].text.splitlines()[-1].startswith(PLAN_PREFIX)
    plan = posted_plan([t.text for t in view.turns], GOAL)
    assert plan is not None and [s.kind for s in plan.steps] == ["lookup", "calc"]
    by_title = {t.title: t for t in view.tasks}
    assert by_title["step 1/2"].assignee == "D" and by_title["step 2/2"].assignee == "B"
    assert by_title["step 2/2"].description == "Calculate 3.4 * 3"  # the value, bound in


async def test_an_invalid_plan_goes_back_to_the_model_with_the_reason() -> None:
    bad = {"steps": [{"kind": "calc", "text": "x", "template": "the weight times three", "needs": [2]}]}
    model = ScriptedModel([decision(bad), decision(PLAN)])
    sim = await run(model)
    assert len(model.calls) == 2
    retry = json.dumps(model.calls[1])
    assert "not an arithmetic expression" in retry
    final = sim.final("A")
    assert isinstance(final, Concluded) and final.text.startswith("The answer is 10.2 kg.")
