"""Capability discovery on a running node: the :class:`Discovery` service.

What it does (the wire formats are in ``docs/protocol.md §9``):

- embeds the node's agent text (``[agent]`` table, :func:`ioa_p2p.card.card_text`) with the configured
  embedder and issues a signed card, a new version every ``republish`` seconds (well before ``ttl``);
- DHT (the :class:`~ioa_p2p.node.ports.CardNetPort` ``open_node`` passes in; on libp2p Kademlia in
  server mode with strict validation): registers the ``/ioa/`` namespace validator, stores the card
  under ``/ioa/card/<peer id>`` and provides the card's LSH version 2 bucket keys (its prefix at every
  level of every table, :mod:`~ioa_p2p.dht.forest`), as :class:`~ioa_p2p.dht.pacing.PublishPolicy`
  decides (new version, new keys, routing table grown and settled, periodic refresh);
- gossip: announces the card on start and on every new version; re-announces when more peers have
  subscribed since, at a pace that halves each time (:class:`AnnouncePacer`: 3 s, 6 s, 12 s ... up to
  the republish interval), so a forming network of N nodes carries O(N log N) announcements, not O(N^2);
  learns other cards from announcements that pass the topic validator, and fetches from the DHT the
  cards of gossip neighbours it has none of (a node that joins a settled network learns its neighbours'
  cards this way, since they no longer re-announce for one newcomer);
- keeps a local :class:`~ioa_p2p.dht.directory.Directory` of verified cards with expiry and a vector index
  (annoy snapshots rebuilt in a worker thread);
- :meth:`Discovery.find`: embeds the query, asks the DHT for the providers of the buckets
  :mod:`~ioa_p2p.dht.probing` chooses for the network's size (all of a small network; the query's
  nearest buckets at a fitting level in a large one), fetches and verifies the cards of the providers
  we do not hold fresh, and ranks the whole directory with the offline matcher
  (:meth:`~ioa_p2p.dht.directory.Directory.rank`, in a worker thread: cards of any model, foreign ones
  re-embedded from their text).

The background loops are in :mod:`~ioa_p2p.node.discovery.loops`. Control API
(:mod:`~ioa_p2p.node.discovery.routes`): ``POST /find {"text", "k"?, "dht"?}``, ``GET /cards``,
``GET /card``, ``POST /card``. :func:`~ioa_p2p.node.discovery.run.open_discovery` runs the service.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import trio

from ioa_p2p.api.discovery import FIND_MAX_K
from ioa_p2p.budget import TRUST_KNOWN, TRUST_STRANGER
from ioa_p2p.card import SignedCard
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.census import CensusPolicy, card_pulled
from ioa_p2p.dht.census import directory_complete as census_complete
from ioa_p2p.dht.directory import Directory, GapWatch, Match
from ioa_p2p.dht.relaycap import RelayCap
from ioa_p2p.dht.settings import AgentSettings, DiscoverySettings
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery.intake import GossipIntake
from ioa_p2p.node.discovery.own_card import CardOwner
from ioa_p2p.node.discovery.pages import PagePublisher, search_pages
from ioa_p2p.node.discovery.search import DIRECT_TIMEOUT, CardSearch
from ioa_p2p.node.discovery.warm import WarmState
from ioa_p2p.node.net.cpu_wait import loop_monotonic
from ioa_p2p.node.ports import CardNetPort, CardTopicPort, NodePort

log = logging.getLogger("ioa_p2p.discovery")

MAX_K = FIND_MAX_K  # agents one find returns at most (the control API's limit)


class Discovery(CardOwner):
    """The discovery service of one node (``node.services.discovery``): finds, gossip, DHT fetches; its own
    card is :class:`~ioa_p2p.node.discovery.own_card.CardOwner`'s."""

    def __init__(
        self,
        node: NodePort,
        settings: DiscoverySettings,
        agent: AgentSettings,
        embedder: Embedder,
        directory: Directory,
        gossip: CardTopicPort | None,
        net: CardNetPort,
    ) -> None:
        self.node = node
        self.net = net
        self.settings = settings
        self.agent = agent
        self.embedder = embedder
        self.directory = directory
        self.gossip = gossip
        #: past ``[discovery] relay_all`` gossip carries only what is new (dht/relaycap.py; observe_size)
        self.relay_cap = RelayCap(settings.relay_all)
        self._start_own_card()
        #: rate limits of gossip announcements (the DHT's records have their own: :attr:`dht_admission`)
        self.admission = CardAdmission(
            new_cards=settings.new_cards, updates=settings.updates, me=node.peer_id
        )
        self.dht_admission: CardAdmission | None = None
        self.last_find: dict[str, Any] = {}  # what the last find did and how long each part took
        #: each agent's record in the chat histories this node holds (kept by the goals service)
        self.reputation: dict[str, Any] = {}
        #: peers held for less than [goals] trust_age with no task done (set by the goals service)
        self.young: frozenset[str] = frozenset()
        self.unproven: frozenset[str] = frozenset()  # no task done on record, however old (goals service)
        self.spent: frozenset[str] = frozenset()  # joined their budget of this node's recent teams (goals)
        self.over_ceiling: frozenset[str] = frozenset()  # spent, and past the teams they may add (goals)
        #: member slots the window still gives unproven peers over this node's teams (goals service)
        self.unproven_left: int | None = None
        self.stats = {
            "finds": 0,
            "dht_fetched": 0,
            "dht_rejected": 0,
            "gossip_accepted": 0,
            "gossip_over_limit": 0,
            "gossip_held_back": 0,
            "revalidated": 0,
            "dropped_unconfirmed": 0,
            "sketch_mismatch": 0,
            "announced_growth": 0,  # re-announcements because more peers subscribed (announce_loop)
            "renewals": 0,  # new versions of our card every ``republish`` s (republish_loop)
            "renewals_not_announced": 0,  # past relay_all: unchanged renewals left to the DHT
            "gossip_not_relayed": 0,  # past relay_all: others' unchanged renewals applied, not forwarded
            "lapsed": 0,  # past relay_all: cards not needed, let go at revalidate instead of fetched
        }
        self.pages = PagePublisher()  # our sketch in bucket pages (node/discovery/pages.py)
        #: who publishes cards in a small network, asked of the DHT (node/discovery/census.py)
        self.census = CensusPolicy()
        self.warm = WarmState(directory.ranker, settings.warm)  # node/discovery/warm.py
        self.gap = GapWatch()  # a gap (asleep) makes every card held a suspect (Directory.rejoined)
        self.search = CardSearch(
            node.peer_id, net, directory, settings, embedder.model_id, embedder.dim, self.now_ms, self.stats
        )
        if gossip is not None:  # one view of the network's cards per process of agents (cohosted.py)
            self.search.on_new = lambda r: gossip.pass_on(r.peer_id, r.version, r.encoded)
        #: the topic validator and delivery of card announcements (node/discovery/intake.py)
        self.intake = GossipIntake(
            node.peer_id,
            directory,
            self.search,
            self.admission,
            settings.min_stamp_bits,
            self.now_ms,
            self.stats,
            self.relay_cap,
        )

    # ------------------------------------------------------------------ gossip callbacks

    def check_gossip(self, publisher: PeerId, data: bytes) -> bool:
        """Topic validator of card announcements (:meth:`GossipIntake.check`)."""
        return self.intake.check(publisher, data)

    def on_gossip(self, publisher: PeerId, data: bytes) -> None:
        """Apply a validated announcement within the rate limits (:meth:`GossipIntake.deliver`)."""
        self.intake.deliver(publisher, data)

    # ------------------------------------------------------------------ find

    def note_clocks(self) -> None:
        """Before a read and on each revalidation pass: back from a gap, every card held is a suspect
        until confirmed again (:class:`~ioa_p2p.dht.directory.GapWatch`)."""
        now = self.now_ms()  # against the loop's time with its waits for a CPU (a RunnableClock) counted
        if self.gap.back(now, loop_monotonic()):
            self.directory.rejoined(now)
            log.info("back from a gap: the cards held are confirmed again before they are returned")

    async def find(
        self, text: str, k: int = 5, *, use_dht: bool | None = None, include_self: bool = True
    ) -> list[Match]:
        """The ``k`` agents whose cards best match ``text``, best first. ``use_dht``: True asks the DHT,
        False ranks only the cards held, None (default) asks it unless ``[discovery] dht`` is off or the
        directory already lists the whole network (:meth:`directory_complete`)."""
        if not isinstance(text, str) or not text.strip():
            raise UsageError("find needs a non-empty text describing the task")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise UsageError(f"k must be an integer between 1 and {MAX_K}")
        self.stats["finds"] += 1
        self.note_clocks()
        started = trio.current_time()
        timings: dict[str, Any] = {}
        ask_dht = self.settings.dht if use_dht is None else use_dht
        if use_dht is None and ask_dht and self.directory_complete():
            ask_dht, timings["dht_skipped"] = False, True
        if ask_dht:
            vector = (await self._embed([text]))[0]
            timings["embed_s"] = trio.current_time() - started
            with trio.move_on_after(self.settings.find_timeout) as scope:
                timings.update(await self.lookup_dht(vector, text, k))
            timings["dht_timeout"] = scope.cancelled_caught
        exclude = frozenset() if include_self else frozenset({self.node.peer_id})
        rank = functools.partial(self.directory.rank, text, k, self.now_ms(), exclude=exclude)
        ranked_at = trio.current_time()
        matches = await self.node.run_sync(rank)
        self.directory.used([m.card.peer_id for m in matches], self.now_ms())
        self.directory.trim(self.now_ms())
        timings["rank_s"] = trio.current_time() - ranked_at
        self.last_find = timings
        return matches

    def directory_complete(self) -> bool:
        """True when the local directory provably lists the whole (small) network
        (:func:`~ioa_p2p.dht.census.directory_complete`: a recent census of the DHT's publishers, every
        one of them and every card publisher this node knows held). A find then ranks the directory
        without asking the DHT (the DHT would name the same cards; gossip and revalidation keep them
        current); otherwise it asks the DHT and ranks its answer merged with the directory."""
        if self.gossip is None:  # nothing keeps the directory current: always ask the DHT
            return False
        now = self.now_ms()

        def held(peer: PeerId) -> bool:
            return (
                peer == self.node.peer_id
                or self.directory.entry(peer, now) is not None
                or self.directory.withdrawn(peer, now) is not None
                or self.search.lacks_record(peer)
            )

        known = [*self.net.card_peers(), *self.gossip.topic_peer_ids()]
        return census_complete(
            self.census.last,
            now=trio.current_time(),
            size=self.net.network_size(),
            enumerate_up_to=self.settings.enumerate,
            partial=self.directory.partial,
            held=held,
            known=known,
        )

    def growth_pulled(self) -> bool:
        """True when newcomers to the card topic get our card by pulling it, so that its growth needs no
        re-announcement (:meth:`~ioa_p2p.dht.pacing.AnnouncePacer.due`): our last census (taken or
        adopted, recent) named our own card, so a newcomer's census names it too, and our directory holds
        every card it named (:func:`~ioa_p2p.dht.census.card_pulled`: the network formed)."""
        now = self.now_ms()

        def held(peer: PeerId) -> bool:
            return (
                self.directory.entry(peer, now) is not None
                or self.directory.withdrawn(peer, now) is not None
                or self.search.lacks_record(peer)
            )

        size = self.net.network_size()
        return card_pulled(self.census.last, now=trio.current_time(), held=held, size=size)

    async def lookup_dht(self, vector: Any, text: str = "", k: int = 5) -> dict[str, Any]:
        """Ask the DHT for the cards that may match ``text`` (embedded: ``vector``; the best ``k`` wanted):
        over bucket pages (``[discovery] pages``, :func:`~ioa_p2p.node.discovery.pages.search_pages`), and
        over provider records (:meth:`CardSearch.lookup`) when pages are off or named too few candidates
        (peers of a release without pages)."""
        if self.settings.pages:
            found = await search_pages(self.search, vector, text, k)
            if found["providers"] >= 0.5 * min(self.settings.page_fetch, self.net.network_size() - 1):
                return found
            return {"pages": found, **await self.search.lookup(vector)}
        return await self.search.lookup(vector)

    def vouch(self, peer: PeerId) -> int:
        """The node's budgets trust a peer whose valid card this node holds (``TRUST_KNOWN``)."""
        return TRUST_KNOWN if self.directory.get(peer, self.now_ms()) is not None else TRUST_STRANGER

    async def fetch_card(self, peer: PeerId) -> SignedCard | None:
        """The newest valid card of ``peer`` (asking the peer, then the DHT), stored in the directory."""
        await self.fetch_cards([peer])
        return self.directory.get(peer, self.now_ms())

    async def fetch_cards(
        self, peers: list[PeerId], *, wanted: bool = True, owner_wait: float = DIRECT_TIMEOUT
    ) -> int:
        """Fetch and store the newest records of ``peers`` (:meth:`CardSearch.fetch`); how many were new."""
        return await self.search.fetch(peers, wanted=wanted, owner_wait=owner_wait)

    # ------------------------------------------------------------------ for the background loops

    def observe_size(self) -> bool:
        """Update the capped mode from the network's size estimate (or the cards held, if more); True
        when past ``relay_all``. Past it the directory is partial: finds ask the DHT (without the DHT,
        ``[discovery] dht = false``, gossip is all there is: never capped)."""
        if not self.settings.dht:
            return False
        size = max(self.net.network_size(), float(len(self.directory)))
        capped = self.relay_cap.observe(size)
        if capped:
            self.directory.partial = True
        return capped

    def stale_due(self) -> list[PeerId]:
        """Publishers whose dropped new version the directory still lacks (:meth:`GossipIntake.stale_due`)."""
        return self.intake.stale_due()

    def catch_up_mark(self) -> tuple[int, ...]:
        """What the catch-up's scan looks at, in short (counts, no listing): topic peers, routing table,
        cards held, dropped versions waiting; a change makes a scan due at once (``QuietScan``)."""
        topic = 0 if self.gossip is None else self.gossip.topic_peers()
        return (topic, self.net.routing_table_size(), len(self.directory), self.intake.stale_pending())

    def withheld(self, peer: PeerId) -> bool:
        """True when ``peer`` has withdrawn its card (no need to fetch it)."""
        return self.directory.withdrawn(peer, self.now_ms()) is not None


__all__ = ["Discovery"]
