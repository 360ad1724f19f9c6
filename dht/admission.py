"""Rate limits on what strangers may make this node store (pure: callers pass the time, in seconds).

Identities are free, so every limit holds per source *and* in total (:class:`~ioa_p2p.budget.RateBudget`:
one token bucket per key and one for everyone):

- :attr:`CardAdmission.new_cards`: cards (or withdrawals) of identities this node holds nothing of, in
  total per minute;
- :attr:`CardAdmission.updates`: new versions of one identity's record per hour (an honest node issues one
  per ``republish`` interval, 6 an hour by default), and in total;
- :attr:`CardAdmission.providers`: provider records (ADD_PROVIDER) stored for one provider per ten minutes
  (a card has 2 to 26 bucket keys, each sent once per refresh), and in total per minute.

A node keeps one :class:`CardAdmission` for the DHT records it stores for others and one for the gossip
announcements it applies to its directory. What is refused is not stored; the sender (or the gossip
publisher) may try again later, and an honest card refused by gossip is still found through the DHT. The
node's own records are never limited. The limits come from ``[discovery]``
(:class:`~ioa_p2p.dht.settings.DiscoverySettings`): ``new_cards`` (per minute, default 120) and
``updates`` (per identity and hour, default 30).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ioa_p2p.budget import RateBudget

#: Provider records of one provider per 10 minutes, and of everyone per minute.
PROVIDERS_PER_PEER = 64
PROVIDERS_TOTAL = 1200


class CardAdmission:
    """The rate limits of one node (see the module docstring)."""

    def __init__(self, *, new_cards: int = 120, updates: int = 30, me: Hashable | None = None) -> None:
        self.me = me
        self.new_cards = RateBudget("new cards", period=60.0, per_key=1, total=new_cards)
        self.updates = RateBudget(
            "card updates", period=3600.0, per_key=updates, total=max(updates, 60 * new_cards)
        )
        self.providers = RateBudget(
            "provider records", period=600.0, per_key=PROVIDERS_PER_PEER, total=10 * PROVIDERS_TOTAL
        )

    def admit_card(self, peer: Hashable, *, known: bool, now: float) -> bool:
        """May a record (card or withdrawal) of ``peer`` be stored? ``known``: we hold a record of it."""
        if peer == self.me:
            return True
        if not known:
            return self.new_cards.take(peer, 1, now)
        return self.updates.take(peer, 1, now)

    def admit_provider(self, peer: Hashable, now: float) -> bool:
        """May one more provider record of ``peer`` be stored?"""
        return peer == self.me or self.providers.take(peer, 1, now)

    def snapshot(self) -> dict[str, Any]:
        return {
            "new_cards": self.new_cards.snapshot(),
            "updates": self.updates.snapshot(),
            "providers": self.providers.snapshot(),
        }


__all__ = ["PROVIDERS_PER_PEER", "PROVIDERS_TOTAL", "CardAdmission"]
