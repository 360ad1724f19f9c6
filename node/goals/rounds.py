"""One conversation round as a goal chat's driver tracks it, and the items on the driver's queue."""

from __future__ import annotations

from dataclasses import dataclass, field

import trio

from ioa_p2p.conversation.inputs import ConversationInput
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import PlanBoard
from ioa_p2p.node.goals.types import RoundOutcome
from ioa_p2p.wire.envelope import Envelope


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


__all__ = ["DriverItem", "EnvelopeArrived", "Round", "RoundInput"]
