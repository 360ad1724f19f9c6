"""The content of conversation messages: the ``conv.*`` chat-message kinds (pure, no I/O).

A conversation travels inside a group chat as ordinary signed chat messages whose kind starts with ``conv.``
and whose content is a plain map. Each kind has one frozen dataclass here with ``to_content()`` (a dict of
plain CBOR/JSON values) and ``from_content(kind, dict)`` that validates everything and raises
:class:`~ioa_p2p.errors.InvalidContent` saying which field is wrong. Extra or missing keys are rejected.

Kinds (the full schemas are in docs/conversation.md):

- ``conv.start``          :class:`ConvStart`   goal, members, limits (once per round, by the initiator);
- ``conv.discussion``     :class:`Turn`        a turn that talks and names the next speakers;
- ``conv.task.sync``      :class:`Turn`        assigns tasks; the floor returns to the assigner when all end;
- ``conv.task.async``     :class:`Turn`        assigns tasks that run in the background; names next speakers;
- ``conv.pause``          :class:`Turn`        holds the floor until the named (trigger) tasks end;
- ``conv.conclusion``     :class:`Turn`        ends the conversation with its conclusion;
- ``conv.task.progress``  :class:`TaskProgress`  a progress report by a task's assignee (not a turn);
- ``conv.task.result``    :class:`TaskOutcome`   a task's result or failure, by its assignee (not a turn).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ioa_p2p.conversation.failures import FAILURES
from ioa_p2p.errors import InvalidContent

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


# --------------------------------------------------------------------------- field checks


def _keys(where: str, value: Any, expected: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidContent(f"{where}: content must be a map, got {type(value).__name__}")
    missing = [k for k in expected if k not in value]
    extra = sorted(str(k) for k in value if k not in expected)
    if missing or extra:
        raise InvalidContent(f"{where}: missing fields {missing}, unexpected fields {extra}")
    return value


def _str(where: str, value: Any, limit: int, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise InvalidContent(f"{where} must be text, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidContent(f"{where} has {len(value)} characters (limit {limit})")
    if not empty and not value.strip():
        raise InvalidContent(f"{where} must not be empty")
    return value


def _int(where: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidContent(f"{where} must be an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise InvalidContent(f"{where} = {value} is outside {low}..{high}")
    return value


def _bool(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidContent(f"{where} must be true or false, got {type(value).__name__}")
    return value


def _ids(where: str, value: Any, *, unique: bool = True) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise InvalidContent(f"{where} must be a list, got {type(value).__name__}")
    if len(value) > MAX_ITEMS:
        raise InvalidContent(f"{where} has {len(value)} items (limit {MAX_ITEMS})")
    items = tuple(_str(f"{where}[{i}]", v, MAX_ID, empty=False) for i, v in enumerate(value))
    if unique and len(set(items)) != len(items):
        raise InvalidContent(f"{where} lists the same item twice")
    return items


def _plain(where: str, value: Any, depth: int = 0) -> None:
    """Plain data only (what both CBOR and JSON carry): null, bool, int, finite float, text, list, map."""
    if depth > 16:
        raise InvalidContent(f"{where} is nested too deeply")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidContent(f"{where} contains NaN or infinity")
        return
    if isinstance(value, list | tuple):
        for item in value:
            _plain(where, item, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidContent(f"{where} has a non-text map key")
            _plain(where, item, depth + 1)
        return
    raise InvalidContent(f"{where} contains a {type(value).__name__}, which is not plain data")


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

    _FIELDS = (
        "goal", "initiator", "members", "first_speaker", "deadline_ms", "max_turns",
        "speaker_timeout_ms", "task_timeout_ms", "max_self_turns", "wrap_up_ms", "depth",
        "parent_chat", "parent_task",
    )  # fmt: skip

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        w = "conv.start"
        _str(f"{w}.goal", self.goal, MAX_GOAL, empty=False)
        members = _ids(f"{w}.members", list(self.members))
        if not members:
            raise InvalidContent(f"{w}.members must name at least one member")
        for name in ("initiator", "first_speaker"):
            if getattr(self, name) not in members:
                raise InvalidContent(f"{w}.{name} must be one of the members")
        for name in ("deadline", "speaker_timeout", "task_timeout", "wrap_up"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise InvalidContent(f"{w}.{name} must be a finite number of seconds >= 0")
        if self.speaker_timeout <= 0 or self.task_timeout <= 0:
            raise InvalidContent(f"{w}: speaker_timeout and task_timeout must be > 0")
        _int(f"{w}.max_turns", self.max_turns, 1, 10_000)
        _int(f"{w}.max_self_turns", self.max_self_turns, 1, 10_000)
        _int(f"{w}.depth", self.depth, 0, 64)
        _str(f"{w}.parent_chat", self.parent_chat, MAX_ID)
        _str(f"{w}.parent_task", self.parent_task, MAX_ID)

    def to_content(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "initiator": self.initiator,
            "members": list(self.members),
            "first_speaker": self.first_speaker,
            "deadline_ms": round(self.deadline * 1000),
            "max_turns": self.max_turns,
            "speaker_timeout_ms": round(self.speaker_timeout * 1000),
            "task_timeout_ms": round(self.task_timeout * 1000),
            "max_self_turns": self.max_self_turns,
            "wrap_up_ms": round(self.wrap_up * 1000),
            "depth": self.depth,
            "parent_chat": self.parent_chat,
            "parent_task": self.parent_task,
        }

    @classmethod
    def from_content(cls, content: Any) -> ConvStart:
        w = "conv.start"
        c = _keys(w, content, cls._FIELDS)
        ms = {k: _int(f"{w}.{k}", c[k], 0, 2**53) for k in cls._FIELDS if k.endswith("_ms")}
        return cls(
            goal=_str(f"{w}.goal", c["goal"], MAX_GOAL, empty=False),
            initiator=_str(f"{w}.initiator", c["initiator"], MAX_ID, empty=False),
            members=_ids(f"{w}.members", c["members"]),
            first_speaker=_str(f"{w}.first_speaker", c["first_speaker"], MAX_ID, empty=False),
            deadline=ms["deadline_ms"] / 1000,
            max_turns=_int(f"{w}.max_turns", c["max_turns"], 1, 10_000),
            speaker_timeout=ms["speaker_timeout_ms"] / 1000,
            task_timeout=ms["task_timeout_ms"] / 1000,
            max_self_turns=_int(f"{w}.max_self_turns", c["max_self_turns"], 1, 10_000),
            wrap_up=ms["wrap_up_ms"] / 1000,
            depth=_int(f"{w}.depth", c["depth"], 0, 64),
            parent_chat=_str(f"{w}.parent_chat", c["parent_chat"], MAX_ID),
            parent_task=_str(f"{w}.parent_task", c["parent_task"], MAX_ID),
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
        )


# --------------------------------------------------------------------------- turns


@dataclass(frozen=True, slots=True)
class TaskAssignment:
    """One task inside a ``conv.task.sync`` / ``conv.task.async`` turn."""

    assignee: str
    title: str
    description: str

    def to_content(self) -> dict[str, Any]:
        return {"assignee": self.assignee, "title": self.title, "description": self.description}

    @classmethod
    def from_content(cls, content: Any, where: str = "task") -> TaskAssignment:
        c = _keys(where, content, ("assignee", "title", "description"))
        return cls(
            assignee=_str(f"{where}.assignee", c["assignee"], MAX_ID, empty=False),
            title=_str(f"{where}.title", c["title"], MAX_TITLE),
            description=_str(f"{where}.description", c["description"], MAX_DESCRIPTION, empty=False),
        )


_TURN_COMMON = ("prev", "height", "level", "reason", "fail_tasks", "text")
_TURN_EXTRA = {
    DISCUSSION: ("next",),
    TASK_SYNC: ("tasks",),
    TASK_ASYNC: ("tasks", "next"),
    PAUSE: ("triggers",),
    CONCLUSION: ("forced",),
}


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
        content: dict[str, Any] = {
            "prev": self.prev,
            "height": self.height,
            "level": self.level,
            "reason": self.reason,
            "fail_tasks": list(self.fail_tasks),
            "text": self.text,
        }
        extra = _TURN_EXTRA[self.kind]
        if "next" in extra:
            content["next"] = list(self.next)
        if "tasks" in extra:
            content["tasks"] = [t.to_content() for t in self.tasks]
        if "triggers" in extra:
            content["triggers"] = list(self.triggers)
        if "forced" in extra:
            content["forced"] = self.forced
        return content

    @classmethod
    def from_content(cls, kind: str, content: Any) -> Turn:
        if kind not in TURN_KINDS:
            raise InvalidContent(f"{kind!r} is not a turn kind; expected one of {sorted(TURN_KINDS)}")
        extra = _TURN_EXTRA[kind]
        c = _keys(kind, content, _TURN_COMMON + extra)
        reason = _str(f"{kind}.reason", c["reason"], 40)
        if reason not in REASONS:
            raise InvalidContent(f"{kind}.reason {reason!r} is not one of {sorted(REASONS)}")
        tasks: tuple[TaskAssignment, ...] = ()
        if "tasks" in extra:
            raw = c["tasks"]
            if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= MAX_ITEMS:
                raise InvalidContent(f"{kind}.tasks must be a list of 1..{MAX_ITEMS} tasks")
            tasks = tuple(TaskAssignment.from_content(t, f"{kind}.tasks[{i}]") for i, t in enumerate(raw))
        return cls(
            kind=kind,
            prev=_str(f"{kind}.prev", c["prev"], MAX_ID),
            height=_int(f"{kind}.height", c["height"], 0, 10_000),
            text=_str(f"{kind}.text", c["text"], MAX_TEXT),
            level=_int(f"{kind}.level", c["level"], 0, MAX_ITEMS),
            reason=reason,
            fail_tasks=_ids(f"{kind}.fail_tasks", c["fail_tasks"]),
            next=_ids(f"{kind}.next", c["next"]) if "next" in extra else (),
            tasks=tasks,
            triggers=_ids(f"{kind}.triggers", c["triggers"]) if "triggers" in extra else (),
            forced=_bool(f"{kind}.forced", c["forced"]) if "forced" in extra else False,
        )


# --------------------------------------------------------------------------- task progress and results


@dataclass(frozen=True, slots=True)
class TaskProgress:
    """``conv.task.progress``: the assignee's progress report (informational; changes no state)."""

    task_id: str
    text: str
    fraction: float | None = None

    def to_content(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "text": self.text, "fraction": self.fraction}

    @classmethod
    def from_content(cls, content: Any) -> TaskProgress:
        c = _keys(PROGRESS, content, ("task_id", "text", "fraction"))
        fraction = c["fraction"]
        if fraction is not None and (
            not isinstance(fraction, int | float) or isinstance(fraction, bool) or not 0.0 <= fraction <= 1.0
        ):
            raise InvalidContent(f"{PROGRESS}.fraction must be null or a number in 0..1")
        return cls(
            task_id=_str(f"{PROGRESS}.task_id", c["task_id"], MAX_ID, empty=False),
            text=_str(f"{PROGRESS}.text", c["text"], 1000),
            fraction=None if fraction is None else float(fraction),
        )


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
        return {
            "task_id": self.task_id,
            "ok": self.ok,
            "text": self.text,
            "data": dict(self.data or {}),
            "files": dict(self.files or {}),
            "failure": self.failure,
        }

    @classmethod
    def from_content(cls, content: Any) -> TaskOutcome:
        c = _keys(RESULT, content, ("task_id", "ok", "text", "data", "files", "failure"))
        data, files, failure = c["data"], c["files"], c["failure"]
        if not isinstance(data, Mapping):
            raise InvalidContent(f"{RESULT}.data must be a map")
        _plain(f"{RESULT}.data", data)
        if not isinstance(files, Mapping) or len(files) > MAX_FILES:
            raise InvalidContent(f"{RESULT}.files must be a map of at most {MAX_FILES} files")
        for name, blob in files.items():
            _str(f"{RESULT}.files name", name, 200, empty=False)
            if not isinstance(blob, bytes):
                raise InvalidContent(f"{RESULT}.files[{name!r}] must be bytes")
        if failure is not None:
            _str(f"{RESULT}.failure", failure, 40)
        return cls(
            task_id=_str(f"{RESULT}.task_id", c["task_id"], MAX_ID, empty=False),
            ok=_bool(f"{RESULT}.ok", c["ok"]),
            text=_str(f"{RESULT}.text", c["text"], MAX_TEXT),
            data=dict(data),
            files=dict(files),
            failure=failure,
        )


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
