"""The relay service's view of the network: :class:`Libp2pRelayNet`, the real ``RelayNetPort``.

It binds :class:`~ioa_p2p.node.net.network.Libp2pNetwork` (reachability, advertised circuit addresses, our
HOP server, hole punching) and :func:`~ioa_p2p.node.net.relay.request_reservation` to the narrow port
:class:`ioa_p2p.node.ports.RelayNetPort`, so :mod:`ioa_p2p.node.relay` never touches a py-libp2p object.
"""

from __future__ import annotations

from typing import Any, Protocol

from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.addrs import Reachability
from ioa_p2p.node.net.nat import NatState
from ioa_p2p.node.net.punch import HolePuncher
from ioa_p2p.node.net.relay import HOP_PROTOCOL, request_reservation
from ioa_p2p.node.net.relay_hop import HopServer
from ioa_p2p.node.net.relay_limits import HopLimits


class _Net(Protocol):
    """What of :class:`~ioa_p2p.node.net.network.Libp2pNetwork` this uses."""

    host: Any
    nat: NatState
    hop: HopServer | None
    punch: HolePuncher | None

    def speaks(self, peer: PeerId, protocol: str) -> bool: ...
    def connected_peers(self) -> list[PeerId]: ...
    def connections(self, peer: PeerId) -> list[dict[str, Any]]: ...
    def set_circuit_addrs(self, addrs: list[str]) -> None: ...
    def start_hop(self, limits: HopLimits) -> None: ...
    def stop_hop(self) -> None: ...


class Libp2pRelayNet:
    def __init__(self, net: _Net) -> None:
        self.net = net

    def reachability(self) -> Reachability:
        return self.net.nat.status()

    async def wait_reachability_change(self) -> None:
        await self.net.nat.wait_change()

    def speaks_hop(self, peer: PeerId) -> bool:
        return self.net.speaks(peer, HOP_PROTOCOL)

    def relay_candidates(self) -> list[PeerId]:
        """Connected peers that announced the hop protocol over a direct connection."""
        out = []
        for peer in self.net.connected_peers():
            direct = any(c["kind"] != "relayed" for c in self.net.connections(peer))
            if direct and self.speaks_hop(peer):
                out.append(peer)
        return out

    async def reserve(self, relay: PeerId, seconds: float) -> tuple[int, tuple[str, ...]]:
        return await request_reservation(self.net.host, relay, seconds)

    def set_circuit_addrs(self, addrs: list[str]) -> None:
        self.net.set_circuit_addrs(addrs)

    def start_hop(self, limits: HopLimits) -> None:
        self.net.start_hop(limits)

    def stop_hop(self) -> None:
        self.net.stop_hop()

    def hop_status(self) -> dict[str, Any] | None:
        hop = self.net.hop
        return None if hop is None else hop.status()

    def punch_status(self) -> dict[str, int] | None:
        punch = self.net.punch
        return None if punch is None else punch.status()


__all__ = ["Libp2pRelayNet"]
