"""The discovery catch-up's pace (dht/catchup.py, node/discovery/loops.py ``catch_up_loop``): a card it could
not get is asked for again after 30 s, 30 s, then 60, 120 ... up to 480 s, not every 30 s for as long as
the network is busy (issue 25, d-n50e: at N = 50 processes every node asked again for its ~30 missing cards
every 30 s, an owner request and a DHT lookup each, and that load kept the asks failing); each owner gets
5 s, not a find's 1 s. The loop runs under trio's MockClock against a scripted service."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.catchup import BATCH, RETRY, RETRY_MAX, CatchUpPacer
from ioa_p2p.dht.census import SharedCensus
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery.loops import CATCH_UP_INTERVAL, CATCH_UP_OWNER_WAIT, catch_up_loop


def test_a_card_not_got_is_asked_for_again_at_a_doubling_pace() -> None:
    pacer: CatchUpPacer[str] = CatchUpPacer()
    asks = []
    for now in range(0, 1200, 2):
        due = pacer.due(["a"], float(now))
        if due:
            asks.append(now)
            pacer.asked(due, float(now))
    assert asks == [0, 30, 60, 120, 240, 480, 960]  # then every RETRY_MAX (480 s)
    assert pacer.wait(1) == pacer.wait(2) == RETRY and pacer.wait(40) == RETRY_MAX


def test_a_card_that_arrived_is_forgotten_and_a_round_is_bounded() -> None:
    pacer: CatchUpPacer[int] = CatchUpPacer(batch=4)
    assert pacer.due([1, 2, 2, 3, 4, 5, 6], 0.0) == [1, 2, 3, 4]
    pacer.asked([1, 2, 3, 4], 0.0)
    assert pacer.due([1, 2, 3, 4, 5, 6], 1.0) == [5, 6]  # the others wait their retry
    pacer.asked([1], 40.0)
    assert pacer.failures(1) == 2
    assert pacer.due([2, 3, 4], 41.0) == [2, 3, 4]  # 1's card arrived: forgotten
    assert pacer.failures(1) == 0
    assert pacer.due([1], 41.0) == [1]  # missing again (a dropped version, an expiry): starts over
    with pytest.raises(ValueError):
        CatchUpPacer(retry=0.0)
    small: CatchUpPacer[int] = CatchUpPacer(batch=2, remember=2)
    small.asked([1, 2, 3], 0.0)
    assert small.failures(1) == 0 and small.failures(3) == 1  # bounded memory: the oldest forgotten


class CatchingUpService:
    """What ``catch_up_loop`` uses of the discovery service: ``publishers`` are known (topic peers) and
    hold no card; ``fetch_cards`` records each ask and gets nothing (a busy network)."""

    def __init__(self, publishers: list[PeerId], shared: SharedCensus | None = None) -> None:
        self.gossip = SimpleNamespace(topic_peer_ids=lambda: list(publishers))
        self.net = SimpleNamespace(card_peers=lambda: [], shared_census=lambda: shared)
        self.directory = SimpleNamespace(entry=lambda peer, now_ms: None)
        self.node = SimpleNamespace(faults=SimpleNamespace(boundary=lambda where: contextlib.nullcontext()))
        self.settings = SimpleNamespace(find_timeout=6.0)
        self.relay_cap = SimpleNamespace(capped=False)  # below [discovery] relay_all (d-cap's relaycap.py)
        self.asks: list[tuple[float, list[PeerId], float]] = []

    def now_ms(self) -> int:
        return int(trio.current_time() * 1000)

    def withheld(self, peer: PeerId) -> bool:
        return False

    def stale_due(self) -> list[PeerId]:
        return []

    def catch_up_mark(self) -> tuple[int, ...]:
        return (len(self.gossip.topic_peer_ids()),)

    async def fetch_cards(self, peers: list[PeerId], *, wanted: bool, owner_wait: float = 1.0) -> int:
        self.asks.append((trio.current_time(), list(peers), owner_wait))
        await trio.sleep(owner_wait)  # owners that do not answer in time
        return 0


async def test_the_catch_up_of_a_busy_network_falls_off(autojump_clock: MockClock) -> None:
    """40 publishers whose cards cannot be had for 20 minutes: each card is asked for 7 times at most (0,
    30, 60, 120, 240, 480 and 960 s after its first ask, plus the rounds' own time), where a constant 30 s
    retry asked for it ~40 times."""
    publishers = [Identity(bytes([i + 1]) * 32).peer_id for i in range(40)]
    service: Any = CatchingUpService(publishers)
    start = trio.current_time()
    with trio.move_on_after(1200):
        await catch_up_loop(service)
    per_peer = {p: sum(p in peers for _, peers, _ in service.asks) for p in publishers}
    assert max(per_peer.values()) <= 7 and min(per_peer.values()) >= 6
    assert all(len(peers) <= BATCH and wait == CATCH_UP_OWNER_WAIT for _, peers, wait in service.asks)
    first = [round(at - start, 1) for at, peers, _ in service.asks if publishers[0] in peers]
    assert first[0] == pytest.approx(CATCH_UP_INTERVAL) and first[1] - first[0] >= RETRY
    assert (
        first[2] - first[1] >= RETRY and first[3] - first[2] >= 2 * RETRY and first[4] - first[3] >= 4 * RETRY
    )


async def test_the_agents_of_a_process_ask_once_for_a_card_they_all_lack(autojump_clock: MockClock) -> None:
    """Three agents of one process (one ``SharedCensus``) lacking the same 40 cards for 20 minutes: each
    card is asked for 7 times in all, as by one agent, not 7 times by each (issue 26, l-scale2: every agent
    of a process of K asked the same owners and ran the same DHT lookups, K times over)."""
    publishers = [Identity(bytes([i + 1]) * 32).peer_id for i in range(40)]
    shared = SharedCensus()
    agents: list[Any] = [CatchingUpService(publishers, shared) for _ in range(3)]
    with trio.move_on_after(1200):
        async with trio.open_nursery() as nursery:
            for agent in agents:
                nursery.start_soon(catch_up_loop, agent)
    asks = [peers for agent in agents for _, peers, _ in agent.asks]
    per_peer = {p: sum(p in peers for peers in asks) for p in publishers}
    assert max(per_peer.values()) <= 7 and min(per_peer.values()) >= 6  # before: 18-21 (three agents)
    alone: Any = CatchingUpService(publishers)  # a node alone in its process keeps its own pace
    assert alone.net.shared_census() is None


async def test_agents_that_know_different_publishers_keep_the_shared_pace(autojump_clock: MockClock) -> None:
    """The agents of a process know different publishers (their own topic peers, routing tables and
    connections), so their lists of lacking peers differ. The shared pace forgot every peer remembered
    that was not in the list of the agent asking now, as if its card had arrived: an agent that knew
    only half of them wiped the other half's pace every 2 s, and the first agent asked for those cards
    again at its next tick (l-spread: ~150 asks of each missing card in 20 minutes, not 7). A peer is
    forgotten once its card is held, not when one agent does not know it."""
    publishers = [Identity(bytes([i + 1]) * 32).peer_id for i in range(40)]
    shared = SharedCensus()
    agents: list[Any] = [
        CatchingUpService(publishers, shared),
        CatchingUpService(publishers[:20], shared),
        CatchingUpService(publishers[20:], shared),
    ]
    with trio.move_on_after(1200):
        async with trio.open_nursery() as nursery:
            for agent in agents:
                nursery.start_soon(catch_up_loop, agent)
    asks = [peers for agent in agents for _, peers, _ in agent.asks]
    per_peer = {p: sum(p in peers for peers in asks) for p in publishers}
    assert max(per_peer.values()) <= 7 and min(per_peer.values()) >= 6


def test_a_shared_pace_forgets_a_peer_once_its_card_is_held() -> None:
    pacer: CatchUpPacer[str] = CatchUpPacer()
    held: set[str] = set()
    pacer.asked(["a", "b"], 0.0)
    assert pacer.due(["c"], 1.0, held=held.__contains__) == ["c"]  # another agent's list
    assert pacer.failures("a") == 1  # not forgotten: nobody holds its card
    assert pacer.due(["a", "b"], 2.0, held=held.__contains__) == []  # waits its retry
    held.add("a")
    assert pacer.due(["b"], 3.0, held=held.__contains__) == []
    assert pacer.failures("a") == 0 and pacer.failures("b") == 1  # a's card arrived: forgotten
