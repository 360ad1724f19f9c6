"""Resource budgets (pure: no I/O, no clock of its own): what peers may hold, and how fast they may ask.

:class:`Ledger` — amounts *held* (bytes of partial frames, open streams, bytes of pending chat
messages, unread bytes in the muxer) per key (a peer) against an optional per-key cap and a total
cap. Every claim carries the claimant's **trust** (:data:`TRUST_STRANGER`, :data:`TRUST_KNOWN`: a
valid card of it is known, :data:`TRUST_PARTNER`: it shares a chat this node worked in, or the
operator named it). Identities are free, so a per-key cap alone bounds nothing; the total holds
whatever the number of identities, and:

- a claim that would pass the per-key cap is refused;
- ``reserve`` of the total is kept for trusted claimants: strangers together hold at most
  ``total - reserve`` (a stranger's claim past it first evicts another stranger, as below);
- a claim that would pass the total first evicts the **newest** claim of the **least-trusted**,
  then **heaviest** holder: any holder less trusted than the claimant, or one as trusted that holds
  more than the claimant would after the claim; never a more trusted one. Otherwise it is refused.

So a flood of strangers sheds its own newest work first, a peer holding little is still served,
and peers the node works with keep their reserved share. Evicting calls the claim's ``on_evict``
callback, whose owner drops the work (resets the stream, forgets the message); the amount is free
as soon as the callback returns.

:class:`RateBudget` — work *done* per period (sync requests answered, messages sent in sync
answers, pulls triggered by a peer, CPU seconds): one token bucket per key plus one for the total.
Callers pass the current time, so tests drive it with any clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

_NEVER = -1.0

#: A peer this node has no relationship with (the default: identities are free).
TRUST_STRANGER = 0
#: A peer whose valid, signed capability card this node holds.
TRUST_KNOWN = 1
#: A peer that shares a chat this node created or posted in, or that the operator configured
#: (bootstrap peers, ``invite_allowlist``).
TRUST_PARTNER = 2
TRUST_NAMES = {TRUST_STRANGER: "stranger", TRUST_KNOWN: "known", TRUST_PARTNER: "partner"}


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
    trust: int = TRUST_STRANGER
    #: claims in arrival order (a dict as an ordered set: O(1) removal, newest last)
    claims: dict[Claim, None] = field(default_factory=dict)


class Ledger:
    """Amounts held per key against ``per_key`` (None: no per-key cap) and ``total``, of which
    ``reserve`` only trusted claimants may use."""

    def __init__(self, name: str, *, total: int, per_key: int | None = None, reserve: int = 0) -> None:
        if total < 0 or (per_key is not None and per_key < 0) or not 0 <= reserve <= total:
            raise ValueError(f"budget {name}: caps must be non-negative, the reserve within the total")
        self.name = name
        self.total = total
        self.per_key = per_key
        self.reserve = reserve
        self.held_total = 0
        #: held by holders whose trust is TRUST_STRANGER
        self.held_by_strangers = 0
        self.refused = 0
        self.evicted = 0
        self._holders: dict[Hashable, _Holder] = {}

    def held(self, key: Hashable) -> int:
        holder = self._holders.get(key)
        return holder.held if holder is not None else 0

    def claims(self, key: Hashable) -> int:
        holder = self._holders.get(key)
        return len(holder.claims) if holder is not None else 0

    def room(self, key: Hashable, trust: int = TRUST_STRANGER) -> int:
        """What ``key`` could claim now without evicting anyone."""
        free = self.total - self.held_total
        if trust == TRUST_STRANGER:
            free = min(free, self.total - self.reserve - self.held_by_strangers)
        if self.per_key is not None:
            free = min(free, self.per_key - self.held(key))
        return max(0, free)

    def could_claim(self, key: Hashable, amount: int, trust: int = TRUST_STRANGER) -> bool:
        """Whether :meth:`try_claim` would not refuse ``amount`` outright now: it fits, or some
        holder it may displace holds claims that can be evicted (no side effects; a cheap check
        before costlier work)."""
        mine = self.held(key)
        if amount > self.total or (self.per_key is not None and mine + amount > self.per_key):
            return False
        strangers_full = (
            trust == TRUST_STRANGER and self.held_by_strangers + amount > self.total - self.reserve
        )
        if not strangers_full and self.held_total + amount <= self.total:
            return True
        after = mine + amount
        for holder in self._holders.values():
            if strangers_full and holder.trust != TRUST_STRANGER:
                continue
            displaceable = holder.trust < trust or (holder.trust == trust and holder.held > after)
            if displaceable and any(claim.on_evict is not None for claim in holder.claims):
                return True
        return False

    def try_claim(
        self,
        key: Hashable,
        amount: int,
        on_evict: Callable[[], None] | None = None,
        trust: int = TRUST_STRANGER,
    ) -> Claim | None:
        """Hold ``amount`` for ``key``; None when refused. May evict others' newest claims first."""
        if amount < 0:
            raise ValueError("a claim cannot be negative")
        mine = self.held(key)
        if amount > self.total or (self.per_key is not None and mine + amount > self.per_key):
            self.refused += 1
            return None
        holder = self._holders.get(key)
        if holder is not None and holder.trust != trust:
            self._set_trust(holder, trust)
        after = mine + amount
        if trust == TRUST_STRANGER:
            cap = self.total - self.reserve
            while self.held_by_strangers + amount > cap:
                if not self._evict_one(claimant=trust, heavier_than=after, strangers_only=True):
                    self.refused += 1
                    return None
        while self.held_total + amount > self.total:
            if not self._evict_one(claimant=trust, heavier_than=after):
                self.refused += 1
                return None
        claim = Claim(key, amount, on_evict)
        holder = self._holders.get(key)
        if holder is None:
            holder = self._holders[key] = _Holder(trust=trust)
        holder.claims[claim] = None
        holder.held += amount
        self.held_total += amount
        if holder.trust == TRUST_STRANGER:
            self.held_by_strangers += amount
        return claim

    def _set_trust(self, holder: _Holder, trust: int) -> None:
        if holder.trust == TRUST_STRANGER:
            self.held_by_strangers -= holder.held
        if trust == TRUST_STRANGER:
            self.held_by_strangers += holder.held
        holder.trust = trust

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
        if holder.trust == TRUST_STRANGER:
            self.held_by_strangers -= claim.amount
        if not holder.claims:
            del self._holders[claim.key]

    def shrink(self, claim: Claim, amount: int) -> None:
        """Hold only ``amount`` (not more than now) of ``claim``: part of the work is done."""
        if claim.released or not 0 <= amount < claim.amount:
            return
        delta = claim.amount - amount
        claim.amount = amount
        holder = self._holders.get(claim.key)
        if holder is None:  # pragma: no cover - invariant
            return
        holder.held -= delta
        self.held_total -= delta
        if holder.trust == TRUST_STRANGER:
            self.held_by_strangers -= delta

    def _evict_one(self, *, claimant: int, heavier_than: int, strangers_only: bool = False) -> bool:
        """Evict the newest evictable claim of the least-trusted, then heaviest holder that the
        claimant may displace: one less trusted than ``claimant``, or as trusted and holding more
        than ``heavier_than``. False when nobody may be evicted."""
        ranked = sorted(self._holders.values(), key=lambda h: (h.trust, -h.held))
        for holder in ranked:
            if holder.trust > claimant or (strangers_only and holder.trust != TRUST_STRANGER):
                return False
            if holder.trust == claimant and holder.held <= heavier_than:
                continue  # a lighter holder of the same trust: try the next (it is lighter still)
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
            "reserved_for_trusted": self.reserve,
            "held_by_strangers": self.held_by_strangers,
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


