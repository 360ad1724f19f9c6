"""Joiners arriving together at one bootstrap node: how long each takes to join, and what it costs.

Run: python bench/bench_join.py [--joiners 40] [--seconds 40] [--spread 0] [--json]

A bootstrap node in its own process (``open_testnet`` with no agents), then ``--joiners`` light nodes in
this one process (whole nodes without discovery or goals: a host, the DHT, bootstrap dialing and peer
discovery), all opened at once (``--spread S``: over S seconds), each bootstrapping from it. Per joiner:
seconds until its first bootstrap connection (``joined``), its failed bootstrap dials and their reasons,
and its routing table after ``--seconds``; the bootstrap process's CPU over the run (% of one core) and
the joiners' process's. Issue 26 (l-boot), docs/performance.md "Joining a busy bootstrap node".
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import logging
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.net.routing import lookup_slots

CLK = os.sysconf("SC_CLK_TCK")
LIGHT = {"discovery": {"enabled": False}, "goals": {"enabled": False}}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    logging.getLogger("ioa_p2p").setLevel(logging.ERROR)
    root = Path(tempfile.mkdtemp(prefix="bench-join-"))
    out: dict[str, Any] = {"joiners": args.joiners, "spread_s": args.spread, "load_start": load()}
    async with open_testnet(root / "net", []) as net:
        boot = net.bootstrap
        assert boot is not None and boot.pid is not None
        addrs = net.bootstrap_addrs()
        nodes: list[Node] = []
        joined: dict[int, float] = {}
        boot_cpu0, own_cpu0 = cpu_seconds(boot.pid), cpu_seconds(os.getpid())
        t0 = trio.current_time()
        rng = random.Random(1)
        async with trio.open_nursery() as nursery:

            async def joiner(i: int) -> None:
                await trio.sleep(rng.uniform(0, args.spread) if args.spread > 0 else 0)
                config = NodeConfig(home=root / f"j{i}", bootstrap=tuple(addrs), raw=LIGHT)
                async with open_node(config, identity=Identity.generate(), control_api=False) as node:
                    nodes.append(node)
                    while not node.bootstrap.joined:  # noqa: ASYNC110 - the state has no event
                        await trio.sleep(0.05)
                    joined[i] = trio.current_time() - t0
                    await trio.sleep_forever()

            for i in range(args.joiners):
                nursery.start_soon(joiner, i)
            tables_over_time = []
            for _ in range(max(1, int(args.seconds // 10))):
                await trio.sleep(min(10.0, args.seconds))
                sizes = [node.net.dht.routing_table.size() for node in nodes]
                tables_over_time.append(statistics.median(sizes) if sizes else 0)
            out["table_median_every_10s"] = tables_over_time
            slots = lookup_slots()
            out["lookup_slots"] = {"waiting": slots.waiting, **dataclasses.asdict(slots.counts)}
            with trio.move_on_after(20):
                conns = (await boot.call("GET", "/net"))["connections"]
                out["boot_connections"] = {k: v for k, v in conns.items() if isinstance(v, int)}
            span = trio.current_time() - t0
            out["boot_cpu_pct"] = round(100 * (cpu_seconds(boot.pid) - boot_cpu0) / span, 1)
            out["joiners_cpu_pct"] = round(100 * (cpu_seconds(os.getpid()) - own_cpu0) / span, 1)
            errors: collections.Counter[str] = collections.Counter()
            attempts = []
            for node in nodes:
                for peer in node.bootstrap.view():
                    attempts.append(peer["attempts"])
                    if peer["last_error"]:
                        errors[peer["last_error"].rsplit("(", 1)[-1][:60]] += 1
            tables = [node.net.dht.routing_table.size() for node in nodes]
            times = list(joined.values())
            out.update(
                {
                    "joined": f"{len(times)}/{args.joiners}",
                    "join_p50_s": round(statistics.median(times), 2) if times else None,
                    "join_p90_s": round(pct(times, 0.9), 2) if times else None,
                    "join_max_s": round(max(times), 2) if times else None,
                    "failed_dials": sum(attempts),
                    "joiners_with_failures": sum(1 for a in attempts if a),
                    "errors": dict(errors.most_common(5)),
                    "table_median": statistics.median(tables) if tables else 0,
                    "table_min": min(tables) if tables else 0,
                    "load_end": load(),
                }
            )
            nursery.cancel_scope.cancel()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--joiners", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--spread", type=float, default=0.0, help="joiners open over this many seconds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    start = time.monotonic()
    result = trio.run(run, args)
    result["wall_s"] = round(time.monotonic() - start, 1)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
