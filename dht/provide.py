"""Pacing of provider announcements (pure): py-libp2p refuses more than 10 ADD_PROVIDER per 10 s from one
peer (it resets the stream, losing the rest of the batch), so a node that provides many keys to the same
peers must spread them out.

:class:`ProvidePacer` remembers, per target peer, when each recent ADD_PROVIDER was sent, and says how many
more may go now (:data:`PER_WINDOW` per :data:`WINDOW` seconds, under the library's limit) and when the next
one may. :func:`assign` turns "key -> the peers to store it at" into "peer -> its keys". The driver (the
node's DHT layer or a simulator) sends what :meth:`ProvidePacer.take` allows, sleeps until
:meth:`ProvidePacer.next_free`, and repeats until every (peer, key) went out or its deadline passed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

#: ADD_PROVIDER messages sent to one peer per window at most (py-libp2p accepts 10 per 10 s).
PER_WINDOW = 9
#: The window, seconds (a little longer than the library's 10 s: clocks and delivery differ).
WINDOW = 11.0
#: Peers whose history is kept at most (the oldest are forgotten first).
MAX_PEERS = 4096


class ProvidePacer:
    """Per-peer sending history (times in seconds on the caller's clock)."""

    def __init__(self, per_window: int = PER_WINDOW, window: float = WINDOW) -> None:
        self.per_window, self.window = per_window, window
        self._sent: dict[bytes, deque[float]] = {}

    def _history(self, peer: bytes, now: float) -> deque[float]:
        sent = self._sent.get(peer)
        if sent is None:
            if len(self._sent) >= MAX_PEERS:
                self._sent.pop(next(iter(self._sent)))
            sent = self._sent[peer] = deque()
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        return sent

    def allowed(self, peer: bytes, now: float) -> int:
        """How many ADD_PROVIDER may go to ``peer`` now."""
        return max(0, self.per_window - len(self._history(peer, now)))

    def take(self, peer: bytes, wanted: int, now: float) -> int:
        """Record that up to ``wanted`` messages go to ``peer`` now; returns how many may."""
        count = min(wanted, self.allowed(peer, now))
        self._history(peer, now).extend([now] * count)
        return count

    def next_free(self, peer: bytes, now: float) -> float:
        """When the next message to ``peer`` may go (``now`` when one may go already)."""
        sent = self._history(peer, now)
        return now if len(sent) < self.per_window else sent[0] + self.window


def assign(targets: Mapping[bytes, Iterable[bytes]]) -> dict[bytes, list[bytes]]:
    """``key -> peers`` as ``peer -> keys`` (keys in the given order)."""
    plan: dict[bytes, list[bytes]] = {}
    for key, peers in targets.items():
        for peer in peers:
            plan.setdefault(peer, []).append(key)
    return plan


__all__ = ["MAX_PEERS", "PER_WINDOW", "WINDOW", "ProvidePacer", "assign"]
