"""Goals from any peer: team formation, the conversation of each goal chat, nested teams, control routes.

``open_goals(node, chats, discovery)`` (:mod:`~ioa_p2p.node.goals.run`; the service is
``node.services.goals``) wires the pure parts together (docs/goals.md):

- the node's agent (:mod:`ioa_p2p.node.goals.runtime`) and brain (offline planner, or the LLM brain when a
  ``[model]`` table or ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` is set; ``[goals] brain`` can force one);
- an invitation policy: goal chats (topic ``goal: ...``) are accepted while this node works on fewer than
  ``max_concurrent`` goals, declined otherwise; other chats are accepted as before;
- one :class:`~ioa_p2p.node.goals.driver.ChatDriver` per goal chat, resumed from the store on start;
- :meth:`Goals.launch_goal`: discover, choose, invite, open the chat, post ``conv.start``, follow the round;
- :meth:`Goals.perform_task`: a task assigned to this node runs on its adapter, or forms a sub-team.

Config ``[goals]``: ``max_concurrent`` (4), ``timeout`` (300 s per goal), ``max_turns`` (20),
``speaker_timeout`` (30 s), ``task_timeout`` (default: half the goal's time), ``invite_timeout`` (10 s),
``max_team`` (4), ``threshold`` (0.2), ``shortlist`` (10), ``depth`` (1), ``brain``
("auto" | "offline" | "llm").
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.api.events import EventSink, GoalEvent, SearchingEvent, TeamEvent
from ioa_p2p.api.goals import CancelGoalReply, GoalResult, GoalSummary, Teammate, goal_result
from ioa_p2p.api.launch import GOAL_GRACE, LaunchRequest
from ioa_p2p.card import SignedCard
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import Brain, MemberInfo
from ioa_p2p.conversation.brains.llm import CONTEXT_TOKENS, LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.plan import CANCEL, RoundCancel
from ioa_p2p.conversation.types import TaskView
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import (
    ConfigError,
    GoalAborted,
    IoAError,
    IoATimeout,
    UsageError,
)
from ioa_p2p.history.bodies import ChatGenesis
from ioa_p2p.identity import PeerId
from ioa_p2p.llm.model import Model
from ioa_p2p.llm.openai_compat import model_from_settings
from ioa_p2p.llm.settings import ModelSettings
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.goals.driver import ChatDriver, ProgressFn
from ioa_p2p.node.goals.launches import Launch, LaunchLog, LaunchLogs
from ioa_p2p.node.goals.model_calls import GuardedModel
from ioa_p2p.node.goals.rounds import Round
from ioa_p2p.node.goals.runtime import AgentRuntime
from ioa_p2p.node.goals.tasks import MAX_RUNNING_TASKS, perform_task
from ioa_p2p.node.goals.teams import TeamFormation
from ioa_p2p.node.goals.types import GOAL_TOPIC_PREFIX, FormedTeam, GoalsConfig, RoundOutcome, make_result
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import NOOP_SPAN, NOOP_TRACER, Span, Tracer
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.goals")

CARD_FETCH_TIMEOUT = 3.0
#: Seconds a round gets at least, when team formation used (nearly) all of the goal's time.
ROUND_MIN = 1.0


class Goals:
    """The goals service of one node (``node.services.goals``)."""

    def __init__(
        self,
        node: NodePort,
        chats: Chats,
        discovery: Discovery | None,
        config: GoalsConfig,
        runtime: AgentRuntime,
        embedder: Embedder,
        brain: Brain,
        model: Model | None,
        nursery: trio.Nursery,
    ) -> None:
        self.node = node
        self.chats = chats
        self.discovery = discovery
        self.config = config
        self.runtime = runtime
        self.embedder = embedder
        self.brain = brain
        self.model = model
        self.me = str(node.peer_id)
        self.drivers: dict[bytes, ChatDriver] = {}
        self._nursery = nursery
        self.declined_invitations = 0
        self.teams = TeamFormation(self)
        self.task_slots = trio.CapacityLimiter(MAX_RUNNING_TASKS)
        self.launches: dict[str, Launch] = {}
        self.launch_logs = LaunchLogs()
        self.context_tokens = getattr(brain, "context_tokens", CONTEXT_TOKENS)

    # ------------------------------------------------------------------ drivers and invitations

    def ensure_driver(
        self, chat_id: bytes, *, wait_for_chat: float = 0.0, reserved: bool = False
    ) -> ChatDriver:
        driver = self.drivers.get(chat_id)
        if driver is None:
            driver = ChatDriver(self, chat_id, reserved=reserved)
            self.drivers[chat_id] = driver
            self._nursery.start_soon(self._run_driver, driver, wait_for_chat)
        return driver

    async def _run_driver(self, driver: ChatDriver, wait_for_chat: float) -> None:
        """A driver that fails stops alone (it forgets itself; the next invitation or start resumes the
        chat): the goals service and the node go on."""
        with self.node.faults.boundary("goal driver"):
            await driver.run(wait_for_chat)

    def last_round_members(self, chat_id: bytes) -> tuple[str, ...] | None:
        """The members of the latest round this node drove in ``chat_id`` (None: no round known)."""
        driver = self.drivers.get(chat_id)
        last = driver.latest_round() if driver else None
        return None if last is None else tuple(last.start.members)

    def forget_driver(self, driver: ChatDriver) -> None:
        if self.drivers.get(driver.chat_id) is driver:
            del self.drivers[driver.chat_id]

    def start_job(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` in the service's nursery (it outlives the request that started it); an exception
        it raises ends the job only (counted in ``node.faults``)."""

        async def bounded() -> None:
            with self.node.faults.boundary("goal job"):
                await job()

        self._nursery.start_soon(bounded)

    @property
    def tracer(self) -> Tracer:
        return self.node.tracer

    def busy_count(self) -> int:
        return sum(1 for d in self.drivers.values() if d.busy(self.config.reserve_timeout))

    async def invite_policy(self, genesis: Envelope) -> bool:
        """Accept goal chats while under ``max_concurrent`` (others as before); start their driver."""
        body = genesis.body
        if not isinstance(body, ChatGenesis) or not body.topic.startswith(GOAL_TOPIC_PREFIX):
            return True
        if genesis.hash in self.drivers:
            return True
        if self.busy_count() >= self.config.max_concurrent:
            self.declined_invitations += 1
            log.info("declining goal chat %s: busy with %d goals", genesis.hash.hex()[:16], self.busy_count())
            return False
        self.ensure_driver(genesis.hash, wait_for_chat=self.config.reserve_timeout, reserved=True)
        return True

    def resume(self) -> int:
        """Start a driver for every goal chat this node is a member of (unfinished rounds resume)."""
        count = 0
        for info in self.chats.list_chats():
            if info["status"] == "member" and info["topic"].startswith(GOAL_TOPIC_PREFIX):
                self.ensure_driver(bytes.fromhex(info["chat_id"]))
                count += 1
        return count

    # ------------------------------------------------------------------ names, cards, events

    def card_of(self, peer: str) -> SignedCard | None:
        """The signed card of ``peer`` this node holds (None when unknown or discovery is off)."""
        discovery = self.discovery
        if discovery is None:
            return None
        if peer == self.me:
            return discovery.card
        try:
            return discovery.directory.get(PeerId.from_string(peer), int(self.node.now() * 1000))
        except IoAError:
            return None

    def member_info(self, peer: str) -> MemberInfo:
        card = self.card_of(peer)
        if card is not None:
            return MemberInfo.from_card(card.card)
        if peer == self.me and self.runtime.card is not None:
            c = self.runtime.card
            return MemberInfo(peer, c.name, c.description, c.skills, self.runtime.has_adapter)
        return MemberInfo(peer, f"agent-{peer[-6:]}")

    def name_of(self, peer: str) -> str:
        return self.member_info(peer).name

    def now(self) -> float:
        """The node's wall clock (seconds since the Unix epoch): goal and task deadlines are read on it."""
        return self.node.now()

    async def team_info(self, members: Sequence[str]) -> list[MemberInfo]:
        """Cards of the members (missing ones fetched from the DHT, bounded)."""
        discovery = self.discovery
        missing = [m for m in members if m != self.me and self.card_of(m) is None]
        if discovery is not None and missing:
            with trio.move_on_after(CARD_FETCH_TIMEOUT):
                try:
                    await discovery.fetch_cards([PeerId.from_string(m) for m in missing])
                except IoAError as exc:
                    log.debug("fetching member cards failed: %s", exc)
        return [self.member_info(m) for m in members]

    # ------------------------------------------------------------------ doing a task

    async def perform_task(
        self, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        """Run a task assigned to this node (:func:`~ioa_p2p.node.goals.tasks.perform_task`)."""
        return await perform_task(self, driver, r, task, deadline, progress)

    # ------------------------------------------------------------------ launching a goal

    def start_launch(self, request: LaunchRequest) -> tuple[str, LaunchLog]:
        """Launch ``request`` in the background (it outlives the client that asked); its launch ID and
        its event log, which ends with ``done`` or ``error`` (:mod:`ioa_p2p.node.goals.launches`)."""

        async def launch(launch_id: str, sink: EventSink) -> GoalResult:
            return await self.launch_goal(request, on_event=sink, launch_id=launch_id)

        return self.launch_logs.start(launch, self.start_job)

    async def launch_goal(
        self, request: LaunchRequest, *, on_event: EventSink | None = None, launch_id: str | None = None
    ) -> GoalResult:
        """:meth:`_launch_goal` inside the goal's span (the root of the goal's trace when tracing is on)."""
        attributes = {
            tr.GEN_AI_OPERATION: "invoke_agent",
            tr.GEN_AI_AGENT_ID: self.me,
            tr.GEN_AI_AGENT_NAME: self.name_of(self.me),
            "ioa.goal": request.goal[:1000],
        }
        with self.node.tracer.span(tr.GOAL, attributes=attributes) as span:
            result = await self._launch_goal(request, on_event=on_event, launch_id=launch_id, span=span)
            span.set_attribute(tr.GEN_AI_CONVERSATION_ID, result.chat_id)
            span.set_attribute("ioa.status", result.status)
            span.set_attribute("ioa.turns", result.turns)
            if result.status != "concluded":
                span.record_error("aborted", result.conclusion[:200])
            return result

    async def _launch_goal(
        self,
        request: LaunchRequest,
        *,
        on_event: EventSink | None = None,
        launch_id: str | None = None,
        span: Span = NOOP_SPAN,
    ) -> GoalResult:
        """Form a team for ``request.goal`` (or continue its ``chat``) and work it out.

        ONE deadline, the request's ``timeout`` from now, covers everything: discovery, the LLM team-up,
        invitations, the round (whose ``conv.start`` deadline is this same deadline) and its wrap-up;
        this call returns by the deadline plus :data:`~ioa_p2p.api.launch.GOAL_GRACE`. :meth:`cancel_goal`
        ends it early. ``on_event`` gets every event as it happens, typed
        (:data:`~ioa_p2p.api.events.GoalEvent`); ``launch_id`` names the launch (default: a new one)."""
        started = trio.current_time()
        limits = request.limits(self.config.launch_defaults())
        emit = on_event or _ignore
        deadline = self.node.now() + limits.timeout
        scope = trio.CancelScope(deadline=trio.current_time() + limits.timeout)
        launch = Launch(launch_id or secrets.token_hex(8), scope)
        self.launches[launch.launch_id] = launch
        sub = request.parent
        try:
            with launch.scope:
                if request.chat:
                    formed = self.teams.continuation(self.chats.resolve(request.chat))
                else:
                    emit(SearchingEvent(request.goal, launch.launch_id))
                    with self.node.tracer.span(
                        tr.TEAM, attributes={"ioa.launch_id": launch.launch_id}
                    ) as team:
                        formed = await self.teams.form(request, deadline=deadline, emit=emit)
                        team.set_attribute("ioa.team", [t.name or t.peer_id for t in formed.members])
            if launch.scope.cancelled_caught:
                why = "cancelled" if launch.cancelled else "the goal's deadline passed"
                raise GoalAborted(f"no team was formed: {why} (after {trio.current_time() - started:.1f} s)")
            launch.chat_id = formed.chat_id
            start = ConvStart.create(
                request.goal,
                initiator=self.me,
                members=[self.me, *(t.peer_id for t in formed.members)],
                now=self.node.now(),
                timeout=max(ROUND_MIN, deadline - self.node.now()),
                max_turns=limits.max_turns,
                speaker_timeout=limits.speaker_timeout,
                task_timeout=limits.task_timeout,
                depth=limits.depth,
                parent_chat=sub.parent_chat.hex() if sub else "",
                parent_task=sub.parent_task if sub else "",
                trace=span.traceparent(),
            )
            round_id, outcome = await self._run_round(launch, request.goal, formed, start, emit)
        finally:
            self.launches.pop(launch.launch_id, None)
        timings = dict(formed.timings, total_s=trio.current_time() - started)
        me = Teammate(self.me, self.name_of(self.me), 1.0)
        return make_result(
            request.goal, start, round_id, formed.chat_id, outcome, formed, me, self.brain.label, timings
        )

    async def _run_round(
        self, launch: Launch, goal: str, formed: FormedTeam, start: ConvStart, emit: EventSink
    ) -> tuple[str, RoundOutcome]:
        chat_id = formed.chat_id
        driver = self.ensure_driver(chat_id)
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
        with trio.move_on_after(wait) as waited:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(relay)
                outcome = await driver.wait_round(round_id)
                nursery.cancel_scope.cancel()
        if waited.cancelled_caught:
            raise IoATimeout(
                f"round {round_id[:16]} of chat {chat_id.hex()[:16]} did not end on this node "
                f"{GOAL_GRACE:.0f} s after its deadline; see `ioa goal events` and the node log"
            )
        for seq, event in driver.log.entries_after(relayed).entries:  # what came with the end
            emit(event)
            relayed = seq
        return round_id, outcome

    # ------------------------------------------------------------------ cancelling

    async def cancel_goal(self, ref: str) -> CancelGoalReply:
        """Cancel a goal this node launched: ``ref`` is a launch id (from the ``searching`` event) or a
        chat (id or unique prefix). A running round gets a signed ``conv.cancel`` (every member aborts
        it); a launch still forming its team stops there."""
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
        await self.chats.post(chat_id, CANCEL, RoundCancel(round_id).to_content())

    # ------------------------------------------------------------------ listing

    def round_result(self, chat_ref: str, round_id: str | None = None) -> GoalResult:
        """The result of an ended round of a goal chat (``round_id``; None: the latest) as this node saw
        it: any member can tell it (the team's match scores are known to the launcher only: 0 here)."""
        chat_id = self.chats.resolve(chat_ref)
        driver = self.drivers.get(chat_id)
        r = driver.rounds.get(round_id) if driver and round_id else driver.latest_round() if driver else None
        if r is None:
            raise UsageError(f"chat {chat_id.hex()[:16]}... has no round {round_id or ''} on this node")
        out = r.outcome
        if out is None:
            raise UsageError(f"round {r.round_id[:16]} is still running; follow it with GET /goal_events")
        start = r.start
        team = tuple(Teammate(m, self.name_of(m), float(m == start.initiator)) for m in start.members)
        return goal_result(
            goal=start.goal,
            chat_id=chat_id.hex(),
            round_id=r.round_id,
            status=out.status,
            conclusion=out.conclusion,
            forced=out.forced,
            team=team,
            declined=(),
            unanswered=(),
            tasks=out.tasks,
            turns=out.turns,
            messages=out.messages,
            size=out.bytes,
            brain=self.brain.label,
            depth=start.depth,
            parent_chat=start.parent_chat,
            parent_task=start.parent_task,
            timings={},
            origins=out.origins,
            fallbacks=out.fallbacks,
            team_fallback="",
            plan=out.plan,
        )

    def list_goals(self) -> tuple[GoalSummary, ...]:
        """Every round this node has seen, by chat, oldest first."""
        out = []
        for chat_id, driver in sorted(self.drivers.items()):
            for r in sorted(driver.rounds.values(), key=lambda r: r.started_ms):
                out.append(
                    GoalSummary(
                        chat_id=chat_id.hex(),
                        round_id=r.round_id,
                        goal=r.start.goal,
                        initiator=r.start.initiator,
                        members=tuple(r.start.members),
                        status=r.outcome.status if r.outcome else "running",
                        started_ms=r.started_ms,
                        depth=r.start.depth,
                        parent_chat=r.start.parent_chat,
                        conclusion=r.outcome.conclusion if r.outcome is not None else None,
                    )
                )
        return tuple(out)


def _ignore(event: GoalEvent) -> None:
    """The sink of a launch nobody follows."""


def make_brain_for(
    config: GoalsConfig,
    settings: dict[str, Any],
    embedder: Embedder,
    env: dict[str, str] | None = None,
    tracer: Tracer = NOOP_TRACER,
) -> tuple[Brain, Model | None]:  # the model: wrapped in GuardedModel (retries within callers' deadlines)
    """The brain ``[goals] brain`` and ``[model]`` ask for, and the model (None for the offline planner)."""
    offline = OfflineBrain(embedder)
    if config.brain == "offline":
        return offline, None
    raw = model_from_settings(settings, env)
    if raw is None:
        if config.brain == "llm":
            raise ConfigError(
                "[goals] brain = 'llm' needs a [model] table or OPENAI_API_KEY / OPENAI_BASE_URL"
            )
        return offline, None
    parsed = ModelSettings.from_section(settings)
    retries = parsed.max_retries
    context_tokens = parsed.context_tokens or CONTEXT_TOKENS
    model = GuardedModel(raw, retries=retries, tracer=tracer)
    brain = LLMBrain(model, fallback=offline, context_tokens=context_tokens, max_tokens=raw.max_tokens)
    return brain, model


__all__ = ["Goals", "make_brain_for"]
