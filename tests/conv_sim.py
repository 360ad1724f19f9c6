"""A deterministic discrete-event simulator driving several :class:`Conversation` replicas (test helper).

It plays the role of the node layer: it delivers every posted message to every member with a per-receiver
delay (any order), runs tasks with scripted durations, calls brains on ``Speak`` and feeds their drafts to
``compose_turn``, ticks members at their ``next_wakeup``, and can crash members, make them leave, or inject
raw (possibly malformed or adversarial) messages. It records every decision for the invariant checks.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import (
    Aborted,
    CancelTask,
    Concluded,
    ConversationView,
    Decision,
    Incoming,
    Post,
    Speak,
    StartTask,
    TaskView,
)

SILENT: Any = "silent"
Brain = Callable[[ConversationView, Speak], Any]  # returns a TurnDraft, None (pass) or SILENT
TaskRunner = Callable[[str, TaskView], "tuple[float, TaskOutcome] | None"]  # None: never finishes


def _default_runner(member: str, task: TaskView) -> tuple[float, TaskOutcome]:
    return 1.0, TaskOutcome(task.task_id, True, f"{member} did: {task.description}")


@dataclass
class Member:
    name: str
    conv: Conversation
    brain: Brain
    crashed_at: float | None = None
    left_at: float | None = None
    decisions: list[tuple[float, Decision]] = field(default_factory=list)
    running: set[str] = field(default_factory=set)
    started: list[str] = field(default_factory=list)

    def alive(self, now: float) -> bool:
        return (self.crashed_at is None or now < self.crashed_at) and (
            self.left_at is None or now < self.left_at
        )


class Sim:
    def __init__(
        self,
        start: ConvStart,
        brains: dict[str, Brain],
        *,
        now: float = 0.0,
        delay: Callable[[str, str, int], float] = lambda sender, receiver, seq: 0.05,
        runner: TaskRunner = _default_runner,
        brain_delay: float = 0.5,
    ) -> None:
        self.start = start
        self.now = now
        self.delay = delay
        self.runner = runner
        self.brain_delay = brain_delay
        self.members = {
            m: Member(m, Conversation(start, me=m, start_id="start", now=now), brains[m])
            for m in start.members
        }
        self.queue: list[tuple[float, int, str, Any]] = []
        self.seq = 0
        self.posted: list[Incoming] = []

    # ---------------------------------------------------------------- scheduling

    def at(self, when: float, what: str, payload: Any) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (when, self.seq, what, payload))

    def crash(self, member: str, when: float) -> None:
        self.members[member].crashed_at = when

    def leave(self, member: str, when: float) -> None:
        self.members[member].left_at = when
        for other in self.members:
            self.at(when + self.delay(member, other, -1), "left", (other, member))

    def inject(self, when: float, author: str, kind: str, content: Any) -> None:
        self.at(when, "post", (author, kind, content))

    def run(self, until: float) -> None:
        for m in self.members.values():
            self._handle(m, m.conv.on_tick(self.now))
        while self.queue and self.queue[0][0] <= until:
            self.now, _, what, payload = heapq.heappop(self.queue)
            getattr(self, f"_on_{what}")(payload)

    async def arun(self, until: float) -> None:
        """Like :meth:`run`, for brains that are coroutine functions (awaited in event order)."""
        for m in self.members.values():
            self._handle(m, m.conv.on_tick(self.now))
        while self.queue and self.queue[0][0] <= until:
            self.now, _, what, payload = heapq.heappop(self.queue)
            if what == "brain":
                member, speak = payload
                m = self.members[member]
                if m.alive(self.now):
                    draft = await m.brain(m.conv.view(), speak)
                    self._handle(m, m.conv.compose_turn(speak.token, draft, self.now))
            else:
                getattr(self, f"_on_{what}")(payload)

    def deliver_everything(self) -> None:
        """Give every surviving member every message ever posted (convergence check)."""
        gone = [m.name for m in self.members.values() if m.left_at is not None]
        for m in self.members.values():
            if m.crashed_at is None:
                for msg in self.posted:
                    m.conv.on_message(msg, self.now)
                for name in gone:
                    m.conv.on_member_left(name, self.now)

    # ---------------------------------------------------------------- events

    def _on_post(self, payload: tuple[str, str, Any]) -> None:
        author, kind, content = payload
        self.seq += 1
        body = json.dumps([author, kind, repr(content), self.seq], sort_keys=True).encode()
        msg = Incoming(hashlib.sha256(body).hexdigest(), author, kind, content)
        self.posted.append(msg)
        for receiver in self.members:
            self.at(self.now + self.delay(author, receiver, self.seq), "deliver", (receiver, msg))

    def _on_deliver(self, payload: tuple[str, Incoming]) -> None:
        receiver, msg = payload
        m = self.members[receiver]
        if m.alive(self.now):
            self._handle(m, m.conv.on_message(msg, self.now))

    def _on_left(self, payload: tuple[str, str]) -> None:
        receiver, who = payload
        m = self.members[receiver]
        if m.alive(self.now):
            self._handle(m, m.conv.on_member_left(who, self.now))

    def _on_tick(self, member: str) -> None:
        m = self.members[member]
        if m.alive(self.now):
            self._handle(m, m.conv.on_tick(self.now))

    def _on_brain(self, payload: tuple[str, Speak]) -> None:
        member, speak = payload
        m = self.members[member]
        if not m.alive(self.now):
            return
        draft = m.brain(m.conv.view(), speak)
        if draft == SILENT:  # a brain that never answers (the lead's brain timeout would also fire)
            return
        self._handle(m, m.conv.compose_turn(speak.token, draft, self.now))

    def _on_task_done(self, payload: tuple[str, str, TaskOutcome]) -> None:
        member, task_id, outcome = payload
        m = self.members[member]
        if m.alive(self.now) and task_id in m.running:
            m.running.discard(task_id)
            self._handle(m, m.conv.on_task_finished(task_id, outcome, self.now))

    # ---------------------------------------------------------------- decisions

    def _handle(self, m: Member, decisions: list[Decision]) -> None:
        for d in decisions:
            m.decisions.append((self.now, d))
            if isinstance(d, Post):
                self._on_post((m.name, d.kind, d.content))
            elif isinstance(d, Speak):
                self.at(self.now + self.brain_delay, "brain", (m.name, d))
            elif isinstance(d, StartTask):
                assert d.task.task_id not in m.running, "a task was started twice"
                m.running.add(d.task.task_id)
                m.started.append(d.task.task_id)
                planned = self.runner(m.name, d.task)
                if planned is not None:
                    took, outcome = planned
                    self.at(self.now + took, "task_done", (m.name, d.task.task_id, outcome))
            elif isinstance(d, CancelTask):
                assert d.task_id in m.running, "cancelled a task that was not running"
                m.running.discard(d.task_id)
        wake = m.conv.next_wakeup()
        if wake is not None:
            self.at(wake, "tick", m.name)

    # ---------------------------------------------------------------- results

    def final(self, member: str) -> Decision | None:
        for _, d in self.members[member].decisions:
            if isinstance(d, Concluded | Aborted):
                return d
        return None

    def end_time(self, member: str) -> float | None:
        for when, d in self.members[member].decisions:
            if isinstance(d, Concluded | Aborted):
                return when
        return None
