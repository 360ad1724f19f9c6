"""The LLM brain: a :class:`~ioa_p2p.llm.model.Model` decides each turn, and (optionally) forms the team.

Turn: the model gets the goal, the members' cards, the history and the task table, and must answer one JSON
object ``{"thought", "message_type", "content", "next_speakers", "tasks", "triggers"}`` (the format is in
:data:`TURN_FORMAT`). :func:`parse_turn_decision` maps member names and task aliases (``T1``, ``T2``...)
back to peer ids and task ids and rejects what cannot work, so :func:`~ioa_p2p.llm.model.complete_json` can
retry with the reason. When the model stays unusable or unreachable, the turn comes from the offline
planner, prefixed ``[fallback to offline planner: <reason>]`` so that nobody mistakes it for the model.

Team: :func:`llm_choose_team` runs IoA's tool loop (``search_agents`` with several queries, then
``team_up``) against a caller-provided async ``search(query) -> list[Candidate]``, showing the model a ranked
shortlist rather than the whole contact book.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import MemberInfo, handles, team_for
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import TaskAssignment
from ioa_p2p.conversation.types import ConversationView, Speak, TaskStatus, TurnDraft
from ioa_p2p.errors import IoAError, ModelOutputError
from ioa_p2p.llm.model import Model, complete_json

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

TURN_FORMAT = """Reply with exactly one JSON object:
{"thought": "your private reasoning, one or two sentences",
 "message_type": "discussion" | "sync_task" | "async_task" | "pause" | "conclusion",
 "content": "the message the team reads (for a conclusion: the final answer to the goal)",
 "next_speakers": ["member name", ...],
 "tasks": [{"assignee": "member name", "title": "a few words", "description": "the complete task"}],
 "triggers": ["T1", ...]}
- discussion: talk to the team; next_speakers says who speaks next.
- sync_task: assign tasks; you speak again when all of them have finished.
- async_task: assign tasks that run in the background; next_speakers says who speaks next.
- pause: wait until the running tasks listed in triggers finish; then you speak again.
- conclusion: end the conversation with the final answer.
Task descriptions must be self-contained (include every number, text or code the assignee needs): the
assignee's tool runs them without seeing this chat. Assign tasks only to members able to do them.
Conclude as soon as the goal is achieved."""


class LLMBrain:
    """Takes turns by asking a model; falls back to the offline planner, visibly, when the model fails."""

    def __init__(
        self,
        model: Model,
        *,
        fallback: OfflineBrain | None = None,
        retries: int = 2,
        history_chars: int = 24_000,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.retries = retries
        self.history_chars = history_chars
        self.label = f"llm:{model.model_id}"

    async def take_turn(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        messages = turn_prompt(view, speak, team, history_chars=self.history_chars)
        try:
            return await complete_json(
                self.model,
                messages,
                lambda obj: parse_turn_decision(obj, view, team),
                retries=self.retries,
            )
        except IoAError as exc:
            if self.fallback is None:
                raise
            draft = self.fallback.decide(view, speak, team)
            reason = " ".join(str(exc).split())[:200]
            note = f"[fallback to offline planner: {type(exc).__name__}: {reason}] "
            return TurnDraft(draft.kind, note + draft.text, draft.next, draft.tasks, draft.triggers)


# --------------------------------------------------------------------------- prompt


def _aliases(view: ConversationView) -> dict[str, str]:
    return {t.task_id: f"T{i}" for i, t in enumerate(view.tasks, 1)}


def turn_prompt(
    view: ConversationView,
    speak: Speak,
    team: Sequence[MemberInfo],
    *,
    history_chars: int = 24_000,
) -> list[dict[str, Any]]:
    members = team_for(view, team)
    names = handles(members)
    me = names.get(view.me, view.me)
    roster = "\n".join(
        f"- {names[m.peer_id]}{' (you)' if m.peer_id == view.me else ''}"
        f"{' [left]' if m.peer_id in view.left else ''}: {m.description[:400]}"
        + (f" Skills: {', '.join(m.skills)}." if m.skills else "")
        for m in members
    )
    system = (
        f"You are {me}, one agent of a team working on a goal together in a group chat.\n"
        f"Goal: {view.start.goal}\n\nTeam:\n{roster}\n\n{TURN_FORMAT}"
    )
    aliases = _aliases(view)
    lines = []
    for turn in view.turns:
        extra = ""
        if turn.task_ids:
            extra = " assigns " + ", ".join(aliases.get(t, t) for t in turn.task_ids)
        kind = turn.kind.removeprefix("conv.")
        lines.append(f"[{names.get(turn.author, turn.author)}] ({kind}{extra}): {turn.text}")
    history = "\n".join(lines)
    if len(history) > history_chars:
        history = "...(earlier messages cut)...\n" + history[-history_chars:]
    task_lines = []
    for t in view.tasks:
        result = f" -> {t.text[:1500]}" if t.text else ""
        task_lines.append(
            f"{aliases[t.task_id]} [{t.status.value}] {names.get(t.assignee, t.assignee)}: "
            f"{t.title} ({t.mode}): {t.description[:600]}{result}"
        )
    left = max(0, view.start.max_turns - (speak.token.height + 1))
    situation = [f"It is your turn ({me}). Turns left after this one: {left}."]
    if speak.reason:
        situation.append(f"You take the floor because: {speak.reason}.")
    if speak.must_conclude:
        situation.append("This turn must be a conclusion: answer the goal with what is known now.")
    user = (
        "Conversation so far:\n" + (history or "(nothing yet: you start)")
        + "\n\nTasks:\n" + ("\n".join(task_lines) or "(none)")
        + "\n\n" + " ".join(situation)
    )  # fmt: skip
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- parsing the decision


def parse_turn_decision(
    obj: Mapping[str, Any], view: ConversationView, team: Sequence[MemberInfo]
) -> TurnDraft:
    """The model's JSON decision as a TurnDraft; raises ModelOutputError saying what to fix."""
    members = team_for(view, team)
    by_name = {h.lower(): p for p, h in handles(members).items()}
    by_name.update({m.peer_id.lower(): m.peer_id for m in members})
    valid_names = ", ".join(sorted(handles(members).values()))

    def member(name: Any) -> str:
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
    return TurnDraft(kind, content.strip(), next_, tasks, triggers)


def _tasks(raw: Any, member: Callable[[Any], str]) -> tuple[TaskAssignment, ...]:
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


def _triggers(raw: Any, view: ConversationView) -> tuple[str, ...]:
    running = {t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING}
    by_alias = {alias.lower(): tid for tid, alias in _aliases(view).items()}
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raw = []
    found = [by_alias.get(str(x).strip().lower(), str(x).strip()) for x in raw]
    chosen = tuple(t for t in dict.fromkeys(found) if t in running)
    if not chosen:
        names = ", ".join(a for t, a in _aliases(view).items() if t in running) or "none"
        raise ModelOutputError(f"a pause needs running tasks as triggers (running now: {names})")
    return chosen


# --------------------------------------------------------------------------- team formation


__all__ = ["MESSAGE_TYPES", "TURN_FORMAT", "LLMBrain", "parse_turn_decision", "turn_prompt"]
