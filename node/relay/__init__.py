"""ioa_p2p.node.relay: circuit relay v2, the ``relay`` service every node runs.

- ``settings.py``  the ``[relay]`` config table (pure)
- ``service.py``   :class:`RelayService`: relaying for others (hop), reservations on relays, dialing
  ``/p2p-circuit`` addresses (its py-libp2p part is :mod:`ioa_p2p.node.net.relay`)
- ``routes.py``    control routes ``GET /relay``, ``POST /relay/connect``
"""

from ioa_p2p.node.relay.service import (
    HOP_PROTOCOL,
    STOP_PROTOCOL,
    RelayService,
    Reservation,
    circuit_addr,
    open_relay,
    parse_circuit_addr,
    with_peer,
)
from ioa_p2p.node.relay.settings import RelaySettings

__all__ = [
    "HOP_PROTOCOL",
    "STOP_PROTOCOL",
    "RelayService",
    "RelaySettings",
    "Reservation",
    "circuit_addr",
    "open_relay",
    "parse_circuit_addr",
    "with_peer",
]
