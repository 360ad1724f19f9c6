"""Paths between nodes behind NAT: joining, connection set-up and message RTT, direct vs relayed vs punched.

Run (as root: it builds Linux network namespaces, ioa_p2p.testing.netns):

    python bench/bench_paths.py [--delay 20] [--messages 20] [--punch-attempts 8]

The simulated internet: a public bootstrap/relay (``ioa bootstrap start``), a public machine ``pub``, and
three homes behind NAT routers: home1 and home2 MASQUERADE (port-preserving: hole punching can work),
home3 symmetric (``--random-fully``: it cannot). Every link a packet crosses adds ``--delay`` ms (``tc
netem`` where the kernel has it, else the NFQUEUE delay line; the output says which and checks it with a
plain TCP echo). Link traversals per round trip: home <-> public machine 4 (80 ms at 20 ms), home <->
relay <-> public machine 6 (120 ms: a relayed path can be no better than 1.5x the direct one between the
same two machines), home <-> home directly 6, home <-> relay <-> home 8.

0. link check: a TCP echo between home1 and pub, no libp2p (median of 10).
1. join: one node per machine, the README's join command and default config; seconds from a node's start
   until a node in another network delivered a direct message to it (target: 30 s).
2. paths: probe nodes (more programs on the same machines, ports 4002-4004) that connect on demand
   (``[node] target_peers = 0``, reachability stated in config so no AutoNAT round is waited for):
   ``connect`` is ``POST /connect`` to one address (a new connection; "already connected" when the node
   had connected on its own meanwhile); RTT is the median of ``--messages`` acknowledged direct messages
   (``POST /send`` timed from inside the namespace: a new stream, the signed message, its ack).
   - relayed vs direct between the same two machines (home1 and pub): one home1 program reaches pub's
     program through the relay only (hole punching off on both), another dials it directly;
   - home1 -> home3: relayed (symmetric NAT: no punch can work);
   - home1 -> home2: relayed, then the seconds until hole punching upgraded it, then RTT on that.
3. punching: ``--punch-attempts`` times, the home2 probe restarts and home1's probe reaches it through the
   relay again; an attempt succeeds when the pair shows a ``punched`` connection within 20 s (>= 75 %).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import threading
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
#: The probe nodes of part 2: name -> (machine, port, reachability, [relay] table).
PROBES: dict[str, tuple[str, int, str, dict[str, Any]]] = {
    "pubA": ("pub", 4002, "public", {"hole_punching": False, "reserve_on_bootstrap": True}),
    "h1A": ("home1", 4002, "private", {"hole_punching": False}),
    "h1B": ("home1", 4004, "private", {"hole_punching": False}),
    "h1": ("home1", 4003, "private", {}),
    "h2": ("home2", 4002, "private", {}),
    "h3": ("home3", 4002, "private", {}),
}


def listen(port: int) -> tuple[str, ...]:
    return ("--listen", f"/ip4/0.0.0.0/tcp/{port}")


# --------------------------------------------------------------------------- measuring


def send_ms(sender: NsNode, target: NsNode, text: str) -> float:
    """One acknowledged direct message, timed from inside the sender's namespace (ms)."""
    started = time.perf_counter()
    sender.call("POST", "/send", {"peer": str(target.peer_id), "text": text}, timeout=60)
    return (time.perf_counter() - started) * 1000


def rtt(sender: NsNode, target: NsNode, messages: int) -> float:
    return statistics.median([send_ms(sender, target, f"m{i}") for i in range(messages)])


def kinds(node: NsNode, other: NsNode) -> set[str]:
    for entry in node.call("GET", "/peers"):
        if entry["peer_id"] == str(other.peer_id):
            return {str(c.get("kind")) for c in entry.get("connections", [])}
    return set()


def punched(a: NsNode, b: NsNode) -> bool:
    return "punched" in kinds(a, b) or "punched" in kinds(b, a)


def wait_for(check: Callable[[], bool], limit: float) -> float | None:
    """Seconds until ``check()`` held (polled every 0.1 s), or None after ``limit``."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if check():
            return time.monotonic() - started
        time.sleep(0.1)
    return None


def setup(sender: NsNode, target: NsNode, addr: str) -> str:
    """``POST /connect`` to exactly ``addr``, timed, unless the two are connected already (said so)."""
    before = kinds(sender, target)
    if before:
        return f"already connected ({'/'.join(sorted(before))})"
    started = time.perf_counter()
    sender.call("POST", "/connect", {"addr": addr}, timeout=60)
    return f"{(time.perf_counter() - started) * 1000:.0f} ms"


def circuit_addr(node: NsNode, limit: float = 60.0) -> str:
    """A ``/p2p-circuit`` address ``node`` holds a reservation for (waits for one)."""
    found: list[str] = []

    def reserved() -> bool:
        found[:] = node.call("GET", "/relay").get("circuit_addrs", [])
        return bool(found)

    if wait_for(reserved, limit) is None:
        raise SystemExit(f"{node.name} holds no relay reservation after {limit:.0f} s")
    return found[0]


def first_reach(sender: NsNode, target: NsNode, limit: float = 120.0) -> float | None:
    """Seconds from ``target``'s start until ``sender`` delivered a message to it (None: never, in time)."""
    while time.monotonic() - target.started_at < limit:
        try:
            send_ms(sender, target, "reach")
            return time.monotonic() - target.started_at
        except Exception:  # not yet reachable: the node's typed error through the control API
            time.sleep(0.5)
    return None


