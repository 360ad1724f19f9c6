"""The running peer: ``async with open_node(config) as node:``.

``open_node`` loads the identity, starts the Noise-only libp2p host on the configured multiaddrs, the node's
Kademlia DHT (``node.dht``, see :mod:`ioa_p2p.node.net.routing`), bootstrap dialing with backoff, peer
discovery, the local control API, and then the services, composed explicitly by
:func:`ioa_p2p.node.services.open_services` into the typed ``node.services``
(:class:`~ioa_p2p.node.services.NodeServices`: ``node.services.chats``, ``node.services.goals``...). All
background work lives in the node's nursery (``node.nursery``); leaving the ``async with`` block cancels it
and closes the host. Services see the node through :class:`ioa_p2p.node.ports.NodePort`.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import trio

from ioa_p2p.api.events import EventSink
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.dht.refresh import RefreshPolicy
from ioa_p2p.errors import (
    ConfigError,
    InvalidPeerId,
    IoATimeout,
    PeerUnreachable,
    UsageError,
)
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId, load_key_file
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.card_net import Libp2pCardNet
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.net.host import (
    from_libp2p_id,
    known_peer_info,
    new_noise_host,
    parse_multiaddr,
    peer_info_from_addr,
    to_libp2p_id,
)
from ioa_p2p.node.net.libp2p_patches import cap_inbound_streams, unblock_peer
from ioa_p2p.node.net.ping import ping_rtt
from ioa_p2p.node.net.routing import (
    RefreshTrigger,
    keep_bootstrap_connected,
    new_dht,
    run_dht,
    run_peer_discovery,
)
from ioa_p2p.node.ports import StreamHandler
from ioa_p2p.node.services import NodeServices, open_services
from ioa_p2p.node.status import add_status_routes
from ioa_p2p.node.telemetry import open_tracer
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer

log = logging.getLogger("ioa_p2p.node")

STREAM_OPEN_ATTEMPTS = 3
STREAM_OPEN_TIMEOUT = 10.0
_T = TypeVar("_T")


class Node:
    """A running ioa-p2p peer. Made by :func:`open_node`; do not construct directly."""

    def __init__(
        self,
        config: NodeConfig,
        identity: Identity,
        host: Any,
        nursery: trio.Nursery,
        *,
        faults: Faults | None = None,
        budgets: NodeBudgets | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.config = config
        self.home: Path = config.home
        self.identity = identity
        self.peer_id: PeerId = identity.peer_id
        self.host = host
        self.nursery = nursery
        self.dht: Any = None
        self.control = ControlAPI()
        #: Exceptions stopped at per-peer / per-stream task boundaries (nothing a peer sends ends the node).
        self.faults = faults or Faults()
        #: Resource budgets per peer and per node (``[limits]``; docs/security.md, "Resource budgets").
        self.budgets = budgets or NodeBudgets(Limits())
        #: The running services (composed by :func:`ioa_p2p.node.services.open_services`).
        self.services = NodeServices()
        #: Set once every service is open: services publish what depends on the others only then
        #: (discovery announces the card after the goals service added the adapter's description).
        self.services_ready = trio.Event()
        #: When the node started (seconds since the Unix epoch).
        self.started = time.time()
        #: Spans of goals, turns, tasks and model calls (:mod:`ioa_p2p.node.telemetry`; no-op by default).
        self.tracer: Tracer = tracer or NOOP_TRACER

    # ------------------------------------------------------------------ clock and worker threads

    def now(self) -> float:
        """Wall-clock time (seconds since the Unix epoch)."""
        return time.time()

    async def run_sync(self, fn: Callable[[], _T]) -> _T:
        """``fn()`` in a worker thread (abandoned, not waited for, when the caller is cancelled)."""
        return await trio.to_thread.run_sync(fn, abandon_on_cancel=True)  # type: ignore[call-arg]

    # ------------------------------------------------------------------ addresses and peers

    def listen_addrs(self) -> list[str]:
        """Full listen multiaddrs, each ending in ``/p2p/<peer id>``."""
        suffix = f"/p2p/{self.peer_id}"
        out = []
        for addr in self.host.get_addrs():
            text = str(addr)
            out.append(text if text.endswith(suffix) else text + suffix)
        return out

    def connected_peers(self) -> list[PeerId]:
        """Connected peers (only Ed25519 peers can connect; any other ID is left out)."""
        out = []
        for peer in self.host.get_connected_peers():
            with suppress(InvalidPeerId):
                out.append(from_libp2p_id(peer))
        return sorted(out)

    def is_connected(self, peer: PeerId) -> bool:
        return bool(self.host.get_network().connections.get(to_libp2p_id(peer)))

    def peer_addrs(self, peer: PeerId) -> list[str]:
        try:
            return [str(a) for a in self.host.get_peerstore().addrs(to_libp2p_id(peer))]
        except Exception:  # peerstore raises PeerStoreError for unknown peers
            return []

    async def ping(self, peer: PeerId) -> float | None:
        """The round-trip time to a connected peer in milliseconds (None: a failed ping); callers bound
        the wait."""
        return await ping_rtt(self.host, peer)

    async def connect(self, addr: str) -> PeerId:
        """Connect to a full multiaddr (``.../p2p/<peer id>``); returns the peer's ID."""
        info = peer_info_from_addr(addr)
        peer = from_libp2p_id(info.peer_id)
        if peer == self.peer_id:
            raise UsageError(f"{addr} is this node's own address")
        unblock_peer(self.host, info.peer_id)
        try:
            await self.host.connect(info)
        except Exception as exc:
            raise PeerUnreachable(f"cannot connect to {addr}: {exc}") from None
        return peer

    async def connect_peer(self, peer: PeerId) -> None:
        """Connect to a peer whose addresses are already known (peerstore / DHT)."""
        if self.is_connected(peer):
            return
        info = known_peer_info(self.host, peer)
        if info is None:
            raise PeerUnreachable(f"no known address for {peer}; connect to it by multiaddr first")
        unblock_peer(self.host, info.peer_id)
        try:
            await self.host.connect(info)
        except Exception as exc:
            raise PeerUnreachable(f"cannot connect to {peer}: {exc}") from None

    # ------------------------------------------------------------------ streams

    def set_stream_handler(self, protocol_id: str, handler: StreamHandler) -> None:
        """Serve ``protocol_id``: each inbound stream becomes a FramedStream whose ``remote`` is the
        Noise-authenticated peer. Any exception but cancellation ends only that stream (reset), and is
        counted in ``node.faults``: nothing a peer sends can end the node.

        Each stream holds one unit of the ``streams`` budget while its handler runs: past the peer's
        cap it is reset at once; past the node's total, the newest stream of the peer holding the most
        is reset instead (when that peer holds more than this one), else this one."""
        streams = self.budgets.streams

        async def wrapped(stream: Any) -> None:
            try:
                remote = from_libp2p_id(stream.muxed_conn.peer_id)
            except Exception:
                await stream.reset()
                return
            scope = trio.CancelScope()
            claim = streams.try_claim(remote, 1, scope.cancel)
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

        self.host.set_stream_handler(protocol_id, wrapped)

    async def open_stream(self, peer: PeerId, protocol_id: str) -> FramedStream:
        """Open a stream to ``peer`` (dialing it if needed), retrying transient failures.

        Callers bound the wait with their own cancel scope; as a safety net the attempts stop after
        ``STREAM_OPEN_TIMEOUT`` seconds with :class:`IoATimeout`."""
        timeout = STREAM_OPEN_TIMEOUT
        if peer == self.peer_id:
            raise UsageError("cannot open a stream to this node itself")
        last: Exception | None = None
        with trio.move_on_after(timeout) as scope:
            for attempt in range(STREAM_OPEN_ATTEMPTS):
                try:
                    stream = await self.host.new_stream(to_libp2p_id(peer), [protocol_id])
                    return self.budgets.framed(stream, peer)
                except Exception as exc:  # libp2p raises many types while dialing/negotiating
                    last = exc
                    await trio.sleep(0.05 * (attempt + 1))
        if scope.cancelled_caught:
            raise IoATimeout(f"opening {protocol_id} to {peer} took longer than {timeout:.1f} s")
        raise PeerUnreachable(f"cannot open {protocol_id} to {peer}: {last}")

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
) -> AsyncIterator[Node]:
    """Run a node until the block exits. ``identity`` defaults to the key file under ``config.home``."""
    identity = identity or load_key_file(config.key_path)
    listen = [parse_multiaddr(a) for a in config.listen]
    for bootstrap in config.bootstrap:
        peer_info_from_addr(bootstrap)  # fail early on a bad bootstrap address
    tracer = open_tracer(config.section("telemetry"), config.home, str(identity.peer_id))
    faults = Faults()  # before the host: inbound streams are served inside its boundary from the start
    budgets = NodeBudgets(Limits.from_section(config.section("limits")))
    host = new_noise_host(identity, on_fault=faults.record)
    cap_inbound_streams(host, budgets.limits.streams_per_peer, budgets.count_refused_early, budgets.admits)
    try:
        host_cm = host.run(listen_addrs=listen)
        await host_cm.__aenter__()
    except OSError as exc:
        raise UsageError(f"cannot listen on {list(config.listen)}: {exc.strerror or exc}") from None
    try:
        _check_listening(host, config.listen, listen)
        with _single_error():
            async with trio.open_nursery() as nursery:
                node = Node(config, identity, host, nursery, faults=faults, budgets=budgets, tracer=tracer)
                node.dht = new_dht(host)
                try:
                    # Services exit (in reverse order) before the background tasks are cancelled, so an
                    # exception raised in the block is never replaced by a Cancelled from our own scope.
                    async with AsyncExitStack() as stack:
                        await stack.enter_async_context(run_dht(node.dht))
                        await _start_routing(node)
                        if services:
                            card_net = Libp2pCardNet(host, node.dht, faults)
                            await open_services(node, stack, node.services, card_net=card_net)
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
                        try:
                            yield node
                        finally:
                            if write_info and control_api:
                                _remove_info(config.home)
                finally:
                    nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(5):
            await _flush_traces(tracer)
            try:
                await host.get_network().close()  # closes connections (and their sockets) first
            except Exception as exc:
                log.debug("swarm close: %s", exc)
            try:
                await host_cm.__aexit__(None, None, None)
            except Exception as exc:
                log.debug("host shutdown: %s", exc)


