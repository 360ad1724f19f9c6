"""The networks ``bench_find.py`` measures: N real nodes, in one process or one process per node, the
asking node in the benchmark's own process (so its directory can be emptied before each query), and the
process IDs whose CPU time the benchmark reads (bench only)."""

from __future__ import annotations

import itertools
import os
import random
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from find_world import agent_config, agents_and_goals, open_inprocess_peers

from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node

#: Agent processes ``--profile`` records besides the asking node and the bootstrap node.
PROFILED_AGENTS = 6


@dataclass
class BenchNet:
    """The asking node (in this process), its discovery service, every card's summary (N of them), and
    the node processes (to read their CPU time)."""

    node: Any
    service: Any
    summaries: list[dict[str, Any]]
    pids: list[int]
    roles: dict[int, str]  # pid -> asker / bootstrap / agent (the processes ``--profile`` records)
    others: tuple[str, ...] = ()  # peer IDs of the network's nodes without a card (the bootstrap node)
    remotes: tuple[Any, ...] = ()  # the node processes' control clients (``.call``), bootstrap included


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by these processes (from /proc; 0 where unreadable)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


@asynccontextmanager
async def open_inprocess(n: int, discovery: dict[str, Any], root: Path) -> AsyncIterator[BenchNet]:
    async with open_inprocess_peers(n, discovery, root) as peers:
        node, service = peers[rng_pick(n)]
        summaries = [s.card.summary() for _, s in peers]
        yield BenchNet(node, service, summaries, [os.getpid()], {os.getpid(): "asker"})


def rng_pick(n: int) -> int:
    return random.Random(5).randrange(n)


@asynccontextmanager
async def open_processes(n: int, discovery: dict[str, Any], root: Path) -> AsyncIterator[BenchNet]:
    agents, _ = agents_and_goals(n)
    specs = [
        NodeSpec(f"a{i}", agent_config(name, desc, discovery)) for i, (name, desc) in enumerate(agents[1:])
    ]
    started = time.monotonic()
    async with open_testnet(root / "net", specs, start_timeout=600) as net:
        print(
            f"# N={n}: {n - 1} node processes + bootstrap up in {time.monotonic() - started:.0f} s",
            file=sys.stderr,
        )
        config = NodeConfig(
            home=root / "asker",
            bootstrap=tuple(net.bootstrap_addrs()),
            bootstrap_backoff=0.2,
            raw=agent_config(*agents[0], discovery),
        )
        async with open_node(
            config, identity=Identity.generate(), write_info=False, control_api=False
        ) as node:
            service = node.services.discovery
            await service.card_ready.wait()
            summaries = [service.card.summary()]
            for agent in net.agents:
                with trio.fail_after(120):
                    summaries.append(
                        {k: v for k, v in (await agent.call("GET", "/card")).items() if k != "status"}
                    )
            pids = [os.getpid()] + [n.pid for n in net.nodes.values() if n.pid is not None]
            roles = {os.getpid(): "asker"}
            for n_ in net.nodes.values():
                if n_.pid is not None and (n_.is_bootstrap or len(roles) < 1 + PROFILED_AGENTS):
                    roles[n_.pid] = "bootstrap" if n_.is_bootstrap else "agent"
            boot = tuple(str(n_.peer_id) for n_ in net.nodes.values() if n_.is_bootstrap)
            remotes = tuple(n_ for n_ in net.nodes.values())
            yield BenchNet(node, service, summaries, pids, roles, boot, remotes)


async def wait_all_cards(net: BenchNet, n: int, limit: float) -> int:
    """Until the asking node's directory holds all n cards (gossip done), at most ``limit`` seconds."""
    with trio.move_on_after(limit):
        for _ in itertools.count():
            if len(net.service.directory) >= n:
                break
            await trio.sleep(0.2)
    return len(net.service.directory)


__all__ = ["BenchNet", "cpu_seconds", "open_inprocess", "open_processes", "wait_all_cards"]
