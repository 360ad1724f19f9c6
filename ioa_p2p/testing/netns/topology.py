"""An "internet" and homes behind NAT routers, built from network namespaces of a :class:`~.lab.Lab`.

::

    with Lab("topo") as lab:
        net = Internet(lab)                          # a bridge in its own namespace, 6.0.0.0/24
        relay = net.add_host("boot")                 # a public host: 6.0.0.2 on the bridge
        home = net.add_home("h1", nat="masquerade")  # a router: wan 6.0.0.3, lan 192.168.1.1/24
        laptop = home.add_host("calc")               # 192.168.1.10, default route via the router
        home.partition(); home.heal()                # unplug / replug the home's uplink

Addresses: the internet is ``6.0.0.0/24``, a *globally routable* block (ipaddress' ``is_global``), so nodes
classify it as public as they would a real server's address; nothing leaves the lab (its namespaces have
no route to the machine's own network). Every home uses the same LAN, ``192.168.1.0/24`` with the router
at ``.1`` (as most home routers do), so a private address advertised by one home names nothing, or another
machine, in the other home.

NAT behaviours simulated (Linux netfilter in the router namespace):

- ``masquerade``: ``MASQUERADE`` on the uplink. Linux keeps the source port when it is free, and maps one
  inside address and port to the same outside port for every destination (endpoint-independent mapping,
  port-preserving) unless two inside hosts clash on a port. Filtering is by connection tracking: only
  packets of connections the inside opened get in (address- and port-dependent filtering); unsolicited
  inbound packets are dropped silently (no RST, no ICMP), there is no port forwarding, and no hairpinning.
  TCP hole punching (simultaneous open from the ports each side's peers observed) gets through.
- ``symmetric``: the same with ``--random-fully``: every new outbound connection gets a random outside port
  (endpoint-dependent mapping), so the port a third peer observed is never the one a punch uses: TCP hole
  punching fails, and relayed connections must keep working.

Not simulated: UDP (QUIC, uTP) NAT behaviour, endpoint-independent (full-cone) filtering, UPnP / NAT-PMP /
PCP port mapping, carrier-grade double NAT, hairpinning, NAT mapping timeouts shorter than Linux's defaults,
IPv6, packet loss. Delay: :meth:`Internet.delay` uses ``tc netem`` where the kernel has it
(``sch_netem``), otherwise the NFQUEUE delay line of :mod:`~.delay`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ioa_p2p.testing.netns.lab import Lab, LabError, in_netns, run, veth

NatKind = Literal["masquerade", "symmetric"]
INTERNET = ipaddress.ip_network("6.0.0.0/24")
HOME_LAN = ipaddress.ip_network("192.168.1.0/24")
#: The first address given to a home's machines (the router is .1).
FIRST_HOME_HOST = 10
#: The interface a host uses: ``eth0``; a router's uplink ``wan`` and its LAN bridge ``lan``.
HOST_IF = "eth0"


@dataclass(frozen=True, slots=True)
class Host:
    """A machine: its namespace, its address, and where it sits (``internet`` or a home's name)."""

    name: str
    netns: str
    ip: str
    site: str
    #: The interface it sends on (delay and partitions act on it).
    ifname: str = HOST_IF

    @property
    def public(self) -> bool:
        return self.site == "internet"


@dataclass(slots=True)
class Internet:
    """A flat public network: one bridge in its own namespace; public hosts and home routers plug in."""

    lab: Lab
    netns: str = ""
    hosts: dict[str, Host] = field(default_factory=dict)
    homes: dict[str, Home] = field(default_factory=dict)
    _next: int = 2
    _ports: int = 0
    #: (netns, ifname) of every interface sending onto a link: where :meth:`delay` applies.
    links: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.netns = self.lab.add_namespace("inet")
        run(["ip", "-n", self.netns, "link", "add", "br0", "type", "bridge"])
        run(["ip", "-n", self.netns, "link", "set", "br0", "up"])

    def _plug(self, netns: str, ifname: str) -> str:
        """A veth from ``netns`` (named ``ifname``) to the bridge; the public address it gets."""
        ip = str(INTERNET[self._next])
        self._next += 1
        self._ports += 1
        port = f"p{self._ports}"
        veth(self.netns, port, netns, ifname)
        run(["ip", "-n", self.netns, "link", "set", port, "master", "br0", "up"])
        run(["ip", "-n", netns, "addr", "add", f"{ip}/{INTERNET.prefixlen}", "dev", ifname])
        run(["ip", "-n", netns, "link", "set", ifname, "up"])
        self.links.append((netns, ifname))
        return ip

    def add_host(self, name: str) -> Host:
        """A machine with a public address on the internet."""
        _check_name(name, self.hosts)
        netns = self.lab.add_namespace(name)
        host = Host(name, netns, self._plug(netns, HOST_IF), "internet")
        self.hosts[name] = host
        return host

    def add_home(self, name: str, *, nat: NatKind = "masquerade") -> Home:
        """A home: a NAT router on the internet and an empty LAN behind it."""
        _check_name(name, self.homes)
        home = Home(self, name, nat)
        self.homes[name] = home
        return home

    def all_hosts(self) -> list[Host]:
        return [*self.hosts.values(), *(h for home in self.homes.values() for h in home.hosts.values())]

    def host(self, name: str) -> Host:
        for host in self.all_hosts():
            if host.name == name:
                return host
        raise LabError(f"no host {name!r} in this lab")


@dataclass(slots=True)
class Home:
    """A NAT router namespace (``wan`` on the internet, ``lan`` bridge at 192.168.1.1) and its machines."""

    internet: Internet
    name: str
    nat: NatKind
    router: str = ""
    wan_ip: str = ""
    hosts: dict[str, Host] = field(default_factory=dict)
    partitioned: bool = False
    _next: int = FIRST_HOME_HOST
    _ports: int = 0

    def __post_init__(self) -> None:
        if self.nat not in ("masquerade", "symmetric"):
            raise LabError(f"unknown NAT kind {self.nat!r}; use 'masquerade' or 'symmetric'")
        self.router = self.internet.lab.add_namespace(f"{self.name}r")
        self.wan_ip = self.internet._plug(self.router, "wan")
        gateway = str(HOME_LAN[1])
        run(["ip", "-n", self.router, "link", "add", "lan", "type", "bridge"])
        run(["ip", "-n", self.router, "addr", "add", f"{gateway}/{HOME_LAN.prefixlen}", "dev", "lan"])
        run(["ip", "-n", self.router, "link", "set", "lan", "up"])
        self.internet.links.append((self.router, "lan"))
        run(in_netns(self.router, ["sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"]))
        for rule in nat_rules(self.nat):
            run(in_netns(self.router, ["iptables", *rule]))

    def add_host(self, name: str) -> Host:
        """A machine on the home LAN, reaching the internet through the router."""
        _check_name(name, self.hosts)
        netns = self.internet.lab.add_namespace(name)
        ip = str(HOME_LAN[self._next])
        self._next += 1
        self._ports += 1
        port = f"h{self._ports}"
        veth(self.router, port, netns, HOST_IF)
        run(["ip", "-n", self.router, "link", "set", port, "master", "lan", "up"])
        run(["ip", "-n", netns, "addr", "add", f"{ip}/{HOME_LAN.prefixlen}", "dev", HOST_IF])
        run(["ip", "-n", netns, "link", "set", HOST_IF, "up"])
        run(["ip", "-n", netns, "route", "add", "default", "via", str(HOME_LAN[1])])
        self.internet.links.append((netns, HOST_IF))
        host = Host(name, netns, ip, self.name)
        self.hosts[name] = host
        return host

    def forward(self, port: int, host: Host) -> None:
        """Forward TCP ``port`` of the router's public address to the same port of ``host`` (what a user
        sets up on a home router); everything else stays as :func:`nat_rules` says."""
        if host.site != self.name:
            raise LabError(f"{host.name} is not in {self.name}")
        for rule in forward_rules(port, host.ip):
            run(in_netns(self.router, ["iptables", *rule]))

    def partition(self) -> None:
        """Cut the home off the internet (its uplink drops every packet both ways; nothing is reset)."""
        if not self.partitioned:
            for chain, *rule in PARTITION_RULES:
                run(in_netns(self.router, ["iptables", "-I", chain, "1", *rule]))
            self.partitioned = True

    def heal(self) -> None:
        """Reconnect the home (the router's connection tracking kept its mappings)."""
        if self.partitioned:
            for chain, *rule in PARTITION_RULES:
                run(in_netns(self.router, ["iptables", "-D", chain, *rule]))
            self.partitioned = False


#: Inserted first in the router's chains by :meth:`Home.partition`.
PARTITION_RULES = (
    ("FORWARD", "-j", "DROP"),
    ("INPUT", "-i", "wan", "-j", "DROP"),
    ("OUTPUT", "-o", "wan", "-j", "DROP"),
)


def nat_rules(kind: NatKind) -> list[list[str]]:
    """The router's iptables rules (pure): masquerade out of ``wan``; in, only tracked connections."""
    masquerade = ["-t", "nat", "-A", "POSTROUTING", "-o", "wan", "-j", "MASQUERADE"]
    if kind == "symmetric":
        masquerade.append("--random-fully")
    tracked = ["-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"]
    return [
        masquerade,
        ["-A", "FORWARD", "-i", "lan", "-o", "wan", "-j", "ACCEPT"],
        ["-A", "FORWARD", "-i", "wan", "-o", "lan", *tracked],
        ["-A", "FORWARD", "-i", "wan", "-j", "DROP"],
        ["-A", "INPUT", "-i", "wan", *tracked],
        ["-A", "INPUT", "-i", "wan", "-j", "DROP"],
    ]


def forward_rules(port: int, ip: str) -> list[list[str]]:
    """A port forward (pure): DNAT of ``port`` on ``wan`` to ``ip``, let through before the DROP."""
    match = ["-p", "tcp", "--dport", str(port)]
    return [
        ["-t", "nat", "-A", "PREROUTING", "-i", "wan", *match, "-j", "DNAT", "--to", f"{ip}:{port}"],
        ["-I", "FORWARD", "1", "-i", "wan", "-o", "lan", "-d", ip, *match, "-j", "ACCEPT"],
    ]


def _check_name(name: str, taken: Mapping[str, object]) -> None:
    if not name.isalnum() or not name.islower() or len(name) > 12:
        raise LabError(f"name {name!r} must be 1-12 lowercase letters or digits")
    if name in taken:
        raise LabError(f"{name!r} is already in this lab")


__all__ = ["HOME_LAN", "INTERNET", "Home", "Host", "Internet", "NatKind", "forward_rules", "nat_rules"]
