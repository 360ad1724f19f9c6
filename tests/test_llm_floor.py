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


SQUARES_GOAL = "Multiply 17 by 23 and sum the squares of 1 to 10"
SQUARES_CODE = "print(sum(n * n for n in range(1, 11)))"


def squares_runner(member: str, task: Any) -> tuple[float, TaskOutcome]:
    """The calculator multiplies; the coder runs the one snippet (no runner understands the words)."""
    if member == "pB" and task.description.strip() == SQUARES_CODE:
        return 1.0, TaskOutcome(task.task_id, True, "385\n")
    if member == "pC" and "17 * 23" in task.description:
        return 1.0, TaskOutcome(task.task_id, True, "17 * 23 = 391")
    return 1.0, TaskOutcome(task.task_id, False, "cannot do this task", failure="rejected")


async def test_a_step_the_planner_can_only_word_goes_to_whom_the_model_chose_with_its_work() -> None:
    """'sum the squares of 1 to 10' is a step of no known kind: the planner would hand its words to the
    member they match best, which cannot do them. The model's turn that gives the step to the coder as
    code stands (no ``no_progress``): the step's value is the coder's, and the conclusion has both values."""
    import json

    from ioa_p2p.testing.models import ScriptedModel

    decisions = [
        {"message_type": "sync_task", "content": "Calculator, the product.",
         "tasks": [{"assignee": "calculator", "title": "product", "description": "Calculate 17 * 23"}]},
        {"message_type": "async_task", "content": "Coder, run this meanwhile.",
         "next_speakers": ["coordinator"],
         "tasks": [{"assignee": "coder", "title": "squares", "description": SQUARES_CODE}]},
        {"message_type": "pause", "content": "Waiting for the coder.", "triggers": ["T2"]},
        {"message_type": "conclusion", "content": "17 * 23 = 391; the squares sum to 385."},
    ]  # fmt: skip
    model = ScriptedModel([json.dumps(d) for d in decisions])
    ids = [m.peer_id for m in TEAM]
    start = ConvStart.create(
        SQUARES_GOAL, initiator="pA", members=ids, now=0.0, speaker_timeout=30.0, max_turns=12
    )
    llm = LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=0)
    offline = OfflineBrain(HashingEmbedder())

    async def take(view: Any, speak: Any, peer: str) -> Any:
        return await (llm if peer == "pA" else offline).take_turn(view, speak, TEAM)

    brains = {p: (lambda v, s, p=p: take(v, s, p)) for p in ids}
    sim = Sim(start, brains, runner=squares_runner)
    with trio.fail_after(20):
        await sim.arun(until=900)
    final = sim.final("pA")
    assert isinstance(final, Concluded) and "391" in final.text and "385" in final.text
    view = sim.members["pA"].conv.view()
    assert not any(fallback_kind(t.text) for t in view.turns)
    steps = {t.title: (t.assignee, t.status.value, t.description) for t in view.tasks}
    assert steps == {
        "step 1/2": ("pC", "completed", "Calculate 17 * 23"),
        "step 2/2": ("pB", "completed", SQUARES_CODE),
    }
    assert [turn_origin(t.text) for t in view.turns if t.author == "pA"][:3] == ["model"] * 3
