"""Agents of one process (``open_agents``) spread their cards to each other on real libp2p hosts while
the process's one event loop is kept busy by work that is not theirs (docs/performance.md, "Why 25
agents in one process spread no card").

Each agent serves a trusted peer (its bootstrap node, in its own process) every few tens of
milliseconds, as agents do while they start; another node's peers hold the loop half of the time. A
node's strangers -- here the other agents -- yield to its trusted peers only while the loop is
congested *by its own peers' work*; measured on the process's loop as a whole, every agent kept the
others waiting for as long as the process was busy, and no pubsub stream between them finished
negotiating (with 25 agents in one process: 0 pubsub peers and 1 card each after 240 s)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.config import parse_config
from ioa_p2p.config.limits import Limits
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.agents import agent_specs, open_agents
from ioa_p2p.node.agents.config import agents_file_plan
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cpu_meter import working_for
from ioa_p2p.node.net.cpu_wait import RunnableClock
from ioa_p2p.node.node import Node

pytestmark = pytest.mark.slow

AGENTS = 4
#: The other node's work: this long a step, then this long a pause (the loop busy ~60 % of the time).
STEP, PAUSE = 0.006, 0.004


async def _serve_trusted_peer(node: Node, peer: PeerId) -> None:
    """Keep the node working for its trusted bootstrap peer (the answers are read, and charged to it,
    by the connection's tasks)."""
    while True:
        await node.ping(peer)
        await trio.sleep(0.03)


async def _other_nodes_work() -> None:
    """Hold the loop as another node of the process serving its own peers would."""
    with working_for(NodeBudgets(Limits()), Identity.generate().peer_id):
        while True:
            end = time.perf_counter() + STEP
            while time.perf_counter() < end:
                pass
            await trio.sleep(PAUSE)


async def test_agents_of_a_busy_process_spread_their_cards_to_each_other(
    tmp_path: Path, runnable_clock: RunnableClock
) -> None:
    # on the clock of the product's process of several agents (ioa_p2p/cli/node_agents.py), where
    # `open_agents` runs: its deadlines and the waits below count the time the loop could run, not the load
    with trio.fail_after(240):  # a loaded 2-core box included; the wait for the cards is bounded below
        async with open_testnet(tmp_path / "net", []) as net:  # the bootstrap node, in its own process
            (boot_addr,) = net.bootstrap_addrs()[:1]
            boot = PeerId.from_string(boot_addr.rsplit("/p2p/", 1)[1])
            node = {"listen": ["/ip4/127.0.0.1/tcp/0"], "bootstrap": [boot_addr], "bootstrap_backoff": 0.2}
            raw = {
                "agents": [
                    {"name": f"agent-{i}", "description": f"Agent {i} handles the tasks of kind {i}."}
                    for i in range(AGENTS)
                ]
            }
            home = tmp_path / "proc"
            plan = agents_file_plan(raw, home / "agents.toml")
            specs = agent_specs(parse_config(home, {"node": node}), plan)
            async with open_agents(specs, home=home, control_api=False) as agents:
                nodes = agents.nodes
                assert len(nodes) == AGENTS
                async with trio.open_nursery() as nursery:
                    for node in nodes:
                        nursery.start_soon(_serve_trusted_peer, node, boot)
                    nursery.start_soon(_other_nodes_work)
                    with trio.move_on_after(120):
                        while not all(_cards(node) == AGENTS for node in nodes):  # noqa: ASYNC110
                            await trio.sleep(0.5)
                    held = {str(node.peer_id)[-6:]: _cards(node) for node in nodes}
                    yielded = [node.budgets.yielded for node in nodes]
                    nursery.cancel_scope.cancel()
                assert all(n == AGENTS for n in held.values()), (
                    f"cards held after 120 s: {held}; strangers' waits for trusted peers: {yielded}"
                )


def _cards(node: Node) -> int:
    discovery = node.services.discovery
    return len(discovery.directory) if discovery is not None else 0
