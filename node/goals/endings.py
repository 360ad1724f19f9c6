"""How a round of a goal chat ends, as its driver records it (pure): the outcome and its event.

:func:`round_ending` turns a round's final decision (``Concluded`` or ``Aborted``) and the conversation's
last view into the :class:`~ioa_p2p.node.goals.types.RoundOutcome` that ``GET /goals/result`` and
``launch_goal`` return, and the ``concluded`` / ``aborted`` event of the chat's log. :func:`slim_result`
is a ``conv.result`` cut to fit the chat's size limit (its files dropped, its text cut, a note added).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ioa_p2p.api.events import AbortedEvent, ConcludedEvent
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import fallback_kind, turn_origin
from ioa_p2p.conversation.types import (
    Aborted,
    Concluded,
    ConversationView,
    append_costs,
    compose_conclusion,
)
from ioa_p2p.node.goals.describe import describe_task
from ioa_p2p.node.goals.rounds import Round
from ioa_p2p.node.goals.types import RoundOutcome

#: The note a result cut to fit the chat's size limit ends with.
SLIM_NOTE = "\n[result files dropped: the message was over the chat's size limit]"


def round_ending(
    chat_hex: str,
    r: Round,
    view: ConversationView,
    final: Concluded | Aborted,
    name_of: Callable[[str], str],
    names: Callable[[Sequence[str]], dict[str, str]],
    ended_ms: int,
) -> tuple[RoundOutcome, ConcludedEvent | AbortedEvent]:
    """The outcome of round ``r`` ended by ``final`` (its conversation's last ``view``), and its event."""
    event: ConcludedEvent | AbortedEvent
    if isinstance(final, Concluded):
        status, text, author, forced, reason = "concluded", final.text, final.author, final.forced, ""
        name = name_of(author) if author else ""
        event = ConcludedEvent(chat_hex, r.round_id, text, forced, author, name)
    else:
        status, author, forced, reason = "aborted", "", False, final.reason
        members = names(r.start.members)
        text = compose_conclusion(view, [f"Aborted: {final.reason}."], members)
        text = append_costs(text, view, members)
        event = AbortedEvent(chat_hex, r.round_id, text, reason=reason)
    origins = Counter(turn_origin(t.text) for t in view.turns)
    fallbacks = Counter(k for t in view.turns if (k := fallback_kind(t.text)) is not None)
    latest = r.plans.latest()
    outcome = RoundOutcome(
        round_id=r.round_id,
        status=status,
        conclusion=text,
        author=author,
        forced=forced,
        reason=reason,
        tasks=[describe_task(t, name_of) for t in view.tasks],
        turns=len(view.turns),
        messages=r.messages,
        bytes=r.bytes,
        ended_ms=ended_ms,
        origins=dict(origins),
        fallbacks=dict(fallbacks),
        plan=[s.to_content() for s in latest.steps] if latest is not None else [],
        plan_versions=len(r.plans.updates),
    )
    return outcome, event


def slim_result(content: dict[str, Any]) -> dict[str, Any]:
    """A ``conv.result``'s content without its files, its text cut so the message fits the chat's limit."""
    text = str(content.get("text", ""))[: cm.MAX_TEXT - 100] + SLIM_NOTE
    return {**content, "files": {}, "text": text}


__all__ = ["SLIM_NOTE", "round_ending", "slim_result"]
