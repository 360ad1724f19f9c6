"""The thin trio layer that drives the conversations of one goal chat (one :class:`ChatDriver` per chat).

The driver subscribes to the chat (replaying what is stored, so a restarted node resumes where it was) and
feeds every verified message to the :class:`~ioa_p2p.conversation.Conversation` of its round; a round begins
with each ``conv.start`` message (its id is the round id). It executes the decisions (docs/conversation.md):

- ``Speak``: the node's brain runs in its own task within the turn's deadline
  (:func:`~ioa_p2p.node.goals.turns.take_turn_bounded`); its draft, or its fallback's (the offline
  planner, marked), goes back to ``compose_turn``; a changed shared plan is posted as ``conv.plan``;
- ``StartTask`` / ``CancelTask``: the task runner (:class:`~ioa_p2p.node.goals.tasks.TaskRunner`) runs the
  task (adapter or sub-team) in a cancel scope;
- ``Post``: signed and sent to the chat; it comes back through the subscription like any message;
- ``Concluded`` / ``Aborted``: the round's outcome is recorded and its waiters are woken.

``conv.plan`` updates are collected per round; a ``conv.cancel`` by the round's initiator aborts the round
(reason ``cancelled``) on every member. Membership changes (``member.leave``, ``member.remove``) become
``on_member_left``; the loop calls
``on_tick`` at the earliest ``next_wakeup`` of its rounds. Messages are processed in batches: decisions of a
batch are netted (a task started and cancelled within the batch never runs; only the last ``Speak`` for the
current floor runs), which makes replaying a long stored history cheap and free of side effects.

Every message also becomes a typed event (:mod:`ioa_p2p.api.events`) in the chat's numbered log
(:attr:`ChatDriver.log`, :mod:`ioa_p2p.node.goals.eventlog`), which ``launch_goal`` relays and the control
API streams.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TypeVar, TypeVarTuple

import trio

from ioa_p2p.api.events import (
    ChatEvent,
    MemberLeftEvent,
    RejectedEvent,
)
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import Brain
from ioa_p2p.conversation.inputs import (
    ConversationInput,
    MemberLeft,
    MessageArrived,
    TaskFinished,
    TaskProgressed,
    Tick,
    TurnComposed,
    apply_input,
    net_decisions,
    postable,
)
from ioa_p2p.conversation.messages import TaskOutcome
from ioa_p2p.conversation.plan import PLAN, PlanUpdate
from ioa_p2p.conversation.types import (
    Aborted,
    CancelTask,
    Concluded,
    ConversationView,
    Decision,
    Incoming,
    Post,
    Rejected,
    Speak,
    StartTask,
)
from ioa_p2p.errors import InvalidContent, InvalidMessage, IoAError, MessageTooLarge
from ioa_p2p.history.bodies import KIND_MEMBER_LEAVE, KIND_MEMBER_REMOVE, ChatMessage, member_of
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.goals.describe import describe_message, describe_start
from ioa_p2p.node.goals.endings import round_ending, slim_result
from ioa_p2p.node.goals.eventlog import EventLog
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.rounds import (
    DriverItem,
    EnvelopeArrived,
    Round,
    RoundInput,
    floor_tip,
    open_round,
    route_of,
)
from ioa_p2p.node.goals.tasks import TaskRunner
from ioa_p2p.node.goals.trace_peers import TracePeers
from ioa_p2p.node.goals.turns import SIDE_KINDS, side_message, take_turn_bounded
from ioa_p2p.node.goals.types import RoundOutcome
from ioa_p2p.node.ports import NodePort
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.wire.envelope import Envelope

log = logging.getLogger("ioa_p2p.goals")


@dataclass(frozen=True, slots=True)
class DriverDeps:
    """What every chat driver of this node works with, given once by ``open_goals``."""

    node: NodePort
    chats: Chats
    brain: Brain
    members: Members  # names and cards of the members
    tasks: TaskRunner  # runs the tasks assigned to this node (adapter or sub-team)
    trace_peers: TracePeers | None = None  # who accepts trace context (docs/protocol.md §10.11)


_T = TypeVar("_T")
Ts = TypeVarTuple("Ts")


class ChatDriver:
    """Drives every conversation round of one chat for this node (see the module docstring)."""

    def __init__(self, deps: DriverDeps, chat_id: bytes, *, reserved: bool = False) -> None:
        self.node = deps.node
        self.chats = deps.chats
        self.brain = deps.brain
        self.members = deps.members
        self.tasks = deps.tasks
        self.trace_peers = deps.trace_peers or TracePeers(deps.node)
        self.chat_id = chat_id
        self.hex = chat_id.hex()
        self.me = str(deps.node.peer_id)
        self.rounds: dict[str, Round] = {}
        self.created = trio.current_time()
        self.reserved = reserved  # accepted an invitation; waiting for the first conv.start
        self._msg_round: dict[str, str] = {}
        self._waiters: dict[str, trio.Event] = {}
        self._send, self._recv = trio.open_memory_channel[DriverItem](math.inf)
        #: The chat's events, numbered: what ``launch_goal`` relays and ``GET /goal_events`` streams.
        self.log: EventLog[ChatEvent] = EventLog()
        self._nursery: trio.Nursery | None = None
        self.stopped = trio.Event()

    # ------------------------------------------------------------------ state

    def busy(self, reserve_timeout: float) -> bool:
        """This node works on a round of this chat (or just accepted to and is waiting for it)."""
        if any(r.active and self.me in r.start.members for r in self.rounds.values()):
            return True
        return self.reserved and not self.rounds and trio.current_time() - self.created < reserve_timeout

    def latest_round(self) -> Round | None:
        return max(self.rounds.values(), key=lambda r: r.started_ms, default=None)

    async def wait_round(self, round_id: str) -> RoundOutcome:
        """Wait (callers bound it) until round ``round_id`` ends on this node."""
        while True:
            found = self.rounds.get(round_id)
            if found is not None and found.outcome is not None:
                return found.outcome
            await self._waiters.setdefault(round_id, trio.Event()).wait()

    def emit(self, event: ChatEvent) -> None:
        """Log an event of this chat (its readers wake up)."""
        self.log.append(event)

    # ------------------------------------------------------------------ loop

    async def run(self, wait_for_chat: float = 0.0) -> None:
        """Run until cancelled (the node stops). ``wait_for_chat``: seconds to wait for an invited chat."""
        chats = self.chats
        try:
            if wait_for_chat:
                with trio.move_on_after(wait_for_chat):
                    await chats.wait_until(lambda: chats.find(self.chat_id) is not None)
            if chats.find(self.chat_id) is None:
                log.info("chat %s never arrived; dropping its driver", self.hex[:16])
                return
            async with chats.subscribe(self.chat_id, replay=True) as channel, trio.open_nursery() as nursery:
                self._nursery = nursery
                stored = _drain(channel)
                await self._process([EnvelopeArrived(env) for env in stored], replay=True)
                nursery.start_soon(self._forward, channel)
                await self._loop()
        finally:
            self.stopped.set()

    async def _forward(self, channel: trio.MemoryReceiveChannel[Envelope]) -> None:
        async for env in channel:
            await self._send.send(EnvelopeArrived(env))

    async def _loop(self) -> None:
        while True:
            wake = self._next_wakeup()
            items: list[DriverItem] = []
            deadline = math.inf if wake is None else trio.current_time() + max(0.0, wake - self.node.now())
            with trio.move_on_at(deadline):
                items.append(await self._recv.receive())
            items += _drain(self._recv)
            await self._process(items, replay=False)

    def _next_wakeup(self) -> float | None:
        wakes = [
            w
            for r in self.rounds.values()
            if r.conv is not None and r.active and (w := r.conv.next_wakeup()) is not None
        ]
        return min(wakes, default=None)

    # ------------------------------------------------------------------ processing a batch

    async def _process(self, items: list[DriverItem], *, replay: bool) -> None:
        """Feed a batch to the rounds, then execute their decisions. Each message, call and round runs
        in a fault boundary: content no decoder foresaw costs that message, never the driver."""
        faults = self.node.faults
        pending: dict[str, list[Decision]] = {}
        for item in items:
            now = self.node.now()
            match item:
                case EnvelopeArrived(env):
                    if replay:
                        now = min(now, env.ts / 1000)
                    with faults.boundary("goal message", env.author):
                        self._on_envelope(env, now, pending)
                case RoundInput(round_id, event):
                    with faults.boundary(f"goal {type(event).__name__}"):
                        self._feed(round_id, pending, event, now)
        now = self.node.now()
        for round_id, r in self.rounds.items():
            if r.conv is not None and r.active:
                with faults.boundary("goal tick"):
                    pending.setdefault(round_id, []).extend(apply_input(r.conv, Tick(), now))
        for round_id, decisions in pending.items():
            with faults.boundary("goal decisions"):
                await self._execute(self.rounds[round_id], net_decisions(decisions))

    def _feed(
        self, round_id: str, pending: dict[str, list[Decision]], event: ConversationInput, now: float
    ) -> None:
        r = self.rounds.get(round_id)
        if r is not None and r.conv is not None and r.active:
            pending.setdefault(round_id, []).extend(apply_input(r.conv, event, now))

    def _on_envelope(self, env: Envelope, now: float, pending: dict[str, list[Decision]]) -> None:
        body = env.body
        if not isinstance(body, ChatMessage):
            return
        msg_id, author, kind = env.hash.hex(), str(env.author), body.kind
        if kind == cm.START:
            self._start_round(env, msg_id, body.content, now, pending)
        elif kind in SIDE_KINDS:
            names = self.members.name_of
            rid, event, decision = side_message(
                kind, body.content, msg_id, author, self.rounds, names, chat_id=self.hex
            )
            if decision is not None and self.rounds[rid].active:
                pending.setdefault(rid, []).append(decision)
            if event is not None:
                self.emit(event)
        elif kind.startswith("conv."):
            round_id = route_of(self._msg_round, kind, body.content)
            if round_id is not None:
                self._msg_round[msg_id] = round_id
                if (found := self.rounds.get(round_id)) is not None:
                    found.count(msg_id, env, kind, body.content)
            targets = [round_id] if round_id is not None else list(self.rounds)
            arrived = MessageArrived(Incoming(msg_id, author, kind, body.content))
            for rid in targets:
                self._feed(rid, pending, arrived, now)
            self.emit(describe_message(self.hex, env, round_id, self.members.name_of))
        elif kind in (KIND_MEMBER_LEAVE, KIND_MEMBER_REMOVE):
            try:
                gone = author if kind == KIND_MEMBER_LEAVE else str(member_of(body.content))
            except InvalidMessage:
                return
            for rid in list(self.rounds):
                self._feed(rid, pending, MemberLeft(gone), now)
            self.emit(MemberLeftEvent(self.hex, gone, self.members.name_of(gone)))

    def _start_round(
        self, env: Envelope, msg_id: str, content: object, now: float, pending: dict[str, list[Decision]]
    ) -> None:
        ever = {str(m) for m in self.chats.get(self.chat_id).ever_members()}
        try:
            r = open_round(env, msg_id, content, ever, self.me, now, self.members.names)
        except InvalidContent as exc:
            log.info("ignoring a conv.start in chat %s: %s", self.hex[:16], exc)
            return
        self.rounds[msg_id] = r
        self._msg_round[msg_id] = msg_id
        self.reserved = False
        self.emit(describe_start(self.hex, r.start, msg_id, self.members.name_of))
        assert r.conv is not None
        pending.setdefault(msg_id, []).extend(r.conv.on_tick(now))

    # ------------------------------------------------------------------ decisions

    async def _execute(self, r: Round, decisions: list[Decision]) -> None:
        for d in decisions:
            if isinstance(d, Post):
                await self._post(r, d)
            elif isinstance(d, Speak):
                if r.active and r.conv is not None and d.token.tip == floor_tip(r.conv):
                    self._spawn(self._speak, r, d)
            elif isinstance(d, StartTask):
                if r.active and d.task.task_id not in r.running:
                    scope = trio.CancelScope()
                    r.running[d.task.task_id] = scope
                    self._spawn(self._run_task, r, d, scope)
            elif isinstance(d, CancelTask):
                if d.task_id in r.running:
                    r.running.pop(d.task_id).cancel()
            elif isinstance(d, Concluded | Aborted):
                self._finish(r, d)
            elif isinstance(d, Rejected):
                log.info(
                    "chat %s: rejected %s by %s: %s", self.hex[:16], d.msg_id[:12], d.author[-8:], d.reason
                )
                self.emit(RejectedEvent(self.hex, r.round_id, d.msg_id, d.author, d.reason))

    def _spawn(self, fn: Callable[[*Ts], Awaitable[object]], *args: *Ts) -> None:
        assert self._nursery is not None
        self._nursery.start_soon(fn, *args)

    async def _post(self, r: Round, post: Post) -> None:
        content = post.content
        if post.kind in cm.TASK_KINDS and r.turn_trace:  # its tasks' spans become children of the turn's
            trace = await self.trace_peers.context_for(r.turn_trace, r.start.members)
            if trace:
                content = {**content, "trace": trace}
        chats = self.chats
        try:
            try:
                await chats.post(self.chat_id, post.kind, content)
            except MessageTooLarge:
                if post.kind != cm.RESULT:
                    raise
                await chats.post(self.chat_id, post.kind, slim_result(content))
        except IoAError as exc:
            log.warning("chat %s: could not post %s: %s", self.hex[:16], post.kind, exc)

    async def _speak(self, r: Round, speak: Speak) -> None:
        def view() -> ConversationView | None:
            if r.conv is None or not r.active:
                return None
            latest = r.plans.latest()
            return replace(r.conv.view(), plan=latest.steps) if latest is not None else r.conv.view()

        clock = self.node.now
        about = {tr.GEN_AI_CONVERSATION_ID: self.hex, "ioa.round_id": r.round_id, tr.GEN_AI_AGENT_ID: self.me}
        with self.node.tracer.span(tr.TURN, parent=r.start.trace or None, attributes=about) as span:
            draft = await take_turn_bounded(self.members, self.brain, view, speak, self.hex, clock)
            r.turn_trace = span.traceparent()
        if r.conv is not None:  # the turn fetched the cards it lacked: its texts name agents by them
            r.conv.names = self.members.names(r.start.members)
        if draft is not None and draft.plan is not None and r.active and r.plans.changed(draft.plan):
            update = PlanUpdate(r.round_id, r.plans.next_version(), draft.plan)
            await self._post(r, Post(PLAN, update.to_content()))
        await self._send.send(RoundInput(r.round_id, TurnComposed(speak.token, draft)))

    async def _run_task(self, r: Round, start: StartTask, scope: trio.CancelScope) -> None:
        task_id = start.task.task_id

        async def progress(text: str, fraction: float | None) -> None:
            await self._send.send(RoundInput(r.round_id, TaskProgressed(task_id, text, fraction)))

        parent = r.task_traces.get(task_id.rpartition("#")[0]) or r.start.trace or None
        about = {
            tr.GEN_AI_CONVERSATION_ID: self.hex,
            tr.GEN_AI_AGENT_ID: self.me,
            "ioa.task_id": task_id,
            "ioa.task.title": start.task.title[:200],
        }
        with scope, self.node.tracer.span(tr.TASK, parent=parent, attributes=about) as span:
            started = trio.current_time()
            try:
                outcome = await self.tasks.perform(self.chat_id, r, start.task, start.deadline, progress)
            except Exception as exc:  # a bug or an unforeseen answer (a model, a sub-team): the task fails
                self.node.faults.record("goal task", None, exc)
                why = f"the task crashed on this node: {type(exc).__name__}: {exc}"[: cm.MAX_TEXT]
                outcome = TaskOutcome(task_id, False, why, None, None, "crash")
            outcome = postable(outcome, wall_ms=int((trio.current_time() - started) * 1000))
            if not outcome.ok:
                span.record_error(outcome.failure or "failed", outcome.text[:200])
            await self._send.send(RoundInput(r.round_id, TaskFinished(task_id, outcome)))
        r.running.pop(task_id, None)

    def _finish(self, r: Round, final: Concluded | Aborted) -> None:
        if r.outcome is not None or r.conv is None:
            return
        for scope in r.running.values():
            scope.cancel()
        r.running.clear()
        members, now_ms = self.members, int(self.node.now() * 1000)
        r.outcome, event = round_ending(
            self.hex, r, r.conv.view(), final, members.name_of, members.names, now_ms
        )
        r.conv = None  # an ended round takes no more input; free its state
        self.emit(event)
        r.done.set()
        waiter = self._waiters.pop(r.round_id, None)
        if waiter is not None:
            waiter.set()


# --------------------------------------------------------------------------- helpers (pure)


def _drain(channel: trio.MemoryReceiveChannel[_T]) -> list[_T]:
    items: list[_T] = []
    while True:
        try:
            items.append(channel.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return items


__all__ = ["ChatDriver", "DriverDeps"]
