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

from ioa_p2p.dht.keyspace import K

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
    """The acknowledgements of one round of stores: ``targets`` maps each key to the peers it is sent to.

    ``final=False``: the targets are not all known yet (stores sent while the lookup still runs,
    :mod:`~ioa_p2p.dht.early`): :meth:`add` more, then :meth:`finalise`; until then a key counts as placed
    only with a full :data:`QUORUM` of acknowledgements, and the round is never :attr:`reached`."""

    __slots__ = ("_acks", "_final", "_pending", "_quorum", "_targets")

    def __init__(
        self, targets: Mapping[bytes, Iterable[bytes]], quorum: int = QUORUM, *, final: bool = True
    ) -> None:
        if quorum < 1:
            raise ValueError("a store quorum is at least 1")
        self._quorum, self._final = quorum, final
        self._targets = {key: set(peers) for key, peers in targets.items()}
        self._pending = {key: set(peers) for key, peers in self._targets.items()}
        self._acks = dict.fromkeys(self._pending, 0)

    def add(self, key: bytes, peers: Iterable[bytes]) -> None:
        """More targets of ``key`` (peers already targeted are not counted twice)."""
        targets = self._targets.setdefault(key, set())
        pending = self._pending.setdefault(key, set())
        self._acks.setdefault(key, 0)
        for peer in peers:
            if peer not in targets:
                targets.add(peer)
                pending.add(peer)

    def finalise(self, targets: Mapping[bytes, Iterable[bytes]] = {}) -> None:  # noqa: B006 (read only)
        """Every target is known: ``targets`` are the last ones added."""
        for key, peers in targets.items():
            self.add(key, peers)
        self._final = True

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
    def final(self) -> bool:
        return self._final

    @property
    def placed(self) -> bool:
        """Every key has its quorum of acknowledgements (or, once the targets are final, as many as it
        has targets, or no target left to hear from): the record is findable at its closest peers."""
        if not self._final:
            return all(acks >= self._quorum for acks in self._acks.values())
        return all(
            self._acks[k] >= min(self._quorum, len(self._targets[k])) or not p
            for k, p in self._pending.items()
        )

    @property
    def reached(self) -> bool:
        """The targets are final and every key has its quorum or no target left to hear from."""
        return self._final and self.placed

    @property
    def settled(self) -> bool:
        """The targets are final and every target of every key has been heard from (nothing to wait
        for)."""
        return self._final and not any(self._pending.values())


def round_target(keys: int, table: int) -> int:
    """The acknowledgements a provide or page round of ``keys`` that went well gets, with ``table`` peers
    in the routing table: a quorum of each key's targets, not all ``K`` of them (the round ends once
    every key has its quorum and a grace has passed). Measured against ``K`` per key, a round that met
    its quorum on a busy machine (a few more answers in the grace) looked like one that "reached fewer
    than half the peers it should" and was run again after 10, 20, 40, ... s: 100 agents in one process
    re-put their pages for good, each round a lookup and ~20 stores per key (py-spy: the process's DHT
    page stores took 22-38 % of its loop 8 minutes after start; issue 26). The node's publishing loop
    and the simulator both judge a round by it (``PublishPolicy.provide_finished``)."""
    return keys * min(QUORUM, K, table)


__all__ = ["GRACE_HIGH", "GRACE_LOW", "GRACE_SHARE", "QUORUM", "StoreQuorum", "grace", "round_target"]
