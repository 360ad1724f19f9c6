"""The owner-first card fetch of a page search: an adaptive wait and an early end (dht/rtt.py,
node/discovery/fetching.py), over a scripted network port (owners answer after given delays) with real
signed cards and the real directory; trio's MockClock."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.card import issue_card
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.lookup import grace_after_covered
from ioa_p2p.dht.rtt import RoundTrips
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.validators import card_key
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery.fetching import FETCH_GRACE, OWNER_LIMIT, fetch_ranked
from ioa_p2p.node.discovery.search import CardSearch

MODEL, DIM = "example/4", 4
NOW_MS = 1_800_000_000_000


def test_the_wait_follows_the_measured_round_trips() -> None:
    rtt = RoundTrips(low=0.15, high=1.0, initial=1.0)
    assert rtt.wait() == 1.0  # nothing measured yet
    rtt.sample(0.2)
    assert rtt.srtt == pytest.approx(0.2) and rtt.wait() == pytest.approx(0.2 + 4 * 0.1)
    for _ in range(40):
        rtt.sample(0.02)
    assert rtt.wait() == 0.15  # quick answers: the floor
    for _ in range(40):
        rtt.sample(30.0)  # a sample is bounded by the ceiling
    assert rtt.srtt == pytest.approx(1.0, abs=0.01) and rtt.wait() == 1.0
    for bad in (-1.0, math.nan, math.inf):
        rtt.sample(bad)
    assert rtt.samples == 81
    with pytest.raises(ValueError):
        RoundTrips(low=0.5, high=0.2)


class ScriptedNet:
    """Owners answer their own card after ``delays[peer]`` seconds (None: never); the DHT holds
    ``dht`` and answers a lookup after ``dht_delay``."""

    def __init__(self, cards: dict[PeerId, bytes], delays: dict[PeerId, float | None]) -> None:
        self.cards, self.delays = cards, delays
        self.dht: dict[str, bytes] = {}
        self.dht_delay = 0.3
        self.lookups: list[list[str]] = []

    async def ask_values(self, requests: dict[PeerId, list[str]], *, per_peer: float) -> dict[str, Any]:
        ((peer, keys),) = requests.items()
        delay = self.delays[peer]
        if delay is None or delay > per_peer:
            await trio.sleep(per_peer)
            return {}
        await trio.sleep(delay)
        return {keys[0]: [self.cards[peer]]}

    async def get_values(
        self, keys: list[str], *, ask: int, grace: float = 0.0, on_value: Any = None
    ) -> dict[str, list[bytes]]:
        self.lookups.append(keys)
        await trio.sleep(self.dht_delay)
        return {k: [self.dht[k]] for k in keys if k in self.dht}


def make(n: int, delays: list[float | None]) -> tuple[CardSearch, ScriptedNet, list[PeerId]]:
    ids = [Identity(bytes([i + 1]) * 32) for i in range(n)]
    cards = {
        ident.peer_id: issue_card(
            ident,
            name=f"agent-{i}",
            description=f"agent number {i}",
            model=MODEL,
            vector=np.eye(DIM)[i % DIM] + 0.1,
            version=NOW_MS,
            now_ms=NOW_MS,
        ).encoded
        for i, ident in enumerate(ids)
    }
    peers = [i.peer_id for i in ids]
    net = ScriptedNet(cards, dict(zip(peers, delays, strict=True)))
    settings = replace(DiscoverySettings(), min_stamp_bits=0)
    me = Identity(b"\xee" * 32).peer_id
    stats = {"dht_fetched": 0, "dht_rejected": 0}
    search = CardSearch(
        me,
        net,
        Directory(MODEL, DIM),
        settings,
        MODEL,
        DIM,
        lambda: NOW_MS + 1000,
        stats,  # type: ignore[arg-type]
    )
    return search, net, peers


async def test_every_owner_answers_and_the_wait_shrinks_to_their_round_trips(
    autojump_clock: MockClock,
) -> None:
    search, net, peers = make(6, [0.05] * 6)
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=3)
    assert done == {"owners": 6, "from_dht": 0, "early": False, "wait_s": 1.0}
    assert trio.current_time() - started == pytest.approx(0.05)  # no fixed wait: ended with the last answer
    assert len(search.directory) == 6 and net.lookups == []
    assert search.round_trips.wait() == pytest.approx(0.15)  # learned: quick owners
    again = await fetch_ranked(search, peers, settle=3)
    assert again["wait_s"] == pytest.approx(0.15)


async def test_a_silent_low_ranked_owner_ends_the_fetch_early(autojump_clock: MockClock) -> None:
    search, net, peers = make(6, [0.05] * 5 + [None])
    search.round_trips.sample(0.05)
    wait = search.round_trips.wait()
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=3)
    assert done["early"] and done["owners"] == 5 and done["from_dht"] == 0
    # the best answered at 0.05 s; the silent one got a grace, not the adaptive wait, the owner limit or a
    # DHT lookup (issue 25: a find does not wait for its slowest owner)
    took = trio.current_time() - started
    assert took == pytest.approx(0.05 + grace_after_covered(0.05, FETCH_GRACE)) and took < wait
    assert net.lookups == []


async def test_a_silent_top_owner_is_looked_up_in_the_dht_after_the_adaptive_wait(
    autojump_clock: MockClock,
) -> None:
    search, net, peers = make(6, [None] + [0.05] * 4 + [0.6])
    net.dht[card_key(peers[0])] = net.cards[peers[0]]
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=3)
    # before any sample the wait is 1 s; the owner at 0.6 s answered meanwhile, so only the silent one
    # is looked up, and its card comes from the DHT
    assert net.lookups == [[card_key(peers[0])]]
    assert done == {"owners": 5, "from_dht": 1, "early": False, "wait_s": 1.0}
    assert trio.current_time() - started == pytest.approx(1.0 + net.dht_delay)
    assert len(search.directory) == 6 and search.directory.entry(peers[0], NOW_MS + 1000) is not None


async def test_an_owner_that_answers_during_the_dht_lookup_ends_the_fetch(autojump_clock: MockClock) -> None:
    search, net, peers = make(4, [1.2, 0.05, 0.05, 0.05])
    net.dht_delay = 5.0  # a slow lookup: the owner's own late answer (before OWNER_LIMIT) ends the fetch
    assert OWNER_LIMIT > 1.2
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=1)
    assert done["owners"] == 4 and done["from_dht"] == 0 and len(net.lookups) == 1
    assert trio.current_time() - started == pytest.approx(1.2)


async def test_a_late_top_owner_ends_the_fetch_without_the_lookups_end_and_the_tail_is_not_looked_up(
    autojump_clock: MockClock,
) -> None:
    """Issue 25 (d-n50e): at N = 50 processes a slow find's best owner answered after the adaptive wait,
    and the fetch then waited for the whole DHT lookup (11-45 requests to busy peers) it had started for
    every unanswered candidate, the tail below the best included. Now only the best unanswered are looked
    up, and once the best have all answered the tail gets a grace, not the lookup's end."""
    search, net, peers = make(6, [1.2, 0.05, 0.05, 0.05, 0.05, None])
    net.dht_delay = 5.0
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=3)
    assert net.lookups == [[card_key(peers[0])]]  # not the silent tail candidate peers[5]
    assert done["owners"] == 5 and done["from_dht"] == 0 and done["early"]
    took = trio.current_time() - started
    assert took == pytest.approx(1.2 + grace_after_covered(1.2, FETCH_GRACE)) and took < 1.0 + net.dht_delay


