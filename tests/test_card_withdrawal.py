"""Card withdrawals (signed tombstones): the record, selection against cards, the directory, the DHT
validator, gossip checks (pure); and on the in-memory network under MockClock, that no node returns a
withdrawn or replaced card after ``revalidate + find_timeout``, including a node that missed the news."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.card import (
    MAX_TTL_MS,
    SignedWithdrawal,
    issue_card,
    issue_withdrawal,
    newest_record,
    parse_record,
)
from ioa_p2p.dht.directory import Directory, GapWatch, Offer
from ioa_p2p.dht.validators import CardValidator, card_key, check_announcement
from ioa_p2p.errors import AuthorMismatch, ExpiredCard, InvalidCard, ReplayedCard
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import loops
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork
from ioa_p2p.wire.envelope import Envelope

from .test_discovery_memnet import discovery_of, names, open_agents, wait_cards

NOW = 1_800_000_000_000


def card(identity: Identity, version: int, description: str = "plots charts"):  # type: ignore[no-untyped-def]
    return issue_card(
        identity,
        name="plotter",
        description=description,
        model="m",
        vector=[1.0, 0.0],
        version=version,
        now_ms=NOW,
    )


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def test_a_withdrawal_is_signed_by_its_peer_and_outlives_every_earlier_card() -> None:
    me = Identity.generate()
    withdrawal = issue_withdrawal(me, version=7, now_ms=NOW, reason="retired")
    parsed = parse_record(withdrawal.encoded, now_ms=NOW + 1, peer=me.peer_id)
    assert isinstance(parsed, SignedWithdrawal) and parsed.summary()["reason"] == "retired"
    assert parsed.expires_at - NOW >= MAX_TTL_MS
    forged = Envelope.create(Identity.generate(), withdrawal.withdrawal, seq=7, ts=NOW).to_cbor()
    with pytest.raises(AuthorMismatch):
        parse_record(forged, now_ms=NOW + 1)
    with pytest.raises(ExpiredCard):
        parse_record(withdrawal.encoded, now_ms=withdrawal.expires_at)
    with pytest.raises(InvalidCard):
        parse_record(withdrawal.encoded, now_ms=NOW, peer=Identity.generate().peer_id)


def test_the_newest_version_wins_between_cards_and_withdrawals() -> None:
    me = Identity.generate()
    old, gone, back = card(me, 1), issue_withdrawal(me, version=2, now_ms=NOW), card(me, 3)
    assert newest_record([old, gone]) == 1
    assert newest_record([gone, back, old]) == 1
    validator = CardValidator(lambda: NOW + 1)
    key = card_key(me.peer_id)
    validator.validate(key, gone.encoded)
    assert validator.select(key, [old.encoded, gone.encoded]) == 1
    assert validator.select(key, [gone.encoded, b"junk"]) == 0


def test_the_directory_forgets_a_withdrawn_card_and_refuses_it_again() -> None:
    me = Identity.generate()
    directory = Directory("m", 2)
    assert directory.offer(card(me, 1), NOW, "gossip") is Offer.ADDED
    assert directory.withdraw(issue_withdrawal(me, version=2, now_ms=NOW), NOW) is Offer.WITHDRAWN
    assert directory.get(me.peer_id) is None and directory.withdrawn(me.peer_id, NOW) == NOW
    assert directory.offer(card(me, 1), NOW, "dht") is Offer.WITHDRAWN  # a replay of the old card
    assert directory.version_of(me.peer_id) == 2
    assert directory.offer(card(me, 3), NOW, "gossip") is Offer.ADDED  # the agent came back
    assert directory.withdrawn(me.peer_id, NOW) is None
    assert directory.withdraw(issue_withdrawal(me, version=2, now_ms=NOW), NOW) is Offer.STALE


def test_unconfirmed_entries_are_listed_then_dropped() -> None:
    directory = Directory("m", 2)
    a, b = Identity.generate(), Identity.generate()
    directory.offer(card(a, 1), NOW, "gossip")
    directory.offer(card(b, 1), NOW + 5_000, "dht")
    assert directory.unconfirmed(3_000, NOW + 6_000) == [a.peer_id]
    directory.touch(a.peer_id, NOW + 6_000)
    assert directory.unconfirmed(3_000, NOW + 8_500) == [b.peer_id]
    assert directory.drop_unconfirmed(3_000, NOW + 8_500) == [b.peer_id] and b.peer_id not in directory


def test_a_gap_is_the_wall_clock_running_ahead_of_the_monotonic_one() -> None:
    watch = GapWatch(gap_s=30.0)
    assert not watch.back(NOW, 100.0)  # a first reading
    assert not watch.back(NOW + 5_000, 105.0)  # both ran 5 s
    assert not watch.back(NOW + 40_000, 115.0)  # 25 s ahead: a slow clock step, not a gap
    assert watch.back(NOW + 200_000, 120.0)  # 155 s ahead: asleep
    assert not watch.back(NOW + 205_000, 125.0)


def test_a_node_back_from_a_gap_returns_no_card_it_held_until_confirmed_again() -> None:
    directory = Directory("m", 2, stale_after_ms=60_000)
    a, b, me = Identity.generate(), Identity.generate(), Identity.generate()
    directory.offer(card(a, 1), NOW, "gossip")
    directory.offer(card(b, 1), NOW + 1_000, "dht")
    directory.offer(card(me, 1), NOW, "self")
    back = NOW + 20_000  # within stale_after_ms: without the gap rule both would be returned
    directory.rejoined(back)
    assert {c.peer_id for c in directory.cards(back)} == {me.peer_id}  # our own card is no suspect
    assert directory.suspects() == [a.peer_id, b.peer_id]  # oldest first, to confirm at once
    assert directory.unconfirmed(30_000, back) == []  # not yet due by age...
    assert directory.drop_unconfirmed(30_000, back) == []  # ... and not dropped for being suspects
    directory.touch(b.peer_id, back + 500)  # confirmed again (its owner answered)
    assert {c.peer_id for c in directory.cards(back + 500)} == {me.peer_id, b.peer_id}
    assert directory.suspects() == [a.peer_id]
    assert directory.offer(card(a, 2), back + 600, "gossip") is Offer.UPDATED  # a new version: confirmed
    assert directory.suspects() == [] and len(directory.cards(back + 600)) == 3


async def test_a_node_that_slept_through_a_withdrawal_stops_returning_the_card_at_once(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """A node whose wall clock jumped (it was asleep) while a card was withdrawn holds every card as a
    suspect: no read returns the withdrawn card from its next revalidation pass on, long before the card's
    own revalidation would have come (revalidate 360 s)."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    timing = {"ttl": 1800.0, "republish": 300.0, "revalidate": 360.0}
    async with open_agents(net, cards, tmp_path, ["plotter", "weather", "translator"], timing) as agents:
        await wait_cards(agents, 3)
        plotter, plotter_id = discovery_of(agents[0]), agents[0][0].peer_id
        sleeper = discovery_of(agents[2])
        net.partition(agents[2][0].peer_id)
        await plotter.withdraw("retired")
        await trio.sleep(2)
        net.heal(agents[2][0].peer_id)
        net.epoch += 120.0  # the sleeper's wall clock moved on while its loops did not run
        asleep_for = trio.current_time()
        assert sleeper.directory.get(plotter_id) is not None  # it holds the old card
        # its first read after the gap notices it (the clocks disagree) and skips the card
        assert "plotter" not in names(await sleeper.find(PLOT, k=4, use_dht=False))
        await trio.sleep(2 * loops.REVALIDATE_INTERVAL)
        now = sleeper.now_ms()
        assert plotter_id not in {c.peer_id for c in sleeper.directory.cards(now)}
        while sleeper.directory.get(plotter_id) is not None:  # noqa: ASYNC110
            await trio.sleep(1)
        assert trio.current_time() - asleep_for < 60  # the fetch found the withdrawal, not the age rule


