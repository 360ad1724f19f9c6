"""How long to wait for a peer's answer before asking elsewhere, from the round trips measured (pure).

A card fetch asks each card's owner first and the DHT for the owners that have not answered within a
wait; a fixed wait (1 s) is too long on a quick network (every find whose owner is gone pays it) and too
short on a loaded one (every late owner costs a DHT lookup, which loads the network further).
:class:`RoundTrips` keeps the smoothed round trip and its variation the way TCP does (RFC 6298:
``srtt += (r - srtt) / 8``, ``rttvar += (|r - srtt| - rttvar) / 4``, the first sample sets ``srtt = r``,
``rttvar = r / 2``) and waits ``srtt + 4 * rttvar``, bounded by ``[low, high]``. Before any sample it
waits ``initial``. Each sample is bounded by ``high`` (a late answer says the wait was too short, not that
the next one should take a minute).
"""

from __future__ import annotations

import math

#: Defaults of the owner-first wait of a card fetch (seconds).
LOW, HIGH, INITIAL = 0.15, 1.0, 1.0


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
    peers that had to be dialled first are kept apart (a dial costs three round trips more), and each
    request waits what its own kind calls for (one estimator for both, as ``kad_io`` keeps, mixes them
    into a wait between the two). Measured in the simulator only, not used by the node: it saves a
    quarter of a lookup's requests without churn and does not shorten lookups under churn
    (docs/performance.md, "Discovery at 1,000 to 10,000 nodes, simulated")."""

    def __init__(self, *, low: float = LOW, high: float = HIGH, initial: float = INITIAL) -> None:
        self.open = RoundTrips(low=low, high=high, initial=initial)
        self.dialled = RoundTrips(low=low, high=high, initial=initial)

    @classmethod
    def shared(cls, *, low: float = LOW, high: float = HIGH, initial: float = INITIAL) -> Hedges:
        """One estimator for both kinds (what ``kad_io`` did before it told them apart)."""
        hedges = cls(low=low, high=high, initial=initial)
        hedges.dialled = hedges.open
        return hedges

    def fresh(self) -> Hedges:
        """The same kind of hedges without any sample (a restarted node's)."""
        rt = self.open
        make = Hedges.shared if self.dialled is rt else Hedges
        return make(low=rt.low, high=rt.high, initial=rt.initial)

    def wait(self, connected: bool) -> float:
        return (self.open if connected else self.dialled).wait()

    def sample(self, seconds: float, connected: bool) -> None:
        (self.open if connected else self.dialled).sample(seconds)


__all__ = ["HIGH", "INITIAL", "LOW", "Hedges", "RoundTrips"]
