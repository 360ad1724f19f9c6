"""Past ``[discovery] relay_all`` (dht/relaycap.py, issue 25) on the in-memory network under trio's
MockClock: the real discovery service stops announcing and relaying renewals of unchanged cards, still
spreads changed cards and withdrawals, finds through the DHT, and keeps confirmed only the cards it needs.
Below the line nothing changes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.discovery import DiscoveryStatus
from ioa_p2p.node.discovery.views import status as discovery_status
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork
from tests.test_discovery_memnet import discovery_of, names, open_agents, wait_cards

#: Short lifetimes so that renewals and revalidations happen within minutes of virtual time.
FAST = {"ttl": 120, "republish": 30, "revalidate": 40}
EVERYONE = ["plotter", "weather", "translator", "calculator"]


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_past_relay_all_renewals_stay_off_gossip_and_what_is_new_still_spreads(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(net, cards, tmp_path, EVERYONE, {**FAST, "relay_all": 3}) as agents:
        await wait_cards(agents, 4)
        services = [discovery_of(a) for a in agents]
        owner, seeker = services[0], services[1]
        with trio.fail_after(30):
            while not all(s.relay_cap.capped for s in services):  # noqa: ASYNC110 - the loop observes it
                await trio.sleep(1)
        assert seeker.directory.partial  # finds ask the DHT
        topic = owner.gossip
        assert topic is not None
        published = topic.published  # type: ignore[attr-defined]
        await trio.sleep(35)  # past republish: every owner renewed its card
        assert owner.stats["renewals"] >= 1
        assert owner.stats["renewals_not_announced"] == owner.stats["renewals"]
        assert topic.published == published  # type: ignore[attr-defined]

        # an owner that announces a renewal all the same (a previous release): applied, not forwarded
        renewal = await owner.republish()
        assert renewal is not None
        not_relayed = seeker.stats["gossip_not_relayed"]  # the other nodes' re-announcements so far
        assert seeker.check_gossip(owner.node.peer_id, renewal.encoded) is False
        held = seeker.directory.get(owner.node.peer_id)
        assert held is not None and held.version == renewal.version
        assert seeker.stats["gossip_not_relayed"] == not_relayed + 1

        # changed content is announced and reaches every node; a withdrawal too
        await trio.sleep(1)  # (the flood guard refuses two versions of one publisher within 100 ms)
        changed = await owner.set_agent(dataclasses.replace(owner.agent, description="draws maps and charts"))
        for other in services[1:]:
            got = other.directory.get(owner.node.peer_id)
            assert got is not None and got.version == changed.version, other.stats
        assert topic.published == published + 1  # type: ignore[attr-defined]
        await trio.sleep(1)
        withdrawal = await owner.withdraw("leaving")
        assert all(s.directory.get(owner.node.peer_id) is None for s in services[1:])
        assert all(s.directory.version_of(owner.node.peer_id) == withdrawal.version for s in services[1:])

        # finds go to the DHT; the card a find used is confirmed by revalidation, the others lapse
        found = await seeker.find("translate this letter", k=1, include_self=False)
        assert names(found) == ["translator"] and not seeker.last_find.get("dht_skipped"), seeker.last_find
        translator = found[0].card.peer_id
        await trio.sleep(60)  # past revalidate (40 s): every card held came due
        assert seeker.stats["lapsed"] >= 1, seeker.stats
        held_now = {e.card.card.name for e in seeker.directory}
        assert "translator" in held_now and "calculator" not in held_now, held_now
        entry = seeker.directory.entry(translator)
        assert entry is not None and seeker.now_ms() - entry.learned_ms < 40_000  # confirmed by its fetch


async def test_below_relay_all_renewals_are_announced_and_relayed_as_before(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(net, cards, tmp_path, EVERYONE[:3], {**FAST, "relay_all": 100}) as agents:
        await wait_cards(agents, 3)
        owner, seeker = discovery_of(agents[0]), discovery_of(agents[1])
        await trio.sleep(35)
        assert owner.stats["renewals"] >= 1 and owner.stats["renewals_not_announced"] == 0
        assert not owner.relay_cap.capped
        renewal = await owner.republish()
        assert renewal is not None
        assert seeker.check_gossip(owner.node.peer_id, renewal.encoded) is True
        await trio.sleep(60)  # renewals by gossip keep every card confirmed: nothing lapses
        assert seeker.stats["lapsed"] == 0 and len(seeker.directory) == 3


async def test_the_status_says_whether_the_node_is_past_relay_all(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    async with open_agents(net, cards, tmp_path, EVERYONE[:2], {**FAST, "relay_all": 2}) as agents:
        await wait_cards(agents, 2)
        service = discovery_of(agents[0])
        await trio.sleep(6)  # one revalidation pass observed the size
        reply = DiscoveryStatus.from_json(discovery_status(service))
        assert reply.relay_capped and reply.directory_partial and reply.lapsed == 0
