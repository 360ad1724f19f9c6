"""A teammate (or the initiator who set the round's rules) cannot make a member's work unbounded.

Regression: every message rebuilds the turn tree and each node copies its branch's tasks, so a round with
``max_turns = 10000`` whose holder kept naming itself and assigning 32 tasks per turn cost a member minutes
of CPU and hundreds of megabytes after a few hundred turns (600 turns: 53 s, 356 MB), blocking the node's
trio thread; at 10,000 turns the node would never recover. Now a member leaves a round past
``MAX_HELD_TURNS`` turns or ``MAX_ROUND_TASKS`` tasks (``Aborted``), and a node runs at most
``MAX_RUNNING_TASKS`` tasks at once whatever teammates assign.
"""

from __future__ import annotations

import pytest

from ioa_p2p.conversation import machine as conversation
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, Turn
from ioa_p2p.conversation.types import Aborted, CancelTask, Incoming, StartTask

#: Rules only a hostile initiator would set: long round, unlimited self-turns.
START = ConvStart(
    goal="flood",
    initiator="A",
    members=("A", "B"),
    first_speaker="A",
    deadline=1e9,
    max_turns=10_000,
    speaker_timeout=1e6,
    task_timeout=1e6,
    max_self_turns=10_000,
    wrap_up=1.0,
)


def flood(conv: Conversation, turns: int, tasks_per_turn: int, assignee: str = "A") -> list:
    """The holder ``A`` posts ``turns`` turns, each naming itself next, with the given tasks."""
    decisions: list = []
    prev = "S"
    for height in range(turns):
        tasks = tuple(TaskAssignment(assignee, "t", "do it") for _ in range(tasks_per_turn))
        kind = cm.TASK_ASYNC if tasks else cm.DISCUSSION
        turn = Turn(kind, prev, height, "mine again", tasks=tasks, next=("A",))
        msg_id = f"m{height:05d}"
        decisions += conv.on_message(Incoming(msg_id, "A", kind, turn.to_content()), 1.0 + height)
        prev = msg_id
        if conv.ended:
            break
    return decisions


def test_a_task_flood_makes_the_member_leave_the_round() -> None:
    conv = Conversation(START, me="B", start_id="S", now=0.0)
    decisions = flood(conv, 20, 32, assignee="B")
    assert conv.ended and conv.view().status == "aborted"
    started = [d for d in decisions if isinstance(d, StartTask)]
    cancelled = {d.task_id for d in decisions if isinstance(d, CancelTask)}
    assert len(started) == conversation.MAX_ROUND_TASKS  # 8 turns of 32: the 9th is one too many
    assert {d.task.task_id for d in started} == cancelled  # leaving cancels what this member runs
    assert isinstance(decisions[-1], Aborted) and "limits" in decisions[-1].reason


def test_a_turn_flood_makes_the_member_leave_the_round(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversation, "MAX_HELD_TURNS", 40)  # the real limit (1200) takes seconds
    conv = Conversation(START, me="B", start_id="S", now=0.0)
    decisions = flood(conv, 60, 0)
    assert conv.ended and isinstance(decisions[-1], Aborted)
    assert len(conv.view().turns) == 40


def test_a_round_within_the_launch_limits_is_not_cut_short() -> None:
    start = ConvStart.create("g", initiator="A", members=["A", "B"], now=0.0, max_turns=200, timeout=1e6)
    conv = Conversation(start, me="B", start_id="S", now=0.0)
    prev = "S"
    for height in range(150):  # alternate speakers: 150 turns, 150 tasks, no abort
        author, other = ("A", "B") if height % 2 == 0 else ("B", "A")
        task = TaskAssignment(author, "t", "d")
        turn = Turn(cm.TASK_ASYNC, prev, height, "x", tasks=(task,), next=(other,))
        assert not any(
            isinstance(d, Aborted)
            for d in conv.on_message(Incoming(f"m{height}", author, cm.TASK_ASYNC, turn.to_content()), 1.0)
        )
        prev = f"m{height}"
    assert not conv.ended and len(conv.view().turns) == 150
