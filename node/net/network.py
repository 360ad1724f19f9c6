"""The node's libp2p network: :class:`Libp2pNetwork`, opened by :func:`open_network`.

Everything :mod:`ioa_p2p.node.node` needs of py-libp2p goes through this object (``NodePort`` exposes no
host or DHT): the Noise-only host and its listen addresses, what the node advertises
(:mod:`~ioa_p2p.node.net.addrs`), the one dial path (:mod:`~ioa_p2p.node.net.dialer`), stream handlers
and streams, the connections and their kind (direct / relayed / punched), the DHT, bootstrap dialing and
peer discovery (:mod:`~ioa_p2p.node.net.routing`), reachability (:mod:`~ioa_p2p.node.net.nat`: identify
observations, AutoNAT), the relay protocols (:mod:`~ioa_p2p.node.net.relay`, ``relay_hop``) and hole
punching (:mod:`~ioa_p2p.node.net.punch`). Peer IDs cross this boundary as
:class:`~ioa_p2p.identity.PeerId`, addresses as multiaddr text, errors as ours.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import trio
from libp2p.identity.identify_push.identify_push import push_identify_to_peers

from ioa_p2p.errors import ConfigError, InvalidAddress, InvalidPeerId, UsageError
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.addrs import (
    LocalView,
    advertised_addrs,
    expand_wildcards,
    is_circuit,
    split_circuit,
    strip_peer,
)
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.card_net import Libp2pCardNet
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.conn_events import ConnectionEvents, watch_connections
from ioa_p2p.node.net.dialer import Dialer
from ioa_p2p.node.net.guard import abort_sockets, close_connections, connections_of, guard_host
from ioa_p2p.node.net.host import (
    from_libp2p_id,
    new_noise_host,
    parse_multiaddr,
    peer_info_from_addr,
    to_libp2p_id,
)
from ioa_p2p.node.net.interfaces import InterfaceCache
from ioa_p2p.node.net.libp2p_patches import (
    FaultSink,
    advertise,
    live_connections,
    route_dials,
)
from ioa_p2p.node.net.mdns import run_mdns
from ioa_p2p.node.net.nat import NatOptions, NatState
from ioa_p2p.node.net.ping import ping_rtt
from ioa_p2p.node.net.punch import HolePuncher
from ioa_p2p.node.net.relay import StopService, dial_circuit, peer_protocols
from ioa_p2p.node.net.relay_hop import HopServer
from ioa_p2p.node.net.relay_limits import HopLimits
from ioa_p2p.node.net.relay_net import Libp2pRelayNet
from ioa_p2p.node.net.routing import new_dht, run_dht
from ioa_p2p.node.net.stale_contacts import sweep_stale_contacts, watch_stale_contacts
from ioa_p2p.node.net.stream_caps import cap_inbound_streams

log = logging.getLogger("ioa_p2p.net")

#: Seconds the network may take to close its connections and the host when the node stops.
SHUTDOWN_TIMEOUT = 8.0


@dataclass(frozen=True, slots=True)
class NetOptions:
    """What the node's ``[node]`` / ``[relay]`` tables say about its network (see NodeConfig)."""

    listen: tuple[str, ...]
    announce: tuple[str, ...] = ()
    nat: NatOptions = NatOptions()
    relay_client: bool = True
    hole_punching: bool = True
    mdns: bool = False


@dataclass(frozen=True, slots=True)
class InboundCap:
    """Inbound streams a peer may hold open (``per_peer``), who is told of refusals, who is admitted
    (:func:`~ioa_p2p.node.net.stream_caps.cap_inbound_streams`); ``budgets``: the node's, put into
    the host (the node-wide stream total, metered reads and connections:
    :func:`~ioa_p2p.node.net.guard.guard_host`)."""

    per_peer: int
    on_refused: Callable[[str], None] | None = None
    admit: Callable[[str], bool] | None = None
    budgets: NodeBudgets | None = None


