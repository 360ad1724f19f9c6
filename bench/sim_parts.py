"""The measured parts of ``bench_sim.py`` after a network formed: publishing cards, DHT-only finds,
the card topic's gossip and revocation. Each runs on a formed :class:`~ioa_p2p.dht.sim.world.World`,
adds its figures to the row and reports it (:func:`sim_report.report`). See ``bench_sim.py`` for what
is measured."""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sim_report import report

from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.cardflow import publish_cards, run_searches, warm_publish
from ioa_p2p.dht.sim.gossip import GossipConfig, GossipLayer
from ioa_p2p.dht.sim.gossipflow import GossipSummary, announcement_rate, sample_announcements
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.revocation import revoke_everywhere
from ioa_p2p.dht.sim.world import World, percentile


def publish_part(
    world: World,
    forest: Forest,
    publishers: Sequence[SimNode],
    rng: random.Random,
    row: dict[str, Any],
    warm: bool = False,
) -> None:
    if warm:
        began = time.perf_counter()
        placed = warm_publish(world, forest, publishers)
        row.update(published="warm", placed=placed, placed_s=round(time.perf_counter() - began, 1))
        report("publish", row)
        return
    published = publish_cards(world, forest, publishers, rng, window=60)
    done = [p.done_s for p in published if p.done_s is not None]
    rounds = [s for s in (p.round_s for p in published) if s is not None]
    placed = [p.placed_s for p in published]
    reached = [s for s in placed if s is not None]
    row.update(
        published=len(published),
        # every key of the put, pages and provide round stored at its quorum (the card findable)
        placed_p50=round(percentile(reached, 0.5), 2),
        placed_p95=round(percentile(reached, 0.95), 2),
        placed_share=round(len(reached) / max(1, len(placed)), 3),
        # the publish answered its caller: every key of every part at its quorum (node/net/store_round.py)
        publish_p50=round(percentile(done, 0.5), 2),
        publish_p95=round(percentile(done, 0.95), 2),
        # every round over (the quorum and its grace, or every target heard from): the rounds go on
        # after answering; before 2026-11-28 11:00 UTC this was "publish"
        round_p50=round(percentile(rounds, 0.5), 2),
        round_p95=round(percentile(rounds, 0.95), 2),
        first_store_p50=round(percentile([p.put_first_s for p in published if p.put_first_s], 0.5), 2),
        first_store_p95=round(percentile([p.put_first_s for p in published if p.put_first_s], 0.95), 2),
        put_ok=round(sum(p.put_ok for p in published) / max(1, len(published)), 3),
        provide_acked=round(
            sum(p.acknowledged for p in published) / max(1, sum(p.expected for p in published)), 3
        ),
        keys_per_card=round(statistics.mean(p.keys for p in published), 1) if published else 0,
        pages_p50=round(percentile([p.pages_s for p in published if p.pages_s], 0.5), 2),
        put_p50=round(percentile([p.put_s for p in published if p.put_s], 0.5), 2),
        provide_p50=round(percentile([p.provide_s for p in published if p.provide_s], 0.5), 2),
    )
    report("publish", row)


def find_part(
    world: World,
    forest: Forest,
    base: DiscoverySettings,
    queries: Any,
    spam: set[int],
    rng: random.Random,
    row: dict[str, Any],
    modes: str,
) -> None:
    for mode in modes.split(","):
        settings = replace(base, pages=mode == "pages")
        samples = run_searches(world, forest, settings, queries, rng)
        found: dict[str, Any] = dict(
            finds=len(samples),
            recall_exact=round(statistics.mean(s.recall_exact for s in samples), 3),
            # without counting a card tied with the exact fifth as exact (before 2026-11-27 15:30 UTC)
            recall_exact_strict=round(
                statistics.mean(
                    len(set(s.result.ranked) & set(s.exact)) / max(1, len(s.exact)) for s in samples
                ),
                3,
            ),
            searches_with_ties=sum(1 for s in samples if s.ties),
            find_p50=round(percentile([s.result.total_s for s in samples], 0.5), 2),
            find_p95=round(percentile([s.result.total_s for s in samples], 0.95), 2),
            rounds=round(statistics.mean(s.result.passes for s in samples), 1),
            candidates=round(statistics.mean(s.result.providers for s in samples), 1),
            fetched=round(statistics.mean(s.result.fetched for s in samples), 1),
            timed_out=sum(s.result.timed_out for s in samples),
        )
        gold = [s for s in samples if s.gold]
        if gold:
            found["gold_dht"] = round(statistics.mean(s.recall_gold() or 0.0 for s in gold), 3)
            found["gold_exact"] = round(statistics.mean(s.recall_gold(s.exact) or 0.0 for s in gold), 3)
        if spam:
            slots = [
                sum(1 for i in s.result.ranked if i in spam) / max(1, len(s.result.ranked)) for s in samples
            ]
            found["spam_top5"] = round(statistics.mean(slots), 3)
            found["spam_any"] = round(sum(1 for x in slots if x > 0) / max(1, len(slots)), 3)
        row.update({f"{mode}:{key}": value for key, value in found.items()})
        report(f"find ({mode})", row)


