"""Stores sent while the lookup still runs (dht/early.py), counted by an open quorum (dht/quorum.py), in the
node's round (node/net/kad_write.py) and in the simulator (dht/sim/publish.py)."""

from __future__ import annotations

import random

import pytest
import trio
import trio.lowlevel
import trio.testing

from ioa_p2p.dht.early import EARLY_FROM, SURE_RANK, EarlyPlacement
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.keyspace import KEYSPACE, position
from ioa_p2p.dht.quorum import QUORUM, StoreQuorum, grace, round_target
from ioa_p2p.dht.sim.cardflow import publish_card
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import generated_agents
from ioa_p2p.dht.sim.publish import PutRun
from ioa_p2p.dht.sim.search import key_of
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.node.net.kad_write import AnswerBatch, QuorumRound

KEY = b"/ioa/page/some-key"
PEERS = [i.to_bytes(2, "big") * 4 for i in range(200)]


def by_distance(peers: list[bytes]) -> list[bytes]:
    target = position(KEY)
    return sorted(peers, key=lambda p: position(p) ^ target)


def test_early_stores_go_to_the_candidates_within_the_line_once_and_the_rest_after_the_lookup() -> None:
    ordered = by_distance(PEERS)
    early = EarlyPlacement([KEY], network_size=len(PEERS))
    line = KEYSPACE * SURE_RANK // len(PEERS)
    inside = [p for p in ordered if position(p) ^ position(KEY) < line]
    assert 0 < len(inside) < len(PEERS)  # the line splits this network
    assert early.due(KEY, ordered[:20]) == inside
    assert early.due(KEY, ordered[:20]) == []  # sent once
    assert early.due(b"another key", ordered) == []  # not a key of this round
    rest = early.rest({KEY: ordered[:20]})
    assert rest == {KEY: [p for p in ordered[:20] if p not in inside]}
    assert early.targets(KEY) == set(ordered[:20])
    assert EarlyPlacement([KEY], len(PEERS), rank=0).due(KEY, ordered) == []  # early stores off
    small = EarlyPlacement([KEY], EARLY_FROM - 1)  # a lookup of a hop or two: nothing early
    assert not small.active and small.due(KEY, ordered) == []
    # a larger network draws the line closer: fewer candidates are sure
    assert len(EarlyPlacement([KEY], 100 * len(PEERS)).due(KEY, ordered)) < len(inside)


def test_an_open_quorum_counts_early_stores_but_is_reached_only_once_its_targets_are_final() -> None:
    a, b = b"key a", b"key b"
    quorum = StoreQuorum({a: [], b: []}, final=False)
    quorum.add(a, PEERS[:QUORUM])
    quorum.add(a, PEERS[:2])  # a peer already targeted counts once
    for peer in PEERS[:QUORUM]:
        quorum.acked(peer, [a])
    assert quorum.stored(a) == QUORUM and not quorum.placed  # b has nothing yet
    quorum.add(b, PEERS[:1])
    quorum.acked(PEERS[0], [b])
    assert not quorum.placed  # open: b needs a full quorum, though it has only one target so far
    for peer in PEERS[1:QUORUM]:
        quorum.add(b, [peer])
        quorum.acked(peer, [b])
    assert quorum.placed and not quorum.reached and not quorum.settled  # not final: the round goes on
    quorum.finalise({a: PEERS[QUORUM : QUORUM + 3], b: []})
    assert quorum.final and quorum.reached and not quorum.settled  # a's last 3 not heard from
    for peer in PEERS[QUORUM : QUORUM + 3]:
        quorum.gave_up(peer, [a])
    assert quorum.settled
    assert round_target(18, 500) == 18 * QUORUM and round_target(18, 2) == 18 * 2


