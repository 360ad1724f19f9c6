"""The DHT side of discovery: which buckets a ``find`` asks for, and fetching the records they name.

:class:`CardSearch` (one per :class:`~ioa_p2p.node.discovery.service.Discovery`):

- :meth:`CardSearch.lookup`: the providers of the query's LSH buckets (:mod:`~ioa_p2p.dht.probing`
  chooses them for the network's size), and their cards;
- :meth:`CardSearch.fetch`: the newest records (cards or withdrawals) of given peers, from each peer
  itself first (every node serves its own record, the freshest copy, in one request), then from the DHT;
  each verified (signature, freshness, stamp of at least ``min_stamp_bits``) and applied to the
  directory (:meth:`CardSearch.apply`: a withdrawal removes the card, a card of the version held
  confirms it).
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterable
from typing import Any

import trio

from ioa_p2p.card import CardRecord, SignedWithdrawal, newest_record, parse_record
from ioa_p2p.dht.arrival import ArrivalBook, beyond
from ioa_p2p.dht.directory import Directory, Offer
from ioa_p2p.dht.fetchchoice import PRIOR_WEIGHT
from ioa_p2p.dht.forest import Forest, forest_for
from ioa_p2p.dht.lsh import CardBuckets, Hyperplanes, card_buckets
from ioa_p2p.dht.probing import listing_incomplete, needs_finer, plan_probes, rank_providers
from ioa_p2p.dht.rtt import RoundTrips
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.validators import card_key, check_stamp
from ioa_p2p.errors import InvalidMessage, InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.node.ports import CardNetPort

log = logging.getLogger("ioa_p2p.discovery")

#: Seconds a card fetch waits for the cards' owners to answer before asking the DHT.
DIRECT_TIMEOUT = 1.0
#: Card fetches of a listing find: batches running at once, and how long a batch waits for more peers.
FETCH_PARALLEL = 16
FETCH_COALESCE = 0.02
#: Peers remembered as having no record to fetch (neither the peer nor the DHT gave one), and for how long.
NO_RECORD_MAX = 4096
NO_RECORD_FOR = 60.0


class CardSearch:
    """Lookups and fetches of one node's discovery (see the module docstring)."""

    def __init__(
        self,
        me: PeerId,
        net: CardNetPort,
        directory: Directory,
        settings: DiscoverySettings,
        model_id: str,
        dim: int,
        now_ms: Callable[[], int],
        stats: dict[str, int],
    ) -> None:
        self.me, self.net, self.directory, self.settings = me, net, directory, settings
        self.model_id = model_id
        #: the scheme's bucket family (the matcher's 640-d scheme shares the default wordllama one: its
        #: vectors are bucketed by their first 256 values, :func:`~ioa_p2p.dht.lsh.card_buckets`)
        self.lsh: CardBuckets = card_buckets(model_id, dim)
        self.hyperplanes: Hyperplanes = self.lsh.planes
        self.forest: Forest = forest_for(self.hyperplanes.model_id, self.hyperplanes.dim)
        self.now_ms = now_ms
        self.stats = stats
        #: owners' answer times: how long a page search's fetch waits for them (node/discovery/fetching.py)
        self.round_trips = RoundTrips()
        #: peer -> when a fetch last found no valid record of it anywhere (oldest first)
        self.no_record: dict[PeerId, int] = {}
        #: trust (set by the goals service, ``ioa_p2p.teaming.trust``): the peers that are not young (held
        #: for ``trust_age``, proven or trusted; None: trust off) and the prior a listed peer gets when it
        #: is not one of them and its card was never held (a held young peer has it in the ranker's priors)
        self.settled: frozenset[str] | None = None
        self.young_penalty = 0.0
        #: the peers with a signed task done for this node, or trusted (set by the goals service): a page
        #: search keeps some fetch slots for them (:mod:`ioa_p2p.dht.fetchevidence`)
        self.proven: frozenset[str] = frozenset()
        #: of those, when each first did accepted work here (ms; absent: just now) and the ones the
        #: operator trusts: how much of a flood penalty their evidence lifts (:mod:`ioa_p2p.dht.arrival`)
        self.proven_since: dict[str, int] = {}
        self.trusted: frozenset[str] = frozenset()
        #: when each identity's card first reached this node by gossip, and the floods of new identities
        #: (:mod:`ioa_p2p.dht.arrival`): a page search takes score off sketches that came in one
        self.arrivals = ArrivalBook(now_ms())
        #: called with each remote record that changed the directory (the other agents of this process
        #: get it too: ``CardTopicPort.pass_on``; set by discovery when the card topic runs)
        self.on_new: Callable[[CardRecord], None] | None = None

    def flood_penalties(self, peers: Iterable[PeerId]) -> dict[PeerId, float]:
        """Score units off ``peers`` that reached this node in a flood of new identities, lifted a share per
        window of accepted work here (:attr:`proven_since`), none for :attr:`trusted` peers
        (:meth:`~ioa_p2p.dht.arrival.ArrivalBook.penalties`, ``[discovery] flood_weight`` units at most; 0:
        none)."""
        weight = self.settings.flood_weight
        if weight <= 0:
            return {}
        now = self.now_ms()
        listed = list(peers)
        since = {p: self.proven_since.get(str(p), now) for p in listed if str(p) in self.proven}
        trusted = {p for p in listed if str(p) in self.trusted}
        return self.arrivals.penalties(listed, now, weight=weight, exempt=trusted, proven_since=since)

    def fetch_flood(self, peers: Iterable[PeerId]) -> dict[PeerId, float]:
        """:meth:`flood_penalties` less the young penalty a young peer already pays in the fetch (as a
        reputation prior, ``PRIOR_WEIGHT`` units per unit): a young identity of a flood pays the larger
        of the two (:func:`~ioa_p2p.dht.arrival.beyond`)."""
        flood = self.flood_penalties(peers)
        settled, young = self.settled, PRIOR_WEIGHT * self.young_penalty
        if settled is None or young <= 0 or not flood:
            return flood
        return beyond(flood, {p: young for p in flood if str(p) not in settled})

    def flooded(self, keys: Iterable[str]) -> frozenset[str]:
        """The ``keys`` (peer ID text) that still carry a flood penalty (:meth:`flood_penalties`): a spent
        one of them never joins a team as a member (``TeamCaps.barred``)."""
        peers = {}
        for key in keys:
            try:
                peers[PeerId.from_string(key)] = key
            except InvalidPeerId:
                continue
        return frozenset(peers[p] for p in self.flood_penalties(peers))

    async def lookup(self, vector: Any) -> dict[str, Any]:
        """Ask the DHT for the providers of the query's LSH buckets and fetch their cards.

        The buckets are chosen by :func:`~ioa_p2p.dht.probing.plan_probes` for the network's estimated
        size in the forest of our scheme's bucket family (:func:`~ioa_p2p.dht.lsh.card_buckets`). A small
        network is *listed*: every provider of table 0 is fetched as soon as an answer names it (the
        fetches overlap the rest of the lookup); when the listing looks incomplete, table 1 (and, with
        ``lsh_v1``, the version 1 buckets that nodes of the previous release provide) is listed too. A
        larger one is *probed*: when most of the query's own buckets come back full the query is repeated
        one level finer, then the providers are fetched best first
        (:func:`~ioa_p2p.dht.probing.rank_providers`). Providers whose card we hold fresh are skipped.
        """
        size = self.net.network_size()
        settings = self.settings
        families = [(self.forest, self.hyperplanes, self.lsh.view(vector))]
        probe = functools.partial(plan_probes, probes=settings.probes, enumerate_up_to=settings.enumerate)
        plans = [probe(f, v, size) for f, _, v in families]
        old = [b.key for _, h, v in families for b in h.buckets(v)] if settings.lsh_v1 else []
        listing = plans[0].listing
        limit = max(settings.max_fetch, settings.enumerate) if listing else settings.max_fetch
        started = trio.current_time()
        chosen: dict[PeerId, None] = {}
        if listing:
            found = await self._list([k for p in plans for k in p.keys], chosen, limit)
            if any(listing_incomplete(p, found, size) for p in plans):
                second = [probe(f, v, size, table=1) for f, _, v in families]
                found.update(await self._list([k for p in second for k in p.keys] + old, chosen, limit))
                plans += second
        else:
            found = await self.net.get_providers([k for p in plans for k in p.keys] + old, ask=settings.ask)
            finer = needs_finer(plans[0], found, self.forest)
            if finer is not None:
                plans[0] = probe(self.forest, vector, size, level=finer)
                found.update(await self.net.get_providers(list(plans[0].keys), ask=settings.ask))
        found_at = trio.current_time()
        if not listing:
            ranked = list(dict.fromkeys(p for plan in plans for p in rank_providers(plan, found)))
            ranked += [p for key in old for p in sorted(found.get(key, ())) if p not in ranked]
            chosen = dict.fromkeys([p for p in ranked if self.needs_fetch(p)][:limit])
            await self.fetch(list(chosen))
        providers = {p for peers in found.values() for p in peers}
        return {
            "size": round(size),
            "buckets": sum(len(p.keys) for p in plans)
            + (len(old) if len(plans) > len(families) or not listing else 0),
            "passes": 2 if len(plans) > len(families) else 1,
            "listing": listing,
            "providers": len(providers),
            "fetched": len(chosen),
            "providers_s": found_at - started,
            "fetch_s": trio.current_time() - found_at,
        }

    async def _list(
        self, keys: list[bytes], chosen: dict[PeerId, None], limit: int
    ) -> dict[bytes, set[PeerId]]:
        """The providers of ``keys``, fetching the card of every provider not in ``chosen`` yet (added to
        it, up to ``limit`` in all) as soon as an answer names it."""
        send, receive = trio.open_memory_channel[PeerId](math.inf)

        def found_now(key: bytes, providers: set[PeerId]) -> None:
            for peer in sorted(providers):
                if peer not in chosen and len(chosen) < limit and self.needs_fetch(peer):
                    chosen[peer] = None
                    send.send_nowait(peer)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._fetch_as_found, receive)
            found = await self.net.get_providers(keys, ask=self.settings.ask, on_found=found_now)
            send.close()
        return found

    async def _fetch_as_found(self, receive: trio.MemoryReceiveChannel[PeerId]) -> None:
        """Fetch the cards of the peers sent on ``receive`` in small batches as they come (at most
        :data:`FETCH_PARALLEL` batches at once) until the channel closes and every batch is done."""
        limiter = trio.CapacityLimiter(FETCH_PARALLEL)

        async def fetch(batch: list[PeerId]) -> None:
            async with limiter:
                await self.fetch(batch)

        async with trio.open_nursery() as nursery:
            async for first in receive:
                await trio.sleep(FETCH_COALESCE)  # let the answers arriving together share a lookup
                batch = [first]
                while True:
                    try:
                        batch.append(receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                nursery.start_soon(fetch, batch)

    def needs_fetch(self, peer: PeerId, version: int | None = None) -> bool:
        """A peer whose card we hold fresh, or whose withdrawal we learned recently, is not fetched again
        (fresh: learned or confirmed within ``card_refresh`` seconds), unless ``version`` (what a page's
        sketch of it says) is newer than the card held: the directory is the find's card cache, by
        version."""
        if peer == self.me:
            return False
        now = self.now_ms()
        refresh = self.settings.card_refresh * 1000
        withdrawn = self.directory.withdrawn(peer, now)
        newer = version is not None and version > (self.directory.version_of(peer) or 0)
        if withdrawn is not None and now - withdrawn <= refresh:
            return newer
        entry = self.directory.entry(peer, now)
        return entry is None or now - entry.learned_ms > refresh or newer

    async def fetch(
        self,
        peers: list[PeerId],
        *,
        direct: bool = True,
        wanted: bool = True,
        owner_wait: float = DIRECT_TIMEOUT,
    ) -> int:
        """Fetch the newest cards of ``peers``: from each peer itself first (every node serves its own
        record, the freshest copy, in one request; not with ``direct=False``), then, for the peers that
        did not answer with a valid record, from the DHT in one batched lookup. ``wanted=False``: cards of
        peers the directory holds nothing of are stored only while it keeps every card
        (:class:`~ioa_p2p.dht.directory.Directory` ``keep_all``); ``owner_wait``: seconds each owner may
        take (a background fetch waits longer than a find: a request given up under load wasted its dial
        and the owner's work, and the DHT lookup after it costs more). Returns how many records changed
        the directory."""
        if not peers:
            return 0
        keys = {peer: card_key(peer) for peer in peers}
        stored, answered = 0, set[PeerId]()
        if direct:
            own = await self.net.ask_values({p: [k] for p, k in keys.items()}, per_peer=owner_wait)
            stored, answered = self.store_fetched(peers, own, wanted, confirms=True)
        rest = [p for p in peers if p not in answered]
        if rest:
            found = await self.net.get_values([keys[p] for p in rest], ask=self.settings.ask)
            from_dht, answered = self.store_fetched(rest, found, wanted, confirms=False)
            stored += from_dht
            self._no_record([p for p in rest if p not in answered])
        return stored

    def _no_record(self, peers: list[PeerId]) -> None:
        """Remember that neither ``peers`` nor the DHT gave a valid record of them (:meth:`lacks_record`)."""
        now = self.now_ms()
        for peer in peers:
            self.no_record.pop(peer, None)
            self.no_record[peer] = now
        while len(self.no_record) > NO_RECORD_MAX:
            del self.no_record[next(iter(self.no_record))]

    def lacks_record(self, peer: PeerId) -> bool:
        """True when a fetch found no valid record of ``peer``, from it or in the DHT, within the last
        :data:`NO_RECORD_FOR` seconds (a find asking the DHT would not find its card either)."""
        at = self.no_record.get(peer)
        return at is not None and self.now_ms() - at <= NO_RECORD_FOR * 1000

    def store_fetched(
        self, peers: list[PeerId], found: dict[str, list[bytes]], wanted: bool = True, *, confirms: bool
    ) -> tuple[int, set[PeerId]]:
        """Verify the values found for ``peers`` and apply each peer's newest record (card or withdrawal)
        to the directory; returns how many changed it, and the peers a valid record was found for.
        ``confirms``: whether a card of the version held confirms it (see :meth:`apply`)."""
        now = self.now_ms()
        stored = 0
        answered: set[PeerId] = set()
        for peer in peers:
            records: list[CardRecord | None] = []
            for value in found.get(card_key(peer), []):
                try:
                    parsed = parse_record(value, now_ms=now, peer=peer)
                    check_stamp(parsed, self.settings.min_stamp_bits)
                    records.append(parsed)
                except InvalidMessage as exc:
                    self.stats["dht_rejected"] += 1
                    log.debug("rejected a DHT record of %s: %s", peer, exc)
            best = newest_record(records)
            if best is None:
                continue
            record = records[best]
            assert record is not None
            answered.add(peer)
            self.stats["dht_fetched"] += 1
            if self.apply(record, now, "dht", wanted=wanted, confirms=confirms).changed:
                stored += 1
        return stored, answered

    def apply(
        self, record: CardRecord, now: int, source: str, *, wanted: bool = True, confirms: bool = True
    ) -> Offer:
        """Offer a verified card or withdrawal to the directory (``wanted``: see :meth:`Directory.offer`).
        A card of the version held confirms it (its ``learned_ms`` is renewed) when it comes from its
        owner (gossip, or the owner's own answer), not when the DHT alone had it (``confirms=False``): a
        storing peer that was offline when its owner put a withdrawal still serves the old card, and a
        live owner has issued a newer version by the time a card is revalidated (``revalidate`` is at
        least 1.2 x ``republish``), so a card only the DHT still vouches for is dropped at
        ``revalidate + find_timeout`` (the bound on revocation, docs/performance.md)."""
        if isinstance(record, SignedWithdrawal):
            offer = self.directory.withdraw(record, now)
            new = offer is Offer.WITHDRAWN
        else:
            offer = self.directory.offer(record, now, source, wanted=wanted)
            if offer is Offer.UNCHANGED and confirms:
                self.directory.touch(record.peer_id, now)
            new = offer.changed
        if new and self.on_new is not None and record.peer_id != self.me:
            self.on_new(record)
        return offer


__all__ = ["DIRECT_TIMEOUT", "CardSearch"]
