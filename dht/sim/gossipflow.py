"""Measurements of card gossip in the simulator: propagation time, cost per announcement, announcement rate.

- :func:`sample_announcements`: ``count`` random online nodes announce a new card version each (one every
  ``spacing`` seconds) over the simulated GossipSub of :mod:`~ioa_p2p.dht.sim.gossip`; per announcement:
  the time until 50 %, 95 % and every online node received it, and how many of them the node's own
  rules applied it (validator, rate limits, directory); the gossip messages sent per online node per
  announcement (publish and forward copies, IHAVE and IWANT).
- :func:`announcement_rate`: every online node runs its announce loop (a look every 0.5 s:
  :class:`~ioa_p2p.dht.pacing.AnnouncePacer` re-announces when more peers subscribed) and issues a new
  version every ``republish`` seconds (at its own phase), while churn goes on; returns the announcements
  per node per minute. Nothing is sent here (the cost of one announcement is measured above); at
  10,000 nodes flooding every announcement would be ~10^6 events per simulated second.
- :class:`GossipSummary` combines the two: gossip messages per node per minute = announcements per node
  per minute x N x messages per node per announcement, plus the IHAVE each node sends every heartbeat
  while messages keep arriving (at large N there is always a message in the window).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.dht.sim.gossip import LAZY_MIN, LAZY_SHARE, GossipLayer, Message, reach_times
from ioa_p2p.dht.sim.world import World, percentile

#: How often the node's announce loop looks at the topic's peers (``announce_loop``), seconds.
ANNOUNCE_LOOK = 0.5
GOSSIP_KINDS = ("publish", "ihave", "iwant", "graft", "prune")


@dataclass(frozen=True, slots=True)
class GossipSample:
    """The propagation of sampled announcements (times in seconds after publication)."""

    count: int
    reach_p50: float  # median over announcements of the time to reach 50 % of online nodes
    reach95_p50: float  # ... 95 % of online nodes
    reach95_p95: float
    reach_all_p50: float
    reached: float  # mean share of online nodes reached
    applied: float  # mean share of online nodes whose directory took it
    per_node: float  # gossip messages sent per online node per announcement (publish + forward + IWANT)
    duplicates: float  # copies received again per online node per announcement
    ihave_peers: float  # IHAVE recipients per node per heartbeat while messages arrive
    origins: tuple[int, ...] = ()  # the announcing nodes, in order


def sample_announcements(
    world: World,
    layer: GossipLayer,
    count: int,
    rng: random.Random,
    *,
    spacing: float = 1.0,
    settle: float = 10.0,
    origins: Sequence[int] = (),
    changed: bool = False,
) -> GossipSample:
    """Announce ``count`` new card versions from random online nodes (or ``origins``, in turn) and follow
    them (module docstring). ``changed``: each version says something new (another address), else it
    renews the content its node announced last."""
    cards = world.cards
    assert cards is not None
    before = {kind: world.stats[kind] for kind in GOSSIP_KINDS}
    messages: list[tuple[Message, int]] = []

    picked = list(origins)
    changes = 0

    def go() -> None:
        nonlocal changes
        online = [n for n in world.nodes if n.online]
        node = world.nodes[picked.pop(0)] if picked else online[rng.randrange(len(online))]
        changes += changed
        addrs = (f"/ip4/10.{changes // 250 % 250}.{changes % 250}.1/tcp/4001",) if changed else ()
        node.card = cards.issue(node.index, world.now_ms(), addrs=addrs)
        messages.append((layer.announce(node, node.card), len(online)))

    begin = world.loop.now
    for i in range(count):
        world.loop.at(begin + i * spacing, go)
    world.loop.run(begin + count * spacing + settle)
    online = sum(1 for n in world.nodes if n.online)
    sent = sum(world.stats[k] - before[k] for k in ("publish", "iwant"))
    ihave = world.stats["ihave"] - before["ihave"]
    heartbeats = online * (world.loop.now - begin) / layer.config.heartbeat
    times = [reach_times(m, n) for m, n in messages]
    out = GossipSample(
        count=len(messages),
        reach_p50=percentile([t["p50"] for t in times], 0.5),
        reach95_p50=percentile([t["p95"] for t in times], 0.5),
        reach95_p95=percentile([t["p95"] for t in times], 0.95),
        reach_all_p50=percentile([t["all"] for t in times], 0.5),
        reached=sum(len(m.reached) / n for m, n in messages) / max(1, len(messages)),
        applied=sum(len(m.delivered) / max(1, n - 1) for m, n in messages) / max(1, len(messages)),
        per_node=sent / max(1, online) / max(1, len(messages)),
        duplicates=sum(m.duplicates for m, _ in messages) / max(1, online) / max(1, len(messages)),
        ihave_peers=ihave / max(1.0, heartbeats),
        origins=tuple(m.origin for m, _ in messages),
    )
    for message, _ in messages:
        layer.forget(message.mid)
    return out


def announcement_rate(
    world: World,
    seconds: float,
    republish: float,
    rng: random.Random,
    *,
    burn_in: float = 0.0,
    capped: bool = False,
    changed: float = 0.0,
) -> float:
    """Announcements per online node per minute over ``seconds`` of the node's announce rules (module
    docstring): new versions every ``republish`` s, and :class:`AnnouncePacer` re-announcements. The
    first ``burn_in`` seconds are not counted (a pacer that never announced re-announces at its first
    look: the node's start-up announcement, not its steady state). ``capped`` (past ``relay_all``,
    :mod:`~ioa_p2p.dht.relaycap`): the pacer rests and a new version is announced only when its content
    changed, which a share ``changed`` of them does (drawn per version)."""
    count = 0
    samples = online_sum = 0

    def look() -> None:
        nonlocal count, samples, online_sum
        now = world.loop.now
        online = 0
        for node in world.nodes:
            if not node.online:
                continue
            online += 1
            peers = len(node.neighbours)
            if not capped and node.pacer.due(peers, now):
                node.pacer.reannounced(peers, now)
                count += 1
        samples += 1
        online_sum += online

    phases = {node.index: rng.random() * republish for node in world.nodes}

    def changed_now() -> bool:  # the content of this version differs from the last one (a share of them)
        return changed > 0 and rng.random() < changed

    def new_version(index: int) -> None:
        nonlocal count
        node = world.nodes[index]
        # :func:`~ioa_p2p.dht.relaycap.announce_version`: past the line only a version that changed
        if node.online and (not capped or changed_now()):
            node.pacer.announced(len(node.neighbours), world.loop.now)
            count += 1
        world.loop.after(republish, new_version, index)

    begin = world.loop.now
    for index, phase in phases.items():
        world.loop.at(begin + phase, new_version, index)
    t = begin
    while t < begin + burn_in + seconds:
        world.loop.at(t, look)
        t += ANNOUNCE_LOOK
    if burn_in > 0:
        world.loop.run(begin + burn_in)
        count = samples = online_sum = 0
    world.loop.run(begin + burn_in + seconds)
    mean_online = online_sum / max(1, samples)
    return count / max(1.0, mean_online) / (seconds / 60)


@dataclass(frozen=True, slots=True)
class GossipSummary:
    """Gossip's cost per node per minute at the announcement rate measured."""

    announcements_per_node_min: float
    messages_per_node_min: float
    ihave_per_node_min: float

    @classmethod
    def of(
        cls, rate: float, nodes: float, sample: GossipSample, heartbeat: float, mesh: float
    ) -> GossipSummary:
        """``rate``: announcements per node per minute; ``nodes``: online nodes; ``mesh``: mean mesh size
        (the IHAVE recipients per heartbeat are those of a node with 16 connections when the sample had
        too few messages to keep every window busy)."""
        per_minute = rate * nodes  # announcements network-wide per minute
        flood = per_minute * sample.per_node
        busy = min(1.0, per_minute * 3 * heartbeat / 60)  # share of heartbeats with a message in the window
        ihave = busy * (60 / heartbeat) * max(LAZY_MIN, LAZY_SHARE * max(0.0, 16 - mesh))
        return cls(rate, flood + ihave, ihave)


__all__ = ["GossipSample", "GossipSummary", "announcement_rate", "sample_announcements"]
