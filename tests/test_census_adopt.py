"""An agent that adopts its process's census (node/discovery/census.py ``_adopt``) does not ask again for
the cards the census taker just failed to get: every agent of a process of K asked the same unreachable
owners and ran the same failing DHT lookups, K - 1 times per census (issue 26, l-scale2). Under trio's
MockClock against a scripted service."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import trio
from trio.testing import MockClock

from ioa_p2p.dht.census import Census, CensusPolicy
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery import census as node_census


class AdoptingService:
    """What ``_adopt`` and ``fill_from_census`` use of the discovery service: an empty directory and a
    network where no fetch gets a card (``fetch_cards`` records each ask)."""

    def __init__(self) -> None:
        self.node = SimpleNamespace(
            peer_id=Identity.generate().peer_id,
            faults=SimpleNamespace(boundary=lambda where: contextlib.nullcontext()),
        )
        self.settings = SimpleNamespace(find_timeout=10.0)
        self.census = CensusPolicy()
        self.directory = SimpleNamespace(entry=lambda peer, now: None, withdrawn=lambda peer, now: None)
        self.search = SimpleNamespace(lacks_record=lambda peer: True)
        self.asked: list[PeerId] = []

    def now_ms(self) -> int:
        return int(trio.current_time() * 1000)

    async def fetch_cards(self, peers: list[PeerId], *, wanted: bool = True) -> int:
        self.asked.extend(peers)
        await trio.sleep(1.0)
        return 0


async def test_an_adopted_census_does_not_ask_again_for_what_its_taker_could_not_get(
    autojump_clock: MockClock,
) -> None:
    lost, new = [Identity.generate().peer_id for _ in range(3)], Identity.generate().peer_id
    service = AdoptingService()
    taken = Census(frozenset([*lost, new]), 0.0, 10.0, unavailable=frozenset(lost))
    await node_census._adopt(service, taken)  # type: ignore[arg-type]
    assert service.asked == [new]  # before: the three the taker had just failed to get, again
    adopted = service.census.last
    assert adopted is not None and adopted.named == taken.named
    assert adopted.unavailable == frozenset([*lost, new])  # still unavailable, not counted against it
