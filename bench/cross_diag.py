"""Why cards cross (or not) between groups of co-hosted agents: G groups of K agents in this one process.

Run: python bench/cross_diag.py [--groups 2] [--per-group 12] [--seconds 180] [--every 10]

Each group is an ``open_agents`` block of its own (its own :class:`~ioa_p2p.node.net.cohosted.CoHosted`,
as one ``ioa node start --agents`` process has), so the agents of different groups meet over libp2p on
127.0.0.1 exactly as the agents of different processes do (Noise, yamux, GossipSub, the DHT), while the
whole run takes one core (no heavy lock needed). A bootstrap node runs in its own process. The groups
start one after the other's first agent, interleaved as the processes of ``bench_scale.py`` do (each
group opens its agents one at a time). Every ``--every`` s it prints, for the first, middle and last
agent to start in each group: cards held (of other groups'), card-topic peers of other groups, routing
table (entries of other groups), connections to its own group / other groups; and it stops once every
agent holds every card. docs/performance.md, issue 26 "Ninth round".
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import tomli_w
import trio

from ioa_p2p.bootstrap.specs import NodeSpec, shared_config
from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.config.node_config import load_config
from ioa_p2p.node.agents import agent_specs, open_agents, plan_of_config
from ioa_p2p.node.net import identify_retry
from ioa_p2p.node.node import Node
from ioa_p2p.testing.kinds import register_test_kinds

GROUPS: dict[str, int] = {}  # peer ID text -> group


def _group_of(peer: Any) -> int | None:
    return GROUPS.get(str(peer))


def line(node: Node, group: int, place: int) -> str:
    discovery = node.services.discovery
    if discovery is None or discovery.gossip is None:
        return f"g{group}#{place} (no discovery)"
    gossip = discovery.gossip
    host = node.net.host
    conns = [_group_of(p.to_base58()) for p in host.get_connected_peers()]
    same = sum(1 for g in conns if g == group)
    other = sum(1 for g in conns if g is not None and g != group)
    known = sum(
        1
        for p in host.get_connected_peers()
        if _group_of(p.to_base58()) not in (None, group) and identify_retry.identified(host, p)
    )
    topic = [_group_of(p) for p in gossip.topic_peer_ids()]  # type: ignore[attr-defined]
    # the peers it opened its own pubsub stream to (registered), whose subscriptions make its topic peers
    registered = [_group_of(p.to_base58()) for p in gossip.pubsub.peers]  # type: ignore[attr-defined]
    table = [_group_of(p.to_base58()) for p in node.net.dht.routing_table.get_peer_ids()]
    held = [_group_of(e.card.peer_id) for e in discovery.directory]
    return (
        f"g{group}#{place:<2} cards {len(held):3} ({sum(1 for g in held if g not in (None, group))} other) "
        f"topic {len(topic)} ({sum(1 for g in topic if g not in (None, group))} other) "
        f"registered {sum(1 for g in registered if g not in (None, group))} other "
        f"table {len(table)} ({sum(1 for g in table if g not in (None, group))} other) "
        f"conns same {same} other {other} (identified {known})"
    )


async def run(groups: int, per_group: int, seconds: float, every: float) -> None:
    register_test_kinds()
    logging.getLogger("ioa_p2p").setLevel(logging.ERROR)
    root = Path(tempfile.mkdtemp(prefix="cross-diag-"))
    n = groups * per_group
    async with open_testnet(root / "net", []) as net, trio.open_nursery() as nursery:
        runs: list[list[Node]] = [[] for _ in range(groups)]

        async def host_group(g: int, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            specs = []
            for i in range(per_group):
                name = f"g{g}a{i}"
                agent = {"name": name, "description": f"Agent {i} of group {g} handles tasks of kind {i}."}
                specs.append(NodeSpec(name, {"agent": {**agent, "adapter": "echo"}}))
            home = root / f"group{g}"
            home.mkdir()
            config = shared_config(specs, [home / s.name for s in specs], net.bootstrap_addrs())
            (home / "config.toml").write_text(tomli_w.dumps(config), encoding="utf-8")
            loaded = load_config(home)
            plan = plan_of_config(loaded, f"group {g}")
            assert plan is not None

            def known(agent_run: Any) -> None:
                if agent_run.node is not None and agent_run.state == "running":
                    GROUPS[str(agent_run.node.peer_id)] = g
                    runs[g].append(agent_run.node)

            async with open_agents(agent_specs(loaded, plan), home=home, control_api=False, on_change=known):
                task_status.started()
                await trio.sleep_forever()

        started = time.perf_counter()
        async with trio.open_nursery() as starting:
            for g in range(groups):
                starting.start_soon(nursery.start, host_group, g)
        print(f"{n} agents in {groups} groups started in {time.perf_counter() - started:.1f} s", flush=True)
        since = time.perf_counter()
        while True:
            await trio.sleep(every)
            nodes = [node for group in runs for node in group]
            full = sum(
                1 for node in nodes if node.services.discovery and len(node.services.discovery.directory) >= n
            )
            elapsed = time.perf_counter() - since
            print(f"--- +{elapsed:.0f} s: every card at {full}/{len(nodes)} agents", flush=True)
            for g, group in enumerate(runs):
                for place in sorted({0, len(group) // 2, len(group) - 1}):
                    print("  " + line(group[place], g, place), flush=True)
            if full == n or time.perf_counter() - since > seconds:
                break
        nursery.cancel_scope.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--per-group", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--every", type=float, default=10.0)
    parser.add_argument(
        "--no-identify-retry", action="store_true", help="one identify per connection (upstream's), for A/B"
    )
    args = parser.parse_args()
    if args.no_identify_retry:
        identify_retry.RETRY_DELAYS = ()
    logging.basicConfig(level=logging.WARNING)
    trio.run(run, args.groups, args.per_group, args.seconds, args.every)


if __name__ == "__main__":
    main()