class WorkBudget:
    """Seconds of work per second a peer makes this node do, per key and per pool.

    Two measures of one piece of work: its **CPU** time (what the node computed for the peer) and
    its **loop** time (how long it held the event loop, the wall clock: on a machine whose other
    processes leave the node part of a core, a step holds the loop several times its CPU time, and
    every other peer's work waits that long). A key's own bucket is charged CPU time (a peer is
    not blamed for the machine's load), and so is the known peers' pool; the strangers' pool is
    charged loop time, so its rate is a share of wall time that holds whatever the machine's load
    and however many identities share it (a known peer's request on a loaded machine is not
    paced for the time the machine took from it).

    Work is charged after it is done, so a bucket may go into debt (at most :data:`MAX_DEBT`
    seconds' worth of its rate); :meth:`delay` says how long the key's next work should wait. A
    key's bucket holds at most ``burst`` seconds' worth of its rate, a pool's ``pool_burst``
    seconds' worth (short: a pool that saved up would let all its members run at once, holding the
    loop for that long). Strangers share one pool of ``pool`` seconds per second and peers with a
    known card another, so a flood of fresh identities cannot take the time of known peers, nor a
    flood of self-published cards that of partners; partners are in no pool and get
    ``partner_factor`` times the per-key rate."""

    PRUNE_AT = 4096
    #: seconds of pause a bucket may owe at most (one huge piece of work costs at most this wait)
    MAX_DEBT = 10.0
    #: the same for a pool, shorter: a pool's debt pauses all its members, the innocent too
    POOL_MAX_DEBT = 2.0

    def __init__(
        self,
        name: str,
        *,
        per_key: float,
        pool: float,
        burst: float = 5.0,
        pool_burst: float = 0.25,
        partner_factor: float = 4.0,
    ) -> None:
        if per_key <= 0 or pool <= 0 or burst <= 0 or pool_burst <= 0:
            raise ValueError(f"work budget {name}: rates and bursts must be positive")
        self.name = name
        self.per_key = per_key
        self.pool = pool
        self.burst = burst
        self.pool_burst = pool_burst
        self.partner_factor = partner_factor
        self.charged = 0.0
        self.charged_by_trust = {trust: 0.0 for trust in TRUST_NAMES}
        self.loop_by_trust = {trust: 0.0 for trust in TRUST_NAMES}
        self.paced = 0
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._pools: dict[int, tuple[float, float]] = {}

    def _rate(self, trust: int) -> float:
        return self.per_key * (self.partner_factor if trust >= TRUST_PARTNER else 1.0)

    @staticmethod
    def _level(state: tuple[float, float] | None, rate: float, burst: float, now: float) -> float:
        if state is None or state[1] == _NEVER:
            return rate * burst
        tokens, at = state
        return min(rate * burst, tokens + max(0.0, now - at) * rate)

    def charge(
        self,
        key: Hashable,
        seconds: float,
        now: float,
        trust: int = TRUST_STRANGER,
        loop_seconds: float | None = None,
    ) -> None:
        """Charge ``seconds`` of CPU time to ``key`` and ``loop_seconds`` (default: the same) of
        loop time to its pool."""
        loop = seconds if loop_seconds is None else loop_seconds
        rate = self._rate(trust)
        level = self._level(self._buckets.get(key), rate, self.burst, now) - seconds
        if key not in self._buckets and len(self._buckets) >= self.PRUNE_AT:
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < self.burst}
        self._buckets[key] = (max(level, -rate * self.MAX_DEBT), now)
        self.charged += seconds
        self.charged_by_trust[trust] = self.charged_by_trust.get(trust, 0.0) + seconds
        self.loop_by_trust[trust] = self.loop_by_trust.get(trust, 0.0) + loop
        if trust < TRUST_PARTNER:
            spent = loop if trust == TRUST_STRANGER else seconds
            pool = self._level(self._pools.get(trust), self.pool, self.pool_burst, now) - spent
            self._pools[trust] = (max(pool, -self.pool * self.POOL_MAX_DEBT), now)

    def delay(self, key: Hashable, now: float, trust: int = TRUST_STRANGER, *, pool: bool = True) -> float:
        """Seconds until ``key`` (and its pool, unless ``pool`` is false) owes nothing; 0 when its
        work may go on."""
        rate = self._rate(trust)
        wait = max(0.0, -self._level(self._buckets.get(key), rate, self.burst, now) / rate)
        if pool and trust < TRUST_PARTNER:
            level = self._level(self._pools.get(trust), self.pool, self.pool_burst, now)
            wait = max(wait, -level / self.pool)
        return wait

    def snapshot(self) -> dict[str, Any]:
        return {
            "per_peer": self.per_key,
            "pool": self.pool,
            "charged_s": round(self.charged, 3),
            "charged_s_by_trust": {TRUST_NAMES[t]: round(v, 3) for t, v in self.charged_by_trust.items()},
            "loop_s_by_trust": {TRUST_NAMES[t]: round(v, 3) for t, v in self.loop_by_trust.items()},
            "peers": len(self._buckets),
            "paced": self.paced,
        }


__all__ = [
    "TRUST_KNOWN",
    "TRUST_NAMES",
    "TRUST_PARTNER",
    "TRUST_STRANGER",
    "Claim",
    "Ledger",
    "RateBudget",
    "WorkBudget",
]
