"""When a node looks up peers and which peers it stays connected to (pure decisions, no I/O).

:class:`RefreshPolicy` paces the node's peer discovery (``ioa_p2p.node.net.routing.run_peer_discovery``: a
lookup of its own key, then dials until ``target_peers`` connections): every ``fast`` seconds while the
routing table or the connection set still grows, doubling up to ``slow`` once nothing changes; a full
per-bucket refresh only at the slow pace, and at most every :data:`ISOLATED_MAX` seconds while the routing
table holds fewer than :data:`ISOLATED` peers (a node that knows only its bootstrap peer has not joined yet:
at N = 100 processes the bootstrap node, overloaded at start, answered no lookup for minutes, and every
agent had slowed its lookups to ``slow`` by then). The simulator (:mod:`ioa_p2p.dht.sim`) follows the same
rules.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence, Set
from dataclasses import dataclass
from typing import TypeVar

P = TypeVar("P", bound=Hashable)

#: Below this many peers in its routing table (and below ``target_peers``), a node is not yet part of the
#: network, and its lookups never slow down past :data:`ISOLATED_MAX` seconds (a lookup over so few
#: peers costs a few requests).
ISOLATED = 4
ISOLATED_MAX = 30.0


@dataclass(frozen=True, slots=True)
class RefreshPolicy:
    """When to look up peers and how many to stay connected to (pure decisions, no I/O)."""

    fast: float = 1.0
    slow: float = 60.0
    target_peers: int = 16

    def next_delay(self, delay: float, grew: bool, table_size: int | None = None) -> float:
        """``fast`` after a round that found new peers or connections, else twice the last delay, capped at
        ``slow``, or at :data:`ISOLATED_MAX` while the routing table (``table_size``) is that small."""
        if grew:
            return self.fast
        isolated = table_size is not None and table_size < min(ISOLATED, max(1, self.target_peers))
        return min(max(delay, self.fast) * 2, min(self.slow, ISOLATED_MAX) if isolated else self.slow)

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


__all__ = ["ISOLATED", "ISOLATED_MAX", "RefreshPolicy"]
