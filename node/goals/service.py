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
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.card import SignedCard
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import Brain, MemberInfo
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import TaskView
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import (
    ConfigError,
    IoAError,
    IoATimeout,
    NoTeam,
)
from ioa_p2p.history.bodies import ChatGenesis
from ioa_p2p.identity import PeerId
from ioa_p2p.llm.model import Model
from ioa_p2p.llm.openai_compat import model_from_settings
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.goals.driver import ChatDriver, ProgressFn
from ioa_p2p.node.goals.rounds import Round
from ioa_p2p.node.goals.runtime import AgentRuntime, subteam_reason

# GoalResult is re-exported: ``from ioa_p2p.node.goals import GoalResult``.
from ioa_p2p.node.goals.teams import TeamFormation
from ioa_p2p.node.goals.types import (
    GOAL_TOPIC_PREFIX,
    GoalResult,
    GoalsConfig,
    Teammate,
    check_launch_args,
    make_result,
)
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.goals")

#: Extra seconds launch_goal waits after a round's deadline (every member ends by itself at the deadline).
WAIT_GRACE = 15.0
CARD_FETCH_TIMEOUT = 3.0
#: Tasks (adapter runs or sub-teams) this node works on at once, over all goals.
MAX_RUNNING_TASKS = 8


EventSink = Callable[[dict[str, Any]], None]


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
        self._task_slots = trio.CapacityLimiter(MAX_RUNNING_TASKS)

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
            return discovery.directory.get(PeerId.from_string(peer), int(time.time() * 1000))
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
        """Run a task assigned to this node: on its adapter, or through a sub-team (the nested-team rule).
        At most :data:`MAX_RUNNING_TASKS` run at once (teammates choose how many tasks they assign); the
        others wait for a slot until their deadline."""
        with trio.move_on_after(max(0.0, deadline - time.time())) as waited:
            await self._task_slots.acquire()
        if waited.cancelled_caught:
            why = f"this node runs at most {MAX_RUNNING_TASKS} tasks at once; none ended before this deadline"
            return TaskOutcome(task.task_id, False, why, None, None, "timeout")
        try:
            return await self._perform(driver, r, task, deadline, progress)
        finally:
            self._task_slots.release()

    async def _perform(
        self, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        text, depth = task.description, r.start.depth
        reason = subteam_reason(text, depth=depth, has_adapter=self.runtime.has_adapter)
        own: TaskOutcome | None = None
        if reason is None:
            own = await self._run_own(driver, r, task, deadline, progress)
            rejected = own.failure == "rejected"
            reason = subteam_reason(text, depth=depth, has_adapter=True, rejected=rejected)
            if reason is None:
                return own
        sub = await self._subteam(driver, r, task, deadline, reason, progress)
        if sub is not None:
            return sub
        if own is None and self.runtime.has_adapter:  # asked for a team, but nobody joined: do it alone
            own = await self._run_own(driver, r, task, deadline, progress)
        if own is not None:
            return own
        why = "no agent joined a sub-team for this task and this agent has no adapter to do it itself"
        return TaskOutcome(task.task_id, False, why, None, None, "rejected")

    async def _run_own(
        self, driver: ChatDriver, r: Round, task: TaskView, deadline: float, progress: ProgressFn
    ) -> TaskOutcome:
        turns = r.conv.view().turns[-8:] if r.conv is not None else ()
        context = [
            {"speaker": self.name_of(t.author), "type": t.kind.removeprefix("conv."), "content": t.text}
            for t in turns
        ]
        result = await self.runtime.run(
            task.description,
            deadline=deadline,
            task_id=task.task_id,
            chat_id=driver.hex,
            context=context,
            on_progress=progress,
        )
        return TaskOutcome(task.task_id, result.ok, result.text, result.data, result.files, result.failure)

    async def _subteam(
        self, driver: ChatDriver, r: Round, task: TaskView, deadline: float, reason: str, progress: ProgressFn
    ) -> TaskOutcome | None:
        """The sub-team's conclusion as the task's outcome; None when no other agent joined."""
        remaining = deadline - time.time()
        timeout = remaining - min(10.0, remaining * 0.2)
        if timeout < 5.0:
            return None
        await progress(f"forming a sub-team (depth {r.start.depth - 1}): {reason}", None)
        try:
            sub = await self.launch_goal(
                task.description,
                depth=r.start.depth - 1,
                max_turns=r.start.max_turns,
                timeout=timeout,
                speaker_timeout=r.start.speaker_timeout,
                parent_chat=driver.chat_id,
                parent_task=task.task_id,
                exclude=tuple(m for m in r.start.members if m != self.me),
                min_team=1,
            )
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

    # ------------------------------------------------------------------ launching a goal

    async def launch_goal(
        self,
        goal: str = "",
        *,
        team: Sequence[str] | None = None,
        depth: int | None = None,
        max_turns: int | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the goal's deadline, enforced by every member
        comm_id: str | None = None,
        cont_input: str | None = None,
        speaker_timeout: float | None = None,
        task_timeout: float | None = None,
        max_team: int | None = None,
        parent_chat: bytes | None = None,
        parent_task: str = "",
        exclude: Sequence[str] = (),
        min_team: int = 0,
        on_event: EventSink | None = None,
    ) -> GoalResult:
        """Form a team for ``goal`` (or continue chat ``comm_id`` with ``cont_input``) and work it out."""
        cfg = self.config
        started = time.monotonic()
        goal = (cont_input if comm_id else goal) or goal
        depth = cfg.depth if depth is None else depth
        max_turns = cfg.max_turns if max_turns is None else max_turns
        timeout = cfg.timeout if timeout is None else timeout
        speaker_timeout = cfg.speaker_timeout if speaker_timeout is None else speaker_timeout
        check_launch_args(goal, depth, max_turns, timeout, speaker_timeout, comm_id, cont_input)
        emit = on_event or (lambda event: None)
        if comm_id:
            chat_id = self.chats.resolve(comm_id)
            formed = self.teams.continuation(chat_id)
        else:
            emit({"event": "searching", "goal": goal})
            formed = await self.teams.form(
                goal, team, max_team or cfg.max_team, parent_chat, exclude, min_team
            )
        chat_id = formed.chat_id
        start = ConvStart.create(
            goal,
            initiator=self.me,
            members=[self.me, *(t.peer_id for t in formed.members)],
            now=time.time(),
            timeout=timeout,
            max_turns=max_turns,
            speaker_timeout=speaker_timeout,
            task_timeout=task_timeout or cfg.task_timeout or None,
            depth=depth,
            parent_chat=parent_chat.hex() if parent_chat else "",
            parent_task=parent_task,
        )
        driver = self.ensure_driver(chat_id)
        async with driver.follow(replay=False) as events:
            driver.emit(  # in the chat's event log too, so /goal_events followers see the team
                {
                    "event": "team",
                    "goal": goal,
                    "team": [t.to_json() for t in formed.members],
                    "declined": [t.to_json() for t in formed.declined],
                    "unanswered": [t.to_json() for t in formed.unanswered],
                    "timings": formed.timings,
                }
            )
            env = await self.chats.post(chat_id, cm.START, start.to_content())
            round_id = env.hash.hex()
            with trio.move_on_after(timeout + WAIT_GRACE) as waited:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_relay, events, emit)
                    outcome = await driver.wait_round(round_id)
                    nursery.cancel_scope.cancel()
            if waited.cancelled_caught:
                raise IoATimeout(
                    f"round {round_id[:16]} of chat {chat_id.hex()[:16]} did not end on this node "
                    f"{timeout + WAIT_GRACE:.0f} s after it started; see `ioa goal events` and the node log"
                )
            for event in _drain_events(events):
                emit(event)
        timings = dict(formed.timings, total_s=time.monotonic() - started)
        me = Teammate(self.me, self.name_of(self.me), 1.0)
        return make_result(goal, start, round_id, chat_id, outcome, formed, me, self.brain.label, timings)

    # ------------------------------------------------------------------ listing

    def list_goals(self) -> list[dict[str, Any]]:
        out = []
        for chat_id, driver in sorted(self.drivers.items()):
            for r in sorted(driver.rounds.values(), key=lambda r: r.started_ms):
                item: dict[str, Any] = {
                    "chat_id": chat_id.hex(),
                    "round_id": r.round_id,
                    "goal": r.start.goal,
                    "initiator": r.start.initiator,
                    "members": list(r.start.members),
                    "status": r.outcome.status if r.outcome else "running",
                    "started_ms": r.started_ms,
                    "depth": r.start.depth,
                    "parent_chat": r.start.parent_chat,
                }
                if r.outcome is not None:
                    item["conclusion"] = r.outcome.conclusion
                out.append(item)
        return out


async def _relay(events: trio.MemoryReceiveChannel[dict[str, Any]], emit: EventSink) -> None:
    async for event in events:
        emit(event)


def _drain_events(events: trio.MemoryReceiveChannel[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    while True:
        try:
            out.append(events.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return out


def make_brain_for(
    config: GoalsConfig, settings: dict[str, Any], embedder: Embedder, env: dict[str, str] | None = None
) -> tuple[Brain, Model | None]:
    """The brain ``[goals] brain`` and ``[model]`` ask for, and the model (None for the offline planner)."""
    offline = OfflineBrain(embedder)
    if config.brain == "offline":
        return offline, None
    model = model_from_settings(settings, env)
    if model is None:
        if config.brain == "llm":
            raise ConfigError(
                "[goals] brain = 'llm' needs a [model] table or OPENAI_API_KEY / OPENAI_BASE_URL"
            )
        return offline, None
    return LLMBrain(model, fallback=offline), model


__all__ = ["Goals", "make_brain_for"]
