"""Routing-table contacts that failed: hidden at once, replaced after a second failure or a grace (pure).

A node's routing table learns peers from its connections and from answers, and py-libp2p's table never
forgets one that left: a node that had gone stayed in every table that held it, was handed out in
answers, and every lookup that asked it waited for it (issue 25: at 10,000 simulated nodes under 30 %
churn, 30 % of the table entries named a node that was offline; docs/performance.md, "Eleventh pass").
The node now tells the failures of a contact apart from its own doing and applies Kademlia's rule (a
contact that fails is replaced; one that keeps answering is kept, however old):

- a connection the **remote** ended (its end of stream, a reset, its GO_AWAY), with no other connection
  to that peer left, is one *failure* of the contact; so is a dial or request that failed without a
  connection. The node's **own** closes (shutting down, its connection limits, a write it gave up) are
  no failure: the peer did nothing wrong;
- a contact with a failure is *stale*: the node's lookups ask it without waiting for it, its answers no
  longer name it (so other nodes do not wait for it either), and it moves to the least recently seen end
  of its bucket (the first one the full-bucket rule replaces);
- a stale contact is **evicted** from the table at :data:`EVICT_AFTER` failures (a remote close, then a
  dial that failed), or once :data:`GRACE` seconds passed after its first failure without a sign of life;
- any sign of life (a connection opened, an answer, a request served) clears it: it is a contact as
  before, its place kept (a peer that only dropped one connection loses nothing but its stale moment).

:class:`StaleContacts` keeps the stale contacts (at most ``limit``: past it, the oldest is due at once);
the caller passes the time, acts on the verdicts (``node/net/stale_contacts.py`` on py-libp2p's table,
``dht/sim`` on :class:`~ioa_p2p.dht.kbuckets.RoutingTable`) and asks :meth:`StaleContacts.due` for the
contacts whose grace ran out.
"""

from __future__ import annotations

from collections.abc import Hashable, KeysView
from typing import Generic, Literal, TypeVar

#: Failures of a contact without a sign of life between them at which it is evicted.
EVICT_AFTER = 2
#: Seconds after its first failure a stale contact not heard from is evicted (a peer that restarts
#: dials its table again well within this; one that closed a connection to spare it is re-learned
#: from answers if it was not heard meanwhile).
GRACE = 30.0
#: Stale contacts kept at most (one node's table holds at most 256 x 20 = 5,120 peers).
LIMIT = 8192

Verdict = Literal["stale", "evict"]
STALE: Verdict = "stale"
EVICT: Verdict = "evict"
P = TypeVar("P", bound=Hashable)


class StaleContacts(Generic[P]):
    """The stale contacts of one routing table (see the module docstring). Pure: the caller passes the
    time; peers are any hashable ID (bytes in the simulator and the node)."""

    __slots__ = ("grace", "evict_after", "limit", "_stale", "_overdue")

    def __init__(self, *, grace: float = GRACE, evict_after: int = EVICT_AFTER, limit: int = LIMIT) -> None:
        if grace <= 0 or evict_after < 1 or limit < 1:
            raise ValueError("StaleContacts needs grace > 0, evict_after >= 1 and limit >= 1")
        self.grace, self.evict_after, self.limit = grace, evict_after, limit
        #: peer -> [time of its first failure, failures]; insertion order = order of first failures
        self._stale: dict[P, list[float]] = {}
        self._overdue: list[P] = []  # pushed out by the limit: evicted at the next due()

    def failed(self, peer: P, now: float) -> Verdict:
        """One failure of ``peer`` (the remote ended its last connection, or a dial or request without a
        connection failed): :data:`EVICT` at :attr:`evict_after` failures (it is forgotten here), else
        :data:`STALE`."""
        entry = self._stale.get(peer)
        if entry is None:
            entry = self._stale[peer] = [now, 0.0]
            if len(self._stale) > self.limit:
                oldest = next(iter(self._stale))
                del self._stale[oldest]
                self._overdue.append(oldest)
        entry[1] += 1
        if entry[1] >= self.evict_after:
            self._stale.pop(peer, None)
            return EVICT
        return STALE

    def heard(self, peer: P) -> bool:
        """A sign of life from ``peer``: no longer stale. True when it was."""
        return self._stale.pop(peer, None) is not None if self._stale else False

    def due(self, now: float) -> list[P]:
        """The stale contacts whose grace ran out by ``now`` (and any the limit pushed out), forgotten
        here: the caller evicts them."""
        out, self._overdue = self._overdue, []
        stale, grace = self._stale, self.grace
        while stale:
            peer = next(iter(stale))
            if stale[peer][0] + grace > now:  # the sum next_due() gives: never due there and not here
                break
            del stale[peer]
            out.append(peer)
        return out

    def next_due(self) -> float | None:
        """When the next stale contact's grace runs out (None: nothing is stale)."""
        if self._overdue:
            return -float("inf")
        for first, _ in self._stale.values():
            return first + self.grace
        return None

    @property
    def peers(self) -> KeysView[P]:
        """The stale contacts (a live view: fast membership tests, e.g. to leave them out of answers)."""
        return self._stale.keys()

    def __contains__(self, peer: object) -> bool:
        return peer in self._stale

    def __len__(self) -> int:
        return len(self._stale)


__all__ = ["EVICT", "EVICT_AFTER", "GRACE", "LIMIT", "STALE", "StaleContacts", "Verdict"]