async def test_the_lookup_of_the_best_ends_the_fetch_when_their_owners_stay_silent(
    autojump_clock: MockClock,
) -> None:
    search, net, peers = make(4, [None, 0.05, 0.05, None])
    net.dht[card_key(peers[0])] = net.cards[peers[0]]
    started = trio.current_time()
    done = await fetch_ranked(search, peers, settle=2)
    assert net.lookups == [[card_key(peers[0])]]
    assert done["owners"] == 2 and done["from_dht"] == 1
    assert trio.current_time() - started == pytest.approx(1.0 + net.dht_delay)


async def test_a_card_held_is_not_fetched_again_unless_a_sketch_names_a_newer_version(
    autojump_clock: MockClock,
) -> None:
    """The directory is a find's card cache by version (issue 25): a card held fresh needs no fetch, one
    whose page sketch carries a newer version does."""
    search, net, peers = make(2, [0.05, 0.05])
    await fetch_ranked(search, peers[:1], settle=1)
    held = search.directory.version_of(peers[0])
    assert held == NOW_MS
    assert not search.needs_fetch(peers[0]) and not search.needs_fetch(peers[0], held)
    assert search.needs_fetch(peers[0], held + 1)
    assert search.needs_fetch(peers[1]) and search.needs_fetch(peers[1], NOW_MS)  # never held
    assert not search.needs_fetch(search.me, NOW_MS + 5)  # our own card: never
