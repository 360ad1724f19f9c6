"""The offline planner: a deterministic brain that needs no language model (the embedded default).

Plan (the same on every member, from the goal alone): :func:`plan_steps` splits the goal into steps with
:func:`~ioa_p2p.teaming.split_goal`; a step depends on the previous one when it was introduced by a
sequencing word ("then", "finally", ...) or refers back to it ("it", "them", "the result", ...).

Assignment: each step goes to the member whose card text is most similar to the step (cosine of
:class:`~ioa_p2p.embedding.Embedder` vectors; ties by rotation order); a failed attempt is retried once
with the next best member that has not tried it (failover), members that left are skipped.

Turns (whoever holds the floor runs the same rules, so a fallback speaker continues the same plan):

1. a conclusion is due (``must_conclude``) -> conclude with what is there;
2. steps are ready (not done, their dependency done) -> assign them: one ready step and nothing running
   -> ``conv.task.sync`` (the result comes back before going on); several -> ``conv.task.async`` so they run
   in parallel, the floor staying with the planner;
3. tasks are running -> ``conv.pause`` until they end;
4. otherwise -> ``conv.conclusion`` composed from the step results.

A dependent step gets its input from its dependency's result: a short value (e.g. the ``391`` of
``17 * 23 = 391``) replaces the back-reference ("multiply it by 2" -> "multiply 391 by 2"); a longer
result is appended as "Input from step N". Every text this brain writes starts with ``[offline planner]``.
Steps are recognised in the history by their task title ``step i/n``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import MemberInfo, handles, team_for
from ioa_p2p.conversation.messages import TaskAssignment
from ioa_p2p.conversation.types import ConversationView, Speak, TaskStatus, TaskView, TurnDraft
from ioa_p2p.embedding import Embedder
from ioa_p2p.teaming.clauses import split_goal

LABEL = "offline planner"
PREFIX = "[offline planner] "
_BACKREF = re.compile(
    r"\b(it|its|them|they|the (?:result|results|answer|output|value|number)|above|previous)\b",
    re.IGNORECASE,
)
_SUBSTITUTABLE = re.compile(r"\b(it|them|the (?:result|answer|output|value|number))\b", re.I)


@dataclass(frozen=True, slots=True)
class Step:
    index: int  # 1-based
    text: str
    depends_on: int | None  # the step whose result this one needs


def plan_steps(goal: str) -> tuple[Step, ...]:
    steps = []
    for i, clause in enumerate(split_goal(goal), 1):
        needs_previous = i > 1 and (clause.sequenced or bool(_BACKREF.search(clause.text)))
        steps.append(Step(i, clause.text, i - 1 if needs_previous else None))
    return tuple(steps)


def step_title(step: Step, total: int) -> str:
    return f"step {step.index}/{total}"


class OfflineBrain:
    """Deterministic planning by embedding similarity (see the module docstring)."""

    label = LABEL

    def __init__(self, embedder: Embedder, *, max_attempts: int = 2) -> None:
        self.embedder = embedder
        self.max_attempts = max_attempts
        self._cache: dict[tuple[str, tuple[tuple[str, bool], ...]], list[list[str]]] = {}

    async def take_turn(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        return self.decide(view, speak, team)

    # ------------------------------------------------------------------ planning

    def rank(self, steps: Sequence[Step], members: Sequence[MemberInfo]) -> list[list[str]]:
        """For each step, the member peer ids from best to worst match; members that do work themselves
        (an adapter on their card) before coordinators, who could only delegate it to a sub-team."""
        key = (" | ".join(s.text for s in steps), tuple((m.text(), m.works) for m in members))
        if key not in self._cache:
            if not members:
                self._cache[key] = [[] for _ in steps]
            else:
                step_vectors = self.embedder.embed([s.text for s in steps])
                member_vectors = self.embedder.embed([m.text() for m in members])
                scores = step_vectors @ member_vectors.T
                self._cache[key] = [
                    [
                        members[j].peer_id
                        for j in sorted(range(len(members)), key=lambda j: (not members[j].works, -row[j], j))
                    ]
                    for row in np.asarray(scores)
                ]
        return self._cache[key]

    def decide(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        steps = plan_steps(view.start.goal)
        members = [m for m in team_for(view, team) if m.peer_id not in view.left]
        names = handles(team_for(view, team))
        if speak.must_conclude:
            return self._conclusion(view, steps, names)
        tracker = _Tracker(view, steps, self.rank(steps, members), self.max_attempts)
        ready = [s for s in steps if tracker.state(s) == "ready"]
        running = [t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING]
        if ready:
            tasks = tuple(
                TaskAssignment(
                    tracker.next_assignee(s), step_title(s, len(steps)), tracker.describe(s)
                )  # fmt: skip
                for s in ready
            )
            plan = "; ".join(
                f"{t.title} -> {names.get(t.assignee, t.assignee)}: {_short(t.description, 80)}"
                for t in tasks
            )
            if len(tasks) == 1 and not running:
                return TurnDraft(cm.TASK_SYNC, f"{PREFIX}Assigning {plan}", tasks=tasks)
            return TurnDraft(cm.TASK_ASYNC, f"{PREFIX}Working in parallel: {plan}",
                             next=(view.me,), tasks=tasks)  # fmt: skip
        if running:
            waiting = ", ".join(t.title or t.task_id[-6:] for t in view.tasks if t.task_id in running)
            return TurnDraft(cm.PAUSE, f"{PREFIX}Waiting for {waiting}", triggers=tuple(running))
        return self._conclusion(view, steps, names)

    def _conclusion(self, view: ConversationView, steps: Sequence[Step], names: dict[str, str]) -> TurnDraft:
        lines = [f"{PREFIX}Conclusion for: {view.start.goal}"]
        for s in steps:
            title = step_title(s, len(steps))
            tried = [t for t in view.tasks if t.title == title]
            done = [t for t in tried if t.status is TaskStatus.COMPLETED]
            if done:
                result = done[-1].text.strip()
                lines.append(f"Step {s.index} ({s.text}) by {_who(done[-1], names)}:\n{result}")
            elif tried:
                last = tried[-1]
                state = "still running" if last.status is TaskStatus.RUNNING else "failed"
                lines.append(f"Step {s.index} ({s.text}) {state} ({_who(last, names)}): {last.text[:500]}")
            else:
                lines.append(f"Step {s.index} ({s.text}): not started")
        others = [t for t in view.tasks if not t.title.startswith("step ")]
        for t in others:
            lines.append(f"{t.title or 'task'} by {_who(t, names)}: {t.status.value}: {t.text[:1000]}")
        return TurnDraft(cm.CONCLUSION, "\n".join(lines)[: cm.MAX_TEXT])


class _Tracker:
    """Where each step stands in the history (attempts are tasks titled ``step i/n``)."""

    def __init__(
        self,
        view: ConversationView,
        steps: Sequence[Step],
        ranking: list[list[str]],
        max_attempts: int,
    ) -> None:
        self.steps = {s.index: s for s in steps}
        self.ranking = ranking
        self.max_attempts = max_attempts
        total = len(steps)
        self.attempts: dict[int, list[TaskView]] = {
            s.index: sorted(
                (t for t in view.tasks if t.title == step_title(s, total)),
                key=lambda t: (t.height, t.task_id),
            )  # fmt: skip
            for s in steps
        }

    def _remaining(self, step: Step) -> list[str]:
        tried = {t.assignee for t in self.attempts[step.index]}
        return [p for p in self.ranking[step.index - 1] if p not in tried]

    def state(self, step: Step) -> str:
        tried = self.attempts[step.index]
        if any(t.status is TaskStatus.COMPLETED for t in tried):
            return "done"
        if tried and tried[-1].status is TaskStatus.RUNNING:
            return "running"
        if len(tried) >= self.max_attempts or not self._remaining(step):
            return "failed"
        if step.depends_on is not None:
            before = self.state(self.steps[step.depends_on])
            if before != "done":
                return "failed" if before == "failed" else "blocked"
        return "ready"

    def next_assignee(self, step: Step) -> str:
        return self._remaining(step)[0]

    def result_of(self, index: int) -> TaskView | None:
        done = [t for t in self.attempts[index] if t.status is TaskStatus.COMPLETED]
        return done[-1] if done else None

    def describe(self, step: Step) -> str:
        if step.depends_on is None:
            return step.text
        previous = self.result_of(step.depends_on)
        if previous is None:
            return step.text
        value = short_value(previous.text)
        if value is not None and _SUBSTITUTABLE.search(step.text):
            return _SUBSTITUTABLE.sub(value, step.text, count=1)
        return f"{step.text}\n\nInput from step {step.depends_on}:\n{previous.text[:4000]}"


def short_value(text: str) -> str | None:
    """The value a result boils down to, when it is short: ``'17 * 23 = 391'`` -> ``'391'``."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    if "=" in last:
        value = last.rsplit("=", 1)[1].strip()
        if value and len(value) <= 40:
            return value
    if len(lines) == 1 and len(last) <= 40:
        return last
    return None


def _who(task: TaskView, names: dict[str, str]) -> str:
    return names.get(task.assignee, task.assignee[-8:])


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


__all__ = ["LABEL", "PREFIX", "OfflineBrain", "Step", "plan_steps", "short_value", "step_title"]
