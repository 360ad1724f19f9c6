"""The peers this node worked with (its *partners*), and what that earns them.

A peer becomes a partner when this node creates a chat with it or posts a message to a chat it is a
member of: work this node chose to do with it. Being invited, however often, does not make a peer
a partner (identities are free; invitations cost nothing). Peers on ``[chats] invite_allowlist``
count as partners. Partners are persisted in the store's ``partners`` table.

What it earns them: the node's budgets trust them (``NodeBudgets.trust``: a reserved share of every
node-wide total, shed last, a larger CPU budget); their invitations are not counted in the cap on
chats joined by strangers' invitations (``[chats] max_stranger_chats``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ioa_p2p.budget import TRUST_PARTNER, TRUST_STRANGER
from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.store import ChatStore

log = logging.getLogger("ioa_p2p.chats")


class Partners:
    """The partner set of one chat service (in memory, mirrored in the store)."""

    def __init__(self, store: ChatStore, allowlist: Iterable[PeerId] = ()) -> None:
        self.store = store
        self.allowlist = frozenset(allowlist)
        self._peers: set[PeerId] = set()
        for raw in store.partners():
            try:
                self._peers.add(PeerId.from_bytes(raw))
            except InvalidPeerId:  # a damaged row: that peer is simply not a partner
                log.warning("ignoring an unreadable partner row in %s", store.path)

    def __contains__(self, peer: object) -> bool:
        return peer in self._peers or peer in self.allowlist

    def __len__(self) -> int:
        return len(self._peers)

    def add(self, peers: Iterable[PeerId], now_ms: int) -> None:
        """``peers`` are partners from now on (persisted; already known ones cost nothing)."""
        new = [p for p in peers if p not in self._peers]
        if new:
            self.store.add_partners(new, now_ms)
            self._peers.update(new)

    def trust(self, peer: PeerId) -> int:
        """The voucher of the node's budgets: partners are trusted."""
        return TRUST_PARTNER if peer in self else TRUST_STRANGER


__all__ = ["Partners"]
