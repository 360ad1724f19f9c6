"""The speaker policy a member uses to take its turn, behind one small :class:`Brain` protocol.

When :class:`~ioa_p2p.conversation.Conversation` says :class:`~ioa_p2p.conversation.Speak`, the node calls
``await brain.take_turn(conv.view(), speak, team)`` inside one cancel scope (the turn's deadline) and
hands the :class:`~ioa_p2p.conversation.TurnDraft` to ``conv.compose_turn``; on an error or at the deadline
it takes ``brain.fallback_turn(view, speak, team, kind)`` (the offline planner's decision, its text marked
with :func:`fallback_note`), or, when that is None, ``compose_turn(token, None, now)``, the state
machine's rule-based pass. :func:`turn_origin` tells, from a signed turn's text, which of these wrote it.

Two brains:

- :class:`~ioa_p2p.conversation.brains.offline.OfflineBrain`: the embedded default with no model:
  deterministic planning by embedding similarity; every text it writes starts with ``[offline planner]``.
- :class:`~ioa_p2p.conversation.brains.llm.LLMBrain`: prompts a :class:`~ioa_p2p.llm.model.Model` for a
  structured decision; when the model fails it falls back to the offline planner, visibly.

The node picks one from its config (``ioa_p2p.node.goals.brain.make_brain_for``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ioa_p2p.card import AgentCard
from ioa_p2p.conversation.repair import PASS_TEXT
from ioa_p2p.conversation.types import ConversationView, Speak, TurnDraft

#: The offline planner's label, shown with its turns (known before the planner is imported).
OFFLINE_LABEL = "offline planner"
#: The context an LLM brain's prompt may fill when its model does not say (tokens).
CONTEXT_TOKENS = 4096


@dataclass(frozen=True, slots=True)
class MemberInfo:
    """What a brain knows about a conversation member (from its agent card)."""

    peer_id: str
    name: str
    description: str = ""
    skills: tuple[str, ...] = ()
    #: False when the member's card names no adapter (a coordinator): it can only take a task by
    #: forming a sub-team, so planners rank it after the members that do the work themselves.
    works: bool = True
    #: The card's task types: the abilities the planner routes steps by (docs/adapters.md).
    abilities: tuple[str, ...] = ()

    @classmethod
    def from_card(cls, card: AgentCard) -> MemberInfo:
        return cls(
            str(card.peer), card.name, card.description, tuple(card.skills), bool(card.adapter),
            tuple(card.task_types),
        )  # fmt: skip

    def text(self) -> str:
        """The text embedded to match this member with a step (the same shape as card_text)."""
        skills = f" Skills: {', '.join(self.skills)}." if self.skills else ""
        return f"{self.name}: {self.description}{skills}".strip()


@runtime_checkable
class Brain(Protocol):
    #: Shown with every turn this brain writes ("offline planner", "llm:openai/gpt-4o-mini", ...).
    label: str

    async def take_turn(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]
    ) -> TurnDraft: ...

    def fallback_turn(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], failure: str
    ) -> TurnDraft | None:
        """The turn to take when ``take_turn`` failed or ran out of time (``failure``: its kind), marked
        as a fallback; None when the brain has none (the state machine's rule-based pass then)."""
        ...


#: How a fallback turn's text starts: ``[fallback to offline planner: timeout] ...``.
FALLBACK_PREFIX = "[fallback to offline planner: "
#: How the offline planner's own turns start.
OFFLINE_PREFIX = "[offline planner]"
#: How the offline planner's conclusion ends (it starts with the answer, issue 11).
OFFLINE_SUFFIX = "\n\n(offline planner)"
_FALLBACK = re.compile(r"^\[fallback to offline planner: ([a-z_]{1,32})\] ")


def fallback_note(failure: str) -> str:
    return f"{FALLBACK_PREFIX}{failure}] "


def fallback_kind(text: str) -> str | None:
    """The failure kind a fallback turn's text is marked with, or None."""
    found = _FALLBACK.match(text)
    return found.group(1) if found else None


def turn_origin(text: str) -> str:
    """Who wrote a turn, from its text: ``fallback`` (a model failed; the offline planner's turn),
    ``offline`` (the offline planner), ``rule`` (the state machine's pass) or ``model``."""
    if fallback_kind(text) is not None:
        return "fallback"
    if text.startswith(OFFLINE_PREFIX) or OFFLINE_SUFFIX in text:  # a cost table may follow it
        return "offline"
    if text == RULE_PASS_TEXT:
        return "rule"
    return "model"


def handles(team: Sequence[MemberInfo]) -> dict[str, str]:
    """A unique, readable handle per member (its name; name#last4 of the peer id when names collide)."""
    counts: dict[str, int] = {}
    for m in team:
        key = m.name.strip().lower()
        counts[key] = counts.get(key, 0) + 1
    out: dict[str, str] = {}
    for m in team:
        name = m.name.strip() or m.peer_id[-8:]
        out[m.peer_id] = name if counts[m.name.strip().lower()] == 1 else f"{name}#{m.peer_id[-4:]}"
    return out


def team_for(view: ConversationView, team: Sequence[MemberInfo]) -> list[MemberInfo]:
    """The members of the conversation in its rotation order, with placeholders for unknown cards."""
    known = {m.peer_id: m for m in team}
    return [known.get(p, MemberInfo(p, f"agent-{p[-6:]}")) for p in view.start.members]


#: The text of the state machine's rule-based pass (``compose_turn`` with no draft).
RULE_PASS_TEXT = PASS_TEXT

__all__ = [
    "CONTEXT_TOKENS",
    "FALLBACK_PREFIX",
    "OFFLINE_LABEL",
    "OFFLINE_PREFIX",
    "Brain",
    "MemberInfo",
    "fallback_kind",
    "fallback_note",
    "handles",
    "team_for",
    "turn_origin",
]
