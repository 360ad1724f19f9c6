"""The typed inputs a driver feeds a conversation, and how a batch's decisions are netted (pure).

The trio driver (:mod:`ioa_p2p.node.goals.driver`) queues one :data:`ConversationInput` per event and
applies it with :func:`apply_input`; the machine answers with :data:`~ioa_p2p.conversation.types.Decision`
values. Nothing is dispatched by name: a new input is a new dataclass and a new ``case``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import TaskOutcome
from ioa_p2p.conversation.types import CancelTask, Decision, Incoming, Speak, SpeakToken, StartTask, TurnDraft
from ioa_p2p.errors import InvalidContent


@dataclass(frozen=True, slots=True)
class MessageArrived:
    """A verified ``conv.*`` chat message."""

    message: Incoming


@dataclass(frozen=True, slots=True)
class MemberLeft:
    member: str


@dataclass(frozen=True, slots=True)
class TaskFinished:
    """A task this member ran ended (its outcome is to be posted)."""

    task_id: str
    outcome: TaskOutcome


@dataclass(frozen=True, slots=True)
class TaskProgressed:
    task_id: str
    text: str
    fraction: float | None


@dataclass(frozen=True, slots=True)
class TurnComposed:
    """The brain answered a :class:`~ioa_p2p.conversation.types.Speak` (``draft`` None: it gave up)."""

    token: SpeakToken
    draft: TurnDraft | None


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed (the machine's timers: fallback speakers, overdue tasks, deadlines)."""


ConversationInput = MessageArrived | MemberLeft | TaskFinished | TaskProgressed | TurnComposed | Tick


def apply_input(conv: Conversation, event: ConversationInput, now: float) -> list[Decision]:
    """Feed one input to ``conv`` at time ``now``; its decisions."""
    match event:
        case MessageArrived(message):
            return conv.on_message(message, now)
        case MemberLeft(member):
            return conv.on_member_left(member, now)
        case TaskFinished(task_id, outcome):
            return conv.on_task_finished(task_id, outcome, now)
        case TaskProgressed(task_id, text, fraction):
            return conv.on_task_progress(task_id, text, fraction, now)
        case TurnComposed(token, draft):
            return conv.compose_turn(token, draft, now)
        case Tick():
            return conv.on_tick(now)


def net_decisions(decisions: list[Decision]) -> list[Decision]:
    """A batch's decisions with no-ops removed: a StartTask cancelled later in the batch (both dropped),
    and every Speak but the last."""
    out: list[Decision] = []
    last_speak = max((i for i, d in enumerate(decisions) if isinstance(d, Speak)), default=-1)
    for i, d in enumerate(decisions):
        if isinstance(d, Speak) and i != last_speak:
            continue
        if isinstance(d, CancelTask):
            started = [
                j for j, e in enumerate(out) if isinstance(e, StartTask) and e.task.task_id == d.task_id
            ]
            if started:
                del out[started[-1]]
                continue
        out.append(d)
    return out


def postable(outcome: TaskOutcome) -> TaskOutcome:
    """The outcome as a valid ``conv.task.result`` (data that is not plain JSON-like is dropped, visibly)."""
    try:
        return TaskOutcome.from_content(outcome.to_content())
    except InvalidContent as exc:
        text = f"{outcome.text}\n[structured data dropped: {exc}]"[: cm.MAX_TEXT]
        return TaskOutcome(outcome.task_id, outcome.ok, text, {}, {}, outcome.failure)


__all__ = [
    "ConversationInput",
    "MemberLeft",
    "MessageArrived",
    "TaskFinished",
    "TaskProgressed",
    "Tick",
    "TurnComposed",
    "apply_input",
    "net_decisions",
    "postable",
]
