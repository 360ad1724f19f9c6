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
from ioa_p2p.budget import TRUST_STRANGER
from ioa_p2p.config.node_config import load_config
from ioa_p2p.node.agents import agent_specs, open_agents, plan_of_config
from ioa_p2p.node.node import Node
from ioa_p2p.testing.kinds import register_test_kinds

#: The hosts of this process's agents by their libp2p peer ID (for :func:`trace_remote`).
HOSTS: dict[Any, Any] = {}
#: How many timed-out negotiations :func:`trace_remote` still prints.
TRACES = [4]

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
            if "timed out" in str(cause) and TRACES[0] > 0:
                TRACES[0] -= 1
                trace_remote(self.host, peer_id)
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

    from ioa_p2p.node.net import routing

    lookup = routing._lookup_now  # after the wait for a lookup slot: the lookup itself

    async def probed_lookup(dht: Any, own_key: bytes) -> None:
        events = EVENTS[id(dht.host)]
        before, started = dht.routing_table.size(), trio.current_time()
        await lookup(dht, own_key)
        took = trio.current_time() - started
        events["lookups"] += 1
        events["lookups >= 9.9 s"] += took >= routing.LOOKUP_TIMEOUT - 0.1
        events["lookups that grew the table"] += dht.routing_table.size() > before
        events["last lookup at"] = int(started)

    routing._lookup_now = probed_lookup  # type: ignore[assignment]
    Pubsub._handle_new_peer = probed_new_peer  # type: ignore[method-assign]
    Pubsub._handle_dead_peer = probed_dead_peer  # type: ignore[method-assign]
    SwarmConn.close = probed_close  # type: ignore[method-assign]


def _stack(task: Any) -> str:
    """Where ``task`` waits: its coroutine chain, innermost last."""
    frames, coro = [], task.coro
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        frames.append(f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}:{frame.f_lineno}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return " > ".join(frames[-6:])


def _tasks(root: Any) -> Any:
    yield root
    for nursery in root.child_nurseries:
        for child in nursery.child_tasks:
            yield from _tasks(child)


def trace_remote(opener: Any, remote_id: Any) -> None:
    """A negotiation ``opener`` proposed to ``remote_id`` timed out: print what the remote's tasks that
    work for the opener (its connection's reader, its inbound streams) wait on, and its CPU budget."""
    from ioa_p2p.node.net.cpu_meter import OWNER

    remote = HOSTS.get(remote_id)
    if remote is None:
        print(f"TRACE {opener.get_id()} -> {remote_id}: not an agent of this process", flush=True)
        return
    opener_id = str(opener.get_id())
    lines = []
    for task in _tasks(trio.lowlevel.current_root_task()):
        owner = task.context.get(OWNER)
        if owner is not None and str(owner[1]) == opener_id and owner[0] is remote.ioa_budgets:
            lines.append(f"    {task.name.rsplit('.', 1)[-1]}: {_stack(task)}")
    budgets = remote.ioa_budgets
    owes = budgets.cpu_delay(_pid(opener_id))
    print(f"TRACE {opener_id[-6:]} -> {str(remote_id)[-6:]}: remote owes {owes:.2f}s, "
          f"yielded {budgets.yielded}, conns {len(remote.get_network().get_connections(opener.get_id()))}, "
          f"{len(lines)} tasks for the opener:", flush=True)  # fmt: skip
    print("\n".join(sorted(set(lines))[:12]), flush=True)


def _pid(text: str) -> Any:
    from ioa_p2p.identity import PeerId

    return PeerId.from_string(text)


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
        f"paced={budgets.cpu.paced} yielded={budgets.yielded} loop={loop:.2f} {_strangers(budgets)} "
        f"stats={ {k: v for k, v in discovery.stats.items() if v} } "
        f"lookups={ {k: v for k, v in events.items() if 'lookup' in k} } "
        f"events={dict(events.most_common(4))}"
    )


def _strangers(budgets: Any) -> str:
    """The strangers' CPU pool: CPU and loop seconds charged to it, and its members' wait now (s)."""
    cpu = budgets.cpu
    level = cpu._level(cpu._pools.get(TRUST_STRANGER), cpu.pool, cpu.pool_burst, budgets.now())
    charged, loop = cpu.charged_by_trust[TRUST_STRANGER], cpu.loop_by_trust[TRUST_STRANGER]
    return f"strangers cpu/loop={charged:.1f}/{loop:.1f}s wait={max(0.0, -level / cpu.pool):.2f}s"


async def dump_bootstrap(net: Any) -> None:
    """The bootstrap node's connections and CPU budget (its own process, trio's own clock)."""
    try:
        with trio.move_on_after(10):
            cpu = (await net.bootstrap.call("GET", "/budgets", answer_within=10))["cpu"]
            peers = await net.bootstrap.call("GET", "/peers", answer_within=10)
            print(f"   bootstrap peers={len(peers)} cpu={cpu}", flush=True)
    except Exception as exc:  # a probe: say it and go on
        print(f"   bootstrap: no answer ({type(exc).__name__}: {exc})", flush=True)


def dump(nodes: list[Node], n: int, since: float) -> bool:
    run, wait = (int(x) / 1e9 for x in Path("/proc/self/schedstat").read_text().split()[:2])
    full = sum(len(node.services.discovery.directory) == n for node in nodes if node.services.discovery)
    print(f"--- t={time.perf_counter() - since:.1f}s every card at {full}/{len(nodes)} agents; "
          f"process ran {run:.1f}s, waited for a CPU {wait:.1f}s", flush=True)  # fmt: skip
    for node in nodes:
        print(line(node), flush=True)
    return full == len(nodes)


def _known(run: Any) -> None:
    """Note each agent's host as it starts (for :func:`trace_remote`)."""
    if run.node is not None:
        host = run.node.net.host
        HOSTS[host.get_id()] = host
        host.ioa_budgets = run.node.budgets


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
        specs = agent_specs(loaded, plan)
        async with open_agents(specs, home=home, control_api=False, on_change=_known) as agents:
            print(f"{n} agents started in {time.perf_counter() - started:.1f}s", flush=True)
            since = time.perf_counter()
            while time.perf_counter() - since < seconds:
                await trio.sleep(every)
                await dump_bootstrap(net)
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
