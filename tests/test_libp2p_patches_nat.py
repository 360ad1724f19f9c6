"""Tell when upstream py-libp2p changes make a NAT-traversal workaround (patches 11-14, issue 19: dials,
circuit addresses, observed addresses, AutoNAT, DCUtR) in ioa_p2p.node.net.libp2p_patches stale or wrong.
The other patches are checked in tests/test_libp2p_patches.py."""

from __future__ import annotations

import gc
import warnings
from typing import Any

import multiaddr
import pytest
import trio

from ioa_p2p.node.net import libp2p_patches

# --------------------------------------------------------------------------- patches 11-14 (issue 19)


async def test_upstream_dials_one_tcp_address_and_caches_failures_our_dial_path_tries_the_next(
    tmp_path,
) -> None:
    """Patch 11: py-libp2p's ``dial_peer`` tries only the first TCP address it knows and then refuses the
    peer for a while (its negative cache); the node's dial path dials the next address."""
    import socket

    from libp2p.network.exceptions import SwarmException
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.addrs import LocalView
    from ioa_p2p.node.net.dialer import Dialer
    from ioa_p2p.node.net.host import new_noise_host

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = multiaddr.Multiaddr(f"/ip4/127.0.0.1/tcp/{sock.getsockname()[1]}")
    listen = [multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/0")]
    target, plain, ours = (new_noise_host(Identity.generate()) for _ in range(3))
    assert callable(getattr(plain.get_network(), "_dial_addr_single_attempt", None))
    with trio.fail_after(30):
        async with target.run(listen), plain.run(listen), ours.run(listen):
            good = target.get_transport_addrs()[0]
            for host in (plain, ours):
                host.get_peerstore().add_addrs(target.get_id(), [dead, good], 600)
            with pytest.raises(SwarmException):
                await plain.connect(PeerInfo(target.get_id(), []))  # only the dead one was tried
            with pytest.raises(SwarmException, match="negative cache"):
                await plain.connect(PeerInfo(target.get_id(), []))  # and the peer is now refused
            dialer = Dialer(ours, lambda: LocalView())
            await dialer.dial(target.get_id())
            assert dialer.connection(target.get_id()) is not None
            for host in (plain, ours, target):
                await host.get_network().close()


def test_upstream_get_addrs_mangles_a_circuit_address_and_ours_advertises_it() -> None:
    """Patch 12: through ``addrs_factory`` a ``/p2p-circuit`` address loses its relay path."""
    from libp2p.identity.identify.identify import _mk_identify_protobuf

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    relay = Identity.generate().peer_id
    circuit = f"/ip4/6.0.0.2/tcp/4001/p2p/{relay}/p2p-circuit"
    host = new_noise_host(Identity.generate())
    host._addrs_factory = lambda _candidates: [multiaddr.Multiaddr(circuit)]
    assert [str(a) for a in host.get_addrs()] == [f"/ip4/6.0.0.2/tcp/4001/p2p/{host.get_id()}"]  # mangled
    libp2p_patches.advertise(host, lambda: [circuit, "/ip4/6.0.0.9/tcp/1"])
    assert [str(a) for a in host.get_addrs()] == [
        f"{circuit}/p2p/{host.get_id()}",
        f"/ip4/6.0.0.9/tcp/1/p2p/{host.get_id()}",
    ]
    identify = _mk_identify_protobuf(host, None)
    assert [str(multiaddr.Multiaddr(a)) for a in identify.listen_addrs] == [circuit, "/ip4/6.0.0.9/tcp/1"]


def test_upstream_observed_addresses_need_the_same_port_four_times() -> None:
    """Patch 13: behind a NAT each connection has its own port, so py-libp2p never confirms the IP."""
    from libp2p.host.observed_addr_manager import ObservedAddrManager

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    class Conn:
        def __init__(self, ip: str) -> None:
            self.is_closed = False
            self.muxed_conn = type("M", (), {"get_remote_address": lambda _self: (ip, 4001)})()

    manager = ObservedAddrManager()
    local = [multiaddr.Multiaddr("/ip4/0.0.0.0/tcp/4001")]
    conns = [Conn(f"6.0.0.{i}") for i in range(2, 8)]
    for port, conn in enumerate(conns, start=40000):
        manager.record_observation(conn, multiaddr.Multiaddr(f"/ip4/6.0.0.99/tcp/{port}"), local)
    assert manager.addrs() == []  # six observers agree on the IP: still nothing
    host = new_noise_host(Identity.generate())
    seen: list[object] = []
    libp2p_patches.observe_identify(host, lambda conn, addr: seen.append(addr), seen.remove)
    host._observed_addr_manager.record_observation(
        conns[0], multiaddr.Multiaddr("/ip4/6.0.0.99/tcp/1"), local
    )
    assert [str(a) for a in seen] == ["/ip4/6.0.0.99/tcp/1"]


async def test_upstream_autonat_answers_reachable_for_a_dead_address_ours_dials_afresh() -> None:
    """Patch 14: upstream's dial-back returns the connection the request came on."""
    import socket

    from libp2p.host.autonat.autonat import AutoNATService
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.autonat import AutoNATServer
    from ioa_p2p.node.net.host import new_noise_host

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = multiaddr.Multiaddr(f"/ip4/127.0.0.1/tcp/{sock.getsockname()[1]}").to_bytes()
    listen = [multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/0")]
    server, client = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    with trio.fail_after(30):
        async with server.run(listen), client.run(listen):
            await client.connect(PeerInfo(server.get_id(), server.get_addrs()))
            assert await AutoNATService(server, serve=False)._try_dial(client.get_id(), [dead]) == dead
            ours = AutoNATServer(server)
            assert await ours._try_dial(client.get_id(), [dead]) is None
            alive = client.get_transport_addrs()[0].to_bytes()
            assert await ours._try_dial(client.get_id(), [alive]) == alive
            for host in (client, server):
                await host.get_network().close()


def test_dcutr_still_has_what_the_hole_puncher_wraps() -> None:
    import inspect

    from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol

    assert callable(DCUtRProtocol._perform_hole_punch) and callable(DCUtRProtocol.initiate_hole_punch)
    assert "self.initiate_hole_punch(" in inspect.getsource(DCUtRProtocol._auto_drive_loop)


def test_dcutr_reads_listen_ports_from_what_we_advertise_and_ours_from_the_listen_addresses() -> None:
    """A NATed node with a relay advertises only its circuit: upstream would find no listen port (no
    prediction, dials from random ports). Ours reads the node's listen addresses, loopback last."""
    import inspect

    from libp2p.relay.circuit_v2 import dcutr
    from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol

    from ioa_p2p.node.net import punch

    assert punch._UPSTREAM_LISTEN is not None
    assert "host.get_addrs()" in inspect.getsource(punch._UPSTREAM_LISTEN)
    for method in (DCUtRProtocol._get_observed_addrs, DCUtRProtocol._perform_hole_punch):
        assert "_local_tcp_listen_addrs(self.host)" in inspect.getsource(method)

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    circuit = f"/ip4/6.0.0.2/tcp/4001/p2p/{Identity.generate().peer_id}/p2p-circuit"
    host, other = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    for h in (host, other):
        libp2p_patches.advertise(h, lambda: [circuit])
    assert punch._UPSTREAM_LISTEN(host) == []
    punch.use_listen_addrs(host, lambda: ["/ip4/127.0.0.1/tcp/4001", "/ip4/192.168.1.5/tcp/4001"])
    assert dcutr._local_tcp_listen_addrs(host) == [(4, "192.168.1.5", 4001), (4, "127.0.0.1", 4001)]
    assert dcutr._local_tcp_listen_addrs(other) == []  # a host we did not register: upstream's answer


def test_the_hole_puncher_offers_its_lan_addresses_and_dials_only_what_the_scope_rule_allows() -> None:
    """Two nodes behind one NAT learn each other's LAN address in the DCUtR exchange only; what a peer
    offers is dialed only where our scope rule allows (not a LAN address of another network, not ours)."""
    import inspect

    from libp2p.relay.circuit_v2 import dcutr
    from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.addrs import Interface, LocalView
    from ioa_p2p.node.net.host import new_noise_host
    from ioa_p2p.node.net.punch import HolePuncher

    for method in (DCUtRProtocol._handle_dcutr_stream, DCUtRProtocol._initiate_hole_punch_locked):
        source = inspect.getsource(method)
        assert "await self._get_observed_addrs()" in source and "self._perform_hole_punch(" in source
    assert isinstance(dcutr.MAX_OBSERVED_ADDRS, int)  # the cap our offer keeps to
    listen = ["/ip4/127.0.0.1/tcp/4001", "/ip4/192.168.1.10/tcp/4001", "/ip4/6.0.0.9/tcp/4001"]
    local = LocalView(
        (Interface.of("127.0.0.1", 8), Interface.of("192.168.1.10", 24)),
        frozenset(a for a in listen),
    )
    puncher = HolePuncher(new_noise_host(Identity.generate()), lambda: listen, lambda: local)
    predicted = multiaddr.Multiaddr("/ip4/6.0.0.4/tcp/4001").to_bytes()
    offered = puncher.with_lan_addrs([predicted])
    assert [str(multiaddr.Multiaddr(a)) for a in offered] == [
        "/ip4/6.0.0.4/tcp/4001",
        "/ip4/192.168.1.10/tcp/4001",  # the LAN address, to this one peer; never loopback
    ]
    given = [
        multiaddr.Multiaddr(a)
        for a in (
            "/ip4/6.0.0.5/tcp/4001",
            "/ip4/192.168.1.11/tcp/4001",  # our LAN: maybe the peer, else Noise refuses a stranger
            "/ip4/10.1.0.7/tcp/4001",  # another network's LAN: not dialed
            "/ip4/192.168.1.10/tcp/4001",  # our own address: not dialed
        )
    ]
    assert [str(a) for a in puncher.usable(given)] == ["/ip4/6.0.0.5/tcp/4001", "/ip4/192.168.1.11/tcp/4001"]


async def _dial_cancelled(open_from: Any) -> list[warnings.WarningMessage]:
    """``open_from`` (a dial from a source port) cancelled at once; the ResourceWarnings it leaves."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with trio.CancelScope() as scope:
            scope.cancel()
            await open_from("127.0.0.1", 9, ("127.0.0.1", 0))
        await trio.lowlevel.checkpoint()  # trio drops the cancelled checkpoint (and the dial's frame)
        gc.collect()
    return [w for w in caught if issubclass(w.category, ResourceWarning)]


async def test_a_cancelled_dial_from_the_listen_port_closes_its_socket() -> None:
    """source_dial: upstream's dial from a source port leaks its socket when cancelled; ours closes it."""
    from ioa_p2p.node.net import source_dial

    upstream = source_dial.upstream_open_tcp_stream_from()
    assert upstream is not source_dial.open_tcp_stream_from
    assert await _dial_cancelled(upstream)  # fails once upstream closes it: drop the patch then
    assert not await _dial_cancelled(source_dial.open_tcp_stream_from)
