"""Paths between nodes behind NAT: joining, connection set-up and message RTT, direct vs relayed vs punched.

Run (as root: it builds Linux network namespaces, ioa_p2p.testing.netns):

    python bench/bench_paths.py [--delay 20] [--messages 20] [--punch-attempts 8]

The simulated internet: a public bootstrap/relay (``ioa bootstrap start``), a public machine, and three
homes behind NAT routers: home1 and home2 MASQUERADE (port-preserving: hole punching can work), home3
symmetric (``--random-fully``: it cannot). Every link a packet crosses adds ``--delay`` ms (``tc netem``
where the kernel has it, else the NFQUEUE delay line; the output says which), so with 20 ms: public <->
home host 4 traversals per round trip (80 ms), home <-> home directly 6 (120 ms), home <-> relay <-> home 8
(160 ms): the best a relayed path between two homes can do is 1.33x their direct one.

1. join: one node per machine, started with the README's join command and default config; for each, the
   seconds from its start until a node in another network delivered a direct message to it (target: 30 s).
2. paths: fresh probe nodes (a second program on the same machines, port 4002) that connect only on demand
   (``[node] target_peers = 0``; their reachability stated in config, so that no AutoNAT round is waited
   for); per path, the first message (connection set-up included) and the median of ``--messages`` more
   (a signed direct message, new stream, acknowledged: ``POST /send`` timed from inside the namespace):
   public <-> home1 (direct), home1 <-> home3 (relayed: the punch cannot work), home1 <-> home2 (relayed,
   then the seconds until a hole punch upgraded it, then the RTT on the punched connection).
3. punching: ``--punch-attempts`` times, the home2 probe restarts and home1's probe reaches it again; an
   attempt succeeds when the pair shows a ``punched`` connection within 20 s (target: >= 75 %).

Ratios printed: relayed / punched RTT between homes (same geometry; target <= 2), relayed / direct.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ioa_p2p.testing.netns import (
    Internet,
    Lab,
    NsNode,
    in_parallel,
    nat_unavailable,
    netns_unavailable,
    start_all,
    stop_all,
    sweep_leftovers,
)
from ioa_p2p.testing.netns.delay import add_delay
from ioa_p2p.testing.netns.topology import Host

JOIN_TARGET_S = 30.0
PUNCH_WAIT_S = 20.0


def listen(port: int) -> tuple[str, ...]:
    return ("--listen", f"/ip4/0.0.0.0/tcp/{port}")


def send_ms(sender: NsNode, target: NsNode, text: str) -> float:
    """One acknowledged direct message, timed from inside the sender's namespace (ms)."""
    started = time.perf_counter()
    sender.call("POST", "/send", {"peer": str(target.peer_id), "text": text}, timeout=60)
    return (time.perf_counter() - started) * 1000


def kinds(node: NsNode, other: NsNode) -> set[str]:
    for entry in node.call("GET", "/peers"):
        if entry["peer_id"] == str(other.peer_id):
            return {str(c.get("kind")) for c in entry.get("connections", [])}
    return set()


def wait_for(check: Callable[[], bool], limit: float) -> float | None:
    """Seconds until ``check()`` held (polled every 0.1 s), or None after ``limit``."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if check():
            return time.monotonic() - started
        time.sleep(0.1)
    return None


def first_reach(sender: NsNode, target: NsNode, limit: float = 120.0) -> float | None:
    """Seconds from ``target``'s start until ``sender`` delivered a message to it (None: never, in time)."""
    while time.monotonic() - target.started_at < limit:
        try:
            send_ms(sender, target, "reach")
            return time.monotonic() - target.started_at
        except Exception:  # not yet reachable: the node's typed error through the control API
            time.sleep(0.5)
    return None


# --------------------------------------------------------------------------- the three parts


