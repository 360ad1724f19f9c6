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
import logging
import os
import random
import sys
import time

import numpy as np
import trio
from bench_find import open_bench_nodes, run_one, wait_all_cards

DELIVERY_LIMIT = 30.0


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
    async with open_bench_nodes(n, {"dht": False}) as peers:
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
        print(
            f"{n:>3} {np.percentile(firsts, 50):>10.1f} {np.percentile(halves, 50):>9.1f} "
            f"{np.percentile(alls, 50):>8.1f} {np.percentile(alls, 95):>8.1f} {lost:>5}",
            flush=True,
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
        run_one(__file__, ["--one", n, "--rounds", str(args.rounds), "--settle", str(args.settle)])


if __name__ == "__main__":
    main()
