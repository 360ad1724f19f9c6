"""Circuit relay v2 on the node's host: accepting relayed connections, dialing and reserving through relays.

- **STOP** (``/libp2p/circuit/relay/0.2.0/stop``, accepting a connection a relay forwards to us): py-libp2p
  0.8.1's ``CircuitV2Protocol`` with hop off (:class:`StopService`);
- **HOP** (relaying for others): ours, :class:`~ioa_p2p.node.net.relay_hop.HopServer` (why: its docstring);
- **dialing through a relay** (:func:`dial_circuit`): a ``CONNECT`` on a HOP stream to the relay, then the
  usual Noise + yamux upgrade over that stream. The library's transport would first try every circuit
  address in the peerstore, dial the relay through the swarm (its 60 s negative cache) and take a
  reservation on every relay it dials through; ours dials only the relay the address names, through the
  node's one dial path;
- **reserving** (:func:`request_reservation`): ``RESERVE`` on a HOP stream.

Library exceptions become ours: :class:`~ioa_p2p.errors.PeerRejected` (the relay answered with a refusal,
named by its circuit relay status), :class:`~ioa_p2p.errors.PeerUnreachable`,
:class:`~ioa_p2p.errors.IoATimeout`. Policy (which relays, when to refresh) is :mod:`ioa_p2p.node.relay`.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from typing import Any

import multiaddr
import trio
from libp2p.connection_types import ConnectionType
from libp2p.network.connection.raw_connection import RawConnection
from libp2p.peer.id import ID
from libp2p.relay.circuit_v2.pb.circuit_pb2 import HopMessage
from libp2p.relay.circuit_v2.pb.circuit_pb2 import PeerId as PbPeerId
from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID as HOP_PROTOCOL_ID
from libp2p.relay.circuit_v2.protocol import STOP_PROTOCOL_ID, CircuitV2Protocol
from libp2p.relay.circuit_v2.protocol_buffer import StatusCode
from libp2p.relay.circuit_v2.resources import RelayLimits
from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.errors import IoATimeout, PeerRejected, PeerUnreachable
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import from_libp2p_id, to_libp2p_id

log = logging.getLogger("ioa_p2p.relay")

HOP_PROTOCOL = str(HOP_PROTOCOL_ID)
STOP_PROTOCOL = str(STOP_PROTOCOL_ID)

#: Status names by code; a relay may answer a code the protocol does not define (shown as a number).
_STATUS_NAMES = {code.value: code.name for code in StatusCode}
_STATUS_MEANING = {
    StatusCode.NO_RESERVATION: "the peer holds no reservation on this relay",
    StatusCode.RESOURCE_LIMIT_EXCEEDED: "a relay limit is reached",
    StatusCode.RESERVATION_REFUSED: "the relay refuses reservations now",
    StatusCode.PERMISSION_DENIED: "the relay does not allow it",
    StatusCode.CONNECTION_FAILED: "the relay could not reach the peer",
}


def status_text(status: int) -> str:
    name = _STATUS_NAMES.get(status, str(status))
    meaning = _STATUS_MEANING.get(status)  # type: ignore[call-overload]
    return f"{name}: {meaning}" if meaning else name


class StopService:
    """Accept relayed connections (STOP), py-libp2p's handler: ``async with service.run():``."""

    def __init__(self, host: Any) -> None:
        # Hop off: only the STOP handler is registered (our HopServer serves HOP when enabled).
        self.protocol = CircuitV2Protocol(host, limits=RelayLimits(0, 0, 0, 0), allow_hop=False)

    def run(self) -> AbstractAsyncContextManager[Any]:
        return background_trio_service(self.protocol)


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
        raise PeerRejected(f"relay {relay} refused a reservation ({status_text(status)})")
    addrs = []
    for raw in reply.reservation.addrs:
        try:
            addrs.append(str(multiaddr.Multiaddr(raw)))
        except Exception:
            log.debug("relay %s sent an unparsable address", relay)
    return int(reply.reservation.expire), tuple(addrs)


async def dial_circuit(host: Any, relay: ID, target: ID, circuit: str) -> Any:
    """A relayed connection to ``target`` through ``relay`` (connected already); ``circuit`` is the address
    it is known by. Callers bound the wait. Raises PeerRejected (the relay refused) or PeerUnreachable."""
    try:
        stream = await host.new_stream(relay, [HOP_PROTOCOL_ID])
    except Exception as exc:  # negotiation failed: the peer does not relay
        raise PeerUnreachable(
            f"relay {from_libp2p_id(relay)} does not relay: {exc or type(exc).__name__}"
        ) from None
    try:
        await write_delimited_msg(
            stream, HopMessage(type=HopMessage.CONNECT, peer=PbPeerId(id=target.to_bytes()))
        )
        reply = await read_delimited_msg(stream, HopMessage)
    except BaseException as exc:
        await _reset_quietly(stream)
        if isinstance(exc, Exception):
            raise PeerUnreachable(
                f"relay {from_libp2p_id(relay)} closed the request: {exc or type(exc).__name__}"
            ) from None
        raise
    status = reply.status if reply.HasField("status") else StatusCode.UNUSED
    if status != StatusCode.OK:
        await _reset_quietly(stream)
        raise PeerRejected(f"relay {from_libp2p_id(relay)} refused: {status_text(status)}")
    raw = RawConnection(
        stream,
        initiator=True,
        connection_type=ConnectionType.RELAYED,
        addresses=[multiaddr.Multiaddr(circuit)],
    )
    try:
        conn = await host.upgrade_outbound_connection(raw, target)
    except BaseException as exc:
        await _reset_quietly(stream)
        if isinstance(exc, Exception):
            raise PeerUnreachable(
                f"the relayed connection to {from_libp2p_id(target)} failed: {exc}"
            ) from None
        raise
    set_info = getattr(conn, "set_transport_info", None)
    if callable(set_info):
        set_info([multiaddr.Multiaddr(circuit)], ConnectionType.RELAYED)
    started = getattr(conn, "event_started", None)
    if started is not None:
        await started.wait()
    return conn


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


async def _reset_quietly(stream: Any) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(2):
        try:
            await stream.reset()
        except Exception as exc:
            log.debug("resetting relay stream: %s", exc)


__all__ = [
    "HOP_PROTOCOL",
    "STOP_PROTOCOL",
    "StopService",
    "dial_circuit",
    "peer_protocols",
    "request_reservation",
    "status_text",
]
