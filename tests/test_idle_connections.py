"""An idle gossip network keeps its connections (issue 25: at 50 node processes they were re-made all the
time, ~2 cores of an idle network's CPU; the cause was patch 25's, ``node/net/atomic_writes.py``).

Four nodes on real libp2p hosts (127.0.0.1, in process), gossip and DHT on. Once every node holds every
card, each node's connection counters (``GET /net``'s ``connections``) must not move over an idle window,
nor while finds that ask the DHT are cancelled at random moments (a cancelled request's writes were what
broke connections)."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.api.peers import NetStatus
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node

from .discovery_agents import agent

NODES = 4
#: Seconds of the quiet window (no timing is asserted: only that nothing closed meanwhile).
IDLE = 8.0
#: Finds cancelled after 0-300 ms each.
CANCELLED_FINDS = 12


@asynccontextmanager
async def open_gossip_nodes(tmp_path: Path) -> AsyncIterator[list[Any]]:
    nodes: list[Any] = []
    async with AsyncExitStack() as stack:
        for i in range(NODES):
            config = NodeConfig(
                home=tmp_path / f"n{i}",
                bootstrap=(nodes[0].listen_addrs()[0],) if nodes else (),
                bootstrap_backoff=0.2,
                raw={"agent": agent(i), "discovery": {"gossip": True}},
            )
            node = await stack.enter_async_context(
                open_node(config, identity=Identity.generate(), write_info=False, control_api=False)
            )
            nodes.append(node)
        yield nodes


def counters(node: Any) -> dict[str, Any]:
    """The node's connection counters as ``GET /net`` reports them."""
    status = NetStatus.from_json(node.net_status())
    assert status.connections is not None
    return {
        "closed": dict(status.connections.closed),
        "opened": dict(status.connections.opened),
        "peers": set(node.connected_peers()),
    }


async def settled(nodes: list[Any]) -> None:
    for _ in itertools.count():
        if all(len(n.services.discovery.directory) == NODES for n in nodes):
            return
        await trio.sleep(0.2)


@pytest.mark.slow
async def test_an_idle_gossip_network_keeps_its_connections(tmp_path: Path) -> None:
    with trio.fail_after(150):
        async with open_gossip_nodes(tmp_path) as nodes:
            with trio.fail_after(60):
                await settled(nodes)
            await trio.sleep(2)  # the last cards' identify and subscriptions finish
            before = [counters(n) for n in nodes]
            assert all(len(b["peers"]) >= 1 and sum(b["opened"].values()) >= 1 for b in before)
            await trio.sleep(IDLE)
            assert [counters(n) for n in nodes] == before

            rng = random.Random(3)
            asker = nodes[1].services.discovery
            for _ in range(CANCELLED_FINDS):
                for other in nodes[:1] + nodes[2:]:  # the directory lacks them: the find asks the DHT
                    asker.directory.remove(other.peer_id)
                with trio.move_on_after(rng.random() * 0.3):
                    await asker.find("plot a chart of these numbers", k=3)
            await trio.sleep(1)  # what the cancelled finds sent arrives
            after = [counters(n) for n in nodes]
            assert [a["closed"] for a in after] == [b["closed"] for b in before]
            assert all(a["peers"] >= b["peers"] for a, b in zip(after, before, strict=True))
