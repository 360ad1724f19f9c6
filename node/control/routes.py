"""Control API routes about this node and its peers: ``GET /id``, ``GET /peers`` (each connection with its
kind: direct, relayed or punched), ``GET /net`` (reachability, addresses, bootstrap peers), ``POST
/connect``, and ``GET /faults``: ``{"total": n, "counts": {"<where>:<exception type>": n}}``, what the
node's task boundaries stopped (input from peers that no decoder foresaw, or a bug; see docs/security.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.errors import IoATimeout
from ioa_p2p.node.control.server import ControlRequest
from ioa_p2p.node.net.budgets import NodeBudgets

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

CONNECT_TIMEOUT = 10.0


def faults_view(node: NodePort) -> dict[str, Any]:
    return {"total": node.faults.total, "counts": node.faults.snapshot()}


def peers_view(node: NodePort) -> list[dict[str, Any]]:
    """One entry per connected peer, sorted by peer ID: ``{"peer_id", "addrs", "connections"}``, each
    connection ``{"kind": "direct"|"relayed"|"punched", "addr", "direction", "streams"}``."""
    out = []
    for peer in node.connected_peers():
        out.append(
            {"peer_id": str(peer), "addrs": node.peer_addrs(peer), "connections": node.connections(peer)}
        )
    return out


@asynccontextmanager
async def open_peers_api(node: NodePort) -> AsyncIterator[None]:
    async def get_id(request: ControlRequest) -> Any:
        return {
            "peer_id": str(node.peer_id),
            "addrs": node.listen_addrs(),
            "advertised": node.advertised_addrs(),
        }

    async def get_peers(request: ControlRequest) -> Any:
        return peers_view(node)

    async def get_net(request: ControlRequest) -> Any:
        return node.net_status()

    async def post_connect(request: ControlRequest) -> Any:
        addr = request.arg("addr", str)
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                peer = await node.connect(addr)
        except trio.TooSlowError:
            raise IoATimeout(f"connecting to {addr} took longer than {CONNECT_TIMEOUT:.0f} s") from None
        return {"peer_id": str(peer)}

    node.control.add_route("GET", "/id", get_id)
    node.control.add_route("GET", "/peers", get_peers)
    node.control.add_route("GET", "/net", get_net)

    async def get_faults(request: ControlRequest) -> Any:
        return faults_view(node)

    node.control.add_route("POST", "/connect", post_connect)
    node.control.add_route("GET", "/faults", get_faults)
    yield


@asynccontextmanager
async def open_budgets_api(node: NodePort) -> AsyncIterator[NodeBudgets]:
    """Control route ``GET /budgets``: usage, refusals and evictions of every budget."""

    async def get_budgets(request: ControlRequest) -> Any:
        return node.budgets.snapshot()

    node.control.add_route("GET", "/budgets", get_budgets)
    yield node.budgets


__all__ = ["faults_view", "open_budgets_api", "open_peers_api", "peers_view"]
