"""What the agents of a ``bench_scale.py`` run are doing while cards spread (``--watch S``).

Every ``S`` seconds, for the coordinator and one agent of every other process, through their control
APIs: cards held (and how many of them are of agents in other processes), card-topic peers and mesh
size, routing table, cards fetched from the DHT or owners, and the connected peers split into
the agent's own process, other processes and the bootstrap node. This is how the issue-26 question "why
do cards spread so slowly across processes" is answered with figures (docs/performance.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import trio

from ioa_p2p.bootstrap.testnet import Testnet, TestnetNode


def _process_of(net: Testnet) -> dict[str, int]:
    """Peer ID (text) -> the agent's process id (the bootstrap node: -1)."""
    out = {str(node.peer_id): node.pid or 0 for node in net.agents if node.peer_id is not None}
    boot = net.bootstrap
    if boot is not None and boot.peer_id is not None:
        out[str(boot.peer_id)] = -1
    return out


def watched(net: Testnet) -> list[TestnetNode]:
    """The coordinator, the first agent of every other process and the last started of every process
    (the late starters are the ones whose cards were lost across processes: docs/performance.md)."""
    out: list[TestnetNode] = []
    seen: set[int | None] = set()
    last: dict[int | None, TestnetNode] = {}
    for node in net.agents:
        if node.name == "coordinator" or node.pid not in seen:
            out.append(node)
            seen.add(node.pid)
        last[node.pid] = node
    out.extend(node for node in last.values() if node not in out)
    return out


async def sample(node: TestnetNode, owners: dict[str, int], order: dict[str, int]) -> str:
    """One line of what ``node`` holds; ``order``: each agent's place in its process's start order (the
    places of the other processes' agents whose cards ``node`` lacks say whether late starters are lost)."""
    try:
        card = await node.call("GET", "/card", answer_within=30)
        peers = await node.call("GET", "/peers", answer_within=30)
        cards = await node.call("GET", "/cards", answer_within=30)
    except Exception as exc:  # a figure lost, not the run
        return f"{node.name}: no answer ({type(exc).__name__})"
    status = card.get("status", {}) if isinstance(card, dict) else {}
    gossip = status.get("gossip") or {}
    mine = node.pid
    same = other = boot = 0
    for peer in peers:
        owner = owners.get(peer["peer_id"])
        if owner == -1:
            boot += 1
        elif owner == mine:
            same += 1
        else:
            other += 1
    held = [c.get("peer_id") for c in cards.get("cards", [])]
    remote = sum(1 for p in held if owners.get(p) not in (mine, -1))
    lacking = sorted(order[p] for p in order if p not in held and owners.get(p) != mine)
    return (
        f"{node.name}[{mine}]: cards {len(held)} ({remote} remote), topic {gossip.get('topic_peers')} "
        f"mesh {gossip.get('mesh_peers')} rx {gossip.get('received')} "
        f"accepted {status.get('gossip_accepted')} "
        f"over {status.get('gossip_over_limit')}, table {status.get('routing_table')}, "
        f"fetched {status.get('dht_fetched')}, conns same {same} other {other} boot {boot}; "
        f"lacks remote agents at start places {lacking[:40]}"
    )


async def watch_loop(
    net: Testnet, every: float, say: Any, nodes: Sequence[TestnetNode] | None = None
) -> None:
    """Print :func:`sample` of the :func:`watched` agents every ``every`` s until cancelled."""
    owners = _process_of(net)
    order: dict[str, int] = {}
    for node in net.agents:
        if node.peer_id is not None:
            order[str(node.peer_id)] = sum(
                1 for o in net.agents[: net.agents.index(node)] if o.pid == node.pid
            )
    nodes = list(nodes) if nodes is not None else watched(net)
    began = time.monotonic()
    while True:
        lines = [await sample(node, owners, order) for node in nodes]
        say(f"watch +{time.monotonic() - began:.0f} s: " + " | ".join(lines))
        await trio.sleep(every)
