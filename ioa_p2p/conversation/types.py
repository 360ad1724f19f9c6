"""The values that go in and out of the conversation state machine (pure data, no logic but views).

Inputs: :class:`Incoming` (a verified chat message), :class:`TurnDraft` (a brain's proposal).
Views: :class:`ConversationView` with :class:`TurnView`, :class:`TaskView`, :class:`Floor`.
Decisions: :class:`Speak`, :class:`StartTask`, :class:`CancelTask`, :class:`Post`, :class:`Concluded`,
:class:`Aborted`, :class:`Rejected`. See :mod:`ioa_p2p.conversation` for how they are used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.costs import (
    agent_labels,
    costs_appendix,
    nested_agents,
    outside_lines,
    task_costs,
)
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment
from ioa_p2p.conversation.plan import SharedStep


class TaskStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


# --------------------------------------------------------------------------- inputs and views


@dataclass(frozen=True, slots=True)
class Incoming:
    """A chat message already verified by the chat layer (signature, membership)."""

    msg_id: str  # the chat message's id (hex hash), unique in the chat
    author: str  # peer id text of the signer
    kind: str
    content: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class TurnDraft:
    """What a brain proposes for its turn; :meth:`Conversation.compose_turn` repairs it into a valid Turn."""

    kind: str
    text: str
    next: tuple[str, ...] = ()
    tasks: tuple[TaskAssignment, ...] = ()
    triggers: tuple[str, ...] = ()
    #: The shared plan as this brain sees it after the turn (None: no opinion); posted as ``conv.plan``.
    plan: tuple[SharedStep, ...] | None = None


@dataclass(frozen=True, slots=True)
class TaskView:
    task_id: str
    assigner: str
    assignee: str
    title: str
    description: str
    mode: str  # "sync" or "async"
    height: int  # height of the assigning turn
    status: TaskStatus
    text: str = ""  # the result text, or why it failed
    data: Mapping[str, Any] | None = None
    files: Mapping[str, bytes] | None = None
    failure: str | None = None
    progress: str = ""


@dataclass(frozen=True, slots=True)
class TurnView:
    msg_id: str
    author: str
    kind: str
    height: int
    level: int
    reason: str
    text: str
    next: tuple[str, ...]
    task_ids: tuple[str, ...]
    triggers: tuple[str, ...]
    fail_tasks: tuple[str, ...]
    forced: bool


@dataclass(frozen=True, slots=True)
class Floor:
    height: int  # the height of the next turn
    holder: str
    chain: tuple[str, ...]  # holder first, then the fallback speakers in order (level = index)
    waiting: tuple[str, ...]  # running tasks the holder waits for (sync assignment or pause)
    must_conclude: bool  # the next turn is the last one allowed by max_turns


@dataclass(frozen=True, slots=True)
class ConversationView:
    """Everything a brain needs to take a turn (and a UI to show the state)."""

    start: ConvStart
    me: str
    status: str  # "running", "concluded" or "aborted"
    turns: tuple[TurnView, ...]
    tasks: tuple[TaskView, ...]
    floor: Floor | None
    left: frozenset[str]
    conclusion: TurnView | None = None
    #: The round's latest shared plan (``conv.plan``), added by the node (the machine does not hold it).
    plan: tuple[SharedStep, ...] = ()

    def task(self, task_id: str) -> TaskView | None:
        return next((t for t in self.tasks if t.task_id == task_id), None)


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class SpeakToken:
    tip: str
    level: int
    height: int


@dataclass(frozen=True, slots=True)
class Speak:
    token: SpeakToken
    reason: str  # "" for an ordinary turn; else why this member takes the floor
    must_conclude: bool
    fail_tasks: tuple[str, ...]  # overdue tasks this turn will declare failed


@dataclass(frozen=True, slots=True)
class StartTask:
    task: TaskView
    deadline: float  # Unix seconds: report a failed result (timeout) if not done by then


@dataclass(frozen=True, slots=True)
class CancelTask:
    task_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Post:
    kind: str
    content: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Concluded:
    text: str
    author: str
    msg_id: str
    forced: bool


@dataclass(frozen=True, slots=True)
class Aborted:
    reason: str


@dataclass(frozen=True, slots=True)
class Rejected:
    msg_id: str
    author: str
    reason: str


Decision = Speak | StartTask | CancelTask | Post | Concluded | Aborted | Rejected


def compose_conclusion(
    view: ConversationView, lines: Iterable[str] = (), names: Mapping[str, str] | None = None
) -> str:
    """A conclusion built from the task results alone (used when a brain cannot produce one); agents by
    their card names (``names``: peer ID -> name, as this member knows them)."""
    labels = agent_labels([t.assignee for t in view.tasks], names)
    parts = [f"Goal: {view.start.goal}", *lines]
    done = [t for t in view.tasks if t.status is TaskStatus.COMPLETED]
    failed = [t for t in view.tasks if t.status is TaskStatus.FAILED]
    for t in done:
        parts.append(f"- {t.title or t.description[:60]} ({labels[t.assignee]}): {t.text.strip()[:2000]}")
    for t in failed:
        parts.append(f"- FAILED {t.title or t.description[:60]} ({labels[t.assignee]}): {t.text[:500]}")
    if not done and not failed:
        parts.append("No task results are available.")
    return "\n".join(parts)[: cm.MAX_TEXT]


def append_costs(text: str, view: ConversationView, names: Mapping[str, str] | None = None) -> str:
    """A conclusion ends with the per-agent cost table of the finished tasks (``costs.py``), computed from the
    assignees' signed results the conversation accepted, agents by card name with their peer IDs; then
    the agents outside the round's members that took part in its tasks' sub-teams."""
    finished = [t for t in view.tasks if t.status in (TaskStatus.COMPLETED, TaskStatus.FAILED)]
    table = task_costs((t.assignee, t.task_id, t.status is TaskStatus.COMPLETED, t.data) for t in finished)
    appendix = costs_appendix(table, names)
    members = set(view.start.members)
    outside = [a for t in finished for a in nested_agents(t.data) if a[0] not in members]
    appendix = "\n".join(x for x in (appendix, *outside_lines(outside)) if x)
    if not appendix or appendix in text:
        return text[: cm.MAX_TEXT]
    return text[: max(0, cm.MAX_TEXT - len(appendix) - 2)] + "\n\n" + appendix


__all__ = [
    "Aborted",
    "CancelTask",
    "Concluded",
    "ConversationView",
    "Decision",
    "Floor",
    "Incoming",
    "Post",
    "Rejected",
    "Speak",
    "SpeakToken",
    "StartTask",
    "TaskStatus",
    "TaskView",
    "TurnDraft",
    "TurnView",
    "append_costs",
    "compose_conclusion",
]
