"""Per-source limits of gossip announcements key on what the node observed (issue 25): the connection an
announcement arrived on, not the network the card's own signed addresses name (a claim its publisher
chooses, so a flood of identities could name a different network each)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import trio

from ioa_p2p.card import issue_card
from ioa_p2p.dht.admission import SOURCE_SHARE, CardAdmission, observed_from, observed_source
from ioa_p2p.dht.arrival import ArrivalBook
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery.intake import GossipIntake
from ioa_p2p.node.net.sources import ArrivedVia, peer_origin, peer_source

NOW_MS = 1_700_000_000_000
MODEL = "test-model"


class _Directory:
    """What the intake reads of the directory: the version held of a publisher."""

    def __init__(self) -> None:
        self.held: dict[PeerId, int] = {}

    def version_of(self, peer: PeerId) -> int | None:
        return self.held.get(peer)


class _Search:
    """What the intake hands an admitted record to (the directory applies it)."""

    def __init__(self, directory: _Directory) -> None:
        self.directory = directory
        self.arrivals = ArrivalBook(NOW_MS)

    def apply(self, record, now: int, how: str, wanted: bool):  # type: ignore[no-untyped-def]
        self.directory.held[record.envelope.author] = record.version
        return SimpleNamespace(changed=True)


def _intake(new_cards: int) -> tuple[GossipIntake, _Directory, dict[str, int]]:
    directory = _Directory()
    stats = {"gossip_over_limit": 0, "gossip_accepted": 0, "gossip_held_back": 0}
    me = Identity(b"\xee" * 32).peer_id
    intake = GossipIntake(
        me, directory, _Search(directory), CardAdmission(new_cards=new_cards), 0, lambda: NOW_MS, stats
    )  # type: ignore[arg-type]
    return intake, directory, stats


def _card(i: int, *, version: int = NOW_MS) -> tuple[PeerId, bytes]:
    identity = Identity(bytes([i % 256, i // 256 + 1]) + b"\x07" * 30)
    card = issue_card(
        identity, name=f"a{i}", description="plots charts", model=MODEL, vector=np.ones(8), version=version,
        now_ms=NOW_MS, addrs=[f"/ip4/{11 + i % 200}.{i // 200}.7.9/tcp/4001"],  # a network of its own each
    )  # fmt: skip
    return identity.peer_id, card.encoded


def test_a_flood_naming_a_network_per_identity_is_limited_by_the_connection_it_came_on() -> None:
    intake, directory, stats = _intake(new_cards=120)
    share = int(120 * SOURCE_SHARE)
    cards = [_card(i) for i in range(100)]
    with observed_from("8.8.4.0/24"):  # all forwarded over one connection from one /24
        for publisher, data in cards:
            intake.deliver(publisher, data)
    assert len(directory.held) == share and stats["gossip_over_limit"] == 100 - share
    # unobserved (handed over inside the process), each card's claimed network stands in: all admitted
    claimed, claimed_dir, _ = _intake(new_cards=120)
    for publisher, data in cards:
        claimed.deliver(publisher, data)
    assert len(claimed_dir.held) == 100


def test_renewals_of_known_cards_are_not_charged_to_the_forwarders_new_identity_budget() -> None:
    intake, directory, stats = _intake(new_cards=120)
    share = int(120 * SOURCE_SHARE)
    first = [_card(i) for i in range(share)]
    with observed_from("8.8.4.0/24"):
        for publisher, data in first:
            intake.deliver(publisher, data)
        assert len(directory.held) == share
        renewed = [_card(i, version=NOW_MS + 1) for i in range(share)]
        for publisher, data in renewed:  # same forwarder, same minute: renewals still pass
            intake.deliver(publisher, data)
    assert all(directory.held[p] == NOW_MS + 1 for p, _ in renewed)
    assert stats["gossip_over_limit"] == 0
    with observed_from("9.9.9.0/24"):  # another forwarder's new identities have their own share
        publisher, data = _card(500)
        intake.deliver(publisher, data)
    assert publisher in directory.held
    assert observed_source() is None  # the observed source holds within a delivery only


def test_a_card_that_lapsed_here_comes_back_as_an_update_not_as_a_new_identity() -> None:
    """A card that expired from the directory before its next version arrived (late, on a loaded node)
    does not make its publisher a stranger again: the next version is charged to the publisher's update
    budget (30 an hour), not to the new identities' one card a minute each, which refused it for a minute
    (tests/test_discovery_net.py's expiry test, under load: the agent was never found again)."""
    intake, directory, stats = _intake(new_cards=120)
    publisher, data = _card(3)
    intake.deliver(publisher, data)
    assert directory.held[publisher] == NOW_MS
    del directory.held[publisher]  # lapsed: the directory holds nothing of it any more
    for later in range(1, 4):  # its next versions, within the same minute
        _, renewed = _card(3, version=NOW_MS + later)
        intake.deliver(publisher, renewed)
        assert directory.held[publisher] == NOW_MS + later
        del directory.held[publisher]
    assert stats["gossip_over_limit"] == 0


def test_arrived_via_is_bounded_and_taken_once() -> None:
    via = ArrivedVia(limit=3)
    for i in range(5):
        via.note(("p", i), f"10.0.{i}.0/24")
    assert via.take(("p", 0)) is None and via.take(("p", 1)) is None  # forgotten: oldest first
    assert via.take(("p", 4)) == "10.0.4.0/24" and via.take(("p", 4)) is None


def test_the_forwarders_source_is_its_connections_address_or_relay() -> None:
    def host(*conns: object) -> object:
        network = SimpleNamespace(get_connections=lambda peer: list(conns))
        return SimpleNamespace(get_network=lambda: network)

    def conn(addrs: list[str], remote: tuple[str, int] | None) -> object:
        muxed = SimpleNamespace(get_transport_addresses=lambda: addrs, get_remote_address=lambda: remote)
        return SimpleNamespace(muxed_conn=muxed)

    assert peer_source(host(conn(["/ip4/8.8.8.8/tcp/1"], ("8.8.8.8", 1))), "P") == "8.8.8.0/24"
    relayed = conn(["/ip4/8.8.8.8/tcp/1/p2p/QmRelay/p2p-circuit"], ("8.8.8.8", 1))
    assert peer_source(host(relayed), "P") == "relay:QmRelay"
    assert peer_source(host(conn([], ("2001:db8::1", 1))), "P") is None  # documentation range: not public
    assert peer_source(host(conn([], ("2a00:1450:4001:81c::200e", 1))), "P") == "2a00:1450:4001::/48"
    assert peer_source(host(), "P") is None  # not connected: no group


async def test_the_forwarders_origin_is_read_from_real_connections_to_several_loopback_addresses() -> None:
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.node.net.host import new_noise_host
    from tests.raw_hosts import run_raw_host

    me = new_noise_host(Identity.generate())
    two, three = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    async with (
        run_raw_host(me),
        run_raw_host(two, "/ip4/127.0.0.2/tcp/0"),
        run_raw_host(three, "/ip4/127.0.0.3/tcp/0"),
    ):
        with trio.fail_after(30):
            await me.connect(PeerInfo(two.get_id(), two.get_addrs()))
            await me.connect(PeerInfo(three.get_id(), three.get_addrs()))
        assert peer_origin(me, two.get_id()) == ("127.0.0.2", None)
        assert peer_origin(me, three.get_id()) == ("127.0.0.3", None)
        assert peer_source(me, two.get_id()) is None  # loopback forms no source group (a local testnet)
        assert peer_origin(me, new_noise_host(Identity.generate()).get_id()) == (None, None)  # not connected
