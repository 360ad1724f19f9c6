"""The discovery simulator (ioa_p2p.dht.sim); its routing-table model: tests/test_sim_routing_table.py.

Everything runs on the simulator's virtual clock from fixed seeds: no wall-clock time, no sockets. The
CI-sized run of the issue's measurements is here (64-160 nodes); bench/bench_sim.py runs them at 1,000 to
10,000 nodes.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ioa_p2p.card import SignedCard, issue_card, parse_record
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.pages import PAGE_ENTRIES, decode_page, page_key
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.rtt import Hedges
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim import kad, search
from ioa_p2p.dht.sim import world as sim_world
from ioa_p2p.dht.sim.cardflow import exact_top, network_size, publish_cards, run_searches
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import AgentText, generated_agents, generated_queries, recombined
from ioa_p2p.dht.sim.events import EventLoop
from ioa_p2p.dht.sim.gossip import GossipLayer
from ioa_p2p.dht.sim.links import LinkModel
from ioa_p2p.dht.sim.measure import LookupSummary, Traffic, run_for, run_lookups
from ioa_p2p.dht.sim.preload import KeyspaceIndex, preload_cards
from ioa_p2p.dht.sim.publish import DHT_PUBLISH_TIMEOUT, PutRun
from ioa_p2p.dht.sim.records import RecordCache
from ioa_p2p.dht.sim.revocation import revoke_cards, revoke_everywhere
from ioa_p2p.dht.sim.search import key_of
from ioa_p2p.dht.sim.world import EPOCH_MS, SimConfig, World
from ioa_p2p.embedding import HashingEmbedder, normalise
from ioa_p2p.errors import ExpiredCard, InvalidCard, InvalidMessage
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import loops
from ioa_p2p.node.discovery import search as node_search
from ioa_p2p.node.net import kad_io, routing

SETTINGS = replace(DiscoverySettings(), min_stamp_bits=8)


# ---------------------------------------------------------------------- timing shared with the node


def test_the_node_timing_constants_are_the_simulators() -> None:
    assert (kad.HEDGE, kad.PEER_TIMEOUT) == (kad_io.HEDGE, kad_io.PEER_TIMEOUT)
    assert (kad.HEDGE_LOW, kad.HEDGE_HIGH) == (kad_io.HEDGE_LOW, kad_io.HEDGE_HIGH)
    assert search.DIRECT_TIMEOUT == node_search.DIRECT_TIMEOUT
    assert DHT_PUBLISH_TIMEOUT == loops.DHT_PUBLISH_TIMEOUT
    assert (sim_world.LEARNED, sim_world.LOOKUP_TIMEOUT) == (routing.LEARNED, routing.LOOKUP_TIMEOUT)
    assert kad.REACH_LOW == kad_io.REACH_LOW


# ---------------------------------------------------------------------- the event loop and links


def test_events_run_in_time_order_and_ties_in_scheduling_order() -> None:
    loop = EventLoop()
    seen: list[tuple[float, str]] = []
    loop.after(2.0, lambda: seen.append((loop.now, "c")))
    loop.after(1.0, lambda: seen.append((loop.now, "a")))
    loop.after(1.0, lambda: seen.append((loop.now, "b")))
    loop.at(-5.0, lambda: seen.append((loop.now, "past")))
    loop.run(until=1.5)
    assert seen == [(0.0, "past"), (1.0, "a"), (1.0, "b")] and loop.now == 1.5 and len(loop) == 1
    loop.run()
    assert seen[-1] == (2.0, "c") and loop.events == 4


def test_bad_link_models_and_configs_are_refused() -> None:
    with pytest.raises(ValueError, match="loss"):
        LinkModel(loss=1.0)
    with pytest.raises(ValueError, match="round trip"):
        LinkModel(request_rtts=0)
    with pytest.raises(ValueError, match="churn"):
        SimConfig(nodes=10, churn=1.0)
    with pytest.raises(ValueError, match="2 nodes"):
        SimConfig(nodes=1)


# ---------------------------------------------------------------------- records


def _card(identity: Identity, now_ms: int, *, version: int = 1, ttl_ms: int = 60_000) -> SignedCard:
    return issue_card(
        identity,
        name="a",
        description="summarises invoices",
        model="hash-256",
        vector=[1.0] + [0.0] * 255,
        version=version,
        now_ms=now_ms,
        ttl_ms=ttl_ms,
    )


def test_the_record_cache_decides_as_parse_record_does() -> None:
    owner, other = Identity(bytes(32)), Identity(bytes([1]) * 32)
    card = _card(owner, EPOCH_MS)
    cache = RecordCache()
    for _ in range(2):  # the first sight verifies, the second reuses; the outcomes are the same
        assert cache.parse(card.encoded, now_ms=EPOCH_MS, peer=owner.peer_id).version == 1
        with pytest.raises(InvalidCard):
            cache.parse(card.encoded, now_ms=EPOCH_MS, peer=other.peer_id)
        with pytest.raises(ExpiredCard):
            cache.parse(card.encoded, now_ms=EPOCH_MS + 120_000)
        for call in (parse_record, cache.parse):
            with pytest.raises(InvalidMessage):
                call(card.encoded[:-3], now_ms=EPOCH_MS)
    assert cache.verified == 1 and cache.reused >= 3


# ---------------------------------------------------------------------- worlds


def _world(nodes: int, *, seed: int = 1, churn: float = 0.0, cards: CardSet | None = None) -> World:
    world = World(SimConfig(nodes=nodes, seed=seed, churn=churn), cards)
    world.join_all()
    world.loop.run(until=nodes * world.config.join_spacing + 60)
    return world


def test_a_network_forms_and_its_lookups_find_the_closest_peers() -> None:
    world = _world(96)
    assert all(n.online for n in world.nodes)
    assert min(world.table_sizes()) >= K
    samples = run_lookups(world, 40, random.Random(2))
    summary = LookupSummary.of(samples)
    assert summary.count == 40
    assert summary.success == 1.0 and summary.overlap > 0.95
    assert 1 <= summary.hops_mean <= 4 and summary.messages_mean >= kad.DEFAULT_ASK
    assert 0.25 < summary.p50 < kad.PEER_TIMEOUT  # at least one request's 5 link crossings of 50 ms


def test_a_run_repeats_exactly_from_its_seed() -> None:
    def run(seed: int) -> list[float]:
        world = _world(48, seed=seed)
        return [s.latency for s in run_lookups(world, 10, random.Random(1))]

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_lookups_still_succeed_under_churn_and_traffic_is_counted() -> None:
    world = _world(120, churn=0.3, seed=2)
    world.start_churn()
    traffic = Traffic(world)
    run_for(world, 120, traffic)
    offline = sum(1 for n in world.nodes if not n.online)
    assert 0.15 * 120 < offline < 0.45 * 120
    assert world.counters["left"] > 0 and world.counters["came back"] > 0
    per_minute = traffic.per_node_minute()
    assert per_minute["total"] > 0 and per_minute["find_node"] > 0
    summary = LookupSummary.of(run_lookups(world, 40, random.Random(3)))
    assert summary.success >= 0.9


# ---------------------------------------------------------------------- cards


@pytest.fixture(scope="module")
def card_set() -> CardSet:
    return CardSet.build(generated_agents(160), HashingEmbedder(), seed=1, stamp_bits=8)


def test_published_cards_are_found_exactly_in_a_listed_network(card_set: CardSet) -> None:
    world = _world(80, cards=card_set)
    forest = forest_for(card_set.model_id, card_set.dim)
    rng = random.Random(4)
    published = publish_cards(world, forest, world.nodes, rng, window=20)
    assert len(published) == 80
    assert all(p.put_ok and p.done_s is not None and p.done_s < DHT_PUBLISH_TIMEOUT for p in published)
    assert sum(p.acknowledged for p in published) == sum(p.expected for p in published) > 0
    key = key_of(world.nodes[7].peer)
    holders = sum(1 for n in world.nodes if key in n.values)
    assert holders >= K // 2  # the record sits at the closest peers, not only its owner
    vectors = normalise(HashingEmbedder().embed(generated_queries(12)))
    # a listing that may fetch as many cards as the network holds fetches every card (with the default
    # page_fetch, 24, the node's choice of what to fetch decides: tests/test_sim_search.py)
    everything = replace(SETTINGS, page_fetch=len(world.nodes))
    samples = run_searches(world, forest, everything, [(v, [3]) for v in vectors], rng)
    assert len(samples) == 12
    assert all(s.result.listing and not s.result.timed_out for s in samples)
    assert [s.recall_exact for s in samples] == [1.0] * 12
    assert all(s.result.ranked == list(s.exact) for s in samples)


def test_preloaded_pages_hold_what_publishing_every_card_would(card_set: CardSet) -> None:
    """``preload_cards``: each card's sketch in the page of each of its cells at the page's closest nodes
    (at most PAGE_ENTRIES, first come), each owner keeping its own entry; a page search then finds
    what publishing would have let it find."""
    world = _world(160, cards=card_set, seed=5)
    forest = forest_for(card_set.model_id, card_set.dim)
    placed = preload_cards(world, forest, world.nodes, random.Random(6))
    assert placed > 0
    index = KeyspaceIndex(world.nodes)
    node = world.nodes[11]
    assert node.card is not None
    sketch = card_set.sketch(11, node.card, world.now_ms())
    levels = provided_levels(network_size(world, node))
    for cell in forest.cells(sketch.vector(), levels):
        key = page_key(cell, forest.model_id, forest.dim).encode("utf-8")
        held = [decode_page(n.values[key]) for n in index.closest(key)]
        assert all(page == held[0] for page in held) and len(held[0]) <= PAGE_ENTRIES
        assert sketch.encoded in held[0] or len(held[0]) == PAGE_ENTRIES
        assert sketch.encoded in decode_page(node.values[key])
    vectors = normalise(HashingEmbedder().embed(generated_queries(8)))
    # fetching as many cards as the network holds, so the node's choice of what to fetch (its spam
    # defences judge these made-up agents' hashed vectors all alike and central) does not decide
    everything = replace(SETTINGS, page_fetch=len(world.nodes))
    samples = run_searches(world, forest, everything, [(v, []) for v in vectors], random.Random(7))
    assert len(samples) == 8 and not any(s.result.timed_out for s in samples)
    assert sum(s.recall_exact for s in samples) / 8 >= 0.9


def test_a_card_with_a_weak_stamp_or_an_old_version_does_not_replace_a_stored_one(card_set: CardSet) -> None:
    world = _world(40, cards=card_set)
    node, server = world.nodes[5], world.nodes[9]
    key = key_of(node.peer)
    newer = card_set.issue(5, world.now_ms(), version=world.now_ms())
    older = card_set.issue(5, world.now_ms(), version=world.now_ms() - 1000)
    assert kad.serve_put_value(world, server, node, key, newer.encoded)
    assert not kad.serve_put_value(world, server, node, key, older.encoded)
    assert server.values[key] == newer.encoded
    weak = _card(card_set.identities[6], world.now_ms())  # no stamp at all
    done: list[PutRun] = []
    PutRun(world, world.nodes[6], key_of(world.nodes[6].peer), weak.encoded, done.append).start()
    assert done and not done[0].ok
    assert not any(key_of(world.nodes[6].peer) in n.values for n in world.nodes)
    assert not kad.serve_put_value(world, server, world.nodes[6], key_of(world.nodes[6].peer), weak.encoded)
    assert world.counters["put refused"] >= 1


def test_a_withdrawal_reaches_every_holder_within_the_revalidation_period(card_set: CardSet) -> None:
    world = _world(64, cards=card_set, seed=3)
    forest = forest_for(card_set.model_id, card_set.dim)
    rng = random.Random(6)
    publish_cards(world, forest, world.nodes[1:], rng, window=10)
    owners = [world.nodes[10], world.nodes[20]]
    assert owners[0].index in exact_top(world, card_set.vectors[owners[0].index], 1)
    settings = replace(SETTINGS, revalidate=60.0)
    revocation = revoke_cards(world, settings, owners, 15, rng, owners_leave=True)
    assert revocation.put_ok == 2 and revocation.holders == 30
    assert not any(o.online for o in owners)  # the holders found the withdrawals in the DHT
    assert revocation.share_by(settings.revalidate + 2 * kad.PEER_TIMEOUT) == 1.0
    assert revocation.time_to(0.95) <= settings.revalidate + 2 * kad.PEER_TIMEOUT
    assert owners[0].index not in exact_top(world, card_set.vectors[owners[0].index], 1)


def test_grown_agent_sets_combine_two_real_agents() -> None:
    base = [AgentText(f"a{i}", f"Does task {i}. Uses tool {i}.", (f"s{i}",)) for i in range(6)]
    grown = recombined(base, 20)
    assert grown[:6] == base and len({a.description for a in grown}) == 20
    assert all(a.description.startswith("Does task") and "Uses tool" in a.description for a in grown)
    with pytest.raises(ValueError, match="distinct"):
        recombined(base[:1], 5)
    assert len(generated_agents(50)) == 50 and generated_agents(5) == generated_agents(5)


def test_a_warm_started_network_routes_like_a_formed_one() -> None:
    world = World(SimConfig(nodes=300, seed=8))
    world.warm_start(random_peers=60)
    assert all(n.online for n in world.nodes) and min(world.table_sizes()) >= K
    assert all(len(n.neighbours) > 0 for n in world.nodes)
    world.loop.run(until=30)
    summary = LookupSummary.of(run_lookups(world, 30, random.Random(9)))
    assert summary.success == 1.0 and summary.overlap > 0.95


def test_the_self_lookup_is_the_nodes_and_tables_its_closest_and_the_peers_that_answered() -> None:
    """As ``routing._lookup_now``: our lookup of the node's own key from its table and connections,
    keeping ``LEARNED`` candidates; what joins the table is the ``LEARNED`` closest found and every peer
    that answered, nothing else an answer named (py-libp2p's offered every one: ``"py-libp2p"``)."""
    world = World(SimConfig(nodes=400, seed=3))
    world.warm_start(random_peers=20)
    node = world.nodes[7]
    before = set(node.table)
    named: set[bytes] = set()
    done: list[kad.LookupRun] = []
    run = world.self_lookup(node, on_done=done.append)
    run.on_closer = named.update
    world.loop.run(until=world.loop.now + 30, done=lambda: bool(done))
    assert done and run.lookup.width == sim_world.LEARNED
    lookup = run.lookup
    own = node.position
    truth = sorted((n.peer for n in world.nodes if n is not node), key=lambda p: position(p) ^ own)
    assert set(truth[:K]) <= set(lookup.closest(node.peer))  # it converged on the closest peers
    answered = {p for p in lookup.contacted if p not in lookup.dead and p not in lookup.busy}
    offered = set(lookup.closest(node.peer)) | answered
    added = set(node.table) - before
    assert added and added <= offered
    assert named  # the answers were followed


def test_a_lookup_starts_from_the_open_connections_as_well_as_the_table() -> None:
    """As ``kad_io.known_peers``: the table and every open connection; py-libp2p's own lookups (peer
    discovery) only from the table and the kept connections."""
    world = World(SimConfig(nodes=300, seed=8))
    world.warm_start(random_peers=60)
    node = world.nodes[5]
    strangers = [n for n in world.nodes if n.peer not in set(node.table) and n is not node]
    world.net.connect_many(node, strangers[:40])
    key = random.Random(1).randbytes(32)
    target = position(key)
    with_conns = kad.known_peers(world, node, [key])
    table_only = kad.known_peers(world, node, [key], connections=False)
    connected = [world.nodes[i].peer for i in node.conns]
    closest_connected = sorted(connected, key=lambda p: position(p) ^ target)[:K]
    assert set(closest_connected) <= set(with_conns)
    assert not set(with_conns) - set(table_only) - set(connected)
    assert set(table_only) == set(node.table.closest(target, K)) | {
        world.nodes[i].peer for i in node.neighbours
    }


def test_hedges_keep_round_trips_over_open_and_new_connections_apart() -> None:
    apart, shared = Hedges(low=0.4, high=1.5, initial=0.4), Hedges.shared(low=0.4, high=1.5, initial=0.4)
    for hedges in (apart, shared):
        for _ in range(30):
            hedges.sample(0.11, True)  # one round trip on an open connection
            hedges.sample(0.46, False)  # a dial first: four
    assert apart.wait(True) == 0.4 and 0.46 < apart.wait(False) < 0.5
    assert shared.wait(True) == shared.wait(False) > 0.8  # the mixture waits longer than either needs
    for hedges in (apart, shared):
        fresh = hedges.fresh()
        assert (fresh.open is fresh.dialled) == (hedges.open is hedges.dialled)
        assert fresh.open.samples == fresh.dialled.samples == 0 and fresh.wait(False) == 0.4


def test_lookups_hedge_after_the_round_trips_the_node_measured() -> None:
    """Where dialled peers answer after ~0.45 s (a dial of 3 round trips, as before the request rode with
    Noise's last message, or slower links), a fixed 0.4 s hedge asks their stand-ins too; the node's
    measured hedge (srtt + 4 rttvar) waits for them, so lookups send fewer requests."""
    messages = {}
    for hedge in ("fixed", "adaptive", "by-connection"):
        world = World(SimConfig(nodes=300, seed=8, hedge=hedge, links=LinkModel(dial_rtts=3)))
        world.warm_start(random_peers=60)
        world.loop.run(until=30)
        summary = LookupSummary.of(run_lookups(world, 40, random.Random(9)))
        assert summary.success == 1.0
        messages[hedge] = summary.messages_mean
        hedges = [n.round_trips for n in world.nodes if n.round_trips is not None]
        assert len(hedges) == (0 if hedge == "fixed" else 300)
        waits = [h.wait(connected) for h in hedges for connected in (True, False)]
        assert all(kad.HEDGE_LOW <= w <= kad.HEDGE_HIGH for w in waits)
        shared = [h.open is h.dialled for h in hedges]
        assert all(shared) if hedge == "adaptive" else not any(shared)
    assert messages["by-connection"] < messages["adaptive"] < messages["fixed"]


def test_no_online_node_holds_a_withdrawn_card_15_minutes_later_under_churn(card_set: CardSet) -> None:
    world = World(SimConfig(nodes=60, seed=9, churn=0.3, session=600.0), card_set)
    world.warm_start(random_peers=30)
    world.loop.run(until=20)
    world.start_churn()
    rng = random.Random(5)
    forest = forest_for(card_set.model_id, card_set.dim)
    publish_cards(world, forest, world.nodes, rng, window=10)
    layer = GossipLayer(world)
    layer.start()
    owners = rng.sample([n for n in world.nodes[1:] if n.online and n.card is not None], 2)
    run = revoke_everywhere(world, layer, SETTINGS, owners, rng, horizon=900, probes=6)
    assert run.put_ok == 2 and not any(o.online for o in owners)
    assert run.by_gossip > 0 and run.by_fetch + run.by_expiry > 0  # nodes that were away caught up later
    assert max(run.holding_online.values()) > 0  # ... and held the old card for a while
    assert run.holding_online[15] == 0.0
    assert all(share == 0.0 for share in run.probes_old.values())  # no find got the old card


def test_a_put_past_the_storing_peers_rate_limit_is_refused_not_raised(card_set: CardSet) -> None:
    """The admission budget of card records (``CardAdmission``) refuses a put with ``OverBudget``; a
    simulated storing peer answers it as the node's does (not stored), and the run goes on (a 2,000-node
    revocation run under churn ended on it)."""
    world = _world(40, cards=card_set)
    node, server = world.nodes[5], world.nodes[9]
    key = key_of(node.peer)
    stored = [
        kad.serve_put_value(world, server, node, key, card_set.issue(5, world.now_ms(), version=v).encoded)
        for v in range(world.now_ms(), world.now_ms() + 400)
    ]
    assert stored[0] and not all(stored)
    assert world.counters["put over budget"] == stored.count(False) > 0