async def _flush_traces(tracer: Tracer) -> None:
    """Export the spans still buffered (an OpenTelemetry tracer's exporters run in threads)."""
    shutdown = getattr(tracer, "shutdown", None)
    if shutdown is not None:
        await trio.to_thread.run_sync(shutdown, abandon_on_cancel=True)  # type: ignore[call-arg]


async def _start_routing(node: Node) -> None:
    trigger = RefreshTrigger()

    async def on_bootstrap(peer: PeerId) -> None:
        try:
            await node.dht.add_peer(to_libp2p_id(peer))
        except Exception as exc:
            log.debug("could not add bootstrap peer %s to the routing table: %s", peer, exc)
        trigger.poke()

    for addr in node.config.bootstrap:
        node.nursery.start_soon(
            lambda a=addr: keep_bootstrap_connected(
                node.connect,
                node.is_connected,
                a,
                backoff=node.config.bootstrap_backoff,
                backoff_max=node.config.bootstrap_backoff_max,
                on_connected=on_bootstrap,
            )
        )
    node.nursery.start_soon(
        lambda: run_peer_discovery(
            node.dht,
            node.connect_peer,
            node.connected_peers,
            policy=RefreshPolicy(target_peers=node.config.target_peers),
            trigger=trigger,
            faults=node.faults,
        )
    )


