"""Which addresses a node advertises and which of a peer's addresses a dialer tries (pure rules, no I/O).

Addresses are multiaddr text (``/ip4/1.2.3.4/tcp/4001/p2p/<id>``). Each direct address has a **scope**:

- ``loopback``  127.0.0.0/8, ::1: reachable from this machine only;
- ``private``   RFC 1918 (10/8, 172.16/12, 192.168/16), shared address space 100.64/10 (carrier-grade NAT),
  IPv6 unique-local fc00::/7: reachable inside one private network;
- ``link-local`` 169.254/16, fe80::/10: never used (an address without its interface zone is ambiguous);
- ``public``    every other IP address, and DNS names;
- ``circuit``   ``.../p2p-circuit/...``: reached through a relay.

**What a node advertises** (its card, its signed peer record, identify; :func:`advertised_addrs`): a wildcard
listen address (``0.0.0.0`` / ``::``) is expanded into the machine's interface addresses of that family
(:func:`expand_wildcards`) and is never advertised itself. In order: the addresses the user announced
(``[node] announce``, always, whatever their scope); then, unless the node is *private* (behind NAT,
AutoNAT said so or the user did), its public addresses (interface addresses and observed addresses that
AutoNAT confirmed); its relay circuit addresses (held reservations); its private-network addresses, for
peers in the same network, **unless** the node is private and holds a relay circuit (the world has a way
in: a LAN address in a card that travels the whole network only makes peers in other networks with the
same numbering dial a stranger, every home being 192.168.1.0/24); its loopback addresses only when it has
no other direct address (a node listening on 127.0.0.1 only is reachable from its own machine only). At
most :data:`MAX_ADVERTISED`. This one list is what the world sees (card, peer record, identify, DHT);
the node's listen addresses still serve what needs them locally (hole-punch port prediction, AutoNAT
requests, mDNS on the LAN). A node on a LAN without relays (reachability unknown or private, no
circuit) keeps advertising its LAN addresses: they are the only way to it.

**Which addresses a dialer tries** (:func:`plan_dial`): direct addresses first, in the order loopback (same
machine), private (same network), public, then circuit addresses. A loopback address is tried only for a
peer on the dialer's own machine: the peer advertises an IP address of one of the dialer's interfaces, or
has no direct address other than loopback ones. A private address is tried only when it lies in the network
of one of the dialer's interfaces. Link-local, wildcard, unparsable addresses, transports this node cannot
dial (not TCP) and the dialer's own addresses are skipped (with the reason). Whatever the rule lets through
is still authenticated by Noise: a wrong guess costs one refused or mismatched dial, never a wrong peer.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Scope = Literal["loopback", "private", "link-local", "public", "circuit", "unsupported"]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Reachability = Literal["public", "private", "unknown"]

#: Addresses a card or peer record carries at most (the card's own limit).
MAX_ADVERTISED = 16
_PRIVATE_NETS: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)
_LINK_LOCAL_NETS: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n) for n in ("169.254.0.0/16", "fe80::/10")
)
_IP_PROTOCOLS = ("ip4", "ip6")
_DNS_PROTOCOLS = ("dns", "dns4", "dns6", "dnsaddr")
_WILDCARDS = ("0.0.0.0", "::")


@dataclass(frozen=True, slots=True)
class Interface:
    """One address of one of this machine's network interfaces, with its network."""

    ip: IPAddress
    network: IPNetwork

    @classmethod
    def of(cls, ip: str, prefix: int) -> Interface:
        address = ipaddress.ip_address(ip)
        return cls(address, ipaddress.ip_network(f"{address}/{prefix}", strict=False))


@dataclass(frozen=True, slots=True)
class DirectAddr:
    """The dialable part of a direct multiaddr: host (IP or DNS name), TCP port, the rest."""

    protocol: str  # ip4, ip6, dns, dns4, dns6, dnsaddr
    host: str
    port: int
    text: str

    @property
    def ip(self) -> IPAddress | None:
        if self.protocol not in _IP_PROTOCOLS:
            return None
        return ipaddress.ip_address(self.host)


def strip_peer(addr: str) -> str:
    """``addr`` without a trailing ``/p2p/<id>`` (a circuit address keeps its relay part)."""
    head, sep, tail = addr.rpartition("/p2p/")
    return head if sep and head and "/" not in tail else addr


