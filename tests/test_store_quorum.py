"""A round of DHT stores ends at a quorum plus a grace (dht/quorum.py), in the node and in the simulator."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from ioa_p2p.dht.quorum import GRACE_HIGH, GRACE_LOW, QUORUM, StoreQuorum, grace
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import generated_agents
from ioa_p2p.dht.sim.kad import PEER_TIMEOUT, LookupRun
from ioa_p2p.dht.sim.publish import PutRun
from ioa_p2p.dht.sim.search import key_of
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.node.net.kad_write import QuorumRound, by_key

PEERS = [bytes([i]) * 4 for i in range(20)]


def test_a_key_is_done_at_its_quorum_or_when_no_target_is_left() -> None:
    a, b = b"key a", b"key b"
    quorum = StoreQuorum({a: PEERS, b: PEERS[:3]})
    for peer in PEERS[: QUORUM - 1]:
        quorum.acked(peer, [a])
    quorum.acked(PEERS[0], [b])
    assert not quorum.reached and quorum.stored(a) == QUORUM - 1
    quorum.acked(PEERS[QUORUM - 1], [a])
    quorum.acked(PEERS[QUORUM - 1], [a])  # the same peer twice counts once
    assert quorum.stored(a) == QUORUM and not quorum.reached  # b (3 targets) needs all 3, or none left
    quorum.gave_up(PEERS[1], [b])
    quorum.acked(PEERS[2], [b])
    assert quorum.reached and not quorum.settled  # a's other targets have not been heard from
    for peer in PEERS[QUORUM:]:
        quorum.gave_up(peer, [a])
    assert quorum.settled
    assert StoreQuorum({}).settled and StoreQuorum({a: []}).reached
    with pytest.raises(ValueError):
        StoreQuorum({a: PEERS}, quorum=0)


def test_the_grace_is_a_share_of_the_round_within_bounds() -> None:
    assert grace(0.0) == GRACE_LOW and grace(100.0) == GRACE_HIGH
    assert GRACE_LOW < grace(4.0) < GRACE_HIGH
    assert by_key({b"p": [b"k1", b"k2"], b"q": [b"k1"]}) == {b"k1": [b"p", b"q"], b"k2": [b"p"]}


async def _round(answer_at: dict[bytes, float | None], began: float = 0.0) -> tuple[float, list[bytes]]:
    """A node's round of one key's stores: each peer answers at its time, or never (None; its task
    stands for a store whose peer left and that would time out only after 5 s)."""
    done = QuorumRound({b"key": list(answer_at)}, began)
    heard: list[bytes] = []

    async def store(peer: bytes, at: float | None) -> None:
        if at is None:
            await trio.sleep(PEER_TIMEOUT)
            done.gave_up(peer, [b"key"])
            return
        await trio.sleep(at)
        heard.append(peer)
        done.acked(peer, [b"key"])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(done.watch, nursery.cancel_scope)
        for peer, at in answer_at.items():
            nursery.start_soon(store, peer, at)
    return trio.current_time(), heard


def test_a_node_round_ends_a_grace_after_its_quorum_not_at_the_gone_targets_timeout() -> None:
    clock = trio.testing.MockClock(autojump_threshold=0)
    live = {p: 0.3 + 0.01 * i for i, p in enumerate(PEERS[:12])}  # 12 answer, 8 left
    gone: dict[bytes, float | None] = dict.fromkeys(PEERS[12:])
    ended, heard = trio.run(_round, {**live, **gone}, clock=clock)
    quorum_at = live[PEERS[QUORUM - 1]]
    assert ended == pytest.approx(quorum_at + grace(quorum_at))
    assert set(heard) == set(live)  # the live ones just after the quorum still count
    assert ended < PEER_TIMEOUT

    clock = trio.testing.MockClock(autojump_threshold=0)
    everyone = {p: 0.3 + 0.01 * i for i, p in enumerate(PEERS)}
    ended, heard = trio.run(_round, everyone, clock=clock)
    assert ended == pytest.approx(max(everyone.values()))  # all heard from: no grace
    assert len(heard) == len(PEERS)

    clock = trio.testing.MockClock(autojump_threshold=0)
    short = QUORUM - 1
    few = {**{p: 0.3 for p in PEERS[:short]}, **dict.fromkeys(PEERS[short:])}  # no quorum: wait for all
    ended, heard = trio.run(_round, few, clock=clock)
    assert ended == pytest.approx(PEER_TIMEOUT) and len(heard) == short


def test_a_simulated_put_whose_targets_left_after_its_lookup_ends_before_their_timeout() -> None:
    cards = CardSet.build(generated_agents(120), HashingEmbedder(), seed=1, stamp_bits=8)
    # no stores during the lookup (dht/early.py): every target is sent its store after the lookup, when
    # 8 of them have left
    world = World(SimConfig(nodes=120, seed=5, early_rank=0), cards)
    world.warm_start(random_peers=60)
    world.loop.run(until=20)
    owner = world.nodes[7]
    record = cards.issue(7, world.now_ms())
    left: list[int] = []

    class LeavingTargets(PutRun):
        def _placed(self, run: LookupRun) -> None:  # 8 of the 20 targets leave before the stores
            for peer in list(run.lookup.keys[self.key].candidates)[:8]:
                node = world.node_of(peer)
                assert node is not None
                world.leave(node)
                left.append(node.index)
            super()._placed(run)

    done: list[PutRun] = []
    LeavingTargets(world, owner, key_of(owner.peer), record.encoded, done.append).start()
    world.loop.run(until=world.loop.now + 2 * PEER_TIMEOUT)
    [run] = done
    assert len(left) == 8 and len(run.targets) == 20
    assert run.ok and run.stored == 12  # every live target stored it
    assert run.elapsed < PEER_TIMEOUT / 2  # not the gone targets' timeout
