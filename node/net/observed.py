"""Where other peers see us: identify's observed addresses, counted per distinct observer (pure, no I/O).

Every identify exchange carries ``observed_addr``: the address the remote peer sees our connection come
from. Behind a NAT that is the router's public IP and a port of the NAT's choosing (the port of the
outbound connection, not our listen port). So we count the **IP**: an observed public IP is *confirmed* once
:attr:`ObservedAddrs.confirmations` distinct observers report it (observers are grouped like py-libp2p and
go-libp2p do: an IPv4 address, or an IPv6 /56, is one observer, so one host with many identities counts
once). Only public observed IPs count (a peer on our LAN sees our private address: nothing new).

A confirmed IP that is not one of our interface addresses gives *candidate* addresses: that IP with each of
our listen ports (a public host, a forwarded port or a port-preserving NAT answer there). Candidates are
advertised only after AutoNAT dialed one back (:mod:`ioa_p2p.node.net.autonat`); before that they are only
what we ask AutoNAT servers to try. One connection holds one observation (a newer one replaces it); a closed
connection's observation is forgotten, and at most :data:`MAX_TRACKED` connections are tracked.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ioa_p2p.node.net.addrs import ip_scope, parse_direct

#: Distinct observers that must report the same public IP before it is confirmed.
DEFAULT_CONFIRMATIONS = 3
#: Connections whose observation is kept (the oldest is dropped beyond this).
MAX_TRACKED = 4096


def observer_group(ip: str) -> str:
    """An IPv4 address, or the /56 of an IPv6 address: one observer however many identities it has."""
    address = ipaddress.ip_address(ip)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/56", strict=False).network_address)
    return str(address)


@dataclass(slots=True)
class ObservedAddrs:
    """Observed public IPs by connection; ``confirmed()`` those reported by enough distinct observers."""

    confirmations: int = DEFAULT_CONFIRMATIONS
    _by_conn: dict[int, tuple[str, str]] = field(default_factory=dict)

    def record(self, conn: int, observer_ip: str, observed_addr: str) -> bool:
        """Connection ``conn`` (any stable key) from ``observer_ip`` saw us at ``observed_addr``. True when
        the set of confirmed IPs changed."""
        direct = parse_direct(observed_addr)
        if direct is None or direct.ip is None or ip_scope(direct.ip) != "public":
            return False
        try:
            group = observer_group(observer_ip)
        except ValueError:
            return False
        before = self.confirmed()
        self._by_conn.pop(conn, None)
        self._by_conn[conn] = (group, str(direct.ip))
        while len(self._by_conn) > MAX_TRACKED:
            del self._by_conn[next(iter(self._by_conn))]
        return self.confirmed() != before

    def forget(self, conn: int) -> bool:
        """The connection closed. True when the set of confirmed IPs changed."""
        if conn not in self._by_conn:
            return False
        before = self.confirmed()
        del self._by_conn[conn]
        return self.confirmed() != before

    def observers(self) -> dict[str, int]:
        """Distinct observers per observed IP."""
        groups: dict[str, set[str]] = {}
        for group, ip in self._by_conn.values():
            groups.setdefault(ip, set()).add(group)
        return {ip: len(g) for ip, g in groups.items()}

    def confirmed(self) -> list[str]:
        """Observed IPs reported by at least ``confirmations`` distinct observers, most reported first."""
        counts = Counter(self.observers())
        return [ip for ip, n in counts.most_common() if n >= self.confirmations]

    def seen_by(self, conn: int) -> str | None:
        """The IP the peer of ``conn`` sees us at (None when it told us nothing usable)."""
        found = self._by_conn.get(conn)
        return found[1] if found else None


def candidate_addrs(ips: Sequence[str], listen: Sequence[str], own_ips: set[str]) -> list[str]:
    """Each of ``ips`` that is not ours, with each TCP listen port of its family (``listen`` expanded,
    without wildcards): where we would be reachable if the NAT or firewall let peers in."""
    ports: dict[int, list[int]] = {4: [], 6: []}
    for addr in listen:
        direct = parse_direct(addr)
        if direct is not None and direct.ip is not None and direct.port not in ports[direct.ip.version]:
            ports[direct.ip.version].append(direct.port)
    out: list[str] = []
    for ip in ips:
        if ip in own_ips:
            continue
        version = ipaddress.ip_address(ip).version
        out.extend(f"/ip{version}/{ip}/tcp/{port}" for port in ports[version])
    return out


__all__ = ["DEFAULT_CONFIRMATIONS", "ObservedAddrs", "candidate_addrs", "observer_group"]
