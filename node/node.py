"""The running peer: :class:`Node`, what its services see of it (:class:`~ioa_p2p.node.ports.NodePort`).

A node is made by :func:`ioa_p2p.node.lifecycle.open_node` (``async with open_node(config) as node:``): its
clock and worker threads, its libp2p network (``node.net``, :class:`~ioa_p2p.node.net.network.Libp2pNetwork`),
streams to peers (to a co-hosted agent: in memory), the typed ``node.services``
(:class:`~ioa_p2p.node.services.NodeServices`) and its nursery (``node.nursery``), where all background work
lives. No py-libp2p object crosses into the services.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import trio

from ioa_p2p.api.events import EventSink
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig, resolve_bootstrap
from ioa_p2p.errors import IoATimeout, PeerUnreachable, UsageError
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.memory import PROCESS_MEMORY, AgentMemory
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.bootstrap_keeper import BootstrapState
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cpu_meter import own_work
from ioa_p2p.node.net.cpu_wait import open_cpu_deadline
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.net.host import remote_peer_of
from ioa_p2p.node.net.local_streams import LocalStream, local_stream_pair
from ioa_p2p.node.net.network import Libp2pNetwork
from ioa_p2p.node.ports import StreamHandler
from ioa_p2p.node.services import NodeServices
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer

log = logging.getLogger("ioa_p2p.node")

STREAM_OPEN_ATTEMPTS = 3
STREAM_OPEN_TIMEOUT = 10.0
STREAM_OPEN_MOST = 3.0
_T = TypeVar("_T")
#: Worker-thread work of a trio run that holds the GIL while it runs (a card stamp's proof of work: a
#: Python loop over small hashes): one such job at a time per run, shared by the agents of the process.
#: Measured (issue 26): the 25 agents of one process each minted their stamp in a worker thread at once,
#: and the event loop that serves them all got one GIL turn (5 ms) in 26 until every stamp was done.
_GIL_BOUND: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("ioa_gil_bound_work")


def gil_bound_limiter() -> trio.CapacityLimiter:
    """The run's limiter of GIL-bound worker-thread jobs (one at a time; made on first use)."""
    try:
        return _GIL_BOUND.get()
    except LookupError:
        limiter = trio.CapacityLimiter(1)
        _GIL_BOUND.set(limiter)
        return limiter


