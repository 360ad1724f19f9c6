"""How a joining node retries its bootstrap peers (pure decisions, no I/O).

A bootstrap node meets its joiners in bursts: an ``ioa node start --agents`` process opens 25-100 agents
within a minute or two, and several such processes start together. Measured (issue 26, docs/performance.md
"Joining a busy bootstrap node"): with two processes of 50 agents the second process's agents gave up their
first dials after 5 s ("no answer within 6.5-7.6 s": a single address's share of the dial's bound, read on
a loop busy with the other agents' start-up), warned at once that no bootstrap peer was reachable, and
retried every 0.5, 1, 2, 4 ... s from the same moment, all of them: each retry a new TCP connection and a
new Noise handshake for the bootstrap node, the abandoned ones included.

:class:`JoinBackoff` decides instead:

- the wait before the next dial: exponential with *decorrelated jitter* (a uniform draw between ``base``
  and three times the previous wait, at most ``cap``), so joiners that failed together spread out instead
  of retrying in lock-step; once the node already knows other peers (``seeded``: its routing table or
  connections hold peers besides the bootstrap, met through process-mates or peers that dialed it) the
  bootstrap is no longer what it waits for, and the waits grow to ``seeded_cap``;
- when a failure is worth a warning: only after ``patience`` seconds of trying without ever joining (a
  bootstrap node busy with other joiners answers late, which is not a fault to report), or, once joined,
  when the node lost every bootstrap peer and knows no other peer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JoinBackoff:
    """When a node dials its bootstrap peers again, and when their failures deserve a warning."""

    #: seconds: the shortest wait between two dials of one bootstrap peer
    base: float = 0.5
    #: seconds: the longest wait while the node knows no other peer
    cap: float = 30.0
    #: seconds: the longest wait once the node knows other peers (it is in the network without them)
    seeded_cap: float = 120.0
    #: seconds of trying, from the keeper's start, before an unreachable bootstrap is warned about
    patience: float = 60.0

    def next_delay(self, previous: float, rng: random.Random, *, seeded: bool = False) -> float:
        """The wait before the next dial after one that failed, ``previous`` being the wait before it
        (0 for the first): decorrelated jitter, between ``base`` and ``3 * previous``, at most the cap."""
        cap = max(self.cap, self.seeded_cap) if seeded else self.cap
        if self.base <= 0:
            return 0.0
        high = max(self.base, 3 * previous)
        return min(cap, rng.uniform(self.base, high))

    def should_warn(self, *, tried_for: float, joined: bool, seeded: bool) -> bool:
        """Whether a failed dial is worth a warning: never while other peers are known (the node is in
        the network); before joining, only after :attr:`patience` seconds of trying; once joined, at once
        (the node lost every bootstrap peer and every other peer)."""
        if seeded:
            return False
        return joined or tried_for >= self.patience


__all__ = ["JoinBackoff"]
