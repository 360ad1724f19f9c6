"""The agent that does this node's work: its adapter, tasks with deadlines and progress, the sub-team rule.

:func:`load_runtime` builds the adapter the ``[agent]`` table names (``adapter`` + ``[agent.options]``,
see docs/adapters.md) with two node-specific defaults:

- ``python``: ``hide_paths`` defaults to the node home (the node key must stay out of reach of remote code);
- ``retrieval``: a relative ``path`` is taken relative to the node home, never to the working directory.

:meth:`AgentRuntime.run` turns a conversation task into an adapter :class:`~ioa_p2p.adapters.Task` (the
deadline is a Unix time on the wire, a trio time for adapters) and always returns a
:class:`~ioa_p2p.adapters.TaskResult` (crash, timeout, bad output -> a failed result).

The nested-team rule (:func:`subteam_reason`, documented in docs/goals.md) is pure and deterministic: a
member given a task forms a sub-team for it, when the round still allows nesting (``depth > 0``), if

1. the task text asks for a team (:data:`SUBTEAM_PHRASE`: "form a team", "assemble a sub-team", ...), or
2. this node has no adapter (it cannot do any task itself), or
3. its adapter rejected the task (``failure == "rejected"``: "no arithmetic found", "no Python code").
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.adapters import Adapter, AdapterCard, Progress, Task, TaskContext, TaskResult, run_task
from ioa_p2p.adapters.registry import adapter_from_config

log = logging.getLogger("ioa_p2p.agent")

#: Words in a task that ask its assignee to form a team for it (rule 1 of the nested-team rule).
SUBTEAM_PHRASE = re.compile(
    r"\b(?:form|assemble|build|create|set\s+up|put\s+together|gather|recruit)\s+(?:a\s+|an\s+|your\s+own\s+)?"
    r"(?:new\s+|small\s+)?(?:sub-?\s?team|team)\b|\bsub-?\s?team\b",
    re.IGNORECASE,
)

REASON_ASKED = "the task asks for a team"
REASON_NO_ADAPTER = "this agent has no adapter to do tasks itself"
REASON_REJECTED = "this agent's adapter cannot do the task"

ProgressCallback = Callable[[str, float | None], Awaitable[None]]


def subteam_reason(text: str, *, depth: int, has_adapter: bool, rejected: bool = False) -> str | None:
    """Why the assignee of ``text`` forms a sub-team (None: it does the task itself). Pure."""
    if depth <= 0:
        return None
    if SUBTEAM_PHRASE.search(text):
        return REASON_ASKED
    if not has_adapter:
        return REASON_NO_ADAPTER
    if rejected:
        return REASON_REJECTED
    return None


def adapter_table(agent: Mapping[str, Any], home: Path) -> dict[str, Any]:
    """The ``[agent]`` table with the node's defaults filled in (pure; see the module docstring)."""
    table = dict(agent)
    kind = table.get("adapter")
    options = table.get("options")
    if not isinstance(kind, str) or (options is not None and not isinstance(options, Mapping)):
        return table  # adapter_from_config reports the error
    options = dict(options or {})
    if kind == "python":
        options.setdefault("hide_paths", [str(home)])
    if kind == "retrieval" and isinstance(options.get("path"), str):
        path = Path(options["path"]).expanduser()
        options["path"] = str(path if path.is_absolute() else (home / path))
    table["options"] = options
    return table


@dataclass(slots=True)
class AgentRuntime:
    """This node's adapter (or none) and how tasks reach it."""

    adapter: Adapter | None
    card: AdapterCard | None
    tasks_run: int = 0

    @property
    def has_adapter(self) -> bool:
        return self.adapter is not None

    async def run(
        self,
        text: str,
        *,
        deadline: float,
        task_id: str = "",
        chat_id: str = "",
        context: Sequence[Mapping[str, Any]] = (),
        on_progress: ProgressCallback | None = None,
    ) -> TaskResult:
        """Run ``text`` through the adapter until ``deadline`` (Unix seconds); never raises but Cancelled."""
        if self.adapter is None:
            return TaskResult.failed("rejected", "this agent has no adapter: it cannot run tasks")
        self.tasks_run += 1
        trio_deadline = trio.current_time() + max(0.0, deadline - time.time())
        task = Task(text, tuple(context), trio_deadline, task_id, chat_id)

        async def sink(report: Progress) -> None:
            if on_progress is not None:
                await on_progress(report.text, report.fraction)

        ctx = TaskContext(sink, min_interval=0.5)
        return await run_task(self.adapter, task, ctx)

    async def aclose(self) -> None:
        if self.adapter is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(10):
                try:
                    await self.adapter.aclose()
                except Exception:
                    log.warning("closing the adapter failed", exc_info=True)


def load_runtime(agent: Mapping[str, Any], home: Path) -> AgentRuntime:
    """Build the adapter ``[agent]`` names (raises the registry's ConfigError subclasses when it is wrong)."""
    adapter = adapter_from_config(adapter_table(agent, home))
    return AgentRuntime(adapter, adapter.describe() if adapter is not None else None)


__all__ = [
    "REASON_ASKED",
    "REASON_NO_ADAPTER",
    "REASON_REJECTED",
    "SUBTEAM_PHRASE",
    "AgentRuntime",
    "adapter_table",
    "load_runtime",
    "subteam_reason",
]
