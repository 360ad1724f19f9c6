"""The ``conv.*`` chat-message kinds, their limits and their wire schemas (pure, no I/O).

The content of each kind has a wire schema declared with the one schema mechanism of signed bodies
(:func:`~ioa_p2p.wire.schema.message_type` with field :class:`Limit` s, in the registry
:data:`CONTENT_TYPES`, version 1: the kind names the schema, the envelope's own version covers the chat
message). Decoding errors are :class:`~ioa_p2p.errors.InvalidContent`. The typed messages the state machine
uses, with ``to_content()`` / ``from_content()`` through these schemas, are in
:mod:`ioa_p2p.conversation.messages` (which re-exports the kinds and limits).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

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


TURN_CONTENT: dict[str, type[TurnContent]] = {
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


__all__ = [
    "ALL_KINDS",
    "CONCLUSION",
    "CONTENT_TYPES",
    "DISCUSSION",
    "MAX_DESCRIPTION",
    "MAX_FILES",
    "MAX_GOAL",
    "MAX_ID",
    "MAX_ITEMS",
    "MAX_TEXT",
    "MAX_TITLE",
    "PAUSE",
    "PROGRESS",
    "REASONS",
    "RESULT",
    "START",
    "TASK_ASYNC",
    "TASK_KINDS",
    "TASK_SYNC",
    "TURN_CONTENT",
    "TURN_KINDS",
    "AssignmentContent",
    "Content",
    "ProgressContent",
    "ResultContent",
    "StartContent",
    "TurnContent",
]
