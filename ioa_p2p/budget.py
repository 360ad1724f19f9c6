"""Resource budgets (pure: no I/O, no clock of its own): what peers may hold, and how fast they may ask.

:class:`Ledger` — amounts *held* (bytes of partial frames, open streams, bytes of pending chat
messages) per key (a peer) against an optional per-key cap and a total cap. A claim that would pass
the per-key cap is refused. A claim that would pass the total cap first evicts the **newest** claim
of the key holding the most, as long as that key holds more than the claimant would after the
claim; otherwise it is refused. So the heaviest holder's newest work goes first, and a peer holding
little is still served while others flood the node (identities are free: a per-key cap alone does
not bound the total). Evicting calls the claim's ``on_evict`` callback, whose owner drops the work
(resets the stream, forgets the message); the amount is free as soon as the callback returns.

:class:`RateBudget` — work *done* per period (sync requests answered, messages sent in sync
answers, pulls triggered by a peer): one token bucket per key plus one for the total. Callers pass
the current time, so tests drive it with any clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

_NEVER = -1.0


@dataclass(eq=False, slots=True)
class Claim:
    """An amount held by ``key`` in a :class:`Ledger` until released (or evicted)."""

    key: Hashable
    amount: int
    on_evict: Callable[[], None] | None = None
    released: bool = False


@dataclass(slots=True)
class _Holder:
    held: int = 0
    #: claims in arrival order (a dict as an ordered set: O(1) removal, newest last)
    claims: dict[Claim, None] = field(default_factory=dict)


class Ledger:
    """Amounts held per key against ``per_key`` (None: no per-key cap) and ``total``."""

    def __init__(self, name: str, *, total: int, per_key: int | None = None) -> None:
        if total < 0 or (per_key is not None and per_key < 0):
            raise ValueError(f"budget {name}: caps must be non-negative")
        self.name = name
        self.total = total
        self.per_key = per_key
        self.held_total = 0
        self.refused = 0
        self.evicted = 0
        self._holders: dict[Hashable, _Holder] = {}

    def held(self, key: Hashable) -> int:
        holder = self._holders.get(key)
        return holder.held if holder is not None else 0

    def claims(self, key: Hashable) -> int:
        holder = self._holders.get(key)
        return len(holder.claims) if holder is not None else 0

    def room(self, key: Hashable) -> int:
        """What ``key`` could claim now without evicting anyone."""
        free = self.total - self.held_total
        if self.per_key is not None:
            free = min(free, self.per_key - self.held(key))
        return max(0, free)

    def try_claim(
        self, key: Hashable, amount: int, on_evict: Callable[[], None] | None = None
    ) -> Claim | None:
        """Hold ``amount`` for ``key``; None when refused. May evict others' newest claims first."""
        if amount < 0:
            raise ValueError("a claim cannot be negative")
        mine = self.held(key)
        if amount > self.total or (self.per_key is not None and mine + amount > self.per_key):
            self.refused += 1
            return None
        while self.held_total + amount > self.total:
            if not self._evict_one(heavier_than=mine + amount):
                self.refused += 1
                return None
        claim = Claim(key, amount, on_evict)
        holder = self._holders.get(key)
        if holder is None:
            holder = self._holders[key] = _Holder()
        holder.claims[claim] = None
        holder.held += amount
        self.held_total += amount
        return claim

    def release(self, claim: Claim | None) -> None:
        """Give back a claim (idempotent; None is ignored)."""
        if claim is None or claim.released:
            return
        claim.released = True
        holder = self._holders.get(claim.key)
        if holder is None or claim not in holder.claims:  # pragma: no cover - invariant
            return
        del holder.claims[claim]
        holder.held -= claim.amount
        self.held_total -= claim.amount
        if not holder.claims:
            del self._holders[claim.key]

    def _evict_one(self, *, heavier_than: int) -> bool:
        """Evict the newest evictable claim of the heaviest holder, if it holds more than
        ``heavier_than``; False when nobody may be evicted."""
        ranked = sorted(self._holders.values(), key=lambda h: h.held, reverse=True)
        for holder in ranked:
            if holder.held <= heavier_than:
                return False
            for claim in reversed(holder.claims):
                if claim.on_evict is not None:
                    self.release(claim)
                    self.evicted += 1
                    claim.on_evict()
                    return True
        return False

    def snapshot(self) -> dict[str, Any]:
        top = max(self._holders.values(), key=lambda h: h.held, default=None)
        return {
            "held": self.held_total,
            "total": self.total,
            "per_peer": self.per_key,
            "holders": len(self._holders),
            "top_holder": top.held if top is not None else 0,
            "refused": self.refused,
            "evicted": self.evicted,
        }


class RateBudget:
    """Token buckets: at most ``per_key`` units per key and ``total`` units overall (None: no
    overall cap) per ``period`` seconds (refilled continuously; a full bucket allows a burst of
    its whole capacity)."""

    #: buckets of keys idle long enough to be full again are forgotten past this many keys
    PRUNE_AT = 4096

    def __init__(self, name: str, *, period: float, per_key: int, total: int | None = None) -> None:
        if period <= 0 or per_key < 0 or (total is not None and total < 0):
            raise ValueError(f"rate budget {name}: period must be positive, caps non-negative")
        self.name = name
        self.period = period
        self.per_key = per_key
        self.total = total
        self.refused = 0
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, at)
        self._all: tuple[float, float] = (math.inf if total is None else float(total), _NEVER)

    def available(self, key: Hashable, now: float) -> int:
        """Whole units ``key`` may take at ``now``."""
        return int(min(self._level(key, now), self._level_all(now)))

    def take(self, key: Hashable, amount: int, now: float) -> bool:
        """Take ``amount`` units for ``key`` at ``now`` if both buckets hold them."""
        mine, everyone = self._level(key, now), self._level_all(now)
        if amount > mine or amount > everyone:
            self.refused += 1
            return False
        self._store(key, mine - amount, now)
        if self.total is not None:
            self._all = (everyone - amount, now)
        return True

    def take_up_to(self, key: Hashable, amount: int, now: float) -> int:
        """Take as many of ``amount`` units as both buckets allow; how many were taken."""
        granted = min(amount, self.available(key, now))
        if granted <= 0:
            self.refused += 1
            return 0
        self.take(key, granted, now)
        return granted

    def give_back(self, key: Hashable, amount: int, now: float) -> None:
        """Return ``amount`` units taken at ``now`` but not used (never above capacity)."""
        if amount > 0:
            self._store(key, min(float(self.per_key), self._level(key, now) + amount), now)
            if self.total is not None:
                self._all = (min(float(self.total), self._level_all(now) + amount), now)

    def _level(self, key: Hashable, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.per_key), _NEVER))
        return self._refill(tokens, at, now, self.per_key)

    def _level_all(self, now: float) -> float:
        if self.total is None:
            return math.inf
        tokens, at = self._all
        return self._refill(tokens, at, now, self.total)

    def _refill(self, tokens: float, at: float, now: float, cap: int) -> float:
        if at == _NEVER:
            return float(cap)
        return min(float(cap), tokens + max(0.0, now - at) * cap / self.period)

    def _store(self, key: Hashable, tokens: float, now: float) -> None:
        if key not in self._buckets and len(self._buckets) >= self.PRUNE_AT:
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < self.period}
        self._buckets[key] = (tokens, now)

    def snapshot(self) -> dict[str, Any]:
        return {
            "period": self.period,
            "per_peer": self.per_key,
            "total": self.total,
            "peers": len(self._buckets),
            "refused": self.refused,
        }


__all__ = ["Claim", "Ledger", "RateBudget"]
