"""The LLM brain: a :class:`~ioa_p2p.llm.model.Model` decides each turn.

Turn: the model gets the goal, the members' cards, the history and the task table (within the
``context_tokens`` budget: :mod:`~ioa_p2p.conversation.brains.prompt`), and must answer one JSON object
``{"thought", "message_type", "content", "next_speakers", "tasks", "triggers", "plan"}``, asked for with a
JSON schema whose enums are the message types and the member names (JSON mode on servers without schema
support), with ``max_tokens`` always set. :func:`parse_turn_decision` maps member names and task aliases
(``T1``, ``T2``...) back to peer ids and task ids and rejects what cannot work, so
:func:`~ioa_p2p.llm.model.complete_json` can retry with the reason.

Work plan: the answer may also carry a ``work_plan`` in the planner's types (ioa_p2p/planning/posted.py):
the turn then posts it (one ``plan: {json}`` line) and starts its first steps, and every later turn (any
member's, a fallback speaker's included) works that plan step by step like the offline planner, with the
same answer-first conclusion. The shared ``plan`` (steps, owners, status) is what ``conv.plan`` carries.

Fallback: when the model fails (unreachable, 429, 5xx, unusable output, or the caller's deadline), the turn
is the offline planner's, its text prefixed ``[fallback to offline planner: <kind>]`` with the failure's
kind only (:data:`~ioa_p2p.llm.failures.FAILURE_KINDS`), never the server's words.
:meth:`LLMBrain.fallback_turn` is what the node calls when its deadline cut the model off (the core has no
clock).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import CONTEXT_TOKENS, MemberInfo, fallback_note, handles, team_for
from ioa_p2p.conversation.brains.offline import PREFIX, OfflineBrain, step_title
from ioa_p2p.conversation.brains.prompt import TURN_FORMAT, aliases, turn_prompt, turn_schema
from ioa_p2p.conversation.messages import TaskAssignment
from ioa_p2p.conversation.plan import STATUSES, SharedStep, clip_steps
from ioa_p2p.conversation.types import ConversationView, Speak, TaskStatus, TurnDraft
from ioa_p2p.errors import IoAError, ModelOutputError
from ioa_p2p.llm.failures import failure_kind
from ioa_p2p.llm.model import Model, complete_json
from ioa_p2p.planning import TASK, Plan
from ioa_p2p.planning.posted import PLAN_PREFIX, plan_from_model, plan_line, posted_plan

MESSAGE_TYPES: Mapping[str, str] = {
    "discussion": cm.DISCUSSION,
    "sync_task": cm.TASK_SYNC,
    "sync_task_assign": cm.TASK_SYNC,
    "task.sync": cm.TASK_SYNC,
    "async_task": cm.TASK_ASYNC,
    "async_task_assign": cm.TASK_ASYNC,
    "task.async": cm.TASK_ASYNC,
    "pause": cm.PAUSE,
    "conclusion": cm.CONCLUSION,
    "conclude": cm.CONCLUSION,
    "conclude_group_discussion": cm.CONCLUSION,
}

#: Tokens a turn answer may use (``max_tokens``); the prompt gets ``context_tokens`` minus this.
TURN_MAX_TOKENS = 1024


class LLMBrain:
    """Takes turns by asking a model; falls back to the offline planner, visibly, when the model fails."""

    def __init__(
        self,
        model: Model,
        *,
        fallback: OfflineBrain | None = None,
        retries: int = 2,
        context_tokens: int = CONTEXT_TOKENS,
        max_tokens: int = TURN_MAX_TOKENS,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.retries = retries
        self.max_tokens = max(64, min(max_tokens, context_tokens // 2))
        self.context_tokens = context_tokens
        self.label = f"llm:{model.model_id}"

    async def propose(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        """The model's turn; raises IoAError (ModelError, ModelOutputError, ...) when there is none."""
        budget = max(256, self.context_tokens - self.max_tokens)
        messages = turn_prompt(view, speak, team, budget=budget)
        draft, work = await complete_json(
            self.model,
            messages,
            lambda obj: (parse_turn_decision(obj, view, team), _work_plan(obj, view.start.goal)),
            retries=self.retries,
            schema=("turn", turn_schema(view, team)),
            max_tokens=self.max_tokens,
        )
        offline = self.fallback.plan(view.start.goal) if self.fallback is not None else None
        if work is not None and self.fallback is not None and offline is not None and covers(work, offline):
            step = self.fallback.decide(view, speak, team, work)  # the model's plan, its first steps
            text = f"{draft.text}\n{step.text}\n{plan_line(work)}"
            return TurnDraft(step.kind, text, step.next, step.tasks, step.triggers, step.plan)
        return draft if draft.plan is not None else replace(draft, plan=plan_from_tasks(view, draft))

    async def take_turn(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        if self.fallback is not None and posted_plan([t.text for t in view.turns], view.start.goal):
            return self.fallback.decide(view, speak, team)  # a posted work plan is worked step by step
        try:
            draft = await self.propose(view, speak, team)
        except IoAError as exc:
            fallback = self.fallback_turn(view, speak, team, failure_kind(exc))
            if fallback is None:
                raise
            return fallback
        return self.floor(view, speak, team, draft)

    def floor(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], draft: TurnDraft
    ) -> TurnDraft:
        """The offline plan is the floor under the model (issue 23): a turn that posts a work plan, or that
        does what the planner would do now, stands (its tasks as the plan's steps, so their values are read
        back); any other turn (a discussion, an early conclusion, tasks outside the plan, a pause with
        nothing to wait for) is replaced by the planner's turn, marked ``no_progress``. A conclusion is
        always the planner's, composed from the completed steps' values, never the model's free text."""
        if self.fallback is None or PLAN_PREFIX in draft.text:
            return draft
        plan = self.fallback.plan_of(view)
        if not plan.steps:  # the planner cannot plan the goal: the model's turn is all there is
            return draft
        planned = self.fallback.decide(view, speak, team)
        if draft.kind == planned.kind == cm.CONCLUSION:
            return planned
        if draft.kind == planned.kind == cm.PAUSE:
            return replace(draft, triggers=planned.triggers, plan=planned.plan)
        if draft.kind in cm.TASK_KINDS and planned.kind in cm.TASK_KINDS:
            tasks = self._steps_taken(view, team, plan, draft, planned)
            if tasks:  # the model gave ready steps of the plan to members who can do them
                names = handles(team_for(view, team))
                shown = "; ".join(f"{t.title} -> {names.get(t.assignee, t.assignee)}: "
                                  f"{' '.join(t.description.split())[:80]}" for t in tasks)  # fmt: skip
                text = f"{draft.text}\n{PREFIX}Plan steps: {shown}"
                next_ = (draft.next or (view.me,)) if draft.kind == cm.TASK_ASYNC else ()
                return TurnDraft(draft.kind, text, next_, tasks, plan=planned.plan)
        return replace(planned, text=fallback_note("no_progress") + planned.text)

    def _steps_taken(
        self, view: ConversationView, team: Sequence[MemberInfo], plan: Plan, draft: TurnDraft,
        planned: TurnDraft,
    ) -> tuple[TaskAssignment, ...]:  # fmt: skip
        """The plan's ready steps the model's tasks take on (none when they take on none).

        The planner's ready steps are ``planned``'s tasks. A model's task takes a step when it goes to the
        member the planner chose, or else to a member who may take the step (it runs an adapter, has not
        tried the step, and is able to do its kind when anyone is: :meth:`OfflineBrain.takers`). Ready
        steps the model left out wait for a later turn (the model may order the plan); tasks that take no
        step are dropped. A step of no known kind (``task``: the planner has only its words) gets the
        model's description, the work it worked out (code for "sum the squares of 1 to 10"); typed steps
        keep the planner's, with the earlier values bound."""
        assert self.fallback is not None
        by_title = {step_title(s, len(plan.steps)): s for s in plan.steps}
        spare = list(draft.tasks)
        out = []
        for task in planned.tasks:
            step = by_title.get(task.title)
            if step is None:
                continue
            mine = next((t for t in spare if t.assignee == task.assignee), None)
            if mine is None:
                takers = self.fallback.takers(view, team, plan, step)
                mine = next((t for t in spare if t.assignee in takers), None)
            if mine is None:
                continue
            spare.remove(mine)
            work = mine.description if step.kind == TASK else task.description
            out.append(TaskAssignment(mine.assignee, task.title, work))
        return tuple(out)

    def fallback_turn(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], failure: str
    ) -> TurnDraft | None:
        """The offline planner's turn, marked with the failure's kind; None without a fallback."""
        if self.fallback is None:
            return None
        draft = self.fallback.decide(view, speak, team)
        return TurnDraft(
            draft.kind,
            fallback_note(failure) + draft.text,
            draft.next,
            draft.tasks,
            draft.triggers,
            draft.plan,
        )


