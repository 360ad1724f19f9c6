"""Doing a task assigned to this node: on its adapter, or through a sub-team (the nested-team rule).

At most :data:`MAX_RUNNING_TASKS` run at once over all goals (teammates choose how many tasks they
assign); the others wait for a slot until their deadline. docs/goals.md, sections 7 and 8.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import trio

from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import DEPTH, MAX_GOAL_CHARS, MAX_TURNS, SECONDS, LaunchRequest, SubTeamOf
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import TaskOutcome
from ioa_p2p.conversation.types import TaskView
from ioa_p2p.errors import IoAError, NoTeam
from ioa_p2p.node.goals.runtime import AgentRuntime, is_planned_step, subteam_reason
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import Tracer

if TYPE_CHECKING:
    from ioa_p2p.node.goals.driver import ChatDriver, ProgressFn
    from ioa_p2p.node.goals.rounds import Round

#: Tasks (adapter runs or sub-teams) this node works on at once, over all goals.
MAX_RUNNING_TASKS = 8
#: Adapter kinds whose tasks are calls to a remote agent (traced as ``invoke_agent <name>`` client spans).
REMOTE_KINDS = frozenset({"a2a", "mcp", "agent_protocol", "http"})


class Goals(Protocol):
    """What doing a task uses of the goals service (:class:`ioa_p2p.node.goals.service.Goals`)."""

    @property
    def me(self) -> str: ...
    @property
    def runtime(self) -> AgentRuntime: ...
    @property
    def task_slots(self) -> trio.CapacityLimiter: ...
    @property
    def tracer(self) -> Tracer: ...

    def name_of(self, peer: str) -> str: ...
    def now(self) -> float: ...
    async def launch_goal(self, request: LaunchRequest) -> GoalResult: ...


async def perform_task(
    goals: Goals, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
) -> TaskOutcome:
    """Run a task assigned to this node: on its adapter, or through a sub-team (the nested-team rule).
    At most :data:`MAX_RUNNING_TASKS` run at once (teammates choose how many tasks they assign); the
    others wait for a slot until their deadline."""
    with trio.move_on_after(max(0.0, deadline - goals.now())) as waited:
        await goals.task_slots.acquire()
    if waited.cancelled_caught:
        why = f"this node runs at most {MAX_RUNNING_TASKS} tasks at once; none ended before this deadline"
        return TaskOutcome(task.task_id, False, why, None, None, "timeout")
    try:
        return await _perform(goals, driver, r, task, deadline, progress)
    finally:
        goals.task_slots.release()


async def _perform(
    goals: Goals, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
) -> TaskOutcome:
    text, depth = task.description, r.start.depth
    reason = subteam_reason(text, depth=depth, has_adapter=goals.runtime.has_adapter)
    own: TaskOutcome | None = None
    if reason is None:
        own = await _run_own(goals, driver, r, task, deadline, progress)
        # a rejected plan step goes back to the planner, which re-routes it within the team
        rejected = own.failure == "rejected" and not is_planned_step(task.title)
        reason = subteam_reason(text, depth=depth, has_adapter=True, rejected=rejected)
        if reason is None:
            return own
    sub = await _subteam(goals, driver, r, task, deadline, reason, progress)
    if sub is not None:
        return sub
    if own is None and goals.runtime.has_adapter:  # asked for a team, but nobody joined: do it alone
        own = await _run_own(goals, driver, r, task, deadline, progress)
    if own is not None:
        return own
    why = "no agent joined a sub-team for this task and this agent has no adapter to do it itself"
    return TaskOutcome(task.task_id, False, why, None, None, "rejected")


async def _run_own(
    goals: Goals, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
) -> TaskOutcome:
    turns = r.conv.view().turns[-8:] if r.conv is not None else ()
    context = [
        {"speaker": goals.name_of(t.author), "type": t.kind.removeprefix("conv."), "content": t.text}
        for t in turns
    ]
    card = goals.runtime.card
    kind = card.kind if card is not None else ""
    name = f"invoke_agent {card.name}" if card is not None and kind in REMOTE_KINDS else "ioa.adapter.run"
    about = {
        tr.GEN_AI_OPERATION: "invoke_agent",
        "ioa.adapter": kind,
        tr.GEN_AI_AGENT_NAME: card.name if card else "",
    }
    span_kind = "client" if kind in REMOTE_KINDS else "internal"
    with goals.tracer.span(name, kind=span_kind, attributes=about) as span:
        result = await goals.runtime.run(
            task.description,
            deadline=deadline,
            task_id=task.task_id,
            chat_id=driver.hex,
            context=context,
            on_progress=progress,
        )
        if not result.ok:
            span.record_error(result.failure or "failed", result.text[:200])
    return TaskOutcome(task.task_id, result.ok, result.text, result.data, result.files, result.failure)


async def _subteam(
    goals: Goals,
    driver: ChatDriver,
    r: Round,
    task: TaskView,
    deadline: float,
    reason: str,
    progress: ProgressFn,
) -> TaskOutcome | None:
    """The sub-team's conclusion as the task's outcome; None when no other agent joined."""
    remaining = deadline - goals.now()
    timeout = remaining - min(10.0, remaining * 0.2)
    if timeout < 5.0:
        return None
    await progress(f"forming a sub-team (depth {r.start.depth - 1}): {reason}", None)
    try:
        me = goals.me
        request = LaunchRequest(  # the parent round's limits (a peer's conv.start): within ours
            task.description[:MAX_GOAL_CHARS],
            depth=int(DEPTH.clamp(r.start.depth - 1)),
            max_turns=int(MAX_TURNS.clamp(r.start.max_turns)),
            timeout=SECONDS.clamp(timeout),
            speaker_timeout=SECONDS.clamp(r.start.speaker_timeout),
            parent=SubTeamOf(driver.chat_id, task.task_id, tuple(m for m in r.start.members if m != me)),
        )
        sub = await goals.launch_goal(request)
    except NoTeam as exc:
        await progress(f"no sub-team: {exc}", None)
        return None
    except IoAError as exc:
        return TaskOutcome(task.task_id, False, f"the sub-team failed: {exc}", None, None, "task_error")
    names = ", ".join(t.name for t in sub.team)
    text = f"[sub-team {sub.chat_id[:16]}: {names}; {sub.status}]\n{sub.conclusion}"[: cm.MAX_TEXT]
    data = {
        "sub_chat": sub.chat_id,
        "sub_round": sub.round_id,
        "status": sub.status,
        "team": [t.peer_id for t in sub.team],
    }
    ok = sub.succeeded
    return TaskOutcome(task.task_id, ok, text, data, None, None if ok else "task_error")


__all__ = ["MAX_RUNNING_TASKS", "REMOTE_KINDS", "perform_task"]
