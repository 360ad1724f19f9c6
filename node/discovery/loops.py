"""The background loops of a :class:`~ioa_p2p.node.discovery.service.Discovery` (started by
:func:`~ioa_p2p.node.discovery.run.open_discovery` in its nursery; each runs until cancelled).

- :func:`republish_loop`: a new card version once ours is ``republish`` seconds old (wall clock);
- :func:`expiry_loop`: drops expired cards from the directory as they expire (within
  :data:`EXPIRY_CHECK` s; reads skip them at once);
- :func:`rebuild_loop`: rebuilds the annoy snapshot in a worker thread when the delta grew;
- :func:`announce_loop`: re-announces our card when more peers subscribed (:class:`AnnouncePacer`);
- :func:`catch_up_loop`: fetches from the DHT the cards of gossip neighbours we hold none of, and the
  versions the flood guard dropped;
- :func:`dht_publish_loop`: puts our card record and provides its bucket keys (:class:`PublishPolicy`), and
  puts our sketch in its bucket pages (``[discovery] pages``, :mod:`~ioa_p2p.node.discovery.pages`);
- :func:`revalidate_loop`: confirms again the cards not confirmed for ``revalidate`` seconds (their owner
  first, then the DHT: a withdrawal or a newer version replaces them), and drops those that stay
  unconfirmed ``find_timeout`` seconds longer. Together with the republish interval (a new version, so a
  confirmation, reaches gossip neighbours every ``republish`` seconds) this bounds how long any node keeps
  returning a card after its owner withdrew or replaced it: ``revalidate + find_timeout``. Past
  ``[discovery] relay_all`` (:mod:`~ioa_p2p.dht.relaycap`) unchanged renewals no longer come by gossip, so
  the cards the node needs are confirmed by this fetch and the others lapse here (:func:`lapse_unneeded`);
  the catch-up then fetches only the versions the flood guard dropped, and the announce loop rests.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Generic, TypeVar

import trio

from ioa_p2p.dht.catchup import BATCH, RETRY, CatchUpPacer, QuietScan
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.index import AnnoyIndex
from ioa_p2p.dht.pacing import PublishPolicy
from ioa_p2p.dht.quorum import round_target
from ioa_p2p.dht.relaycap import confirm_by_fetch
from ioa_p2p.dht.validators import card_key
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.cpu_wait import wall_sleep
from ioa_p2p.node.net.store_round import Started
from ioa_p2p.node.net.traffic import KAD_CALLER

if TYPE_CHECKING:
    from ioa_p2p.node.discovery.service import Discovery

log = logging.getLogger("ioa_p2p.discovery")

#: Seconds between catch-up rounds (neighbours' cards fetched from their owners, then the DHT), before
#: asking again for a card the catch-up did not get (doubling, :class:`~ioa_p2p.dht.catchup.CatchUpPacer`),
#: and how long each owner may take (longer than a find's: nobody waits for the catch-up).
CATCH_UP_INTERVAL = 2.0
CATCH_UP_RETRY = RETRY
CATCH_UP_BATCH = BATCH
CATCH_UP_OWNER_WAIT = 5.0
#: Seconds between the announce loop's checks for new topic peers (no I/O). A re-announcement waits at
#: least :data:`~ioa_p2p.dht.pacing.ANNOUNCE_MIN_INTERVAL` (3 s) after the last one anyway; checking
#: every 0.5 s woke an idle node twice a second for it (issue 26).
ANNOUNCE_CHECK = 2.0
#: One put or one provide round may take this long at most (a provide round is paced per target peer).
DHT_PUBLISH_TIMEOUT = 60.0


async def republish_loop(service: Discovery) -> None:
    """A new version of our card once the one out is ``republish`` seconds old by the wall clock (its
    lifetime, ``ttl``, runs by the wall clock at every peer). The loop's sleeps are on the run's clock,
    which in a process of several agents (a ``RunnableClock``) leaves out the loop's waits for a CPU and
    may run at a quarter of real time: one sleep of ``republish`` (600 s) could then last 2,400 s, past
    the card's 1,800 s lifetime, and every peer dropped the card until the next version (issue 26,
    l-idle8). So it sleeps :func:`~ioa_p2p.node.net.cpu_wait.wall_sleep` of what is left and looks again;
    a version issued meanwhile (new addresses, new settings) starts the count again."""
    settings = service.settings
    while True:
        card = service.card
        if card is None or service.withdrawal is not None:  # nothing out to renew: look again later
            await trio.sleep(wall_sleep(settings.republish))
            if service.card is not None or service.withdrawal is not None:
                continue  # a first card, or a withdrawal: the count starts from it
        else:
            left = (card.card.issued_at + settings.republish * 1000 - service.now_ms()) / 1000
            if left > 0:
                await trio.sleep(wall_sleep(left))
                continue
        service.stats["renewals"] += 1
        await service.republish()


#: Longest sleep of the expiry loop (seconds). Reads never return an expired card (the directory checks
#: each against the clock), so the loop only frees memory: it sleeps until the earliest expiry it knows
#: of, at most this long (a card stored meanwhile that expires sooner goes at the next pass). It woke
#: every second, 60 wake-ups a minute of every agent (issue 26, l-idle8).
EXPIRY_CHECK = 30.0


async def expiry_loop(service: Discovery) -> None:
    while True:
        gone = service.directory.expire(service.now_ms())
        if gone:
            log.debug("expired cards of %s", [p.short() for p in gone])
        next_at = service.directory.next_expiry()
        wait = EXPIRY_CHECK if next_at is None else (next_at - service.now_ms()) / 1000 + 0.001
        await trio.sleep(min(max(wait, 0.01), EXPIRY_CHECK))


async def rebuild_loop(service: Discovery) -> None:
    index = service.directory.index
    if not isinstance(index, AnnoyIndex):
        return
    while True:
        await trio.sleep(2.0)
        if not index.needs_rebuild():
            continue
        job = index.prepare_rebuild()
        try:
            built = await trio.to_thread.run_sync(job.build)
        except BaseException:
            index.abandon_rebuild()
            raise
        index.install(built)


async def announce_loop(service: Discovery) -> None:
    """Re-announce our card when more peers have subscribed to the topic (announcements made before they
    joined never reached them), paced by :class:`~ioa_p2p.dht.pacing.AnnouncePacer`; not once the
    network formed around us (:meth:`Discovery.growth_pulled`: newcomers pull our card)."""
    gossip = service.gossip
    assert gossip is not None
    await service.node.services_ready.wait()
    while True:
        await trio.sleep(ANNOUNCE_CHECK)
        peers = gossip.topic_peers()
        if service.relay_cap.capped:  # past relay_all: newcomers fetch cards from the DHT (relaycap.py)
            continue
        now = trio.current_time()
        if service.pacer.due(peers, now) and not service.growth_pulled():
            service.stats["announced_growth"] += 1
            await service.announce()
            service.pacer.reannounced(peers, trio.current_time())


async def catch_up_loop(service: Discovery) -> None:
    """Fetch the cards we hold none of of our gossip neighbours (a node joining a settled network learns
    its neighbours' cards this way) and of the other card publishers we know (routing table, connections:
    :meth:`~ioa_p2p.node.ports.CardNetPort.card_peers`), and the versions the flood guard dropped.

    Paced by :class:`~ioa_p2p.dht.catchup.CatchUpPacer`: a card not got is asked for again after 30 s,
    30 s, then 60, 120 ... up to 480 s (a card is missing exactly when the network is too busy to answer, and
    asking again at a constant pace kept a forming N = 50 network busy: issue 25, d-n50e).

    Gossip is best effort: under start-up load a peer's pubsub stream lags its connection by up to a
    minute, forwarders that owe CPU time have their gossip dropped, and an announcement made before the
    mesh formed is repeated only when the announcer gains topic peers; a card lost that way would reach
    a node that is not the owner's neighbour only with the owner's next version (``republish``).

    The agents of one process (``[[agents]]``) share one pacer (``SharedCensus.catch_up``): they lack the
    same cards (a card one of them gets is handed to all), so one asks for it, not each of them."""
    gossip = service.gossip
    assert gossip is not None
    shared = service.net.shared_census()  # the agents of one process share one pace (SharedCensus)
    pacer: CatchUpPacer[PeerId] = shared.catch_up if shared is not None else CatchUpPacer()
    quiet = QuietScan(CATCH_UP_INTERVAL)  # nothing missing, nothing changed: scan less often

    def held(peer: PeerId) -> bool:  # a shared pace forgets a peer once its card is here, not before
        return service.directory.entry(peer, service.now_ms()) is not None

    while True:
        await trio.sleep(CATCH_UP_INTERVAL)
        now, mark = trio.current_time(), service.catch_up_mark()
        if not quiet.due(now, mark):
            continue
        # past relay_all the node keeps only the cards it needs: its neighbours' are the DHT's to serve
        neighbours = [] if service.relay_cap.capped else [*gossip.topic_peer_ids(), *service.net.card_peers()]
        lacking = [
            p
            for p in dict.fromkeys(neighbours)
            if service.directory.entry(p, service.now_ms()) is None and not service.withheld(p)
        ]
        missing = pacer.due(lacking, now, held=held if shared is not None else None)
        pacer.asked(missing, now)
        missing += service.stale_due()[: max(0, CATCH_UP_BATCH - len(missing))]
        quiet.scanned(now, mark, idle=not lacking and not missing)
        if not missing:
            continue
        with (
            service.node.faults.boundary("discovery catch-up"),
            trio.move_on_after(service.settings.find_timeout + CATCH_UP_OWNER_WAIT),
        ):
            await service.fetch_cards(missing, wanted=False, owner_wait=CATCH_UP_OWNER_WAIT)


#: Seconds between revalidation rounds, and cards asked again per round at most.
REVALIDATE_INTERVAL = 5.0
REVALIDATE_BATCH = 256


async def revalidate_loop(service: Discovery) -> None:
    """See the module docstring. Each pass first notes the clocks (:meth:`Discovery.note_clocks`): a node
    back from a gap (asleep) holds every card as a suspect, skipped by reads and confirmed first."""
    settings = service.settings
    service.note_clocks()
    service.observe_size()
    while True:
        await trio.sleep(REVALIDATE_INTERVAL)
        service.note_clocks()
        capped = service.observe_size()
        now = service.now_ms()
        directory = service.directory
        due = directory.suspects(limit=REVALIDATE_BATCH)
        due += directory.unconfirmed(int(settings.revalidate * 1000), now, limit=REVALIDATE_BATCH)
        due = list(dict.fromkeys(due))[:REVALIDATE_BATCH]
        if capped:  # past relay_all: only the cards this node needs are confirmed, the rest lapse
            due = lapse_unneeded(directory, due, now, int(settings.revalidate * 1000), service.stats)
        if due:
            with (
                service.node.faults.boundary("discovery revalidation"),
                trio.move_on_after(settings.find_timeout),
            ):
                await service.fetch_cards(due)
            service.stats["revalidated"] += len(due)
        grace = int((settings.revalidate + settings.find_timeout) * 1000)
        dropped = directory.drop_unconfirmed(grace, service.now_ms())
        if dropped:
            service.stats["dropped_unconfirmed"] += len(dropped)
            log.debug(
                "dropped cards not confirmed for %.0f s: %s", grace / 1000, [p.short() for p in dropped]
            )


def lapse_unneeded(
    directory: Directory, due: list[PeerId], now: int, revalidate_ms: int, stats: dict[str, int]
) -> list[PeerId]:
    """Of the cards ``due`` for revalidation, drop those :func:`~ioa_p2p.dht.relaycap.confirm_by_fetch`
    lets lapse (past ``relay_all``: not pinned, not used by a recent find); return the others."""
    keep = []
    for peer in due:
        if confirm_by_fetch(
            capped=True,
            pinned=directory.pinned(peer),
            last_used_ms=directory.last_used(peer),
            now_ms=now,
            revalidate_ms=revalidate_ms,
        ):
            keep.append(peer)
        elif directory.remove(peer):
            stats["lapsed"] += 1
    return keep


async def dht_publish_loop(service: Discovery) -> None:
    """Keep our card record and bucket provider records in the DHT (see :class:`PublishPolicy`), and our
    sketch in its bucket pages. The three are independent and each is its own lookup and stores: they
    run at once, so a new card is out in the time of the slowest, not of the three in turn (issue 25:
    about 0.6 s of lookup and 0.45 s of dial and store each at 10,000 simulated nodes). Each is done
    once a quorum of its keys' closest peers stored it (the card is findable); the round's other stores
    go on in this loop's ``background`` nursery (:func:`_run_round`). The loop asks every second (or
    when woken) which of them is due, without I/O, and starts tasks only for those: an idle node's tick
    starts none (it started three a second, issue 26)."""
    await service.node.services_ready.wait()
    async with trio.open_nursery() as background:
        while True:
            now = trio.current_time()
            _observe(service, service.publish_policy, now)
            jobs = [_put_due(service, now), _provide_due(service, now)]
            if service.settings.pages:
                jobs.append(_pages_due(service, now))
            due = [job for job in jobs if job is not None]
            if due:
                async with trio.open_nursery() as nursery:
                    for job in due:
                        nursery.start_soon(job, background)
            await service.wait_dht_wake(1.0)


#: A publishing job: it waits for its round's quorum; the round's later stores go on in the nursery given.
Job = Callable[[trio.Nursery], Awaitable[None]]
T = TypeVar("T")


class _Once(Generic[T]):
    """A task status that passes on only its first value (a round answers at its quorum or at its end)."""

    def __init__(self, outer: Started[T]) -> None:
        self.outer, self.done = outer, False

    def started(self, value: T) -> None:
        if not self.done:
            self.done = True
            self.outer.started(value)


async def _run_round(
    service: Discovery,
    where: str,
    background: trio.Nursery,
    call: Callable[..., Awaitable[T]],
    failed: T,
) -> T:
    """Start the round of stores ``call`` (a ``CardNetPort`` method taking ``task_status``) in
    ``background`` and wait for its answer (once a quorum of each key's closest peers stored it:
    ``ioa_p2p.node.net.store_round``) for at most :data:`DHT_PUBLISH_TIMEOUT`; ``failed`` when it
    failed or did not answer in time (the round is then cancelled). What the round sends after its
    answer stays in ``background``, within the node's fault boundary and the round's own bound."""
    result = failed
    with trio.move_on_after(DHT_PUBLISH_TIMEOUT):
        result = await background.start(_guarded_round, service, where, call, failed)
    return result


async def _guarded_round(
    service: Discovery,
    where: str,
    call: Callable[..., Awaitable[T]],
    failed: T,
    *,
    task_status: Started[T] = trio.TASK_STATUS_IGNORED,
) -> None:
    status: _Once[T] = _Once(task_status)
    with service.node.faults.boundary(where):
        await call(task_status=status)
    status.started(failed)  # it raised before answering


def _observe(service: Discovery, policy: PublishPolicy, now: float) -> None:
    """The routing table's size and the network's estimated size, for ``policy``'s growth rules."""
    policy.observe(service.net.routing_table_size(), now, service.net.network_size())