def is_circuit(addr: str) -> bool:
    return "/p2p-circuit" in addr


def split_circuit(addr: str) -> tuple[str, str, str] | None:
    """``<relay addr>/p2p/<relay>/p2p-circuit/p2p/<target>`` as (relay part ending in ``/p2p/<relay>``,
    relay ID text, target ID text); None when it is not of that shape."""
    head, sep, tail = addr.partition("/p2p-circuit")
    if not sep or not tail.startswith("/p2p/") or tail.count("/") != 2:
        return None
    relay_head, sep, relay = head.rpartition("/p2p/")
    if not sep or not relay or "/" in relay:
        return None
    return head, relay, tail.removeprefix("/p2p/")


def parse_direct(addr: str) -> DirectAddr | None:
    """The host and TCP port of a direct address; None when it is not ``/ip4|ip6|dns*/<host>/tcp/<port>``."""
    parts = addr.split("/")
    if len(parts) < 5 or parts[0] != "" or parts[3] != "tcp":
        return None
    protocol, host, port_text = parts[1], parts[2], parts[4]
    if protocol not in _IP_PROTOCOLS + _DNS_PROTOCOLS or not port_text.isdigit():
        return None
    port = int(port_text)
    if not 0 < port < 65536:
        return None
    if protocol in _IP_PROTOCOLS:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return None
        if (protocol == "ip4") != isinstance(ip, ipaddress.IPv4Address):
            return None
        host = str(ip)
    rest = "/".join(parts[5:])
    if rest and not rest.startswith("p2p/"):
        return None  # /ws, /quic, /tls...: transports this node does not speak
    return DirectAddr(protocol, host, port, addr)


def ip_scope(ip: IPAddress) -> Scope:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip_scope(ip.ipv4_mapped)
    if ip.is_loopback:
        return "loopback"
    if any(ip in net for net in _LINK_LOCAL_NETS if net.version == ip.version):
        return "link-local"
    if any(ip in net for net in _PRIVATE_NETS if net.version == ip.version):
        return "private"
    return "public"


def scope_of(addr: str) -> Scope:
    """The scope of a multiaddr (see the module docstring)."""
    if is_circuit(addr):
        return "circuit"
    direct = parse_direct(addr)
    if direct is None:
        return "unsupported"
    ip = direct.ip
    return "public" if ip is None else ip_scope(ip)


def is_wildcard(addr: str) -> bool:
    direct = parse_direct(addr)
    return direct is not None and direct.host in _WILDCARDS


def expand_wildcards(addrs: Iterable[str], interfaces: Sequence[Interface]) -> list[str]:
    """Each ``/ip4/0.0.0.0/tcp/P`` (``/ip6/::/tcp/P``) replaced by ``/ip4/<ip>/tcp/P`` for every interface
    address of that family (link-local ones left out); other addresses unchanged; no duplicates."""
    out: list[str] = []
    for addr in addrs:
        direct = parse_direct(addr)
        if direct is None or direct.host not in _WILDCARDS:
            out.append(addr)
            continue
        version = 4 if direct.protocol == "ip4" else 6
        for iface in interfaces:
            if iface.ip.version == version and ip_scope(iface.ip) != "link-local":
                out.append(f"/{direct.protocol}/{iface.ip}/tcp/{direct.port}")
    return list(dict.fromkeys(out))


def with_ip(addr: str, ip: str) -> str:
    """``addr`` (``/ip4|ip6/<x>/tcp/<port>``) with its IP replaced by ``ip`` (family from ``ip``)."""
    direct = parse_direct(addr)
    if direct is None:
        raise ValueError(f"{addr!r} is not a direct TCP address")
    version = ipaddress.ip_address(ip).version
    return f"/ip{version}/{ip}/tcp/{direct.port}"


# --------------------------------------------------------------------------- advertising


