"""The census of a small network (dht/census.py, node/discovery/census.py): a find trusts its directory
only when the DHT's publishers and every publisher the node knows are held, never a size estimate alone;
a late joiner whose gossip missed a card fetches it from the census and finds it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.dht.census import (
    CENSUS_INTERVAL,
    CENSUS_MAX_AGE,
    CENSUS_MIN_GAP,
    CENSUS_RETRY,
    Census,
    CensusPolicy,
    SharedCensus,
    directory_complete,
)
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import open_node
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.net.cpu_wait import RunnableClock

from .test_discovery_net import open_peer, open_peers, wait_until


def _peers(n: int) -> list[PeerId]:
    return [Identity.generate().peer_id for _ in range(n)]


def _complete(census: Census | None, held: set[PeerId], known: list[PeerId], **kw: object) -> bool:
    args: dict[str, object] = {"now": 100.0, "size": 10.0, "enumerate_up_to": 200, "partial": False}
    args.update(kw)
    return directory_complete(census, held=held.__contains__, known=known, **args)  # type: ignore[arg-type]


def test_a_directory_is_complete_only_with_a_census_whose_publishers_it_holds() -> None:
    peers = _peers(10)
    census = Census(frozenset(peers), at=90.0, size=10.0)
    everyone = set(peers)
    assert _complete(census, everyone, peers)
    # No census: however many cards it holds and whatever the estimate says, the directory proves nothing
    # (the estimate said 38 for 50 nodes at the late joiner of docs/performance.md).
    assert not _complete(None, everyone, peers)
    assert not _complete(census, everyone - {peers[3]}, peers)  # a named publisher is missing
    stranger = _peers(1)[0]
    assert not _complete(census, everyone, [*peers, stranger])  # a known publisher is missing
    assert not _complete(census, everyone, peers, partial=True)  # past keep_all: the DHT holds the rest
    assert not _complete(census, everyone, peers, size=250.0)  # too large to be listed
    assert not _complete(census, everyone, peers, now=90.0 + CENSUS_MAX_AGE + 1)  # stale
    assert not _complete(Census(frozenset(peers), 90.0, 10.0, truncated=True), everyone, peers)
    assert not _complete(census, everyone, peers, size=21.0)  # names under half the estimated network
    # a named peer of which neither the peer nor the DHT had a record does not hold the directory back
    gone = Census(frozenset(peers), 90.0, 10.0, unavailable=frozenset({peers[3]}))
    assert _complete(gone, everyone - {peers[3]}, [p for p in peers if p != peers[3]])


def test_a_census_is_taken_on_join_when_the_estimate_grows_and_on_a_timer() -> None:
    policy = CensusPolicy()
    assert not policy.due(0.0, 1.0, table_size=0)  # knows no peer yet
    assert not policy.due(0.0, 2.0, table_size=1)  # only its bootstrap node: not joined yet
    assert policy.due(0.0, 3.0, table_size=2)
    policy.started(0.0)
    policy.failed()
    assert not policy.due(CENSUS_RETRY - 1, 3.0, table_size=2)  # a failed try is retried, not at once
    assert policy.due(CENSUS_RETRY, 3.0, table_size=2)
    policy.started(6.0)
    policy.record(Census(frozenset(_peers(2)), 6.0, 3.0))
    assert not policy.due(6.0 + CENSUS_MIN_GAP - 1, 30.0, table_size=20)  # at most one per min gap
    assert policy.due(6.0 + CENSUS_MIN_GAP, 30.0, table_size=20)  # the estimate grew: a joiner
    policy.started(40.0)
    policy.record(Census(frozenset(_peers(20)), 40.0, 30.0))
    assert not policy.due(200.0, 31.0, table_size=20)  # stable
    assert policy.due(40.0 + CENSUS_INTERVAL, 31.0, table_size=20)
    # a try that failed, or a census that named under half the estimated network, is retried soon
    policy.started(400.0)
    policy.failed()
    assert not policy.due(400.0 + CENSUS_MIN_GAP - 1, 31.0, table_size=20)
    assert policy.due(400.0 + CENSUS_MIN_GAP, 31.0, table_size=20)
    policy.record(Census(frozenset(_peers(12)), 440.0, 25.0))
    assert not policy.due(440.0 + CENSUS_MIN_GAP, 23.0, table_size=20)  # 12 of ~23: fine
    assert policy.due(440.0 + CENSUS_MIN_GAP, 30.0, table_size=20)  # 12 of ~30: proves nothing


def test_failed_censuses_in_a_row_back_off_up_to_the_interval_and_a_census_taken_resets_it() -> None:
    """Every node of a loaded 50-node network retried its failing census every 30 s, and that traffic kept
    the next ones failing: each further failure in a row doubles the wait, up to CENSUS_INTERVAL."""
    policy = CensusPolicy()
    now, waits = 0.0, []
    for _ in range(6):
        policy.started(now)
        policy.failed()
        wait = next(w for w in range(1, 2 * int(CENSUS_INTERVAL)) if policy.due(now + w, 3.0, table_size=2))
        waits.append(wait)
        now += wait
    doubling = [CENSUS_RETRY * 2**i for i in range(4)]
    assert waits == [*doubling, CENSUS_INTERVAL, CENSUS_INTERVAL]
    policy.started(now)
    policy.record(Census(frozenset(_peers(3)), now, 3.0))
    policy.started(now + CENSUS_INTERVAL)
    policy.failed()  # after a census taken, the first failure waits CENSUS_RETRY again
    assert not policy.due(now + CENSUS_INTERVAL + CENSUS_RETRY - 1, 3.0, table_size=2)
    assert policy.due(now + CENSUS_INTERVAL + CENSUS_RETRY, 3.0, table_size=2)


def test_a_census_behind_the_publishers_the_node_knows_is_taken_again_with_a_doubling_gap() -> None:
    """Issue 26: a census taken while 100 agents started named those whose pages were out; the cards gossip
    missed stayed missing until the interval. Knowing publishers it did not name makes it due after the
    min gap; each such census that names nobody new doubles the wait, up to the interval."""
    policy, peers = CensusPolicy(), _peers(25)
    policy.started(0.0)
    policy.record(Census(frozenset(peers[:20]), 0.0, 30.0))  # 20 of ~30: not weak
    assert not policy.due(CENSUS_MIN_GAP, 31.0, table_size=20)  # nothing known beyond it: stable
    assert not policy.due(CENSUS_MIN_GAP - 1, 31.0, table_size=20, unnamed=5)  # at most one per min gap
    assert policy.due(CENSUS_MIN_GAP, 31.0, table_size=20, unnamed=5)  # behind: publishers it did not name
    now, waits = CENSUS_MIN_GAP, []
    for _ in range(6):  # a publisher that never appears in the pages: the census names nobody new
        policy.started(now)
        policy.record(Census(frozenset(peers[:20]), now, 30.0))
        wait = next(w for w in range(1, 2 * int(CENSUS_INTERVAL)) if policy.due(now + w, 31.0, 20, unnamed=1))
        waits.append(wait)
        now += wait
    assert waits == [CENSUS_MIN_GAP * 2**i for i in range(1, 4)] + [CENSUS_INTERVAL] * 3
    policy.started(now)
    policy.record(Census(frozenset(peers), now, 30.0))  # named new publishers: the gap is the min again
    assert policy.due(now + CENSUS_MIN_GAP, 31.0, table_size=20, unnamed=1)


def test_the_agents_of_a_process_adopt_the_newest_census_one_of_them_took() -> None:
    shared, own = SharedCensus(), Census(frozenset(_peers(3)), 50.0, 3.0)
    assert shared.newer_than(None) is None  # nothing taken in the process yet
    shared.last = Census(frozenset(_peers(4)), 60.0, 4.0)
    assert shared.newer_than(None) is shared.last and shared.newer_than(own) is shared.last
    assert shared.newer_than(Census(frozenset(), 60.0, 4.0)) is None  # not newer than the agent's own
    policy = CensusPolicy()
    assert policy.may_retry(0.0)
    policy.started(10.0)
    policy.failed()  # an adoption whose fetches ran out of time waits the back-off, as a census does
    assert not policy.may_retry(10.0 + CENSUS_RETRY - 1) and policy.may_retry(10.0 + CENSUS_RETRY)


@asynccontextmanager
async def open_private_peer(
    tmp_path: Path, agent_table: dict[str, Any], discovery: dict[str, Any], bootstrap: Any
) -> AsyncIterator[tuple[Any, Discovery]]:
    """A node that says it is private (behind a NAT: its DHT in client mode, so it is in no routing table
    and counts in no size estimate), still publishing its card and sketch in the DHT."""
    config = NodeConfig(
        home=tmp_path / "private",
        bootstrap=(bootstrap.listen_addrs()[0],),
        bootstrap_backoff=0.2,
        reachability="private",
        raw={"agent": agent_table, "discovery": discovery},
    )
    async with open_node(config, identity=Identity.generate(), write_info=False, control_api=False) as node:
        service = node.services.discovery
        assert service is not None
        await service.card_ready.wait()
        yield node, service


@pytest.mark.slow
async def test_a_late_joiner_whose_gossip_missed_a_card_still_finds_it(
    tmp_path: Path, runnable_clock: RunnableClock
) -> None:
    """Four nodes, and a private one (the chef: behind a NAT, so in no routing table) whose card is in the
    DHT only (gossip off: no announcement reaches anyone, as when its announcements were lost). A node
    joins last and gets the four other cards by gossip and catch-up; it estimates five peers, so a count
    against the estimate (5 cards >= 0.9 x 5) called its directory complete and its finds never asked the
    DHT: the chef was never found. With the census the join fetches the chef's card, and a find before
    that asks the DHT."""
    # six nodes on one loop, as in a process of several agents: on its clock (tests/conftest.py)
    with trio.fail_after(240):
        async with open_peers(tmp_path, 4) as peers:
            first_node, first = peers[0]
            chef = {"name": "chef", "description": "plans dinner menus and cooking recipes"}
            async with open_private_peer(tmp_path, chef, {"gossip": False}, first_node) as (chef_node, _):

                async def chef_in_the_dht() -> bool:
                    matches = await first.find("cook a dinner recipe", k=1, use_dht=True)
                    return bool(matches) and matches[0].card.peer_id == chef_node.peer_id

                await wait_until(chef_in_the_dht, "the chef's card found through the DHT", limit=120)
                mail = {"name": "late", "description": "answers customer mail"}
                # a find's DHT part may take longer than 10 s in one loaded process of six nodes
                async with open_peer(tmp_path, 99, mail, {"find_timeout": 40.0}, first_node) as (_, late):

                    async def gossip_done() -> bool:
                        return all(n.peer_id in late.directory for n, _ in peers)

                    await wait_until(gossip_done, "the four gossip cards at the late joiner", limit=90)
                    matches = await late.find("cook a dinner recipe", k=1)
                    assert matches and matches[0].card.peer_id == chef_node.peer_id, late.last_find

                    late.directory.remove(chef_node.peer_id)  # the census, not the find, must bring it back
                    late.census.last = None
                    # A new census is then due CENSUS_RETRY (30 s) after the last try: that timer is the unit
                    # test's above; here the next tick takes it (the wait was ~25 s of a 40 s test).
                    late.census.retry = 0.0

                    async def census_filled() -> bool:
                        return chef_node.peer_id in late.directory and late.directory_complete()

                    await wait_until(census_filled, "the chef's card fetched by the census", limit=90)
                    assert late.census.last is not None and chef_node.peer_id in late.census.last.named
                    matches = await late.find("cook a dinner recipe", k=1)
                    assert matches[0].card.peer_id == chef_node.peer_id
                    assert late.last_find.get("dht_skipped"), late.last_find  # complete: no DHT needed
