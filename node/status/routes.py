"""Control routes about the whole node: ``GET /node`` (identity, agent, uptime, memory, config summary,
faults) and ``GET /network`` (peers with their latency, routing table, gossip mesh), and their live
streams ``GET /node/events`` and ``GET /network/events``, and the chats list's ``GET /chats/list/events``
(:mod:`.live`); schemas:
:mod:`ioa_p2p.api.status`. They read every service, so they are registered once the services run."""

from __future__ import annotations

import os
import platform
import resource
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Protocol

import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.chats import ChatInfo
from ioa_p2p.api.codec import Empty, JsonObject
from ioa_p2p.api.discovery import GossipStatus
from ioa_p2p.api.status import (
    ChatsEvent,
    MemoryView,
    NetworkEvent,
    NetworkView,
    NodeEvent,
    NodeStatus,
    PeerLink,
    StatusEventsRequest,
    redacted_config,
)
from ioa_p2p.api.stream import NDJSON, SSE
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.routes import faults_view
from ioa_p2p.node.control.server import CallInfo, Streaming
from ioa_p2p.node.discovery.views import status as discovery_status
from ioa_p2p.node.ports import NodePort
from ioa_p2p.node.services import NodeServices
from ioa_p2p.node.status.live import StatusFeeds

#: Seconds one ``GET /network`` waits for the pings of all peers; a measurement is reused this long.
PING_TIMEOUT = 2.0
LATENCY_TTL = 5.0
#: Peers pinged at most per measurement (the rest show no latency).
MAX_PINGED = 64


def package_version() -> str:
    try:
        return metadata.version("ioa-p2p")
    except metadata.PackageNotFoundError:
        return "unknown"


def memory_view() -> MemoryView:
    """Resident memory now and at its peak (Linux ``/proc``; elsewhere the peak for both)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rss = peak
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    kib = int(value.split()[0]) * 1024
                    rss, peak = (kib, peak) if name == "VmRSS" else (rss, kib)
    except (OSError, ValueError, IndexError):
        pass
    return MemoryView(rss, max(peak, rss))


class StatusPort(NodePort, Protocol):
    """What the status routes read of the node (:class:`~ioa_p2p.node.node.Node`)."""

    @property
    def services(self) -> NodeServices: ...
    @property
    def started(self) -> float: ...
    async def ping(self, peer: PeerId) -> float | None: ...


class LatencyCache:
    """The latest round-trip times, measured at most every :data:`LATENCY_TTL` seconds."""

    def __init__(self, node: StatusPort) -> None:
        self.node = node
        self.measured: dict[PeerId, float | None] = {}
        self.at = -LATENCY_TTL
        self.lock = trio.Lock()

    async def latencies(self, peers: list[PeerId]) -> dict[PeerId, float | None]:
        async with self.lock:
            if trio.current_time() - self.at >= LATENCY_TTL or set(peers) - set(self.measured):
                self.measured = await self._measure(peers[:MAX_PINGED])
                self.at = trio.current_time()
        return self.measured

    async def _measure(self, peers: list[PeerId]) -> dict[PeerId, float | None]:
        out: dict[PeerId, float | None] = dict.fromkeys(peers)

        async def one(peer: PeerId) -> None:
            out[peer] = await self.node.ping(peer)

        with trio.move_on_after(PING_TIMEOUT):
            async with trio.open_nursery() as nursery:
                for peer in peers:
                    nursery.start_soon(one, peer)
        return out


def json_object(value: dict[str, object]) -> JsonObject:
    """A connection's details (text and numbers) as a JSON object."""
    return {k: v for k, v in value.items() if isinstance(v, str | int | float | bool)}


def node_status(node: StatusPort) -> NodeStatus:
    """``GET /node``: identity, agent, software, uptime, memory, the config in force, faults, tracing."""
    discovery = node.services.discovery
    card = discovery.card.card if discovery is not None and discovery.card is not None else None
    agent = node.config.section("agent")
    now = node.now()
    return NodeStatus(
        peer_id=str(node.peer_id),
        name=card.name if card is not None else str(agent.get("name", "")),
        adapter=card.adapter if card is not None else str(agent.get("adapter", "")),
        version=package_version(),
        python=platform.python_version(),
        pid=os.getpid(),
        started_ms=int(node.started * 1000),
        uptime=max(0.0, now - node.started),
        memory=memory_view(),
        services=tuple(node.services.names()),
        addrs=tuple(node.listen_addrs()),
        control_port=node.control.port,
        config=redacted_config(
            {
                "node": {
                    "listen": list(node.config.listen),
                    "bootstrap": list(node.config.bootstrap),
                    "control_port": node.config.control_port,
                    "target_peers": node.config.target_peers,
                },
                **{k: v for k, v in node.config.raw.items() if k != "node"},
            }
        ),
        faults=faults_view(node),
        telemetry=node.tracer.describe(),
    )


async def network_view(node: StatusPort, cache: LatencyCache) -> NetworkView:
    """``GET /network``: connected peers with their names and latency, routing table, gossip mesh."""
    peers = node.connected_peers()
    latency = await cache.latencies(peers)
    discovery = node.services.discovery
    known = {e.card.peer_id: e.card.card.name for e in discovery.directory} if discovery is not None else {}
    links = tuple(
        PeerLink(
            str(p),
            known.get(p, ""),
            tuple(node.peer_addrs(p)),
            latency.get(p),
            tuple(json_object(c) for c in node.connections(p)),
        )
        for p in peers
    )
    status = discovery_status(discovery) if discovery is not None else {}
    gossip = status.get("gossip")
    return NetworkView(
        peers=links,
        routing_table=int(status.get("routing_table") or 0),
        gossip=GossipStatus.from_json(gossip) if isinstance(gossip, dict) else None,
        measured_ms=int(node.now() * 1000),
    )


def add_status_routes(node: StatusPort) -> None:
    cache = LatencyCache(node)

    async def sample_network() -> NetworkEvent:
        return NetworkEvent(await network_view(node, cache))

    async def sample_node() -> NodeEvent:
        await trio.lowlevel.checkpoint()
        return NodeEvent(node_status(node))

    async def sample_chats() -> ChatsEvent:
        await trio.lowlevel.checkpoint()
        chats, goals = node.services.chats, node.services.goals
        listed = tuple(ChatInfo.from_json(c) for c in chats.list_chats()) if chats is not None else ()
        return ChatsEvent(listed, goals.list_goals() if goals is not None else ())

    feeds = StatusFeeds({"network": sample_network, "node": sample_node, "chats": sample_chats})

    async def get_node(request: Empty, call: CallInfo) -> NodeStatus:
        return node_status(node)

    async def get_network(request: Empty, call: CallInfo) -> NetworkView:
        return await network_view(node, cache)

    def events(kind: str) -> Callable[[StatusEventsRequest, CallInfo], Awaitable[Streaming]]:
        async def stream(request: StatusEventsRequest, call: CallInfo) -> Streaming:
            text = call.last_event_id or request.after  # a browser's reconnection sends the newest
            sse = call.sse or text is not None
            return Streaming(feeds.open(kind, text, sse=sse), SSE if sse else NDJSON)

        return stream

    node.control.add_route(r.NODE, get_node)
    node.control.add_route(r.NETWORK, get_network)
    node.control.add_route(r.NODE_EVENTS, events("node"))
    node.control.add_route(r.NETWORK_EVENTS, events("network"))
    node.control.add_route(r.CHATS_EVENTS, events("chats"))


__all__ = ["add_status_routes", "memory_view", "network_view", "node_status", "package_version"]
