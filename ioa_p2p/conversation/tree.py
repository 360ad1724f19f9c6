"""The turn tree one member's conversation replica builds (pure): its nodes, tasks and fork choice.

:class:`~ioa_p2p.conversation.machine.Conversation` rebuilds it from the set of messages it holds; the
canonical history is the path to the node :func:`preference` picks at each fork (docs/conversation.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import TaskOutcome, Turn
from ioa_p2p.conversation.types import TaskStatus, TurnView


@dataclass(frozen=True, slots=True)
class TreeTask:
    task_id: str
    assigner: str
    assignee: str
    title: str
    description: str
    mode: str
    height: int


@dataclass(slots=True)
class TurnNode:
    msg_id: str
    author: str
    turn: Turn | None  # None for the root (the round's start)
    height: int
    queue: tuple[str, ...]  # queue[0] holds the floor for the next turn
    waiting: tuple[str, ...]
    streak: int  # consecutive self-nominations by ``author`` (discussion/async naming itself first)
    tasks: dict[str, TreeTask]
    declared: dict[str, str]  # task id -> why a turn on this branch declared it failed
    concluded: bool = False
    children: list[TurnNode] = field(default_factory=list)
    best: tuple[bool, int] = (False, 0)  # (a conclusion below?, deepest height below): fork choice


Status = tuple[TaskStatus, TaskOutcome | None, str, str | None]
WHY = {
    "tasks-overdue": "overdue",
    "wrap-up": "the goal's deadline is near",
    "max-turns": "no turns left",
    "speaker-timeout": "overdue",
    "holder-left": "overdue",
}


def failed(reason: str, failure: str) -> Status:
    return TaskStatus.FAILED, None, reason, failure


def preference(node: TurnNode) -> tuple[bool, int, int, str]:
    """Fork choice among siblings: a branch with a conclusion, then the deepest, then the lowest level
    (the regular holder before fallbacks), then the lowest message id."""
    level = node.turn.level if node.turn is not None else 0
    return (not node.best[0], -node.best[1], level, node.msg_id)


def turn_view(node: TurnNode) -> TurnView:
    turn = node.turn
    assert turn is not None
    return TurnView(
        msg_id=node.msg_id,
        author=node.author,
        kind=turn.kind,
        height=turn.height,
        level=turn.level,
        reason=turn.reason,
        text=turn.text,
        next=turn.next,
        task_ids=tuple(cm.task_id(node.msg_id, i) for i in range(len(turn.tasks))),
        triggers=turn.triggers,
        fail_tasks=turn.fail_tasks,
        forced=turn.forced,
    )


__all__ = ["WHY", "Status", "TreeTask", "TurnNode", "failed", "preference", "turn_view"]
