"""Circuit relay v2 for ioa-p2p nodes: the ``[relay]`` config table and the ``relay`` node service.

A node behind NAT cannot be dialed. It holds *reservations* on reachable relays instead (bootstrap nodes
relay by default, and so does any node AutoNAT finds public), and others reach it through a relay at
``<relay multiaddr>/p2p/<relay id>/p2p-circuit/p2p/<its peer id>``. Those addresses go into its signed card
and peer record, and the node's one dial path tries them after its direct addresses, for every service.
The relayed bytes are the same Noise-encrypted, Noise-authenticated connection as a direct one: the relay
sees only ciphertext and cannot impersonate either side. Where both sides can, hole punching (DCUtR)
then upgrades the relayed connection to a direct one.

- HOP (``/libp2p/circuit/relay/0.2.0/hop``, relaying for others): served when ``[relay] hop = true``, or,
  with ``auto_hop`` (the default), while AutoNAT finds this node public; with the limits below, enforced
  by :class:`~ioa_p2p.node.net.relay_hop.HopServer`;
- STOP (``/libp2p/circuit/relay/0.2.0/stop``): served by every node with ``client = true`` (the default),
  so it accepts the connections a relay forwards to it;
- reservations: :class:`~ioa_p2p.node.relay.autorelay.Reservations` (pinned ones, and automatic ones
  while the node is private).

Config (every key optional)::

    [relay]
    hop = false                  # always relay for others (ioa bootstrap start: true)
    auto_hop = true              # relay for others while AutoNAT finds this node public
    client = true                # accept relayed connections, dial through relays, hold reservations
    hole_punching = true         # upgrade relayed connections to direct ones (DCUtR)
    reservations = 2             # relays to hold a reservation on while private (1..8)
    reserve = []                 # relay multiaddrs (/.../p2p/<id>) to always hold a reservation on
    reserve_on_bootstrap = false # also always hold one on every bootstrap peer
    # limits a relay (hop) enforces (circuit relay v2; per IP and in total as well: identities are free)
    max_reservations = 128       # reservations held at once
    max_reservations_per_ip = 8  # reservations held by peers at one IP address
    max_circuits = 256           # relayed connections at once
    max_circuits_per_peer = 16   # relayed connections to one reserved peer
    max_circuits_per_ip = 16     # relayed connections opened from one IP address
    circuit_duration = 1800      # seconds one relayed connection may last (0 = unlimited)
    circuit_bytes = 67108864     # bytes one relayed connection may carry, both ways (0 = unlimited)
    max_rate = 16777216          # bytes per second over all relayed connections (0 = unlimited)
    reservation_ttl = 600        # seconds a reservation lasts; clients renew at half of it

Control API: ``GET /relay`` -> :meth:`RelayService.status`; ``POST /relay/connect`` with
``{"addr": <circuit multiaddr>}`` or ``{"peer": <peer id>, "relay"?: <relay peer id>}`` ->
``{"peer_id", "via"}``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import fields

import trio

from ioa_p2p.api.peers import PunchView, RelayLimitsView, RelayStatus, RelayUsage, ReservationView
from ioa_p2p.config.node_config import resolve_bootstrap
from ioa_p2p.errors import InvalidAddress, IoAError, IoATimeout, PeerUnreachable, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.addrs import split_circuit
from ioa_p2p.node.net.host import parse_multiaddr, peer_of_addr
from ioa_p2p.node.net.relay import HOP_PROTOCOL, STOP_PROTOCOL
from ioa_p2p.node.ports import NodePort, RelayNetPort
from ioa_p2p.node.relay.autorelay import RELAY_TIMEOUT, Reservation, Reservations, circuit_addr, with_peer
from ioa_p2p.node.relay.routes import add_relay_routes
from ioa_p2p.node.relay.settings import RelaySettings

log = logging.getLogger("ioa_p2p.relay")


def parse_circuit_addr(text: str) -> tuple[str, PeerId, PeerId]:
    """Split ``<relay addr>/p2p/<relay>/p2p-circuit/p2p/<target>`` into (relay addr, relay, target)."""
    if "/p2p-circuit" not in text:
        raise InvalidAddress(f"{text!r} is not a relay address: it has no /p2p-circuit part")
    parts = split_circuit(text)
    if parts is None:
        raise InvalidAddress(
            f"{text!r} must be <relay multiaddr>/p2p/<relay id>/p2p-circuit/p2p/<target peer id>"
        )
    parse_multiaddr(text)  # InvalidAddress: "<text> is not a valid multiaddr: ..."
    head, relay_text, target_text = parts
    try:
        return head, PeerId.from_string(relay_text), PeerId.from_string(target_text)
    except IoAError as exc:
        raise InvalidAddress(f"{text!r}: {exc}") from None


class RelayService:
    """``node.services.relay``: relaying for others (hop), reservations, reaching peers through relays."""

    def __init__(self, node: NodePort, settings: RelaySettings, net: RelayNetPort | None) -> None:
        self.node = node
        self.settings = settings
        self.net = net
        self.hop_running = False
        self.keeper: Reservations | None = None
        if net is not None and settings.client:
            self.keeper = Reservations(
                node,
                net,
                wanted=settings.reservations,
                bootstrap=resolve_bootstrap(node.config),
                is_private=lambda: net.reachability() == "private",
            )

    @property
    def reservations(self) -> dict[PeerId, Reservation]:
        return self.keeper.held if self.keeper is not None else {}

    # ------------------------------------------------------------------ client side

    async def reserve(self, relay: PeerId) -> Reservation:
        """Ask ``relay`` (already connected) for a reservation; raises PeerRejected if it refuses."""
        return await self._keeper().reserve(relay, pinned=True)

    async def wait_reservation(self, relay: PeerId | None = None) -> Reservation:
        """Wait until this node holds a reservation on ``relay`` (or any relay); callers bound the wait."""
        keeper = self._keeper()
        while True:
            if relay is not None and relay in keeper.held:
                return keeper.held[relay]
            if relay is None and keeper.held:
                return next(iter(keeper.held.values()))
            await keeper.wait_change()

    def circuit_addrs(self) -> list[str]:
        return self.keeper.circuit_addrs() if self.keeper is not None else []

    def _keeper(self) -> Reservations:
        if self.keeper is None:
            raise UsageError("relay client is off ([relay].client = false): no reservations")
        return self.keeper

    async def connect_via(self, addr: str) -> PeerId:
        """Connect to the peer a ``/p2p-circuit`` multiaddr names, through the relay it names."""
        _, relay, target = parse_circuit_addr(addr)
        if target == self.node.peer_id:
            raise UsageError(f"{addr} names this node itself")
        if relay == self.node.peer_id:
            raise UsageError(f"{addr} names this node as the relay")
        if self.net is None or not self.settings.client:
            raise UsageError("relay client is off ([relay].client = false): cannot dial through relays")
        if self.node.is_connected(target):
            return target
        try:
            with trio.fail_after(RELAY_TIMEOUT):
                return await self.node.connect(addr)
        except trio.TooSlowError:
            raise IoATimeout(
                f"dialing {target} through relay {relay} took longer than {RELAY_TIMEOUT:.0f} s"
            ) from None

    async def connect_through(self, peer: PeerId, relay: PeerId | None = None) -> str:
        """Connect to ``peer`` through ``relay`` (or each known relay in turn); returns the circuit
        address used. Works when ``peer`` holds a reservation on that relay."""
        if self.node.is_connected(peer):
            return ""
        candidates = [relay] if relay else self.candidate_relays()
        if not candidates:
            raise PeerUnreachable(f"cannot reach {peer} through a relay: this node knows no relay")
        failures: list[str] = []
        for candidate in candidates:
            for addr in self._relay_addrs(candidate)[:1]:
                target = circuit_addr(addr, peer)
                try:
                    await self.connect_via(target)
                    return target
                except (PeerUnreachable, IoATimeout, InvalidAddress) as exc:
                    failures.append(str(exc))
        raise PeerUnreachable(f"no relay could reach {peer}: " + "; ".join(failures))

    def known_relays(self) -> list[PeerId]:
        """Connected peers that announced the relay (hop) protocol, reservation holders first."""
        if self.net is None:
            return []
        relays = [p for p in self.node.connected_peers() if self.net.speaks_hop(p)]
        return sorted(relays, key=lambda p: p not in self.reservations)

    def candidate_relays(self) -> list[PeerId]:
        """Relays to try: :meth:`known_relays`, then the bootstrap peers (a bootstrap node relays)."""
        out = self.known_relays()
        for addr in resolve_bootstrap(self.node.config):
            peer = peer_of_addr(addr)
            if peer not in out:
                out.append(peer)
        return out

    def _relay_addrs(self, relay: PeerId) -> list[str]:
        reservation = self.reservations.get(relay)
        if reservation and reservation.relay_addrs:
            return list(reservation.relay_addrs)
        for addr in resolve_bootstrap(self.node.config):
            if peer_of_addr(addr) == relay:
                return [addr]
        direct = [with_peer(a, relay) for a in self.node.peer_addrs(relay) if "/p2p-circuit" not in a]
        return list(dict.fromkeys(direct)) or [f"/p2p/{relay}"]

    # ------------------------------------------------------------------ relaying for others

    async def run_hop(self) -> None:
        """Serve HOP while ``hop`` is set, or (``auto_hop``) while this node is public."""
        net = self.net
        assert net is not None
        while True:
            wanted = self.settings.hop or (self.settings.auto_hop and net.reachability() == "public")
            if wanted and not self.hop_running:
                net.start_hop(self.settings.limits())
                log.info("relaying for others (hop) with limits %s", self.settings.limits())
            elif not wanted and self.hop_running:
                net.stop_hop()
                log.info("no longer relaying for others")
            self.hop_running = wanted
            await net.wait_reachability_change()

    # ------------------------------------------------------------------ status

    def status(self) -> RelayStatus:
        """``GET /relay``: reachability, role and limits, what this node relays, the reservations it
        holds, its circuit addresses, hole punching."""
        now = time.time()
        limits = self.settings.limits()
        hop = self.net.hop_status() if self.net is not None else None
        punch = self.net.punch_status() if self.net is not None else None
        return RelayStatus(
            hop=self.hop_running,
            client=self.settings.client,
            limits=RelayLimitsView(**{f.name: getattr(limits, f.name) for f in fields(RelayLimitsView)}),
            reservations=tuple(
                ReservationView(
                    str(r.relay),
                    r.expires,
                    tuple(r.relay_addrs),
                    max(0, int(r.expires - now)),
                    r.pinned,
                    r.renewals,
                )
                for r in self.reservations.values()
            ),
            circuit_addrs=tuple(self.circuit_addrs()),
            reserved_peers=int(hop["reservations"]) if hop is not None else None,
            reachability=self.net.reachability() if self.net is not None else "unknown",
            wanted_reservations=self.settings.reservations,
            hole_punching=PunchView(**punch) if punch is not None else None,
            usage=RelayUsage.from_json(hop) if hop is not None else None,
        )


@asynccontextmanager
async def open_relay(node: NodePort, net: RelayNetPort | None = None) -> AsyncIterator[RelayService]:
    """The ``relay`` node service (composed by :func:`ioa_p2p.node.services.open_services`); ``net`` is
    None where the node has no libp2p network (then hop and client must be off)."""
    settings = RelaySettings.from_section(node.config.section("relay"), str(node.home / "config.toml"))
    targets = settings.reservation_targets(resolve_bootstrap(node.config))
    for target in targets:
        peer_of_addr(target)  # a bad [relay].reserve address fails the start, not a task later
    if net is None and (settings.hop or settings.client):
        raise UsageError("[relay] hop and client need the node's libp2p network")
    service = RelayService(node, settings, net)
    add_relay_routes(node, service)
    async with trio.open_nursery() as nursery:
        if net is not None:
            nursery.start_soon(service.run_hop)
        keeper = service.keeper
        if targets and keeper is None:
            log.warning("[relay].reserve is ignored: [relay].client is false")
        elif keeper is not None:
            for target in targets:
                keeper.pin(peer_of_addr(target))
            for target in targets:
                nursery.start_soon(lambda t=target: keeper.keep(peer_of_addr(t), t, pinned=True))
            nursery.start_soon(keeper.run_auto, nursery)
        try:
            yield service
        finally:
            nursery.cancel_scope.cancel()


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
