"""Growth of the card topic in a formed network is pulled, not pushed (issue 26, l-idle9).

A node re-announced its card each time its topic peers grew by a quarter (``AnnouncePacer``), the gap
doubling up to ``republish``: at N = 101, 10 minutes after the start, every node still re-announced every
~4 minutes as its connections grew, and each re-announcement of a version every peer held was flooded to
the whole topic (~80 copies a minute at every node). Once a recent census named the node's own card and
its directory holds every card the census named, a newcomer gets the card by pulling it (its catch-up of
its gossip neighbours, its census of the DHT's pages), so growth no longer re-announces. Pure checks and
the real discovery service on the in-memory network under trio's MockClock."""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.census import CENSUS_MAX_AGE, Census, CensusPolicy, card_pulled
from ioa_p2p.dht.pacing import AnnouncePacer
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.discovery import census as node_census
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork

DESCRIPTIONS = {
    "weather": "weather forecasts for any city",
    "translator": "translates text between languages",
    "calculator": "exact arithmetic: sums, products, percentages",
    "plotter": "draws plots and charts of data with python",
    "summarizer": "summarizes long documents into short notes",
}


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def test_growth_is_due_only_while_newcomers_cannot_pull_the_card() -> None:
    pacer = AnnouncePacer(first=3.0, most=600.0)
    pacer.announced(4, 0.0)
    assert pacer.due(8, 10.0)  # the topic doubled and the gap passed
    assert not pacer.due(8, 10.0, pulled=True)  # a census named our card, the directory is complete
    assert not pacer.due(4, 10.0) and not pacer.due(8, 1.0)  # no growth; the gap not passed


def test_the_card_is_pulled_only_after_a_census_that_proves_something_named_it() -> None:
    peers = [Identity.generate().peer_id for _ in range(6)]
    named = frozenset(peers)
    every = lambda peer: True  # noqa: E731
    assert card_pulled(Census(named, 100.0, 7.0, named_self=True), now=200.0, held=every)
    assert not card_pulled(None, now=200.0, held=every)
    assert not card_pulled(Census(named, 100.0, 7.0), now=200.0, held=every)  # our page is not out
    old = Census(named, 100.0, 7.0, named_self=True)
    assert not card_pulled(old, now=100.0 + CENSUS_MAX_AGE + 1, held=every)  # proves nothing any more
    assert not card_pulled(Census(named, 100.0, 7.0, True, named_self=True), now=200.0, held=every)
    assert not card_pulled(Census(named, 100.0, 30.0, named_self=True), now=200.0, held=every)  # weak
    early = Census(named, 100.0, 7.0, named_self=True)  # taken while the network was 7 nodes
    assert not card_pulled(early, now=200.0, held=every, size=40.0)  # it grew: push again
    lacking = lambda peer: peer != peers[0]  # noqa: E731 - a named card not held yet
    assert not card_pulled(Census(named, 100.0, 7.0, named_self=True), now=200.0, held=lacking)
    gone = Census(named, 100.0, 7.0, unavailable=frozenset({peers[0]}), named_self=True)
    assert card_pulled(gone, now=200.0, held=lacking)  # no record to be had: not counted


async def test_an_adopted_census_says_whether_it_named_the_adopter(autojump_clock: MockClock) -> None:
    """The agents of a process adopt the census one of them took; it named the others (not its taker)."""
    me, other = Identity.generate().peer_id, Identity.generate().peer_id
    service = SimpleNamespace(
        node=SimpleNamespace(
            peer_id=me, faults=SimpleNamespace(boundary=lambda where: contextlib.nullcontext())
        ),
        settings=SimpleNamespace(find_timeout=10.0),
        census=CensusPolicy(),
        directory=SimpleNamespace(entry=lambda peer, now: object(), withdrawn=lambda peer, now: None),
        search=SimpleNamespace(lacks_record=lambda peer: False),
        now_ms=lambda: int(trio.current_time() * 1000),
    )
    await node_census._adopt(service, Census(frozenset({other}), 0.0, 3.0))  # type: ignore[arg-type]
    assert service.census.last is not None and not service.census.last.named_self
    await node_census._adopt(service, Census(frozenset({me, other}), 1.0, 3.0))  # type: ignore[arg-type]
    last = service.census.last
    assert last is not None and last.named_self and last.named == frozenset({other})


def _discovery(agent: tuple[object, object]) -> Discovery:
    discovery = agent[1].discovery  # type: ignore[attr-defined]
    assert isinstance(discovery, Discovery)
    return discovery


async def test_a_formed_network_does_not_reannounce_to_newcomers_who_still_get_every_card(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """Three agents form a network (each census names every card, its own included); two newcomers join,
    so each old agent's topic grows from 2 to 4 peers. The old agents do not re-announce (before: each
    did, once the pacer's gap passed), and the newcomers still hold every card (catch-up and census),
    the old agents theirs (their own first announcements)."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    with trio.fail_after(1800):
        async with contextlib.AsyncExitStack() as stack:

            async def agent(name: str) -> tuple[object, object]:
                raw = {"agent": {"name": name, "description": DESCRIPTIONS[name]}}
                return await stack.enter_async_context(open_memory_agent(net, cards, tmp_path / name, raw))

            old = [_discovery(await agent(n)) for n in ("weather", "translator", "calculator")]
            while not all(d.growth_pulled() for d in old):  # noqa: ASYNC110 - virtual time
                await trio.sleep(1.0)
            assert all(d.census.last is not None and d.census.last.named_self for d in old)
            await trio.sleep(700.0)  # past the first renewals (republish, 600 s)
            grown = [d.stats["announced_growth"] for d in old]
            published = [d.gossip.published for d in old]  # type: ignore[union-attr]
            new = [_discovery(await agent(n)) for n in ("plotter", "summarizer")]
            everyone = {d.node.peer_id for d in old + new}
            await trio.sleep(300.0)  # less than republish after the last wait: no renewal either
            assert [d.stats["announced_growth"] for d in old] == grown
            assert [d.gossip.published for d in old] == published  # type: ignore[union-attr]
            now = old[0].now_ms()
            for d in old + new:
                held = {p for p in everyone if d.directory.entry(p, now) is not None}
                assert held == everyone, (d.agent.name, len(held))
