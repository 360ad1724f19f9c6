"""The agent adapter protocol: what every agent that does work looks like to the node.

An adapter describes itself (:class:`AdapterCard`), runs one :class:`Task` at a time per call
(``async run(task, ctx) -> TaskResult``), reports progress through :class:`TaskContext`, and
releases its resources in ``aclose()``. The node never calls ``run`` directly but
:func:`run_task`, which

- enforces the task deadline with ``trio.fail_at`` (the adapter is cancelled and must clean up);
- turns an adapter crash, a timeout, a :class:`~ioa_p2p.errors.TaskRejected` and bad output into
  a failed :class:`TaskResult` with a reason, so that no adapter can take the node down;
- lets only ``trio.Cancelled`` through (the chat ended, the node is stopping).

Results are bounded (:data:`MAX_TEXT_CHARS`, :data:`MAX_DATA_BYTES`, :data:`MAX_FILES`,
:data:`MAX_FILES_BYTES`) so that a result always fits in one signed chat message (1 MiB).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import trio

from ioa_p2p.config.sections import parse_section
from ioa_p2p.conversation.failures import (
    ADAPTER_FAILURES,
    BAD_OUTPUT,
    CRASH,
    REJECTED,
    TASK_ERROR,
    TIMEOUT,
)
from ioa_p2p.errors import AdapterOptionsError, BadAdapterOutput, IoAError, TaskRejected
from ioa_p2p.wire import canonical

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 32_000
MAX_DATA_BYTES = 64 * 1024
MAX_FILES = 32
MAX_FILES_BYTES = 512 * 1024
MAX_FILE_NAME = 200
MAX_PROGRESS_CHARS = 500

# Why a task failed (``TaskResult.failure``): defined once, in :mod:`ioa_p2p.conversation.messages`.
FAILURE_KINDS = ADAPTER_FAILURES


@dataclass(frozen=True, slots=True)
class AdapterCard:
    """How an adapter describes itself; the node merges this into its signed capability card."""

    name: str
    description: str
    skills: tuple[str, ...]
    #: The registry kind this adapter was loaded as ("python", "calculator", ...).
    kind: str
    #: Task types it accepts, from an open vocabulary: "code", "arithmetic", "question", "text".
    task_types: tuple[str, ...]
    #: Structured capability fields for the card (version 2, docs/protocol.md §9.1); all optional.
    languages: tuple[str, ...] = ()
    input_types: tuple[str, ...] = ()
    output_types: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()

    def with_overrides(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        skills: Sequence[str] = (),
    ) -> AdapterCard:
        """The card with the operator's ``[agent]`` name/description; extra skills are appended."""
        merged = self.skills + tuple(s for s in skills if s not in self.skills)
        return AdapterCard(
            name=name or self.name,
            description=description or self.description,
            skills=merged,
            kind=self.kind,
            task_types=self.task_types,
            languages=self.languages,
            input_types=self.input_types,
            output_types=self.output_types,
            tools=self.tools,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "skills": list(self.skills),
            "kind": self.kind,
            "task_types": list(self.task_types),
            "languages": list(self.languages),
            "input_types": list(self.input_types),
            "output_types": list(self.output_types),
            "tools": list(self.tools),
        }


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of work handed to an adapter.

    ``context`` holds the recent chat messages as plain dicts (for example ``{"speaker": name,
    "type": "discussion", "content": text}``); adapters may read them but must not depend on their
    shape.
    ``deadline`` is an absolute ``trio.current_time()`` value, or ``None`` for no deadline.
    """

    text: str
    context: tuple[Mapping[str, Any], ...] = ()
    deadline: float | None = None
    task_id: str = ""
    chat_id: str = ""

    @classmethod
    def create(
        cls,
        text: str,
        *,
        timeout: float | None = None,
        deadline: float | None = None,
        context: Sequence[Mapping[str, Any]] = (),
        task_id: str = "",
        chat_id: str = "",
    ) -> Task:
        """Build a task; ``timeout`` (seconds from now) and ``deadline`` (trio time) combine to the
        earlier.

        Must be called inside ``trio.run`` when ``timeout`` is given.
        """
        if timeout is not None:
            end = trio.current_time() + timeout
            deadline = end if deadline is None else min(deadline, end)
        return cls(text, tuple(context), deadline, task_id, chat_id)

    def remaining(self) -> float:
        """Seconds left before the deadline (``inf`` without one); call inside ``trio.run``."""
        if self.deadline is None:
            return math.inf
        return self.deadline - trio.current_time()


@dataclass(frozen=True, slots=True)
class Progress:
    text: str
    fraction: float | None = None


ProgressSink = Callable[[Progress], Awaitable[None]]
_R = TypeVar("_R")


class Offload(Protocol):
    """Runs a blocking function off the event loop (the node's worker threads)."""

    async def __call__(self, fn: Callable[[], _R]) -> _R: ...


async def in_worker_thread(fn: Callable[[], _R]) -> _R:
    """The default :class:`Offload`: a trio worker thread, abandoned when the caller is cancelled."""
    return await trio.to_thread.run_sync(fn, abandon_on_cancel=True)  # type: ignore[call-arg]


class TaskContext:
    """What an adapter may use while it runs: progress reporting (more later: logs, sub-teams).

    ``on_progress`` is called for each report, text cut to :data:`MAX_PROGRESS_CHARS`, fraction
    clamped to 0..1; reports closer together than ``min_interval`` seconds are dropped (the final
    1.0 never is). An exception from ``on_progress`` propagates into the adapter (and fails the
    task). CPU-bound work goes through :meth:`run_sync` (the node's ``offload``: worker threads on a
    real node, inline on the in-memory test network).
    """

    def __init__(
        self,
        on_progress: ProgressSink | None = None,
        *,
        min_interval: float = 0.0,
        offload: Offload = in_worker_thread,
    ) -> None:
        self._sink = on_progress
        self._offload = offload
        self._min_interval = min_interval
        self._last: float | None = None
        self.reports: list[Progress] = []

    async def run_sync(self, fn: Callable[[], _R]) -> _R:
        """``fn()`` off the event loop (abandoned when the task is cancelled)."""
        return await self._offload(fn)

    async def progress(self, text: str, fraction: float | None = None) -> None:
        text = str(text)[:MAX_PROGRESS_CHARS]
        if fraction is not None:
            fraction = float(fraction)
            fraction = 0.0 if math.isnan(fraction) else min(1.0, max(0.0, fraction))
        now = trio.current_time()
        final = fraction == 1.0
        if not final and self._last is not None and now - self._last < self._min_interval:
            return
        self._last = now
        report = Progress(text, fraction)
        self.reports.append(report)
        del self.reports[:-100]  # keep the last hundred
        if self._sink is not None:
            await self._sink(report)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """The outcome of a task: text, optional structured data and files, and why it failed."""

    ok: bool
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    #: One of :data:`FAILURE_KINDS` when ``ok`` is false, else ``None``.
    failure: str | None = None

    @classmethod
    def success(
        cls, text: str, *, data: dict[str, Any] | None = None, files: dict[str, bytes] | None = None
    ) -> TaskResult:
        return cls(True, text, dict(data or {}), dict(files or {}), None)

    @classmethod
    def failed(
        cls,
        kind: str,
        reason: str,
        *,
        data: dict[str, Any] | None = None,
        files: dict[str, bytes] | None = None,
    ) -> TaskResult:
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}; use one of {sorted(FAILURE_KINDS)}")
        return cls(False, reason, dict(data or {}), dict(files or {}), kind)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (canonical-CBOR encodable) for chat messages."""
        return {
            "ok": self.ok,
            "text": self.text,
            "data": self.data,
            "files": dict(self.files),
            "failure": self.failure,
        }

    @classmethod
    def from_dict(cls, value: Any) -> TaskResult:
        """Inverse of :meth:`to_dict`; raises :class:`BadAdapterOutput` unless valid and bounded."""
        if not isinstance(value, dict) or set(value) != {"ok", "text", "data", "files", "failure"}:
            raise BadAdapterOutput("a task result must be a dict with ok, text, data, files, failure")
        data, files = value["data"], value["files"]
        if not isinstance(data, dict) or not isinstance(files, dict):
            raise BadAdapterOutput("task result data and files must be dicts")
        return check_result(cls(value["ok"], value["text"], data, files, value["failure"]))


def check_result(value: object) -> TaskResult:
    """Validate an adapter's return value; raises :class:`BadAdapterOutput` saying what is wrong."""
    if not isinstance(value, TaskResult):
        raise BadAdapterOutput(f"adapter returned {type(value).__name__}, expected a TaskResult")
    if not isinstance(value.ok, bool) or not isinstance(value.text, str):
        raise BadAdapterOutput("TaskResult.ok must be a bool and TaskResult.text a str")
    if len(value.text) > MAX_TEXT_CHARS:
        raise BadAdapterOutput(f"result text has {len(value.text)} characters (limit {MAX_TEXT_CHARS})")
    if value.ok != (value.failure is None) or (value.failure not in FAILURE_KINDS | {None}):
        raise BadAdapterOutput("a failed TaskResult needs a failure kind; a successful one none")
    _check_data(value.data)
    _check_files(value.files)
    return value