class Libp2pNetwork:
    """The node's host, addresses, dial path and connections (module docstring)."""

    def __init__(
        self, identity: Identity, options: NetOptions, on_fault: FaultSink, inbound: InboundCap | None = None
    ) -> None:
        self.peer_id = identity.peer_id
        self.options = options
        self.host = new_noise_host(identity, on_fault=on_fault)
        if inbound is not None:
            cap_inbound_streams(
                self.host, inbound.per_peer, inbound.on_refused, inbound.admit, inbound.budgets
            )
            if inbound.budgets is not None:
                guard_host(self.host, inbound.budgets)
        #: why connections opened and closed (``GET /net``): :mod:`~ioa_p2p.node.net.conn_events`
        self.conn_events = ConnectionEvents()
        #: every connection as it opens, for services that act on a (re)connection
        self.arrivals = PeerArrivals()
        watch_connections(self.host, self.conn_events, self._arrived)
        self.dht: Any = None
        self.interfaces = InterfaceCache()
        self.circuits: tuple[str, ...] = ()
        self.nat = NatState(self, options.nat)
        self.punch: HolePuncher | None = None
        self.hop: HopServer | None = None
        self._addrs_changed = trio.Event()
        self._last_advertised: tuple[str, ...] = ()
        circuit = self._dial_through_relay if options.relay_client else None
        self.dialer = Dialer(self.host, self.local_view, circuit=circuit)
        route_dials(self.host, lambda peer: self.dialer.dial(peer, deliberate=False))
        advertise(self.host, self.advertised)
        self.nat.install()

    # ------------------------------------------------------------------ addresses

    def listen_addrs(self) -> list[str]:
        """The addresses the host listens on, wildcards expanded (without ``/p2p/<id>``)."""
        raw = [str(a) for a in self.host.get_transport_addrs()]
        return expand_wildcards(raw, self.interfaces.get())

    def advertised(self) -> list[str]:
        """What peers are told to dial (without ``/p2p/<id>``): :func:`~addrs.advertised_addrs`."""
        return advertised_addrs(
            listen=self.listen_addrs(),
            announce=self.options.announce,
            observed=self.nat.verified_addrs(),
            circuits=self.circuits,
            reachability=self.nat.status(),
        )

    def full(self, addrs: list[str]) -> list[str]:
        suffix = f"/p2p/{self.peer_id}"
        return [a if a.endswith(suffix) else a + suffix for a in addrs]

    def local_view(self) -> LocalView:
        own = frozenset(strip_peer(a) for a in [*self.listen_addrs(), *self._last_advertised])
        return LocalView(tuple(self.interfaces.get()), own)

    def set_circuit_addrs(self, addrs: list[str]) -> None:
        """Our ``/p2p-circuit`` addresses (the relay service's reservations)."""
        self.circuits = tuple(dict.fromkeys(strip_peer(a) for a in addrs))
        self.check_addrs()

    def check_addrs(self) -> None:
        """Notice a change of what we advertise: wake waiters and tell connected peers (identify push)."""
        current = tuple(self.advertised())
        if current == self._last_advertised:
            return
        self._last_advertised = current
        self._addrs_changed.set()
        self._addrs_changed = trio.Event()
        self.nat.addresses_changed()
        if self._nursery is not None:
            self._nursery.start_soon(self._push_identify)

    async def wait_addrs_change(self) -> None:
        await self._addrs_changed.wait()

    async def _push_identify(self) -> None:
        try:
            with trio.move_on_after(10):
                await push_identify_to_peers(self.host)
        except Exception as exc:  # best effort: peers also learn at their next identify
            log.debug("identify push failed: %s", exc)

    # ------------------------------------------------------------------ peers and connections

    def connected_peers(self) -> list[PeerId]:
        out = []
        for peer in self.host.get_connected_peers():
            with suppress(InvalidPeerId):
                if live_connections(self.host, peer):
                    out.append(from_libp2p_id(peer))
        return sorted(out)

    def is_connected(self, peer: PeerId) -> bool:
        return bool(live_connections(self.host, to_libp2p_id(peer)))

    def _arrived(self, libp2p_peer: Any) -> None:
        with suppress(InvalidPeerId):  # only Ed25519 peers are ours (as in :meth:`connected_peers`)
            self.arrivals.note(from_libp2p_id(libp2p_peer))

    def peer_addrs(self, peer: PeerId) -> list[str]:
        return self.dialer.known_addrs(to_libp2p_id(peer))

    def speaks(self, peer: PeerId, protocol: str) -> bool:
        return protocol in peer_protocols(self.host, peer)

    def connections(self, peer: PeerId) -> list[dict[str, Any]]:
        """Each open connection to ``peer``: ``{"kind": direct|relayed|punched, "addr", "direction",
        "streams"}``, direct ones first."""
        out = []
        for conn in live_connections(self.host, to_libp2p_id(peer)):
            addrs = [str(a) for a in conn.get_transport_addresses()]
            relayed = any(is_circuit(a) for a in addrs)
            punched = self.punch is not None and self.punch.is_punched(conn)
            kind = "relayed" if relayed else "punched" if punched else "direct"
            direction = str(getattr(getattr(conn, "direction", None), "name", "unknown")).lower()
            out.append(
                {
                    "kind": kind,
                    "addr": addrs[0] if addrs else "",
                    "direction": direction,
                    "streams": len(conn.get_streams()),
                }
            )
        return sorted(out, key=lambda c: c["kind"] == "relayed")

    # ------------------------------------------------------------------ dialing and streams

    async def connect(self, addr: str) -> PeerId:
        """Dial exactly ``addr`` (``.../p2p/<peer id>``, direct or ``/p2p-circuit``); the peer's ID."""
        info = peer_info_from_addr(addr)
        peer = from_libp2p_id(info.peer_id)
        if peer == self.peer_id:
            raise UsageError(f"{addr} is this node's own address")
        await self.dialer.dial(info.peer_id, [addr])
        return peer

    async def connect_peer(self, peer: PeerId, *, deliberate: bool = True) -> None:
        """Dial ``peer`` at the addresses we know (peerstore, its card), direct first, then relays."""
        if peer == self.peer_id:
            raise UsageError("cannot dial this node itself")
        await self.dialer.dial(to_libp2p_id(peer), deliberate=deliberate)

    async def ping(self, peer: PeerId) -> float | None:
        """Round-trip time to a connected peer in milliseconds (None: a failed ping); callers bound it."""
        return await ping_rtt(self.host, peer)

    async def new_stream(self, peer: PeerId, protocol: str) -> Any:
        """A raw py-libp2p stream of ``protocol`` on the best connection (``connect_peer`` first)."""
        return await self.host.new_stream(to_libp2p_id(peer), [protocol])

    def set_stream_handler(self, protocol: str, handler: Callable[[Any], Any]) -> None:
        self.host.set_stream_handler(protocol, handler)

    def protocol_handler(self, protocol: str) -> Callable[[Any], Any] | None:
        """The host's handler of ``protocol`` (the DHT's, identify's...), for an in-process stream."""
        handlers = getattr(self.host.get_mux(), "handlers", {})
        handler: Callable[[Any], Any] | None = handlers.get(protocol)
        return handler

    def open_local_streams_with(
        self, opener: Callable[[PeerId, str], Any], mates: Callable[[], list[PeerId]] = list
    ) -> None:
        """``opener(peer, protocol)``: an in-process stream to another agent of this process (None: not
        one); the DHT's requests to such a peer use it instead of a libp2p stream (``kad_io.exchange``).
        ``mates()``: the other agents of the process that take such streams now (a joining node's
        self-lookup also asks a few of them: ``routing.joining_seeds``)."""
        self.host.ioa_local_stream = opener
        self.host.ioa_local_peers = lambda: [to_libp2p_id(peer) for peer in mates()]

    def add_hints(self, hints: Callable[[PeerId], list[str]]) -> None:
        """More addresses of a peer to try (its signed card), asked at every dial."""

        def libp2p_hints(peer: Any) -> list[str]:
            try:
                return hints(from_libp2p_id(peer))
            except InvalidPeerId:
                return []

        self.dialer.hints = libp2p_hints

    async def _dial_through_relay(self, addr: str) -> Any:
        parts = split_circuit(addr)
        if parts is None:
            raise InvalidAddress(
                f"{addr!r} is not <relay multiaddr>/p2p/<relay id>/p2p-circuit/p2p/<peer id>"
            )
        relay_part, relay_text, target_text = parts
        relay = to_libp2p_id(PeerId.from_string(relay_text))
        target = to_libp2p_id(PeerId.from_string(target_text))
        if relay == self.host.get_id():
            raise UsageError(f"{addr} names this node as the relay")
        explicit = [relay_part] if not relay_part.startswith("/p2p/") else None
        await self.dialer.dial(relay, explicit)
        return await dial_circuit(self.host, relay, target, addr)

    # ------------------------------------------------------------------ what services get

    def card_net(self, faults: Faults, cohosted: CoHosted | None = None) -> Libp2pCardNet:
        """Discovery's network: the DHT's card records and the card topic (shared directly with the other
        agents of the process: ``cohosted``)."""
        return Libp2pCardNet(self.host, self.dht, faults, cohosted)

    def relay_net(self) -> Libp2pRelayNet:
        """The relay service's network."""
        return Libp2pRelayNet(self)

    # ------------------------------------------------------------------ relaying for others

    def start_hop(self, limits: HopLimits) -> None:
        if self.hop is None:
            self.hop = HopServer(self.host, limits, self.advertised)
            self.hop.register()
            if self._nursery is not None:
                self._nursery.start_soon(self._push_identify)

    def stop_hop(self) -> None:
        if self.hop is not None:
            self.hop.unregister()
            self.hop = None
            if self._nursery is not None:
                self._nursery.start_soon(self._push_identify)

    _nursery: trio.Nursery | None = None

    # ------------------------------------------------------------------ lifecycle

    async def _start(self, stack: AsyncExitStack) -> None:
        listen = [parse_multiaddr(a) for a in self.options.listen]
        try:
            await stack.enter_async_context(self.host.run(listen_addrs=listen))
        except OSError as exc:
            raise UsageError(f"cannot listen on {list(self.options.listen)}: {exc.strerror or exc}") from None
        stack.push_async_callback(close_host, self.host)  # connections (and sockets) close first
        check_listening(self.host, self.options.listen, listen)
        self.dht = new_dht(self.host, client=self.options.nat.mode == "private")
        watch_stale_contacts(self.dht, self.conn_events)  # gone peers leave the table (stale_contacts.py)
        await stack.enter_async_context(run_dht(self.dht))
        if self.options.relay_client:
            await stack.enter_async_context(StopService(self.host).run())
            if self.options.hole_punching:
                self.punch = HolePuncher(self.host, self.listen_addrs, self.local_view)
                await stack.enter_async_context(self.punch.run())
        # unwinding starts by closing every connection: the services' exits then wait on nothing
        stack.push_async_callback(close_host, self.host)

    def _run_tasks(self, nursery: trio.Nursery) -> None:
        self._nursery = nursery
        self.dialer.nursery = nursery  # background dials outlive their callers there (dialer.py)
        self.check_addrs()
        nursery.start_soon(self.nat.run)
        if self.dht is not None:
            nursery.start_soon(sweep_stale_contacts, self.dht)
        nursery.start_soon(self.interfaces.refresh_loop, self.check_addrs)
        if self.options.mdns:
            nursery.start_soon(
                run_mdns, self.host, self.listen_addrs, self._dial_lan_peer, self._connected_id
            )

    async def _dial_lan_peer(self, peer: Any, addrs: list[str]) -> None:
        await self.dialer.dial(peer, addrs, deliberate=False)

    def _connected_id(self, peer: Any) -> bool:
        return bool(live_connections(self.host, peer))


