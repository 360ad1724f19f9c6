"""When a round of DHT stores is done: a quorum of each key's targets stored it, then a short grace.

A record put, a page put or a provide round sends each key to the ``K`` (20) closest peers a lookup found.
Waiting for every target made a round as long as its slowest target: under churn the targets that left
since the lookup cost the per-peer timeout (5 s), and a provide round retried them after 2 s and 4 s
(publish p50 22.9 s under 30 % churn at 5,000 simulated nodes, though the card was findable from its
first store at ~1 s). A key is findable once a few of its closest peers hold it, so a round is done once

- every key has :data:`QUORUM` (5 of 20) acknowledgements, or has no target left to hear from (each
  answered or gave up), whichever comes first for that key, and
- then the round's other requests had :func:`grace` to answer: a share of the round's time so far, so
  that live targets answering just after the quorum still count (their acknowledgements are reported)
  without waiting for the gone ones.

A round whose every target has been heard from ends at once. What is still in flight at the end was sent:
a live target stores it anyway; a key that lost targets is placed again by the publishing loop's next
pass. Used by the node (``ioa_p2p.node.net.kad_write``) and the simulator (``ioa_p2p.dht.sim.publish``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: Acknowledgements per key after which a round stops waiting for that key's other targets (of K = 20)
#: once the grace is over. A quarter: under 30 % churn a lookup's 20 candidates hold ~6-7 that left, and a
#: round of 18 keys waited for the timeouts in half the rounds with a quorum of 10 (some key had more
#: than 10 gone: simulated at 2,000, publish p50 7.2 s); live targets answering in the grace still count.
QUORUM = 5
#: Once every key has its quorum, the others get this share of the round's time so far, within bounds.
#: At least a second: a target reached by a dial answers up to 3 round trips after one on an open
#: connection (0.3 s with 50 ms links, more on long ones), and a round on open connections is short.
GRACE_SHARE = 0.5
GRACE_LOW, GRACE_HIGH = 1.0, 3.0


def grace(elapsed: float) -> float:
    """Seconds a round whose keys all reached their quorum after ``elapsed`` seconds still waits."""
    return min(GRACE_HIGH, max(GRACE_LOW, GRACE_SHARE * elapsed))


class StoreQuorum:
    """The acknowledgements of one round of stores: ``targets`` maps each key to the peers it is sent to."""

    __slots__ = ("_acks", "_need", "_pending")

    def __init__(self, targets: Mapping[bytes, Iterable[bytes]], quorum: int = QUORUM) -> None:
        if quorum < 1:
            raise ValueError("a store quorum is at least 1")
        self._pending = {key: set(peers) for key, peers in targets.items()}
        self._need = {key: min(quorum, len(peers)) for key, peers in self._pending.items()}
        self._acks = dict.fromkeys(self._pending, 0)

    def acked(self, peer: bytes, keys: Iterable[bytes]) -> None:
        """``peer`` acknowledged ``keys``."""
        for key in keys:
            pending = self._pending.get(key)
            if pending is not None and peer in pending:
                pending.discard(peer)
                self._acks[key] += 1

    def gave_up(self, peer: bytes, keys: Iterable[bytes]) -> None:
        """``peer`` will not be asked for ``keys`` again in this round (failed its last try)."""
        for key in keys:
            pending = self._pending.get(key)
            if pending is not None:
                pending.discard(peer)

    def stored(self, key: bytes) -> int:
        """Acknowledgements of ``key`` so far."""
        return self._acks.get(key, 0)

    @property
    def reached(self) -> bool:
        """Every key has its quorum or no target left to hear from."""
        return all(self._acks[k] >= self._need[k] or not p for k, p in self._pending.items())

    @property
    def settled(self) -> bool:
        """Every target of every key has been heard from (nothing to wait for)."""
        return not any(self._pending.values())


__all__ = ["GRACE_HIGH", "GRACE_LOW", "GRACE_SHARE", "QUORUM", "StoreQuorum", "grace"]
