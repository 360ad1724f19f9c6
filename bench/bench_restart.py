"""A peer that restarts on a new address: how soon is it reachable again (issue 19: within 5 s)?

Run: python bench/bench_restart.py [--rounds 5]

In-process nodes on 127.0.0.1 (real Noise + yamux over TCP, the default config): a bootstrap node,
``a`` and ``b``, both joined through it. Each round ``b`` stops (as when its process ends), ``a`` tries
one send to it and fails (py-libp2p's negative cache used to remember that for 60 s), then ``b``
restarts with the same key on a new port (``tcp/0``) and joins again: that start is when it *announces*
the new address (its new signed card goes out by gossip and the DHT, its new peer record by identify).
Three figures, each measured from that moment, in turns (a round measures one, so they do not help
each other):

- ``send``: ``a`` sends to ``b`` by peer ID alone, every 100 ms (each try bounded by 2 s) until one is
  acknowledged (``b`` joins as every node does, and may dial ``a`` itself: ``a`` is in its routing table);
- ``learned``: the same, but ``b`` dials nobody but its bootstrap node (``[node] target_peers = 0``):
  ``a`` must learn the new address from the network (``b``'s new card, by gossip or the DHT);
- ``connect``: ``POST /connect`` to the new address as given (a user or a script that was told it).

Prints every round, then the median and the maximum of each, against the 5 s target.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node
from ioa_p2p.node.net.libp2p_patches import quiet_libp2p_logs

TARGET_S = 5.0
TRY_EVERY = 0.1
TRY_TIMEOUT = 2.0
GIVE_UP_S = 60.0


def strip(addr: str) -> str:
    return addr.rsplit("/p2p/", 1)[0]


class Restartable:
    """One node (one identity) that can be stopped and started again, in its own task."""

    def __init__(self, nursery: trio.Nursery, identity: Identity) -> None:
        self.nursery, self.identity = nursery, identity
        self.scope: trio.CancelScope | None = None
        self.done = trio.Event()

    async def start(self, config: NodeConfig) -> Any:
        self.scope, self.done = trio.CancelScope(), trio.Event()
        scope, done = self.scope, self.done

        async def run(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            try:
                with scope:
                    async with open_node(
                        config, identity=self.identity, write_info=False, control_api=False
                    ) as node:
                        task_status.started(node)
                        await trio.sleep_forever()
            finally:
                done.set()

        return await self.nursery.start(run)

    async def stop(self) -> None:
        if self.scope is not None:
            self.scope.cancel()
            await self.done.wait()


async def watch_card(a: Any, b: Any, since: float, seen: dict[str, float]) -> None:
    """When ``b``'s card with its new address was issued, and when ``a`` held it (for the printout)."""
    new = b.listen_addrs()[0]
    discovery = b.services.discovery
    with trio.move_on_after(GIVE_UP_S):
        while len(seen) < 2:
            mine = discovery.card
            if "issued" not in seen and mine is not None and new in mine.card.addrs:
                seen["issued"] = time.monotonic() - since
            held = a.services.discovery.directory.get(b.peer_id)
            if "issued" in seen and held is not None and held.card.version == mine.card.version:
                seen["a holds it"] = time.monotonic() - since
            await trio.sleep(0.02)


async def until_sent(a: Any, b_id: Any, text: str, errors: list[str]) -> float:
    """Seconds until one send from ``a`` to ``b_id`` is acknowledged (tries every 100 ms); why the
    failed tries failed goes to ``errors``."""
    started = time.monotonic()
    while time.monotonic() - started < GIVE_UP_S:
        at = time.monotonic() - started
        with trio.move_on_after(TRY_TIMEOUT) as timed:
            try:
                await a.services.messaging.send_text(b_id, text)
                return time.monotonic() - started
            except Exception as exc:  # not reachable yet: the typed error, tried again
                errors.append(f"+{at:.2f} s {type(exc).__name__}: {str(exc)[:150]}")
        if timed.cancelled_caught:
            errors.append(f"+{at:.2f} s no answer within {TRY_TIMEOUT:.0f} s")
        await trio.sleep(TRY_EVERY)
    return float("inf")


async def main(rounds: int, verbose: bool) -> None:
    quiet_libp2p_logs()
    root = Path(tempfile.mkdtemp(prefix="ioa-bench-restart-"))
    figures: dict[str, list[float]] = {"send": [], "learned": [], "connect": []}
    async with trio.open_nursery() as nursery:
        boot_node = Restartable(nursery, Identity.generate())
        boot = await boot_node.start(NodeConfig(home=root / "boot"))
        entry = (boot.listen_addrs()[0],)
        a_node = Restartable(nursery, Identity.generate())
        a = await a_node.start(NodeConfig(home=root / "a", bootstrap=entry))
        b_node = Restartable(nursery, Identity.generate())
        b = await b_node.start(NodeConfig(home=root / "b0", bootstrap=entry))
        await until_sent(a, b.peer_id, "first", [])  # a knows b (its card, a connection)
        modes = list(figures)
        for index in range(1, len(modes) * rounds + 1):
            mode = modes[(index - 1) % len(modes)]
            old = b.listen_addrs()[0]
            await b_node.stop()
            while a.is_connected(b.peer_id):  # noqa: ASYNC110 - the connection closes on its own
                await trio.sleep(0.02)
            with trio.move_on_after(TRY_TIMEOUT), contextlib.suppress(Exception):
                await a.services.messaging.send_text(b.peer_id, "while it is down")  # fails: b is down
            config = NodeConfig(home=root / f"b{index}", bootstrap=entry)
            if mode == "learned":
                config = replace(config, target_peers=0)
            b = await b_node.start(config)
            announced = time.monotonic()
            new = b.listen_addrs()[0]
            assert new != old, (old, new)
            seen: dict[str, float] = {}
            errors: list[str] = []
            nursery.start_soon(watch_card, a, b, announced, seen)
            if mode in ("send", "learned"):
                took = await until_sent(a, b.peer_id, f"round {index}", errors)
            else:
                with trio.fail_after(GIVE_UP_S):
                    await a.connect(new)
                took = time.monotonic() - announced
            figures[mode].append(took)
            card = ", ".join(f"{k} +{v:.2f} s" for k, v in seen.items())
            print(
                f"round {index:2d} {mode:7s} reachable {took:6.2f} s after the restart; {strip(old)} -> "
                f"{strip(new)}; new card: {card or 'not yet'}"
            )
            if verbose and errors:
                print("   failed tries: " + "\n                 ".join(errors))
        nursery.cancel_scope.cancel()
    for mode, values in figures.items():
        ok = "within" if max(values) <= TARGET_S else "ABOVE"
        print(
            f"{mode:7s}: median {statistics.median(values):.2f} s, max {max(values):.2f} s over "
            f"{len(values)} restarts ({ok} the {TARGET_S:.0f} s target)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="restarts measured per figure")
    parser.add_argument("-v", "--verbose", action="store_true", help="say why each failed try failed")
    args = parser.parse_args()
    trio.run(main, args.rounds, args.verbose)
