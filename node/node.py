"""The running peer: ``async with open_node(config) as node:``.

``open_node`` loads the identity, opens the node's libp2p network (``node.net``,
:class:`~ioa_p2p.node.net.network.Libp2pNetwork`: the Noise-only host on the configured multiaddrs, its DHT,
the one dial path, reachability, relaying, hole punching), bootstrap dialing with backoff and peer discovery
(:mod:`ioa_p2p.node.net.routing`), the local control API, and then the services, composed explicitly by
:func:`ioa_p2p.node.services.open_services` into the typed ``node.services``
(:class:`~ioa_p2p.node.services.NodeServices`: ``node.services.chats``, ``node.services.goals``...). All
background work lives in the node's nursery (``node.nursery``); leaving the ``async with`` block cancels it
and closes the host. Services see the node through :class:`ioa_p2p.node.ports.NodePort`; no py-libp2p
object crosses into them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any, TypeVar

import trio

from ioa_p2p.api.events import EventSink
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig, resolve_bootstrap
from ioa_p2p.errors import IoATimeout, PeerUnreachable, UsageError
from ioa_p2p.faults import Faults, single_error
from ioa_p2p.identity import Identity, PeerId, load_key_file
from ioa_p2p.memory import PROCESS_MEMORY, AgentMemory, ProcessMemory
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.cpu_meter import own_work
from ioa_p2p.node.net.cpu_wait import open_cpu_deadline
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.net.host import parse_multiaddr, peer_info_from_addr, peer_of_addr, remote_peer_of
from ioa_p2p.node.net.local_streams import LocalStream, local_stream_pair
from ioa_p2p.node.net.nat import NatOptions
from ioa_p2p.node.net.network import InboundCap, Libp2pNetwork, NetOptions, open_network
from ioa_p2p.node.net.routing import BootstrapState, start_routing
from ioa_p2p.node.ports import StreamHandler
from ioa_p2p.node.relay.settings import RelaySettings
from ioa_p2p.node.services import NodeServices, open_services
from ioa_p2p.node.status import add_status_routes
from ioa_p2p.node.telemetry import open_tracer
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
        nothing a peer sends can end the node.

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
                with scope, self.faults.boundary(f"stream {protocol_id}", remote):
                    await handler(framed)
                    ok = True
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


@asynccontextmanager
async def open_node(
    config: NodeConfig,
    *,
    identity: Identity | None = None,
    control_api: bool = True,
    write_info: bool = True,
    services: bool = True,
    memory: ProcessMemory = PROCESS_MEMORY,
    cohosted: CoHosted | None = None,
) -> AsyncIterator[Node]:
    """Run a node until the block exits. ``identity`` defaults to the key file under ``config.home``;
    ``memory``: the ledger of the agents of this process (one per process; tests may pass their own);
    ``cohosted``: the agents of this process (``open_agents``), which this node joins while it runs and
    whose connections it treats as the process's own work (:mod:`ioa_p2p.node.net.cohosted`)."""
    identity = identity or load_key_file(config.key_path)
    for addr in (*config.listen, *config.announce):
        parse_multiaddr(addr)  # fail early on a bad address
    bootstrap = resolve_bootstrap(config)
    for addr in bootstrap:
        peer_info_from_addr(addr)  # fail early on a bad bootstrap address
    relay = RelaySettings.from_section(config.section("relay"), str(config.home / "config.toml"))
    options = NetOptions(
        listen=config.listen,
        announce=config.announce,
        nat=NatOptions(mode=config.reachability, confirmations=config.confirmations),
        relay_client=relay.client,
        hole_punching=relay.client and relay.hole_punching,
        mdns=config.mdns,
    )
    tracer = open_tracer(config.section("telemetry"), config.home, str(identity.peer_id))
    faults = Faults()  # before the host: inbound streams are served inside its boundary from the start
    budgets = NodeBudgets(Limits.from_section(config.section("limits")), cohosted)
    budgets.trust_peers(peer_of_addr(a) for a in bootstrap)  # the operator named them
    inbound = InboundCap(
        budgets.limits.streams_per_peer, budgets.count_refused_early, budgets.admits, budgets=budgets
    )
    agent_memory = memory.open_agent()
    hosting = cohosted.hosting(identity.peer_id) if cohosted is not None else nullcontext()
    with single_error(), _closing(agent_memory), hosting:
        async with (
            open_network(identity, options, faults.record, inbound) as net,
            trio.open_nursery() as nursery,
        ):
            node = Node(
                config,
                identity,
                net,
                nursery,
                faults=faults,
                budgets=budgets,
                tracer=tracer,
                memory=agent_memory,
            )
            try:
                # Services exit (in reverse order) before the background tasks are cancelled, so an
                # exception raised in the block is never replaced by a Cancelled from our own scope.
                async with AsyncExitStack() as stack:
                    start_routing(net, node.bootstrap, config, nursery, faults)
                    if services:
                        await open_services(
                            node,
                            stack,
                            node.services,
                            card_net=net.card_net(faults, cohosted),
                            relay_net=net.relay_net(),
                        )
                        _hint_card_addrs(node)
                    if cohosted is not None:  # the others open their streams to it in memory from now on
                        stack.enter_context(cohosted.serving(node.peer_id, node.accept_local))
                        me = node.peer_id  # its DHT requests to them too; a joining self-lookup asks them
                        net.open_local_streams_with(node.local_stream, lambda: cohosted.serving_peers(me))
                    add_status_routes(node)
                    node.services_ready.set()
                    if control_api:
                        await nursery.start(
                            lambda task_status: node.control.serve(
                                port=config.control_port, task_status=task_status
                            )
                        )
                        if write_info:
                            config.home.mkdir(parents=True, exist_ok=True)
                            node.control.write_files(config.home, node.info())
                    agent_memory.started()
                    try:
                        yield node
                    finally:
                        if write_info and control_api:
                            _remove_info(config.home)
            finally:
                nursery.cancel_scope.cancel()
                with trio.CancelScope(shield=True):
                    await node.wait_threads(10.0)
                    with trio.move_on_after(5):
                        await _flush_traces(tracer)


async def _flush_traces(tracer: Tracer) -> None:
    """Export the spans still buffered (an OpenTelemetry tracer's exporters run in threads)."""
    shutdown = getattr(tracer, "shutdown", None)
    if shutdown is not None:
        await trio.to_thread.run_sync(shutdown, abandon_on_cancel=True)  # type: ignore[call-arg]


def _hint_card_addrs(node: Node) -> None:
    """The dial path also tries the addresses of a peer's latest signed card (discovery's directory)."""

    def card_addrs(peer: PeerId) -> list[str]:
        discovery = node.services.discovery
        if discovery is None:
            return []
        card = discovery.directory.get(peer, int(node.now() * 1000))
        return list(card.card.addrs) if card is not None else []

    node.net.add_hints(card_addrs)


@contextmanager
def _closing(agent: AgentMemory) -> Iterator[None]:
    try:
        yield
    finally:
        agent.close()


def _remove_info(home: Path) -> None:
    for name in ("node.json", "control.token"):
        with suppress(OSError):
            (home / name).unlink()
