"""Keeping discovery's ranking in step with the local reputation of agents (the goals service's task).

Every :data:`INTERVAL` seconds, the chats this node holds whose histories grew are read again
(:func:`~ioa_p2p.conversation.reputation.chat_outcomes`: verified, signed evidence only), the standings are
merged, and the ranker gets each agent's reputation prior
(:meth:`~ioa_p2p.dht.ranking.CardRanker.set_reputation`): a member that failed tasks or was rejected ranks
lower in the next ``find`` and team formation, one that delivered a little higher. Histories are read at
start too, so reputation survives restarts (it lives in the chat store, not in a file of its own). The
members of this node's chats are pinned in the directory (kept past ``[discovery] keep_all``).

Trust (:mod:`ioa_p2p.teaming.trust`, ``[goals] young_penalty``, ``max_young``, ``trust_age``,
``trusted``): the peers whose card this node first held less than ``trust_age`` ago (the directory's
``first_ms``), with no task done on record and not trusted, are *young*; each gets ``-young_penalty`` on
top of its reputation prior, and discovery's :attr:`~ioa_p2p.node.discovery.Discovery.young` is the set
team formation caps (recomputed every :data:`INTERVAL`, as cards age). A page search's fetch choice
gives the same penalty to every listed peer whose card this node never held and that is not proven or
trusted (first seen now: young by definition; ``node/discovery/pages.py``). While this node holds no
established peer at all (a new network, or this node just started: first-seen times are not kept
across restarts), nobody is young: a penalty for everyone would only lower every score.

Age is not evidence: :attr:`~ioa_p2p.node.discovery.Discovery.unproven` is every peer held with no task
done on record and not trusted, however old its card (``[goals] max_unproven`` of them per team, unless
nothing proven covers a need); empty while nobody is proven.

Exposure (:mod:`ioa_p2p.teaming.exposure`, ``[goals] exposure_window``, ``exposure_per_window``): the
teams this node formed are the goal chats it created (their start, their members), so nothing new is
stored and the count survives restarts; an identity's first accepted work is the start of the first
chat this node created in which it earned ``done`` (a stranger's chat could claim any start).
:attr:`~ioa_p2p.node.discovery.Discovery.spent` is every peer (not trusted) whose teams of the last
window reached its budget; team formation caps it (recomputed every :data:`INTERVAL`);
:attr:`~ioa_p2p.node.discovery.Discovery.over_ceiling` those whose teams also used the
``exposure_over_budget`` teams a spent peer may add where nothing else can: never a member then.
:attr:`~ioa_p2p.node.discovery.Discovery.unproven_left` is how many of the ``[goals]
unproven_per_window`` member slots the teams of the last window left for unproven peers (no accepted
work here before that team, not trusted): past them a team takes an unproven member only where nothing
proven can join (:func:`~ioa_p2p.teaming.exposure.unproven_slots_left`).
"""

from __future__ import annotations

import logging

import trio

from ioa_p2p.conversation.reputation import Standing, chat_outcomes, merge, reputation_prior
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.goals.types import GOAL_TOPIC_PREFIX
from ioa_p2p.teaming.exposure import OFF as NO_EXPOSURE
from ioa_p2p.teaming.exposure import (
    ExposurePolicy,
    TeamLog,
    ceiling_keys,
    spent_keys,
    unproven_slots_left,
)
from ioa_p2p.teaming.trust import OFF, TrustPolicy, trust_priors, unproven_keys, young_keys

log = logging.getLogger("ioa_p2p.goals")

INTERVAL = 10.0