def join(lab: Lab, hosts: dict[str, Host], boot: NsNode, root: Path) -> list[NsNode]:
    nodes = {
        name: NsNode(lab, host, root / f"join-{name}", args=(*listen(4001), "--bootstrap", boot.addr()))
        for name, host in hosts.items()
    }
    start_all(list(nodes.values()))
    pairs = [("home1", "pub"), ("home2", "pub"), ("home3", "pub"), ("pub", "home1")]  # (target, sender)
    times = in_parallel([lambda s=s, t=t: first_reach(nodes[s], nodes[t]) for t, s in pairs])
    for (target, sender), took in zip(pairs, times, strict=True):
        shown = f"{took:.1f} s" if took is not None else "not within 120 s"
        print(
            f"  {target:<6} reached from {sender:<6} {shown} after its start (target {JOIN_TARGET_S:.0f} s)"
        )
    return list(nodes.values())


#: The probe nodes of part 2: name -> (machine, port, reachability, [relay] table).
PROBES: dict[str, tuple[str, int, str, dict[str, Any]]] = {
    # the same-pair comparison: no hole punching, and the public one also reachable through the relay
    "pubA": ("pub", 4002, "public", {"hole_punching": False, "reserve_on_bootstrap": True}),
    "h1A": ("home1", 4002, "private", {"hole_punching": False}),
    "h1B": ("home1", 4004, "private", {"hole_punching": False}),
    # between homes: relayed, then punched where the NATs allow it
    "h1": ("home1", 4003, "private", {}),
    "h2": ("home2", 4002, "private", {}),
    "h3": ("home3", 4002, "private", {}),
}


def probes(lab: Lab, hosts: dict[str, Host], boot: NsNode, root: Path) -> dict[str, NsNode]:
    out = {}
    for name, (machine, port, reachability, relay) in PROBES.items():
        config = {
            "node": {"target_peers": 0, "reachability": reachability},
            "agent": {"name": name},
            "relay": relay,
        }
        args = (*listen(port), "--bootstrap", boot.addr())
        out[name] = NsNode(lab, hosts[machine], root / f"probe-{name}", name=name, args=args, config=config)
    return out


def connect_ms(sender: NsNode, addr: str) -> float:
    """``POST /connect`` to exactly ``addr`` (direct or ``/p2p-circuit``), timed (ms): a new connection."""
    started = time.perf_counter()
    sender.call("POST", "/connect", {"addr": addr}, timeout=60)
    return (time.perf_counter() - started) * 1000


def circuit_addr(node: NsNode, limit: float = 60.0) -> str:
    """A ``/p2p-circuit`` address ``node`` holds a reservation for (waits for one)."""
    found: list[str] = []

    def reserved() -> bool:
        found[:] = node.call("GET", "/relay").get("circuit_addrs", [])
        return bool(found)

    if wait_for(reserved, limit) is None:
        raise SystemExit(f"{node.name} holds no relay reservation after {limit:.0f} s")
    return found[0]


def punched(a: NsNode, b: NsNode) -> bool:
    return "punched" in kinds(a, b) or "punched" in kinds(b, a)


def rtt(sender: NsNode, target: NsNode, messages: int) -> float:
    return statistics.median([send_ms(sender, target, f"m{i}") for i in range(messages)])


def show(label: str, setup: float, median: float | None, note: str = "") -> None:
    then = f", message RTT median {median:6.1f} ms" if median is not None else ""
    print(f"  {label:<24}: connect {setup:7.1f} ms{then}{note}")