def test_gossip_accepts_a_withdrawal_only_from_its_peer_and_not_a_replayed_older_card() -> None:
    me = Identity.generate()
    gone = issue_withdrawal(me, version=5, now_ms=NOW)
    assert (
        check_announcement(gone.encoded, publisher=me.peer_id, known_version=4, now_ms=NOW + 1).version == 5
    )
    with pytest.raises(AuthorMismatch):
        check_announcement(
            gone.encoded, publisher=Identity.generate().peer_id, known_version=None, now_ms=NOW
        )
    with pytest.raises(ReplayedCard):
        check_announcement(card(me, 4).encoded, publisher=me.peer_id, known_version=5, now_ms=NOW + 1)


# --------------------------------------------------------------------------- on the in-memory network

PLOT = "draw plots and charts of data with python"


async def test_a_withdrawn_card_is_returned_by_no_node_within_the_bound(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    timing = {"ttl": 900.0, "republish": 300.0, "revalidate": 360.0}  # open_agents allows 600 virtual s
    four = ["plotter", "weather", "translator", "calculator"]
    async with open_agents(net, cards, tmp_path, four, timing) as agents:
        await wait_cards(agents, 4)
        plotter, plotter_id = discovery_of(agents[0]), agents[0][0].peer_id
        late = agents[3]  # misses the withdrawal's gossip: cut off while it happens
        net.partition(late[0].peer_id)
        withdrawn_at = trio.current_time()
        withdrawal = await plotter.withdraw("retired")
        await trio.sleep(2)  # the publishing loop puts the withdrawal into the DHT
        net.heal(late[0].peer_id)
        for agent in agents[1:3]:  # gossip reached them at once
            assert "plotter" not in names(await discovery_of(agent).find(PLOT, k=4, use_dht=False))
        for agent in agents[1:3]:
            stored = cards.net_of(agent[0]).values[card_key(plotter_id)]
            assert stored == withdrawal.encoded  # the DHT record is the withdrawal
        observer = discovery_of(late)
        assert observer.directory.get(plotter_id) is not None  # it still holds the old card
        settings = observer.settings
        bound = settings.revalidate + settings.find_timeout
        while observer.directory.get(plotter_id) is not None:  # noqa: ASYNC110
            await trio.sleep(1)
        assert trio.current_time() - withdrawn_at <= bound + 10
        assert observer.stats["revalidated"] >= 1
        for agent in agents[1:]:
            assert "plotter" not in names(await discovery_of(agent).find(PLOT, k=4))
        # The old card, replayed to a node by a third party, is refused now.
        old = plotter.card
        assert old is not None
        assert (
            discovery_of(agents[1]).directory.offer(old, discovery_of(agents[1]).now_ms(), "dht")
            is Offer.WITHDRAWN
        )
        # New agent settings bring the card back, everywhere.
        await plotter.set_agent(plotter.agent)
        await trio.sleep(3)
        for agent in agents[1:]:
            assert "plotter" in names(await discovery_of(agent).find(PLOT, k=4))


async def test_a_replaced_card_reaches_a_node_that_missed_it_within_the_bound(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    timing = {"ttl": 1800.0, "republish": 600.0, "revalidate": 300.0}
    async with open_agents(
        net, MemoryCards(net), tmp_path, ["plotter", "weather", "translator"], timing
    ) as agents:
        await wait_cards(agents, 3)
        plotter, plotter_id = discovery_of(agents[0]), agents[0][0].peer_id
        late = discovery_of(agents[2])
        net.partition(agents[2][0].peer_id)
        replaced_at = trio.current_time()
        new = await plotter.set_agent(
            plotter.agent.with_changes({"description": "translates poems"}, plotter_id)
        )
        await trio.sleep(2)
        net.heal(agents[2][0].peer_id)
        assert late.directory.version_of(plotter_id) != new.version
        while late.directory.version_of(plotter_id) != new.version:  # noqa: ASYNC110
            await trio.sleep(1)
        assert trio.current_time() - replaced_at <= 300 + late.settings.find_timeout + 10


async def test_a_card_only_the_dht_still_holds_is_dropped_within_the_bound(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """A storing peer that missed a withdrawal keeps serving the old card: a copy found only in the DHT
    must not confirm the card held, or a withdrawn card would live on past revalidate + find_timeout."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    timing = {"ttl": 1800.0, "republish": 300.0, "revalidate": 360.0}
    async with open_agents(net, cards, tmp_path, ["plotter", "weather", "translator"], timing) as agents:
        await wait_cards(agents, 3)
        plotter_id = agents[0][0].peer_id
        observer = discovery_of(agents[1])
        held = observer.directory.get(plotter_id)
        assert held is not None
        net.partition(plotter_id)  # the owner is gone (no new version, no answer); the DHT keeps its card
        gone_at = trio.current_time()
        assert card_key(plotter_id) in cards.net_of(agents[2][0]).values
        settings = observer.settings
        bound = settings.revalidate + settings.find_timeout
        while observer.directory.get(plotter_id) is not None:  # noqa: ASYNC110
            await trio.sleep(1)
            assert trio.current_time() - gone_at <= bound + 30, "the DHT's copy kept the card alive"
        assert observer.stats["revalidated"] >= 1 and observer.stats["dropped_unconfirmed"] >= 1


def test_simulated_nodes_back_from_a_gap_under_churn_return_no_withdrawn_card() -> None:
    """The simulator's revocation under 30 % churn (dht/sim/revocation.py): without the gap rule, nodes
    back from a short gap return the withdrawn card until its age says revalidate; with it, no online
    node's read returns it at any minute, and every holder that came back dropped it."""
    from ioa_p2p.dht.forest import forest_for
    from ioa_p2p.dht.settings import DiscoverySettings
    from ioa_p2p.dht.sim.cardflow import publish_cards
    from ioa_p2p.dht.sim.cards import CardSet
    from ioa_p2p.dht.sim.corpus import generated_agents
    from ioa_p2p.dht.sim.gossip import GossipLayer
    from ioa_p2p.dht.sim.revocation import revoke_everywhere
    from ioa_p2p.dht.sim.world import SimConfig, World
    from ioa_p2p.embedding import HashingEmbedder

    card_set = CardSet.build(generated_agents(60), HashingEmbedder(), seed=1, stamp_bits=8)
    settings = DiscoverySettings(min_stamp_bits=8)
    returning = {}
    for rejoin in (False, True):
        world = World(SimConfig(nodes=60, seed=9, churn=0.3, session=600.0), card_set)
        world.warm_start(random_peers=30)
        world.loop.run(until=20)
        world.start_churn()
        rng = random.Random(5)
        publish_cards(world, forest_for(card_set.model_id, card_set.dim), world.nodes, rng, window=10)
        layer = GossipLayer(world)
        layer.start()
        owners = rng.sample([n for n in world.nodes[1:] if n.online and n.card is not None], 2)
        run = revoke_everywhere(world, layer, settings, owners, rng, horizon=900, probes=6, rejoin=rejoin)
        returning[rejoin] = max(run.returning_online.values())
        if rejoin:
            assert len(run.dropped_at) == run.reachable  # every holder online at some moment dropped it
            assert all(share == 0.0 for share in run.probes_old.values())
    assert returning[False] > 0 and returning[True] == 0.0
