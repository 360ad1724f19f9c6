"""The reservation keeper of a pinned relay (:class:`ioa_p2p.node.relay.autorelay.Reservations`), on fakes
of the node's ports under trio's MockClock: a relay that went away is reserved on again as soon as the node
is connected to it again, and one that refuses is left alone for its backoff."""

from __future__ import annotations

import time

import trio
from trio.testing import MockClock

from ioa_p2p.errors import DialFailed, PeerRejected, PeerUnreachable
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.relay.autorelay import (
    COOLDOWN,
    COOLDOWN_MAX,
    KEEPER_POLL,
    PORT_CLOSED_REDIAL,
    Reservations,
    port_closed,
)


class FakeNode:
    """The node's side: a relay that is up or down, and whether we are connected to it."""

    def __init__(self, relay: PeerId) -> None:
        self.peer_id = Identity.generate().peer_id
        self.faults = Faults()
        self.relay = relay
        self.relay_up = True
        #: While the relay is down, its host refuses our dials (the dialer's DialFailed, as when the relay
        #: process restarts) rather than not answering them.
        self.port_closed = False
        self.connected: set[PeerId] = set()
        self.dials = 0

    async def connect(self, addr: str) -> PeerId:
        self.dials += 1
        if not self.relay_up and self.port_closed:
            raise DialFailed(f"cannot reach {addr}", (("/ip4/127.0.0.1/tcp/4001", "connection refused"),))
        if not self.relay_up:
            raise PeerUnreachable(f"{addr}: no answer within 10.0 s")
        self.connected.add(self.relay)
        return self.relay

    async def connect_peer(self, peer: PeerId) -> None:
        await self.connect(f"/p2p/{peer}")

    def is_connected(self, peer: PeerId) -> bool:
        return peer in self.connected

    def peer_addrs(self, peer: PeerId) -> list[str]:
        return []


class FakeRelayNet:
    """The relay's answers to RESERVE: granted (600 s) or refused."""

    def __init__(self, node: FakeNode) -> None:
        self.node = node
        self.refuse = False
        #: RESERVEs still to fail as a relay that accepts connections but serves no HOP yet (it is starting)
        self.not_serving = 0
        self.asked = 0
        self.circuit_addrs: list[str] = []

    async def reserve(self, relay: PeerId, seconds: float) -> tuple[int, tuple[str, ...]]:
        self.asked += 1
        if not self.node.is_connected(relay):
            raise PeerUnreachable(f"not connected to {relay}")
        if self.not_serving > 0:
            self.not_serving -= 1
            raise PeerUnreachable(f"cannot ask {relay} for a relay reservation: protocol not supported")
        if self.refuse:
            raise PeerRejected("RESERVATION_REFUSED")
        return int(time.time()) + 600, (f"/ip4/127.0.0.1/tcp/4001/p2p/{relay}",)

    def set_circuit_addrs(self, addrs: list[str]) -> None:
        self.circuit_addrs = addrs

    def relay_candidates(self) -> list[PeerId]:
        return []


def keeper() -> tuple[Reservations, FakeNode, FakeRelayNet, str]:
    relay = Identity.generate().peer_id
    node = FakeNode(relay)
    net = FakeRelayNet(node)
    reservations = Reservations(
        node,  # type: ignore[arg-type]
        net,  # type: ignore[arg-type]
        wanted=0,
        bootstrap=(),
        is_private=lambda: False,
    )
    return reservations, node, net, f"/ip4/127.0.0.1/tcp/4001/p2p/{relay}"


async def test_a_pinned_relay_that_comes_back_is_reserved_on_once_connected(
    autojump_clock: MockClock,
) -> None:
    reservations, node, net, addr = keeper()
    relay = node.relay
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(1)
        assert relay in reservations.held and net.circuit_addrs

        # The relay goes away (restarted on a loaded machine: 40 s): the keeper backs off, 1 s doubling.
        node.relay_up = False
        node.connected.discard(relay)
        await trio.sleep(40)
        assert relay not in reservations.held and not net.circuit_addrs
        assert 3 <= node.dials <= 8  # backed off (1, 2, 4, 8, 16 s ...), not dialled every poll

        # It is back, and the node's bootstrap keeper connects to it again: the reservation follows at the
        # keeper's next poll (before: at the end of the backoff grown meanwhile, here 32 s, up to 60 s).
        node.relay_up = True
        node.connected.add(relay)
        await trio.sleep(2 * KEEPER_POLL)
        assert relay in reservations.held and net.circuit_addrs
        nursery.cancel_scope.cancel()


async def test_a_pinned_relay_that_refuses_while_connected_is_left_alone_for_its_backoff(
    autojump_clock: MockClock,
) -> None:
    reservations, node, net, addr = keeper()
    relay = node.relay
    net.refuse = True
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(60)
        assert node.is_connected(relay) and relay not in reservations.held
        assert 4 <= net.asked <= 7  # at 0, 1, 3, 7, 15, 31 s: the backoff, not once per poll
        assert COOLDOWN_MAX >= 60
        nursery.cancel_scope.cancel()