def echo_rtt(lab: Lab, client: Host, server: Host, rounds: int = 10) -> float:
    """Median round trip (ms) of a 32-byte TCP echo between two machines (no libp2p)."""
    listener = lab.threads(server.netns).run(lambda: socket.create_server(("0.0.0.0", 5999)))

    def serve() -> None:
        with listener, listener.accept()[0] as conn:
            while data := conn.recv(64):
                conn.sendall(data)

    threading.Thread(target=serve, daemon=True).start()

    def ping() -> float:
        with socket.create_connection((server.ip, 5999), timeout=10) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                sock.sendall(b"x" * 32)
                sock.recv(64)
                times.append((time.perf_counter() - started) * 1000)
            return statistics.median(times)

    return lab.threads(client.netns).run(ping)


# --------------------------------------------------------------------------- the parts


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


def show(label: str, connect: str, median: float | None, note: str = "") -> None:
    then = f", message RTT median {median:6.1f} ms" if median is not None else ""
    print(f"  {label:<24}: connect {connect}{then}{note}")


def paths(nodes: dict[str, NsNode], messages: int) -> dict[str, float]:
    out: dict[str, float] = {}
    pub, h1a, h1b, h1, h2, h3 = (nodes[n] for n in PROBES)
    connect = setup(h1a, pub, circuit_addr(pub))
    out["relayed"] = rtt(h1a, pub, messages)
    show("relayed home1 -> pub", connect, out["relayed"], f" ({'/'.join(sorted(kinds(h1a, pub)))})")
    connect = setup(h1b, pub, pub.addr(PROBES["pubA"][1]))
    out["direct"] = rtt(h1b, pub, messages)
    show("direct  home1 -> pub", connect, out["direct"], f" ({'/'.join(sorted(kinds(h1b, pub)))})")
    connect = setup(h1, h3, circuit_addr(h3))
    out["relayed_homes"] = rtt(h1, h3, messages)
    show("relayed home1 -> home3", connect, out["relayed_homes"], f" ({'/'.join(sorted(kinds(h1, h3)))})")
    connect = setup(h1, h2, circuit_addr(h2))
    upgraded = wait_for(lambda: punched(h1, h2), PUNCH_WAIT_S)
    if upgraded is None:
        show("relayed home1 -> home2", connect, rtt(h1, h2, messages), f"; no punch in {PUNCH_WAIT_S:.0f} s")
        return out
    out["punched"] = rtt(h1, h2, messages)
    show(
        "punched home1 -> home2", connect, out["punched"], f" (relayed first; punched {upgraded:.1f} s later)"
    )
    return out


def punching(nodes: dict[str, NsNode], attempts: int) -> tuple[int, int]:
    p1, p2 = nodes["h1"], nodes["h2"]
    won = 0
    for i in range(attempts):
        p2.stop()
        p2.start()
        try:
            setup(p1, p2, circuit_addr(p2))
        except Exception as exc:
            print(f"  attempt {i + 1}: cannot reach home2 through the relay after its restart ({exc})")
            continue
        took = wait_for(lambda: punched(p1, p2), PUNCH_WAIT_S)
        won += took is not None
        print(f"  attempt {i + 1}: " + (f"punched after {took:.1f} s" if took is not None else "no punch"))
    return won, attempts


def summary(figures: dict[str, float], won: int, tried: int, delay: float) -> None:
    print("summary")
    floor = f"; link delays alone: {1.5 if delay else 1.0:.2f}x"
    ratio = figures["relayed"] / figures["direct"]
    print(f"  relayed / direct message RTT, same two machines: {ratio:.2f}x (target <= 2{floor})")
    if "punched" in figures:
        ratio = figures["relayed_homes"] / figures["punched"]
        print(f"  relayed (home1-home3) / punched (home1-home2) RTT: {ratio:.2f}x")
    share = won / tried if tried else 0.0
    print(f"  hole punching: {won}/{tried} attempts = {share:.0%} (target >= 75 %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
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
        print(
            f"links: {args.delay:g} ms per traversal via {mechanism}{note}"
            if args.delay
            else "links: no delay"
        )
        try:
            print(f"0. link check: TCP echo home1 <-> pub {echo_rtt(lab, hosts['home1'], pub):.1f} ms "
                  f"(4 traversals: {4 * args.delay:g} ms + processing)")  # fmt: skip
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
            print(f"2. paths (RTT: median of {args.messages} acknowledged messages, a new stream each)")
            figures = paths(nodes, args.messages)
            print(f"3. hole punching home1 <-> home2 ({args.punch_attempts} attempts)")
            won, tried = punching(nodes, args.punch_attempts)
            summary(figures, won, tried, args.delay)
        finally:
            stop_all(started)
            for line in lines:
                line.stop()


if __name__ == "__main__":
    main()
