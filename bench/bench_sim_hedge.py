"""Where a simulated lookup's time goes: the hedge and the round trips of a dial, at one network size.

    nice -n 10 .venv/bin/python bench/bench_sim_hedge.py [--nodes 2000] [--lookups 200]
        [--hedge fixed,adaptive,by-connection] [--dial-rtts 3,2] [--churn 0,0.3] [--seed 1]

Each combination runs one network of ``--nodes`` made-up identities (no cards: lookups only), started
formed with every node connected to its table's peers (:meth:`World.warm_start`), 2 bucket-refresh
lookups per refresh, 120 s of formation, then churn (if any), 60 s of traffic and ``--lookups``
FIND_NODE lookups of random keys from random online nodes, as ``bench_sim.py --parts lookups
--connected-tables --refresh-lookups 2`` measures them. Hedges (``SimConfig.hedge``): ``fixed`` 0.4 s;
``adaptive`` ``srtt + 4 rttvar`` of all the node's answers (``kad_io`` before 2026-11-28); ``by-connection``
the same kept apart for answers over open connections and dialled ones (:class:`~ioa_p2p.dht.rtt.Hedges`);
``reach`` the node now (a dial hedged once its handshake misses the reach wait, peers not reached
remembered, a spare candidate per key while dials miss).
``--dial-rtts 2``: the first request rides with the dialer's last handshake message (not the node's).
Virtual time only: the figures do not depend on load; each row prints its CPU seconds.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

from ioa_p2p.dht.sim.links import LinkModel
from ioa_p2p.dht.sim.measure import LookupSummary, Traffic, run_for, run_lookups
from ioa_p2p.dht.sim.world import SimConfig, World


def one(nodes: int, hedge: str, dial_rtts: int, churn: float, lookups: int, seed: int) -> str:
    began = time.process_time()
    config = SimConfig(
        nodes=nodes,
        seed=seed,
        refresh_lookups=2,
        hedge=hedge,  # type: ignore[arg-type]  # checked by argparse's choices
        churn=churn,
        links=LinkModel(dial_rtts=dial_rtts),
    )
    world = World(config)
    world.warm_start(connected_tables=True)
    world.loop.run(until=120)
    world.start_churn()
    traffic = Traffic(world)
    run_for(world, 60, traffic)
    s = LookupSummary.of(run_lookups(world, lookups, random.Random(seed + 1)))
    return (
        f"| {nodes:,} | {hedge} | {dial_rtts} | {churn:g} | {s.p50:.3f} / {s.p95:.3f} s | {s.hops_mean:.2f} "
        f"| {s.messages_mean:.1f} | {traffic.per_node_minute()['total']:.0f} | {s.success:.3f} "
        f"| {s.overlap:.3f} | {time.process_time() - began:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--hedge", default="fixed,adaptive,by-connection")
    parser.add_argument("--dial-rtts", default="3")
    parser.add_argument("--churn", default="0,0.3")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    hedges = args.hedge.split(",")
    for hedge in hedges:
        if hedge not in ("fixed", "adaptive", "by-connection", "reach"):
            parser.error(f"--hedge: fixed, adaptive, by-connection or reach, not {hedge!r}")
    dials = [int(x) for x in args.dial_rtts.split(",")]
    churns = [float(x) for x in args.churn.split(",")]
    print(
        "| N | hedge | dial round trips | churn | p50 / p95 | hops | msgs per lookup | msgs/node/min "
        "| success | overlap | CPU s |"
    )
    print("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for hedge, dial, churn in itertools.product(hedges, dials, churns):
        print(one(args.nodes, hedge, dial, churn, args.lookups, args.seed), flush=True)


if __name__ == "__main__":
    main()
