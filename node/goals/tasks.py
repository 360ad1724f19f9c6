"""Doing a task assigned to this node: on its adapter, or through a sub-team (the nested-team rule).

:class:`TaskRunner` is given what it works with when the goals service starts: the node (clock,
tracer), the node's agent (:class:`~ioa_p2p.node.goals.runtime.AgentRuntime`), the members' names
(:class:`~ioa_p2p.node.goals.members.Members`) and the launcher a sub-team is launched through
(:class:`SubTeamLauncher`). A chat driver hands it each task assigned to this node
(:meth:`TaskRunner.perform`). At most :data:`MAX_RUNNING_TASKS` run at once over all goals (teammates
choose how many tasks they assign); the others wait for a slot until their deadline. docs/goals.md,
sections 7 and 8.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import trio

from ioa_p2p.api.codec import JsonValue
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import DEPTH, MAX_GOAL_CHARS, MAX_TURNS, SECONDS, LaunchRequest, SubTeamOf
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.costs import MAX_NESTED_AGENTS, nested_agents, nested_usage, task_costs
from ioa_p2p.conversation.messages import TaskOutcome
from ioa_p2p.conversation.types import TaskView
from ioa_p2p.errors import IoAError, NoTeam
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.rounds import Round
from ioa_p2p.node.goals.runtime import AgentRuntime, is_planned_step, subteam_reason
from ioa_p2p.node.ports import NodePort
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import use_tracer

#: Tasks (adapter runs or sub-teams) this node works on at once, over all goals.
MAX_RUNNING_TASKS = 8

#: ``progress(text, fraction)`` reported by a running task.
ProgressFn = Callable[[str, float | None], Awaitable[None]]


class SubTeamLauncher(Protocol):
    """How a task forms a sub-team: as a goal this node launches (implemented by
    :class:`~ioa_p2p.node.goals.launcher.Launcher`)."""

    async def launch_goal(self, request: LaunchRequest) -> GoalResult: ...


class TaskRunner:
    """Runs the tasks assigned to this node, over all its goal chats (see the module docstring)."""

    def __init__(
        self, node: NodePort, runtime: AgentRuntime, members: Members, subteams: SubTeamLauncher
    ) -> None:
        self.node = node
        self.runtime = runtime
        self.members = members
        self.subteams = subteams
        self.me = str(node.peer_id)
        self.slots = trio.CapacityLimiter(MAX_RUNNING_TASKS)

    async def perform(
        self, chat_id: bytes, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        """Run a task assigned to this node: on its adapter, or through a sub-team (the nested-team
        rule). At most :data:`MAX_RUNNING_TASKS` run at once (teammates choose how many tasks they
        assign); the others wait for a slot until their deadline."""
        with trio.move_on_after(max(0.0, deadline - self.node.now())) as waited:
            await self.slots.acquire()
        if waited.cancelled_caught:
            why = f"this node runs at most {MAX_RUNNING_TASKS} tasks at once; none ended before this deadline"
            return TaskOutcome(task.task_id, False, why, None, None, "timeout")
        try:
            return await self._perform(chat_id, r, task, deadline, progress)
        finally:
            self.slots.release()

    async def _perform(
        self, chat_id: bytes, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        text, depth, has_adapter = task.description, r.start.depth, self.runtime.has_adapter
        reason = subteam_reason(text, depth=depth, has_adapter=has_adapter)
        own: TaskOutcome | None = None
        if reason is None:
            own = await self._run_own(chat_id, r, task, deadline, progress)
            # a rejected plan step goes back to the planner, which re-routes it within the team
            rejected = own.failure == "rejected" and not is_planned_step(task.title)
            reason = subteam_reason(text, depth=depth, has_adapter=True, rejected=rejected)
            if reason is None:
                return own
        sub = await self._subteam(chat_id, r, task, deadline, reason, progress)
        if sub is not None:
            return sub
        if own is None and has_adapter:  # asked for a team, but nobody joined: do it alone
            own = await self._run_own(chat_id, r, task, deadline, progress)
        if own is not None:
            return own
        why = "no agent joined a sub-team for this task and this agent has no adapter to do it itself"
        return TaskOutcome(task.task_id, False, why, None, None, "rejected")

    async def _run_own(
        self, chat_id: bytes, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        turns = r.conv.view().turns[-8:] if r.conv is not None else ()
        name_of = self.members.name_of
        context = [
            {"speaker": name_of(t.author), "type": t.kind.removeprefix("conv."), "content": t.text}
            for t in turns
        ]
        card = self.runtime.card
        kind = card.kind if card is not None else ""
        remote = card is not None and self.runtime.needs.calls_remote  # declared by the kind (AdapterNeeds)
        name = f"invoke_agent {card.name}" if card is not None and remote else "ioa.adapter.run"
        about = {
            tr.GEN_AI_OPERATION: "invoke_agent",
            "ioa.adapter": kind,
            tr.GEN_AI_AGENT_NAME: card.name if card else "",
        }
        span_kind = "client" if remote else "internal"
        # the adapter's own spans (model, tool and HTTP calls) go to the node's tracer, under this one
        with (
            self.node.tracer.span(name, kind=span_kind, attributes=about) as span,
            use_tracer(self.node.tracer),
        ):
            result = await self.runtime.run(
                task.description,
                deadline=deadline,
                task_id=task.task_id,
                chat_id=chat_id.hex(),
                context=context,
                on_progress=progress,
            )
            if not result.ok:
                span.record_error(result.failure or "failed", result.text[:200])
        return TaskOutcome(task.task_id, result.ok, result.text, result.data, result.files, result.failure)

    async def _subteam(
        self, chat_id: bytes, r: Round, task: TaskView, deadline: float, reason: str, progress: ProgressFn
    ) -> TaskOutcome | None:
        """The sub-team's conclusion as the task's outcome; None when no other agent joined."""
        remaining = deadline - self.node.now()
        timeout = remaining - min(10.0, remaining * 0.2)
        if timeout < 5.0:
            return None
        await progress(f"forming a sub-team (depth {r.start.depth - 1}): {reason}", None)
        try:
            others = tuple(m for m in r.start.members if m != self.me)
            request = LaunchRequest(  # the parent round's limits (a peer's conv.start): within ours
                task.description[:MAX_GOAL_CHARS],
                depth=int(DEPTH.clamp(r.start.depth - 1)),
                max_turns=int(MAX_TURNS.clamp(r.start.max_turns)),
                timeout=SECONDS.clamp(timeout),
                speaker_timeout=SECONDS.clamp(r.start.speaker_timeout),
                parent=SubTeamOf(chat_id, task.task_id, others),
            )
            sub = await self.subteams.launch_goal(request)
        except NoTeam as exc:
            await progress(f"no sub-team: {exc}", None)
            return None
        except IoAError as exc:
            return TaskOutcome(task.task_id, False, f"the sub-team failed: {exc}", None, None, "task_error")
        names = ", ".join(t.name for t in sub.team)
        text = f"[sub-team {sub.chat_id[:16]}: {names}; {sub.status}]\n{sub.conclusion}"[: cm.MAX_TEXT]
        ok = sub.succeeded
        return TaskOutcome(
            task.task_id, ok, text, subteam_data(sub, self.me), None, None if ok else "task_error"
        )


def subteam_data(sub: GoalResult, me: str) -> dict[str, JsonValue]:
    """The ``data`` of a task a sub-team did (docs/goals.md section 8): the sub-round, its team, every
    agent that took part below this node (the sub-team and its own sub-teams, by peer ID and card name)
    and, as the task's usage, what the sub-team's tasks cost (tokens and tool calls summed: cost tables
    add up across nesting; the task's real time is measured by the driver)."""
    finished = [t for t in sub.tasks if t.status in ("completed", "failed")]
    table = task_costs((t.assignee, t.task_id, t.status == "completed", t.data) for t in finished)
    agents = {t.peer_id: t.name for t in sub.team if t.peer_id != me}
    for t in finished:
        for peer, name in nested_agents(t.data):
            if peer != me:
                agents.setdefault(peer, name)
    return {
        "sub_chat": sub.chat_id,
        "sub_round": sub.round_id,
        "status": sub.status,
        "team": [t.peer_id for t in sub.team],
        "agents": [{"peer_id": p, "name": n} for p, n in list(agents.items())[:MAX_NESTED_AGENTS]],
        "usage": nested_usage(table),
    }


__all__ = ["MAX_RUNNING_TASKS", "ProgressFn", "SubTeamLauncher", "TaskRunner", "subteam_data"]
