"""Taking this node's turn under a deadline, and the round's side messages (plan updates, cancellation).

:func:`take_turn_bounded`: the brain (with the member cards it needs) runs in ONE cancel scope ending at
:func:`turn_deadline`: a share of the speaker timeout, and never later than :data:`TURN_RESERVE` seconds
before the round's deadline. When the brain fails or the scope ends first, the brain's
``fallback_turn`` is the turn (the offline planner's decision, marked with the failure's kind), so a
silent, slow or broken model costs a turn's budget, never the turn. Only the failure's kind is logged.

:func:`side_message`: a ``conv.plan`` or ``conv.cancel`` message, checked (a member of the round, the
initiator for a cancellation), as the driver's typed event and decisions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import trio

from ioa_p2p.api.events import (
    CancelledEvent,
    CancelRejectedEvent,
    InvalidSideEvent,
    PlanEvent,
    PlanStepView,
)
from ioa_p2p.conversation.brains.base import Brain, MemberInfo
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import CANCEL, PLAN, PlanBoard, PlanUpdate, RoundCancel
from ioa_p2p.conversation.types import (
    Aborted,
    ConversationView,
    Speak,
    TurnDraft,
)
from ioa_p2p.errors import InvalidContent, IoAError
from ioa_p2p.llm.failures import failure_kind
from ioa_p2p.node.goals.rounds import Round

log = logging.getLogger("ioa_p2p.goals")

#: Share of the speaker timeout a brain may use (the rest is left for signing and delivering the turn).
BRAIN_SHARE = 0.8
#: Seconds kept before the round's deadline: the fallback decision, signing and delivery.
TURN_RESERVE = 1.5


def turn_deadline(start: ConvStart, now: float) -> float:
    """The wall-clock time by which this node's brain must have decided its turn."""
    return min(now + start.speaker_timeout * BRAIN_SHARE, start.deadline - TURN_RESERVE)


class TeamCards(Protocol):
    """What a turn needs to know of the members: their cards
    (:class:`~ioa_p2p.node.goals.members.Members`)."""

    async def team_info(self, members: Sequence[str]) -> list[MemberInfo]: ...
    def member_info(self, peer: str) -> MemberInfo: ...


async def take_turn_bounded(
    members: TeamCards,
    brain: Brain,
    view: Callable[[], ConversationView | None],
    speak: Speak,
    chat: str,
    now: Callable[[], float] = time.time,
) -> TurnDraft | None:
    """The brain's turn within :func:`turn_deadline` (read on the wall clock ``now``, the node's), or its
    fallback (None: the rule-based pass)."""
    current = view()
    if current is None:
        return None
    deadline = turn_deadline(current.start, now())
    team: Sequence[MemberInfo] | None = None
    failure = "timeout"
    with trio.move_on_after(max(0.0, deadline - now())):
        try:
            team = await members.team_info(current.start.members)
            return await brain.take_turn(current, speak, team)
        except IoAError as exc:
            failure = failure_kind(exc)
        except Exception:  # a brain bug must not stop the conversation
            log.warning("chat %s: the %s brain failed", chat[:16], brain.label, exc_info=True)
            failure = "bad_output"
    log.warning("chat %s: the %s brain gave no turn (%s); falling back", chat[:16], brain.label, failure)
    latest = view()
    if latest is None:
        return None
    team = team or [members.member_info(m) for m in latest.start.members]
    try:
        return brain.fallback_turn(latest, speak, team, failure)
    except Exception:  # a planner bug: no turn this time; the round's timeouts take over
        log.warning("chat %s: the fallback planner failed", chat[:16], exc_info=True)
        return None


SideEvent = InvalidSideEvent | CancelRejectedEvent | CancelledEvent | PlanEvent


def side_message(
    kind: str,
    content: object,
    msg_id: str,
    author: str,
    rounds: Mapping[str, Round],
    name_of: Callable[[str], str],
    *,
    chat_id: str,
) -> tuple[str, SideEvent | None, Aborted | None]:
    """``(round id, event, decision)`` for a ``conv.plan`` / ``conv.cancel`` message; ``("", None,
    None)`` when it belongs to no known round or is not valid (an ``invalid`` event then)."""
    try:
        parsed: PlanUpdate | RoundCancel = (
            PlanUpdate.from_content(content) if kind == PLAN else RoundCancel.from_content(content)
        )
    except InvalidContent as exc:
        return "", InvalidSideEvent(chat_id, msg_id, author, str(exc)), None
    r = rounds.get(parsed.round)
    if r is None or author not in r.start.members:
        return "", None, None
    base = (chat_id, r.round_id, msg_id, author, name_of(author))
    if isinstance(parsed, RoundCancel):
        if author != r.start.initiator:
            return "", CancelRejectedEvent(*base, "only the initiator may cancel a round"), None
        return r.round_id, CancelledEvent(*base, parsed.reason), Aborted("cancelled")
    board: PlanBoard = r.plans
    board.add(msg_id, author, parsed)
    steps = tuple(
        PlanStepView(s.title, s.owner, s.status, name_of(s.owner) if s.owner else "") for s in parsed.steps
    )
    return r.round_id, PlanEvent(*base, parsed.version, steps), None


SIDE_KINDS = (PLAN, CANCEL)


__all__ = [
    "BRAIN_SHARE",
    "SIDE_KINDS",
    "SideEvent",
    "TURN_RESERVE",
    "side_message",
    "take_turn_bounded",
    "turn_deadline",
]
