"""Control API routes about this node and its peers: ``GET /id``, ``GET /peers`` (each connection with its
kind: direct, relayed or punched), ``GET /net`` (reachability, addresses, bootstrap peers), ``POST
/connect``, ``GET /faults`` (what the node's task boundaries stopped: input from peers that no decoder
foresaw, or a bug; see docs/security.md), ``GET /budgets`` and ``POST /ui/code`` (a one-time dashboard
login code). Schemas: :mod:`ioa_p2p.api.peers`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.peers import (
    BudgetsReply,
    ConnectionView,
    ConnectReply,
    ConnectRequest,
    FaultsReply,
    IdReply,
    NetStatus,
    PeerInfo,
)
from ioa_p2p.api.status import UiCode
from ioa_p2p.errors import IoATimeout, UsageError
from ioa_p2p.node.control.server import CallInfo
from ioa_p2p.node.control.sessions import CODE_TTL
from ioa_p2p.node.net.budgets import NodeBudgets

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort

CONNECT_TIMEOUT = 10.0


def faults_view(node: NodePort) -> FaultsReply:
    return FaultsReply(node.faults.total, node.faults.snapshot())


def peers_view(node: NodePort) -> tuple[PeerInfo, ...]:
    """One entry per connected peer, sorted by peer ID, with its connections (direct ones first)."""
    return tuple(
        PeerInfo(
            str(peer),
            tuple(node.peer_addrs(peer)),
            tuple(ConnectionView(**conn) for conn in node.connections(peer)),
        )
        for peer in node.connected_peers()
    )


@asynccontextmanager
async def open_peers_api(node: NodePort) -> AsyncIterator[None]:
    async def get_id(request: Empty, call: CallInfo) -> IdReply:
        return IdReply(str(node.peer_id), tuple(node.listen_addrs()), tuple(node.advertised_addrs()))

    async def get_peers(request: Empty, call: CallInfo) -> tuple[PeerInfo, ...]:
        return peers_view(node)

    async def get_net(request: Empty, call: CallInfo) -> NetStatus:
        return NetStatus.from_json(node.net_status())

    async def post_connect(request: ConnectRequest, call: CallInfo) -> ConnectReply:
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                peer = await node.connect(request.addr)
        except trio.TooSlowError:
            raise IoATimeout(
                f"connecting to {request.addr} took longer than {CONNECT_TIMEOUT:.0f} s"
            ) from None
        return ConnectReply(str(peer))

    async def get_faults(request: Empty, call: CallInfo) -> FaultsReply:
        return faults_view(node)

    async def post_ui_code(request: Empty, call: CallInfo) -> UiCode:
        if call.auth != "token":  # a session may not mint more sessions
            raise UsageError("a dashboard login code is given only for the control token (`ioa ui`)")
        code = node.control.sessions.issue_code()
        url = f"http://127.0.0.1:{node.control.port}/ui/#code={code}"
        return UiCode(url, code, int(CODE_TTL))

    node.control.add_route(r.ID, get_id)
    node.control.add_route(r.PEERS, get_peers)
    node.control.add_route(r.NET, get_net)
    node.control.add_route(r.CONNECT, post_connect)
    node.control.add_route(r.FAULTS, get_faults)
    node.control.add_route(r.UI_CODE, post_ui_code)
    yield


@asynccontextmanager
async def open_budgets_api(node: NodePort) -> AsyncIterator[NodeBudgets]:
    """Control route ``GET /budgets``: usage, refusals and evictions of every budget."""

    async def get_budgets(request: Empty, call: CallInfo) -> BudgetsReply:
        return BudgetsReply.from_json(node.budgets.snapshot())

    node.control.add_route(r.BUDGETS, get_budgets)
    yield node.budgets


__all__ = ["faults_view", "open_budgets_api", "open_peers_api", "peers_view"]
