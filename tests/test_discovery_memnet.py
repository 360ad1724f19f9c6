"""Discovery on the in-memory transport fake under trio's ``MockClock(autojump_threshold=0)``: the real
discovery service over :mod:`ioa_p2p.testing.memcards` (per-node record stores checked by the validator
discovery registers, the card topic, partitions), with card issue, re-publishing and expiry on virtual
time (the matcher's models: tests/test_discovery_warm_memnet.py). The libp2p tests
(tests/test_discovery_net.py) stay as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.card import SignedCard, issue_card
from ioa_p2p.card.sketch import sketch_terms
from ioa_p2p.dht.pages import PAGE_PREFIX, read_page
from ioa_p2p.dht.validators import card_key
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.discovery.views import status as discovery_status
from ioa_p2p.node.net.gossip import GossipSettings
from ioa_p2p.node.services import NodeServices
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope

AGENTS = {
    "plotter": "draws plots and charts of data with python",
    "weather": "weather forecasts for any city",
    "translator": "translates text between languages",
    "calculator": "exact arithmetic: sums, products, percentages",
}

Agent = tuple[MemoryNode, NodeServices]


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


@asynccontextmanager
async def open_agents(
    net: MemoryNetwork,
    cards: MemoryCards,
    tmp_path: Path,
    names: list[str],
    discovery: dict[str, Any] | None = None,
    embedding: dict[str, dict[str, Any]] | None = None,
) -> AsyncIterator[list[Agent]]:
    with trio.fail_after(600):  # virtual seconds: a test that would wait forever fails at once instead
        async with AsyncExitStack() as stack:
            agents = await open_each(stack, net, cards, tmp_path, names, discovery or {}, embedding or {})
            yield agents


async def open_each(
    stack: AsyncExitStack,
    net: MemoryNetwork,
    cards: MemoryCards,
    tmp_path: Path,
    names: list[str],
    discovery: dict[str, Any],
    embedding: dict[str, dict[str, Any]],
) -> list[Agent]:
    agents = []
    for name in names:
        agent: dict[str, Any] = {"name": name, "description": AGENTS[name]}
        if name == "calculator":
            agent["adapter"] = "calculator"
        raw = {"agent": agent, "discovery": discovery, "embedding": embedding.get(name, {})}
        agents.append(await stack.enter_async_context(open_memory_agent(net, cards, tmp_path / name, raw)))
    return agents


def discovery_of(agent: Agent) -> Discovery:
    discovery = agent[1].discovery
    assert discovery is not None
    return discovery


def names(matches: list[Any]) -> list[str]:
    return [m.card.card.name for m in matches]


async def wait_cards(agents: list[Agent], count: int) -> None:
    with trio.fail_after(60):
        while any(len(discovery_of(a).directory) < count for a in agents):  # noqa: ASYNC110
            await trio.sleep(0.5)


async def test_cards_of_every_node_are_found_best_match_first(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    async with open_agents(net, MemoryCards(net), tmp_path, list(AGENTS)) as agents:
        await wait_cards(agents, len(AGENTS))
        for agent in agents:
            found = await discovery_of(agent).find("draw a chart of these numbers", k=4, use_dht=True)
            assert names(found)[0] == "plotter", names(found)
            assert len(found) == 4 and [m.score for m in found] == sorted(
                (m.score for m in found), reverse=True
            )
            weather = await discovery_of(agent).find("what is the weather forecast in Paris", k=2)
            assert names(weather)[0] == "weather"
        mine = await discovery_of(agents[0]).find("draw a chart", k=4, include_self=False)
        assert "plotter" not in names(mine) and len(mine) == 3


async def test_gossip_notes_when_each_identity_first_reached_the_node(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """The arrival book (dht/arrival.py) a page search takes its flood evidence from is fed by the card
    topic: every other agent's identity, once, at the time its first announcement came; never our own."""
    net = MemoryNetwork()
    async with open_agents(net, MemoryCards(net), tmp_path, list(AGENTS)) as agents:
        await wait_cards(agents, len(AGENTS))
        for agent in agents:
            search = discovery_of(agent).search
            others = {a[0].peer_id for a in agents} - {agent[0].peer_id}
            assert {p for p in others if search.arrivals.first_seen(p) is not None} == others
            assert search.arrivals.first_seen(agent[0].peer_id) is None
            first = {p: search.arrivals.first_seen(p) for p in others}
            assert all(t is not None and t <= search.now_ms() for t in first.values())
        await trio.sleep(120)  # re-announcements do not move a first arrival
        assert {p: search.arrivals.first_seen(p) for p in others} == first
        assert len(search.arrivals) == len(others)


