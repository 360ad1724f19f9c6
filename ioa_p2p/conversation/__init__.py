"""ioa_p2p.conversation: IoA conversations in a goal chat (pure: no I/O, no clock, no randomness).

- ``contents.py``  the ``conv.*`` chat-message kinds, their limits and their wire schemas
- ``messages.py``  the typed ``conv.*`` messages the machine uses (``to_content`` / ``from_content``)
- ``failures.py``  why a task failed: the one list of failure kinds
- ``types.py``     the machine's views and decisions (and :class:`Incoming`, :class:`TurnDraft`)
- ``inputs.py``    the typed inputs a driver feeds the machine (:func:`apply_input`), netting decisions
- ``machine.py``   :class:`Conversation`: one member's state machine (turns, floor, limits, fallback
  speakers, tasks); docs/conversation.md
- ``repair.py``    a brain's draft made into a turn the floor's rules accept (clipped, checked, forced)
- ``tree.py``      the turn tree the machine rebuilds from the messages it holds, and its fork choice
- ``plan.py``      ``conv.plan`` (the shared plan: steps, owners, status, versioned) and ``conv.cancel``
- ``costs.py``     usage records of task results and the per-agent cost table a conclusion ends with
- ``reputation.py`` each member's record in the signed histories this node holds (local reputation)
- ``brains/``      the speaker policies a member uses to take its turn (offline planner, LLM)

Imports: :mod:`ioa_p2p.errors`; ``reputation.py`` also :mod:`ioa_p2p.history` (chat message bodies);
``brains/`` also :mod:`ioa_p2p.card`, :mod:`ioa_p2p.embedding`,
:mod:`ioa_p2p.llm`, :mod:`ioa_p2p.teaming`.
"""

from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.types import (
    Aborted,
    CancelTask,
    Concluded,
    ConversationView,
    Decision,
    Floor,
    Incoming,
    Post,
    Rejected,
    Speak,
    SpeakToken,
    StartTask,
    TaskStatus,
    TaskView,
    TurnDraft,
    TurnView,
    compose_conclusion,
)

__all__ = [
    "Aborted",
    "CancelTask",
    "Concluded",
    "Conversation",
    "ConversationView",
    "Decision",
    "Floor",
    "Incoming",
    "Post",
    "Rejected",
    "Speak",
    "SpeakToken",
    "StartTask",
    "TaskStatus",
    "TaskView",
    "TurnDraft",
    "TurnView",
    "compose_conclusion",
]
