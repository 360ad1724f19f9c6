"""The offline plan is the floor under a model (issue 23): a weak model (off-topic answers, the prompt
echoed back, early conclusions) never makes a goal worse than the offline planner alone.

Whole rounds on the deterministic simulator (tests/conv_sim.py) with every member's brain an LLMBrain over
the same weak model, the offline planner as its fallback; tasks run by a scripted runner that computes what
a calculator and a Python runner would. The same round with the offline planner alone gives the answer the
floored round must give.
"""

from __future__ import annotations

import re
from typing import Any

import trio

from ioa_p2p.conversation.brains.base import MemberInfo, fallback_kind, turn_origin
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.testing.models import WeakModel

from .conv_sim import Sim

GOAL = "Run this code:\n```python\nprint(sum(range(1, 8)))\n```\nThen calculate the result times 3."
TEAM = [
    MemberInfo("pA", "coordinator", "Coordinates agents.", (), False),
    MemberInfo("pB", "coder", "Runs Python code.", ("python",), True, ("code",)),
    MemberInfo("pC", "calculator", "Exact arithmetic.", ("math",), True, ("arithmetic",)),
]


def runner(member: str, task: Any) -> tuple[float, TaskOutcome]:
    """The coder runs the code (the sum it prints), the calculator evaluates ``Calculate A * B``."""
    text = task.description
    if member == "pB" and "print(sum(range(1, 8)))" in text:
        return 1.0, TaskOutcome(task.task_id, True, "28\n")
    m = re.search(r"Calculate (\d+) \* (\d+)", text)
    if member == "pC" and m:
        product = int(m.group(1)) * int(m.group(2))
        return 1.0, TaskOutcome(task.task_id, True, f"{m.group(1)} * {m.group(2)} = {product}")
    return 1.0, TaskOutcome(task.task_id, False, "cannot do this task", failure="rejected")


def run_round(make_brain: Any) -> Sim:
    ids = [m.peer_id for m in TEAM]
    start = ConvStart.create(GOAL, initiator="pA", members=ids, now=0.0, speaker_timeout=30.0, max_turns=12)
    brains = {}
    for peer in ids:
        brain = make_brain()

        async def take(view: Any, speak: Any, brain: Any = brain) -> Any:
            return await brain.take_turn(view, speak, TEAM)

        brains[peer] = take
    return Sim(start, brains, runner=runner)


async def test_a_weak_model_never_makes_the_goal_worse_than_the_offline_planner() -> None:
    offline = run_round(lambda: OfflineBrain(HashingEmbedder()))
    with trio.fail_after(20):
        await offline.arun(until=900)
    floor = offline.final("pA")
    assert isinstance(floor, Concluded) and floor.text.startswith("The answer is 84.")

    model = WeakModel()
    weak = run_round(lambda: LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=0))
    with trio.fail_after(20):
        await weak.arun(until=900)
    final = weak.final("pA")
    assert isinstance(final, Concluded) and final.text.startswith("The answer is 84.")
    assert "The answer is 7" not in final.text and "The task:" not in final.text
    view = weak.members["pA"].conv.view()
    # every step was assigned, each in the plan's types; the model was asked and overruled, visibly
    assert sorted(t.title for t in view.tasks) == ["step 1/2", "step 2/2"]
    assert model.calls >= 2
    floored = [t for t in view.turns if fallback_kind(t.text) == "no_progress"]
    assert floored and all(turn_origin(t.text) == "fallback" for t in floored)
    assert not any(t.text.startswith(("Lovely weather", "The task:")) for t in view.turns)


async def test_the_model_still_decides_when_it_takes_the_planners_step() -> None:
    """A model that assigns the plan's next step to the same member keeps its words on the turn."""
    from ioa_p2p.testing.models import ScriptedModel

    task = {"assignee": "coder", "title": "run it", "description": "run the code"}
    good = '{"message_type": "sync_task", "content": "Coder, run the snippet.", "tasks": [%s]}'
    import json

    model = ScriptedModel([good % json.dumps(task)])
    brain = LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=0)
    sim = run_round(lambda: brain)
    first = sim.members["pA"]
    speaks = [d for d in first.conv.on_tick(0.0) if type(d).__name__ == "Speak"]
    draft = await brain.take_turn(first.conv.view(), speaks[0], TEAM)
    assert draft.text.startswith("Coder, run the snippet.") and turn_origin(draft.text) == "model"
    assert [(t.assignee, t.title) for t in draft.tasks] == [("pB", "step 1/2")]
