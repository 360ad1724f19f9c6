"""A publish is done once its quorum is stored; the round's other stores go on in the caller's nursery
(node/net/store_round.py, node/discovery/loops.py), and the simulator answers at the same moment
(dht/sim/placing.py).

- the node's rounds (``kad_write.put_many`` / ``put_value``) over a fake network behind
  ``kad_io._exchange`` under trio's MockClock: started with ``nursery.start`` they answer when the
  quorum acknowledged, the other targets still get their stores; a caller's deadline before the quorum
  cancels the whole round; a tombstone (``complete``) answers only once every target was heard from;
- the publishing loop's guard: a round that fails after answering is a recorded fault, not the loop's
  end; one that fails or is late before answering gives the fallback;
- the simulator: a card's publish time is when its last part had its quorum, the rounds go on and their
  later acknowledgements count; a tombstone put answers at its end, every live target holding it.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from trio.testing import MockClock

from ioa_p2p.dht.early import SURE_RANK
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.quorum import GRACE_LOW, QUORUM
from ioa_p2p.dht.sim.cardflow import publish_card
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import generated_agents
from ioa_p2p.dht.sim.publish import PutRun
from ioa_p2p.dht.sim.search import key_of
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import loops
from ioa_p2p.node.net import kad_io, kad_write
from ioa_p2p.node.net.kad_io import PEER_TIMEOUT

from .fake_dht import FakePeerstore

PEERS = [Identity.generate().peer_id.raw for _ in range(20)]
PAGE = "/ioa/page/a-key"
HANDSHAKE, ANSWER = 0.1, 0.1  # each lookup request: a dial's handshake, then its answer


@dataclass
class FakeNet:
    """Each peer stores after ``store_after[peer]`` seconds (None: never answers, a peer that left)."""

    store_after: dict[bytes, float | None] = field(default_factory=dict)
    stored: dict[bytes, float] = field(default_factory=dict)  # peer -> when it stored
    first_store: float | None = None  # when the first store was sent (the lookup is over)


class _Table:
    def get_peer_ids(self) -> list[ID]:
        return [ID(p) for p in PEERS]


class _Values:
    def __init__(self) -> None:
        self.held: dict[bytes, bytes] = {}

    def get(self, key: bytes) -> None:
        return None

    def put(self, key: bytes, value: bytes) -> None:
        self.held[key] = value


class _Validator:
    def validate(self, key: str, value: bytes) -> None:
        return None

    def select(self, key: str, values: list[bytes]) -> int:
        return 0


class FakeDHT:
    def __init__(self) -> None:
        self.local_peer_id = ID(Identity.generate().peer_id.raw)
        self.routing_table = _Table()
        self.host = self
        self.value_store = _Values()
        self.validator = _Validator()

    def get_connected_peers(self) -> list[ID]:
        return []

    def get_peerstore(self) -> FakePeerstore:
        return FakePeerstore()


@pytest.fixture
def net(monkeypatch: pytest.MonkeyPatch) -> FakeNet:
    fake = FakeNet()

    async def exchange(host: Any, peer: ID, requests: list[Any], on_open: Any = None) -> list[Any]:
        if requests[0].type != Message.MessageType.PUT_VALUE:  # the lookup: answers naming no one
            await trio.sleep(HANDSHAKE)
            if on_open is not None:
                on_open()
            await trio.sleep(ANSWER)
            return [Message(type=r.type, key=r.key) for r in requests]
        if fake.first_store is None:
            fake.first_store = trio.current_time()
        after = fake.store_after[peer.to_bytes()]
        if after is None:
            await trio.sleep_forever()
        await trio.sleep(after)
        fake.stored[peer.to_bytes()] = trio.current_time()
        return [Message(type=r.type, key=r.key) for r in requests]

    monkeypatch.setattr(kad_io, "_exchange", exchange)
    monkeypatch.setattr(
        kad_write, "put_request", lambda dht, key: Message(type=Message.MessageType.PUT_VALUE, key=key)
    )
    return fake


async def test_a_started_page_put_answers_at_its_quorum_and_its_other_stores_go_on(
    net: FakeNet, autojump_clock: MockClock
) -> None:
    fast, slow = PEERS[:QUORUM], PEERS[QUORUM:]
    net.store_after = {**dict.fromkeys(fast, 0.3), **dict.fromkeys(slow, 0.9)}
    async with trio.open_nursery() as background:
        put = functools.partial(kad_write.put_many, FakeDHT(), [PAGE], b"page", ask=2)
        acknowledged = await background.start(put)
        answered = trio.current_time()
    ended = trio.current_time()
    assert net.first_store is not None
    assert acknowledged == QUORUM and answered == pytest.approx(net.first_store + 0.3)  # not at 0.9
    assert ended == pytest.approx(net.first_store + 0.9)  # the round went on in the background
    assert set(net.stored) == set(PEERS)  # and every target stored it

    # awaited directly, a round answers at its end (as before)
    net.stored.clear()
    net.first_store = None
    began = trio.current_time()
    assert await kad_write.put_many(FakeDHT(), [PAGE], b"page", ask=2) == len(PEERS)
    assert net.first_store is not None and trio.current_time() == pytest.approx(net.first_store + 0.9)
    assert net.first_store > began


async def test_a_deadline_before_the_quorum_cancels_the_whole_round(
    net: FakeNet, autojump_clock: MockClock
) -> None:
    net.store_after = dict.fromkeys(PEERS, 3.0)
    began = trio.current_time()
    async with trio.open_nursery() as background:
        with trio.move_on_after(1.0) as deadline:
            await background.start(functools.partial(kad_write.put_many, FakeDHT(), [PAGE], b"page"))
    assert deadline.cancelled_caught
    assert trio.current_time() == pytest.approx(began + 1.0)  # nothing of it left in the background
    assert net.stored == {}


async def _put(net: FakeNet, complete: bool) -> tuple[float, bool, float]:
    """A card put started as the publishing loop starts it: (answered after, result, round over after),
    counted from the first store."""
    async with trio.open_nursery() as background:
        put = functools.partial(kad_write.put_value, FakeDHT(), "/ioa/card/x", b"card", complete=complete)
        ok = await background.start(put)
        answered = trio.current_time()
    assert net.first_store is not None
    return answered - net.first_store, ok, trio.current_time() - net.first_store


async def test_a_tombstone_answers_once_every_target_was_heard_from_a_card_at_its_quorum(
    net: FakeNet, autojump_clock: MockClock
) -> None:
    late = PEERS[QUORUM]  # alive, answers after the quorum's grace
    gone = PEERS[QUORUM + 1 :]
    net.store_after = {**dict.fromkeys(PEERS[:QUORUM], 0.3), late: 2.5, **dict.fromkeys(gone)}
    answered, ok, over = await _put(net, complete=False)
    assert ok and answered == pytest.approx(0.3)
    assert over < 2.5 and late not in net.stored  # cut at the grace after the quorum (as before)
    assert over == pytest.approx(0.3 + GRACE_LOW)  # (the round so far is short: the least grace)

    net.stored.clear()
    net.first_store = None
    answered, ok, over = await _put(net, complete=True)
    assert ok and answered == pytest.approx(PEER_TIMEOUT) == over  # every target heard from, then
    assert late in net.stored  # the live late target has the tombstone when the owner goes on


# ---------------------------------------------------------------------- the publishing loop's guard


class _Node:
    def __init__(self) -> None:
        self.faults = Faults()


class _Service:
    def __init__(self) -> None:
        self.node = _Node()


async def test_the_loop_records_a_round_failing_after_its_answer_and_falls_back_before_it(
    autojump_clock: MockClock,
) -> None:
    service: Any = _Service()

    async def fails_later(*, task_status: Any) -> int:
        task_status.started(7)
        await trio.sleep(1.0)
        raise RuntimeError("a bug in a background store")

    async def fails_first(*, task_status: Any) -> int:
        raise RuntimeError("a bug before the quorum")

    async def never_answers(*, task_status: Any) -> int:
        await trio.sleep_forever()
        return 0

    async with trio.open_nursery() as background:
        assert await loops._run_round(service, "test later", background, fails_later, -1) == 7
        assert await loops._run_round(service, "test first", background, fails_first, -1) == -1
        began = trio.current_time()
        assert await loops._run_round(service, "test never", background, never_answers, -1) == -1
        assert trio.current_time() - began == pytest.approx(loops.DHT_PUBLISH_TIMEOUT)
    counts = service.node.faults.snapshot()
    assert any("test later" in key for key in counts) and any("test first" in key for key in counts)


# ---------------------------------------------------------------------- the simulator


@pytest.fixture(scope="module")
def world() -> World:
    cards = CardSet.build(generated_agents(300), HashingEmbedder(), seed=2, stamp_bits=8)
    world = World(SimConfig(nodes=300, seed=3, early_rank=SURE_RANK), cards)
    world.warm_start(random_peers=60, connected_tables=True)
    world.loop.run(until=30)
    return world


def test_a_simulated_publish_answers_at_its_quorum_and_its_rounds_go_on(world: World) -> None:
    assert world.cards is not None
    forest = forest_for(world.cards.model_id, world.cards.dim)
    rng = random.Random(4)
    published = [publish_card(world, node, forest) for node in rng.sample(world.nodes, 10)]
    world.loop.run(until=world.loop.now + 30)
    for p in published:
        assert p.done_s is not None and p.placed_s is not None and p.round_s is not None
        assert p.done_s == pytest.approx(p.placed_s)  # answered when its last part had its quorum
        assert p.over and p.done_s <= p.round_s
        assert p.acknowledged == p.expected > 0  # the acknowledgements after the answer count
        for run in p.runs:
            assert run.returned_at == run.placed_at and run.finished_at is not None
    assert any(p.done_s < p.round_s for p in published)  # the publish is done before its rounds end


def test_a_simulated_tombstone_answers_when_every_target_was_heard_from(world: World) -> None:
    cards = world.cards
    assert cards is not None
    owner = world.nodes[21]
    withdrawal = cards.withdraw(owner.index, world.now_ms(), world.now_ms())
    done: list[PutRun] = []
    run = PutRun(world, owner, key_of(owner.peer), withdrawal.encoded, done.append, complete=True).start()
    world.loop.run(until=world.loop.now + 2 * PEER_TIMEOUT)
    assert done == [run] and run.ok
    assert run.returned_at is not None and run.returned_at == run.finished_at
    assert run.placed_at is not None and run.placed_at <= run.returned_at
    assert run.stored == len(run.targets) > QUORUM  # every (live) target holds it
