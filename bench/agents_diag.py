"""Why cards do (not) spread among the agents of one process: N agents with ``open_agents`` in this process.

Run: python bench/agents_diag.py [--agents 25] [--seconds 240] [--every 5] [--no-yield]

A bootstrap node runs in its own process (``open_testnet``); the N agents (agent 0 "coordinator", the
others with the ``echo`` test adapter) run in this one, as ``ioa node start --agents FILE`` runs them
(its ``RunnableClock`` with ``--runnable-clock``). Every ``--every`` s it prints, per agent: connections,
py-libp2p pubsub peers, card-topic peers, mesh size, cards published / received / rejected by the topic
validator, cards held, routing-table size, discovery counters, CPU-budget waits (``paced``, ``yielded``
to trusted peers)
and the node's loop gauge; every failed pubsub registration with its cause (``Pubsub._handle_new_peer``
wrapped), and where connections were closed from (``SwarmConn.close`` callers); and the process's
``/proc/self/schedstat`` run and run-queue wait. It stops when every agent holds every card.
``--no-yield`` disables strangers yielding to trusted peers (``NodeBudgets._yield_to_trusted``), to
compare. docs/performance.md, "Why 25 agents in one process spread no card".
"""

from __future__ import annotations

import argparse
import collections
import logging
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import tomli_w
import trio

from ioa_p2p.bootstrap.specs import NodeSpec, shared_config
from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.config.node_config import load_config
from ioa_p2p.node.agents import agent_specs, open_agents, plan_of_config
from ioa_p2p.node.node import Node
from ioa_p2p.testing.kinds import register_test_kinds

#: Events per host (keyed by id of the host or its swarm): pubsub registrations, connection closes.
EVENTS: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def install_probes() -> None:
    """Wrap py-libp2p's pubsub registration and connection close to count outcomes and callers."""
    from libp2p.network.connection.swarm_connection import SwarmConn
    from libp2p.pubsub.pubsub import Pubsub

    new_peer, dead_peer, close = Pubsub._handle_new_peer, Pubsub._handle_dead_peer, SwarmConn.close

    async def probed_new_peer(self: Any, peer_id: Any) -> None:
        events = EVENTS[id(self.host)]
        events["registration tried"] += 1
        try:
            await new_peer(self, peer_id)
        except BaseException as exc:
            cause = exc.__cause__ or exc.__context__
            events[f"registration failed: {type(cause).__name__}: {str(cause)[:60]}"] += 1
            raise
        events["registered" if peer_id in self.peers else "registration no-op"] += 1

    def probed_dead_peer(self: Any, peer_id: Any) -> None:
        EVENTS[id(self.host)]["dead peer"] += 1
        dead_peer(self, peer_id)

    async def probed_close(self: Any) -> None:
        if not getattr(self, "_diag_closed", False):
            self._diag_closed = True
            frames = traceback.extract_stack(limit=8)[:-1]
            where = " < ".join(f"{Path(f.filename).stem}.{f.name}" for f in reversed(frames[-3:]))
            EVENTS[id(self.swarm)][f"closed from {where}"] += 1
        await close(self)

    Pubsub._handle_new_peer = probed_new_peer  # type: ignore[method-assign]
    Pubsub._handle_dead_peer = probed_dead_peer  # type: ignore[method-assign]
    SwarmConn.close = probed_close  # type: ignore[method-assign]


def line(node: Node) -> str:
    host = node.net.host
    discovery = node.services.discovery
    gossip = discovery.gossip if discovery is not None else None
    if discovery is None or gossip is None:
        return f"{node.config.raw['agent']['name']:>12} (no discovery)"
    pubsub = gossip.pubsub  # type: ignore[attr-defined]
    budgets = node.budgets
    loop = budgets._loop.busy if budgets._loop is not None else -1.0
    events = EVENTS[id(host)] + EVENTS[id(host.get_network())]
    return (
        f"{node.config.raw['agent']['name']:>12} conns={len(host.get_connected_peers()):2} "
        f"pubsub={len(pubsub.peers):2} topic={gossip.topic_peers():2} mesh={gossip.mesh_peers():2} "
        f"pub/recv/rej={gossip.published}/{gossip.received}/{gossip.rejected} "  # type: ignore[attr-defined]
        f"cards={len(discovery.directory):2} rt={discovery.net.routing_table_size():2} "
        f"paced={budgets.cpu.paced} yielded={budgets.yielded} loop={loop:.2f} "
        f"stats={ {k: v for k, v in discovery.stats.items() if v} } events={dict(events.most_common(4))}"
    )


def dump(nodes: list[Node], n: int, since: float) -> bool:
    run, wait = (int(x) / 1e9 for x in Path("/proc/self/schedstat").read_text().split()[:2])
    full = sum(len(node.services.discovery.directory) == n for node in nodes if node.services.discovery)
    print(f"--- t={time.perf_counter() - since:.1f}s every card at {full}/{len(nodes)} agents; "
          f"process ran {run:.1f}s, waited for a CPU {wait:.1f}s", flush=True)  # fmt: skip
    for node in nodes:
        print(line(node), flush=True)
    return full == len(nodes)


async def run(n: int, seconds: float, every: float) -> None:
    register_test_kinds()
    root = Path(tempfile.mkdtemp(prefix=f"agents-diag-{n}-"))
    async with open_testnet(root / "net", []) as net:
        coordinator = {"name": "coordinator", "description": "Launches goals."}
        specs = [NodeSpec("coordinator", {"agent": coordinator})]
        for i in range(n - 1):
            agent = {"name": f"a{i}", "description": f"Agent {i} handles tasks of kind {i}."}
            specs.append(NodeSpec(f"a{i}", {"agent": {**agent, "adapter": "echo"}}))
        home = root / "process"
        home.mkdir()
        config = shared_config(specs, [home / s.name for s in specs], net.bootstrap_addrs())
        (home / "config.toml").write_text(tomli_w.dumps(config), encoding="utf-8")
        loaded = load_config(home)
        plan = plan_of_config(loaded, "agents_diag")
        assert plan is not None
        started = time.perf_counter()
        async with open_agents(agent_specs(loaded, plan), home=home, control_api=False) as agents:
            print(f"{n} agents started in {time.perf_counter() - started:.1f}s", flush=True)
            since = time.perf_counter()
            while time.perf_counter() - since < seconds:
                await trio.sleep(every)
                if dump(agents.nodes, n, since):
                    print(f"every card at every agent after {time.perf_counter() - since:.1f}s", flush=True)
                    break


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--no-yield", action="store_true", help="strangers never yield to trusted peers")
    parser.add_argument("--runnable-clock", action="store_true", help="as `ioa node start --agents` does")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.no_yield:
        from ioa_p2p.node.net.budgets import NodeBudgets

        NodeBudgets._yield_to_trusted = lambda self, now: 0.0  # type: ignore[method-assign]
    install_probes()
    if not args.runnable_clock:
        trio.run(run, args.agents, args.seconds, args.every)
        return
    from ioa_p2p.node.net.cpu_wait import RunnableClock

    clock = RunnableClock()
    try:
        trio.run(run, args.agents, args.seconds, args.every, clock=clock)
    finally:
        clock.close()


if __name__ == "__main__":
    main()
