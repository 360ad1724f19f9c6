"""Control routes of the relay service: ``GET /relay`` (reservations, circuit addresses, limits) and
``POST /relay/connect`` (reach a peer through a relay). Schemas: :mod:`ioa_p2p.api.peers`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.peers import RelayConnectReply, RelayConnectRequest, RelayStatus
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import CallInfo

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort


class RelayPort(Protocol):
    """What the routes use of :class:`~ioa_p2p.node.relay.RelayService`."""

    def status(self) -> RelayStatus: ...
    async def connect_via(self, addr: str) -> PeerId: ...
    async def connect_through(self, peer: PeerId, relay: PeerId | None = None) -> str: ...


def add_relay_routes(node: NodePort, service: RelayPort) -> None:
    async def get_relay(request: Empty, call: CallInfo) -> RelayStatus:
        return service.status()

    async def post_connect(request: RelayConnectRequest, call: CallInfo) -> RelayConnectReply:
        if request.addr is not None:
            peer = await service.connect_via(request.addr)
            return RelayConnectReply(str(peer), request.addr)
        assert request.peer is not None  # the request checks: addr or peer
        target = PeerId.from_string(request.peer)
        relay = PeerId.from_string(request.relay) if request.relay else None
        via = await service.connect_through(target, relay)
        return RelayConnectReply(str(target), via or None)

    node.control.add_route(r.RELAY, get_relay)
    node.control.add_route(r.RELAY_CONNECT, post_connect)


__all__ = ["RelayPort", "add_relay_routes"]