def _check_data(data: object) -> None:
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise BadAdapterOutput("TaskResult.data must be a dict with str keys")
    try:
        size = len(canonical.encode(data))
    except (IoAError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise BadAdapterOutput(f"TaskResult.data is not plain CBOR-encodable data: {exc}") from None
    if size > MAX_DATA_BYTES:
        raise BadAdapterOutput(f"TaskResult.data encodes to {size} bytes (limit {MAX_DATA_BYTES})")


def _check_files(files: object) -> None:
    if not isinstance(files, dict):
        raise BadAdapterOutput("TaskResult.files must be a dict of name -> bytes")
    if len(files) > MAX_FILES:
        raise BadAdapterOutput(f"{len(files)} files in the result (limit {MAX_FILES})")
    total = 0
    for name, content in files.items():
        if not isinstance(name, str) or not isinstance(content, bytes):
            raise BadAdapterOutput("TaskResult.files must map str names to bytes")
        check_file_name(name)
        total += len(content)
    if total > MAX_FILES_BYTES:
        raise BadAdapterOutput(f"result files total {total} bytes (limit {MAX_FILES_BYTES})")


def check_file_name(name: str) -> None:
    """A result file name is a relative POSIX path without ``..``, empty or hidden-control parts."""
    parts = name.split("/")
    bad = (
        not name
        or len(name) > MAX_FILE_NAME
        or name.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
        or any(ord(c) < 32 or c == "\\" for c in name)
    )
    if bad:
        raise BadAdapterOutput(f"bad result file name {name!r}: use a relative path without '..'")


@runtime_checkable
class Adapter(Protocol):
    """An agent that does work. ``run`` may be called concurrently (serialise inside if needed).

    What a kind needs from its node (the ``[model]`` table, folders under the node home, whether it executes
    code it is given...) it declares as ``NEEDS``, an :class:`~ioa_p2p.adapters.needs.AdapterNeeds`, on its
    class (or factory function); a kind that executes code makes its node accept chat invitations only
    from known peers by default (``[chats] invite_policy = "known"``, see docs/security.md)."""

    def describe(self) -> AdapterCard: ...

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        """Do the task. Raise :class:`~ioa_p2p.errors.TaskRejected` (or return a failed result)
        when it cannot be done; on cancellation stop promptly and release what the run acquired."""
        ...

    async def aclose(self) -> None:
        """Release long-lived resources (indexes, processes). Idempotent."""
        ...


@runtime_checkable
class EstimatesTasks(Protocol):
    """An adapter that can say cheaply (no I/O, no model call, well under a millisecond) how likely it is
    to do a task: ``can_do(task)`` in 0..1, 0 meaning "certainly not" (docs/adapters.md, "Abilities")."""

    def can_do(self, task: Task) -> float: ...


def estimate(adapter: Adapter, task: Task) -> float | None:
    """``adapter.can_do(task)`` clamped to 0..1; None when the adapter gives no estimate (or its estimate
    crashes: the task is then run and fails or succeeds on its own)."""
    if not isinstance(adapter, EstimatesTasks):
        return None
    try:
        score = float(adapter.can_do(task))
    except Exception:
        log.warning("can_do of %s crashed", _adapter_name(adapter), exc_info=True)
        return None
    return None if math.isnan(score) else min(1.0, max(0.0, score))


async def run_task(
    adapter: Adapter,
    task: Task,
    ctx: TaskContext | None = None,
) -> TaskResult:
    """Run ``task`` on ``adapter`` and always return a valid :class:`TaskResult`.

    ``task.deadline`` is enforced (build the task with ``Task.create(text, timeout=...)``). Crashes,
    timeouts, rejections and bad output become failed results (``result.failure`` says which);
    only ``trio.Cancelled`` (and KeyboardInterrupt) propagate.
    """
    ctx = ctx if ctx is not None else TaskContext()
    deadline = math.inf if task.deadline is None else task.deadline
    started = trio.current_time()
    name = _adapter_name(adapter)
    try:
        with trio.fail_at(deadline):
            raw = await adapter.run(task, ctx)
    except trio.TooSlowError:
        spent = trio.current_time() - started
        return TaskResult.failed(TIMEOUT, f"{name} did not finish before the deadline ({spent:.1f} s)")
    except TaskRejected as exc:
        return TaskResult.failed(REJECTED, f"{name} cannot do this task: {exc}")
    except (Exception, SystemExit) as exc:
        log.warning("adapter %s crashed on task %r", name, task.task_id, exc_info=True)
        return TaskResult.failed(CRASH, f"{name} crashed: {type(exc).__name__}: {exc}"[:2000])
    try:
        return check_result(raw)
    except BadAdapterOutput as exc:
        return TaskResult.failed(BAD_OUTPUT, f"{name} returned bad output: {exc}")


def _adapter_name(adapter: object) -> str:
    try:
        card = adapter.describe()  # type: ignore[attr-defined]
        return f"adapter {card.kind!r}"
    except Exception:
        return f"adapter {type(adapter).__name__}"


# --------------------------------------------------------------------------- option parsing

OptionsT = TypeVar("OptionsT")


def parse_options(cls: type[OptionsT], options: Mapping[str, Any] | None, kind: str) -> OptionsT:
    """Build the frozen dataclass ``cls`` from an adapter's ``[agent.options]`` table with the one section
    parser (:func:`~ioa_p2p.config.sections.parse_section`: ``str``, ``int``, ``float``, ``bool``,
    ``tuple[str, ...]``, ``dict[str, Any]``, ``Literal[...]``, ``X | None``, ranges set with
    :func:`~ioa_p2p.config.sections.setting`). Raises :class:`~ioa_p2p.errors.AdapterOptionsError`
    naming the adapter kind and the option."""
    where = f"[agent.options] of adapter {kind!r}"
    return parse_section(cls, options, where, error=AdapterOptionsError, noun="options")


__all__ = [
    "EstimatesTasks",
    "estimate",
    "BAD_OUTPUT",
    "CRASH",
    "FAILURE_KINDS",
    "MAX_DATA_BYTES",
    "MAX_FILES",
    "MAX_FILES_BYTES",
    "MAX_TEXT_CHARS",
    "REJECTED",
    "TASK_ERROR",
    "TIMEOUT",
    "Adapter",
    "AdapterCard",
    "Progress",
    "Offload",
    "ProgressSink",
    "Task",
    "TaskContext",
    "TaskResult",
    "check_file_name",
    "check_result",
    "in_worker_thread",
    "parse_options",
    "run_task",
]