def paths(nodes: dict[str, NsNode], messages: int) -> dict[str, float]:
    out: dict[str, float] = {}
    pub, h1a, h1b, h1, h2, h3 = (nodes[n] for n in PROBES)
    print("  connected before:", {n: sorted(kinds(nodes[n], o) for o in nodes.values()) for n in nodes})
    setup = connect_ms(h1a, circuit_addr(pub))
    out["relayed"] = rtt(h1a, pub, messages)
    show("relayed home1 -> public", setup, out["relayed"], f" ({'/'.join(sorted(kinds(h1a, pub)))})")
    setup = connect_ms(h1b, pub.addr(PROBES["pubA"][1]))  # the same machines, another program
    out["direct"] = rtt(h1b, pub, messages)
    show("direct  home1 -> public", setup, out["direct"], f" ({'/'.join(sorted(kinds(h1b, pub)))})")
    setup = connect_ms(h1, circuit_addr(h3))
    out["relayed_homes"] = rtt(h1, h3, messages)
    show("relayed home1 -> home3", setup, out["relayed_homes"], " (symmetric NAT: no punch possible)")
    setup = connect_ms(h1, circuit_addr(h2))
    upgraded = wait_for(lambda: punched(h1, h2), PUNCH_WAIT_S)
    if upgraded is None:
        show("relayed home1 -> home2", setup, rtt(h1, h2, messages), f"; no punch in {PUNCH_WAIT_S:.0f} s")
        return out
    out["punched"] = rtt(h1, h2, messages)
    show("punched home1 -> home2", setup, out["punched"], f" (relayed first; punched {upgraded:.1f} s later)")
    return out


def punching(nodes: dict[str, NsNode], attempts: int) -> tuple[int, int]:
    p1, p2 = nodes["h1"], nodes["h2"]
    won = 0
    for i in range(attempts):
        p2.stop()
        p2.start()
        try:
            connect_ms(p1, circuit_addr(p2))
        except Exception as exc:
            print(f"  attempt {i + 1}: cannot reach home2 through the relay after its restart ({exc})")
            continue
        took = wait_for(lambda: punched(p1, p2), PUNCH_WAIT_S)
        won += took is not None
        print(f"  attempt {i + 1}: " + (f"punched after {took:.1f} s" if took is not None else "no punch"))
    return won, attempts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=20.0, help="ms added per link traversal")
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--punch-attempts", type=int, default=8)
    args = parser.parse_args()
    reason = netns_unavailable() or nat_unavailable()
    if reason:
        sys.exit(f"bench_paths needs network namespaces: {reason}")
    sweep_leftovers()
    root = Path(tempfile.mkdtemp(prefix="bench-paths-"))
    started: list[NsNode] = []
    with Lab("paths") as lab:
        net = Internet(lab)
        boot_host, pub = net.add_host("boot"), net.add_host("pub")
        homes = [net.add_home("home1"), net.add_home("home2"), net.add_home("home3", nat="symmetric")]
        hosts = {"pub": pub, **{h.name: h.add_host(f"m{i + 1}") for i, h in enumerate(homes)}}
        mechanism, lines = add_delay(net.links, args.delay)
        note = "" if mechanism == "netem" else " (this kernel has no sch_netem: NFQUEUE delay line)"
        print(f"links: {args.delay:g} ms per traversal via {mechanism}{note}")
        try:
            boot = NsNode(lab, boot_host, root / "boot", command="bootstrap", args=listen(4001))
            started.append(boot)
            start_all([boot])
            print("1. join (README command, default config)")
            joined = join(lab, hosts, boot, root)
            started += joined
            stop_all(joined)
            nodes = probes(lab, hosts, boot, root)
            started += nodes.values()
            start_all(list(nodes.values()))
            print(f"2. paths (connect: POST /connect; RTT: median of {args.messages} acknowledged messages)")
            figures = paths(nodes, args.messages)
            print(f"3. hole punching home1 <-> home2 ({args.punch_attempts} attempts)")
            won, tried = punching(nodes, args.punch_attempts)
            summary(figures, won, tried)
        finally:
            stop_all(started)
            for line in lines:
                line.stop()


def summary(figures: dict[str, float], won: int, tried: int) -> None:
    print("summary")
    ratio = figures["relayed"] / figures["direct"]
    print(f"  relayed / direct RTT, same two machines: {ratio:.2f}x (target <= 2; link delays alone: 1.5x)")
    if "punched" in figures:
        ratio = figures["relayed_homes"] / figures["punched"]
        print(f"  relayed (home1-home3) / punched (home1-home2) RTT: {ratio:.2f}x (link delays alone: 1.33x)")
    share = won / tried if tried else 0.0
    print(f"  hole punching: {won}/{tried} attempts = {share:.0%} (target >= 75 %)")


if __name__ == "__main__":
    main()
