"""``find`` latency (p50/p95) and recall@5 against exact search over all cards, at N = 10, 25, 50 nodes.

    .venv/bin/python bench/bench_find.py [--sizes 10,25,50] [--queries 30] [--modes dht,gossip]

Nodes are real libp2p hosts on 127.0.0.1 (TCP, Noise, yamux) but run IN ONE PROCESS (one event loop,
one core): every figure includes the other N-1 nodes' work, so they are pessimistic compared with one
process per node. Agents get distinct descriptions (the teaming dev agents first, then generated
ones); queries are the teaming dev goals (or generated tasks if the file is absent).

Modes:

- ``dht``: gossip off, and the asking node's directory emptied before every query (cold): the answer
  comes only from the LSH provider records and card records in the DHT. This is what recall measures.
- ``gossip``: the default configuration (gossip + DHT) once every directory is complete.

Ground truth: the exact top 5 by cosine similarity over all N cards with the same embedder.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
import trio
from shared_data import data_file

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node

DATA = data_file("teaming-dev.json")
SUBJECTS = [
    "invoices",
    "weather",
    "recipes",
    "contracts",
    "genomes",
    "stock prices",
    "satellite images",
    "podcasts",
    "spreadsheets",
    "emails",
    "source code",
    "legal cases",
    "poems",
    "sensor logs",
    "flight schedules",
    "medical scans",
    "tax forms",
    "news articles",
    "product reviews",
    "maps",
]
VERBS = [
    "summarizes",
    "translates",
    "classifies",
    "plots charts of",
    "extracts tables from",
    "answers questions about",
    "writes reports on",
    "detects anomalies in",
    "cleans",
    "forecasts",
]


def agents_and_goals(n: int) -> tuple[list[tuple[str, str]], list[str]]:
    agents: list[tuple[str, str]] = []
    goals: list[str] = []
    if not DATA.exists():
        print(
            f"note: {DATA} is absent (set IOA_SHARED); using generated agents and goals only", file=sys.stderr
        )
    else:
        data = json.loads(DATA.read_text(encoding="utf-8"))
        agents = [(a["name"], a["description"]) for a in data["agents"]]
        goals = [g["goal"] for g in data["goals"]]
    rng = random.Random(7)
    combos = [(v, s) for v in VERBS for s in SUBJECTS]
    rng.shuffle(combos)
    for verb, subject in combos:
        if len(agents) >= n:
            break
        agents.append((f"{verb.split()[0]}-{subject.replace(' ', '-')}", f"{verb} {subject}"))
    if not goals:
        goals = [f"please {verb.split()[0]} my {subject}" for verb, subject in combos[:48]]
    return agents[:n], goals


@asynccontextmanager
async def open_bench_nodes(n: int, discovery: dict[str, Any]) -> AsyncIterator[list[tuple[Any, Any]]]:
    agents, _ = agents_and_goals(n)
    home = Path(tempfile.mkdtemp(prefix="ioa-bench-"))
    peers: list[tuple[Any, Any]] = []
    async with AsyncExitStack() as stack:
        for i, (name, description) in enumerate(agents):
            bootstrap = (peers[0][0].listen_addrs()[0],) if peers else ()
            config = NodeConfig(
                home=home / f"n{i}",
                bootstrap=bootstrap,
                bootstrap_backoff=0.2,
                raw={"agent": {"name": name, "description": description}, "discovery": discovery},
            )
            node = await stack.enter_async_context(
                open_node(config, identity=Identity.generate(), write_info=False, control_api=False)
            )
            peers.append((node, node.services.discovery))
        yield peers


async def wait_all_cards(peers: list[tuple[Any, Any]], n: int, limit: float = 120.0) -> None:
    """Until every directory holds all n cards (gossip done), at most ``limit`` seconds."""
    with trio.move_on_after(limit):
        for _ in itertools.count():
            if all(len(service.directory) == n for _, service in peers):
                return
            await trio.sleep(0.2)


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


async def measure(n: int, mode: str, n_queries: int, settle: float) -> None:
    """Measure one configuration and print its row (before the nodes are torn down)."""
    discovery = {"gossip": mode == "gossip"}
    _, goals = agents_and_goals(n)
    async with open_bench_nodes(n, discovery) as peers:
        started = time.monotonic()
        if mode == "gossip":
            await wait_all_cards(peers, n)
        await trio.sleep(max(0.0, settle - (time.monotonic() - started)))
        embedder = peers[0][1].embedder
        vectors = {str(node.peer_id): s.card.embedding() for node, s in peers}
        keys = list(vectors)
        matrix = np.array([vectors[k] / np.linalg.norm(vectors[k]) for k in keys])
        rng = random.Random(11)
        latencies, recalls = [], []
        for q in range(n_queries):
            goal = goals[q % len(goals)]
            node, service = peers[rng.randrange(n)]
            if mode == "dht":
                for entry in list(service.directory):
                    if entry.card.peer_id != node.peer_id:
                        service.directory.remove(entry.card.peer_id)
            query = embedder.embed([goal])[0]
            truth = {keys[i] for i in np.argsort(-(matrix @ query))[:5]}
            t0 = time.perf_counter()
            matches = await service.find(goal, k=5)
            latencies.append((time.perf_counter() - t0) * 1000)
            recalls.append(len({str(m.card.peer_id) for m in matches} & truth) / 5)
        print(
            f"{n:>3} {mode:<7} {pct(latencies, 50):>8.1f} {pct(latencies, 95):>8.1f} "
            f"{statistics.mean(recalls):>9.3f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--modes", default="dht,gossip")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="seconds to let the network settle (+2 s per node)"
    )
    parser.add_argument("--one", nargs=2, metavar=("N", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("libp2p", "ioa_p2p", "multiaddr"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.one:
        n = int(args.one[0])
        trio.run(measure, n, args.one[1], args.queries, args.settle + 2 * n)
        return
    print(f"# load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    # One process per configuration: a fresh event loop each time, and a crash while tearing down
    # many in-process nodes (seen with py-libp2p 0.8.1 at N >= 25) cannot lose the other rows.
    print(
        f"{'N':>3} {'mode':<7} {'p50 ms':>8} {'p95 ms':>8} {'recall@5':>9}   (queries={args.queries})",
        flush=True,
    )
    for n in args.sizes.split(","):
        for mode in args.modes.split(","):
            run_one(
                __file__, ["--one", n, mode, "--queries", str(args.queries), "--settle", str(args.settle)]
            )


def run_one(script: str, argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, script, *argv], capture_output=True, text=True, timeout=3600, check=False
    )
    rows = [line for line in done.stdout.splitlines() if line.strip()]
    print("\n".join(rows) if rows else f"{' '.join(argv)}: failed ({done.returncode})", flush=True)


if __name__ == "__main__":
    main()
