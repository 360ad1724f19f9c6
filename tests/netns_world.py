"""The multi-host world of tests/test_netns.py: a public bootstrap/relay and coordinator, three homes behind
NAT routers, five agent nodes; started the way the README tells a user to join (nothing NAT-specific in any
config), plus the checks those tests share.

::

    internet 6.0.0.0/24 ── boot (ioa bootstrap start: bootstrap + relay)
                       ├── coord (coordinator agent)
                       ├── home1 router (MASQUERADE) ── calc (calculator), scribe (echo, quick)
                       ├── home2 router (MASQUERADE) ── coder (python)
                       └── home3 router (MASQUERADE --random-fully: symmetric) ── translator (echo, slow)

Every home LAN is 192.168.1.0/24: a private address advertised by one home is meaningless in another.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ioa_p2p.testing.netns import (
    Internet,
    Lab,
    NsNode,
    in_parallel,
    nat_unavailable,
    netns_unavailable,
    poll,
    start_all,
    stop_all,
    sweep_leftovers,
)
from ioa_p2p.testing.netns.nodes import PORT

#: The README's join command, as a user on any machine types it.
LISTEN = ("--listen", f"/ip4/0.0.0.0/tcp/{PORT}")
#: The issue's target: every node reachable by its peers within this many seconds of its start (printed).
REACH_TARGET_S = 30.0
#: How long the tests wait for reachability before they fail (the target is a figure, not an assertion).
REACH_LIMIT_S = 120.0
FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}
GOALS = {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0}
AGENTS: dict[str, dict[str, Any]] = {
    "coord": {"name": "coordinator", "description": "Coordinates agents: launches goals and plans them."},
    "calc": {
        "name": "calculator",
        "adapter": "calculator",
        "description": "Exact arithmetic from plain language: sums, products, powers and fractions.",
    },
    "coder": {
        "name": "coder",
        "adapter": "python",
        "description": "Runs Python code in a sandbox and returns what it prints.",
    },
    "scribe": {
        "name": "scribe",
        "adapter": "echo",
        "description": "Translates short texts.",
        "options": {"delay": 6.0, "steps": 6},
    },
    "translator": {
        "name": "translator",
        "adapter": "echo",
        "description": "Translates reports into French.",
        "options": {"delay": 30.0, "steps": 30},
    },
}


@dataclass
class World:
    lab: Lab
    internet: Internet
    root: Path
    boot: NsNode
    agents: dict[str, NsNode]
    #: Seconds from each node's start until a peer in another network reached it, or why it was not.
    reached_after: dict[str, float | str] = field(default_factory=dict)

    @property
    def nodes(self) -> list[NsNode]:
        return [self.boot, *self.agents.values()]

    def __getitem__(self, name: str) -> NsNode:
        return self.boot if name == "boot" else self.agents[name]

    def logs(self) -> str:
        return "\n".join(f"--- {n.name} ---\n{n.log_tail(15)}" for n in self.nodes)


def skip_unless_netns() -> None:
    reason = netns_unavailable() or nat_unavailable()
    if reason:
        pytest.skip(reason)


def open_world(root: Path) -> Iterator[World]:
    """Build the topology, start every node (bootstrap first), yield; always stop and remove everything."""
    skip_unless_netns()
    sweep_leftovers()
    with Lab("world") as lab:
        internet = Internet(lab)
        boot_host, coord_host = internet.add_host("boot"), internet.add_host("coord")
        home1, home2 = internet.add_home("home1"), internet.add_home("home2")
        home3 = internet.add_home("home3", nat="symmetric")
        hosts = {
            "coord": coord_host,
            "calc": home1.add_host("calc"),
            "scribe": home1.add_host("scribe"),
            "coder": home2.add_host("coder"),
            "translator": home3.add_host("translator"),
        }
        boot = NsNode(lab, boot_host, root / "boot", command="bootstrap", args=LISTEN)
        agents = {
            name: NsNode(
                lab,
                host,
                root / name,
                args=(*LISTEN, "--bootstrap", boot.addr()),
                config={"agent": AGENTS[name], "chats": FAST_CHATS, "goals": GOALS},
            )
            for name, host in hosts.items()
        }
        world = World(lab, internet, root, boot, agents)
        try:
            start_all([boot])
            start_all(list(agents.values()))
            measure_reach(world)
            yield world
        finally:
            stop_all(world.nodes)


# --------------------------------------------------------------------------- addresses


def is_public_addr(addr: str) -> bool:
    """A multiaddr anyone on the internet can dial: ``/ip4|ip6`` with a global address, not a relay path."""
    match = re.match(r"^/ip[46]/([^/]+)/", addr)
    return bool(match) and "/p2p-circuit" not in addr and ipaddress.ip_address(match[1]).is_global


def is_relay_addr(addr: str) -> bool:
    """``<relay's public address>/p2p/<relay>/p2p-circuit/p2p/<target>``, the relay itself dialable."""
    head, sep, _ = addr.partition("/p2p-circuit")
    return bool(sep) and is_public_addr(head)


