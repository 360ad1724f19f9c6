"""Local reputation: what the signed chat histories this node holds say about each member (pure).

Reputation here is evidence, never a claim: it is computed from verified chat messages only (the chat
store's, whose every signature and hash link was checked), and only from messages whose signer cannot be
framing someone else:

- a member's own ``conv.task.result`` for a task assigned to it: a failure counts as failed (the member
  signed it itself); ``ok`` counts as done only in a chat this node created or for a task this node
  assigned (this node is the requester, and it did not mark the task failed): in a chat strangers
  created, colluding identities could assign each other tasks and report them done, and would earn
  standing for work nobody asked of them;
- a task *this node* assigned (its own signed turn) that got no result from its assignee in a chat that
  reached a conclusion, or that this node's own turn marked failed (``fail_tasks``): unanswered;
- a ``member.remove`` *this node* signed of a member that had taken part (it had posted in the chat or
  been assigned a task there before): rejected (this node dropped it mid-work);
- a ``member.remove`` *this node* signed of a member that never took part (no message of its own, no
  task): absent. That is how a chat records an invitee that declined or never answered (the answer
  travels on the invitation stream, not in the chat, so the history cannot tell a decline from
  silence). Being busy is no failure, so an absence weighs :data:`ABSENT_WEIGHT` of a failure: weak
  negative evidence (one absence: -0.47; a failure: -1.6), enough to rank an identity that never
  shows up below its peers over time, not enough to shut out a busy honest agent.

Nothing another member says about a third one counts (a member could smear others in a chat it creates).
:class:`Standing` turns the counts into ``p``, the mean of a Beta(done + 1, bad + 1): the chance that the
agent does the next task, 0.5 for an agent this node knows nothing of. :func:`reputation_prior` turns it
into the matcher's fused units (:meth:`~ioa_p2p.matching.HybridMatcher.set_priors`) as a log-odds ratio
against 0.5, strongly for bad records and mildly for good ones: ``PENALTY * ln(2p)`` below 0.5 (one
failure: -1.6, two: -2.8), at most ``MAX_BONUS`` above it. A member that failed or was rejected ranks
well below its peers the next time a team is formed; one that delivered gains a little, never enough to
win a query it does not match (the bonus applies to every query alike).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.conversation.messages import CONCLUSION, RESULT, TASK_KINDS, TURN_KINDS, task_id
from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.history.bodies import KIND_MEMBER_REMOVE, ChatMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.wire.envelope import Envelope

#: Fused units per unit of log-odds against 0.5 for a bad record, and the most a good record adds.
PENALTY = 4.0
BONUS = 1.0
MAX_BONUS = 0.5
#: What one absence (an invitee removed before it took part: a decline or no answer) weighs in ``bad``.
ABSENT_WEIGHT = 0.25


@dataclass
class Standing:
    """One member's record in the histories this node holds."""

    done: int = 0
    failed: int = 0
    unanswered: int = 0
    rejected: int = 0
    absent: int = 0  # removed before taking part: declined or never answered (weak evidence)

    @property
    def bad(self) -> float:
        return self.failed + self.unanswered + self.rejected + ABSENT_WEIGHT * self.absent

    @property
    def p(self) -> float:
        """The chance the agent does its next task: the mean of Beta(done + 1, bad + 1)."""
        return (self.done + 1) / (self.done + self.bad + 2)

    def add(self, other: Standing) -> None:
        self.done += other.done
        self.failed += other.failed
        self.unanswered += other.unanswered
        self.rejected += other.rejected
        self.absent += other.absent

    def to_json(self) -> dict[str, Any]:
        return {**vars(self), "p": round(self.p, 4)}


def chat_outcomes(
    history: Iterable[Envelope], me: PeerId, *, creator: PeerId | None = None
) -> dict[str, Standing]:
    """The standing of each member (by peer ID text) in one chat's verified history (module docstring);
    ``creator``: who signed the chat's genesis (None: not this node)."""
    own_chat = creator == me
    assigned: dict[str, tuple[str, bool]] = {}  # task id -> (assignee, assigned by this node)
    results: dict[str, tuple[str, bool]] = {}  # task id -> (author, ok), the assignee's own first result
    failed_by_me: set[str] = set()
    rejected: list[tuple[str, bool]] = []  # (member, whether it had taken part when removed)
    took_part: set[str] = set()  # authors of a message, assignees of a task, so far
    concluded = False
    for env in history:
        body = env.body
        if not isinstance(body, ChatMessage) or not isinstance(body.content, dict):
            continue
        kind, content, author = body.kind, body.content, str(env.author)
        took_part.add(author)
        if kind in TASK_KINDS:
            for index, task in enumerate(content.get("tasks") or ()):
                if isinstance(task, Mapping) and isinstance(task.get("assignee"), str):
                    assigned[task_id(env.hash.hex(), index)] = (task["assignee"], env.author == me)
                    took_part.add(task["assignee"])
        if kind in TURN_KINDS and env.author == me:
            failed_by_me.update(t for t in content.get("fail_tasks") or () if isinstance(t, str))
        if kind == CONCLUSION:
            concluded = True
        elif kind == RESULT and isinstance(content.get("task_id"), str):
            results.setdefault(content["task_id"], (author, content.get("ok") is True))
        elif kind == KIND_MEMBER_REMOVE and env.author == me:
            member = content.get("member")
            if isinstance(member, bytes | bytearray):
                try:
                    removed = str(PeerId.from_bytes(bytes(member)))
                    rejected.append((removed, removed in took_part))
                except InvalidPeerId:  # the chat store would not have accepted it
                    continue
    out: dict[str, Standing] = {}
    for tid, (assignee, by_me) in assigned.items():
        standing = out.setdefault(assignee, Standing())
        result = results.get(tid)
        if result is not None and result[0] == assignee:
            if not result[1]:
                standing.failed += 1
            elif by_me and tid in failed_by_me:
                standing.unanswered += 1  # too late: the requester had given it up
            elif by_me or own_chat:
                standing.done += 1
        elif by_me and (concluded or tid in failed_by_me):
            standing.unanswered += 1
    for member, part in rejected:
        standing = out.setdefault(member, Standing())
        if part:
            standing.rejected += 1
        else:
            standing.absent += 1
    out.pop(str(me), None)
    return out


def merge(outcomes: Iterable[Mapping[str, Standing]]) -> dict[str, Standing]:
    total: dict[str, Standing] = {}
    for chat in outcomes:
        for member, standing in chat.items():
            total.setdefault(member, Standing()).add(standing)
    return total


def reputation_prior(standing: Standing) -> float:
    """The standing as an addition to a card's fused score (0 for an agent this node knows nothing of)."""
    odds = math.log(2 * standing.p)
    return PENALTY * odds if odds < 0 else min(MAX_BONUS, BONUS * odds)


__all__ = [
    "ABSENT_WEIGHT",
    "BONUS",
    "MAX_BONUS",
    "PENALTY",
    "Standing",
    "chat_outcomes",
    "merge",
    "reputation_prior",
]
