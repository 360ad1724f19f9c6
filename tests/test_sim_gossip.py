"""The discovery simulator's gossip layer (ioa_p2p.dht.sim.gossip) runs the node's validator, directory
limits and pacing: reach, forgeries, withdrawals, ``keep_all``, heartbeat pace and announcement rate.

Virtual clock, fixed seeds, no sockets (as tests/test_sim.py).
"""

from __future__ import annotations

import random

import pytest

from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import generated_agents
from ioa_p2p.dht.sim.gossip import GossipConfig, GossipLayer
from ioa_p2p.dht.sim.gossipflow import announcement_rate, sample_announcements
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.node.net import gossip as node_gossip
from ioa_p2p.node.net import gossip_pacing


@pytest.fixture(scope="module")
def card_set() -> CardSet:
    return CardSet.build(generated_agents(160), HashingEmbedder(), seed=1, stamp_bits=8)


def test_gossip_reaches_every_node_through_the_nodes_validator_and_refuses_forgeries(
    card_set: CardSet,
) -> None:
    world = World(SimConfig(nodes=150, seed=5), card_set)
    world.warm_start(random_peers=40)
    world.loop.run(until=20)
    layer = GossipLayer(world)
    layer.start()
    world.loop.run(until=25)
    assert all(len(n.mesh) >= GossipConfig().degree_low for n in world.nodes)
    sample = sample_announcements(world, layer, 8, random.Random(3))
    assert sample.count == 8 and sample.reached == 1.0 and sample.applied == 1.0
    assert 0 < sample.reach95_p50 < 2.0  # a few mesh hops of 50-60 ms
    assert 1 < sample.per_node < GossipConfig().degree_high and sample.duplicates > 0
    # A card announced by another node (an author mismatch) is dropped by the first validator it meets.
    forger, victim = world.nodes[3], world.nodes[4]
    forged = layer.announce(forger, card_set.issue(victim.index, world.now_ms()))
    world.loop.run(until=world.loop.now + 5)
    assert forged.rejected > 0 and set(forged.reached) == {forger.index}
    # A withdrawal replaces the card in every directory the gossip reaches.
    owner = world.nodes[7]
    owner.card = card_set.issue(owner.index, world.now_ms())
    layer.announce(owner, owner.card)
    world.loop.run(until=world.loop.now + 5)
    withdrawal = card_set.withdraw(owner.index, world.now_ms(), owner.card.version + 1)
    layer.announce(owner, withdrawal)
    world.loop.run(until=world.loop.now + 5)
    holders = [d for i, d in layer.directories.items() if i != owner.index]
    assert len(holders) == 149
    assert all(d.get(owner.identity.peer_id) is None for d in holders)
    assert all(d.version_of(owner.identity.peer_id) == withdrawal.version for d in holders)


def test_past_keep_all_a_directory_keeps_no_gossip_card_but_the_node_still_relays_it(
    card_set: CardSet,
) -> None:
    """``[discovery] keep_all``, as the node's directory applies it: past it a gossip card (not asked for)
    is not kept; the validator still passes it, so it is forwarded and reaches every node."""
    assert GossipConfig().keep_all == DiscoverySettings().keep_all
    world = World(SimConfig(nodes=80, seed=5), card_set)
    world.warm_start(random_peers=30)
    world.loop.run(until=20)
    layer = GossipLayer(world, GossipConfig(keep_all=3))
    layer.start()
    world.loop.run(until=25)
    sample = sample_announcements(world, layer, 6, random.Random(3))
    assert sample.reached == 1.0 and sample.applied < 1.0 and layer.not_kept > 0
    assert max(len(d) for d in layer.directories.values()) <= 3


def test_the_gossip_parameters_are_the_nodes() -> None:
    node, sim = node_gossip.GossipSettings(), GossipConfig()
    assert (sim.heartbeat, sim.heartbeat_idle, sim.settle) == (
        node.heartbeat,
        node.heartbeat_idle,
        gossip_pacing.HEARTBEAT_SETTLE,
    )
    assert (sim.degree, sim.degree_low, sim.degree_high) == (node.degree, node.degree_low, node.degree_high)


