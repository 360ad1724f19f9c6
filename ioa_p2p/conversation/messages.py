"""The content of conversation messages: the ``conv.*`` chat-message kinds (pure, no I/O).

A conversation travels inside a group chat as ordinary signed chat messages whose kind starts with ``conv.``
and whose content is a plain map. The content of each kind has a wire schema declared with the one schema
mechanism of signed bodies (:func:`~ioa_p2p.wire.schema.message_type` with field :class:`Limit` s, in the
registry :data:`CONTENT_TYPES`, version 1: the kind names the schema, the envelope's own version covers the
chat message). Each kind also has a frozen dataclass here, what the state machine uses, with
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
is off) the content encodes exactly as before it existed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from ioa_p2p.conversation.failures import FAILURES
from ioa_p2p.errors import InvalidContent, SchemaError
from ioa_p2p.wire.schema import Body, Limit, message_type

START = "conv.start"
DISCUSSION = "conv.discussion"
TASK_SYNC = "conv.task.sync"
TASK_ASYNC = "conv.task.async"
PAUSE = "conv.pause"
CONCLUSION = "conv.conclusion"
PROGRESS = "conv.task.progress"
RESULT = "conv.task.result"

TURN_KINDS = frozenset({DISCUSSION, TASK_SYNC, TASK_ASYNC, PAUSE, CONCLUSION})
TASK_KINDS = frozenset({TASK_SYNC, TASK_ASYNC})
ALL_KINDS = TURN_KINDS | {START, PROGRESS, RESULT}

# Why a turn was taken by someone else than the regular holder, or forced (``Turn.reason``).
REASONS = frozenset(
    {"", "speaker-timeout", "tasks-overdue", "wrap-up", "max-turns", "holder-left", "fallback"}
)

MAX_TEXT = 32_000  # characters in a turn's text or a result's text
MAX_GOAL = 8_000
MAX_TITLE = 200
MAX_DESCRIPTION = 8_000
MAX_ID = 200  # characters in a member (peer) id, a message id or a task id
MAX_ITEMS = 32  # members, next speakers, tasks per turn, triggers, failed tasks
MAX_FILES = 32


# --------------------------------------------------------------------------- wire schemas of the contents

#: Schemas of the ``conv.*`` contents by (kind, version); never envelope bodies.
CONTENT_TYPES: dict[tuple[str, int], type[Body]] = {}

Id = Annotated[str, Limit(max_len=MAX_ID, non_empty=True)]
OptionalId = Annotated[str, Limit(max_len=MAX_ID)]
Ids = Annotated[tuple[Id, ...], Limit(max_len=MAX_ITEMS, unique=True)]
Millis = Annotated[int, Limit(low=0, high=2**53)]
Text = Annotated[str, Limit(max_len=MAX_TEXT)]
#: ``trace``: a W3C traceparent (version 00 is 55 characters; a later version may be longer).
Trace = Annotated[str | None, Limit(max_len=256, non_empty=True)]
TRACED: frozenset[str] = frozenset({"trace"})


class Content(Body):
    """A ``conv.*`` content schema: decoding errors are :class:`InvalidContent`."""

    __slots__ = ()
    ERROR: ClassVar[type[SchemaError]] = InvalidContent


@message_type(START, 1, registry=CONTENT_TYPES)
class StartContent(Content):
    LABEL = START
    goal: Annotated[str, Limit(max_len=MAX_GOAL, non_empty=True)]
    initiator: Id
    members: Annotated[tuple[Id, ...], Limit(max_len=MAX_ITEMS, min_len=1, unique=True)]
    first_speaker: Id
    deadline_ms: Millis
    max_turns: Annotated[int, Limit(low=1, high=10_000)]
    speaker_timeout_ms: Millis
    task_timeout_ms: Millis
    max_self_turns: Annotated[int, Limit(low=1, high=10_000)]
    wrap_up_ms: Millis
    depth: Annotated[int, Limit(low=0, high=64)]
    parent_chat: OptionalId
    parent_task: OptionalId
    trace: Trace = None

    OPTIONAL: ClassVar[frozenset[str]] = TRACED


@message_type("conv.task", 1, registry=CONTENT_TYPES)
class AssignmentContent(Content):
    LABEL = "task"
    assignee: Id
    title: Annotated[str, Limit(max_len=MAX_TITLE)]
    description: Annotated[str, Limit(max_len=MAX_DESCRIPTION, non_empty=True)]


@dataclass(frozen=True, slots=True)
class TurnContent(Content):
    """The fields of every turn kind."""

    prev: OptionalId
    height: Annotated[int, Limit(low=0, high=10_000)]
    level: Annotated[int, Limit(low=0, high=MAX_ITEMS)]
    reason: Annotated[str, Limit(max_len=40, one_of=REASONS)]
    fail_tasks: Ids
    text: Text


Tasks = Annotated[tuple[AssignmentContent, ...], Limit(min_len=1, max_len=MAX_ITEMS)]


@message_type(DISCUSSION, 1, registry=CONTENT_TYPES)
class DiscussionContent(TurnContent):
    LABEL = DISCUSSION
    next: Ids


@message_type(TASK_SYNC, 1, registry=CONTENT_TYPES)
class TaskSyncContent(TurnContent):
    LABEL = TASK_SYNC
    tasks: Tasks
    trace: Trace = None

    OPTIONAL: ClassVar[frozenset[str]] = TRACED


@message_type(TASK_ASYNC, 1, registry=CONTENT_TYPES)
class TaskAsyncContent(TurnContent):
    LABEL = TASK_ASYNC
    tasks: Tasks
    next: Ids
    trace: Trace = None

    OPTIONAL: ClassVar[frozenset[str]] = TRACED


@message_type(PAUSE, 1, registry=CONTENT_TYPES)
class PauseContent(TurnContent):
    LABEL = PAUSE
    triggers: Ids


@message_type(CONCLUSION, 1, registry=CONTENT_TYPES)
class ConclusionContent(TurnContent):
    LABEL = CONCLUSION
    forced: bool


_TURN_CONTENT: dict[str, type[TurnContent]] = {
    DISCUSSION: DiscussionContent,
    TASK_SYNC: TaskSyncContent,
    TASK_ASYNC: TaskAsyncContent,
    PAUSE: PauseContent,
    CONCLUSION: ConclusionContent,
}


@message_type(PROGRESS, 1, registry=CONTENT_TYPES)
class ProgressContent(Content):
    LABEL = PROGRESS
    task_id: Id
    text: Annotated[str, Limit(max_len=1000)]
    fraction: Annotated[int | float | None, Limit(low=0.0, high=1.0)]


@message_type(RESULT, 1, registry=CONTENT_TYPES)
class ResultContent(Content):
    LABEL = RESULT
    task_id: Id
    ok: bool
    text: Text
    data: Annotated[dict[str, Any], Limit(plain=True)]
    files: Annotated[dict[str, bytes], Limit(max_len=MAX_FILES)]
    failure: Annotated[str, Limit(max_len=40)] | None

    def validate(self) -> None:
        for name in self.files:
            if not name.strip() or len(name) > 200:
                raise InvalidContent(f"{RESULT}.files: a file name must be 1..200 characters")


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
    def from_content(cls, content: Any) -> ConvStart:
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
    def from_content(cls, content: Any) -> TaskAssignment:
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
        schema = _TURN_CONTENT[self.kind]
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
    def from_content(cls, kind: str, content: Any) -> Turn:
        schema = _TURN_CONTENT.get(kind)
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
    def from_content(cls, content: Any) -> TaskProgress:
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
    def from_content(cls, content: Any) -> TaskOutcome:
        c = ResultContent.from_value(content)
        return cls(c.task_id, c.ok, c.text, dict(c.data), dict(c.files), c.failure)


def parse(kind: str, content: Any) -> ConvStart | Turn | TaskProgress | TaskOutcome:
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


__all__ = [
    "CONTENT_TYPES",
    "ALL_KINDS",
    "CONCLUSION",
    "DISCUSSION",
    "MAX_TEXT",
    "PAUSE",
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
