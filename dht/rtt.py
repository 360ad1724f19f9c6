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


__all__ = ["HIGH", "INITIAL", "LOW", "RoundTrips"]
