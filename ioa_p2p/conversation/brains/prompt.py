"""What the LLM brain sends the model for a turn: the prompt, kept within a token budget, and the JSON
schema of the answer (pure).

:func:`turn_prompt` fits the prompt into ``budget`` tokens (:func:`~ioa_p2p.llm.failures.estimate_tokens`):
the system part (goal, team, answer format) and the situation always go in; task results are cut to what
fits; the history is filled newest first, so the oldest turns are dropped first ("...(N earlier messages
cut)..."). :func:`turn_schema` is the answer's JSON schema, with enums for the message types and the
member names (structured output; servers that do not accept a schema get JSON mode and the same rules
in the prompt).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ioa_p2p.conversation.brains.base import MemberInfo, handles, team_for
from ioa_p2p.conversation.plan import STATUSES
from ioa_p2p.conversation.types import ConversationView, Speak, TaskStatus
from ioa_p2p.llm.failures import estimate_tokens, text_tokens
from ioa_p2p.planning.posted import PLAN_SCHEMA

TYPES = ("discussion", "sync_task", "async_task", "pause", "conclusion")

TURN_FORMAT = (
    """Reply with exactly one JSON object:
{"thought": "your private reasoning, one or two sentences",
 "message_type": "discussion" | "sync_task" | "async_task" | "pause" | "conclusion",
 "content": "the message the team reads (for a conclusion: the final answer to the goal)",
 "next_speakers": ["member name", ...],
 "tasks": [{"assignee": "member name", "title": "a few words", "description": "the complete task"}],
 "triggers": ["T1", ...],
 "plan": [{"step": "a few words", "owner": "member name or \"\"",
           "status": "todo" | "running" | "done" | "failed"}]}
- discussion: talk to the team; next_speakers says who speaks next.
- sync_task: assign tasks; you speak again when all of them have finished.
- async_task: assign tasks that run in the background; next_speakers says who speaks next.
- pause: wait until the running tasks listed in triggers finish; then you speak again.
- conclusion: end the conversation with the final answer.
- plan: the team's shared plan after your turn (every step, its owner, its status).
Task descriptions must be self-contained (include every number, text or code the assignee needs): the
assignee's tool runs them without seeing this chat. Assign tasks only to members able to do them.
Conclude as soon as the goal is achieved.
"""
    + PLAN_SCHEMA
)

#: Characters of one task result / description shown at most (before the budget cuts further).
RESULT_CHARS = 1500
DESCRIPTION_CHARS = 600


def aliases(view: ConversationView) -> dict[str, str]:
    return {t.task_id: f"T{i}" for i, t in enumerate(view.tasks, 1)}


def turn_schema(view: ConversationView, team: Sequence[MemberInfo]) -> dict[str, Any]:
    """The JSON schema of a turn answer: message types and member names as enums."""
    names = sorted(handles(team_for(view, team)).values())
    member = {"type": "string", "enum": names}
    task = {
        "type": "object",
        "properties": {"assignee": member, "title": {"type": "string"}, "description": {"type": "string"}},
        "required": ["assignee", "title", "description"],
    }
    step = {
        "type": "object",
        "properties": {
            "step": {"type": "string"},
            "owner": {"type": "string", "enum": [*names, ""]},
            "status": {"type": "string", "enum": list(STATUSES)},
        },
        "required": ["step", "owner", "status"],
    }
    alias = aliases(view)
    running = [alias[t.task_id] for t in view.tasks if t.status is TaskStatus.RUNNING]
    trigger: dict[str, Any] = {"type": "string", "enum": running} if running else {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "thought": {"type": "string"},
            "message_type": {"type": "string", "enum": list(TYPES)},
            "content": {"type": "string"},
            "next_speakers": {"type": "array", "items": member},
            "tasks": {"type": "array", "items": task},
            "triggers": {"type": "array", "items": trigger},
            "plan": {"type": "array", "items": step},
            "work_plan": {"type": "object"},
        },
        "required": ["message_type", "content"],
    }


def turn_prompt(
    view: ConversationView,
    speak: Speak,
    team: Sequence[MemberInfo],
    *,
    budget: int = 3072,
) -> list[dict[str, Any]]:
    """The chat messages of a turn prompt, at most ``budget`` estimated tokens (see the docstring)."""
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
    left = max(0, view.start.max_turns - (speak.token.height + 1))
    situation = [f"It is your turn ({me}). Turns left after this one: {left}."]
    if speak.reason:
        situation.append(f"You take the floor because: {speak.reason}.")
    if speak.must_conclude:
        situation.append("This turn must be a conclusion: answer the goal with what is known now.")
    fixed = estimate_tokens([{"content": system}, {"content": " ".join(situation)}]) + 16
    fixed += text_tokens("\n".join(_plan_lines(view, names)))
    tasks = _task_lines(view, names, max(0, (budget - fixed) // 2))
    history = _history(view, names, max(0, budget - fixed - text_tokens("\n".join(tasks))))
    shared = _plan_lines(view, names)
    user = (
        "Conversation so far:\n" + (history or "(nothing yet: you start)")
        + "\n\nTasks:\n" + ("\n".join(tasks) or "(none)")
        + ("\n\nShared plan (update it in \"plan\"):\n" + "\n".join(shared) if shared else "")
        + "\n\n" + " ".join(situation)
    )  # fmt: skip
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _plan_lines(view: ConversationView, names: dict[str, str]) -> list[str]:
    """The latest shared plan, one line per step (its owner by name)."""
    lines = []
    for i, step in enumerate(view.plan, 1):
        owner = f" ({names.get(step.owner, step.owner)})" if step.owner else ""
        lines.append(f"{i}. [{step.status}] {step.title[:200]}{owner}")
    return lines


def _task_lines(view: ConversationView, names: dict[str, str], budget: int) -> list[str]:
    """The task table; results are shortened evenly until it fits ``budget`` tokens."""
    alias = aliases(view)
    limit = RESULT_CHARS
    while True:
        lines = []
        for t in view.tasks:
            result = f" -> {t.text[:limit]}" if t.text else ""
            lines.append(
                f"{alias[t.task_id]} [{t.status.value}] {names.get(t.assignee, t.assignee)}: "
                f"{t.title} ({t.mode}): {t.description[: min(limit, DESCRIPTION_CHARS)]}{result}"
            )
        if text_tokens("\n".join(lines)) <= budget or limit <= 40:
            return lines
        limit //= 2


def _history(view: ConversationView, names: dict[str, str], budget: int) -> str:
    """The turns, newest kept first: the oldest are dropped when the budget is spent."""
    alias = aliases(view)
    kept: list[str] = []
    used = 0
    for turn in reversed(view.turns):
        extra = ""
        if turn.task_ids:
            extra = " assigns " + ", ".join(alias.get(t, t) for t in turn.task_ids)
        kind = turn.kind.removeprefix("conv.")
        line = f"[{names.get(turn.author, turn.author)}] ({kind}{extra}): {turn.text}"
        cost = text_tokens(line)
        if used + cost > budget:
            if not kept and budget > 20:  # the newest turn, cut, rather than nothing
                kept.append(line[: (budget - 10) * 3] + " ...(cut)")
            break
        kept.append(line)
        used += cost
    cut = len(view.turns) - len(kept)
    head = [f"...({cut} earlier messages cut)..."] if cut else []
    return "\n".join(head + list(reversed(kept)))


__all__ = ["TURN_FORMAT", "TYPES", "aliases", "turn_prompt", "turn_schema"]
