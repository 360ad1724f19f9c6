"""The agent that does this node's work: its adapter, tasks with deadlines and progress, the sub-team rule.

:func:`load_runtime` builds the adapter the ``[agent]`` table names (``adapter`` + ``[agent.options]``,
see docs/adapters.md) with what its kind declares it needs from the node
(:class:`~ioa_p2p.adapters.needs.AdapterNeeds`, read by :func:`~ioa_p2p.adapters.registry.adapter_needs`):
the node's ``[model]`` table, relative folders taken under the node home, the node home hidden from the
code it runs. The node knows no kind by name.

:meth:`AgentRuntime.run` turns a conversation task into an adapter :class:`~ioa_p2p.adapters.Task` (the
deadline is a Unix time on the wire, a trio time for adapters) and always returns a
:class:`~ioa_p2p.adapters.TaskResult` (crash, timeout, bad output -> a failed result).

The nested-team rule (:func:`subteam_reason`, documented in docs/goals.md) is pure and deterministic: a
member given a task forms a sub-team for it, when the round still allows nesting (``depth > 0``), if

1. the task text asks for a team (:data:`SUBTEAM_PHRASE`: "form a team", "assemble a sub-team", ...), or
2. this node has no adapter (it cannot do any task itself), or
3. its adapter rejected the task (``failure == "rejected"``: "no arithmetic found", "no Python code"),
   unless the task is a step of a planned goal (title ``step i/n``, :func:`is_planned_step`): the planner
   re-routes a rejected step to the next member able to do it (issue 11) instead.

Before running a task, :meth:`AgentRuntime.run` asks the adapter's cheap ``can_do(task)`` estimate (when it
has one, :func:`~ioa_p2p.adapters.base.estimate`); 0 rejects the task at once, without running it.
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
from ioa_p2p.adapters.base import Offload, estimate, in_worker_thread
from ioa_p2p.adapters.lifecycle import start_adapter
from ioa_p2p.adapters.needs import NO_NEEDS, AdapterNeeds
from ioa_p2p.adapters.registry import adapter_from_config, adapter_needs
from ioa_p2p.conversation.costs import normalize_usage

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


_PLANNED_STEP = re.compile(r"step \d+/\d+")


def is_planned_step(title: str) -> bool:
    """A task that is one step of a planner's plan (its title is ``step i/n``)."""
    return _PLANNED_STEP.fullmatch(title.strip()) is not None


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


def adapter_table(
    agent: Mapping[str, Any], home: Path, *, model: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The ``[agent]`` table with what its kind needs from the node filled into its options
    (:meth:`~ioa_p2p.adapters.needs.AdapterNeeds.provide`); ``model`` is the node's ``[model]`` table."""
    table = dict(agent)
    kind, options = table.get("adapter"), table.get("options")
    if not kind or not isinstance(kind, str) or (options is not None and not isinstance(options, Mapping)):
        return table  # adapter_from_config reports the error
    table["options"] = adapter_needs(kind).provide(options or {}, home=home, model=model)
    return table


@dataclass(slots=True)
class AgentRuntime:
    """This node's adapter (or none) and how tasks reach it."""

    adapter: Adapter | None
    card: AdapterCard | None
    tasks_run: int = 0
    #: Wall clock (seconds since the Unix epoch) that task deadlines are read against.
    clock: Callable[[], float] = time.time
    #: Where adapters run CPU-bound work (:meth:`ioa_p2p.adapters.base.TaskContext.run_sync`).
    offload: Offload = in_worker_thread
    #: What the adapter's kind declares it needs (:class:`~ioa_p2p.adapters.needs.AdapterNeeds`).
    needs: AdapterNeeds = NO_NEEDS

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
        trio_deadline = trio.current_time() + max(0.0, deadline - self.clock())
        task = Task(text, tuple(context), trio_deadline, task_id, chat_id)
        score = estimate(self.adapter, task)
        if score is not None and score <= 0.0:  # the adapter's own cheap estimate: certainly not
            kind = self.card.kind if self.card is not None else "adapter"
            why = f"this agent's {kind} adapter cannot do this task (can_do = 0): {text[:120]!r}"
            return TaskResult.failed("rejected", why, data={"confidence": 0.0})
        self.tasks_run += 1

        async def sink(report: Progress) -> None:
            if on_progress is not None:
                await on_progress(report.text, report.fraction)

        ctx = TaskContext(sink, min_interval=0.5, offload=self.offload)
        started = trio.current_time()
        result = await run_task(self.adapter, task, ctx)
        return with_usage(result, int((trio.current_time() - started) * 1000))

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the adapter's long-lived part in ``nursery`` (a server process, a remote card); its card
        is final afterwards. Raises the adapter's typed start-up error (a2a: an unreachable agent)."""
        if self.adapter is not None:
            await start_adapter(self.adapter, nursery)
            self.card = self.adapter.describe()

    async def aclose(self) -> None:
        if self.adapter is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(10):
                try:
                    await self.adapter.aclose()
                except Exception:  # third-party close code: the node's shutdown must go on
                    log.warning("closing the adapter failed", exc_info=True)


def with_usage(result: TaskResult, wall_ms: int) -> TaskResult:
    """``result`` whose ``data["usage"]`` is a canonical usage record (what the adapter reported, the
    node's own wall time where it reported none): every task result this node signs says what it cost."""
    data = {**result.data, "usage": normalize_usage(result.data.get("usage"), wall_ms=wall_ms)}
    return TaskResult(result.ok, result.text, data, result.files, result.failure)


def load_runtime(
    agent: Mapping[str, Any],
    home: Path,
    model: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.time,
    offload: Offload = in_worker_thread,
) -> AgentRuntime:
    """Build the adapter ``[agent]`` names (raises the registry's ConfigError subclasses when it is wrong);
    ``model`` is the node's ``[model]`` table, ``clock`` the node's wall clock, ``offload`` its worker
    threads. Start it with :meth:`AgentRuntime.start`."""
    adapter = adapter_from_config(adapter_table(agent, home, model=model))
    card = adapter.describe() if adapter is not None else None
    needs = adapter_needs(agent.get("adapter")) if adapter is not None else NO_NEEDS
    return AgentRuntime(adapter, card, clock=clock, offload=offload, needs=needs)


__all__ = [
    "REASON_ASKED",
    "REASON_NO_ADAPTER",
    "REASON_REJECTED",
    "SUBTEAM_PHRASE",
    "AgentRuntime",
    "adapter_table",
    "is_planned_step",
    "load_runtime",
    "subteam_reason",
    "with_usage",
]