async def test_without_gossip_cards_are_found_through_the_dht_buckets(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(net, cards, tmp_path, list(AGENTS), {"gossip": False}) as agents:
        await trio.sleep(15)  # every node stored its card and provided its LSH buckets
        seeker = discovery_of(agents[1])
        assert len(seeker.directory) == 1  # only its own card: nothing was announced
        found = await seeker.find("draw a plot of the data with python", k=2)
        assert names(found)[0] == "plotter"
        assert seeker.directory.get(agents[0][0].peer_id) is not None
        assert seeker.stats["dht_fetched"] >= 1
        # A partitioned node answers nothing: its card is not found where it was not already held.
        fresh = discovery_of(agents[3])
        net.partition(agents[0][0].peer_id)
        for other in agents[1:]:  # the plotter's card lives on the other nodes' stores too
            cards.net_of(other[0]).values.pop(card_key(agents[0][0].peer_id), None)
        cut = await fresh.find("draw a plot of the data with python", k=4)
        assert "plotter" not in names(cut)


async def test_a_dht_find_ranks_bucket_pages_and_fetches_only_the_best_cards(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """With ``[discovery] pages`` (the default) every node's signed sketch is merged into the bucket pages
    other nodes store; a DHT-only find ranks the sketches it lists and fetches only ``page_fetch`` cards.
    With pages off, the same find fetches every provider's card."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    settings = {"gossip": False, "page_fetch": 1}
    async with open_agents(net, cards, tmp_path, list(AGENTS), settings) as agents:
        await trio.sleep(15)
        stored = cards.net_of(agents[2][0]).values
        pages = {k: v for k, v in stored.items() if k.startswith(PAGE_PREFIX)}
        listed = {s.peer_id for v in pages.values() for s in read_page(v, discovery_of(agents[2]).now_ms())}
        assert listed == {a[0].peer_id for a in agents}  # each page put was merged, none replaced
        held = [s for v in pages.values() for s in read_page(v, discovery_of(agents[2]).now_ms())]
        assert all(sketch_terms(s) for s in held)  # version 2: the cards' term hashes ride along
        seeker = discovery_of(agents[1])
        assert len(seeker.directory) == 1
        assert names(await seeker.find("draw a plot of the data with python", k=1)) == ["plotter"]
        assert seeker.last_find["listing"] and seeker.last_find["pages"] >= 1
        assert seeker.last_find["providers"] == len(AGENTS) and seeker.last_find["fetched"] == 1
        assert seeker.stats["dht_fetched"] == 1 and seeker.stats["sketch_mismatch"] == 0
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(
        net, cards, tmp_path / "off", list(AGENTS), {"gossip": False, "pages": False}
    ) as agents:
        await trio.sleep(15)
        assert not any(k.startswith(PAGE_PREFIX) for k in cards.net_of(agents[2][0]).values)
        seeker = discovery_of(agents[1])
        assert names(await seeker.find("draw a plot of the data with python", k=1)) == ["plotter"]
        assert seeker.stats["dht_fetched"] == len(AGENTS) - 1


async def test_nodes_of_both_card_schemes_find_each_other_through_the_dht_buckets(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """A node whose card carries the matcher's 640-d vector (``[embedding] backend = "matcher"``) and nodes
    of the default wordllama scheme share one bucket family: each finds the other through the DHT alone."""
    net = MemoryNetwork()
    schemes = {name: {"backend": "wordllama"} for name in AGENTS} | {"plotter": {"backend": "matcher"}}
    async with open_agents(
        net, MemoryCards(net), tmp_path, list(AGENTS), {"gossip": False}, schemes
    ) as agents:
        await trio.sleep(15)  # every node stored its card and provided its LSH buckets
        plotter, weather = discovery_of(agents[0]), discovery_of(agents[1])
        assert plotter.embedder.dim == 640 and weather.embedder.dim == 256
        assert len(plotter.directory) == len(weather.directory) == 1  # nothing was announced
        assert names(await weather.find("draw a plot of the data with python", k=1)) == ["plotter"]
        assert names(await plotter.find("what is the weather forecast in Paris", k=1)) == ["weather"]
        assert weather.stats["dht_fetched"] >= 1 and plotter.stats["dht_fetched"] >= 1


async def test_cards_are_republished_and_expire_on_virtual_time(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    timing = {"ttl": 60.0, "republish": 20.0}
    async with open_agents(
        net, MemoryCards(net), tmp_path, ["plotter", "weather", "translator"], timing
    ) as agents:
        await wait_cards(agents, 3)
        observer, plotter = discovery_of(agents[1]), discovery_of(agents[0])
        plotter_id = agents[0][0].peer_id
        first = plotter.card
        assert first is not None
        await trio.sleep(21)  # one republish interval later: a new version, issued on the virtual clock
        second = plotter.card
        assert second is not None and second.version > first.version
        assert second.card.issued_at - first.card.issued_at == pytest.approx(20_000, abs=1_000)
        held = observer.directory.get(plotter_id, observer.now_ms())
        assert held is not None and held.version == second.version
        # The plotter is cut off: no new version reaches anyone, and its last card expires at its ttl.
        net.partition(plotter_id)
        cut_at = trio.current_time()
        while observer.directory.get(plotter_id, observer.now_ms()) is not None:  # noqa: ASYNC110
            await trio.sleep(1)
        gone_after = trio.current_time() - cut_at
        assert 60 - 21 - 1 <= gone_after <= 60 + 2
        assert "plotter" not in names(await observer.find("draw plots and charts", k=3))


def bad_cards(victim: Identity, genuine: SignedCard, attacker: Identity, now_ms: int) -> dict[str, bytes]:
    body = genuine.card
    forged = Envelope.create(attacker, body, seq=body.version + 5, ts=body.issued_at).to_cbor()
    tampered = canonical.decode(genuine.to_bytes())
    tampered["b"]["vector"] = bytes(reversed(tampered["b"]["vector"]))
    bumped = canonical.decode(genuine.to_bytes())
    bumped["b"]["version"] = bumped["seq"] = body.version + 1000

    def reissue(description: str, version: int, issued: int) -> bytes:
        card = issue_card(
            victim,
            name=body.name,
            description=description,
            model=body.model,
            vector=body.embedding(),
            version=version,
            now_ms=issued,
            ttl_ms=60_000,
            stamp_bits=16,  # stamped enough: refused for what the test is about, not for a weak stamp
        )
        return card.to_bytes()

    return {
        "forged": forged,
        "tampered": canonical.encode(tampered),
        "higher-version-bad-signature": canonical.encode(bumped),
        "expired": reissue("expired copy", body.version + 2000, now_ms - 120_000),
        "replayed-older-version": reissue("an older version", body.version - 1, now_ms),
    }


async def test_forged_and_invalid_card_records_are_refused_by_the_dht_and_the_topic(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with (
        open_agents(net, cards, tmp_path, ["plotter", "weather"]) as agents,
        net.open_node(tmp_path / "attacker") as attacker,
    ):
        await wait_cards(agents, 2)
        victim_agent, observer_agent = agents
        victim, observer = discovery_of(victim_agent), discovery_of(observer_agent)
        genuine = victim.card
        assert genuine is not None
        key = card_key(genuine.peer_id)
        observer_store = cards.net_of(observer_agent[0])
        assert observer_store.values[key] == genuine.to_bytes()
        attacker_net = cards.net_of(attacker)
        bad = bad_cards(victim_agent[0].identity, genuine, attacker.identity, observer.now_ms())
        gossip = observer.gossip
        assert gossip is not None
        async with attacker_net.open_topic(lambda p, d: True, lambda p, d: None, GossipSettings()) as topic:
            for label, value in bad.items():
                assert not await attacker_net.store_at(observer_agent[0].peer_id, key, value), label
                assert observer_store.values[key] == genuine.to_bytes(), label
                before = (gossip.rejected, gossip.received)
                await topic.announce(value)  # announced by the attacker: never its own card
                assert (gossip.rejected, gossip.received) == (before[0] + 1, before[1]), label
            # A genuine card announced by someone else is refused too (peers announce only their own).
            await topic.announce(genuine.to_bytes())
            assert gossip.rejected == before[0] + 2
            # The victim's own re-announcement of the same card passes the same validator.
            await victim.announce()
            assert gossip.received == before[1] + 1
        # The validator also refuses keys outside the card namespace, and a valid card under another key.
        own = cards.net_of(observer_agent[0])
        assert not await own.put_value("/ioa/other/x", genuine.to_bytes())
        assert not await own.put_value("/free/x", genuine.to_bytes())
        assert not await own.put_value(card_key(attacker.peer_id), genuine.to_bytes())
        held = observer.directory.get(genuine.peer_id, observer.now_ms())
        assert held is not None and held.to_bytes() == genuine.to_bytes()
        assert (await observer.fetch_card(genuine.peer_id)) == held


async def test_a_goal_finds_its_teammates_through_discovery(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    async with open_agents(net, MemoryCards(net), tmp_path, list(AGENTS)) as agents:
        await wait_cards(agents, len(AGENTS))
        with trio.fail_after(120):
            goals = agents[1][1].goals  # the weather agent launches an arithmetic goal
            assert goals is not None
            result = await goals.launch_goal(LaunchRequest("Calculate 6 * 7", timeout=60))
        out = result.to_json()
        assert out["answer"] == "The answer is 42.", out
        assert "calculator" in {m["name"] for m in out["team"]}
        assert [t["assignee_name"] for t in out["tasks"]] == ["calculator"]


async def test_past_keep_all_a_node_keeps_what_it_needs_and_finds_the_rest_in_the_dht(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with (
        open_agents(net, cards, tmp_path, ["weather", "translator", "calculator"]) as others,
        open_agents(net, cards, tmp_path / "small", ["plotter"], {"keep_all": 2}) as (small,),
    ):
        await wait_cards(others, 4)
        seeker = discovery_of(small)
        await trio.sleep(5)
        held = [e.source for e in seeker.directory]
        assert len(held) < 4 and seeker.directory.partial, held  # gossip filled it, no more
        assert discovery_status(seeker)["directory_partial"] is True
        for query, name in (("translate this letter", "translator"), ("what is 17 * 23", "calculator")):
            found = await seeker.find(query, k=1, include_self=False)
            assert names(found) == [name], (names(found), seeker.last_find)
            assert len(seeker.directory) == 2


async def test_the_census_fetches_a_card_gossip_never_brought_and_then_finds_skip_the_dht(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """The plotter publishes in the DHT only (gossip off): the others' gossip and catch-up never bring its
    card. Their census names it (its sketch is in a table-0 page), fetches it, and only then may a find
    rank the directory alone (dht/census.py)."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with (
        open_agents(net, cards, tmp_path, ["weather", "translator", "calculator"]) as others,
        open_agents(net, cards, tmp_path / "dark", ["plotter"], {"gossip": False}) as (dark,),
    ):
        plotter = dark[0].peer_id
        seeker = discovery_of(others[0])
        assert not seeker.directory_complete()  # no census yet: never complete on a count
        with trio.fail_after(300):
            while plotter not in seeker.directory or not seeker.directory_complete():  # noqa: ASYNC110
                await trio.sleep(1.0)
        census = seeker.census.last
        assert census is not None and plotter in census.named
        assert seeker.directory.entry(plotter) is not None
        found = await seeker.find("draw a chart of these numbers", k=1)
        assert names(found) == ["plotter"] and seeker.last_find.get("dht_skipped")


async def test_the_provided_keys_are_computed_once_per_card_and_levels(
    tmp_path: Path, autojump_clock: MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DHT publishing loop asks for the provided keys every second: they are the same object until the
    card (or the levels the network's size calls for) changes, so the cells are projected once per card."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(net, cards, tmp_path, ["plotter"], {"matcher": "lite"}) as agents:
        first = discovery_of(agents[0])
        await first.card_ready.wait()
        keys = first.provided_keys()
        assert keys and first.provided_keys() is keys
        await trio.sleep(30)  # the loop ran ~30 times meanwhile
        assert first.provided_keys() is keys
        monkeypatch.setattr(first.net, "network_size", lambda: 10_000.0)  # a finer level is due
        grown = first.provided_keys()
        assert grown is not keys and set(keys) < set(grown)
        monkeypatch.undo()
        await first.set_agent(dataclasses.replace(first.agent, description="Draws bar charts"))
        assert first.provided_keys() is not keys
