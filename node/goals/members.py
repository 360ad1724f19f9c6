"""Who an agent is, as this node knows it: the signed card of a peer, its name, what a brain sees of it.

:class:`Members` answers from discovery's directory of verified cards (this node's own card for itself,
or its adapter's description when discovery is off); :meth:`Members.team_info` fetches the cards it
lacks from the DHT first, bounded by :data:`CARD_FETCH_TIMEOUT`. An agent whose card is unknown is
``agent-<last 6 characters of its peer ID>``. Team formation, the chat drivers and task running all read
names through it; none of them asks the goals service.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import trio

from ioa_p2p.adapters import AdapterCard
from ioa_p2p.card import SignedCard
from ioa_p2p.conversation.brains.base import MemberInfo
from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.goals")

#: Seconds a turn waits at most for the DHT to return the cards of members it does not hold.
CARD_FETCH_TIMEOUT = 3.0


class Members:
    """The agents this node knows, by peer ID text (see the module docstring)."""

    def __init__(self, node: NodePort, discovery: Discovery | None, own_card: AdapterCard | None) -> None:
        self.node = node
        self.discovery = discovery
        self.own_card = own_card  # this node's adapter's description (the card without discovery)
        self.me = str(node.peer_id)

    def card_of(self, peer: str) -> SignedCard | None:
        """The signed card of ``peer`` this node holds (None when unknown or discovery is off)."""
        discovery = self.discovery
        if discovery is None:
            return None
        if peer == self.me:
            return discovery.card
        try:
            return discovery.directory.get(PeerId.from_string(peer), int(self.node.now() * 1000))
        except IoAError:
            return None

    def member_info(self, peer: str) -> MemberInfo:
        """What a brain knows of ``peer``: its card's fields, or a placeholder named after its peer ID."""
        card = self.card_of(peer)
        if card is not None:
            return MemberInfo.from_card(card.card)
        if peer == self.me and self.own_card is not None:
            c = self.own_card
            return MemberInfo(peer, c.name, c.description, c.skills, True, tuple(c.task_types))
        return MemberInfo(peer, f"agent-{peer[-6:]}")

    def name_of(self, peer: str) -> str:
        """The card name of ``peer`` (``agent-<suffix>`` when this node holds no card of it)."""
        return self.member_info(peer).name

    def names(self, peers: Sequence[str]) -> dict[str, str]:
        """``{peer: name}`` for ``peers``."""
        return {p: self.name_of(p) for p in peers}

    async def team_info(self, members: Sequence[str]) -> list[MemberInfo]:
        """Cards of the members (missing ones fetched from the DHT, at most :data:`CARD_FETCH_TIMEOUT`)."""
        discovery = self.discovery
        missing = [m for m in members if m != self.me and self.card_of(m) is None]
        if discovery is not None and missing:
            with trio.move_on_after(CARD_FETCH_TIMEOUT):
                try:
                    await discovery.fetch_cards([PeerId.from_string(m) for m in missing])
                except IoAError as exc:
                    log.debug("fetching member cards failed: %s", exc)
        return [self.member_info(m) for m in members]


__all__ = ["CARD_FETCH_TIMEOUT", "Members"]
