"""A stable network size estimate: the routing table's estimate pooled with the node's lookups (pure).

:func:`~ioa_p2p.dht.keyspace.estimate_network_size` reads the distance ``d_k`` to the ``k``-th closest peer
of the node's own position. It is unbiased, but it is one draw: its relative error is ``1 / sqrt(k - 2)``
(0.24 at ``k = 20``), and it is the same draw for as long as the node's neighbourhood stays the same, so a
node that drew a sparse neighbourhood overestimates for good (72 for a network of 50 was measured, which
made every find of that node list a second LSH table: twice the page lookups). Waiting does not help; other
positions do.

Every lookup the node finishes gives such a draw at another position: once a key's lookup is finished
(Kademlia's termination rule), its ``k`` closest candidates are the ``k`` peers closest to the key. A key is
a SHA-256 value, independent of the peers' positions, so with ``d_k`` the distance to the ``k``-th closest
of all ``N`` peers (this node included), ``X = d_k / S ~ Beta(k, N + 1 - k)`` and
``E[1 / X] = N / (k - 1)``:

    N_key = (k - 1) * S / d_k

is unbiased too. :class:`SizeEstimate` keeps the latest draw of each of the last :data:`KEYS` distinct
keys (a page key listed by every find is one draw, however often it is listed) no older than
:data:`MAX_AGE`, and reports the mean of those draws and the node's own one (each unbiased, so the mean is;
with 16 keys the relative error falls to ~0.06 in a network of 50, ~0.07 at 1,000:
``tests/test_netsize.py``). The reported value moves only when the pooled mean leaves a band of
:data:`HYSTERESIS` around it (or the peers known exceed it), so the decisions that read it (how many LSH
tables a find lists, which levels a card is provided at) do not flip between two finds. It is never below
the number of peers known plus one.

A lookup that ended before its closest peers answered may miss closer peers (``d_k`` too large: the
estimate too small); the driver only offers keys whose lookups finished. In a network smaller than ``k``
no key has ``k`` candidates: the routing table's count is the estimate.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from ioa_p2p.dht.keyspace import KEYSPACE, K, position

#: Distinct keys whose latest draw is kept (the oldest is dropped first).
KEYS = 64
#: Seconds a key's draw counts (a network that grows or shrinks is followed within this time).
MAX_AGE = 900.0
#: The reported estimate changes once the pooled mean is this share above or below it.
HYSTERESIS = 0.12


def key_estimate(distances: Iterable[int], k: int = K) -> float | None:
    """The size estimate from one finished lookup of a key: ``distances`` are the XOR distances from the
    key's position of every peer the lookup kept (its closest candidates, this node included); ``None``
    when there are fewer than ``k`` (a network smaller than ``k``, or too few candidates)."""
    if k < 2:
        raise ValueError(f"the size estimate needs k >= 2, got {k}")
    near = sorted(distances)
    if len(near) < k:
        return None
    return (k - 1) * KEYSPACE / max(near[k - 1], 1)


class SizeEstimate:
    """The pooled, damped estimate of one node (module docstring); ``own`` is its peer ID bytes."""

    def __init__(
        self, own: bytes, *, k: int = K, keys: int = KEYS, max_age: float = MAX_AGE, band: float = HYSTERESIS
    ) -> None:
        if k < 2 or keys < 1 or max_age <= 0 or not 0 <= band < 1:
            raise ValueError(
                f"a size estimate needs k >= 2, keys >= 1, max_age > 0 and 0 <= band < 1; "
                f"got {k}, {keys}, {max_age}, {band}"
            )
        self.own, self.me = own, position(own)
        self.k, self.keys, self.max_age, self.band = k, keys, max_age, band
        self._draws: OrderedDict[bytes, tuple[float, float]] = OrderedDict()  # key -> (when, estimate)
        self._reported: float | None = None

    def offer(self, key: bytes, closest: Iterable[bytes], now: float) -> float | None:
        """A finished lookup of ``key`` kept the peers ``closest`` (ID bytes, this node left out or not):
        record its draw; returns it (``None``: too few peers, or the key is this node's own ID, whose draw
        the routing table's estimate already is)."""
        target = position(key)
        if target == self.me:
            return None
        peers = {p for p in closest if p != self.own}
        distances = [position(p) ^ target for p in peers]
        distances.append(self.me ^ target)  # this node is one of the N peers around the key too
        draw = key_estimate(distances, self.k)
        if draw is None:
            return None
        self._draws.pop(key, None)
        self._draws[key] = (now, draw)
        while len(self._draws) > self.keys:
            self._draws.popitem(last=False)
        return draw

    def draws(self, now: float) -> list[float]:
        """The draws still counting at ``now`` (oldest first); older ones are forgotten."""
        while self._draws:
            key, (when, _) = next(iter(self._draws.items()))
            if now - when <= self.max_age:
                break
            del self._draws[key]
        return [draw for when, draw in self._draws.values() if now - when <= self.max_age]

    def pooled(self, local: float, known: int, now: float) -> float:
        """The mean of the lookups' draws and the routing table's estimate ``local`` (no damping), never
        below ``known + 1``."""
        draws = self.draws(now)
        return max(float(known + 1), (local + sum(draws)) / (1 + len(draws)))

    def estimate(self, local: float, known: int, now: float) -> float:
        """The reported estimate at ``now`` given the routing table's ``local`` estimate and the ``known``
        peers (this node not counted): the pooled mean, moved only when it leaves the hysteresis band."""
        fresh = self.pooled(local, known, now)
        held = self._reported
        if held is None or abs(fresh - held) > self.band * held or held < known + 1:
            self._reported = held = fresh
        return held


__all__ = ["HYSTERESIS", "KEYS", "MAX_AGE", "SizeEstimate", "key_estimate"]
