"""The pure rules of real networks (issue 19): address scopes and wildcard expansion, what a node advertises
and what a dialer tries, observed addresses, the reachability verdicts, the relay's ledger of limits, and
where bootstrap addresses come from."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ioa_p2p.config.node_config import NodeConfig, read_bootstrap_file, resolve_bootstrap
from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.addrs import (
    Interface,
    LocalView,
    advertised_addrs,
    expand_wildcards,
    parse_direct,
    plan_dial,
    scope_of,
    split_circuit,
    strip_peer,
    world_has_a_way_in,
)
from ioa_p2p.node.net.bootstrap_keeper import BootstrapState
from ioa_p2p.node.net.observed import ObservedAddrs, candidate_addrs, observer_group
from ioa_p2p.node.net.reachability import ReachabilityTracker
from ioa_p2p.node.net.relay_limits import (
    NO_RESERVATION,
    RESERVATION_REFUSED,
    RESOURCE_LIMIT_EXCEEDED,
    HopLimits,
    Refused,
    RelayLedger,
)

#: a fixed key: the peer ID is part of a test ID below, the same in every process collecting the tests
PEER = str(Identity(bytes(range(32))).peer_id)
LAN = Interface.of("192.168.1.10", 24)
LOOPBACK = Interface.of("127.0.0.1", 8)
PUBLIC = Interface.of("6.0.0.5", 24)


# --------------------------------------------------------------------------- scopes and parsing


@pytest.mark.parametrize(
    ("addr", "scope"),
    [
        ("/ip4/127.0.0.1/tcp/1", "loopback"),
        ("/ip6/::1/tcp/1", "loopback"),
        ("/ip4/10.1.2.3/tcp/1", "private"),
        ("/ip4/172.20.0.1/tcp/1", "private"),
        ("/ip4/192.168.1.10/tcp/4001/p2p/" + PEER, "private"),
        ("/ip4/100.64.0.9/tcp/1", "private"),  # carrier-grade NAT
        ("/ip6/fd00::2/tcp/1", "private"),
        ("/ip4/169.254.3.4/tcp/1", "link-local"),
        ("/ip6/fe80::1/tcp/1", "link-local"),
        ("/ip4/6.0.0.5/tcp/4001", "public"),
        ("/ip4/203.0.113.7/tcp/4001", "public"),  # documentation ranges stand in for public ones
        ("/dns4/relay.example/tcp/4001", "public"),
        (f"/ip4/6.0.0.2/tcp/4001/p2p/{PEER}/p2p-circuit/p2p/{PEER}", "circuit"),
        ("/ip4/6.0.0.5/udp/4001/quic-v1", "unsupported"),
        ("/ip4/6.0.0.5/tcp/4001/ws", "unsupported"),
        ("/ip4/not-an-ip/tcp/1", "unsupported"),
        ("/ip4/1.2.3.4/tcp/99999", "unsupported"),
    ],
)
def test_scope_of_each_kind_of_address(addr: str, scope: str) -> None:
    assert scope_of(addr) == scope


def test_strip_peer_and_split_circuit() -> None:
    relay, target = str(Identity.generate().peer_id), str(Identity.generate().peer_id)
    assert strip_peer(f"/ip4/1.2.3.4/tcp/1/p2p/{relay}") == "/ip4/1.2.3.4/tcp/1"
    circuit = f"/ip4/1.2.3.4/tcp/1/p2p/{relay}/p2p-circuit/p2p/{target}"
    assert strip_peer(circuit) == f"/ip4/1.2.3.4/tcp/1/p2p/{relay}/p2p-circuit"
    assert split_circuit(circuit) == (f"/ip4/1.2.3.4/tcp/1/p2p/{relay}", relay, target)
    assert split_circuit(f"/p2p/{relay}/p2p-circuit/p2p/{target}") == (f"/p2p/{relay}", relay, target)
    for bad in ("/ip4/1.2.3.4/tcp/1", f"/ip4/1.2.3.4/tcp/1/p2p-circuit/p2p/{target}", f"{circuit}/x"):
        assert split_circuit(bad) is None
    assert parse_direct("/ip4/1.2.3.4/tcp/80").port == 80  # type: ignore[union-attr]


def test_wildcards_expand_into_interface_addresses_of_their_family() -> None:
    interfaces = [
        LOOPBACK,
        LAN,
        Interface.of("::1", 128),
        Interface.of("fe80::1", 64),
        Interface.of("fd00::2", 64),
    ]
    expanded = expand_wildcards(
        ["/ip4/0.0.0.0/tcp/4001", "/ip6/::/tcp/4002", "/ip4/6.0.0.5/tcp/1"], interfaces
    )
    assert expanded == [
        "/ip4/127.0.0.1/tcp/4001",
        "/ip4/192.168.1.10/tcp/4001",
        "/ip6/::1/tcp/4002",
        "/ip6/fd00::2/tcp/4002",  # link-local fe80:: left out
        "/ip4/6.0.0.5/tcp/1",
    ]
    assert not [a for a in expanded if "/0.0.0.0/" in a or "/::/" in a]


# --------------------------------------------------------------------------- advertising


def test_a_public_node_advertises_public_then_lan_addresses_never_loopback_or_wildcards() -> None:
    listen = [
        "/ip4/127.0.0.1/tcp/4001",
        "/ip4/6.0.0.5/tcp/4001",
        "/ip4/192.168.1.10/tcp/4001",
        "/ip4/0.0.0.0/tcp/9",
    ]
    out = advertised_addrs(listen=listen, reachability="public")
    assert out == ["/ip4/6.0.0.5/tcp/4001", "/ip4/192.168.1.10/tcp/4001"]


def test_a_private_node_with_a_relay_advertises_only_its_circuits_to_the_world() -> None:
    """Behind NAT with a reservation: neither the unreachable public address nor the LAN address (every
    home is 192.168.1.0/24: in a card it makes peers of other homes dial a stranger) nor loopback."""
    circuit = f"/ip4/6.0.0.2/tcp/4001/p2p/{PEER}/p2p-circuit"
    listen = ["/ip4/127.0.0.1/tcp/4001", "/ip4/6.0.0.9/tcp/4001", "/ip4/192.168.1.10/tcp/4001"]
    out = advertised_addrs(listen=listen, circuits=[circuit], reachability="private")
    assert out == [circuit]
    assert world_has_a_way_in(circuits=[circuit], reachability="private")


def test_lan_addresses_stay_while_they_are_the_only_way_in_or_were_announced() -> None:
    lan = "/ip4/192.168.1.10/tcp/4001"
    circuit = f"/ip4/6.0.0.2/tcp/4001/p2p/{PEER}/p2p-circuit"
    # private, no reservation yet (or no relay at all: a LAN-only network): the LAN address is all there is
    assert advertised_addrs(listen=["/ip4/127.0.0.1/tcp/4001", lan], reachability="private") == [lan]
    # not known to be private (a LAN without AutoNAT servers), even with a circuit a user asked for
    assert advertised_addrs(listen=[lan], circuits=[circuit], reachability="unknown") == [circuit, lan]
    # a public node keeps its LAN address after its public ones (its LAN peers need no hairpin NAT)
    assert advertised_addrs(listen=[lan, "/ip4/6.0.0.9/tcp/1"], reachability="public") == [
        "/ip4/6.0.0.9/tcp/1",
        lan,
    ]
    # what a user announced is advertised whatever its scope
    out = advertised_addrs(listen=[lan], announce=[lan], circuits=[circuit], reachability="private")
    assert out == [lan, circuit]
    assert not world_has_a_way_in(circuits=[], reachability="private")
    assert not world_has_a_way_in(circuits=[circuit], reachability="public")


def test_announced_and_verified_observed_addresses_come_first() -> None:
    out = advertised_addrs(
        listen=["/ip4/192.168.1.10/tcp/4001"],
        announce=["/dns4/me.example/tcp/4001"],
        observed=["/ip4/6.0.0.3/tcp/4001"],
        reachability="public",
    )
    assert out == ["/dns4/me.example/tcp/4001", "/ip4/6.0.0.3/tcp/4001", "/ip4/192.168.1.10/tcp/4001"]


def test_a_loopback_only_node_advertises_loopback_and_the_list_is_capped() -> None:
    assert advertised_addrs(listen=["/ip4/127.0.0.1/tcp/5"]) == ["/ip4/127.0.0.1/tcp/5"]
    many = [f"/ip4/6.0.0.{i}/tcp/1" for i in range(30)]
    assert len(advertised_addrs(listen=many)) == 16


# --------------------------------------------------------------------------- dialing


def test_a_dialer_tries_loopback_only_for_a_peer_on_its_machine() -> None:
    here = LocalView((LOOPBACK, LAN))
    host_local = plan_dial(["/ip4/127.0.0.1/tcp/7"], here)
    assert host_local.direct == ("/ip4/127.0.0.1/tcp/7",)  # it has nothing else: it runs here or nowhere
    same_host = plan_dial(["/ip4/192.168.1.10/tcp/7", "/ip4/127.0.0.1/tcp/7"], here)  # it has our LAN IP
    assert same_host.direct == ("/ip4/127.0.0.1/tcp/7", "/ip4/192.168.1.10/tcp/7")
    elsewhere = plan_dial(["/ip4/6.0.0.9/tcp/7", "/ip4/127.0.0.1/tcp/7"], here)
    assert elsewhere.direct == ("/ip4/6.0.0.9/tcp/7",)
    assert elsewhere.skipped == (("/ip4/127.0.0.1/tcp/7", "loopback address of a peer on another machine"),)


def test_a_dialer_tries_private_addresses_only_in_its_own_networks_and_never_its_own_address() -> None:
    here = LocalView((LOOPBACK, LAN), frozenset({"/ip4/192.168.1.10/tcp/4001"}))
    plan = plan_dial(
        [
            "/ip4/10.0.0.5/tcp/4001",
            "/ip4/192.168.1.20/tcp/4001",
            "/ip4/192.168.1.10/tcp/4001",  # ours: the same LAN address in another home
            "/ip4/6.0.0.9/tcp/4001",
            "/ip4/169.254.1.1/tcp/4001",
            "/ip4/0.0.0.0/tcp/4001",
            "/ip4/6.0.0.9/udp/4001/quic-v1",
        ],
        here,
    )
    assert plan.direct == ("/ip4/192.168.1.20/tcp/4001", "/ip4/6.0.0.9/tcp/4001")  # same network first
    reasons = dict(plan.skipped)
    assert reasons["/ip4/10.0.0.5/tcp/4001"] == "private address outside this machine's networks"
    assert reasons["/ip4/192.168.1.10/tcp/4001"] == "this node's own address"
    assert "link-local" in reasons["/ip4/169.254.1.1/tcp/4001"]
    assert "wildcard" in reasons["/ip4/0.0.0.0/tcp/4001"]
    assert "TCP" in reasons["/ip4/6.0.0.9/udp/4001/quic-v1"]


def test_relayed_addresses_come_after_direct_ones_and_explicit_addresses_skip_the_scope_rule() -> None:
    circuit = f"/ip4/6.0.0.2/tcp/4001/p2p/{PEER}/p2p-circuit/p2p/{PEER}"
    plan = plan_dial([circuit, "/ip4/6.0.0.9/tcp/1"], LocalView((LAN,)))
    assert (plan.direct, plan.relayed) == (("/ip4/6.0.0.9/tcp/1",), (circuit,))
    explicit = plan_dial(["/ip4/10.9.9.9/tcp/1"], LocalView((LAN,)), explicit=True)
    assert explicit.direct == ("/ip4/10.9.9.9/tcp/1",)
    assert plan_dial([], LocalView()).empty


# --------------------------------------------------------------------------- observed addresses


def test_an_observed_ip_is_confirmed_by_distinct_observers_only() -> None:
    seen = ObservedAddrs(confirmations=3)
    assert not seen.record(1, "6.0.0.2", "/ip4/6.0.0.3/tcp/50001")
    assert not seen.record(2, "6.0.0.2", "/ip4/6.0.0.3/tcp/50002")  # the same observer again
    assert not seen.record(3, "6.0.0.5", "/ip4/6.0.0.3/tcp/50003")
    assert not seen.record(4, "192.168.1.2", "/ip4/192.168.1.10/tcp/4001")  # a LAN peer: not public
    assert seen.record(5, "6.0.0.7", "/ip4/6.0.0.3/tcp/41000")  # ports differ (NAT): the IP counts
    assert seen.confirmed() == ["6.0.0.3"] and seen.seen_by(5) == "6.0.0.3"
    assert seen.forget(5) and seen.confirmed() == []
    assert observer_group("2001:db8:aa:bb01::1") == observer_group("2001:db8:aa:bbff::2")  # one /56


def test_candidate_addresses_pair_foreign_ips_with_listen_ports() -> None:
    listen = ["/ip4/192.168.1.10/tcp/4001", "/ip4/127.0.0.1/tcp/4001", "/ip6/::1/tcp/4002"]
    assert candidate_addrs(["6.0.0.3", "192.168.1.10"], listen, {"192.168.1.10"}) == ["/ip4/6.0.0.3/tcp/4001"]


# --------------------------------------------------------------------------- reachability verdicts


def test_reachability_needs_several_agreeing_servers() -> None:
    tracker = ReachabilityTracker(confirmations=3)
    assert not tracker.record("a", False, 0.0, known_servers=5)
    assert not tracker.record("b", False, 1.0, known_servers=5)
    assert not tracker.record("b", False, 2.0, known_servers=5)  # the same server twice counts once
    assert tracker.record("c", False, 3.0, known_servers=5) and tracker.status == "private"
    assert not tracker.record("d", True, 4.0, known_servers=5)  # one success: not yet public
    tracker.record("e", True, 5.0, known_servers=5)
    assert tracker.record("f", True, 6.0, known_servers=5) and tracker.status == "public"


def test_reachability_with_fewer_servers_than_confirmations_and_after_an_address_change() -> None:
    tracker = ReachabilityTracker(confirmations=3)
    assert tracker.record("boot", False, 0.0, known_servers=1) and tracker.status == "private"
    tracker.addresses_changed()
    assert tracker.status == "private" and not tracker.verdicts  # kept until new verdicts overturn it
    assert tracker.record("boot", True, 10.0, known_servers=1) and tracker.status == "public"
    assert not tracker.decide(10.0 + tracker.max_age + 1, 1)  # stale verdicts change nothing


def test_forced_reachability_ignores_verdicts_and_no_address_means_private() -> None:
    forced = ReachabilityTracker(mode="private")
    assert forced.status == "private" and not forced.record("a", True, 0.0, 1)
    assert ReachabilityTracker(mode="public").status == "public"
    auto = ReachabilityTracker()
    assert auto.no_direct_address(0.0) and auto.status == "private"


# --------------------------------------------------------------------------- the relay's ledger


def test_reservations_are_limited_per_ip_and_in_total_and_refreshing_keeps_a_slot() -> None:
    ledger = RelayLedger(HopLimits(max_reservations=3, max_reservations_per_ip=2, reservation_ttl=60))
    first = ledger.reserve("a", "1.1.1.1", 0.0)
    ledger.reserve("b", "1.1.1.1", 0.0)
    with pytest.raises(Refused) as per_ip:
        ledger.reserve("c", "1.1.1.1", 0.0)  # identities are free: the IP is the limit
    assert per_ip.value.status == RESERVATION_REFUSED
    assert ledger.reserve("a", "1.1.1.1", 10.0) == first + 10  # a refresh, not a new slot
    ledger.reserve("c", "2.2.2.2", 0.0)
    with pytest.raises(Refused):
        ledger.reserve("d", "3.3.3.3", 0.0)  # total
    ledger.expire(61.0)
    assert set(ledger.reservations) == {"a"}  # b and c expired, a was refreshed
    assert ledger.snapshot(61.0)["refusals"] == {"reservations_per_ip": 1, "reservations": 1}


def test_circuits_are_limited_per_target_per_source_ip_and_in_total() -> None:
    ledger = RelayLedger(HopLimits(max_circuits=4, max_circuits_per_peer=2, max_circuits_per_ip=2))
    with pytest.raises(Refused) as unreserved:
        ledger.open_circuit("s", "9.9.9.9", "t", 0.0)
    assert unreserved.value.status == NO_RESERVATION
    for target, ip in (("t", "5.5.5.5"), ("u", "5.5.5.6"), ("v", "5.5.5.7")):
        ledger.reserve(target, ip, 0.0)
    first = ledger.open_circuit("s1", "9.9.9.1", "t", 0.0)
    ledger.open_circuit("s2", "9.9.9.2", "t", 0.0)
    with pytest.raises(Refused) as per_peer:
        ledger.open_circuit("s3", "9.9.9.3", "t", 0.0)
    assert per_peer.value.status == RESOURCE_LIMIT_EXCEEDED
    ledger.open_circuit("s1b", "9.9.9.1", "u", 0.0)
    with pytest.raises(Refused):
        ledger.open_circuit("s1c", "9.9.9.1", "u", 0.0)  # 9.9.9.1 holds 2 already, whatever the identity
    ledger.open_circuit("s4", "9.9.9.4", "u", 0.0)
    with pytest.raises(Refused):
        ledger.open_circuit("s5", "9.9.9.5", "v", 0.0)  # 4 circuits: the relay's total
    ledger.close_circuit(first, "bytes")
    ledger.open_circuit("s5", "9.9.9.5", "v", 0.0)  # a freed slot is used again
    snap = ledger.snapshot(0.0)
    assert snap["circuits"] == 4 and snap["circuits_opened"] == 5 and snap["circuits_cut"] == {"bytes": 1}
    assert snap["refusals"] == {
        "no_reservation": 1,
        "circuits_per_peer": 1,
        "circuits_per_ip": 1,
        "circuits": 1,
    }


def test_the_total_rate_is_a_token_bucket() -> None:
    ledger = RelayLedger(HopLimits(max_rate=1000))
    assert ledger.grant_bytes(600, 0.0) == (600, 0.0)
    granted, wait = ledger.grant_bytes(600, 0.0)
    assert granted == 400 and wait == pytest.approx(0.2)
    assert ledger.grant_bytes(500, 0.5)[0] == 500  # refilled at 1000 bytes/s
    assert RelayLedger(HopLimits(max_rate=0)).grant_bytes(10**9, 0.0) == (10**9, 0.0)


# --------------------------------------------------------------------------- bootstrap sources


def test_bootstrap_addresses_from_config_file_and_environment(tmp_path: Path) -> None:
    a, b, c = (f"/ip4/6.0.0.{i}/tcp/4001/p2p/{Identity.generate().peer_id}" for i in (1, 2, 3))
    (tmp_path / "boot.txt").write_text(
        f"# our bootstrap nodes\n{b}   # the second\n\n{a}\n", encoding="utf-8"
    )
    config = NodeConfig(home=tmp_path, bootstrap=(a,), bootstrap_file="boot.txt")
    assert resolve_bootstrap(config, {"IOA_BOOTSTRAP": f"{c}, {b}"}) == (a, b, c)
    assert resolve_bootstrap(NodeConfig(home=tmp_path), {}) == ()
    with pytest.raises(ConfigError, match="bootstrap_file"):
        read_bootstrap_file(tmp_path / "missing.txt")


def test_no_reachable_bootstrap_is_said_once_clearly(caplog: pytest.LogCaptureFixture) -> None:
    state = BootstrapState(["/a", "/b"])
    with caplog.at_level(logging.INFO, logger="ioa_p2p.routing"):
        state.failed("/a", "connection refused", 0.5)
        assert "no bootstrap peer is reachable" not in caplog.text  # /b not tried yet
        state.failed("/b", "no answer within 10 s", 0.5)
        state.failed("/a", "connection refused", 1.0)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "/a: connection refused; /b: no answer" in warnings[0].getMessage()
    state.connected("/a", 5.0)
    assert state.joined and state.view()[0]["connected"] and not state.view()[1]["connected"]


def test_a_node_stated_private_never_offers_the_dht() -> None:
    """Client mode from construction: not even the first moments before the reachability task runs
    (peers would put it in their routing tables and hand out its LAN address)."""
    from ioa_p2p.node.net.host import new_noise_host
    from ioa_p2p.node.net.kad import kad_protocol_in_use
    from ioa_p2p.node.net.routing import new_dht

    private, public = (new_noise_host(Identity.generate()) for _ in range(2))
    assert new_dht(private, client=True).mode.name == "CLIENT"
    assert new_dht(public).mode.name == "SERVER"
    assert kad_protocol_in_use() not in private.get_mux().handlers
    assert kad_protocol_in_use() in public.get_mux().handlers
