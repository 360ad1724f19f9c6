"""A NAT in front of one in-process node, for tests on 127.0.0.1 (no namespaces, no root).

:func:`put_behind_nat` makes a running node behave, towards inbound connections, like a host behind a NAT
router with endpoint-independent mapping and address-and-port-dependent filtering (the common home router,
Linux ``MASQUERADE`` with conntrack): an inbound TCP connection is let in only from an ``(ip, port)`` the
node itself sent a connection attempt to *from its listen port* within the last ``mapping_ttl`` seconds
(that is what a hole punch does: both sides dial each other from their listen ports, DCUtR). Everything
else that dials the node directly is refused after the TCP handshake (the socket is closed before any
libp2p byte), as a router would drop it. Outbound connections and connections a relay forwards are not
affected. With ``allow_punch=False`` nothing gets in (a symmetric NAT or a firewall: hole punching fails,
the relayed connection stays).

What it does not simulate: port translation (the node's observed address is its own), SYNs dropped
silently (a refused dial fails at once instead of timing out), mapping timeouts of idle connections. The
network-namespace tests (``ioa_p2p.testing.netns``) use a real NAT for those.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.node.net.addrs import parse_direct


@dataclass(slots=True)
class NatGate:
    """Stands in for py-libp2p's swarm connection gate (``is_allowed``) on a node behind the NAT."""

    allow_punch: bool = True
    mapping_ttl: float = 30.0
    mappings: dict[tuple[str, int], float] = field(default_factory=dict)
    refused: int = 0
    admitted: int = 0

    async def is_allowed(self, remote_addr: Any) -> bool:
        direct = parse_direct(str(remote_addr))
        if direct is None:
            return True
        opened = self.mappings.get((direct.host, direct.port))
        ok = self.allow_punch and opened is not None and time.monotonic() - opened < self.mapping_ttl
        if ok:
            self.admitted += 1
        else:
            self.refused += 1
        return ok

    def opened(self, ip: str, port: int) -> None:
        self.mappings[(ip, port)] = time.monotonic()


def put_behind_nat(node: Any, *, allow_punch: bool = True) -> NatGate:
    """Put the running in-process ``node`` (an ``ioa_p2p.node.Node``) behind a simulated NAT."""
    host = node.net.host
    swarm = host.get_network()
    gate = NatGate(allow_punch=allow_punch)
    swarm.connection_gate = gate
    for transport in swarm.transport_manager.get_transports():
        upstream = getattr(transport, "dial_with_source", None)
        if upstream is None:
            continue

        async def dial_with_source(maddr: Any, source: tuple[str, int], _up: Any = upstream) -> Any:
            direct = parse_direct(str(maddr))
            if direct is not None:
                gate.opened(direct.host, direct.port)
            return await _up(maddr, source)

        transport.dial_with_source = dial_with_source
    return gate


__all__ = ["NatGate", "put_behind_nat"]
