"""When a node looks up peers and which peers it stays connected to (pure decisions, no I/O).

:class:`RefreshPolicy` paces the node's peer discovery (``ioa_p2p.node.net.routing.run_peer_discovery``: a
lookup of its own key, then dials until ``target_peers`` connections): every ``fast`` seconds while the
routing table or the connection set still grows, doubling up to ``slow`` once nothing changes; a full
per-bucket refresh only at the slow pace. The simulator (:mod:`ioa_p2p.dht.sim`) follows the same rules.
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

    def next_delay(self, delay: float, grew: bool) -> float:
        """``fast`` after a round that found new peers or connections, else twice the last delay, capped."""
        return self.fast if grew else min(max(delay, self.fast) * 2, self.slow)

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
