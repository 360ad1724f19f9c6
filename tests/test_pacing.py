"""The pure pacing rules of peer discovery, pubsub registration and card re-announcement."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from types import SimpleNamespace

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.pacing import AnnouncePacer
from ioa_p2p.dht.refresh import RefreshPolicy
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery.loops import announce_loop
from ioa_p2p.node.net.gossip_pacing import HeartbeatPacer, RegisterBackoff, ResubscribePacer
from ioa_p2p.node.net.routing import DEFICIT_CHECK, RefreshTrigger, _wait_next_round


def _peers(n: int) -> list:
    return [Identity.generate().peer_id for _ in range(n)]


def test_refresh_slows_down_while_nothing_changes_and_speeds_up_on_growth() -> None:
    policy = RefreshPolicy(fast=1.0, slow=60.0)
    delays, delay = [], policy.fast
    for _ in range(8):
        delay = policy.next_delay(delay, grew=False)
        delays.append(delay)
    assert delays == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]
    assert policy.next_delay(60.0, grew=True) == 1.0
    assert not policy.full_refresh(32.0) and policy.full_refresh(60.0)


def test_refresh_keeps_retrying_while_the_node_has_not_joined() -> None:
    """A node with fewer than ``low_peers`` connections has not joined (its lookups failed): its pace
    doubles only up to ``short_max``, not to ``slow`` (issue 26: the last agents of a 25-agent process
    waited minutes between lookups holding only their bootstrap connection)."""
    policy = RefreshPolicy(fast=1.0, slow=600.0, target_peers=16, low_peers=4, short_max=10.0)
    delays, delay = [], policy.fast
    for _ in range(6):
        delay = policy.next_delay(delay, grew=False, connected=1)
        delays.append(delay)
    assert delays == [2.0, 4.0, 8.0, 10.0, 10.0, 10.0]
    assert policy.next_delay(10.0, grew=False, connected=4) == 20.0  # joined: back to the doubling
    assert policy.next_delay(600.0, grew=False, connected=0) == 10.0  # lost every neighbour
    assert policy.next_delay(10.0, grew=True, connected=1) == 1.0
    assert policy.next_delay(8.0, grew=False) == 16.0  # connections not said: as before
    tiny = RefreshPolicy(fast=1.0, slow=600.0, target_peers=2, low_peers=4, short_max=10.0)
    assert tiny.next_delay(10.0, grew=False, connected=2) == 20.0  # the target is met


def test_peers_to_dial_fills_the_target_closest_first_then_random() -> None:
    policy = RefreshPolicy(target_peers=6)
    by_distance = _peers(20)
    chosen = policy.peers_to_dial(by_distance, set(), random.Random(1))
    assert len(chosen) == 6 and len(set(chosen)) == 6
    assert chosen[:3] == by_distance[:3]  # the closest half
    assert set(chosen[3:]) <= set(by_distance[3:])
    connected = set(by_distance[:4])
    more = policy.peers_to_dial(by_distance, connected, random.Random(1))
    assert len(more) == 2 and not set(more) & connected
    assert policy.peers_to_dial(by_distance, set(by_distance[:6]), random.Random(1)) == []
    assert policy.peers_to_dial(by_distance[:2], set(), random.Random(1)) == by_distance[:2]


async def test_refresh_trigger_wakes_early_and_rearms() -> None:
    trigger = RefreshTrigger()
    with trio.fail_after(5):
        assert not await trigger.wait_poke(0.01)
        trigger.poke()
        assert await trigger.wait_poke(10)
        assert not await trigger.wait_poke(0.01)  # re-armed


def test_register_backoff_doubles_per_peer_and_forgets() -> None:
    backoff = RegisterBackoff(first=2.0, most=10.0)
    a, b = "a", "b"
    assert backoff.due(a, 0.0)
    backoff.failed(a, 0.0)
    assert not backoff.due(a, 1.9) and backoff.due(a, 2.0) and backoff.due(b, 0.0)
    backoff.failed(a, 2.0)  # 4 s
    assert not backoff.due(a, 5.9) and backoff.due(a, 6.0)
    backoff.failed(a, 6.0)
    backoff.failed(a, 14.0)  # 8 s, then capped at 10 s
    assert not backoff.due(a, 23.9) and backoff.due(a, 24.0)
    backoff.forget(a)
    assert backoff.due(a, 0.0)
    backoff.failed(b, 0.0)
    backoff.keep_only([a])
    assert backoff.due(b, 0.0)


def test_announce_pacer_reannounces_on_growth_with_doubling_gaps() -> None:
    pacer = AnnouncePacer(first=3.0, most=600.0)
    pacer.announced(0, 0.0)  # the first announcement
    times = []
    peers = 0
    for t in range(0, 200):  # one more subscribed peer every second
        peers += 1
        if pacer.due(peers, float(t)):
            times.append(t)
            pacer.reannounced(peers, float(t))
    assert times == [3, 9, 21, 45, 93, 189]  # gaps 3, 6, 12, 24, 48, 96: O(log T), not O(N)
    pacer.announced(peers, 200.0)  # e.g. a new card version
    assert not pacer.due(peers, 10_000.0)  # no growth, no announcement
    assert not pacer.due(peers + 1, 10_000.0)  # one more peer of 200: not worth a flood of the topic
    assert pacer.due(peers + 50, 10_000.0)  # a quarter more


def test_announce_pacer_waits_for_the_topic_to_grow_by_a_fraction() -> None:
    pacer = AnnouncePacer(first=3.0, most=600.0, growth=0.25)
    pacer.announced(20, 0.0)
    counts = []
    for t in range(0, 1200, 2):  # the announce loop's 2 s looks; one more peer every 10 s
        peers = 20 + t // 10
        if pacer.due(peers, float(t)):
            counts.append(peers)
            pacer.reannounced(peers, float(t))
    # a quarter more each time (the one-peer rule re-announced whenever the doubling gap had passed)
    assert counts == [25, 32, 40, 50, 63, 79, 99, 137]


def test_register_backoff_accepts_an_explicit_first_wait() -> None:
    backoff = RegisterBackoff(first=2.0, most=60.0)
    assert not backoff.known("p")
    backoff.failed("p", 0.0, delay=30.0)
    assert backoff.known("p") and not backoff.due("p", 29.9) and backoff.due("p", 30.0)
    backoff.failed("p", 30.0)
    assert not backoff.due("p", 89.9) and backoff.due("p", 90.0)  # doubled, capped at 60 s


def test_resubscription_goes_to_every_peer_at_a_doubling_pace_while_nothing_changes() -> None:
    pacer = ResubscribePacer(first=10.0, most=240.0, full=60.0)
    same = {"a": frozenset({1}), "b": frozenset({2}), "c": frozenset({3})}
    sent = []
    for t in range(0, 600, 2):  # the maintenance task's 2 s ticks, connections unchanged
        peers, full = pacer.plan(same, float(t))
        if peers:
            assert full and sorted(peers) == ["a", "b", "c"]
            sent.append(t)
            pacer.sent(same, peers, full, float(t))
    assert sent == [60, 180, 420]  # waits 60, 120, then 240 s at most


def test_resubscription_after_churn_goes_only_to_the_peers_that_changed() -> None:
    pacer = ResubscribePacer(first=10.0, most=640.0, full=60.0)
    before = {"a": frozenset({1}), "b": frozenset({2}), "c": frozenset({3})}
    assert pacer.plan(before, 0.0) == ([], False)  # the peers at start were greeted by py-libp2p
    churned = {"a": frozenset({1}), "b": frozenset({4}), "d": frozenset({5})}  # b reconnected, d is new
    peers, full = pacer.plan(churned, 2.0)
    assert sorted(peers) == ["b", "d"] and not full
    pacer.sent(churned, peers, full, 2.0)
    assert pacer.plan(churned, 4.0) == ([], False)  # nothing changed since
    again = {**churned, "a": frozenset({1, 6})}  # a second connection to a
    assert pacer.plan(again, 8.0) == ([], False)  # never more often than every 10 s
    assert pacer.plan(again, 12.0) == (["a"], False)
    peers, full = pacer.plan(again, 60.0)  # the full round comes anyway
    assert full and sorted(peers) == ["a", "b", "d"]


async def test_discovery_waits_its_delay_unless_poked_or_a_connection_is_lost(
    autojump_clock: MockClock,
) -> None:
    """The wait between peer-discovery rounds (slow pace 600 s by default) checks its connection count
    without I/O: a lost connection below the target starts a round early, a poke makes the pace fast."""
    connected: list[str] = [f"p{i}" for i in range(5)]
    trigger = RefreshTrigger()
    start = trio.current_time()
    assert await _wait_next_round(trigger, 600.0, lambda: list(connected), target=16) == (False, False)
    assert trio.current_time() - start >= 600.0

    async def lose_one() -> None:
        await trio.sleep(100.0)
        connected.pop()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lose_one)
        start = trio.current_time()
        assert await _wait_next_round(trigger, 600.0, lambda: list(connected), target=16) == (False, True)
        assert 100.0 <= trio.current_time() - start <= 100.0 + DEFICIT_CHECK
    # at or above the target, a lost connection is no reason to look up
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lose_one)
        assert await _wait_next_round(trigger, 300.0, lambda: list(connected), target=3) == (False, False)
    # a loss right after a round started by one waits until LOST_ROUND_GAP has passed
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lose_one)
        start = trio.current_time()
        waited = await _wait_next_round(trigger, 600.0, lambda: list(connected), 16, not_before=start + 300.0)
        assert waited == (False, True) and 300.0 <= trio.current_time() - start <= 300.0 + DEFICIT_CHECK
    trigger.poke()
    assert await _wait_next_round(trigger, 600.0, lambda: list(connected), target=16) == (True, False)


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def test_the_gossip_heartbeat_slows_down_only_while_nothing_happens() -> None:
    pacer = HeartbeatPacer(fast=1.0, idle=5.0, degree_low=4, settle=30.0)
    peers = frozenset({"a", "b", "c", "d", "e"})
    assert pacer.interval(6, peers, 0, 0.0) == 1.0  # just started
    assert pacer.interval(6, peers, 0, 29.0) == 1.0
    assert pacer.interval(6, peers, 0, 30.0) == 5.0  # 30 s without a change
    assert pacer.interval(6, peers, 1, 40.0) == 1.0  # a message came or went: its IHAVE gossip
    assert pacer.interval(6, peers, 1, 49.0) == 1.0
    assert pacer.interval(6, peers, 1, 50.0) == 5.0  # MESSAGE_SETTLE (10 s) later, not 30 s
    assert pacer.interval(6, peers, 2, 52.0) == 1.0  # messages every few seconds keep it fast
    assert pacer.interval(6, peers, 3, 58.0) == 1.0
    assert pacer.interval(6, peers, 3, 68.0) == 5.0
    assert pacer.interval(6, peers | {"f"}, 1, 80.0) == 1.0  # a peer subscribed
    assert pacer.interval(6, peers | {"f"}, 1, 200.0) == 5.0
    assert pacer.interval(3, peers | {"f"}, 1, 202.0) == 1.0  # the mesh is short of peers
    assert HeartbeatPacer(fast=1.0, idle=0.5, degree_low=4).interval(6, peers, 0, 1e6) == 1.0  # never faster


def test_py_libp2p_still_refreshes_its_routing_table_itself() -> None:
    """The node's peer discovery leaves the per-bucket refresh to py-libp2p's DHT maintenance loop."""
    import inspect

    import libp2p.kad_dht.kad_dht as kad

    assert kad.ROUTING_TABLE_REFRESH_INTERVAL <= 600
    assert "self.refresh_routing_table()" in inspect.getsource(kad.KadDHT._run_main_loop)


class AnnouncingService:
    """What :func:`~ioa_p2p.node.discovery.loops.announce_loop` uses of the discovery service: its
    gossip's topic peers (``peers_at(now)``), the pacer, the counters and ``announce``, which records when
    it ran and with how many peers (as ``CardOwner.announce`` tells the pacer)."""

    def __init__(self, peers_at: Callable[[float], int]) -> None:
        self.peers_at = peers_at
        self.gossip = SimpleNamespace(topic_peers=lambda: peers_at(trio.current_time()))
        self.node = SimpleNamespace(services_ready=trio.Event())
        self.node.services_ready.set()
        self.pacer = AnnouncePacer(most=600.0)
        self.stats = {"announced_growth": 0}
        self.announced: list[tuple[float, int]] = []
        self.relay_cap = SimpleNamespace(capped=False)  # below [discovery] relay_all (d-cap's relaycap.py)

    def growth_pulled(self) -> bool:
        return False  # no census names our card here (tests/test_idle_announce.py: one that does)

    async def announce(self) -> None:
        now = trio.current_time()
        self.announced.append((now, self.peers_at(now)))
        self.pacer.announced(self.peers_at(now), now)


async def test_the_announce_loop_reannounces_a_growing_topic_log_times(autojump_clock: MockClock) -> None:
    """A network forming around a node for 8 minutes (one more topic peer every 5 s, to 96), then
    churning (a peer leaves and comes back every 10 s): a re-announcement per quarter of growth, none
    while the topic only churns (with the one-peer rule: 3, 9, 21, 45, 93, 189 and 381 s, each a flood of
    the whole topic)."""
    start = trio.current_time()

    def peers_at(now: float) -> int:
        since = now - start
        return min(96, int(since // 5)) - (1 if since > 480 and int(since // 10) % 2 else 0)

    service = AnnouncingService(peers_at)
    await service.announce()  # the first announcement, as go_live makes it (no peer yet)
    with trio.move_on_after(1800):
        await announce_loop(service)  # type: ignore[arg-type]
    counts = [peers for _, peers in service.announced]
    assert service.stats["announced_growth"] == len(counts) - 1 <= 1 + round(math.log(96, 1.25))
    assert all(b >= 1.25 * a for a, b in itertools.pairwise(counts[1:]))
    assert max(t for t, _ in service.announced) - start <= 480 + 600  # none long after the growth ended
    assert counts[-1] >= 0.8 * 96  # the last re-announcement reached most of the grown topic
