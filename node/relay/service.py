"""Circuit relay v2 for ioa-p2p nodes: the ``[relay]`` config table and the ``relay`` node service.

A node behind NAT cannot be dialed. It can instead hold a *reservation* on a reachable relay (normally a
bootstrap node started with ``ioa bootstrap start``, which relays by default); other peers then reach it
through the relay at ``<relay multiaddr>/p2p-circuit/p2p/<its peer id>``. The relayed bytes are the same
Noise-encrypted, Noise-authenticated connection as a direct one: the relay sees only ciphertext and cannot
impersonate either side. We use py-libp2p 0.8.1's circuit relay v2 (``libp2p.relay.circuit_v2``):

- HOP (``/libp2p/circuit/relay/0.2.0/hop``): served when ``[relay].hop = true``, with the limits below;
- STOP (``/libp2p/circuit/relay/0.2.0/stop``): served by every node with ``client = true`` (the default),
  so it accepts connections a relay forwards to it;
- dialing: :meth:`RelayService.connect_via` (a ``/p2p-circuit`` multiaddr) and
  :meth:`RelayService.connect_through` (a peer ID, trying the relays this node is connected to). The node's
  plain ``connect`` does not dial circuit addresses: py-libp2p's swarm skips them.

Config (every key optional)::

    [relay]
    hop = false                  # relay for others (bootstrap nodes: true)
    client = true                # accept relayed connections, allow dialing through relays
    reserve = []                 # relay multiaddrs (/.../p2p/<id>) to hold a reservation on
    reserve_on_bootstrap = false # also hold one on every [node].bootstrap peer
    max_reservations = 128       # hop: peers that may hold a reservation at once
    max_circuits_per_peer = 16   # hop: concurrent relayed connections to one reserved peer
    circuit_duration = 1800      # hop: seconds a relayed connection may last (0 = unlimited)
    circuit_bytes = 67108864     # hop: bytes one relayed connection may carry, both ways (0 = unlimited)
    reservation_ttl = 600        # hop: seconds a reservation lasts; clients refresh at half of it

Control API: ``GET /relay`` -> :meth:`RelayService.status`; ``POST /relay/connect`` with
``{"addr": <circuit multiaddr>}`` or ``{"peer": <peer id>, "relay"?: <relay peer id>}`` ->
``{"peer_id", "via"}``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, fields

import trio

from ioa_p2p.api.peers import RelayLimitsView, RelayStatus, ReservationView
from ioa_p2p.errors import (
    InvalidAddress,
    IoAError,
    IoATimeout,
    PeerUnreachable,
    UsageError,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import parse_multiaddr, peer_of_addr
from ioa_p2p.node.net.relay import (
    HOP_PROTOCOL,
    STOP_PROTOCOL,
    CircuitRelay,
    peer_protocols,
    request_reservation,
)
from ioa_p2p.node.ports import NodePort
from ioa_p2p.node.relay.routes import add_relay_routes
from ioa_p2p.node.relay.settings import RelaySettings

log = logging.getLogger("ioa_p2p.relay")

#: Bound on one reservation exchange or one relayed dial.
RELAY_TIMEOUT = 10.0
#: Reservation keeper: first retry delay after a failure, doubling up to the max.
RETRY_BACKOFF = 0.5
RETRY_BACKOFF_MAX = 30.0
#: How often the keeper checks that the relay connection is still up (a reservation dies with it).
KEEPER_POLL = 1.0


# --------------------------------------------------------------------------- addresses (pure)


def circuit_addr(relay_addr: str, target: PeerId) -> str:
    """``<relay_addr>/p2p-circuit/p2p/<target>``; ``relay_addr`` must end with ``/p2p/<relay id>``."""
    return f"{relay_addr.rstrip('/')}/p2p-circuit/p2p/{target}"


def with_peer(addr: str, peer: PeerId) -> str:
    """``addr`` ending in exactly one ``/p2p/<peer>``."""
    suffix = f"/p2p/{peer}"
    while addr.endswith(suffix):
        addr = addr[: -len(suffix)]
    return addr + suffix


def parse_circuit_addr(text: str) -> tuple[str, PeerId, PeerId]:
    """Split ``<relay addr>/p2p/<relay>/p2p-circuit/p2p/<target>`` into (relay addr, relay, target)."""
    head, sep, tail = text.partition("/p2p-circuit")
    if not sep:
        raise InvalidAddress(f"{text!r} is not a relay address: it has no /p2p-circuit part")
    if not tail.startswith("/p2p/") or tail.count("/") != 2:
        raise InvalidAddress(f"{text!r} must end with /p2p-circuit/p2p/<target peer id>")
    relay_part = head.rsplit("/p2p/", 1)
    if len(relay_part) != 2 or not relay_part[1]:
        raise InvalidAddress(
            f"{text!r} must name the relay: <relay multiaddr>/p2p/<relay id>/p2p-circuit/..."
        )
    parse_multiaddr(text)  # InvalidAddress: "<text> is not a valid multiaddr: ..."
    try:
        relay = PeerId.from_string(relay_part[1])
        target = PeerId.from_string(tail.removeprefix("/p2p/"))
    except IoAError as exc:
        raise InvalidAddress(f"{text!r}: {exc}") from None
    return head, relay, target


# --------------------------------------------------------------------------- the service


@dataclass(slots=True)
class Reservation:
    relay: PeerId
    expires: int
    #: The relay's own addresses as it reported them (each ending in /p2p/<relay>).
    relay_addrs: tuple[str, ...]


class RelayService:
    """``node.services.relay``: relaying for others (hop) and reaching peers through relays."""

    def __init__(self, node: NodePort, settings: RelaySettings) -> None:
        self.node = node
        self.settings = settings
        #: py-libp2p's relay protocol and transport (None when both hop and client are off).
        self.circuit: CircuitRelay | None = None
        self.reservations: dict[PeerId, Reservation] = {}
        self._reserved = trio.Event()

    # ------------------------------------------------------------------ client side

    async def reserve(self, relay: PeerId) -> Reservation:
        """Ask ``relay`` (already connected) for a reservation; raises PeerRejected if it refuses."""
        expires, addrs = await request_reservation(self.node.host, relay, RELAY_TIMEOUT)
        reservation = Reservation(relay, expires, addrs)
        self.reservations[relay] = reservation
        self._reserved.set()
        self._reserved = trio.Event()
        return reservation

    async def wait_reservation(self, relay: PeerId | None = None) -> Reservation:
        """Wait until this node holds a reservation on ``relay`` (or any relay); callers bound the wait."""
        while True:
            if relay is not None and relay in self.reservations:
                return self.reservations[relay]
            if relay is None and self.reservations:
                return next(iter(self.reservations.values()))
            await self._reserved.wait()

    async def keep_reservation(self, relay_addr: str) -> None:
        """Hold a reservation on ``relay_addr`` for as long as the node runs: connect, reserve, refresh at
        half the lifetime, and start over (with backoff) whenever the relay connection drops."""
        relay = peer_of_addr(relay_addr)
        delay = RETRY_BACKOFF
        while True:
            reservation: Reservation | None = None
            with self.node.faults.boundary("relay reservation", relay):  # whatever the relay answers
                try:
                    with trio.fail_after(RELAY_TIMEOUT):  # connect lifts py-libp2p's 60 s dial block
                        await self.node.connect(relay_addr)
                    reservation = await self.reserve(relay)
                except (IoAError, trio.TooSlowError) as exc:
                    log.info("no relay reservation on %s (%s); retrying in %.1f s", relay_addr, exc, delay)
            if reservation is None:
                self.reservations.pop(relay, None)
                await trio.sleep(delay)
                delay = min(delay * 2, RETRY_BACKOFF_MAX)
                continue
            delay = RETRY_BACKOFF
            log.info("holding a relay reservation on %s until %d", relay, reservation.expires)
            refresh_at = time.time() + max(1.0, (reservation.expires - time.time()) / 2)
            if not await self._wait_refresh_or_drop(relay, refresh_at):
                self.reservations.pop(relay, None)

    async def _wait_refresh_or_drop(self, relay: PeerId, refresh_at: float) -> bool:
        """Sleep until ``refresh_at`` (True) or until the relay connection drops (False)."""
        while True:
            if not self.node.is_connected(relay):
                return False
            if time.time() >= refresh_at:
                return True
            await trio.sleep(KEEPER_POLL)

    def circuit_addrs(self) -> list[str]:
        """Addresses at which others reach this node through the relays it holds reservations on."""
        out: list[str] = []
        now = time.time()
        for reservation in self.reservations.values():
            if reservation.expires <= now:
                continue
            relay_addrs = reservation.relay_addrs or tuple(self._direct_addrs(reservation.relay))
            out.extend(circuit_addr(a, self.node.peer_id) for a in relay_addrs)
        return out

    async def connect_via(self, addr: str) -> PeerId:
        """Connect to the peer a ``/p2p-circuit`` multiaddr names, through the relay it names."""
        relay_addr, relay, target = parse_circuit_addr(addr)
        if target == self.node.peer_id:
            raise UsageError(f"{addr} names this node itself")
        if relay == self.node.peer_id:
            raise UsageError(f"{addr} names this node as the relay")
        if self.node.is_connected(target):
            return target
        circuit = self.circuit
        if circuit is None or circuit.transport is None:
            raise UsageError("relay client is off ([relay].client = false): cannot dial through relays")
        if not self.node.is_connected(relay):
            if relay_addr == f"/p2p/{relay}":
                raise PeerUnreachable(f"not connected to relay {relay} and {addr} gives no address for it")
            with _bounded(f"connecting to relay {relay}"):  # connect lifts py-libp2p's 60 s dial block
                await self.node.connect(relay_addr)
        try:
            with _bounded(f"dialing {target} through relay {relay}"):
                await circuit.dial(addr)
        except PeerUnreachable as exc:
            raise PeerUnreachable(f"cannot reach {target} through relay {relay}: {exc}") from None
        return target

    async def connect_through(self, peer: PeerId, relay: PeerId | None = None) -> str:
        """Connect to ``peer`` through ``relay`` (or each connected relay in turn); returns the circuit
        address used. Works when ``peer`` holds a reservation on that relay."""
        if self.node.is_connected(peer):
            return ""
        candidates = [relay] if relay else self.candidate_relays()
        if not candidates and self.node.config.bootstrap:
            await self._dial_bootstrap_peers()  # e.g. just started: the bootstrap dial is still under way
            candidates = self.candidate_relays()
        if not candidates:
            raise PeerUnreachable(f"cannot reach {peer} through a relay: this node knows no relay")
        failures: list[str] = []
        for candidate in candidates:
            for addr in self._relay_addrs(candidate):
                try:
                    await self.connect_via(circuit_addr(addr, peer))
                    return circuit_addr(addr, peer)
                except (PeerUnreachable, IoATimeout) as exc:
                    failures.append(str(exc))
                    break  # another address of the same relay will not help
        raise PeerUnreachable(f"no relay could reach {peer}: " + "; ".join(failures))

    def known_relays(self) -> list[PeerId]:
        """Connected peers that announced the relay (hop) protocol, reservation holders first."""
        relays = [p for p in self.node.connected_peers() if HOP_PROTOCOL in peer_protocols(self.node.host, p)]
        return sorted(relays, key=lambda p: p not in self.reservations)

    async def _dial_bootstrap_peers(self) -> None:
        for addr in self.node.config.bootstrap:
            try:
                with _bounded(f"connecting to bootstrap peer {addr}"):
                    await self.node.connect(addr)
            except IoAError as exc:
                log.debug("bootstrap peer %s unreachable: %s", addr, exc)

    def candidate_relays(self) -> list[PeerId]:
        """Relays to try: :meth:`known_relays`, then connected bootstrap peers whose protocols identify has
        not reported yet (a bootstrap node relays by default)."""
        out = self.known_relays()
        for addr in self.node.config.bootstrap:
            peer = peer_of_addr(addr)
            if peer not in out and self.node.is_connected(peer):
                out.append(peer)
        return out

    def _relay_addrs(self, relay: PeerId) -> list[str]:
        reservation = self.reservations.get(relay)
        if reservation and reservation.relay_addrs:
            return list(reservation.relay_addrs)
        direct = self._direct_addrs(relay)
        return direct or [f"/p2p/{relay}"]

    def _direct_addrs(self, relay: PeerId) -> list[str]:
        """The relay's known non-relayed addresses, each ending in ``/p2p/<relay>``."""
        out = []
        for addr in self.node.peer_addrs(relay):
            if "/p2p-circuit" in addr:
                continue
            out.append(with_peer(addr, relay))
        return list(dict.fromkeys(out))

    # ------------------------------------------------------------------ status

    def status(self) -> RelayStatus:
        """``GET /relay``: the role, the limits in force, the reservations held, the circuit addresses."""
        limits = {f.name: getattr(self.settings, f.name) for f in fields(RelayLimitsView)}
        reserved = self.circuit.reserved_peers() if self.settings.hop and self.circuit is not None else None
        return RelayStatus(
            hop=self.settings.hop,
            client=self.settings.client,
            limits=RelayLimitsView(**limits),
            reservations=tuple(
                ReservationView(str(r.relay), r.expires, tuple(r.relay_addrs))
                for r in self.reservations.values()
            ),
            circuit_addrs=tuple(self.circuit_addrs()),
            reserved_peers=reserved,
        )


