"""The offline planner: a deterministic brain that needs no language model (the embedded default).

Plan (the same on every member): the plan a turn posted (a model's plan, ioa_p2p/planning/posted.py), else
:func:`~ioa_p2p.planning.plan_request` of the goal alone: typed steps with data dependencies (lookups,
calculations, date arithmetic, code with its variables; see ioa_p2p/planning).

Assignment: each step goes first to the members whose card declares an ability its kind needs (``task_types``
such as ``question``, ``arithmetic``, ``code``), then to the other working members, by the similarity of the
step's words to the card (embedding cosine); members without an adapter come last. A failed attempt, or a
"completion" that does not answer the step (no value of the kind the step needs), is retried with the next
member that has not tried it, up to ``max_attempts``; members that left are skipped.

Turns (whoever holds the floor runs the same rules, so a fallback speaker continues the same plan):

1. a conclusion is due (``must_conclude``) -> conclude with what is there;
2. steps are ready (not done, every step they need done) -> assign them with the values they need bound
   (one ready step and nothing running -> ``conv.task.sync``; several -> ``conv.task.async``, in parallel);
3. tasks are running -> ``conv.pause`` until they end;
4. otherwise -> ``conv.conclusion``: the answer sentence first, then one line per step, then citations.

Texts of turns start with ``[offline planner]``; the conclusion starts with the answer and ends with
``(offline planner)``. Steps are recognised
in
the history by their task title ``step i/n``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import OFFLINE_LABEL, OFFLINE_SUFFIX, MemberInfo, handles, team_for
from ioa_p2p.conversation.messages import TaskAssignment
from ioa_p2p.conversation.plan import SharedStep, clip_steps
from ioa_p2p.conversation.types import ConversationView, Speak, TaskStatus, TaskView, TurnDraft
from ioa_p2p.embedding import Embedder
from ioa_p2p.planning import (
    Plan,
    PlanStep,
    StepOutcome,
    conclusion,
    describe,
    plan_request,
)
from ioa_p2p.planning.missing import MISSING, Missing
from ioa_p2p.planning.posted import posted_plan
from ioa_p2p.planning.refusal import absence_refusal, dimension_refusal, refusal
from ioa_p2p.planning.results import value_of
from ioa_p2p.planning.routing import Candidate, able, rank_members
from ioa_p2p.planning.salvage import accepted_value
from ioa_p2p.planning.values import Value

LABEL = OFFLINE_LABEL
PREFIX = "[offline planner] "


def step_title(step: PlanStep, total: int) -> str:
    return f"step {step.index}/{total}"


class OfflineBrain:
    """Deterministic planning by abilities and embedding similarity (see the module docstring)."""

    label = LABEL

    def __init__(self, embedder: Embedder, *, max_attempts: int = 3) -> None:
        self.embedder = embedder
        self.max_attempts = max_attempts
        self._cache: dict[tuple[str, tuple[tuple[str, bool, tuple[str, ...]], ...]], list[list[str]]] = {}
        self._plans: dict[str, Plan] = {}

    async def take_turn(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        return self.decide(view, speak, team)

    def plan(self, goal: str) -> Plan:
        if goal not in self._plans:
            if len(self._plans) > 256:
                self._plans.clear()
            self._plans[goal] = plan_request(goal)
        return self._plans[goal]

    def rank(self, steps: Sequence[PlanStep], members: Sequence[MemberInfo]) -> list[list[str]]:
        """For each step, the member peer ids from best to worst (abilities, then wording)."""
        key = (" | ".join(s.text for s in steps), tuple((m.text(), m.works, m.abilities) for m in members))
        if key not in self._cache:
            if not members or not steps:
                self._cache[key] = [[] for _ in steps]
            else:
                step_vectors = self.embedder.embed([s.text for s in steps])
                member_vectors = self.embedder.embed([m.text() for m in members])
                scores = np.asarray(step_vectors @ member_vectors.T)
                candidates = [Candidate(m.peer_id, m.abilities, m.works) for m in members]
                self._cache[key] = [
                    rank_members(step, candidates, [float(x) for x in row])
                    for step, row in zip(steps, scores, strict=True)
                ]
        return self._cache[key]

    def plan_of(self, view: ConversationView) -> Plan:
        """The plan a turn posted (a model's, see ioa_p2p/planning/posted.py), else the goal's own plan."""
        posted = posted_plan([t.text for t in view.turns], view.start.goal)
        return posted if posted is not None else self.plan(view.start.goal)

    def decide(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], plan: Plan | None = None
    ) -> TurnDraft:
        """This turn's draft for ``plan`` (default: :meth:`plan_of` the conversation)."""
        plan = plan if plan is not None else self.plan_of(view)
        members = [m for m in team_for(view, team) if m.peer_id not in view.left]
        tracker = Tracker(view, plan, self.rank(plan.steps, members), self.max_attempts)
        return replace(self._decide(view, speak, team, plan, tracker), plan=tracker.shared())

    def takers(
        self, view: ConversationView, team: Sequence[MemberInfo], plan: Plan, step: PlanStep
    ) -> list[str]:
        """Who may take ``step`` now (the planner's first choice first): the members that run an adapter
        and have not tried the step yet; only the able ones when some member is able to do its kind."""
        members = [m for m in team_for(view, team) if m.peer_id not in view.left]
        tracker = Tracker(view, plan, self.rank(plan.steps, members), self.max_attempts)
        able_ones = {m.peer_id for m in members if m.works and able(step, m.abilities)}
        fit = able_ones or {m.peer_id for m in members if m.works}
        return [p for p in tracker.remaining(step) if p in fit]

    def fallback_turn(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], failure: str
    ) -> TurnDraft | None:
        return None  # the offline planner is the fallback; its failure is a bug (the rule-based pass)

    def _decide(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], plan: Plan, tracker: Tracker
    ) -> TurnDraft:
        names = handles(team_for(view, team))
        if speak.must_conclude:
            return self._conclusion(plan, tracker, names)
        ready = [s for s in plan.steps if tracker.state(s) == "ready"]
        running = [t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING]
        if ready:
            tasks = tuple(
                TaskAssignment(
                    tracker.next_assignee(s), step_title(s, len(plan.steps)), describe(s, tracker.values())
                )
                for s in ready
            )
            shown = "; ".join(
                f"{t.title} -> {names.get(t.assignee, t.assignee)}: {_short(t.description, 80)}"
                for t in tasks
            )
            if len(tasks) == 1 and not running:
                return TurnDraft(cm.TASK_SYNC, f"{PREFIX}Assigning {shown}", tasks=tasks)
            return TurnDraft(
                cm.TASK_ASYNC, f"{PREFIX}Working in parallel: {shown}", next=(view.me,), tasks=tasks
            )
        if running:
            waiting = ", ".join(t.title or t.task_id[-6:] for t in view.tasks if t.task_id in running)
            return TurnDraft(cm.PAUSE, f"{PREFIX}Waiting for {waiting}", triggers=tuple(running))
        return self._conclusion(plan, tracker, names)

    def _conclusion(self, plan: Plan, tracker: Tracker, names: dict[str, str]) -> TurnDraft:
        text, _ = conclusion(plan, tracker.outcomes(names))
        others = [t for t in tracker.view.tasks if not t.title.startswith("step ")]
        for t in others:
            text += f"\n{t.title or 'task'} by {_who(t, names)}: {t.status.value}: {_short(t.text, 300)}"
        label = OFFLINE_SUFFIX
        return TurnDraft(cm.CONCLUSION, text[: cm.MAX_TEXT - len(label)] + label)