async def test_a_restarted_relay_that_is_not_serving_yet_is_asked_again_within_seconds(
    autojump_clock: MockClock,
) -> None:
    """The flaky testnet test's cause: a restarted relay accepts connections before its HOP service is up.
    The first RESERVE after the reconnection fails while connected; the retry must not wait the backoff
    the dial failures grew while the relay was down (here 32 s): the new connection starts it over."""
    reservations, node, net, addr = keeper()
    relay = node.relay
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(1)
        assert relay in reservations.held
        node.relay_up = False
        node.connected.discard(relay)
        await trio.sleep(40)
        assert relay not in reservations.held
        # back: the bootstrap keeper connects at once, the relay's HOP service answers a second later
        node.relay_up = True
        node.connected.add(relay)
        net.not_serving = 1
        back = trio.current_time()
        await reservations.wait_change()  # released (already) or the reservation
        while relay not in reservations.held:
            await reservations.wait_change()
        assert trio.current_time() - back <= 2 * KEEPER_POLL + COOLDOWN
        nursery.cancel_scope.cancel()


async def test_a_refusal_while_connected_backs_off_again_after_a_reconnection(
    autojump_clock: MockClock,
) -> None:
    """Refusals on one connection double the wait (1, 2, 4 ... s); a new connection to the relay (it
    restarted) starts the wait over, whatever the refusals before it grew it to."""
    reservations, node, net, addr = keeper()
    relay = node.relay
    net.refuse = True
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(50)  # refused at 0, 1, 3, 7, 15, 31 s; the next ask would be at 63 s
        assert net.asked == 6
        node.relay_up = False  # it restarts (the keeper sees that at its next poll), then grants
        node.connected.discard(relay)
        await trio.sleep(2.5 * KEEPER_POLL)
        net.refuse = False
        node.relay_up = True
        node.connected.add(relay)
        await trio.sleep(2 * KEEPER_POLL + COOLDOWN)
        assert relay in reservations.held
        nursery.cancel_scope.cancel()


async def test_a_pinned_relay_gets_no_automatic_keeper_of_its_own() -> None:
    """A relay held pinned is no candidate for an automatic reservation (two keepers on one relay would
    release each other's reservation)."""
    relay = Identity.generate().peer_id
    node = FakeNode(relay)
    boot = f"/ip4/127.0.0.1/tcp/4001/p2p/{relay}"
    reservations = Reservations(
        node,  # type: ignore[arg-type]
        FakeRelayNet(node),  # type: ignore[arg-type]
        wanted=2,
        bootstrap=(boot,),
        is_private=lambda: True,
    )
    assert [p for p, _ in reservations.candidates()] == [relay]
    reservations.pin(relay)
    assert reservations.candidates() == []


async def test_a_pinned_relay_restarting_for_long_is_reserved_on_within_seconds_of_listening(
    autojump_clock: MockClock,
) -> None:
    """The flaky testnet test, second cause: the relay restarts for 33 s (a loaded machine) and nothing
    else connects to it when it is back (the bootstrap keeper's jittered backoff is up to 120 s once the
    node knows other peers). Its host refused every dial meanwhile: the keeper redials within
    PORT_CLOSED_REDIAL of it listening again (before: dials at 1, 3, 7, 15, 31, 63 s, 30 s after it)."""
    reservations, node, net, addr = keeper()
    relay = node.relay
    node.port_closed = True
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(1)
        assert relay in reservations.held
        node.relay_up = False
        node.connected.discard(relay)
        await trio.sleep(33)
        assert relay not in reservations.held
        assert node.dials <= 1 + 33 / PORT_CLOSED_REDIAL + 3  # a few seconds apart, not every poll
        node.relay_up = True
        back = trio.current_time()
        while relay not in reservations.held:
            await reservations.wait_change()
        assert trio.current_time() - back <= PORT_CLOSED_REDIAL + KEEPER_POLL
        nursery.cancel_scope.cancel()


async def test_a_relay_that_does_not_answer_is_dialled_with_the_doubling_backoff(
    autojump_clock: MockClock,
) -> None:
    """Dials that time out (the host is down or unreachable) keep backing off to COOLDOWN_MAX."""
    reservations, node, _net, addr = keeper()
    relay = node.relay
    node.relay_up = False
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: reservations.keep(relay, addr, pinned=True))
        await trio.sleep(100)
        assert node.dials <= 8  # at 0, 1, 3, 7, 15, 31, 63 s
        nursery.cancel_scope.cancel()


def test_only_a_dial_refused_at_every_address_says_the_port_is_closed() -> None:
    refused = "connection refused"
    assert port_closed(DialFailed("x", (("/ip4/127.0.0.1/tcp/1", refused), ("/ip6/::1/tcp/1", refused))))
    assert not port_closed(
        DialFailed(
            "x", (("/ip4/127.0.0.1/tcp/1", refused), ("/ip4/10.0.0.2/tcp/1", "no answer within 5.0 s"))
        )
    )
    assert not port_closed(DialFailed("x"))
    assert not port_closed(PeerUnreachable("connection refused"))