def _put_due(service: Discovery, now: float) -> Job | None:
    """The put of our card record, when :class:`PublishPolicy` says it is due (None: not now)."""
    record = service.dht_record()
    reason = None if record is None else service.publish_policy.put_reason(record[0], now)
    if record is None or reason is None:
        return None
    return _counted(f"publish.card.{reason}", functools.partial(_put_record, service, record))


def _counted(caller: str, job: Job) -> Job:
    """``job`` with its Kademlia requests counted as ``caller``'s (``kad_traffic.by_caller``: which
    record and why, e.g. ``publish.pages.regrown``)."""

    async def run(background: trio.Nursery) -> None:
        KAD_CALLER.set(caller)  # the job's own task: the round's tasks it starts copy it
        await job(background)

    return run


async def _put_record(service: Discovery, record: tuple[int, bytes], background: trio.Nursery) -> None:
    """Put our card, or our withdrawal: a tombstone's round goes on, and this waits, until every closest
    peer of our key answered or timed out (``complete``; each store within the per-peer timeout), so
    that every live one holds it, not only a quorum and those that answered within the grace."""
    net, policy = service.net, service.publish_policy
    withdrawal = service.withdrawal
    tombstone = withdrawal is not None and withdrawal.version == record[0]
    put = functools.partial(net.put_value, card_key(service.node.peer_id), record[1], complete=tombstone)
    stored = await _run_round(service, "discovery publish", background, put, False)
    if stored:
        policy.put_done(record[0], trio.current_time())
    else:  # refused everywhere, or no answer in time: back off, do not retry every second
        policy.put_failed(trio.current_time())


