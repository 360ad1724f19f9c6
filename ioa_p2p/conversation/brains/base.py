"""The speaker policy a member uses to take its turn, behind one small :class:`Brain` protocol.

When :class:`~ioa_p2p.conversation.Conversation` says :class:`~ioa_p2p.conversation.Speak`, the node calls
``await brain.take_turn(conv.view(), speak, team)`` (inside ``trio.fail_after(start.speaker_timeout)``) and
hands the :class:`~ioa_p2p.conversation.TurnDraft` to ``conv.compose_turn``; on any error or timeout it
calls ``compose_turn(token, None, now)``, the state machine's rule-based pass.

Two brains:

- :class:`~ioa_p2p.conversation.brains.offline.OfflineBrain`: the embedded default with no model:
  deterministic planning by embedding similarity; every text it writes starts with ``[offline planner]``.
- :class:`~ioa_p2p.conversation.brains.llm.LLMBrain`: prompts a :class:`~ioa_p2p.llm.model.Model` for a
  structured decision; when the model fails it falls back to the offline planner, visibly.

:func:`make_brain` picks one from the node's config.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ioa_p2p.card import AgentCard
from ioa_p2p.conversation.types import ConversationView, Speak, TurnDraft


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

    @classmethod
    def from_card(cls, card: AgentCard) -> MemberInfo:
        return cls(str(card.peer), card.name, card.description, tuple(card.skills), bool(card.adapter))

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


__all__ = ["Brain", "MemberInfo", "handles", "team_for"]