def test_an_idle_topic_beats_at_the_idle_pace_and_a_message_brings_the_fast_one_back(
    card_set: CardSet,
) -> None:
    world = World(SimConfig(nodes=40, seed=5), card_set)
    world.warm_start(random_peers=20)
    world.loop.run(until=5)
    layer = GossipLayer(world)
    layer.start()
    world.loop.run(until=60)  # the mesh formed, nothing published for 30 s: idle
    node = world.nodes[3]
    assert layer._interval(node) == GossipConfig().heartbeat_idle
    owner = world.nodes[5]
    owner.card = card_set.issue(owner.index, world.now_ms())
    layer.announce(owner, owner.card)
    world.loop.run(until=world.loop.now + 3)
    assert layer._interval(node) == GossipConfig().heartbeat


def test_the_announce_pacer_sets_the_gossip_rate() -> None:
    world = World(SimConfig(nodes=120, seed=6))
    world.warm_start(random_peers=40)
    world.loop.run(until=10)
    first = announcement_rate(world, 60, republish=600, rng=random.Random(1))
    assert first > 0.9  # every node's first look re-announces: its pacer never announced (start-up)
    rate = announcement_rate(world, 1200, republish=600, rng=random.Random(1), burn_in=60)
    assert rate == pytest.approx(0.1, abs=0.01)  # then one new version per node every 10 minutes


def test_past_relay_all_a_renewal_stops_at_its_owners_mesh_and_new_content_still_reaches_everyone(
    card_set: CardSet,
) -> None:
    """``[discovery] relay_all`` (dht/relaycap.py) as the node's validator applies it: past it an unchanged
    renewal is applied by the owner's mesh peers and forwarded by none; a changed card and a withdrawal
    reach every node as before; below it a renewal floods as before."""
    assert GossipConfig().relay_all == DiscoverySettings().relay_all
    for relay_all, capped in ((80, True), (81, False)):
        world = World(SimConfig(nodes=80, seed=5), card_set)
        world.warm_start(random_peers=30)
        world.loop.run(until=20)
        layer = GossipLayer(world, GossipConfig(relay_all=relay_all))
        assert layer.capped is capped
        layer.start()
        world.loop.run(until=25)
        first = sample_announcements(world, layer, 4, random.Random(3))
        assert first.reached == 1.0 and first.applied == 1.0  # new to every node: forwarded everywhere
        renewed = sample_announcements(world, layer, 4, random.Random(3), origins=first.origins)
        changed = sample_announcements(world, layer, 4, random.Random(3), origins=first.origins, changed=True)
        assert changed.reached == 1.0 and changed.applied == 1.0
        if not capped:
            assert renewed.reached == 1.0 and layer.not_relayed == 0
            continue
        # one hop: its mesh peers, and the others its own IHAVE told (they ask for it with IWANT)
        near = max(len({*world.nodes[i].mesh, *world.nodes[i].neighbours}) for i in first.origins)
        assert renewed.reached <= (near + 1) / 80 and renewed.per_node < 0.1 * first.per_node
        assert layer.not_relayed >= 4
        owner = world.nodes[first.origins[0]]
        assert owner.card is not None
        for i in owner.mesh:  # the renewal confirmed the card the mesh peers hold (applied, not relayed)
            assert layer.directories[i].version_of(owner.identity.peer_id) >= renewed_version(layer, owner)
        withdrawal = card_set.withdraw(owner.index, world.now_ms(), owner.card.version + 1)
        message = layer.announce(owner, withdrawal)
        world.loop.run(until=world.loop.now + 5)
        assert len(message.reached) == 80
        assert all(
            d.get(owner.identity.peer_id) is None for i, d in layer.directories.items() if i != owner.index
        )


def renewed_version(layer: GossipLayer, owner: SimNode) -> int:
    """The version of the owner's renewal (the second of its three sampled versions)."""
    versions = sorted({d.version_of(owner.identity.peer_id) or 0 for d in layer.directories.values()})
    return versions[1] if len(versions) > 2 else versions[-1]


def test_past_relay_all_the_announce_rate_is_only_the_changed_versions() -> None:
    world = World(SimConfig(nodes=40, seed=6))
    world.warm_start(random_peers=20)
    world.loop.run(until=10)
    capped = announcement_rate(world, 600, republish=600, rng=random.Random(1), capped=True)
    assert capped == 0.0  # no start-up or growth re-announcement, no renewal of unchanged content
    some = announcement_rate(world, 1200, republish=600, rng=random.Random(1), capped=True, changed=0.2)
    assert some == pytest.approx(0.02, abs=0.01)  # a fifth of the versions said something new