def _provide_due(service: Discovery, now: float) -> Job | None:
    """The provide round of our bucket keys, when :class:`PublishPolicy` says it is due."""
    keys = service.provided_keys()
    reason = service.publish_policy.provide_reason(keys, now)
    if reason is None:
        return None
    return _counted(f"publish.provide.{reason}", functools.partial(_provide_keys, service, keys))


async def _provide_keys(service: Discovery, keys: tuple[bytes, ...], background: trio.Nursery) -> None:
    net, policy = service.net, service.publish_policy
    policy.provide_started(keys, trio.current_time())
    provide = functools.partial(net.provide, list(keys), ask=service.settings.ask)
    acknowledged = await _run_round(service, "discovery provide", background, provide, 0)
    policy.provide_finished(
        acknowledged, round_target(len(keys), net.routing_table_size()), trio.current_time()
    )


def _pages_due(service: Discovery, now: float) -> Job | None:
    """Putting our page under its keys: due when a new sketch must be made (its stamp is minted in a
    worker thread, :func:`publish_pages`) or when the pages' :class:`PublishPolicy` says so."""
    publisher, card, vector = service.pages, service.card, service.card_vector
    if card is None or vector is None or service.withdrawal is not None:
        return None
    if publisher.stale(card):
        return _counted("publish.pages.version", functools.partial(publish_pages, service))
    made = _page_record(service)()
    if made is None:
        return None
    ours = service.publish_policy  # observed this tick (dht_publish_loop): the same sizes
    publisher.policy.observe(ours.last_size, now, ours.estimate)
    reason = publisher.policy.provide_reason(_page_marker(made), now)
    if reason is None:
        return None
    return _counted(f"publish.pages.{reason}", functools.partial(_put_pages, service, made))


