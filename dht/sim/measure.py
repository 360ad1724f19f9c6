"""Measurements of the routing layer: lookups (latency, hops, messages, success) and traffic per node.

:func:`run_lookups` starts ``count`` lookups of random keys from random online nodes, one every
``spacing`` seconds of virtual time, while whatever else is scheduled (peer discovery, churn) goes on;
each is the node's :class:`~ioa_p2p.dht.lookup.Lookup` driven by :class:`~ioa_p2p.dht.sim.kad.LookupRun`.
A lookup *succeeded* when the online node closest to its key at the moment it finished is among the
``K`` closest peers it returned (it would store or find a record there); :attr:`LookupSample.overlap` is
the share of the ``K`` closest online nodes it returned.

:class:`Traffic` snapshots the message counters so that a window's messages per node per minute can be
read (every request and every reply counts as a message, as a packet capture would count them).
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.sim.kad import DEFAULT_ASK, FIND_NODE, LookupRun, start_lookup
from ioa_p2p.dht.sim.world import World, percentile


@dataclass(frozen=True, slots=True)
class LookupSample:
    """One finished lookup."""

    latency: float
    hops: int
    messages: int
    contacted: int
    success: bool
    overlap: float


@dataclass(frozen=True, slots=True)
class LookupSummary:
    """Lookups in aggregate (times in seconds)."""

    count: int
    success: float
    overlap: float
    p50: float
    p95: float
    hops_mean: float
    hops_p95: float
    messages_mean: float
    contacted_mean: float

    @classmethod
    def of(cls, samples: Sequence[LookupSample]) -> LookupSummary:
        n = len(samples)
        if n == 0:
            nan = float("nan")
            return cls(0, nan, nan, nan, nan, nan, nan, nan, nan)
        latencies = [s.latency for s in samples]
        hops = [float(s.hops) for s in samples]
        return cls(
            count=n,
            success=sum(s.success for s in samples) / n,
            overlap=sum(s.overlap for s in samples) / n,
            p50=percentile(latencies, 0.5),
            p95=percentile(latencies, 0.95),
            hops_mean=sum(hops) / n,
            hops_p95=percentile(hops, 0.95),
            messages_mean=sum(s.messages for s in samples) / n,
            contacted_mean=sum(s.contacted for s in samples) / n,
        )


def closest_online(world: World, key: bytes, count: int = K) -> list[bytes]:
    """The peer IDs of the ``count`` online nodes closest to ``key`` (the truth a lookup is held to)."""
    target = position(key)
    online = (n for n in world.nodes if n.online)
    return [n.peer for n in heapq.nsmallest(count, online, key=lambda n: n.position ^ target)]


def run_lookups(
    world: World,
    count: int,
    rng: random.Random,
    *,
    spacing: float = 0.05,
    ask: int = DEFAULT_ASK,
    settle: float = 30.0,
) -> list[LookupSample]:
    """Start ``count`` ``FIND_NODE`` lookups (see the module docstring), run the simulation until all
    finished (at most ``settle`` seconds after the last started), and return one sample each."""
    samples: list[LookupSample] = []

    def finished(run: LookupRun, key: bytes) -> None:
        truth = closest_online(world, key)
        found = set(run.lookup.closest(key))
        samples.append(
            LookupSample(
                latency=run.elapsed,
                hops=run.converged_hops(key),
                messages=run.lookup.messages,
                contacted=len(run.lookup.contacted),
                success=bool(truth) and truth[0] in found,
                overlap=len(found.intersection(truth)) / max(1, len(truth)),
            )
        )

    def start() -> None:
        online = [n for n in world.nodes if n.online]
        node = online[rng.randrange(len(online))]
        key = rng.randbytes(32)
        start_lookup(world, node, [key], FIND_NODE, ask=ask, on_done=lambda run: finished(run, key))

    begin = world.loop.now
    for i in range(count):
        world.loop.at(begin + i * spacing, start)
    world.loop.run(begin + count * spacing + settle, done=lambda: len(samples) >= count)
    return samples


class Traffic:
    """Messages sent over a window (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.start_at = world.loop.now
        self.start = Counter(world.stats)
        self.online_time = 0.0
        self._samples = 0

    def sample_online(self) -> None:
        """Count the online nodes now (call it regularly: the mean is the denominator)."""
        self.online_time += sum(1 for n in self.world.nodes if n.online)
        self._samples += 1

    def per_node_minute(self) -> dict[str, float]:
        """Messages per online node per minute since the snapshot, by kind, and ``total``."""
        minutes = (self.world.loop.now - self.start_at) / 60
        online = self.online_time / self._samples if self._samples else len(self.world.online())
        if minutes <= 0 or online <= 0:
            return {"total": 0.0}
        delta = Counter(self.world.stats)
        delta.subtract(self.start)
        out = {kind: n / online / minutes for kind, n in sorted(delta.items()) if n > 0}
        out["total"] = sum(delta.values()) / online / minutes
        return out


def run_for(world: World, seconds: float, traffic: Traffic | None = None, *, step: float = 5.0) -> None:
    """Run the simulation ``seconds`` further, counting online nodes every ``step`` seconds."""
    end = world.loop.now + seconds
    while world.loop.now < end:
        world.loop.run(min(end, world.loop.now + step))
        if traffic is not None:
            traffic.sample_online()


__all__ = ["LookupSample", "LookupSummary", "Traffic", "closest_online", "run_for", "run_lookups"]