class Node:
    """A running ioa-p2p peer. Made by :func:`open_node`; do not construct directly."""

    def __init__(
        self,
        config: NodeConfig,
        identity: Identity,
        net: Libp2pNetwork,
        nursery: trio.Nursery,
        *,
        faults: Faults | None = None,
        budgets: NodeBudgets | None = None,
        tracer: Tracer | None = None,
        memory: AgentMemory | None = None,
    ) -> None:
        self.config = config
        self.home: Path = config.home
        self.identity = identity
        self.peer_id: PeerId = identity.peer_id
        #: The libp2p network (host, DHT, dial path): :class:`~ioa_p2p.node.net.network.Libp2pNetwork`.
        self.net = net
        self.nursery = nursery
        self.control = ControlAPI()
        #: Exceptions stopped at per-peer / per-stream task boundaries (nothing a peer sends ends the node).
        self.faults = faults or Faults()
        #: Resource budgets per peer and per node (``[limits]``; docs/security.md, "Resource budgets").
        self.budgets = budgets or NodeBudgets(Limits())
        #: This agent's entry in its process's memory ledger (``GET /budgets``' ``memory``).
        self.memory = memory or PROCESS_MEMORY.open_agent()
        #: Bootstrap peers and how dialing each one goes (``GET /net``).
        self.bootstrap = BootstrapState(resolve_bootstrap(config))
        #: The running services (composed by :func:`ioa_p2p.node.services.open_services`).
        self.services = NodeServices()
        #: Set once every service is open: services publish what depends on the others only then
        #: (discovery announces the card after the goals service added the adapter's description).
        self.services_ready = trio.Event()
        self._threads_lock = threading.Lock()
        self._threads_running = 0
        #: When the node started (seconds since the Unix epoch).
        self.started = time.time()
        #: Spans of goals, turns, tasks and model calls (:mod:`ioa_p2p.node.telemetry`; no-op by default).
        self.tracer: Tracer = tracer or NOOP_TRACER
        #: the stream handlers by protocol, for in-process streams from co-hosted agents (accept_local)
        self._local_handlers: dict[str, Callable[[Any, PeerId], Awaitable[None]]] = {}

    # ------------------------------------------------------------------ clock and worker threads

    def now(self) -> float:
        """Wall-clock time (seconds since the Unix epoch)."""
        return time.time()

    async def run_sync(self, fn: Callable[[], _T], *, gil_bound: bool = False) -> _T:
        """``fn()`` in a worker thread (abandoned, not waited for, when the caller is cancelled;
        the node's exit waits for it, bounded: see :meth:`wait_threads`). ``gil_bound``: ``fn`` is Python
        code that holds the GIL throughout; such jobs of every node of the run take turns
        (:func:`gil_bound_limiter`), so the event loop gets the GIL at least every other turn."""

        def counted() -> _T:
            with self._threads_lock:
                self._threads_running += 1
            try:
                return fn()
            finally:
                with self._threads_lock:
                    self._threads_running -= 1

        limiter = gil_bound_limiter() if gil_bound else None
        return await trio.to_thread.run_sync(  # type: ignore[call-arg]
            counted, abandon_on_cancel=True, limiter=limiter
        )

    async def wait_threads(self, seconds: float) -> None:
        """Wait (at most ``seconds``) for worker threads still running an abandoned ``run_sync``: a
        process that exits while one runs native code (a model loading) is aborted by the C library
        ("exception not rethrown", exit -6)."""
        with trio.move_on_after(seconds):
            while self._threads_running:  # noqa: ASYNC110 - a counter worker threads write
                await trio.sleep(0.05)

    # ------------------------------------------------------------------ addresses and peers

    def listen_addrs(self) -> list[str]:
        """The addresses the node listens on (wildcards expanded), each ending in ``/p2p/<peer id>``."""
        return self.net.full(self.net.listen_addrs())

    def advertised_addrs(self) -> list[str]:
        """What peers are told to dial (card, peer record), each ending in ``/p2p/<peer id>``."""
        return self.net.full(self.net.advertised())

    async def wait_addrs_change(self) -> None:
        await self.net.wait_addrs_change()

    @property
    def arrivals(self) -> PeerArrivals:
        """Connections as they open (for work a reconnection starts: the chats' pulls and retries)."""
        return self.net.arrivals

    def connected_peers(self) -> list[PeerId]:
        """Connected peers (only Ed25519 peers can connect; any other ID is left out)."""
        return self.net.connected_peers()

    def is_connected(self, peer: PeerId) -> bool:
        return self.net.is_connected(peer)

    def peer_addrs(self, peer: PeerId) -> list[str]:
        return self.net.peer_addrs(peer)

    def connections(self, peer: PeerId) -> list[dict[str, Any]]:
        """Each open connection to ``peer`` and its kind (direct / relayed / punched)."""
        return self.net.connections(peer)

    def net_status(self) -> dict[str, Any]:
        """Reachability, addresses and bootstrap peers (``GET /net``)."""
        return {
            "peer_id": str(self.peer_id),
            "reachability": self.net.nat.summary(),
            "listen": self.listen_addrs(),
            "advertised": self.advertised_addrs(),
            "bootstrap": self.bootstrap.view(),
            "hole_punching": self.net.punch.status() if self.net.punch is not None else None,
            "connections": self.net.conn_events.snapshot(),
        }

    async def ping(self, peer: PeerId) -> float | None:
        """The round-trip time to a connected peer in milliseconds (None: a failed ping); callers bound
        the wait."""
        return await self.net.ping(peer)

    async def connect(self, addr: str) -> PeerId:
        """Connect to exactly ``addr`` (``.../p2p/<peer id>``, direct or ``/p2p-circuit``); the peer's ID."""
        return await self.net.connect(addr)

    async def connect_peer(self, peer: PeerId) -> None:
        """Connect to a peer at the addresses known for it (peerstore, its card): direct, then relayed."""
        await self.net.connect_peer(peer)

    # ------------------------------------------------------------------ streams

    def set_stream_handler(self, protocol_id: str, handler: StreamHandler) -> None:
        """Serve ``protocol_id``: each inbound stream becomes a FramedStream whose ``remote`` is the
        Noise-authenticated peer (or the co-hosted agent that opened it in memory: :meth:`accept_local`).
        Any exception but cancellation ends only that stream (reset), and is counted in ``node.faults``:
        nothing a peer sends can end the node. A handler that answered (a refusal) just before its error
        has the answer delivered first (:meth:`~ioa_p2p.node.net.framing.FramedStream.linger`).

        Each stream holds one unit of the ``streams`` budget while its handler runs: past the peer's
        cap it is reset at once; past the node's total, the newest stream of the peer holding the most
        is reset instead (when that peer holds more than this one), else this one."""
        streams = self.budgets.streams

        async def serve(stream: Any, remote: PeerId) -> None:
            scope = trio.CancelScope()
            claim = streams.try_claim(remote, 1, scope.cancel, self.budgets.trust(remote))
            if claim is None:
                await stream.reset()
                return
            framed = self.budgets.framed(stream, remote)
            ok = False
            try:
                with scope:
                    with self.faults.boundary(f"stream {protocol_id}", remote):
                        await handler(framed)
                        ok = True
                    if not ok:  # a refusal sent before the error reaches the peer before the reset
                        await framed.linger()
            finally:
                streams.release(claim)
                framed.release_budget()
            await (framed.close() if ok else framed.reset())

        async def wrapped(stream: Any) -> None:
            remote = remote_peer_of(stream)
            if remote is None:
                await stream.reset()
                return
            await serve(stream, remote)

        self._local_handlers[protocol_id] = serve
        self.net.set_stream_handler(protocol_id, wrapped)

    def accept_local(self, protocol_id: str, stream: Any, opener: PeerId) -> bool:
        """Serve an in-process stream that ``opener``, another agent of this process, opened to this
        node (:mod:`~ioa_p2p.node.net.local_streams`): its handler (ours, or the libp2p host's: the
        DHT's) runs in this node's nursery, as the process's own work (charged to no peer). False when
        this node does not serve ``protocol_id`` (or is closing)."""
        serve = self._local_handlers.get(protocol_id)
        host_handler = None if serve is not None else self.net.protocol_handler(protocol_id)
        if serve is None and host_handler is None:
            return False
        try:
            with own_work():
                if serve is not None:
                    self.nursery.start_soon(serve, stream, opener)
                elif host_handler is not None:
                    self.nursery.start_soon(host_handler, stream)
        except RuntimeError:  # the nursery is closed: this node is stopping
            return False
        return True

    async def open_stream(self, peer: PeerId, protocol_id: str) -> FramedStream:
        """Open a stream to ``peer``: connect through the one dial path (direct addresses, then relays;
        :class:`~ioa_p2p.errors.DialFailed` names what was tried), then negotiate, retrying transient
        failures. Callers bound the wait with their own cancel scope; as a safety net the attempt stops
        after ``STREAM_OPEN_TIMEOUT`` seconds, not counting the time this process waited for a CPU
        (:mod:`~ioa_p2p.node.net.cpu_wait`), at most ``STREAM_OPEN_MOST`` times that."""
        timeout = STREAM_OPEN_TIMEOUT
        if peer == self.peer_id:
            raise UsageError("cannot open a stream to this node itself")
        local = await self._open_local(peer, protocol_id)
        if local is not None:
            return local
        last: Exception | None = None
        async with open_cpu_deadline(timeout, most=STREAM_OPEN_MOST * timeout) as scope:
            await self.net.connect_peer(peer)  # DialFailed / PeerUnreachable: nothing to retry here
            for attempt in range(STREAM_OPEN_ATTEMPTS):
                try:
                    stream = await self.net.new_stream(peer, protocol_id)
                    return self.budgets.framed(stream, peer)
                except Exception as exc:  # libp2p raises many types while negotiating
                    last = exc
                    await trio.sleep(0.05 * (attempt + 1))
        if scope.cancelled_caught:
            raise IoATimeout(f"opening {protocol_id} to {peer} took longer than {timeout:.1f} s")
        raise PeerUnreachable(f"connected to {peer}, but cannot open {protocol_id} there: {last}")

    def serves_locally(self, peer: PeerId) -> bool:
        """Whether ``peer`` is another agent of this process that takes its streams in memory (no
        connection to it is needed: :meth:`open_stream` reaches it at once)."""
        cohosted = self.budgets.cohosted
        return cohosted is not None and cohosted.server(peer) is not None

    async def _open_local(self, peer: PeerId, protocol_id: str) -> FramedStream | None:
        """An in-process stream to ``peer`` when it is another agent of this process (None otherwise)."""
        if not self.serves_locally(peer):
            return None
        mine = self.local_stream(peer, protocol_id)
        if mine is None:
            raise PeerUnreachable(f"{peer}, an agent of this process, does not serve {protocol_id}")
        await trio.lowlevel.checkpoint()
        return self.budgets.framed(mine, peer)

    def local_stream(self, peer: PeerId, protocol_id: str) -> LocalStream | None:
        """This end of a new in-process stream of ``protocol_id`` to ``peer``, served by it, when ``peer``
        is another agent of this process that serves the protocol (None otherwise: use libp2p)."""
        cohosted = self.budgets.cohosted
        accept = cohosted.server(peer) if cohosted is not None else None
        if cohosted is None or accept is None:
            return None
        mine, theirs = local_stream_pair(protocol_id, self.peer_id, peer)
        if not accept(protocol_id, theirs, self.peer_id):
            return None
        cohosted.local_streams += 1
        return mine

    # ------------------------------------------------------------------ goals

    async def launch_goal(self, request: LaunchRequest, *, on_event: EventSink | None = None) -> GoalResult:
        """Form a team for a goal and work it out; see :meth:`ioa_p2p.node.goals.Goals.launch_goal`."""
        goals = self.services.goals
        if goals is None:
            raise UsageError("this node runs without the goals service")
        return await goals.launch_goal(request, on_event=on_event)

    # ------------------------------------------------------------------ info

    def info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "peer_id": str(self.peer_id),
            "addrs": self.listen_addrs(),
            "advertised": self.advertised_addrs(),
            "control": {"host": "127.0.0.1", "port": self.control.port},
            "services": self.services.names(),
        }
