"""Where lookups under churn spend their time: gone peers in routing tables (issue 25, d-churn).

    nice -n 10 .venv/bin/python bench/sim_churn_diag.py --nodes 10000 --churn 0.3 --lookups 200 --seed 1 \
        [--settle 20] [--traffic-window 10] [--refresh-lookups 2] [--no-stale-contacts]

Forms the network as ``bench_sim.py --connected-tables`` does, then reports:

- **staleness**: of the routing-table entries of the online nodes, the share naming a node that is
  offline now (all, and of the entries the node holds no connection to);
- **lookups** (``--lookups`` FIND_NODE lookups of random keys from random online nodes, as
  ``bench_sim.py --parts lookups``): p50 / p95; the gone peers each asked (a request to an offline node,
  which costs the asker its reach wait before the lookup moves on), split by where the asker got them:
  its own routing table or connections at the start (``own``) or an answer (``named``); the reach waits
  run out on them, summed per lookup, as a share of the lookups' time (waits of one lookup may overlap:
  an upper bound of the time they cost); p50 of the lookups that asked no gone peer against those that
  asked one or more.

``--no-stale-contacts``: the simulated nodes do not tell a connection the remote closed from one they
closed (``SimConfig.stale_contacts = False``: the node before 2026-11-29), so gone peers stay in tables.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import Any

from bench_sim import form
from sim_report import settle_gc

from ioa_p2p.dht.early import SURE_RANK
from ioa_p2p.dht.sim import kad
from ioa_p2p.dht.sim.measure import Traffic, run_for
from ioa_p2p.dht.sim.world import World, percentile


def staleness(world: World) -> dict[str, float]:
    """The share of the online nodes' table entries that name an offline node."""
    entries = gone = unconnected = gone_unconnected = marked = 0
    for node in world.nodes:
        if not node.online:
            continue
        stale = node.contacts.peers if node.contacts is not None else ()
        for peer in node.table:
            other = world.by_peer[peer]
            connected = other.index in node.conns
            entries += 1
            gone += not other.online
            marked += not other.online and peer in stale
            if not connected:
                unconnected += 1
                gone_unconnected += not other.online
    return {
        "table_entries": entries,
        "gone_share": round(gone / max(1, entries), 4),
        "gone_marked_stale": round(marked / max(1, gone), 4),
        "unconnected_share": round(unconnected / max(1, entries), 4),
        "gone_of_unconnected": round(gone_unconnected / max(1, unconnected), 4),
    }


class Tracer:
    """Per lookup: the gone peers asked, where the asker got them, and the reach waits run out on them."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.runs: dict[int, dict[str, Any]] = {}
        tracer = self
        pump, hedge = kad.LookupRun._pump, kad.LookupRun._hedge

        def traced_pump(run: kad.LookupRun) -> None:
            info = tracer.runs.get(id(run))
            if info is not None:
                before = set(run.in_flight)
                pump(run)
                for peer in set(run.in_flight) - before:
                    node = tracer.world.node_of(peer)
                    if node is not None and not node.online:
                        where = "own" if peer in info["start"] else "named"
                        info[where] += 1
                        suspect = run.lookup.suspect
                        info["suspected"] += bool(suspect is not None and suspect(peer))
            else:
                pump(run)

        def traced_hedge(run: kad.LookupRun, peer: bytes, at: float) -> None:
            info = tracer.runs.get(id(run))
            if info is not None and not run.finished and run.in_flight.get(peer) == at:
                node = tracer.world.node_of(peer)
                suspect = run.lookup.suspect
                if node is not None and not node.online and not (suspect is not None and suspect(peer)):
                    info["waits"].append((at, tracer.world.loop.now))
            hedge(run, peer, at)

        kad.LookupRun._pump = traced_pump  # type: ignore[method-assign]
        kad.LookupRun._hedge = traced_hedge  # type: ignore[method-assign]

    def lookups(self, count: int, rng: random.Random, spacing: float = 0.05) -> list[dict[str, Any]]:
        world, done = self.world, []

        def start() -> None:
            online = [n for n in world.nodes if n.online]
            node = online[rng.randrange(len(online))]
            key = rng.randbytes(32)
            keys = [key]
            known = kad.known_peers(world, node, keys)
            lookup = kad.Lookup(keys, known, me=node.peer, ask=kad.DEFAULT_ASK)
            info: dict[str, Any] = {"start": set(known), "own": 0, "named": 0, "suspected": 0, "waits": []}
            info["began"] = world.loop.now

            def finished(run: kad.LookupRun) -> None:
                info["latency"] = run.elapsed
                info["waited"] = covered(info["waits"], info["began"], world.loop.now)
                done.append(info)

            run = kad.LookupRun(world, node, lookup, kad.FIND_NODE, on_done=finished)
            self.runs[id(run)] = info
            run.start()

        begin = world.loop.now
        for i in range(count):
            world.loop.at(begin + i * spacing, start)
        world.loop.run(begin + count * spacing + 30, done=lambda: len(done) >= count)
        return done


def covered(intervals: list[tuple[float, float]], begin: float, end: float) -> float:
    """Seconds of ``[begin, end]`` within at least one of ``intervals`` (their union)."""
    total, reach = 0.0, begin
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, end)
        if b > a:
            total += b - a
            reach = b
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--churn", type=float, default=0.3)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--traffic-window", type=float, default=10.0)
    parser.add_argument("--refresh-lookups", type=int, default=2)
    parser.add_argument("--warm-from", type=int, default=1000)
    parser.add_argument("--no-stale-contacts", dest="stale_contacts", action="store_false")
    args = parser.parse_args()
    args.split, args.hedge, args.self_lookup, args.loss = "any", "reach", "node", 0.0
    args.request_rtts, args.dial_rtts, args.connected_tables = 1, 2, True
    args.early_rank = SURE_RANK
    started, cpu = time.perf_counter(), time.process_time()
    world = form(args.nodes, args.churn, None, args)
    traffic = Traffic(world)
    run_for(world, args.traffic_window, traffic)
    settle_gc()
    row: dict[str, Any] = {"N": args.nodes, "churn": args.churn, "seed": args.seed}
    row["stale_contacts"] = args.stale_contacts
    row["msgs/node/min"] = round(traffic.per_node_minute()["total"], 1)
    row.update(staleness(world), table=round(statistics.mean(world.table_sizes()), 1))
    row["conns_dropped"] = world.net.dropped
    rng = random.Random(args.seed * 1000 + args.nodes + int(args.churn * 100))
    infos = Tracer(world).lookups(args.lookups, rng)
    latencies = [i["latency"] for i in infos]
    clean = [i["latency"] for i in infos if not i["own"] and not i["named"]]
    hit = [i["latency"] for i in infos if i["own"] or i["named"]]
    row.update(
        lookups=len(infos),
        p50=round(percentile(latencies, 0.5), 3),
        p95=round(percentile(latencies, 0.95), 3),
        gone_asked_own=round(statistics.mean(i["own"] for i in infos), 2),
        gone_asked_named=round(statistics.mean(i["named"] for i in infos), 2),
        gone_suspected=round(statistics.mean(i["suspected"] for i in infos), 2),
        waited_share=round(sum(i["waited"] for i in infos) / max(1e-9, sum(latencies)), 3),
        lookups_hit=len(hit),
        p50_no_gone=round(percentile(clean, 0.5), 3) if clean else math.nan,
        p50_gone=round(percentile(hit, 0.5), 3) if hit else math.nan,
        stale_evicted=world.counters["stale evicted"],
        cpu_s=round(time.process_time() - cpu, 1),
        wall_s=round(time.perf_counter() - started, 1),
    )
    print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
