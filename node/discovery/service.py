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
from ioa_p2p.card import (
    MAX_REASON,
    SignedCard,
    SignedWithdrawal,
    card_text,
    issue_card,
    issue_withdrawal,
    next_version,
)
from ioa_p2p.card.stamp import yield_gil
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.census import CensusPolicy
from ioa_p2p.dht.census import directory_complete as census_complete
from ioa_p2p.dht.directory import Directory, GapWatch, Match
from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.lsh import CardBuckets, Hyperplanes
from ioa_p2p.dht.pacing import ANNOUNCE_MIN_INTERVAL, AnnouncePacer, PublishPolicy
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.settings import LIST_FIELDS, AgentSettings, DiscoverySettings
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import ConfigError, InvalidCard, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.matching import is_matcher
from ioa_p2p.node.discovery.intake import GossipIntake
from ioa_p2p.node.discovery.pages import PagePublisher, search_pages
from ioa_p2p.node.discovery.search import CardSearch
from ioa_p2p.node.discovery.warm import WarmState
from ioa_p2p.node.ports import CardNetPort, CardTopicPort, NodePort

log = logging.getLogger("ioa_p2p.discovery")

MAX_K = FIND_MAX_K  # agents one find returns at most (the control API's limit)


class Discovery:
    """The discovery service of one node (``node.services.discovery``)."""

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
        #: rate limits of gossip announcements (the DHT's records have their own: :attr:`dht_admission`)
        self.admission = CardAdmission(
            new_cards=settings.new_cards, updates=settings.updates, me=node.peer_id
        )
        self.dht_admission: CardAdmission | None = None
        self.publish_policy = PublishPolicy()
        self.card: SignedCard | None = None
        self.withdrawal: SignedWithdrawal | None = None  # set while our card is withdrawn
        self.card_ready = trio.Event()  # set once the first card is issued
        self._vector: Any = None
        self._agent_changed = trio.Event()
        self._adopted = 0  # agent settings adopted so far, and how many of them a card reflects
        self._issued = 0
        self._card_issued = trio.Event()  # set (and replaced) each time card_loop issues a card
        self._dht_wake = trio.Event()
        #: the last :meth:`provided_keys` and what they were computed from (the publishing loop asks every
        #: second; the cells' projections are worth computing only when an input changed)
        self._provided: tuple[tuple[object, ...], tuple[int, ...], tuple[bytes, ...]] | None = None
        self.pacer = AnnouncePacer(most=max(ANNOUNCE_MIN_INTERVAL, settings.republish))
        self.last_find: dict[str, Any] = {}  # what the last find did and how long each part took
        #: each agent's record in the chat histories this node holds (kept by the goals service)
        self.reputation: dict[str, Any] = {}
        #: peers held for less than [goals] trust_age with no task done (set by the goals service)
        self.young: frozenset[str] = frozenset()
        self.unproven: frozenset[str] = frozenset()  # no task done on record, however old (goals service)
        self.spent: frozenset[str] = frozenset()  # joined their budget of this node's recent teams (goals)
        #: member slots the window still gives unproven peers over this node's teams (goals service)
        self.unproven_left: int | None = None
        self.stats = {
            "finds": 0,
            "dht_fetched": 0,
            "dht_rejected": 0,
            "gossip_accepted": 0,
            "gossip_over_limit": 0,
            "revalidated": 0,
            "dropped_unconfirmed": 0,
            "sketch_mismatch": 0,
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
        )

    @property
    def forest(self) -> Forest:
        return self.search.forest

    @property
    def hyperplanes(self) -> Hyperplanes:
        return self.search.hyperplanes

    @property
    def lsh(self) -> CardBuckets:
        """Our scheme's bucket family and the part of vectors it reads (``dht.lsh.card_buckets``)."""
        return self.search.lsh

    # ------------------------------------------------------------------ own card

    @property
    def card_vector(self) -> Any:
        """Our card's vector (None before the first embedding)."""
        return self._vector

    def now_ms(self) -> int:
        """The node's wall clock in milliseconds (card issue times, expiry, flood guard)."""
        return int(self.node.now() * 1000)

    async def _embed(self, texts: list[str]) -> Any:
        WarmState.note_embedding()
        return await self.node.run_sync(lambda: self.embedder.embed(texts))

    async def set_agent(self, agent: AgentSettings) -> SignedCard:
        """Adopt new agent settings: re-embed, issue a new card version and announce it everywhere."""
        if is_matcher(self.embedder):  # the matcher's card scheme: every field counts
            vector = (await self._card_vectors(agent))[0]
        else:
            text = card_text(agent.name, agent.description, agent.skills, agent.task_types)
            vector = (await self._embed([text]))[0]
        self.agent, self._vector = agent, vector
        card = await self.republish(revive=True)
        assert card is not None
        return card

    async def _card_vectors(self, agent: AgentSettings) -> Any:
        from ioa_p2p.matching import CardProfile, HybridMatcher

        assert isinstance(self.embedder, HybridMatcher)
        fields = {key: getattr(agent, key) for key in LIST_FIELDS}
        profile = CardProfile.make(agent.name, agent.description, **fields)
        embed = functools.partial(self.embedder.card_vectors, [profile])
        WarmState.note_embedding()
        return await self.node.run_sync(embed)

    def adopt_agent(self, agent: AgentSettings) -> None:
        """Adopt new agent settings without waiting: :meth:`card_loop` embeds them (loading the models
        on first use, in a worker thread) and issues the card, so a node starts before any model loads."""
        self.agent = agent
        self._adopted += 1
        self._agent_changed.set()

    async def card_loop(self) -> None:
        """Issue a card version for every :meth:`adopt_agent` (the latest settings win).

        The first waits until every node service is open: one may still fill the card (the adapter's
        task types, say), and a first version without them would reach peers and be used for routing
        before its replacement arrives."""
        await self.node.services_ready.wait()
        while True:
            await self._agent_changed.wait()
            self._agent_changed = trio.Event()
            adopted = self._adopted
            await self.set_agent(self.agent)
            self._issued = adopted
            self._card_issued.set()
            self._card_issued = trio.Event()

    async def wait_card_current(self) -> None:
        """Until the card reflects every agent setting adopted so far (an adapter's description merged at
        start, say), so that the first announcement is not a version about to be replaced."""
        while self._issued < self._adopted:
            await self._card_issued.wait()

    async def republish(self, *, revive: bool = False) -> SignedCard | None:
        """Issue a new version of our card (fresh expiry) and publish it (nothing before the first
        embedding is done, nothing while the card is withdrawn unless ``revive``: new agent settings).

        The card is stamped with ``stamp_bits`` of proof of work (:mod:`ioa_p2p.card.stamp`), minted in a
        worker thread when the content changed, reused otherwise."""
        if self._vector is None or (self.withdrawal is not None and not revive):
            return None
        now = self.now_ms()
        agent = self.agent
        previous = max([r.version for r in (self.card, self.withdrawal) if r is not None], default=None)
        stamp = getattr(self.card.card, "stamp", b"") if self.card is not None else b""
        issue = functools.partial(
            issue_card,
            self.node.identity,
            name=agent.name,
            description=agent.description,
            skills=agent.skills,
            task_types=agent.task_types,
            adapter=agent.adapter,
            languages=agent.languages,
            input_types=agent.input_types,
            output_types=agent.output_types,
            tools=agent.tools,
            model=self.embedder.model_id,
            vector=self._vector,
            addrs=self.node.advertised_addrs()[:16],
            version=next_version(previous, now),
            now_ms=now,
            ttl_ms=int(self.settings.ttl * 1000),
            stamp_bits=self.settings.stamp_bits,
            stamp=stamp,
            pause=yield_gil,  # the event loop keeps its wake-ups while the stamp is minted
        )
        try:
            card = await self.node.run_sync(issue, gil_bound=True)
        except InvalidCard as exc:
            raise ConfigError(f"the [agent] settings do not make a valid card: {exc}") from None
        self.card, self.withdrawal = card, None
        self.card_ready.set()
        self.directory.offer(card, now, "self")
        self._dht_wake.set()
        # before services are ready :meth:`go_live` announces the final card; a version already
        # superseded by newer settings (card_loop issues those next) is not announced either
        if self.node.services_ready.is_set() and not self._agent_changed.is_set():
            await self.announce()
        return card

    async def withdraw(self, reason: str = "") -> SignedWithdrawal:
        """Withdraw our card everywhere: sign a withdrawal of a version above every card issued, drop the
        card from our directory, announce the withdrawal by gossip and put it in the DHT (at once, by the
        publishing loop). The card stays withdrawn until new agent settings are adopted (``POST /card``)."""
        if self.card is None:
            raise UsageError("this node has issued no card yet; there is nothing to withdraw")
        if len(reason.encode("utf-8", "surrogatepass")) > MAX_REASON:
            raise UsageError(f"a withdrawal reason is at most {MAX_REASON} bytes")
        now = self.now_ms()
        previous = max(r.version for r in (self.card, self.withdrawal) if r is not None)
        withdrawal = issue_withdrawal(
            self.node.identity, version=next_version(previous, now), now_ms=now, reason=reason
        )
        self.withdrawal = withdrawal
        self.directory.remove(self.node.peer_id)
        self.directory.withdraw(withdrawal, now)
        self._dht_wake.set()
        await self.announce()
        return withdrawal

    def current_record(self) -> SignedCard | SignedWithdrawal | None:
        """What we publish now under ``/ioa/card/<us>``: our withdrawal while withdrawn, else our card."""
        return self.withdrawal if self.withdrawal is not None else self.card

    async def go_live(self) -> None:
        """Wait until every node service is open (one may still change the card), then announce it."""
        await self.node.services_ready.wait()
        await self.card_ready.wait()
        await self.wait_card_current()
        await self.announce()

    async def announce(self) -> None:
        record = self.current_record()
        if self.gossip is not None and record is not None:
            self.pacer.announced(self.gossip.topic_peers(), trio.current_time())
            try:
                await self.gossip.announce(record.encoded)
            except Exception as exc:  # the library raises when no peer is reachable
                log.debug("gossip announce failed: %s", exc)

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
        now = self.now_ms()
        if self.gap.back(now, trio.current_time()):
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
        self.directory.used([m.card.peer_id for m in matches])
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

    async def fetch_cards(self, peers: list[PeerId], *, wanted: bool = True) -> int:
        """Fetch and store the newest records of ``peers`` (:meth:`CardSearch.fetch`); how many were new."""
        return await self.search.fetch(peers, wanted=wanted)

    # ------------------------------------------------------------------ for the background loops

    def stale_due(self) -> list[PeerId]:
        """Publishers whose dropped new version the directory still lacks (:meth:`GossipIntake.stale_due`)."""
        return self.intake.stale_due()

    def withheld(self, peer: PeerId) -> bool:
        """True when ``peer`` has withdrawn its card (no need to fetch it)."""
        return self.directory.withdrawn(peer, self.now_ms()) is not None

    def dht_record(self) -> tuple[int, bytes] | None:
        """Our record for ``/ioa/card/<us>``: its version and bytes (None before the first card)."""
        record = self.current_record()
        return None if record is None else (record.version, record.encoded)

    def provided_keys(self) -> tuple[bytes, ...]:
        """The bucket keys our card is provided under (empty before the first card): LSH version 2 (the
        forest, at the levels the network's size calls for: :func:`~ioa_p2p.dht.probing.provided_levels`),
        and the version 1 bucket of each table, which nodes of the previous release probe."""
        if self.card is None or self._vector is None or self.withdrawal is not None:
            return ()
        levels = provided_levels(self.net.network_size())
        inputs = (self.card, self._vector, self.forest, self.lsh)
        memo = self._provided
        if (
            memo is not None
            and memo[1] == levels
            and all(a is b for a, b in zip(memo[0], inputs, strict=True))
        ):
            return memo[2]
        forest = [cell.key for cell in self.forest.cells(self.lsh.view(self._vector), levels)]
        old = [b.key for b in self.lsh.buckets(self._vector)] if self.settings.lsh_v1 else []
        keys = tuple(forest + old)
        self._provided = (inputs, levels, keys)
        return keys

    async def wait_dht_wake(self, timeout: float) -> None:  # noqa: ASYNC109 - the loop's pace
        """Until our card changes, at most ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            await self._dht_wake.wait()
        self._dht_wake = trio.Event()


__all__ = ["Discovery"]