def covers(work: Plan, offline: Plan) -> bool:
    """A model's work plan may reorder, add or replace steps, in the same types: it has at least as many
    steps of each kind as the offline plan (a plan that drops a lookup or a calculation is not taken)."""
    have = Counter(s.kind for s in work.steps)
    return all(have[kind] >= n for kind, n in Counter(s.kind for s in offline.steps).items())


def plan_from_tasks(view: ConversationView, draft: TurnDraft) -> tuple[SharedStep, ...] | None:
    """The shared plan when the model stated none: the round's tasks with their owners and status, and
    the tasks this turn assigns (running from now on); None when there are no tasks at all."""
    status = {TaskStatus.COMPLETED: "done", TaskStatus.FAILED: "failed", TaskStatus.RUNNING: "running"}
    steps = [SharedStep(t.title or t.description[:80], t.assignee, status[t.status]) for t in view.tasks]
    steps += [SharedStep(t.title or t.description[:80], t.assignee, "running") for t in draft.tasks]
    return clip_steps(steps) or None


# --------------------------------------------------------------------------- parsing the decision


def parse_turn_decision(
    obj: Mapping[str, Any], view: ConversationView, team: Sequence[MemberInfo]
) -> TurnDraft:
    """The model's JSON decision as a TurnDraft; raises ModelOutputError saying what to fix."""
    members = team_for(view, team)
    by_name = {h.lower(): p for p, h in handles(members).items()}
    by_name.update({m.peer_id.lower(): m.peer_id for m in members})
    valid_names = ", ".join(sorted(handles(members).values()))

    def member(name: object) -> str:
        if not isinstance(name, str) or name.strip().lower() not in by_name:
            raise ModelOutputError(f"{name!r} is not a team member; use one of: {valid_names}")
        return by_name[name.strip().lower()]

    raw_type = str(obj.get("message_type", "")).strip().lower()
    kind = MESSAGE_TYPES.get(raw_type)
    if kind is None:
        raise ModelOutputError(
            f"message_type {raw_type!r} is unknown; use discussion, sync_task, async_task, pause or "
            "conclusion"
        )
    content = obj.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ModelOutputError('"content" must be a non-empty string')
    speakers = obj.get("next_speakers", obj.get("next_people", [])) or []
    if isinstance(speakers, str):
        speakers = [speakers]
    if not isinstance(speakers, list):
        raise ModelOutputError('"next_speakers" must be a list of member names')
    next_ = tuple(dict.fromkeys(member(s) for s in speakers)) if kind in (
        cm.DISCUSSION, cm.TASK_ASYNC) else ()  # fmt: skip
    tasks: tuple[TaskAssignment, ...] = ()
    if kind in cm.TASK_KINDS:
        tasks = _tasks(obj.get("tasks"), member)
    triggers: tuple[str, ...] = ()
    if kind == cm.PAUSE:
        triggers = _triggers(obj.get("triggers"), view)
    return TurnDraft(kind, content.strip(), next_, tasks, triggers, _plan(obj.get("plan"), member))