class ReputationBook:
    """Standings per chat (recomputed when a chat's history grew) and their merge."""

    def __init__(
        self,
        chats: Chats,
        discovery: Discovery,
        trust: TrustPolicy = OFF,
        trusted: tuple[str, ...] = (),
        *,
        exposure: ExposurePolicy = NO_EXPOSURE,
    ) -> None:
        self.chats, self.discovery = chats, discovery
        self.trust, self.trusted, self.exposure = trust, frozenset(trusted), exposure
        self._per_chat: dict[bytes, tuple[int, dict[str, Standing]]] = {}
        self._teams: dict[bytes, tuple[float, tuple[str, ...]]] = {}  # goal chats this node created
        self._started: dict[bytes, float] = {}  # start of each chat this node created (seconds)
        self.first_done: dict[str, float] = {}  # when each peer first earned ``done`` here (seconds)
        self.spent: frozenset[str] = frozenset()
        self.over_ceiling: frozenset[str] = frozenset()
        self.left: int | None = None  # slots the window still gives unproven peers (None: no bound)
        self.standings: dict[str, Standing] = {}
        self.young: frozenset[str] = frozenset()
        self.unproven: frozenset[str] = frozenset()
        self.proven: frozenset[str] = frozenset()  # a task done on record, or trusted
        self.settled: frozenset[str] | None = None  # established, proven or trusted (None: trust is off)

    def update(self) -> bool:
        """Read the chats that changed; True when some standing changed."""
        me = self.discovery.node.peer_id
        changed = False
        for chat_id in self.chats.member_chats():
            history = self.chats.history(chat_id)
            known = self._per_chat.get(chat_id)
            if known is not None and known[0] == len(history):
                continue
            chat = self.chats.get(chat_id)
            self._per_chat[chat_id] = (len(history), chat_outcomes(history, me, creator=chat.creator))
            if chat.creator == me:  # its start is this node's own signed clock, never a stranger's claim
                self._started[chat_id] = chat.genesis.ts / 1000
                if chat.topic.startswith(GOAL_TOPIC_PREFIX):  # a team this node formed: who is in it
                    members = tuple(sorted(str(p) for p in chat.members() if p != me))
                    self._teams[chat_id] = (chat.genesis.ts / 1000, members)
            changed = True
        if changed:
            self.standings = merge(outcomes for _, outcomes in self._per_chat.values())
            self.first_done = self._first_done()
            self._pin_members()
        return changed

    def _first_done(self) -> dict[str, float]:
        """When each peer first earned ``done`` here: the start of the earliest chat this node created in
        which it did (seconds; a chat a stranger created could claim any start)."""
        out: dict[str, float] = {}
        for chat_id, (_, outcomes) in self._per_chat.items():
            started = self._started.get(chat_id)
            if started is None:
                continue
            for peer, standing in outcomes.items():
                if standing.done and started < out.get(peer, float("inf")):
                    out[peer] = started
        return out

    def expose(self) -> bool:
        """Recompute the spent peers and whether the window's slots for unproven peers are given (module
        docstring); True when either changed."""
        spent: frozenset[str] = frozenset()
        ceiling: frozenset[str] = frozenset()
        left: int | None = None
        policy = self.exposure
        if policy.per_window is not None or policy.unproven_per_window is not None:
            now = self.discovery.node.now()
            since = now - policy.window  # older teams no longer count
            self._teams = {c: team for c, team in self._teams.items() if team[0] >= since}
            teams = TeamLog(limit=max(1, len(self._teams)))
            for started, members in self._teams.values():
                teams.record(started, members)
            joined = teams.joined(since)
            spent = spent_keys(joined, self.first_done, now=now, policy=policy, exempt=self.trusted)
            ceiling = ceiling_keys(joined, self.first_done, now=now, policy=policy, exempt=self.trusted)
            left = unproven_slots_left(teams, self.first_done, now=now, policy=policy, exempt=self.trusted)
        changed = spent != self.spent or left != self.left or ceiling != self.over_ceiling
        self.spent, self.left, self.over_ceiling = spent, left, ceiling
        return changed

    def _pin_members(self) -> None:
        """The members of this node's chats keep their cards in a directory past its ``keep_all``."""
        members: set[PeerId] = set()
        for chat_id in self.chats.member_chats():
            members.update(self.chats.get(chat_id).members())
        self.discovery.directory.pin(frozenset(members))

    def age(self) -> bool:
        """Recompute the young and unproven peers (module docstring); True when a set changed."""
        young: frozenset[str] = frozenset()
        unproven: frozenset[str] = frozenset()
        settled: frozenset[str] | None = None
        first = {
            str(e.card.peer_id): e.first_ms / 1000 for e in self.discovery.directory if e.source != "self"
        }
        proven = self.proven = self.trusted | {peer for peer, s in self.standings.items() if s.done}
        if self.trust.max_unproven is not None:
            unproven = unproven_keys(first.keys(), proven)
        if self.trust.young_penalty or self.trust.max_young is not None:
            young = young_keys(first, proven, now=self.discovery.node.now(), trust_age=self.trust.trust_age)
            if len(young) == len(first):  # nobody established yet (a new network or node): all alike
                young = frozenset()
            else:
                settled = frozenset(first.keys() - young) | proven
        changed = young != self.young or settled != self.settled or unproven != self.unproven
        self.young, self.settled, self.unproven = young, settled, unproven
        return changed

    def publish(self) -> None:
        ranker = self.discovery.directory.ranker
        if ranker is not None:
            priors = {peer: reputation_prior(s) for peer, s in self.standings.items()}
            for peer, value in trust_priors(self.young, self.trust).items():
                priors[peer] = priors.get(peer, 0.0) + value
            ranker.set_reputation(priors)
            ranker.set_reference(self.proven)  # what breadth is normal: measured on proven cards only
        self.discovery.reputation = self.standings
        self.discovery.young = self.young
        self.discovery.unproven = self.unproven
        self.discovery.spent = self.spent
        self.discovery.over_ceiling = self.over_ceiling
        self.discovery.unproven_left = self.left
        self.discovery.search.settled = self.settled
        self.discovery.search.proven = frozenset(self.proven)
        self.discovery.search.proven_since = {
            peer: int(1000 * t) for peer, t in self.first_done.items() if peer in self.proven
        }
        self.discovery.search.trusted = self.trusted
        self.discovery.search.young_penalty = self.trust.young_penalty


async def reputation_loop(book: ReputationBook) -> None:
    while True:
        with book.discovery.node.faults.boundary("reputation"):
            changed = book.update()
            if book.age() | book.expose() or changed:
                book.publish()
        await trio.sleep(INTERVAL)


__all__ = ["INTERVAL", "ReputationBook", "reputation_loop"]
