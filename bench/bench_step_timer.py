"""What the CPU meter's trio instrument (``StepTimer``, node/net/cpu_meter.py) costs a node's event loop
(issue 26, docs/performance.md "Light nodes", tenth round).

Run: python bench/bench_step_timer.py [--round-trips 20000] [--repeats 2]

Two tasks of one trio run ping-pong one byte over a socket pair, their tasks owned by a peer (the
``OWNER`` context variable the node sets on every task that serves a peer, so every step is timed and
charged), with and without the instrument; prints the process CPU per round trip (``time.process_time``)
of each, alternating, and the difference. A round trip is two socket waits and about four task steps on
each side: the loop iterations a node's I/O costs, idle or not.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import trio

from ioa_p2p.node.net import cpu_meter


class _Budgets:
    """Stands in for ``NodeBudgets``: the instrument only calls ``charge_cpu`` on it."""

    def charge_cpu(self, peer: Any, cpu: float, wall: float) -> None:
        pass


async def round_trips(n: int, instrument: bool) -> float:
    """CPU seconds per round trip of ``n`` owned round trips over a socket pair."""
    if instrument:
        trio.lowlevel.add_instrument(cpu_meter.StepTimer())
    a, b = trio.socket.socketpair()
    cpu_meter.OWNER.set((_Budgets(), "peer"))  # type: ignore[arg-type]

    async def pong() -> None:
        for _ in range(n):
            await b.recv(1)
            await b.send(b"x")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pong)
        started = time.process_time()
        for _ in range(n):
            await a.send(b"x")
            await a.recv(1)
        spent = time.process_time() - started
    a.close()
    b.close()
    return spent / n


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        print("load", " ".join(f.read().split()[:3]))
    without, with_ = [], []
    for _ in range(args.repeats):
        without.append(trio.run(round_trips, args.round_trips, False) * 1e6)
        with_.append(trio.run(round_trips, args.round_trips, True) * 1e6)
    for name, values in (("without the instrument", without), ("with StepTimer", with_)):
        print(f"{name:>24}: {', '.join(f'{v:.1f}' for v in values)} us CPU per round trip")
    print(f"{'StepTimer':>24}: +{min(with_) - min(without):.1f} us per round trip (best of {args.repeats})")


if __name__ == "__main__":
    main()
