"""py-libp2p 0.8.1's circuit relay v2 (``libp2p.relay.circuit_v2``), wrapped for the relay service.

Everything that touches the library lives here: the HOP protocol (relaying for others, with limits),
the STOP transport (accepting and dialing relayed connections), the reservation exchange, and the
protocols a peer announced. Library exceptions are translated into ours; policy (which relays, when to
refresh, the control routes) is :mod:`ioa_p2p.node.relay.service`.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import multiaddr
import trio
from libp2p.relay.circuit_v2.config import RelayConfig, RelayRole
from libp2p.relay.circuit_v2.pb.circuit_pb2 import HopMessage
from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID as HOP_PROTOCOL_ID
from libp2p.relay.circuit_v2.protocol import STOP_PROTOCOL_ID, CircuitV2Protocol
from libp2p.relay.circuit_v2.protocol_buffer import StatusCode
from libp2p.relay.circuit_v2.resources import RelayLimits
from libp2p.relay.circuit_v2.transport import CircuitV2Transport
from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.errors import IoATimeout, PeerRejected, PeerUnreachable
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import parse_multiaddr, to_libp2p_id

log = logging.getLogger("ioa_p2p.relay")

HOP_PROTOCOL = str(HOP_PROTOCOL_ID)
STOP_PROTOCOL = str(STOP_PROTOCOL_ID)

#: Status names by code; a relay may answer a code the protocol does not define (shown as a number).
_STATUS_NAMES = {code.value: code.name for code in StatusCode}


@dataclass(frozen=True, slots=True)
class CircuitLimits:
    """What a HOP relay allows (the library's ``RelayLimits``, same field names)."""

    duration: int
    data: int
    max_circuit_conns: int
    max_reservations: int
    reservation_ttl: int

    def to_libp2p(self) -> RelayLimits:
        return RelayLimits(
            duration=self.duration,
            data=self.data,
            max_circuit_conns=self.max_circuit_conns,
            max_reservations=self.max_reservations,
            reservation_ttl=self.reservation_ttl,
        )


class CircuitRelay:
    """The relay protocol on one host: HOP served when ``hop``; the STOP transport when ``client``."""

    def __init__(self, host: Any, limits: CircuitLimits, *, hop: bool, client: bool) -> None:
        self.protocol = CircuitV2Protocol(host, limits=limits.to_libp2p(), allow_hop=hop)
        self.transport: CircuitV2Transport | None = None
        if client:
            # STOP only: CLIENT would make every relayed dial also take a reservation on the relay.
            config = RelayConfig(roles=RelayRole.STOP, limits=limits.to_libp2p())
            self.transport = CircuitV2Transport(host, self.protocol, config)

    def run(self) -> AbstractAsyncContextManager[Any]:
        """Serve the protocol until the block exits."""
        return background_trio_service(self.protocol)

    async def dial(self, addr: str) -> None:
        """Open a relayed connection to the peer a ``/p2p-circuit`` multiaddr names (callers bound it)."""
        if self.transport is None:
            raise PeerUnreachable("this node does not dial through relays ([relay].client = false)")
        try:
            await self.transport.dial(parse_multiaddr(addr))
        except Exception as exc:  # ConnectionError, RelayConnectionError, SwarmException, ...
            raise PeerUnreachable(_reason(exc)) from None

    def reserved_peers(self) -> int:
        """Peers holding a live reservation on this relay. py-libp2p keeps no public count: best
        effort, 0 if its internals change."""
        held = getattr(self.protocol.resource_manager, "_reservations", {})
        return sum(1 for r in held.values() if not r.is_expired())


async def request_reservation(host: Any, relay: PeerId, seconds: float) -> tuple[int, tuple[str, ...]]:
    """Ask ``relay`` (already connected) for a reservation: (expiry in unix seconds, the relay's
    addresses as it reported them). Raises IoATimeout, PeerUnreachable, or PeerRejected if it refuses."""
    try:
        with trio.fail_after(seconds):
            stream = await host.new_stream(to_libp2p_id(relay), [HOP_PROTOCOL_ID])
            try:
                await write_delimited_msg(stream, HopMessage(type=HopMessage.RESERVE))
                reply = await read_delimited_msg(stream, HopMessage)
            finally:
                await _close_quietly(stream)
    except trio.TooSlowError:
        raise IoATimeout(f"relay {relay} did not answer a reservation within {seconds:.0f} s") from None
    except Exception as exc:  # libp2p: negotiation / stream errors of many types
        raise PeerUnreachable(
            f"cannot ask {relay} for a relay reservation: {exc or type(exc).__name__}"
        ) from None
    status = reply.status if reply.HasField("status") else StatusCode.UNUSED
    if status != StatusCode.OK or not reply.HasField("reservation"):
        raise PeerRejected(f"relay {relay} refused a reservation ({_STATUS_NAMES.get(status, status)})")
    addrs = []
    for raw in reply.reservation.addrs:
        try:
            addrs.append(str(multiaddr.Multiaddr(raw)))
        except Exception:
            log.debug("relay %s sent an unparsable address", relay)
    return int(reply.reservation.expire), tuple(addrs)


def peer_protocols(host: Any, peer: PeerId) -> set[str]:
    """The protocols ``peer`` announced (identify); empty when unknown."""
    try:
        return {str(p) for p in host.get_peerstore().get_protocols(to_libp2p_id(peer))}
    except Exception:  # unknown peer
        return set()


async def _close_quietly(stream: Any) -> None:
    try:
        await stream.close()
    except Exception as exc:
        log.debug("closing relay stream: %s", exc)


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.replace("\n", " ")[:300]


__all__ = [
    "HOP_PROTOCOL",
    "STOP_PROTOCOL",
    "CircuitLimits",
    "CircuitRelay",
    "peer_protocols",
    "request_reservation",
]