def check_listening(host: Any, texts: tuple[str, ...], addrs: list[Any]) -> None:
    """py-libp2p only logs a listen address it cannot bind: refuse to run deaf (ConfigError, exit 2)."""
    listening = host.get_network().listeners
    failed = [text for text, addr in zip(texts, addrs, strict=True) if str(addr) not in listening]
    if failed:
        reasons = "; ".join(
            f"{text}: {bind_problem(addr)}" for text, addr in zip(texts, addrs, strict=True) if text in failed
        )
        raise ConfigError(
            f"[node].listen (or --listen): cannot listen on {reasons}; choose another port (tcp/0: any "
            "free port) or an address of this machine"
        )


def bind_problem(addr: Any) -> str:
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


@asynccontextmanager
async def open_network(
    identity: Identity, options: NetOptions, on_fault: FaultSink, inbound: InboundCap | None = None
) -> AsyncIterator[Libp2pNetwork]:
    """Run the node's network until the block exits; leaving it closes every connection, then the host.

    The host runs in a task shielded from the caller's cancellation: py-libp2p's teardown is not
    cancellation-safe (a cancelled swarm marks its connections closed but leaves their sockets open), so
    leaving the block, for whatever reason, asks that task to close everything in order, within
    :data:`SHUTDOWN_TIMEOUT` seconds."""
    net = Libp2pNetwork(identity, options, on_fault, inbound)
    stop = trio.Event()
    async with trio.open_nursery() as outer:
        await outer.start(_serve, net, stop)
        try:
            async with trio.open_nursery() as nursery:
                net._run_tasks(nursery)
                try:
                    yield net
                finally:
                    nursery.cancel_scope.cancel()
                    net._nursery = net.dialer.nursery = None
        finally:
            stop.set()


async def _serve(net: Libp2pNetwork, stop: trio.Event, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    with trio.CancelScope(shield=True) as shield:
        async with AsyncExitStack() as stack:
            await net._start(stack)
            task_status.started()
            await stop.wait()
            shield.deadline = trio.current_time() + SHUTDOWN_TIMEOUT


async def close_host(host: Any) -> None:
    """Close every connection of a py-libp2p ``host`` (their sockets at once), then its swarm, shielded and
    within 5 s: py-libp2p's own teardown, cancelled, leaves the sockets to the garbage collector. A
    connection whose orderly close did not end in that time (a peer that reads nothing keeps its GO_AWAY
    from being written) has its socket closed anyway."""
    conns = connections_of(host)
    with trio.CancelScope(shield=True), trio.move_on_after(5):
        try:
            await close_connections(host)  # all at once (the swarm closes one by one, 0.1 s each)
            await host.get_network().close()  # closes connections (and their sockets) first
        except Exception as exc:
            log.debug("swarm close: %s", exc)
    aborted = abort_sockets(conns)
    if aborted:
        log.debug("closed %d sockets whose connection did not close in time", aborted)


__all__ = ["InboundCap", "Libp2pNetwork", "NetOptions", "check_listening", "close_host", "open_network"]