class Tracker:
    """Where each step stands in the history (attempts are tasks titled ``step i/n``)."""

    def __init__(
        self, view: ConversationView, plan: Plan, ranking: list[list[str]], max_attempts: int
    ) -> None:
        self.view = view
        self.plan = plan
        self.ranking = ranking
        self.max_attempts = max_attempts
        total = len(plan.steps)
        self.attempts: dict[int, list[TaskView]] = {
            s.index: sorted(
                (t for t in view.tasks if t.title == step_title(s, total)),
                key=lambda t: (t.height, t.task_id),
            )
            for s in plan.steps
        }

    def shared(self) -> tuple[SharedStep, ...]:
        """The shared plan (``conv.plan``): each step of the plan with its owner (the last attempt's
        assignee, else the best match) and its status."""
        status = {"done": "done", "running": "running", "failed": "failed"}
        out = []
        total = len(self.plan.steps)
        for step in self.plan.steps:
            tried = self.attempts[step.index]
            remaining = self.remaining(step)
            owner = tried[-1].assignee if tried else (remaining[0] if remaining else "")
            title = f"{step_title(step, total)}: {step.text}"
            out.append(SharedStep(title, owner, status.get(self.state(step), "todo")))
        return clip_steps(out)

    def remaining(self, step: PlanStep) -> list[str]:
        tried = {t.assignee for t in self.attempts[step.index]}
        return [p for p in self.ranking[step.index - 1] if p not in tried]

    def answer_of(self, step: PlanStep) -> tuple[TaskView, Value] | None:
        """The latest attempt whose result answers the step (or, for a lookup that found no single answer,
        whose records a later derivation closes with: planning/salvage.py), with its value."""
        for t in reversed(self.attempts[step.index]):
            if t.status is not TaskStatus.RUNNING:  # a failed lookup's records may close a derivation
                value = accepted_value(self.plan, step, t.text, t.data, t.status is TaskStatus.COMPLETED)
                if value is not None:
                    return t, value
        return None

    def state(self, step: PlanStep) -> str:
        if self.answer_of(step) is not None:
            return "done"
        tried = self.attempts[step.index]
        if tried and tried[-1].status is TaskStatus.RUNNING:
            return "running"
        if len(tried) >= self.max_attempts or not self.remaining(step):
            return "failed"
        for n in step.needs:
            before = self.state(self.plan.step(n))
            if before != "done":
                return "failed" if before == "failed" else "blocked"
        if not tried and self.lacking(step) is not None:
            return "failed"  # a value it needs is missing: refused, never handed out to be guessed
        return "ready"

    def lacking(self, step: PlanStep) -> Missing | None:
        """The value ``step`` needs that the values found so far do not give (planning/refusal.py)."""
        return refusal(step, self.values())

    def wrong_kind(self, step: PlanStep) -> Missing | None:
        """The quantity ``step`` asks for, when its last completed attempt gave a value of another
        dimension and no attempt answered it (planning/refusal.py :func:`dimension_refusal`)."""
        tried = self.attempts[step.index]
        last = tried[-1] if tried else None
        if last is None or self.state(step) != "failed":
            return None
        failures = [t.data for t in tried if t.status is not TaskStatus.COMPLETED]
        if last.status is not TaskStatus.COMPLETED:  # the documents searched state none (absence_refusal)
            return absence_refusal(step, failures)
        # a value of another dimension; else the documents' "none", whatever a later member made up
        wrong = dimension_refusal(step, value_of(last.text, last.data, step.template))
        return wrong if wrong is not None else absence_refusal(step, failures)

    def next_assignee(self, step: PlanStep) -> str:
        return self.remaining(step)[0]

    def values(self) -> dict[int, Value]:
        out = {}
        for s in self.plan.steps:
            found = self.answer_of(s)
            if found is not None:
                out[s.index] = found[1]
        return out

    def outcomes(self, names: Mapping[str, str]) -> dict[int, StepOutcome]:
        out: dict[int, StepOutcome] = {}
        for s in self.plan.steps:
            found = self.answer_of(s)
            tried = self.attempts[s.index]
            if found is not None:
                task, value = found
                citation = _citation(task.data)
                out[s.index] = StepOutcome(s, _who(task, names), value, "completed", citation)
            elif not tried and (lacking := self.lacking(s)) is not None:
                out[s.index] = StepOutcome(s, "", None, MISSING, None, "", lacking)
            elif tried and (wrong_kind := self.wrong_kind(s)) is not None:
                out[s.index] = StepOutcome(s, _who(tried[-1], names), None, MISSING, None, "", wrong_kind)
            elif tried:
                last = tried[-1]
                status = "running" if last.status is TaskStatus.RUNNING else "failed"
                note = (
                    last.text
                    if last.status is not TaskStatus.COMPLETED
                    else "the result did not answer the step"
                )
                out[s.index] = StepOutcome(s, _who(last, names), None, status, None, _short(note, 200))
            else:
                out[s.index] = StepOutcome(s, "", None, "not started")
        return out


def _citation(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    raw = data.get("citation") if data else None
    if isinstance(raw, dict) and raw.get("path"):
        return {"path": str(raw["path"]), "line": raw.get("line"), "text": str(raw.get("text", ""))[:500]}
    return None


def _who(task: TaskView, names: Mapping[str, str]) -> str:
    return names.get(task.assignee, task.assignee[-8:])


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


__all__ = ["LABEL", "PREFIX", "OfflineBrain", "Tracker", "step_title"]