def advertised_addrs(
    *,
    listen: Sequence[str],
    announce: Sequence[str] = (),
    observed: Sequence[str] = (),
    circuits: Sequence[str] = (),
    reachability: Reachability = "unknown",
    limit: int = MAX_ADVERTISED,
) -> list[str]:
    """The addresses a node advertises (module docstring): ``listen`` already expanded, ``observed`` the
    public addresses AutoNAT confirmed, ``circuits`` its ``/p2p-circuit`` addresses; without ``/p2p/<id>``."""
    by_scope: dict[Scope, list[str]] = {}
    for addr in [*listen, *observed]:
        if is_wildcard(addr):
            continue
        by_scope.setdefault(scope_of(addr), []).append(strip_peer(addr))
    out = [strip_peer(a) for a in announce]
    if reachability != "private":
        out += by_scope.get("public", [])
    out += [strip_peer(a) for a in circuits]
    if not world_has_a_way_in(circuits=circuits, reachability=reachability):
        out += by_scope.get("private", [])
    if not any(by_scope.get(s) for s in ("public", "private")) and not announce:
        out += by_scope.get("loopback", [])
    return list(dict.fromkeys(out))[:limit]


def world_has_a_way_in(*, circuits: Sequence[str], reachability: Reachability) -> bool:
    """Whether a *private* node holds an address a stranger can dial (a relay circuit): then its LAN
    addresses stay off what it advertises (module docstring)."""
    return reachability == "private" and bool(circuits)


# --------------------------------------------------------------------------- dialing


@dataclass(frozen=True, slots=True)
class DialPlan:
    """The addresses to try, in order: ``direct`` first, then ``relayed``; and what was left out, why."""

    direct: tuple[str, ...] = ()
    relayed: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return not self.direct and not self.relayed


@dataclass(frozen=True, slots=True)
class LocalView:
    """What a dialer knows of its own machine: interface addresses and its own listen addresses."""

    interfaces: tuple[Interface, ...] = ()
    own: frozenset[str] = field(default_factory=frozenset)

    def own_ips(self) -> set[IPAddress]:
        return {i.ip for i in self.interfaces}

    def shares_network(self, ip: IPAddress) -> bool:
        return any(ip.version == i.network.version and ip in i.network for i in self.interfaces)


_ORDER: dict[Scope, int] = {"loopback": 0, "private": 1, "public": 2}


def plan_dial(peer_addrs: Sequence[str], local: LocalView, *, explicit: bool = False) -> DialPlan:
    """Which of a peer's addresses to try and in which order (module docstring). ``explicit``: addresses
    a user named: no scope rule applies (only unusable and own addresses are left out)."""
    direct: list[tuple[int, int, str]] = []
    relayed: list[str] = []
    skipped: list[tuple[str, str]] = []
    parsed: list[tuple[str, DirectAddr]] = []
    for addr in dict.fromkeys(peer_addrs):
        if is_circuit(addr):
            relayed.append(addr)
            continue
        d = parse_direct(addr)
        if d is None:
            skipped.append((addr, "no transport for it (this node dials TCP)"))
        elif d.host in _WILDCARDS:
            skipped.append((addr, "a wildcard address is not dialable"))
        else:
            parsed.append((addr, d))
    own_ips = local.own_ips()
    ips = [d.ip for _, d in parsed if d.ip is not None]
    host_local = all(ip_scope(ip) == "loopback" for ip in ips) and len(ips) == len(parsed)
    same_host = host_local or any(ip in own_ips and ip_scope(ip) != "loopback" for ip in ips)
    for index, (addr, d) in enumerate(parsed):
        ip = d.ip
        scope: Scope = "public" if ip is None else ip_scope(ip)
        if strip_peer(addr) in local.own:
            skipped.append((addr, "this node's own address"))
        elif explicit:
            direct.append((_ORDER.get(scope, 2), index, addr))
        elif scope == "link-local":
            skipped.append((addr, "link-local addresses are not used"))
        elif scope == "loopback" and not same_host:
            skipped.append((addr, "loopback address of a peer on another machine"))
        elif scope == "private" and ip is not None and not local.shares_network(ip):
            skipped.append((addr, "private address outside this machine's networks"))
        else:
            direct.append((_ORDER.get(scope, 2), index, addr))
    direct.sort()
    return DialPlan(tuple(a for _, _, a in direct), tuple(relayed), tuple(skipped))


__all__ = [
    "MAX_ADVERTISED",
    "DialPlan",
    "DirectAddr",
    "Interface",
    "LocalView",
    "Reachability",
    "Scope",
    "advertised_addrs",
    "expand_wildcards",
    "ip_scope",
    "is_circuit",
    "is_wildcard",
    "parse_direct",
    "plan_dial",
    "scope_of",
    "split_circuit",
    "strip_peer",
    "with_ip",
    "world_has_a_way_in",
]
