"""The census of a small network on a running node (:mod:`ioa_p2p.dht.census` decides when and what it
proves): who publishes cards, asked of the DHT, and the cards the directory lacks among them fetched.

- :func:`take_census`: one batched ``GET_VALUE`` of the 16 level-4 pages of table 0 of our family's forest
  (the publishers named are the pages' entries whose signature verifies, merged over every storing peer
  that answered), or with ``[discovery] pages = false`` one batched ``GET_PROVIDERS`` of the same buckets;
- :func:`fill_from_census`: fetches the records of the named publishers the directory holds nothing of
  (owners first, then the DHT; :data:`FILL_BATCH` at a time), and says which could not be had;
- :func:`census_loop`: takes a census when :class:`~ioa_p2p.dht.census.CensusPolicy` says so (on join, when
  the size estimate grows, every ``CENSUS_INTERVAL``, and when the last one is behind: card publishers
  known that it did not name), only while the network is small enough to be listed and the directory
  keeps every card. This is the node's anti-entropy with the DHT: a node that joined
  late, or missed announcements, holds every card within one census, not at the owners' next version.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import trio

from ioa_p2p.dht.census import CENSUS_LEVEL, CENSUS_TABLE, Census, CensusPolicy
from ioa_p2p.dht.pages import PAGE_ENTRIES, page_key, read_page
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId

if TYPE_CHECKING:
    from ioa_p2p.node.discovery.service import Discovery

log = logging.getLogger("ioa_p2p.discovery")

#: Seconds between checks whether a census is due.
CENSUS_TICK = 2.0
#: Records fetched per batch when filling the directory from a census, and per census at most (pages
#: stuffed with the sketches of identities that serve no card cost a bounded number of fetches; the
#: publishers left unfetched keep the directory incomplete, so finds ask the DHT).
FILL_BATCH = 32
FILL_MAX = 256
#: A census (its lookups, then its fetches) may take this many times ``find_timeout``: it is not waited
#: for, and under load a lookup that asks every peer of a small network takes longer than a find may.
CENSUS_TIMEOUT_FACTOR = 3.0


async def take_census(service: Discovery) -> tuple[frozenset[PeerId], bool, bool]:
    """The publishers the DHT names in table 0's level-4 buckets of our family (this node left out),
    whether a page was full (publishers may be missing), and whether they named this node (its card is
    out where a newcomer's census reads: :meth:`~ioa_p2p.dht.pacing.AnnouncePacer.due`). Bounded by the
    caller."""
    search, settings = service.search, service.settings
    forest = search.forest
    cells = [forest.cell(CENSUS_TABLE, CENSUS_LEVEL, p) for p in range(1 << CENSUS_LEVEL)]
    keys = [page_key(c, forest.model_id, forest.dim) for c in cells]
    named: set[PeerId] = set()
    if not settings.pages:  # provider records name the publishers (every card is provided at level 4)
        providers = await service.net.get_providers([c.key for c in cells], ask=settings.ask)
        named.update(p for found in providers.values() for p in found)
        return _without_self(service, named, False)
    pages = await service.net.get_values(keys, ask=settings.ask)
    now = service.now_ms()
    truncated = False
    for values in pages.values():
        for value in values:
            sketches = read_page(value, now)
            truncated |= len(sketches) >= PAGE_ENTRIES
            for sketch in sketches:
                if sketch.peer_id in named:
                    continue
                try:
                    sketch.envelope.verify()
                except InvalidMessage:
                    continue
                named.add(sketch.peer_id)
    return _without_self(service, named, truncated)


def _without_self(
    service: Discovery, named: set[PeerId], truncated: bool
) -> tuple[frozenset[PeerId], bool, bool]:
    me = service.node.peer_id
    return frozenset(named - {me}), truncated, me in named


async def fill_from_census(service: Discovery, named: frozenset[PeerId]) -> frozenset[PeerId]:
    """Fetch the records of the ``named`` publishers the directory holds nothing of (:data:`FILL_MAX` at
    most); returns those of which neither the peer nor the DHT gave a valid record (those not tried
    stay missing: the directory is not complete until a later census gets them)."""
    missing = [p for p in sorted(named) if not _held(service, p)][:FILL_MAX]
    for start in range(0, len(missing), FILL_BATCH):
        await service.fetch_cards(missing[start : start + FILL_BATCH], wanted=False)
    return frozenset(p for p in missing if not _held(service, p) and service.search.lacks_record(p))


def _held(service: Discovery, peer: PeerId) -> bool:
    now, directory = service.now_ms(), service.directory
    return directory.entry(peer, now) is not None or directory.withdrawn(peer, now) is not None


async def census_loop(service: Discovery) -> None:
    """See the module docstring. The agents of one process (``[[agents]]``) share their census
    (:class:`~ioa_p2p.dht.census.SharedCensus`): one of them takes it, the others adopt it."""
    await service.node.services_ready.wait()
    policy, settings, net = service.census, service.settings, service.net
    shared = net.shared_census()
    while True:
        await trio.sleep(CENSUS_TICK)
        now, size = trio.current_time(), net.network_size()
        if service.directory.partial or size > settings.enumerate:
            continue
        if shared is not None:
            newer = shared.newer_than(policy.last)
            if newer is not None and policy.may_retry(now):
                await _adopt(service, newer)
                continue
            if shared.taking:  # another agent of the process is counting: its census will do
                continue
        if not policy.due(now, size, net.routing_table_size(), _unnamed(service, policy, now)):
            continue
        if shared is not None:
            shared.taking = True
        try:
            census = await _take(service, now, size)
        finally:
            if shared is not None:
                shared.taking = False
        if census is not None and shared is not None:
            shared.last = census


def _unnamed(service: Discovery, policy: CensusPolicy, now: float) -> int:
    """Card publishers this node knows (cards held, routing table, connections) that its last census did
    not name: the network grew since it was taken (:meth:`~ioa_p2p.dht.census.CensusPolicy.due`); 0 while
    a census that is behind would not be due yet anyway."""
    census = policy.last
    if census is None or now - census.at < policy.behind_gap():
        return 0
    me, named = service.node.peer_id, census.named
    known = {entry.card.peer_id for entry in service.directory}
    known.update(service.net.card_peers())
    return sum(1 for peer in known if peer != me and peer not in named)


async def _take(service: Discovery, now: float, size: float) -> Census | None:
    """Take a census and fill the directory from it (recorded in the node's policy); None if it failed."""
    policy, bound = service.census, CENSUS_TIMEOUT_FACTOR * service.settings.find_timeout
    policy.started(now)
    census: Census | None = None
    with service.node.faults.boundary("discovery census"), trio.move_on_after(bound):
        named, truncated, named_self = await take_census(service)
        census = Census(named, now, size, truncated, named_self=named_self)
    if census is None or not census.named:
        policy.failed()
        return None
    unavailable: frozenset[PeerId] | None = None
    with service.node.faults.boundary("discovery census"), trio.move_on_after(bound):
        unavailable = await fill_from_census(service, census.named)
    if unavailable is None:  # the fetches ran out of time: what is missing stays missing
        policy.failed()
        return None
    census = Census(census.named, now, size, census.truncated, unavailable, census.named_self)
    policy.record(census)
    log.debug(
        "census: %d publishers named, %d without a record, %d cards held",
        len(census.named),
        len(unavailable),
        len(service.directory),
    )
    return census


async def _adopt(service: Discovery, census: Census) -> None:
    """Take another agent's census of this process as this node's own: fetch the cards it lacks among
    the publishers named (few: the process hands its agents every card one of them accepted), then
    record it, with the peers no record could be found of.

    The publishers the census taker just failed to get a record of (``census.unavailable``: neither
    they nor the DHT gave one) are not asked again by each agent that adopts it: those were exactly the
    cards the others lacked too, so every agent of a process of K asked the same unreachable owners and
    ran the same failing DHT lookups, K - 1 times per census (issue 26, l-scale2). They stay unavailable
    in the adopted census; each agent's catch-up asks for them at its own pace."""
    policy, bound = service.census, CENSUS_TIMEOUT_FACTOR * service.settings.find_timeout
    policy.started(trio.current_time())
    named = census.named - {service.node.peer_id}
    unavailable: frozenset[PeerId] | None = None
    with service.node.faults.boundary("discovery census"), trio.move_on_after(bound):
        unavailable = await fill_from_census(service, named - census.unavailable)
    if unavailable is None:  # tried again after the policy's back-off
        policy.failed()
        return
    policy.record(
        Census(
            named,
            census.at,
            census.size,
            census.truncated,
            unavailable | census.unavailable,
            named_self=service.node.peer_id in census.named,  # the taker's census names the others
        ),
        adopted=True,
    )


__all__ = [
    "CENSUS_TICK",
    "CENSUS_TIMEOUT_FACTOR",
    "FILL_BATCH",
    "FILL_MAX",
    "census_loop",
    "fill_from_census",
    "take_census",
]