def unusable_addrs(addrs: list[str]) -> list[str]:
    """Addresses no other machine can use: wildcards, loopback, link-local. (A private LAN address is
    usable by peers in the same network; dialers elsewhere must skip it.)"""
    bad = []
    for addr in addrs:
        match = re.match(r"^/ip[46]/([^/]+)/", addr)
        if not match or "/p2p-circuit" in addr:
            continue
        ip = ipaddress.ip_address(match[1])
        if ip.is_unspecified or ip.is_loopback or ip.is_link_local:
            bad.append(addr)
    return bad


# --------------------------------------------------------------------------- control API helpers


def send(sender: NsNode, target: NsNode, text: str, timeout: float = 30.0) -> dict[str, Any]:
    result: dict[str, Any] = sender.call(
        "POST", "/send", {"peer": str(target.peer_id), "text": text}, timeout=timeout
    )
    return result


def inbox_texts(node: NsNode) -> list[str]:
    return [item["text"] for item in node.call("GET", "/inbox")]


def peer_entry(node: NsNode, other: NsNode) -> dict[str, Any] | None:
    for entry in node.call("GET", "/peers"):
        if entry["peer_id"] == str(other.peer_id):
            return dict(entry)
    return None


def connection_kinds(entry: dict[str, Any] | None) -> set[str]:
    """The kinds (``direct`` / ``relayed`` / ``punched``) of connections a ``GET /peers`` entry shows."""
    if entry is None:
        return set()
    kinds = {str(c.get("kind")) for c in entry.get("connections", []) if isinstance(c, dict)}
    if "connection" in entry:
        kinds.add(str(entry["connection"]))
    return kinds


def holds_current_card(observer: NsNode, agent: NsNode) -> dict[str, Any] | None:
    """The card of ``agent`` that ``observer`` holds, if it is ``agent``'s current version."""
    own = agent.call("GET", "/card")
    for card in observer.call("GET", "/cards")["cards"]:
        if card["peer_id"] == own["peer_id"] and card["version"] == own["version"]:
            return dict(card)
    return None


def export_chat(node: NsNode, chat: str, min_messages: int = 0) -> bytes:
    """``node``'s copy of ``chat`` (signed history bytes), once it holds at least ``min_messages``."""
    exported: dict[str, Any] = {}

    def ready() -> bool:
        exported.update(node.call("GET", f"/chats/export?chat={chat}"))
        return bool(exported["messages"] >= min_messages)

    poll(ready, 60, f"{node.name} holds {min_messages} messages of chat {chat}")
    return base64.b64decode(exported["data"])


#: Who tries to reach whom for the reachability figure: a peer in another network for every node.
REACHERS = {"coord": "coder", "calc": "coder", "scribe": "translator", "coder": "calc", "translator": "calc"}


def measure_reach(world: World) -> None:
    """Fill ``world.reached_after``: every node, reached by a peer in another network (all at once)."""

    def one(target: str, sender: str) -> float | str:
        try:
            return reach_time(world[sender], world[target])
        except AssertionError as exc:
            return str(exc)

    times = in_parallel([lambda t=t, s=s: one(t, s) for t, s in REACHERS.items()])
    world.reached_after.update(zip(REACHERS, times, strict=True))


def reach_time(sender: NsNode, target: NsNode, limit: float = REACH_LIMIT_S) -> float:
    """Seconds from ``target``'s start until ``sender`` first delivered a direct message to it."""
    deadline = target.started_at + limit
    last = ""
    while time.monotonic() < deadline:
        try:
            send(
                sender,
                target,
                f"reach {target.name}",
                timeout=max(1.0, min(30.0, deadline - time.monotonic())),
            )
            return time.monotonic() - target.started_at
        except Exception as exc:  # the node's typed error, relayed by the control API
            last = str(exc)
            time.sleep(1.0)
    raise AssertionError(f"{sender.name} never reached {target.name} within {limit:.0f} s: {last}")


__all__ = [
    "AGENTS",
    "REACHERS",
    "REACH_TARGET_S",
    "World",
    "connection_kinds",
    "export_chat",
    "holds_current_card",
    "in_parallel",
    "inbox_texts",
    "is_public_addr",
    "is_relay_addr",
    "open_world",
    "peer_entry",
    "poll",
    "reach_time",
    "send",
    "unusable_addrs",
]
