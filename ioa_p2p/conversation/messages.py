"""The content of conversation messages: the ``conv.*`` chat-message kinds (pure, no I/O).

A conversation travels inside a group chat as ordinary signed chat messages whose kind starts with ``conv.``
and whose content is a plain map. The content of each kind has a wire schema declared with the one schema
mechanism of signed bodies (:mod:`ioa_p2p.conversation.contents`: the kinds, their limits and the registry
:data:`CONTENT_TYPES`, version 1, re-exported here). Each kind also has a frozen dataclass here, what the
state machine uses, with
``to_content()`` (a dict of plain CBOR/JSON values) and ``from_content(...)``, which decodes through the
schema and raises :class:`~ioa_p2p.errors.InvalidContent` saying which field is wrong (extra or missing
keys included).

Kinds (the full schemas are in docs/conversation.md):

- ``conv.start``          :class:`ConvStart`   goal, members, limits (once per round, by the initiator);
- ``conv.discussion``     :class:`Turn`        a turn that talks and names the next speakers;
- ``conv.task.sync``      :class:`Turn`        assigns tasks; the floor returns to the assigner when all end;
- ``conv.task.async``     :class:`Turn`        assigns tasks that run in the background; names next speakers;
- ``conv.pause``          :class:`Turn`        holds the floor until the named (trigger) tasks end;
- ``conv.conclusion``     :class:`Turn`        ends the conversation with its conclusion;
- ``conv.task.progress``  :class:`TaskProgress`  a progress report by a task's assignee (not a turn);
- ``conv.task.result``    :class:`TaskOutcome`   a task's result or failure, by its assignee (not a turn).

``conv.start`` and the task turns (``conv.task.sync`` / ``conv.task.async``) may carry ``trace``: the W3C
``traceparent`` of the sender's span (docs/protocol.md §10.11), so the spans of one goal on every member's
node form one trace. It is an optional field of version 1: absent (the default, and always while tracing
is off) the content encodes exactly as before it existed. Peers of earlier versions refuse it, so a sender
puts it in only when every member says it reads it (:mod:`ioa_p2p.node.goals.trace_peers`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ioa_p2p.conversation.contents import (
    ALL_KINDS,
    CONCLUSION,
    CONTENT_TYPES,
    DISCUSSION,
    MAX_DESCRIPTION,
    MAX_FILES,
    MAX_GOAL,
    MAX_ID,
    MAX_ITEMS,
    MAX_TEXT,
    MAX_TITLE,
    PAUSE,
    PROGRESS,
    REASONS,
    RESULT,
    START,
    TASK_ASYNC,
    TASK_KINDS,
    TASK_SYNC,
    TURN_CONTENT,
    TURN_KINDS,
    AssignmentContent,
    ProgressContent,
    ResultContent,
    StartContent,
)
from ioa_p2p.conversation.failures import FAILURES
from ioa_p2p.errors import InvalidContent

# --------------------------------------------------------------------------- conv.start


@dataclass(frozen=True, slots=True)
class ConvStart:
    """The rules of one conversation round; every member builds the same state machine from it.

    Times are Unix seconds (floats here, integer milliseconds on the wire). ``members`` fixes the rotation
    order used by the fallback-speaker rule; it must contain ``initiator`` and ``first_speaker``.
    """

    goal: str
    initiator: str
    members: tuple[str, ...]
    first_speaker: str
    deadline: float
    max_turns: int = 20
    speaker_timeout: float = 60.0
    task_timeout: float = 300.0
    max_self_turns: int = 3
    wrap_up: float = 30.0
    depth: int = 0
    parent_chat: str = ""
    parent_task: str = ""
    trace: str = ""  # the initiator's traceparent ("" : none; docs/protocol.md §10.11)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """The wire schema's limits (:class:`StartContent`) plus the rules that span fields."""
        w = START
        for name in ("deadline", "speaker_timeout", "task_timeout", "wrap_up"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise InvalidContent(f"{w}.{name} must be a finite number of seconds >= 0")
        if self.speaker_timeout <= 0 or self.task_timeout <= 0:
            raise InvalidContent(f"{w}: speaker_timeout and task_timeout must be > 0")
        StartContent.from_value(self._wire().to_value())
        for name in ("initiator", "first_speaker"):
            if getattr(self, name) not in self.members:
                raise InvalidContent(f"{w}.{name} must be one of the members")

    def _wire(self) -> StartContent:
        return StartContent(
            goal=self.goal,
            initiator=self.initiator,
            members=tuple(self.members),
            first_speaker=self.first_speaker,
            deadline_ms=round(self.deadline * 1000),
            max_turns=self.max_turns,
            speaker_timeout_ms=round(self.speaker_timeout * 1000),
            task_timeout_ms=round(self.task_timeout * 1000),
            max_self_turns=self.max_self_turns,
            wrap_up_ms=round(self.wrap_up * 1000),
            depth=self.depth,
            parent_chat=self.parent_chat,
            parent_task=self.parent_task,
            trace=self.trace or None,
        )

    def to_content(self) -> dict[str, Any]:
        return self._wire().to_value()

    @classmethod
    def from_content(cls, content: object) -> ConvStart:
        c = StartContent.from_value(content)
        return cls(
            goal=c.goal,
            initiator=c.initiator,
            members=c.members,
            first_speaker=c.first_speaker,
            deadline=c.deadline_ms / 1000,
            max_turns=c.max_turns,
            speaker_timeout=c.speaker_timeout_ms / 1000,
            task_timeout=c.task_timeout_ms / 1000,
            max_self_turns=c.max_self_turns,
            wrap_up=c.wrap_up_ms / 1000,
            depth=c.depth,
            parent_chat=c.parent_chat,
            parent_task=c.parent_task,
            trace=c.trace or "",
        )

    @classmethod
    def create(
        cls,
        goal: str,
        *,
        initiator: str,
        members: Sequence[str],
        now: float,
        timeout: float = 600.0,
        max_turns: int = 20,
        speaker_timeout: float = 60.0,
        task_timeout: float | None = None,
        max_self_turns: int = 3,
        first_speaker: str | None = None,
        depth: int = 0,
        parent_chat: str = "",
        parent_task: str = "",
        trace: str = "",
    ) -> ConvStart:
        """The usual way to build the rules: a goal that must end ``timeout`` seconds after ``now``.

        The initiator is put first in the rotation; ``wrap_up`` (the last stretch in which every turn must
        be a conclusion) is the smaller of the speaker timeout and a quarter of the whole time.
        """
        ordered = [initiator] + [m for m in dict.fromkeys(members) if m != initiator]
        if task_timeout is None:
            task_timeout = max(speaker_timeout, timeout / 2)
        return cls(
            goal=goal,
            initiator=initiator,
            members=tuple(ordered),
            first_speaker=first_speaker or initiator,
            deadline=now + timeout,
            max_turns=max_turns,
            speaker_timeout=speaker_timeout,
            task_timeout=task_timeout,
            max_self_turns=max_self_turns,
            wrap_up=min(speaker_timeout, timeout / 4),
            depth=depth,
            parent_chat=parent_chat,
            parent_task=parent_task,
            trace=trace,
        )


# --------------------------------------------------------------------------- turns


@dataclass(frozen=True, slots=True)
class TaskAssignment:
    """One task inside a ``conv.task.sync`` / ``conv.task.async`` turn."""

    assignee: str
    title: str
    description: str

    def wire(self) -> AssignmentContent:
        return AssignmentContent(assignee=self.assignee, title=self.title, description=self.description)

    def to_content(self) -> dict[str, Any]:
        return self.wire().to_value()

    @classmethod
    def from_wire(cls, c: AssignmentContent) -> TaskAssignment:
        return cls(assignee=c.assignee, title=c.title, description=c.description)

    @classmethod
    def from_content(cls, content: object) -> TaskAssignment:
        return cls.from_wire(AssignmentContent.from_value(content))


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn: the one message the floor holder (or a fallback speaker) posts at ``height``.

    ``prev`` is the message id of the turn it follows (for height 0: the round's start id), ``level`` is 0
    for the regular holder and i > 0 for the i-th fallback speaker, ``fail_tasks`` lists running tasks this
    turn declares failed (overdue). Kind-specific fields: ``next`` (discussion, async), ``tasks`` (sync,
    async), ``triggers`` (pause), ``forced`` (conclusion). Fields not used by the kind stay empty.
    """

    kind: str
    prev: str
    height: int
    text: str
    level: int = 0
    reason: str = ""
    fail_tasks: tuple[str, ...] = ()
    next: tuple[str, ...] = ()
    tasks: tuple[TaskAssignment, ...] = ()
    triggers: tuple[str, ...] = ()
    forced: bool = False

    def to_content(self) -> dict[str, Any]:
        schema = TURN_CONTENT[self.kind]
        fields: dict[str, Any] = {
            "prev": self.prev,
            "height": self.height,
            "level": self.level,
            "reason": self.reason,
            "fail_tasks": tuple(self.fail_tasks),
            "text": self.text,
            "next": tuple(self.next),
            "tasks": tuple(t.wire() for t in self.tasks),
            "triggers": tuple(self.triggers),
            "forced": self.forced,
        }
        names = {f.name for f in dataclasses.fields(schema)}
        return schema(**{k: v for k, v in fields.items() if k in names}).to_value()

    @classmethod
    def from_content(cls, kind: str, content: object) -> Turn:
        schema = TURN_CONTENT.get(kind)
        if schema is None:
            raise InvalidContent(f"{kind!r} is not a turn kind; expected one of {sorted(TURN_KINDS)}")
        c = schema.from_value(content)
        return cls(
            kind=kind,
            prev=c.prev,
            height=c.height,
            text=c.text,
            level=c.level,
            reason=c.reason,
            fail_tasks=c.fail_tasks,
            next=getattr(c, "next", ()),
            tasks=tuple(TaskAssignment.from_wire(t) for t in getattr(c, "tasks", ())),
            triggers=getattr(c, "triggers", ()),
            forced=getattr(c, "forced", False),
        )


# --------------------------------------------------------------------------- task progress and results


@dataclass(frozen=True, slots=True)
class TaskProgress:
    """``conv.task.progress``: the assignee's progress report (informational; changes no state)."""

    task_id: str
    text: str
    fraction: float | None = None

    def to_content(self) -> dict[str, Any]:
        return ProgressContent(task_id=self.task_id, text=self.text, fraction=self.fraction).to_value()

    @classmethod
    def from_content(cls, content: object) -> TaskProgress:
        c = ProgressContent.from_value(content)
        return cls(c.task_id, c.text, None if c.fraction is None else float(c.fraction))


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """``conv.task.result``: how a task ended, posted by its assignee. Mirrors the adapters' TaskResult."""

    task_id: str
    ok: bool
    text: str
    data: Mapping[str, Any] | None = None
    files: Mapping[str, bytes] | None = None
    failure: str | None = None  # timeout, crash, bad_output, rejected, task_error, cancelled, left

    def __post_init__(self) -> None:
        if self.ok != (self.failure is None):
            raise InvalidContent(f"{RESULT}: a failed result needs a failure kind, a success none")
        if self.failure is not None and self.failure not in FAILURES:
            raise InvalidContent(f"{RESULT}.failure {self.failure!r} is not one of {sorted(FAILURES)}")

    def to_content(self) -> dict[str, Any]:
        return ResultContent(
            task_id=self.task_id,
            ok=self.ok,
            text=self.text,
            data=dict(self.data or {}),
            files=dict(self.files or {}),
            failure=self.failure,
        ).to_value()

    @classmethod
    def from_content(cls, content: object) -> TaskOutcome:
        c = ResultContent.from_value(content)
        return cls(c.task_id, c.ok, c.text, dict(c.data), dict(c.files), c.failure)


def parse(kind: str, content: object) -> ConvStart | Turn | TaskProgress | TaskOutcome:
    """Parse the content of any ``conv.*`` kind; raises :class:`InvalidContent`."""
    if kind == START:
        return ConvStart.from_content(content)
    if kind in TURN_KINDS:
        return Turn.from_content(kind, content)
    if kind == PROGRESS:
        return TaskProgress.from_content(content)
    if kind == RESULT:
        return TaskOutcome.from_content(content)
    raise InvalidContent(f"unknown conversation message kind {kind!r}; known: {sorted(ALL_KINDS)}")


def task_id(assignment_msg_id: str, index: int) -> str:
    """The id of the ``index``-th task of the assignment turn ``assignment_msg_id`` (same on every member)."""
    return f"{assignment_msg_id}#{index}"


__all__ = [  # the kinds and limits are re-exported from contents.py
    "CONTENT_TYPES",
    "ALL_KINDS",
    "CONCLUSION",
    "DISCUSSION",
    "MAX_DESCRIPTION",
    "MAX_FILES",
    "MAX_GOAL",
    "MAX_ID",
    "MAX_ITEMS",
    "MAX_TEXT",
    "MAX_TITLE",
    "PAUSE",
    "REASONS",
    "PROGRESS",
    "RESULT",
    "START",
    "TASK_ASYNC",
    "TASK_KINDS",
    "TASK_SYNC",
    "TURN_KINDS",
    "ConvStart",
    "TaskAssignment",
    "TaskOutcome",
    "TaskProgress",
    "Turn",
    "parse",
    "task_id",
]