async def _open_round(early_at: float, quorum_at: float, lookup_done_at: float) -> float:
    """A node's round whose early stores reach the quorum at ``quorum_at``, before its lookup is done at
    ``lookup_done_at``: when does the round end?"""
    done = QuorumRound({KEY: []}, trio.current_time(), final=False)

    async def lookup_then_final() -> None:
        await trio.sleep(lookup_done_at)
        done.finalise({KEY: PEERS[QUORUM : QUORUM + 2]})
        await trio.sleep(0.1)
        for peer in PEERS[QUORUM : QUORUM + 2]:
            done.acked(peer, [KEY])

    async def early_stores() -> None:
        await trio.sleep(early_at)
        done.add(KEY, PEERS[:QUORUM])
        await trio.sleep(quorum_at - early_at)
        for peer in PEERS[:QUORUM]:
            done.acked(peer, [KEY])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(done.watch, nursery.cancel_scope)
        nursery.start_soon(early_stores)
        nursery.start_soon(lookup_then_final)
        await trio.sleep_forever()
    return trio.current_time()


def test_a_node_round_with_early_stores_ends_only_after_its_lookup_and_final_stores() -> None:
    clock = trio.testing.MockClock(autojump_threshold=0)
    ended = trio.run(_open_round, 0.1, 0.4, 0.8, clock=clock)
    assert ended == pytest.approx(0.9)  # every target heard from: no grace, and not at the early quorum
    assert grace(0.4) >= 0.5  # (a grace from the early quorum would have ended it at 1.4 s or later)


@pytest.fixture(scope="module")
def card_set() -> CardSet:
    return CardSet.build(generated_agents(300), HashingEmbedder(), seed=2, stamp_bits=8)


def _formed(card_set: CardSet, early_rank: float) -> World:
    world = World(SimConfig(nodes=300, seed=3, early_rank=early_rank), card_set)
    world.warm_start(random_peers=60, connected_tables=True)
    world.loop.run(until=30)
    return world


def test_a_simulated_card_is_placed_before_its_lookups_are_over_with_early_stores(card_set: CardSet) -> None:
    forest = forest_for(card_set.model_id, card_set.dim)
    placed: dict[float, list[float]] = {}
    for rank in (0.0, SURE_RANK):
        world = _formed(card_set, rank)
        rng = random.Random(8)
        published = [publish_card(world, node, forest) for node in rng.sample(world.nodes, 12)]
        world.loop.run(until=world.loop.now + 30)
        assert all(p.put_ok and p.acknowledged == p.expected > 0 for p in published)
        assert all(p.placed_s is not None and p.done_s is not None for p in published)
        placed[rank] = sorted(p.placed_s or 0.0 for p in published)
        # a put's first store comes before its lookup is over only with early stores
        done: list[PutRun] = []
        owner = world.nodes[11]
        record = card_set.issue(11, world.now_ms(), version=world.now_ms())
        run = PutRun(world, owner, key_of(owner.peer), record.encoded, done.append).start()
        world.loop.run(until=world.loop.now + 10)
        assert done == [run] and run.ok and run.looked_up_at is not None and run.first_stored_at is not None
        assert (run.first_stored_at < run.looked_up_at) == (rank > 0)
        assert run.placed_at is not None and run.finished_at is not None
        assert run.placed_at <= run.finished_at
    assert placed[SURE_RANK][6] < placed[0.0][6]  # the median card is findable sooner


def test_the_stores_due_after_one_answer_go_to_each_peer_on_one_stream() -> None:
    sent: list[tuple[bytes, list[bytes]]] = []

    async def send(peer: bytes, keys: list[bytes]) -> None:
        sent.append((peer, keys))

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            batch = AnswerBatch(nursery, send)
            batch.add(b"k1", [b"p", b"q"])  # one answer reports its keys in turn, no checkpoint between
            batch.add(b"k2", [b"p"])
            batch.add(b"k3", [])
            await trio.lowlevel.checkpoint()
            await trio.lowlevel.checkpoint()
            batch.add(b"k4", [b"p"])  # the next answer: a new stream

    trio.run(main)
    assert sorted(sent) == [(b"p", [b"k1", b"k2"]), (b"p", [b"k4"]), (b"q", [b"k1"])]