@asynccontextmanager
async def open_relay(node: NodePort) -> AsyncIterator[RelayService]:
    """The ``relay`` node service (composed by :func:`ioa_p2p.node.services.open_services`)."""
    settings = RelaySettings.from_section(node.config.section("relay"), str(node.home / "config.toml"))
    targets = settings.reservation_targets(node.config.bootstrap)
    for target in targets:
        peer_of_addr(target)  # a bad [relay].reserve address fails the start, not a task later
    service = RelayService(node, settings)
    if settings.hop or settings.client:
        service.circuit = CircuitRelay(node.host, settings.limits(), hop=settings.hop, client=settings.client)
    add_relay_routes(node, service)
    if service.circuit is None:
        yield service
        return
    async with service.circuit.run():
        if targets and not settings.client:
            log.warning("[relay].reserve is ignored: [relay].client is false")
        elif targets:
            for target in targets:
                node.nursery.start_soon(service.keep_reservation, target)
        yield service


@contextmanager
def _bounded(what: str) -> Iterator[None]:
    """``trio.fail_after(RELAY_TIMEOUT)`` raising our IoATimeout that names what was slow."""
    try:
        with trio.fail_after(RELAY_TIMEOUT):
            yield
    except trio.TooSlowError:
        raise IoATimeout(f"{what} took longer than {RELAY_TIMEOUT:.0f} s") from None


__all__ = [
    "HOP_PROTOCOL",
    "STOP_PROTOCOL",
    "RelayService",
    "Reservation",
    "circuit_addr",
    "open_relay",
    "parse_circuit_addr",
    "with_peer",
]
