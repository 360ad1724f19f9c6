"""ioa_p2p.conversation.brains: how a member takes its turn, behind one small :class:`Brain` protocol.

- ``base.py``     :class:`Brain`, :class:`MemberInfo` (what a brain knows of a member), handles
- ``offline.py``  :class:`OfflineBrain`: deterministic planning by embedding similarity, no model
- ``llm.py``      :class:`LLMBrain`: a model decides each turn; falls back to the offline planner, visibly

The node chooses one from its ``[goals] brain`` and ``[model]`` tables (``ioa_p2p.node.goals.brain``).
"""

from ioa_p2p.conversation.brains.base import Brain, MemberInfo, handles, team_for
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain

__all__ = ["Brain", "LLMBrain", "MemberInfo", "OfflineBrain", "handles", "team_for"]
