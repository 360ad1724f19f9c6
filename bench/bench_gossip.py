"""Card propagation by gossip: time until a new card version has reached all N nodes (N = 10, 25, 50).

    .venv/bin/python bench/bench_gossip.py [--sizes 10,25,50] [--rounds 10]

Nodes are real libp2p hosts on 127.0.0.1 IN ONE PROCESS (one event loop on one core, so every figure
includes the work of all N nodes: pessimistic compared with one process per node). Once every
directory holds every card, a random node issues a new version of its card (``republish``: new
signature, new expiry) and we poll (every 2 ms) until every other node's directory holds that version.
Reported: time to the first receiver, to half, and to all of them (p50 / p95 over rounds), and
deliveries that never came within 30 s.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import trio
from bench_find import run_one
from find_world import open_inprocess_peers

DELIVERY_LIMIT = 30.0
#: Seconds to wait for every directory to hold every card before the rounds start.
SPREAD_LIMIT = 120.0


async def wait_all_cards(peers: list[tuple[Any, Any]], n: int) -> int:
    """Until every directory holds all n cards, at most SPREAD_LIMIT seconds; returns the cards held."""
    with trio.move_on_after(SPREAD_LIMIT):
        while any(len(s.directory) < n for _, s in peers):  # noqa: ASYNC110 (no event per card)
            await trio.sleep(0.2)
    return sum(len(s.directory) for _, s in peers)


async def one_round(peers: list[tuple[object, object]], rng: random.Random) -> list[float] | None:
    node, service = peers[rng.randrange(len(peers))]
    others = [s for n, s in peers if n is not node]
    started = time.perf_counter()
    card = await service.republish()  # type: ignore[attr-defined]
    arrivals: dict[int, float] = {}
    with trio.move_on_after(DELIVERY_LIMIT):
        while len(arrivals) < len(others):
            for i, other in enumerate(others):
                if i not in arrivals and other.directory.version_of(card.peer_id) == card.version:  # type: ignore[attr-defined]
                    arrivals[i] = (time.perf_counter() - started) * 1000
            await trio.sleep(0.002)
    if len(arrivals) < len(others):
        return None
    return sorted(arrivals.values())


def progress(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


async def measure(n: int, rounds: int, settle: float) -> None:
    """Measure one network size and print its row (before the nodes are torn down)."""
    with tempfile.TemporaryDirectory(prefix="ioa-bench-gossip-") as root:
        await measure_in(n, rounds, settle, Path(root))


async def measure_in(n: int, rounds: int, settle: float, root: Path) -> None:
    async with open_inprocess_peers(n, {"dht": False}, root) as peers:
        started = time.monotonic()
        await wait_all_cards(peers, n)
        progress(
            f"N={n}: every card everywhere after {time.monotonic() - started:.1f} s "
            f"({sum(len(s.directory) for _, s in peers)}/{n * n})"
        )
        await trio.sleep(settle)
        rng = random.Random(5)
        firsts, halves, alls, lost = [], [], [], 0
        for _ in range(rounds):
            arrivals = await one_round(peers, rng)
            progress(f"round: {'lost' if arrivals is None else f'{arrivals[-1]:.0f} ms to all'}")
            if arrivals is None:
                lost += 1
                continue
            firsts.append(arrivals[0])
            halves.append(arrivals[len(arrivals) // 2])
            alls.append(arrivals[-1])
            await trio.sleep(1.5)  # above the receivers' per-publisher flood guard
        row = {
            "n": n,
            "first_p50": float(np.percentile(firsts, 50)) if firsts else None,
            "half_p50": float(np.percentile(halves, 50)) if halves else None,
            "all_p50": float(np.percentile(alls, 50)) if alls else None,
            "all_p95": float(np.percentile(alls, 95)) if alls else None,
            "lost": lost,
        }
        print(json.dumps(row), flush=True)  # read by run_one in the parent process


def describe(row: dict[str, Any] | None, n: str) -> str:
    if row is None:
        return f"{n:>3} failed (see the messages above)"
    cells = [
        f"{row[k]:.1f}" if row[k] is not None else "-"
        for k in ("first_p50", "half_p50", "all_p50", "all_p95")
    ]
    widths = (10, 9, 8, 8)
    return (
        f"{row['n']:>3} "
        + " ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
        + f" {row['lost']:>5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--settle", type=float, default=30.0)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("libp2p", "ioa_p2p", "multiaddr"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.one:
        trio.run(measure, args.one, args.rounds, args.settle)
        return
    print(f"# load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    print(
        f"{'N':>3} {'first p50':>10} {'half p50':>9} {'all p50':>8} {'all p95':>8} {'lost':>5}"
        f"   ms, {args.rounds} rounds",
        flush=True,
    )
    for n in args.sizes.split(","):
        row = run_one(__file__, ["--one", n, "--rounds", str(args.rounds), "--settle", str(args.settle)])
        print(describe(row, n), flush=True)


if __name__ == "__main__":
    main()