def _check_listening(host: Any, texts: tuple[str, ...], addrs: list[Any]) -> None:
    """py-libp2p only logs a listen address it cannot bind: refuse to run deaf (ConfigError, exit 2)."""
    listening = host.get_network().listeners
    failed = [text for text, addr in zip(texts, addrs, strict=True) if str(addr) not in listening]
    if failed:
        reasons = "; ".join(
            f"{text}: {_bind_problem(addr)}"
            for text, addr in zip(texts, addrs, strict=True)
            if text in failed
        )
        raise ConfigError(
            f"[node].listen (or --listen): cannot listen on {reasons}; choose another port (tcp/0: any "
            "free port) or an address of this machine"
        )


def _bind_problem(addr: Any) -> str:
    """Why a TCP listen address cannot be bound, found by trying (py-libp2p does not say)."""
    import socket

    try:
        host = addr.value_for_protocol("ip4") or addr.value_for_protocol("ip6")
        port = int(addr.value_for_protocol("tcp"))
    except Exception:  # not an ip/tcp address: the transport refused it
        return "no transport can listen on it"
    family = socket.AF_INET6 if ":" in str(host) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((str(host), port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return "the address could not be bound"


@contextmanager
def _single_error() -> Iterator[None]:
    """Re-raise a lone error out of trio's exception group, so callers catch our typed errors (or the
    block's own exception) directly; several errors stay grouped."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = list(_leaves(group))
        real = [exc for exc in leaves if not isinstance(exc, trio.Cancelled)]
        if len(real) == 1:
            raise real[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


def _remove_info(home: Path) -> None:
    for name in ("node.json", "control.token"):
        with suppress(OSError):
            (home / name).unlink()