def gossip_part(world: World, args: argparse.Namespace, rng: random.Random, row: dict[str, Any]) -> None:
    """The card topic: propagation of sampled announcements, and its cost at the node's announce rate."""
    layer = GossipLayer(world, GossipConfig(relay_all=args.relay_all))
    layer.start()
    world.loop.run(world.loop.now + 5)
    cards = world.cards
    assert cards is not None
    for node in world.nodes:  # every node holds a card to announce (issuing one costs a signature)
        if node.card is None and node.online:
            node.card = cards.issue(node.index, world.now_ms())
    # cards new to the network (every node forwards them), then the same nodes' renewals of unchanged
    # content (past relay_all the owner leaves them to the DHT; an owner that announces one all the same,
    # a previous release, reaches its mesh only) and of changed content (flooded)
    sample = sample_announcements(world, layer, args.gossip_sample, rng)
    renewed = sample_announcements(world, layer, args.gossip_sample, rng, origins=sample.origins)
    changed = sample_announcements(
        world, layer, args.gossip_sample, rng, origins=sample.origins, changed=True
    )
    online = [n for n in world.nodes if n.online]
    mesh = statistics.mean(len(n.mesh) for n in online)
    rate = announcement_rate(
        world,
        args.rate_window,
        DiscoverySettings().republish,
        rng,
        burn_in=60,
        capped=layer.capped,
        changed=args.changed,
    )
    summary = GossipSummary.of(
        rate, len(online), changed if layer.capped else sample, layer.config.heartbeat, mesh
    )
    row.update(
        relay_all=args.relay_all,
        capped=layer.capped,
        gossip_renewal_reached=round(renewed.reached, 3),
        gossip_renewal_msgs_per_announcement=round(renewed.per_node, 3),
        gossip_changed_reach95_s=round(changed.reach95_p50, 2),
        gossip_changed_reached=round(changed.reached, 3),
        gossip_changed_msgs_per_announcement=round(changed.per_node, 2),
        gossip_not_relayed=layer.not_relayed,
        changed_share=args.changed,
        mesh=round(mesh, 1),
        gossip_reach50_s=round(sample.reach_p50, 2),
        gossip_reach95_s=round(sample.reach95_p50, 2),
        gossip_reach95_p95_s=round(sample.reach95_p95, 2),
        gossip_reached=round(sample.reached, 3),
        gossip_applied=round(sample.applied, 3),
        gossip_msgs_per_announcement=round(sample.per_node, 2),
        announcements_node_min=round(rate, 3),
        gossip_msgs_node_min=round(summary.messages_per_node_min, 1),
    )
    report("gossip", row)


def revocation_part(
    world: World,
    settings: DiscoverySettings,
    honest: Sequence[SimNode],
    rng: random.Random,
    row: dict[str, Any],
    args: argparse.Namespace,
) -> None:
    """5 owners withdraw and leave at once; every node held their cards (gossip + DHT + revalidation)."""
    layer = GossipLayer(world, GossipConfig(relay_all=args.relay_all))
    layer.start()
    owners = rng.sample([node for node in honest if node.online and node.card is not None], 5)
    run = revoke_everywhere(
        world,
        layer,
        replace(settings, revalidate=720.0),
        owners,
        rng,
        repair=args.repair,
        horizon=args.revocation_horizon,
        rejoin=args.rejoin,
    )
    online_holding = run.holding_online
    late = [m for m, share in online_holding.items() if share > 0]
    row.update(
        revoke_gossip=run.by_gossip,
        revoke_fetch=run.by_fetch,
        revoke_dropped=run.by_expiry,
        revoke_95_s=round(run.time_to(0.95), 1),
        # of the holders online at some moment of the horizon (one offline throughout learns nothing)
        revoke_reachable=round(run.reachable / max(1, run.holders), 3),
        revoke_95_reachable_s=round(run.time_to(0.95, run.reachable), 1),
        revoke_share_at_15min=round(sum(1 for t in run.dropped_at if t <= 900) / max(1, run.holders), 3),
        returning_max=max(run.returning_online.values(), default=0.0),
        revoke_last_holding_min=max(late, default=0),
        holding_at_15min=round(online_holding.get(15, math.nan), 4),
        returning_max_after_13min=max((v for m, v in run.returning_online.items() if m >= 13), default=0.0),
        probes_old_max_after_13min=max((v for m, v in run.probes_old.items() if m >= 13), default=0.0),
        repaired=run.repaired,
        rejoin=args.rejoin,
    )
    row["holding_by_min"] = {m: round(v, 4) for m, v in sorted(online_holding.items())}
    row["probes_old_by_min"] = {m: round(v, 3) for m, v in sorted(run.probes_old.items())}
    row["returning_by_min"] = {m: round(v, 4) for m, v in sorted(run.returning_online.items())}
    report("revocation", row)
