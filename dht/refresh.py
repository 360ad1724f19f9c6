"""When a node looks up peers and which peers it stays connected to (pure decisions, no I/O).

:class:`RefreshPolicy` paces the node's peer discovery (``ioa_p2p.node.net.routing.run_peer_discovery``: a
lookup of its own key, then dials until ``target_peers`` connections): every ``fast`` seconds while the
routing table or the connection set still grows, doubling up to ``slow`` once nothing changes; a full
per-bucket refresh only at the slow pace. The simulator (:mod:`ioa_p2p.dht.sim`) follows the same rules.

A round that changed nothing means the network settled only for a node that holds connections: one with
fewer than ``low_peers`` (at most ``target_peers``) has not joined yet, or lost its neighbours, and its
lookups that found nothing had failed (timed out behind busy peers, answered by a bootstrap node that
did not know the network yet). Its pace doubles only up to ``short_max`` (go-libp2p-kad-dht does the same
below ``minRTRefreshThreshold``). Measured (issue 26): with the pace doubling to ``slow`` regardless, the
last agents to start in a process of 25 looked up 3-4 times in their first minute, found nothing while
the others' start-up work kept the loop busy, and then waited 64 s, 128 s, ... for their next lookup,
holding one connection (their bootstrap) and their own card for minutes.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence, Set
from dataclasses import dataclass
from typing import TypeVar

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True, slots=True)
class RefreshPolicy:
    """When to look up peers and how many to stay connected to (pure decisions, no I/O)."""

    fast: float = 1.0
    slow: float = 60.0
    target_peers: int = 16
    #: below this many connections (or ``target_peers``, if fewer) the node has not joined: see above
    low_peers: int = 4
    #: the longest wait between rounds while the node holds fewer than ``low_peers`` connections
    short_max: float = 10.0

    def next_delay(self, delay: float, grew: bool, connected: int | None = None) -> float:
        """``fast`` after a round that found new peers or connections, else twice the last delay, capped
        at ``slow``, or at ``short_max`` while ``connected`` (the connections held; None: not known) is
        below ``low_peers``."""
        if grew:
            return self.fast
        most = self.slow
        if connected is not None and connected < min(self.low_peers, self.target_peers):
            most = min(most, self.short_max)
        return min(max(delay, self.fast) * 2, most)

    def full_refresh(self, delay: float) -> bool:
        """A per-bucket refresh is due only once the network has settled (the slow pace)."""
        return delay >= self.slow

    def peers_to_dial(self, by_distance: Sequence[P], connected: Set[P], rng: random.Random) -> list[P]:
        """Peers to dial to reach ``target_peers``: the closest half first, then random others."""
        wanted = self.target_peers - len(connected)
        if wanted <= 0:
            return []
        half = self.target_peers // 2
        closest = [p for p in by_distance[:half] if p not in connected][:wanted]
        others = [p for p in by_distance[half:] if p not in connected]
        rng.shuffle(others)
        return closest + others[: wanted - len(closest)]


__all__ = ["RefreshPolicy"]
