"""ioa_p2p.node.relay: circuit relay v2, the ``relay`` service every node runs.

- ``settings.py``   the ``[relay]`` config table (pure)
- ``autorelay.py``  :class:`Reservations`: pinned reservations, and automatic ones while the node is
  private (kept on 2+ relays, renewed, replaced); the node's ``/p2p-circuit`` addresses
- ``service.py``    :class:`RelayService`: relaying for others (hop, also automatically while public),
  reaching peers through relays (its py-libp2p part is :mod:`ioa_p2p.node.net.relay`,
  :mod:`ioa_p2p.node.net.relay_hop` and :mod:`ioa_p2p.node.net.relay_net`)
- ``routes.py``     control routes ``GET /relay``, ``POST /relay/connect``
"""

from ioa_p2p.node.relay.autorelay import Reservation, Reservations, circuit_addr, with_peer
from ioa_p2p.node.relay.service import (
    HOP_PROTOCOL,
    STOP_PROTOCOL,
    RelayService,
    open_relay,
    parse_circuit_addr,
)
from ioa_p2p.node.relay.settings import RelaySettings

__all__ = [
    "HOP_PROTOCOL",
    "STOP_PROTOCOL",
    "RelayService",
    "RelaySettings",
    "Reservation",
    "Reservations",
    "circuit_addr",
    "open_relay",
    "parse_circuit_addr",
    "with_peer",
]
