"""The turn tree one member's conversation replica builds (pure): its nodes, tasks and fork choice, the
rules a turn must follow (:func:`invalid_turn`) and the node it makes (:func:`child_node`).

:class:`~ioa_p2p.conversation.machine.Conversation` rebuilds it from the set of messages it holds; the
canonical history is the path to the node :func:`preference` picks at each fork (docs/conversation.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome, Turn
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


def chain_of(members: Sequence[str], holder: str) -> tuple[str, ...]:
    """The fallback rotation: the holder, then every other member in ``start.members`` order after it."""
    i = members.index(holder)
    return tuple(members[(i + k) % len(members)] for k in range(len(members)))


def successor_of(members: Sequence[str], member: str) -> str:
    return chain_of(members, member)[1] if len(members) > 1 else member


def invalid_turn(
    parent: TurnNode,
    author: str,
    turn: Turn,
    start: ConvStart,
    members: Sequence[str],
    running: Callable[[str, TurnNode], bool],
) -> str | None:
    """Why ``turn`` by ``author`` is not a valid successor of ``parent`` (None when it is valid), in a round
    begun by ``start`` among ``members``; ``running(task_id, node)``: the task still runs at ``node``."""
    if parent.concluded:
        return "the conversation already concluded"
    if turn.prev != parent.msg_id or turn.height != parent.height + 1:
        return "the turn's prev/height do not follow its parent"
    if turn.height >= start.max_turns:
        return "max_turns reached"
    chain = chain_of(members, parent.queue[0])
    if turn.level >= len(chain) or chain[turn.level] != author:
        return f"{author} does not hold the floor at level {turn.level}"
    if turn.height == start.max_turns - 1 and turn.kind != cm.CONCLUSION:
        return "the last turn allowed by max_turns must be a conclusion"
    if any(t not in parent.tasks for t in turn.fail_tasks):
        return "fail_tasks names an unknown task"
    if turn.kind != cm.CONCLUSION:
        pending = [t for t in parent.waiting if running(t, parent)]
        if any(t not in turn.fail_tasks for t in pending):
            return "the floor waits for running tasks it does not declare failed"
    member_set = set(members)
    if any(n not in member_set for n in turn.next):
        return "next names a non-member"
    if any(t.assignee not in member_set for t in turn.tasks):
        return "a task is assigned to a non-member"
    if turn.kind == cm.PAUSE and (not turn.triggers or any(t not in parent.tasks for t in turn.triggers)):
        return "a pause must name known tasks as triggers"
    return None


def child_node(
    parent: TurnNode, msg_id: str, author: str, turn: Turn, members: Sequence[str], max_self_turns: int
) -> TurnNode:
    """The node a valid ``turn`` by ``author`` (message ``msg_id``) makes under ``parent``: its tasks, the
    tasks it declares failed, who holds the floor next (the self-turn cap applied) and what it waits for."""
    tasks = dict(parent.tasks)
    mode = "sync" if turn.kind == cm.TASK_SYNC else "async"
    new_ids = []
    for i, t in enumerate(turn.tasks):
        tid = cm.task_id(msg_id, i)
        tasks[tid] = TreeTask(tid, author, t.assignee, t.title, t.description, mode, turn.height)
        new_ids.append(tid)
    declared = dict(parent.declared)
    for tid in turn.fail_tasks:
        why = WHY.get(turn.reason, "cancelled")
        declared.setdefault(tid, f"declared failed by {author} at turn {turn.height} ({why})")
    rest = tuple(q for q in parent.queue[1:] if q != author)
    waiting: tuple[str, ...] = ()
    if turn.kind == cm.TASK_SYNC:
        queue, waiting = (author, *rest), tuple(new_ids)
    elif turn.kind == cm.PAUSE:
        queue, waiting = (author, *rest), turn.triggers
    elif turn.kind == cm.CONCLUSION:
        queue = (author,)
    else:
        queue = tuple(dict.fromkeys(rest + turn.next))
    streak = parent.streak if parent.author == author else 0
    if turn.kind in (cm.DISCUSSION, cm.TASK_ASYNC) and queue and queue[0] == author:
        if streak >= max_self_turns:
            queue = queue[1:]  # the self-turn cap: the floor goes to someone else
        else:
            streak += 1
    if not queue:
        queue = (successor_of(members, author),)
    node = TurnNode(msg_id, author, turn, turn.height, queue, waiting, streak, tasks, declared)
    node.concluded = turn.kind == cm.CONCLUSION
    return node
