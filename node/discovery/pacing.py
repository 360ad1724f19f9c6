"""When discovery announces and re-publishes (pure decisions; times in seconds, clocks passed in)."""

from __future__ import annotations

import math
import time

from ioa_p2p.dht.settings import DEFAULT_TTL

#: After a new peer subscribes to the card topic, wait this long before re-announcing (batches joins);
#: the wait doubles after each such re-announcement (see :class:`AnnouncePacer`).
ANNOUNCE_MIN_INTERVAL = 3.0


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class AnnouncePacer:
    """When to re-announce our card because more peers subscribed (pure; times in seconds)."""

    def __init__(self, first: float = ANNOUNCE_MIN_INTERVAL, most: float = DEFAULT_TTL / 3) -> None:
        self.gap, self.most = first, most
        self.peers_at_last = 0
        self.last_at = -math.inf

    def announced(self, peers: int, now: float) -> None:
        """Any announcement (start, new version) reached the ``peers`` subscribed now."""
        self.peers_at_last = max(self.peers_at_last, peers)
        self.last_at = now

    def due(self, peers: int, now: float) -> bool:
        """More peers than at the last announcement, and the current gap has passed."""
        return peers > self.peers_at_last and now - self.last_at >= self.gap

    def reannounced(self, peers: int, now: float) -> None:
        self.announced(peers, now)
        self.gap = min(self.gap * 2, self.most)


def grew_enough(size: int, published_at: int) -> bool:
    """The routing table grew enough since we last published that other peers may now be closest
    to our keys (it at least doubled, e.g. from empty): worth publishing again."""
    return size > published_at and size >= 2 * published_at


__all__ = ["ANNOUNCE_MIN_INTERVAL", "AnnouncePacer", "grew_enough", "now_ms"]
