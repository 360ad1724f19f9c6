"""Launching a goal: form its team (or continue its chat), post ``conv.start``, follow the round to its end;
cancelling a goal this node launched.

:class:`Launcher` is given what it works with when the goals service starts: the node, the chat service,
the ``[goals]`` defaults, team formation (:class:`~ioa_p2p.node.goals.teams.TeamFormation`), the chat
drivers (:class:`~ioa_p2p.node.goals.drivers.Drivers`, whose driver of the new chat runs the round) and
the members' names. A sub-team is a goal launched here too, by the task runner of the member that forms
it (:class:`~ioa_p2p.node.goals.tasks.SubTeamLauncher`).

Cancelling: ``cancel_goal`` posts a signed ``conv.cancel`` of the round (every member aborts it and
cancels its running tasks). A sub-team's launch whose task is given up (its round was cancelled, or the
node stops) cancels its own round the same way before it returns, so cancelling a goal stops its
sub-teams too, level by level. A top-level round whose initiator goes away (its node stopping, a client
gone) is not cancelled: the members conclude it on their own.

ONE deadline, the request's ``timeout`` from the call, covers everything: discovery, the LLM team-up,
invitations, the round (whose ``conv.start`` deadline is this same deadline) and its wrap-up;
:meth:`Launcher.launch_goal` returns by the deadline plus :data:`~ioa_p2p.api.launch.GOAL_GRACE`.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable

import trio

from ioa_p2p.api.events import EventSink, GoalEvent, SearchingEvent, TeamEvent
from ioa_p2p.api.goals import CancelGoalReply, GoalResult, Teammate
from ioa_p2p.api.launch import GOAL_GRACE, LaunchRequest
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import CANCEL, RoundCancel
from ioa_p2p.errors import GoalAborted, IoAError, IoATimeout, UsageError
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.goals.drivers import Drivers
from ioa_p2p.node.goals.launches import Launch, LaunchLog, LaunchLogs
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.teams import TeamFormation
from ioa_p2p.node.goals.trace_peers import TracePeers
from ioa_p2p.node.goals.types import FormedTeam, GoalsConfig, RoundOutcome, make_result
from ioa_p2p.node.ports import NodePort
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import NOOP_SPAN, Span

log = logging.getLogger("ioa_p2p.goals")

#: Seconds a round gets at least, when team formation used (nearly) all of the goal's time.
ROUND_MIN = 1.0
#: Seconds a launch whose caller gave up spends at most on posting its round's ``conv.cancel``.
CANCEL_POST_TIMEOUT = 3.0


class Launcher:
    """Launches and cancels the goals of this node (see the module docstring)."""

    def __init__(
        self,
        node: NodePort,
        chats: Chats,
        config: GoalsConfig,
        teams: TeamFormation,
        drivers: Drivers,
        members: Members,
        *,
        brain_label: str,
        nursery: trio.Nursery,
        trace_peers: TracePeers | None = None,
    ) -> None:
        self.node = node
        self.trace_peers = trace_peers or TracePeers(node)
        self.chats = chats
        self.config = config
        self.teams = teams
        self.drivers = drivers
        self.members = members
        self.brain_label = brain_label
        self.me = str(node.peer_id)
        self.launches: dict[str, Launch] = {}
        self.logs = LaunchLogs()
        self._nursery = nursery

    # ------------------------------------------------------------------ launching

    def start_launch(self, request: LaunchRequest) -> tuple[str, LaunchLog]:
        """Launch ``request`` in the background (it outlives the client that asked); its launch ID and
        its event log, which ends with ``done`` or ``error`` (:mod:`ioa_p2p.node.goals.launches`)."""

        async def launch(launch_id: str, sink: EventSink) -> GoalResult:
            return await self.launch_goal(request, on_event=sink, launch_id=launch_id)

        return self.logs.start(launch, self._start_job)

    def _start_job(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` in the service's nursery (it outlives the request that started it); an exception
        it raises ends the job only (counted in ``node.faults``)."""

        async def bounded() -> None:
            with self.node.faults.boundary("goal job"):
                await job()

        self._nursery.start_soon(bounded)

    async def launch_goal(
        self, request: LaunchRequest, *, on_event: EventSink | None = None, launch_id: str | None = None
    ) -> GoalResult:
        """Form a team for ``request.goal`` (or continue its ``chat``) and work it out, inside the goal's
        span (the root of the goal's trace when tracing is on). ``on_event`` gets every event as it
        happens, typed (:data:`~ioa_p2p.api.events.GoalEvent`); ``launch_id`` names the launch (default:
        a new one). :meth:`cancel_goal` ends it early."""
        attributes = {
            tr.GEN_AI_OPERATION: "invoke_agent",
            tr.GEN_AI_AGENT_ID: self.me,
            tr.GEN_AI_AGENT_NAME: self.members.name_of(self.me),
            "ioa.goal": request.goal[:1000],
        }
        with self.node.tracer.span(tr.GOAL, attributes=attributes) as span:
            result = await self._launch(request, on_event or _ignore, launch_id, span)
            span.set_attribute(tr.GEN_AI_CONVERSATION_ID, result.chat_id)
            span.set_attribute("ioa.status", result.status)
            span.set_attribute("ioa.turns", result.turns)
            if result.status != "concluded":
                span.record_error("aborted", result.conclusion[:200])
            return result

    async def _launch(
        self, request: LaunchRequest, emit: EventSink, launch_id: str | None, span: Span = NOOP_SPAN
    ) -> GoalResult:
        started, began = trio.current_time(), time.perf_counter()  # began: wall time, for the timings
        limits = request.limits(self.config.launch_defaults())
        deadline = self.node.now() + limits.timeout
        scope = trio.CancelScope(deadline=started + limits.timeout)
        launch = Launch(launch_id or secrets.token_hex(8), scope)
        self.launches[launch.launch_id] = launch
        sub = request.parent
        try:
            formed = await self._form(request, launch, deadline, emit, started)
            launch.chat_id = formed.chat_id
            members = [self.me, *(t.peer_id for t in formed.members)]
            # the goal's trace context, when every member accepts it (docs/protocol.md §10.11)
            trace = await self.trace_peers.context_for(span.traceparent(), members)
            start = ConvStart.create(
                request.goal,
                initiator=self.me,
                members=members,
                now=self.node.now(),
                timeout=max(ROUND_MIN, deadline - self.node.now()),
                max_turns=limits.max_turns,
                speaker_timeout=limits.speaker_timeout,
                task_timeout=limits.task_timeout,
                depth=limits.depth,
                parent_chat=sub.parent_chat.hex() if sub else "",
                parent_task=sub.parent_task if sub else "",
                trace=trace,
            )
            round_id, outcome = await self._run_round(
                launch, request.goal, formed, start, emit, abandon=sub is not None
            )
        finally:
            self.launches.pop(launch.launch_id, None)
        timings = dict(formed.timings, total_s=time.perf_counter() - began)
        me = Teammate(self.me, self.members.name_of(self.me), 1.0)
        return make_result(
            request.goal, start, round_id, formed.chat_id, outcome, formed, me, self.brain_label, timings
        )

    async def _form(
        self, request: LaunchRequest, launch: Launch, deadline: float, emit: EventSink, started: float
    ) -> FormedTeam:
        """The team of ``request``, within the launch's cancel scope (GoalAborted when it ends first)."""
        with launch.scope:
            if request.chat:
                chat_id = self.chats.resolve(request.chat)
                return self.teams.continuation(chat_id, self.drivers.last_round_members(chat_id))
            emit(SearchingEvent(request.goal, launch.launch_id))
            with self.node.tracer.span(tr.TEAM, attributes={"ioa.launch_id": launch.launch_id}) as team:
                formed = await self.teams.form(request, deadline=deadline, emit=emit)
                team.set_attribute("ioa.team", [t.name or t.peer_id for t in formed.members])
                return formed
        why = "cancelled" if launch.cancelled else "the goal's deadline passed"
        raise GoalAborted(f"no team was formed: {why} (after {trio.current_time() - started:.1f} s)")

    async def _run_round(
        self, launch: Launch, goal: str, formed: FormedTeam, start: ConvStart, emit: EventSink, *,
        abandon: bool,
    ) -> tuple[str, RoundOutcome]:  # fmt: skip
        """Post ``start`` in the team's chat and relay the chat's events until the round ends on this
        node. With ``abandon`` (a sub-team's round), a caller that gives up meanwhile cancels the round
        (a signed ``conv.cancel``); otherwise the round goes on without this node."""
        chat_id = formed.chat_id
        driver = self.drivers.ensure(chat_id)
        relayed = driver.log.last_seq  # the chat's events from the team on are this launch's too
        driver.emit(  # in the chat's event log, so /goal_events followers see the team
            TeamEvent(
                chat_id=chat_id.hex(),
                goal=goal,
                team=formed.members,
                declined=formed.declined,
                unanswered=formed.unanswered,
                timings=formed.timings,
                team_fallback=formed.team_fallback,
                launch_id=launch.launch_id,
            )
        )

        async def relay() -> None:
            nonlocal relayed
            while True:
                batch = await driver.log.wait_after(relayed)
                for seq, event in batch.entries:
                    emit(event)
                    relayed = seq
                if driver.log.closed:
                    return

        env = await self.chats.post(chat_id, cm.START, start.to_content())
        round_id = launch.round_id = env.hash.hex()
        if launch.cancelled:  # cancelled while conv.start was being posted
            await self.cancel_round(chat_id, round_id)
        wait = max(0.0, start.deadline - self.node.now()) + GOAL_GRACE
        try:
            with trio.move_on_after(wait) as waited:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(relay)
                    outcome = await driver.wait_round(round_id)
                    nursery.cancel_scope.cancel()
        except BaseException:  # cancelled (maybe inside a group), interrupted
            if abandon:  # nobody waits for a sub-team's conclusion any more
                await self._abandon(chat_id, round_id)
            raise
        if waited.cancelled_caught:
            raise IoATimeout(
                f"round {round_id[:16]} of chat {chat_id.hex()[:16]} did not end on this node "
                f"{GOAL_GRACE:.0f} s after its deadline; see `ioa goal events` and the node log"
            )
        for seq, event in driver.log.entries_after(relayed).entries:  # what came with the end
            emit(event)
            relayed = seq
        return round_id, outcome

    async def _abandon(self, chat_id: bytes, round_id: str) -> None:
        """The caller gave up on a running sub-team round (its task cancelled with the parent round, the
        node stopping): cancel it for every member, bounded and shielded (the caller's cancellation goes
        on right after)."""
        driver = self.drivers.get(chat_id)
        found = driver.rounds.get(round_id) if driver is not None else None
        if found is not None and not found.active:
            return
        with trio.CancelScope(shield=True), trio.move_on_after(CANCEL_POST_TIMEOUT):
            try:
                await self.cancel_round(chat_id, round_id)
            except IoAError as exc:
                log.info("could not cancel round %s of chat %s: %s", round_id[:16], chat_id.hex()[:16], exc)

    # ------------------------------------------------------------------ cancelling

    async def cancel_goal(self, ref: str) -> CancelGoalReply:
        """Cancel a goal this node launched: ``ref`` is a launch id (from the ``searching`` event) or a
        chat (id or unique prefix). A running round gets a signed ``conv.cancel`` (every member aborts
        it; a member's sub-team for one of its tasks is cancelled with the task); a launch still forming
        its team stops there."""
        for launch in list(self.launches.values()):
            if ref == launch.launch_id or (launch.chat_id is not None and launch.chat_id.hex() == ref):
                launch.cancelled = True
                if launch.round_id and launch.chat_id is not None:
                    await self.cancel_round(launch.chat_id, launch.round_id)
                    return CancelGoalReply((launch.round_id,), chat_id=launch.chat_id.hex())
                if launch.chat_id is None:
                    launch.scope.cancel()
                return CancelGoalReply((), launch_id=launch.launch_id)
        chat_id = self.chats.resolve(ref)
        driver = self.drivers.get(chat_id)
        mine = [
            r.round_id
            for r in (driver.rounds.values() if driver is not None else ())
            if r.active and r.start.initiator == self.me
        ]
        if not mine:
            raise UsageError(
                f"chat {chat_id.hex()[:16]} has no running round launched by this node; only the node that "
                "launched a goal can cancel it"
            )
        for round_id in mine:
            await self.cancel_round(chat_id, round_id)
        return CancelGoalReply(tuple(mine), chat_id=chat_id.hex())

    async def cancel_round(self, chat_id: bytes, round_id: str) -> None:
        """Post a signed ``conv.cancel`` of ``round_id``: every member aborts the round."""
        await self.chats.post(chat_id, CANCEL, RoundCancel(round_id).to_content())


def _ignore(event: GoalEvent) -> None:
    """The sink of a launch nobody follows."""


__all__ = ["CANCEL_POST_TIMEOUT", "ROUND_MIN", "Launcher"]
