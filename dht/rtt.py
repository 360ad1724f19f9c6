"""How long to wait for a peer's answer before asking elsewhere, from the round trips measured (pure).

A card fetch asks each card's owner first and the DHT for the owners that have not answered within a
wait; a fixed wait (1 s) is too long on a quick network (every find whose owner is gone pays it) and too
short on a loaded one (every late owner costs a DHT lookup, which loads the network further).
:class:`RoundTrips` keeps the smoothed round trip and its variation the way TCP does (RFC 6298:
``srtt += (r - srtt) / 8``, ``rttvar += (|r - srtt| - rttvar) / 4``, the first sample sets ``srtt = r``,
``rttvar = r / 2``) and waits ``srtt + 4 * rttvar``, bounded by ``[low, high]``. Before any sample it
waits ``initial``. Each sample is bounded by ``high`` (a late answer says the wait was too short, not that
the next one should take a minute).

A lookup's hedge (``ioa_p2p.node.net.kad_io``, and the simulator) uses :class:`Hedges`: requests over an
open connection wait what their own round trips call for; a request that has to dial first is hedged in
two stages: until the dial's handshake is through (the peer answered Noise's first message: it is there),
the *reach* wait, from the handshakes measured; after it, the wait of a request on an open connection. A
peer that has gone never answers the handshake, so it is noticed after the reach wait (~2 round trips)
instead of after a whole dial and request's wait. :class:`Unreached` remembers the peers that missed
their reach wait or failed, for a while: later lookups still ask them (one may be back) but do not wait
for them (``Lookup(suspect=...)``).

Both are about peers that have **gone**, and a peer this node holds a connection to has not: a request
that failed over an open connection was reset or timed out by a **busy** peer. Such a peer is neither
noted nor suspected (:meth:`Unreached.failed`, :meth:`Unreached.suspects`), and a lookup whose first
candidates are all connected asks no spare (:meth:`Hedges.spare` with ``dialling=False``). Measured
(issue 25, d-n50c): 50 node processes on the 2-core box, every one connected to every other; their
start-up overloaded the box, requests failed, nearly every peer became a suspect that nobody waited for,
so each self-lookup asked 26 peers instead of 5 (each page, put and provide lookup likewise), and that
load kept requests failing: the idle network used 1.7-1.8 cores for as long as it ran (0.2-0.3 at
89883d3, before this module's churn rules).
"""

from __future__ import annotations

import math
from collections.abc import Hashable

#: Defaults of the owner-first wait of a card fetch (seconds).
LOW, HIGH, INITIAL = 0.15, 1.0, 1.0
#: Lower bound of the reach wait (seconds): a dial's handshake takes 2 round trips (TCP, Noise's first
#: exchange), so below it a live peer behind a 50 ms link would be suspected.
REACH_LOW = 0.2
#: How long a peer that missed its reach wait or failed stays suspected (seconds), and how many are kept.
SUSPECT_TTL = 120.0
SUSPECT_LIMIT = 4096
#: Share of recent dials that missed their reach wait from which a lookup asks one spare candidate per
#: key beyond ``ask`` (the stand-in of a peer that has gone is then already asked), and the weight of
#: each dial in that share (an exponential average over ~16 dials).
SPARE_FROM = 0.05
MISS_WEIGHT = 1 / 16
#: The share a node assumes before its own dials tell (an open network has churn until shown otherwise:
#: a node spares for its first ~25 dials, then only while peers keep missing).
MISS_PRIOR = 0.25
#: Round trips a dial's handshake takes (TCP's, then Noise's first exchange), and the handshakes a node
#: must have measured before its reach wait is its own alone: with fewer, the wait is at most what its
#: round trips over open connections call for :data:`REACH_RTTS` of them (:meth:`Hedges.reach_wait`).
REACH_RTTS = 2
REACH_OWN = 8


class RoundTrips:
    """Smoothed round trips and the wait they call for (see the module docstring)."""

    def __init__(self, *, low: float = LOW, high: float = HIGH, initial: float = INITIAL) -> None:
        if not 0 < low <= high or not low <= initial <= high:
            raise ValueError("RoundTrips needs 0 < low <= initial <= high")
        self.low, self.high, self.initial = low, high, initial
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.samples = 0

    def sample(self, seconds: float) -> None:
        """One measured round trip (a negative or non-finite value is ignored)."""
        if not math.isfinite(seconds) or seconds < 0:
            return
        r = min(seconds, self.high)
        if self.srtt is None:
            self.srtt, self.rttvar = r, r / 2
        else:
            self.rttvar += (abs(r - self.srtt) - self.rttvar) / 4
            self.srtt += (r - self.srtt) / 8
        self.samples += 1

    def wait(self) -> float:
        """Seconds to wait for an answer before asking elsewhere."""
        if self.srtt is None:
            return self.initial
        return min(self.high, max(self.low, self.srtt + 4 * self.rttvar))


