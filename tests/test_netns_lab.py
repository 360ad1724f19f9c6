"""The namespace lab itself (ioa_p2p.testing.netns): NAT behaviour, partitions, delay, cleanup, sweep.

Plain sockets between namespaces, no nodes: these check that the simulated internet behaves as
docs and tests/test_netns.py assume (what a home router lets in and out, what a symmetric NAT does to
ports), and that nothing is left behind.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from ioa_p2p.testing.netns import (
    Internet,
    Lab,
    in_parallel,
    nat_unavailable,
    netns_unavailable,
    sweep_leftovers,
)
from ioa_p2p.testing.netns.delay import add_delay, parse_messages, verdict_message
from ioa_p2p.testing.netns.lab import PREFIX, LabError, list_netns, run
from ioa_p2p.testing.netns.topology import Host

pytestmark = pytest.mark.netns


@pytest.fixture
def lab() -> Iterator[Lab]:
    reason = netns_unavailable() or nat_unavailable()
    if reason:
        pytest.skip(reason)
    with Lab("labtest") as made:
        yield made
    assert not [n for n in list_netns() if n.startswith(made.prefix)]  # all removed


class Server:
    """A TCP server in a namespace that records the (ip, port) each connection came from."""

    def __init__(self, lab: Lab, host: Host, port: int = 5000) -> None:
        self.sock = lab.threads(host.netns).run(lambda: socket.create_server(("0.0.0.0", port)))
        self.peers: list[tuple[str, int]] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            self.peers.append(peer)
            conn.close()

    def last_peer(self) -> tuple[str, int]:
        deadline = time.monotonic() + 5
        while not self.peers and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.peers[-1]

    def close(self) -> None:
        self.sock.close()


def connect(lab: Lab, src: Host, ip: str, port: int = 5000, *, bind: int = 0, timeout: float = 3.0) -> bool:
    def attempt() -> bool:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("0.0.0.0", bind))
            sock.settimeout(timeout)
            try:
                sock.connect((ip, port))
            except OSError:
                return False
            return True

    return lab.threads(src.netns).run(attempt)


def test_a_home_reaches_out_but_nobody_reaches_in_and_a_partition_cuts_both_ways(lab: Lab) -> None:
    net = Internet(lab)
    server = net.add_host("srv")
    home = net.add_home("home1")
    laptop = home.add_host("laptop")
    seen = Server(lab, server)
    assert connect(lab, laptop, server.ip, bind=4001)
    assert seen.last_peer() == (home.wan_ip, 4001)  # masqueraded, source port kept
    inside = Server(lab, laptop)
    assert not connect(lab, server, home.wan_ip, timeout=1.0)  # no port forwarding: dropped
    assert not connect(lab, server, laptop.ip, timeout=1.0)  # a LAN address names nothing out here
    home.partition()
    assert not connect(lab, laptop, server.ip, timeout=1.0)
    home.heal()
    assert connect(lab, laptop, server.ip)
    seen.close()
    inside.close()


def test_a_forwarded_port_lets_the_internet_in_to_one_machine_and_nothing_else(lab: Lab) -> None:
    net = Internet(lab)
    server = net.add_host("srv")
    home = net.add_home("home1")
    laptop = home.add_host("laptop")
    home.forward(5000, laptop)
    inside = Server(lab, laptop)
    assert connect(lab, server, home.wan_ip)  # the router's public address, port 5000: the laptop
    assert inside.last_peer()[0] == server.ip  # the caller's own address: nothing rewrites it
    assert not connect(lab, server, home.wan_ip, 5001, timeout=1.0)  # other ports: dropped as before
    with pytest.raises(LabError, match="not in"):
        net.add_home("home2").forward(5000, laptop)
    home.partition()  # a partition cuts the forwarded port too
    assert not connect(lab, server, home.wan_ip, timeout=1.0)
    home.heal()
    inside.close()


def test_a_symmetric_nat_changes_the_port_of_every_new_connection(lab: Lab) -> None:
    net = Internet(lab)
    first, second = net.add_host("one"), net.add_host("two")
    home = net.add_home("home3", nat="symmetric")
    phone = home.add_host("phone")
    servers = [Server(lab, first), Server(lab, second)]
    assert connect(lab, phone, first.ip, bind=4001) and connect(lab, phone, second.ip, bind=4001)
    ports = [server.last_peer()[1] for server in servers]
    assert len(set(ports)) == 2 and 4001 not in ports, ports  # one inside port, two random outside ports
    for server in servers:
        server.close()


def test_tcp_hole_punching_gets_through_two_masquerade_homes_but_not_a_symmetric_nat(lab: Lab) -> None:
    """Both sides dial the other's public address from the port they listen on, at about the same time
    (TCP simultaneous open, what DCUtR does): each router then holds the mapping the other's SYN matches."""
    net = Internet(lab)
    homes = [net.add_home("home1"), net.add_home("home2"), net.add_home("home3", nat="symmetric")]
    a, b, c = (home.add_host(name) for home, name in zip(homes, "abc", strict=True))

    def punch(x: Host, x_home: int, y: Host, y_home: int) -> list[bool]:
        return in_parallel(
            [
                lambda: connect(lab, x, homes[y_home].wan_ip, 4001, bind=4001, timeout=4.0),
                lambda: connect(lab, y, homes[x_home].wan_ip, 4001, bind=4001, timeout=4.0),
            ]
        )

    assert punch(a, 0, b, 1) == [True, True]
    assert punch(a, 0, c, 2) == [False, False]


def test_delay_is_added_to_every_link_a_packet_crosses(lab: Lab) -> None:
    net = Internet(lab)
    a, b = net.add_host("a"), net.add_host("b")
    server = Server(lab, b)
    mechanism, lines = add_delay(net.links, 25)
    try:
        started = time.monotonic()
        assert connect(lab, a, b.ip)
        handshake = time.monotonic() - started
        assert handshake >= 0.045, (mechanism, handshake)  # SYN and SYN-ACK each cross one link: 2 x 25 ms
    finally:
        for line in lines:
            line.stop()
        server.close()


def test_nfqueue_messages() -> None:
    verdict = verdict_message(0, 7, seq=11)
    assert len(verdict) == 16 + 4 + 12 and verdict[-8:] == (1).to_bytes(4, "big") + (7).to_bytes(4, "big")
    packet = bytearray(16 + 4 + 12)
    packet[0:16] = len(packet).to_bytes(4, "little") + (3 << 8).to_bytes(2, "little") + bytes(10)
    packet[20:32] = (
        (11).to_bytes(2, "little") + (1).to_bytes(2, "little") + (42).to_bytes(4, "big") + bytes(4)
    )
    error = (20).to_bytes(4, "little") + (2).to_bytes(2, "little") + bytes(10)
    error += (-1).to_bytes(4, "little", signed=True)
    assert parse_messages(bytes(packet) + error) == ([42], [1])


def test_leftovers_of_a_dead_run_are_swept_and_a_live_runs_are_not(lab: Lab) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = f"{PREFIX}-{dead.pid}-old-x"
    run(["ip", "netns", "add", orphan])
    live = lab.add_namespace("keep")
    try:
        swept = sweep_leftovers()
        assert orphan in swept and orphan not in list_netns()
        assert live in list_netns() and os.getpid() == int(live.split("-")[1])
    finally:
        run(["ip", "netns", "del", orphan], check=False)