def _plan(raw: object, member: Callable[[object], str]) -> tuple[SharedStep, ...] | None:
    """The model's plan (None when it gave none); steps it got wrong are kept with what is usable."""
    if not isinstance(raw, list) or not raw:
        return None
    steps = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        title = item.get("step", item.get("title"))
        if not isinstance(title, str) or not title.strip():
            continue
        status = str(item.get("status", "todo")).strip().lower()
        try:
            owner = member(item["owner"]) if item.get("owner") else ""
        except ModelOutputError:
            owner = ""
        steps.append(SharedStep(title, owner, status if status in STATUSES else "todo"))
    return clip_steps(steps) or None


def _work_plan(obj: Mapping[str, Any], goal: str) -> Plan | None:
    """The answer's optional ``work_plan`` (ioa_p2p/planning/posted.py); ModelOutputError when invalid."""
    raw = obj.get("work_plan")
    if not raw:
        return None
    try:
        return plan_from_model(raw, goal)
    except ValueError as exc:
        raise ModelOutputError(str(exc)) from None


def _tasks(raw: object, member: Callable[[object], str]) -> tuple[TaskAssignment, ...]:
    if not isinstance(raw, list) or not raw:
        raise ModelOutputError('a task assignment needs "tasks": [{"assignee", "title", "description"}]')
    out = []
    for item in raw[: cm.MAX_ITEMS]:
        if not isinstance(item, Mapping):
            raise ModelOutputError("each task must be an object with assignee, title and description")
        description = item.get("description")
        if not isinstance(description, str) or not description.strip():
            raise ModelOutputError("each task needs a non-empty description")
        title = item.get("title")
        title = title if isinstance(title, str) and title.strip() else description[:40]
        out.append(TaskAssignment(member(item.get("assignee")), title.strip()[: cm.MAX_TITLE],
                                  description.strip()[: cm.MAX_DESCRIPTION]))  # fmt: skip
    return tuple(out)


def _triggers(raw: object, view: ConversationView) -> tuple[str, ...]:
    running = {t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING}
    by_alias = {alias.lower(): tid for tid, alias in aliases(view).items()}
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raw = []
    found = [by_alias.get(str(x).strip().lower(), str(x).strip()) for x in raw]
    chosen = tuple(t for t in dict.fromkeys(found) if t in running)
    if not chosen:
        names = ", ".join(a for t, a in aliases(view).items() if t in running) or "none"
        raise ModelOutputError(f"a pause needs running tasks as triggers (running now: {names})")
    return chosen


__all__ = ["MESSAGE_TYPES", "TURN_FORMAT", "LLMBrain", "parse_turn_decision", "turn_prompt"]