class Hedges:
    """A lookup's hedge per kind of request: round trips to peers asked over an open connection and to
    peers that had to be dialled first are kept apart (a dial costs two round trips more), and each
    request waits what its own kind calls for (one estimator for both, as ``kad_io`` kept before
    2026-11-28, mixes them into a wait between the two). With ``reach`` (the node's lookups), a dialled
    request is hedged in two stages (module docstring): :meth:`reach_wait` until its handshake is through,
    then ``wait(True)``; ``dialled`` is then unused."""

    def __init__(
        self,
        *,
        low: float = LOW,
        high: float = HIGH,
        initial: float = INITIAL,
        reach: bool = False,
        reach_low: float = REACH_LOW,
    ) -> None:
        self.open = RoundTrips(low=low, high=high, initial=initial)
        self.dialled = RoundTrips(low=low, high=high, initial=initial)
        self.reach = RoundTrips(low=reach_low, high=high, initial=initial) if reach else None
        #: share of recent dials whose handshake missed the reach wait (peers gone: churn)
        self.missed = MISS_PRIOR

    @classmethod
    def shared(cls, *, low: float = LOW, high: float = HIGH, initial: float = INITIAL) -> Hedges:
        """One estimator for both kinds (what ``kad_io`` did before it told them apart)."""
        hedges = cls(low=low, high=high, initial=initial)
        hedges.dialled = hedges.open
        return hedges

    def fresh(self) -> Hedges:
        """The same kind of hedges without any sample (a restarted node's)."""
        rt = self.open
        if self.dialled is rt:
            return Hedges.shared(low=rt.low, high=rt.high, initial=rt.initial)
        reach = self.reach
        return Hedges(
            low=rt.low,
            high=rt.high,
            initial=rt.initial,
            reach=reach is not None,
            reach_low=REACH_LOW if reach is None else reach.low,
        )

    def wait(self, connected: bool) -> float:
        return (self.open if connected else self.dialled).wait()

    def sample(self, seconds: float, connected: bool) -> None:
        (self.open if connected else self.dialled).sample(seconds)

    def reach_wait(self) -> float | None:
        """Seconds a dialled request may take to get through its handshake before it is hedged (None:
        dialled requests are hedged as a whole, ``wait(False)``).

        A node that holds connections to most of its routing table dials rarely, so its own handshake
        estimate stays at ``initial`` or at its first samples' wide spread (RFC 6298 starts ``rttvar`` at
        half the first sample: 3 round trips of wait) while each gone peer costs that wait. Until
        :data:`REACH_OWN` handshakes were measured, the wait is therefore at most :data:`REACH_RTTS` times
        the smoothed round trip over open connections plus 4 spreads of that sum (the spread of a sum of
        ``n`` round trips grows as the square root of ``n``), within the reach floor and ``high``; after
        that, the handshakes measured decide alone (a loaded host whose handshakes cost CPU waits longer
        than its round trips say)."""
        reach = self.reach
        if reach is None:
            return None
        own = reach.wait()
        rt = self.open
        if reach.samples >= REACH_OWN or rt.srtt is None:
            return own
        derived = REACH_RTTS * rt.srtt + 4 * math.sqrt(REACH_RTTS) * rt.rttvar
        return min(own, max(reach.low, min(reach.high, derived)))

    def sample_reach(self, seconds: float) -> None:
        """One dial's handshake took ``seconds`` (no-op without ``reach``)."""
        if self.reach is not None:
            self.reach.sample(seconds)

    def note_dial(self, missed: bool) -> None:
        """A dial's handshake was through within its reach wait (``missed=False``) or not."""
        self.missed += ((1.0 if missed else 0.0) - self.missed) * MISS_WEIGHT

    def spare(self, *, dialling: bool = True) -> int:
        """Candidates a lookup asks per key beyond ``ask``: 1 once :data:`SPARE_FROM` of recent dials
        missed their reach wait (a network with churn), else 0 (no extra request without churn);
        0 as well when the lookup dials none of its first candidates (``dialling=False``: a connected
        peer has not gone, and a node that never dials keeps the churn prior :data:`MISS_PRIOR`)."""
        return 1 if dialling and self.reach is not None and self.missed >= SPARE_FROM else 0


class Unreached:
    """Peers recently not reached (a dial's handshake past its reach wait, or a failed request), each for
    ``ttl`` seconds, at most ``limit`` (the oldest forgotten first). Pure: the caller passes the time."""

    def __init__(self, *, ttl: float = SUSPECT_TTL, limit: int = SUSPECT_LIMIT) -> None:
        if ttl <= 0 or limit < 1:
            raise ValueError("Unreached needs ttl > 0 and limit >= 1")
        self.ttl, self.limit = ttl, limit
        self._until: dict[Hashable, float] = {}  # insertion-ordered: oldest note first

    def note(self, peer: Hashable, now: float) -> None:
        until = self._until
        until.pop(peer, None)
        until[peer] = now + self.ttl
        if len(until) > self.limit:
            del until[next(iter(until))]

    def failed(self, peer: Hashable, now: float, *, connected: bool) -> None:
        """A request to ``peer`` failed: noted unless this node holds a connection to it (then the peer
        is there and busy, not gone: module docstring)."""
        if not connected:
            self.note(peer, now)

    def suspects(self, peer: Hashable, now: float, *, connected: bool) -> bool:
        """Whether a lookup should ask ``peer`` without waiting for it: noted and not connected now (a
        noted peer that is connected again is back)."""
        return not connected and self.holds(peer, now)

    def clear(self, peer: Hashable) -> None:
        """``peer`` answered: no longer suspected."""
        self._until.pop(peer, None)

    def holds(self, peer: Hashable, now: float) -> bool:
        until = self._until.get(peer)
        if until is None:
            return False
        if until <= now:
            del self._until[peer]
            return False
        return True

    def __len__(self) -> int:
        return len(self._until)


__all__ = [
    "HIGH",
    "INITIAL",
    "LOW",
    "MISS_PRIOR",
    "MISS_WEIGHT",
    "REACH_LOW",
    "REACH_OWN",
    "REACH_RTTS",
    "SPARE_FROM",
    "SUSPECT_LIMIT",
    "SUSPECT_TTL",
    "Hedges",
    "RoundTrips",
    "Unreached",
]
