"""A brain made at its first use (issue 26, "Per-node cost").

The offline planner (:mod:`ioa_p2p.planning`, ~45 modules, ~2.4 MB resident) is what an agent's brain
plans with; an agent that waits for work takes no turn, so its goals service holds a
:class:`DeferredBrain` that imports and builds the real brain at the first turn it is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ioa_p2p.conversation.brains.base import Brain, MemberInfo
from ioa_p2p.conversation.types import ConversationView, Speak, TurnDraft


class DeferredBrain:
    """:class:`Brain` that calls ``make`` at its first turn and delegates every call to what it made.

    ``label`` (shown with every turn) is known before the brain is made; the made brain must carry the
    same one."""

    def __init__(self, make: Callable[[], Brain], label: str) -> None:
        self.label = label
        self._make: Callable[[], Brain] | None = make
        self._brain: Brain | None = None

    @property
    def made(self) -> bool:
        return self._brain is not None

    def brain(self) -> Brain:
        """The real brain, made now if it was not."""
        if self._brain is None:
            assert self._make is not None
            brain = self._make()
            if brain.label != self.label:
                raise ValueError(f"the deferred brain {self.label!r} made a brain labelled {brain.label!r}")
            self._brain, self._make = brain, None
        return self._brain

    async def take_turn(self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo]) -> TurnDraft:
        return await self.brain().take_turn(view, speak, team)

    def fallback_turn(
        self, view: ConversationView, speak: Speak, team: Sequence[MemberInfo], failure: str
    ) -> TurnDraft | None:
        return self.brain().fallback_turn(view, speak, team, failure)


__all__ = ["DeferredBrain"]
