"""A hole punch dials only what the dialer's scope rule allows, wherever py-libp2p took the address from.

py-libp2p's DCUtR stores the addresses a peer's ``CONNECT`` offers in the peerstore before it punches,
and both its plain direct dial (step 0) and its punch rounds dial every peerstore address of the peer
too: our filter of the offered list alone (``HolePuncher.usable``) was undone. In the netns world
(tests/test_netns.py) every home is 192.168.1.0/24 and three agents are 192.168.1.10: each punch
between them also dialed 192.168.1.10:4001 from 192.168.1.10:4001, a TCP connection of the node to
itself (measured: ``DIAG`` logs of 12 runs, node/net/punch.py).
"""

from __future__ import annotations

from typing import Any

import multiaddr
import trio
from trio.testing import MockClock

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.addrs import Interface, LocalView
from ioa_p2p.node.net.host import new_noise_host, to_libp2p_id
from ioa_p2p.node.net.punch import HolePuncher

LISTEN = ["/ip4/127.0.0.1/tcp/4001", "/ip4/192.168.1.10/tcp/4001"]
OFFERED = (
    "/ip4/6.0.0.5/tcp/4001",  # the peer's NAT, predicted: dialed
    "/ip4/192.168.1.11/tcp/4001",  # in our LAN: dialed (the peer, or Noise refuses a stranger)
    "/ip4/10.1.0.7/tcp/4001",  # another network's LAN: not dialed
    "/ip4/192.168.1.10/tcp/4001",  # our own address (the peer's LAN is numbered like ours): not dialed
)
DIALABLE = {"/ip4/6.0.0.5/tcp/4001", "/ip4/192.168.1.11/tcp/4001"}


def _puncher() -> tuple[HolePuncher, Any, list[str]]:
    local = LocalView((Interface.of("127.0.0.1", 8), Interface.of("192.168.1.10", 24)), frozenset(LISTEN))
    host = new_noise_host(Identity.generate())
    puncher = HolePuncher(host, lambda: LISTEN, lambda: local)
    peer = to_libp2p_id(Identity.generate().peer_id)
    # what the library does with a CONNECT before it punches: the offered addresses join the peerstore
    host.get_peerstore().add_addrs(peer, [multiaddr.Multiaddr(a) for a in OFFERED], 600)
    dialed: list[str] = []

    async def dial_addr(addr: Any, peer_id: Any, source: Any = None) -> Any:
        dialed.append(str(addr))
        raise OSError("no route (test)")

    network = host.get_network()
    network.dial_addr = dial_addr
    network.dial_addr_as_responder = dial_addr
    return puncher, peer, dialed


def test_a_punch_and_its_plain_dial_skip_the_addresses_the_scope_rule_refuses() -> None:
    async def main() -> None:
        puncher, peer, dialed = _puncher()
        offered = [multiaddr.Multiaddr(a) for a in OFFERED]
        assert not await puncher.protocol._perform_hole_punch(peer, offered, True)
        assert dialed and set(dialed) <= DIALABLE, dialed
        dialed.clear()
        assert not await puncher.protocol._try_unilateral_upgrade(peer)
        assert dialed and set(dialed) <= DIALABLE, dialed

    trio.run(main, clock=MockClock(autojump_threshold=0))


def test_the_scope_rule_judges_an_address_with_the_peers_others() -> None:
    puncher, peer, _dialed = _puncher()
    assert {a for a in OFFERED if puncher.may_dial(peer, multiaddr.Multiaddr(a))} == DIALABLE
    loopback = multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/4001")  # loopback: only a peer on this machine
    assert not puncher.may_dial(peer, loopback)
