"""ioa_p2p.conversation.brains: how a member takes its turn, behind one small :class:`Brain` protocol.

- ``base.py``     :class:`Brain`, :class:`MemberInfo` (what a brain knows of a member), handles
- ``offline.py``  :class:`OfflineBrain`: deterministic planning by embedding similarity, no model
- ``llm.py``      :class:`LLMBrain`: a model decides each turn; falls back to the offline planner, visibly
- ``deferred.py`` :class:`DeferredBrain`: a brain made at its first turn (an idle agent holds no planner)

The node chooses one from its ``[goals] brain`` and ``[model]`` tables (``ioa_p2p.node.goals.brain``).
"""

from typing import TYPE_CHECKING

from ioa_p2p.lazy import lazy_exports

if TYPE_CHECKING:
    from ioa_p2p.conversation.brains.base import Brain, MemberInfo, handles, team_for
    from ioa_p2p.conversation.brains.deferred import DeferredBrain
    from ioa_p2p.conversation.brains.llm import LLMBrain
    from ioa_p2p.conversation.brains.offline import OfflineBrain

#: Where each public name lives: imported on first use (:func:`__getattr__`), so that importing
#: :mod:`.base` (the goals service's types) does not load the planner (issue 26).
_LAZY = {
    "Brain": "base",
    "MemberInfo": "base",
    "handles": "base",
    "team_for": "base",
    "DeferredBrain": "deferred",
    "LLMBrain": "llm",
    "OfflineBrain": "offline",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["Brain", "DeferredBrain", "LLMBrain", "MemberInfo", "OfflineBrain", "handles", "team_for"]
