"""Hole punching (DCUtR, ``/libp2p/dcutr``): a relayed connection upgraded to a direct one.

We run py-libp2p 0.8.1's ``DCUtRProtocol`` (interop-fixed in 0.8.1): every 2 s it looks for peers we are
connected to only through a relay and, per the spec, first tries a plain direct dial (step 0, the peer may
be reachable after all), then exchanges addresses over the relayed connection (``CONNECT``), measures the
round trip, sends ``SYNC`` and both sides dial each other at the same moment from their listen ports (TCP
simultaneous open through endpoint-independent NATs), up to 3 rounds per attempt and 3 attempts per peer.
New streams then go to the direct connection (the swarm prefers direct connections); streams already
open on the relayed one finish there, and the relayed connection is closed 60 s after the upgrade, so no
message in flight is lost.

:class:`HolePuncher` changes one thing: only one side of a relayed pair initiates. The library drives a
hole punch from both ends of every relayed connection, and two sessions at once collide (each side dials
with both handshake roles) until the 3 attempts are spent. As in go-libp2p, the side that *accepted* the
relayed connection initiates; when both did (each dialed the other through a relay), the one with the
smaller peer ID does. It also reports which direct connections a punch made (``ioa peers`` shows them as
``punched``) and counts attempts and successes.
"""

from __future__ import annotations

import logging
import weakref
from contextlib import AbstractAsyncContextManager
from typing import Any

from libp2p.relay.circuit_v2.dcutr import PROTOCOL_ID as DCUTR_PROTOCOL_ID
from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.node.net.libp2p_patches import live_connections

log = logging.getLogger("ioa_p2p.punch")

DCUTR_PROTOCOL = str(DCUTR_PROTOCOL_ID)


class HolePuncher:
    """DCUtR on ``host``; remembers the connections hole punching made."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self.protocol = DCUtRProtocol(host)
        self._punched: weakref.WeakSet[Any] = weakref.WeakSet()
        self.attempts = 0
        self.successes = 0
        upstream = getattr(self.protocol, "_perform_hole_punch", None)
        if upstream is None:
            raise RuntimeError(
                "py-libp2p's DCUtRProtocol has no _perform_hole_punch any more: "
                "revisit ioa_p2p.node.net.punch"
            )

        async def perform(peer_id: Any, addrs: Any, as_responder: bool = False) -> bool:
            before = {id(c) for c in live_connections(host, peer_id)}
            self.attempts += 1
            ok = bool(await upstream(peer_id, addrs, as_responder))
            if ok:
                self.successes += 1
                for conn in live_connections(host, peer_id):
                    if id(conn) not in before and not _relayed(conn):
                        self._punched.add(conn)
            return ok

        self.protocol._perform_hole_punch = perform  # type: ignore[method-assign]
        initiate = self.protocol.initiate_hole_punch

        async def initiate_if_ours(peer_id: Any) -> bool:
            if not self.initiates(peer_id):
                return False
            return bool(await initiate(peer_id))

        self.protocol.initiate_hole_punch = initiate_if_ours  # type: ignore[method-assign]

    def initiates(self, peer_id: Any) -> bool:
        """Whether this side starts the hole punch with ``peer_id`` (module docstring)."""
        relayed = [c for c in live_connections(self.host, peer_id) if _relayed(c)]
        inbound = any(_direction(c) == "inbound" for c in relayed)
        outbound = any(_direction(c) == "outbound" for c in relayed)
        if inbound and outbound:
            return bool(self.host.get_id().to_bytes() < peer_id.to_bytes())
        return inbound

    def run(self) -> AbstractAsyncContextManager[Any]:
        return background_trio_service(self.protocol)

    def is_punched(self, conn: Any) -> bool:
        return conn in self._punched

    def status(self) -> dict[str, int]:
        return {"attempts": self.attempts, "successes": self.successes}


def _direction(conn: Any) -> str:
    """``inbound``, ``outbound`` or ``unknown`` (py-libp2p's ``Direction`` by name)."""
    return str(getattr(getattr(conn, "direction", None), "name", "unknown")).lower()


def _relayed(conn: Any) -> bool:
    try:
        return any("/p2p-circuit" in str(a) for a in conn.get_transport_addresses())
    except Exception:  # unreadable addresses: not known to be relayed
        return False


__all__ = ["DCUTR_PROTOCOL", "HolePuncher"]
