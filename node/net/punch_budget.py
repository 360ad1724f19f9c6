"""When this node may try to hole punch a peer again (pure; :class:`~ioa_p2p.node.net.punch.HolePuncher`).

py-libp2p allows 3 DCUtR attempts per peer and gives them back only when a connection to the peer closes:
on a node up for days, a peer whose first 3 attempts failed (a busy machine, NAT mappings not yet settled)
is never punched again while its relayed connection lives. Our policy instead: a *burst* of
:data:`BURST` attempts; after a burst without success the peer rests for a cooldown (:data:`COOLDOWN_FIRST`
seconds, doubled after each failed burst up to :data:`COOLDOWN_MOST`), then gets a new burst; a success
forgets the peer's failures. At most :data:`MAX_PEERS` peers are remembered (the oldest is forgotten).

The clock is the caller's (trio's, in seconds).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

#: Attempts in a row before a pause (py-libp2p's ``MAX_HOLE_PUNCH_ATTEMPTS``, per the DCUtR spec).
BURST = 3
#: The pause after the first burst that failed (seconds); each further failed burst doubles it.
COOLDOWN_FIRST = 10.0
COOLDOWN_MOST = 300.0
#: Peers whose attempts are remembered at most.
MAX_PEERS = 1024


@dataclass(slots=True)
class _Record:
    failed: int = 0  # failed attempts in the current burst
    bursts: int = 0  # failed bursts since the last success
    resting_until: float = 0.0


class PunchBudget:
    """Per-peer attempt budget: bursts of :data:`BURST`, cooldowns between failed bursts."""

    def __init__(
        self, *, burst: int = BURST, cooldown: float = COOLDOWN_FIRST, most: float = COOLDOWN_MOST
    ) -> None:
        self.burst = burst
        self.cooldown = cooldown
        self.most = most
        self._peers: OrderedDict[Hashable, _Record] = OrderedDict()
        self.rests = 0  # failed bursts so far (all peers)

    def may_try(self, peer: Hashable, now: float) -> bool:
        """Whether an attempt with ``peer`` may start at ``now``."""
        record = self._peers.get(peer)
        return record is None or now >= record.resting_until

    def record(self, peer: Hashable, ok: bool, now: float) -> None:
        """An attempt with ``peer`` ended at ``now`` (``ok``: it made a direct connection)."""
        if ok:
            self._peers.pop(peer, None)
            return
        record = self._peers.pop(peer, None) or _Record()
        self._peers[peer] = record  # the most recent last
        record.failed += 1
        if record.failed >= self.burst:
            record.resting_until = now + min(self.most, self.cooldown * 2**record.bursts)
            record.failed, record.bursts = 0, record.bursts + 1
            self.rests += 1
        while len(self._peers) > MAX_PEERS:
            self._peers.popitem(last=False)

    def resting(self, now: float) -> int:
        """Peers in a cooldown at ``now``."""
        return sum(now < r.resting_until for r in self._peers.values())


__all__ = ["BURST", "COOLDOWN_FIRST", "COOLDOWN_MOST", "MAX_PEERS", "PunchBudget"]
