"""An in-memory transport fake: in-process nodes whose streams are byte pipes, for fast tests.

:class:`MemoryNetwork` holds :class:`MemoryNode` s that implement :class:`~ioa_p2p.node.ports.NodePort`
(what the chat service uses of a node: identity, config, budgets, faults, stream handlers, dialing)
with no py-libp2p underneath, so chat delivery and sync run unchanged (real ``FramedStream`` framing,
real SQLite store) on a clock a test controls (``trio.testing.MockClock(autojump_threshold=0)``).

What is faked: a stream is a pair of unbounded in-memory byte pipes (a test double, not a network: no
flow control); dialing succeeds at once between nodes that are not partitioned
(:meth:`MemoryNetwork.partition` cuts links and resets their open streams, :meth:`MemoryNetwork.heal`
restores reachability); a write into a reset or closed stream is dropped, and the reader sees end of
stream. Handlers run in the listening node's nursery, inside its fault boundary, like the real node's.

Time: a node's wall clock (:meth:`MemoryNode.now`, what services read deadlines and card expiry
against) is the network's ``epoch`` plus the trio clock's time since the network started, so on a
``MockClock`` goal deadlines, card expiry and re-publishing run on virtual time.

With ``autojump_threshold=0`` nothing may wait for a worker thread (``trio.to_thread``, ``trio.Path``): the
clock jumps while the thread runs and every timeout fires at once. Services take their worker threads from
the node (:meth:`MemoryNode.run_sync` runs the function inline); this module starts none. Pick adapters that
run no thread or subprocess (echo, calculator) and the exact vector index (the annoy index rebuilds in a
thread).

Discovery's DHT and gossip on this network are in :mod:`ioa_p2p.testing.memcards`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import trio

from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import PeerRejected, PeerUnreachable
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.memory import ProcessMemory
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.ports import StreamHandler
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer

ADDR_PREFIX = "/memory/"
_T = TypeVar("_T")


class _Pipe:
    """One direction of a stream: bytes in order, then an end (close or reset)."""

    def __init__(self) -> None:
        self._data = bytearray()
        self.ended = False
        self._changed = trio.Event()

    def put(self, data: bytes) -> None:
        if not self.ended:
            self._data += data
            self._wake()

    def end(self) -> None:
        self.ended = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def take(self, most: int) -> bytes:
        """Up to ``most`` bytes; ``b""`` once the pipe ended and is drained."""
        while not self._data and not self.ended:
            await self._changed.wait()
        await trio.lowlevel.checkpoint()
        data = bytes(self._data[:most])
        del self._data[:most]
        return data


class MemoryStream:
    """One side of an in-memory stream, with the methods ``FramedStream`` calls on a libp2p stream."""

    def __init__(self, protocol: str, incoming: _Pipe, outgoing: _Pipe) -> None:
        self._protocol = protocol
        self._in, self._out = incoming, outgoing

    def get_protocol(self) -> str:
        return self._protocol

    async def read(self, most: int) -> bytes:
        return await self._in.take(most)

    async def write(self, data: bytes) -> None:
        await trio.lowlevel.checkpoint()
        self._out.put(data)  # dropped once the stream was closed or reset

    async def close(self) -> None:
        self._out.end()

    async def reset(self) -> None:
        self._out.end()
        self._in.end()


def stream_pair(protocol: str) -> tuple[MemoryStream, MemoryStream]:
    """The dialer's and the listener's side of a new stream."""
    forward, backward = _Pipe(), _Pipe()
    return MemoryStream(protocol, backward, forward), MemoryStream(protocol, forward, backward)


class MemoryNode:
    """A node of a :class:`MemoryNetwork`: a :class:`~ioa_p2p.node.ports.NodePort` without libp2p."""

    def __init__(self, network: MemoryNetwork, config: NodeConfig, identity: Identity, nursery: trio.Nursery):
        self.network = network
        self.config = config
        self.home = config.home
        self.identity = identity
        self.peer_id = identity.peer_id
        self.nursery = nursery
        self.control = ControlAPI()
        self.faults = Faults()
        self.budgets = NodeBudgets(Limits.from_section(config.section("limits")))
        self.memory = ProcessMemory().open_agent()
        self.services_ready = trio.Event()
        self.tracer: Tracer = NOOP_TRACER
        self.handlers: dict[str, StreamHandler] = {}
        self.streams: list[MemoryStream] = []
        self.arrivals = PeerArrivals()  # told of every new link (MemoryNetwork.link)

    def now(self) -> float:
        """Wall-clock seconds: the network's epoch plus the trio clock's time since it started."""
        return self.network.now()

    async def run_sync(self, fn: Callable[[], _T], *, gil_bound: bool = False) -> _T:
        """``fn()`` inline (no worker thread: a mock clock would jump past it)."""
        await trio.lowlevel.checkpoint()
        return fn()

    def listen_addrs(self) -> list[str]:
        return [ADDR_PREFIX + str(self.peer_id)]

    def advertised_addrs(self) -> list[str]:
        return self.listen_addrs()

    async def wait_addrs_change(self) -> None:
        await trio.sleep_forever()  # a memory node's address never changes

    def connections(self, peer: PeerId) -> list[dict[str, Any]]:
        if not self.is_connected(peer):
            return []
        return [{"kind": "direct", "addr": ADDR_PREFIX + str(peer), "direction": "unknown", "streams": 0}]

    def net_status(self) -> dict[str, Any]:
        return {
            "peer_id": str(self.peer_id),
            "reachability": {"mode": "memory", "status": "public"},
            "listen": self.listen_addrs(),
            "advertised": self.advertised_addrs(),
            "bootstrap": [],
        }

    def connected_peers(self) -> list[PeerId]:
        return sorted(self.network.links_of(self.peer_id))

    def is_connected(self, peer: PeerId) -> bool:
        return peer in self.network.links_of(self.peer_id)

    def serves_locally(self, peer: PeerId) -> bool:
        return False

    def peer_addrs(self, peer: PeerId) -> list[str]:
        return [ADDR_PREFIX + str(peer)]

    async def connect(self, addr: str) -> PeerId:
        if not addr.startswith(ADDR_PREFIX):
            raise PeerUnreachable(f"{addr!r} is not a memory address ({ADDR_PREFIX}<peer id>)")
        peer = PeerId.from_string(addr[len(ADDR_PREFIX) :])
        await self.connect_peer(peer)
        return peer

    async def connect_peer(self, peer: PeerId) -> None:
        await trio.lowlevel.checkpoint()
        self.network.link(self.peer_id, peer)

    def set_stream_handler(self, protocol_id: str, handler: StreamHandler) -> None:
        self.handlers[protocol_id] = handler

    async def open_stream(self, peer: PeerId, protocol_id: str) -> FramedStream:
        await self.connect_peer(peer)
        remote = self.network.nodes[peer]
        handler = remote.handlers.get(protocol_id)
        if handler is None:
            raise PeerRejected(f"{peer} does not serve {protocol_id}")
        mine, theirs = stream_pair(protocol_id)
        self.streams.append(mine)
        remote.streams.append(theirs)
        remote.nursery.start_soon(remote.serve, handler, theirs, self.peer_id)
        return self.budgets.framed(mine, peer)

    async def serve(self, handler: StreamHandler, raw: MemoryStream, dialer: PeerId) -> None:
        """Run ``handler`` like the real node does: any exception ends only that stream (reset)."""
        framed = self.budgets.framed(raw, dialer)
        ok = False
        try:
            with self.faults.boundary(f"stream {raw.get_protocol()}", dialer):
                await handler(framed)
                ok = True
        finally:
            framed.release_budget()
        await (framed.close() if ok else framed.reset())


class MemoryNetwork:
    """In-process nodes and the links between them (see the module docstring). ``epoch``: the wall-clock
    time (Unix seconds) when the network starts (default: the real time then)."""

    def __init__(self, *, epoch: float | None = None) -> None:
        self.nodes: dict[PeerId, MemoryNode] = {}
        self._links: set[frozenset[PeerId]] = set()
        self._cut: set[PeerId] = set()
        self.epoch = time.time() if epoch is None else epoch
        self._started: float | None = None

    def now(self) -> float:
        """The network's wall clock (see :meth:`MemoryNode.now`); starts at ``epoch`` on first use."""
        if self._started is None:
            self._started = trio.current_time()
        return self.epoch + (trio.current_time() - self._started)

    def reachable(self, a: PeerId, b: PeerId) -> bool:
        """Whether ``a`` could dial ``b`` now (both on the network, neither partitioned)."""
        return a in self.nodes and b in self.nodes and not (self._cut & {a, b})

    def links_of(self, peer: PeerId) -> set[PeerId]:
        return {other for link in self._links if peer in link for other in link if other != peer}

    def link(self, a: PeerId, b: PeerId) -> None:
        if b not in self.nodes or a == b or (self._cut & {a, b}):
            raise PeerUnreachable(f"{b} cannot be reached from {a} on the memory network")
        link = frozenset((a, b))
        if link not in self._links:  # a new connection, as both ends' hosts would register it
            self._links.add(link)
            for one, other in ((a, b), (b, a)):
                if one in self.nodes:
                    self.nodes[one].arrivals.note(other)

    def partition(self, peer: PeerId) -> None:
        """Cut ``peer`` off: its links drop, its open streams are reset, nobody can dial it or be dialed."""
        self._cut.add(peer)
        self._links = {link for link in self._links if peer not in link}
        for stream in self.nodes[peer].streams:
            stream._in.end()
            stream._out.end()
        self.nodes[peer].streams.clear()

    def heal(self, peer: PeerId) -> None:
        self._cut.discard(peer)

    @asynccontextmanager
    async def open_node(
        self, home: Path, *, raw: dict[str, Any] | None = None, identity: Identity | None = None
    ) -> AsyncIterator[MemoryNode]:
        """A node (with a new identity unless given: the same one restarts a node) until the block
        exits (its nursery runs its stream handlers)."""
        config = _config(home, raw or {})  # no thread: a mock clock would jump past it
        self.now()  # the clock starts with the first node
        async with trio.open_nursery() as nursery:
            node = MemoryNode(self, config, identity or Identity.generate(), nursery)
            self.nodes[node.peer_id] = node
            try:
                yield node
            finally:
                self.partition(node.peer_id)
                del self.nodes[node.peer_id]
                nursery.cancel_scope.cancel()


def _config(home: Path, raw: dict[str, Any]) -> NodeConfig:
    home.mkdir(parents=True, exist_ok=True)
    return NodeConfig(home=home, raw=raw)


__all__ = ["MemoryNetwork", "MemoryNode", "MemoryStream", "stream_pair"]