def _page_record(service: Discovery) -> Callable[[], tuple[tuple[str, ...], bytes] | None]:
    card, vector = service.card, service.card_vector
    assert card is not None and vector is not None
    return functools.partial(
        service.pages.record,
        service.node.identity,
        card,
        vector,
        service.lsh,
        service.now_ms(),
        service.net.network_size(),
        service.settings.stamp_bits,
    )


def _page_marker(made: tuple[tuple[str, ...], bytes]) -> tuple[bytes, ...]:
    keys, page = made
    return tuple(k.encode("utf-8") for k in keys) + (page,)  # a new sketch is a change too


async def publish_pages(service: Discovery, background: trio.Nursery) -> None:
    """Make a new sketch (a stamp: 0.1 s of CPU at 18 bits, once per content, in a worker thread) and put
    its page when due (the round's later stores in ``background``)."""
    publisher, card = service.pages, service.card
    if card is None or service.card_vector is None or service.withdrawal is not None:
        return
    record = _page_record(service)
    made = await service.node.run_sync(record, gil_bound=True) if publisher.stale(card) else record()
    if made is None:
        return
    now = trio.current_time()
    _observe(service, publisher.policy, now)
    if publisher.policy.provide_due(_page_marker(made), now):
        await _put_pages(service, made, background)


async def _put_pages(
    service: Discovery, made: tuple[tuple[str, ...], bytes], background: trio.Nursery
) -> None:
    keys, page = made
    policy = service.pages.policy
    policy.provide_started(_page_marker(made), trio.current_time())
    put = functools.partial(service.net.put_pages, list(keys), page, ask=service.settings.ask)
    acknowledged = await _run_round(service, "discovery pages", background, put, 0)
    target = round_target(len(keys), service.net.routing_table_size())
    policy.provide_finished(acknowledged, target, trio.current_time())


__all__ = [
    "CATCH_UP_INTERVAL",
    "DHT_PUBLISH_TIMEOUT",
    "EXPIRY_CHECK",
    "announce_loop",
    "round_target",
    "catch_up_loop",
    "dht_publish_loop",
    "expiry_loop",
    "publish_pages",
    "rebuild_loop",
    "revalidate_loop",
    "republish_loop",
]
