"""Keeping discovery's ranking in step with the local reputation of agents (the goals service's task).

Every :data:`INTERVAL` seconds, the chats this node holds whose histories grew are read again
(:func:`~ioa_p2p.conversation.reputation.chat_outcomes`: verified, signed evidence only), the standings are
merged, and the ranker gets each agent's reputation prior
(:meth:`~ioa_p2p.dht.ranking.CardRanker.set_reputation`): a member that failed tasks or was rejected ranks
lower in the next ``find`` and team formation, one that delivered a little higher. Histories are read at
start too, so reputation survives restarts (it lives in the chat store, not in a file of its own). The
members of this node's chats are pinned in the directory (kept past ``[discovery] keep_all``).
"""

from __future__ import annotations

import logging

import trio

from ioa_p2p.conversation.reputation import Standing, chat_outcomes, merge, reputation_prior
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.discovery import Discovery

log = logging.getLogger("ioa_p2p.goals")

INTERVAL = 10.0


class ReputationBook:
    """Standings per chat (recomputed when a chat's history grew) and their merge."""

    def __init__(self, chats: Chats, discovery: Discovery) -> None:
        self.chats, self.discovery = chats, discovery
        self._per_chat: dict[bytes, tuple[int, dict[str, Standing]]] = {}
        self.standings: dict[str, Standing] = {}

    def update(self) -> bool:
        """Read the chats that changed; True when some standing changed."""
        me = self.discovery.node.peer_id
        changed = False
        for chat_id in self.chats.member_chats():
            history = self.chats.history(chat_id)
            known = self._per_chat.get(chat_id)
            if known is not None and known[0] == len(history):
                continue
            self._per_chat[chat_id] = (len(history), chat_outcomes(history, me))
            changed = True
        if changed:
            self.standings = merge(outcomes for _, outcomes in self._per_chat.values())
            self._pin_members()
        return changed

    def _pin_members(self) -> None:
        """The members of this node's chats keep their cards in a directory past its ``keep_all``."""
        members: set[PeerId] = set()
        for chat_id in self.chats.member_chats():
            members.update(self.chats.get(chat_id).members())
        self.discovery.directory.pin(frozenset(members))

    def publish(self) -> None:
        ranker = self.discovery.directory.ranker
        if ranker is not None:
            ranker.set_reputation({peer: reputation_prior(s) for peer, s in self.standings.items()})
        self.discovery.reputation = self.standings


async def reputation_loop(book: ReputationBook) -> None:
    while True:
        with book.discovery.node.faults.boundary("reputation"):
            if book.update():
                book.publish()
        await trio.sleep(INTERVAL)


__all__ = ["INTERVAL", "ReputationBook", "reputation_loop"]
