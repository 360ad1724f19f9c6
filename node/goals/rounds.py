"""One conversation round as a goal chat's driver tracks it, and the items on the driver's queue.

:func:`open_round` checks a ``conv.start`` and begins its round; :func:`route_of` finds the round a
``conv.*`` message belongs to; :meth:`Round.count` keeps a round's message figures and task traces.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import trio

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.inputs import ConversationInput
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import PlanBoard
from ioa_p2p.errors import InvalidContent
from ioa_p2p.node.goals.types import RoundOutcome
from ioa_p2p.wire.envelope import Envelope

#: Task turns whose trace a round remembers at most (a hostile member cannot grow it without bound).
MAX_TASK_TRACES = 1024


@dataclass(slots=True)
class Round:
    round_id: str
    start: ConvStart
    conv: Conversation | None
    started_ms: int
    messages: int = 1
    bytes: int = 0
    outcome: RoundOutcome | None = None
    done: trio.Event = field(default_factory=trio.Event)
    running: dict[str, trio.CancelScope] = field(default_factory=dict)
    plans: PlanBoard = field(default_factory=PlanBoard.empty)
    #: Tracing: the traceparent of this node's latest turn span (sent in its task turns), and the one
    #: each task turn carried, by the turn's message id (the parent of its tasks' spans).
    turn_trace: str = ""
    task_traces: dict[str, str] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.outcome is None

    def count(self, msg_id: str, env: Envelope, kind: str, content: object) -> None:
        """Count a ``conv.*`` message of this round; remember the trace a task turn carries."""
        self.messages += 1
        self.bytes += len(env.to_cbor())
        trace = content.get("trace") if kind in cm.TASK_KINDS and isinstance(content, dict) else None
        if isinstance(trace, str) and len(self.task_traces) < MAX_TASK_TRACES:
            self.task_traces[msg_id] = trace


def open_round(
    env: Envelope,
    msg_id: str,
    content: object,
    ever_members: Collection[str],
    me: str,
    now: float,
    names: Callable[[Sequence[str]], dict[str, str]],
) -> Round:
    """The round a ``conv.start`` begins (its id is the message's). Raises :class:`InvalidContent` for a
    start that does not decode, not sent by its initiator, or naming agents that were never members."""
    start = ConvStart.from_content(content)
    if start.initiator != str(env.author) or not set(start.members) <= set(ever_members):
        raise InvalidContent("conv.start: wrong initiator or non-members")
    conv = Conversation(start, me=me, start_id=msg_id, now=now)
    conv.names = names(start.members)
    return Round(msg_id, start, conv, env.ts, bytes=len(env.to_cbor()))


def floor_tip(conv: Conversation) -> str:
    """The id of the turn the floor is at (the round's start before the first turn)."""
    turns = conv.view().turns
    return turns[-1].msg_id if turns else conv.start_id


def route_of(msg_round: Mapping[str, str], kind: str, content: object) -> str | None:
    """The round a ``conv.*`` message belongs to (turns by ``prev``, results/progress by task id), given
    the round of each message seen (``msg_round``)."""
    if not isinstance(content, dict):
        return None
    if kind in cm.TURN_KINDS:
        prev = content.get("prev")
        return msg_round.get(prev) if isinstance(prev, str) else None
    task_id = content.get("task_id")
    if isinstance(task_id, str):
        return msg_round.get(task_id.rpartition("#")[0])
    return None


@dataclass(frozen=True, slots=True)
class EnvelopeArrived:
    """A message of the chat (stored or new), in chat order."""

    env: Envelope


@dataclass(frozen=True, slots=True)
class RoundInput:
    """An input for one round's conversation from this node's own work (a turn, a task's progress or end)."""

    round_id: str
    event: ConversationInput


#: What the driver's queue carries.
DriverItem = EnvelopeArrived | RoundInput


__all__ = [
    "MAX_TASK_TRACES",
    "DriverItem",
    "EnvelopeArrived",
    "Round",
    "RoundInput",
    "floor_tip",
    "open_round",
    "route_of",
]
