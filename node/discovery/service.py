"""Capability discovery on a running node: the :class:`Discovery` service.

What it does (the wire formats are in ``docs/protocol.md §9``):

- embeds the node's agent text (``[agent]`` table, :func:`ioa_p2p.card.card_text`) with the configured
  embedder and issues a signed card, a new version every ``republish`` seconds (well before ``ttl``);
- DHT (the :class:`~ioa_p2p.node.ports.CardNetPort` ``open_node`` passes in; on libp2p Kademlia in
  server mode with strict validation): registers the ``/ioa/`` namespace validator,
  stores the card under ``/ioa/card/<peer id>`` and provides the card's LSH bucket keys (one per
  table); re-stores and re-provides when the routing table has doubled since and then kept its size
  for :data:`DHT_SETTLE` s (the closest peers of our keys may have changed) and re-provides when the
  buckets change, at most every :data:`PROVIDE_MIN_INTERVAL` s (py-libp2p rate-limits ADD_PROVIDER);
- gossip: announces the card on start and on every new version; re-announces when more peers have
  subscribed since, at a pace that halves each time (:class:`AnnouncePacer`: 3 s, 6 s, 12 s ... up to
  the republish interval), so a forming network of N nodes carries O(N log N) announcements, not O(N^2);
  learns other cards from announcements that pass the topic validator, and fetches from the DHT the
  cards of gossip neighbours it has none of (a node that joins a settled network learns its neighbours'
  cards this way, since they no longer re-announce for one newcomer);
- keeps a local :class:`~ioa_p2p.dht.directory.Directory` of verified cards with expiry and a vector index
  (annoy snapshots rebuilt in a worker thread);
- :meth:`Discovery.find`: embeds the query, probes the query's LSH buckets and near buckets in the DHT
  (asking the closest peers, never trusting local copies alone), fetches and verifies the cards of the
  providers we do not hold fresh, and ranks the whole directory with the offline matcher
  (:meth:`~ioa_p2p.dht.directory.Directory.rank`, in a worker thread: cards of any model, foreign ones
  re-embedded from their text).

Control API (:mod:`~ioa_p2p.node.discovery.routes`): ``POST /find {"text", "k"?, "dht"?}``, ``GET /cards``,
``GET /card``, ``POST /card``. :func:`~ioa_p2p.node.discovery.run.open_discovery` runs the service.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any

import trio

from ioa_p2p.api.discovery import FIND_MAX_K
from ioa_p2p.budget import TRUST_KNOWN, TRUST_STRANGER
from ioa_p2p.card import SignedCard, card_text, issue_card, next_version, parse_card, select_newest
from ioa_p2p.dht.directory import Directory, Match, Offer
from ioa_p2p.dht.index import AnnoyIndex
from ioa_p2p.dht.lsh import CardBuckets, card_buckets
from ioa_p2p.dht.settings import LIST_FIELDS, AgentSettings, DiscoverySettings
from ioa_p2p.dht.validators import card_key, check_announcement
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import ConfigError, InvalidCard, InvalidMessage, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.matching import CardProfile, HybridMatcher
from ioa_p2p.node.discovery.pacing import ANNOUNCE_MIN_INTERVAL, AnnouncePacer, grew_enough
from ioa_p2p.node.discovery.warm import WarmState
from ioa_p2p.node.ports import CardNetPort, CardTopicPort, NodePort

log = logging.getLogger("ioa_p2p.discovery")

#: py-libp2p accepts at most 10 ADD_PROVIDER per 10 s from one peer; we send one per LSH table.
PROVIDE_MIN_INTERVAL = 12.0
#: Provider records live 48 h on the peers that store them: announce again well before.
PROVIDE_REFRESH = 6 * 3600.0
#: Seconds between catch-up rounds (neighbours' cards fetched from the DHT), and before asking the DHT
#: again for one neighbour's card it did not have.
CATCH_UP_INTERVAL = 2.0
CATCH_UP_RETRY = 30.0
CATCH_UP_BATCH = 32
#: Publishers whose new version the flood guard dropped are fetched from the DHT at the next catch-up
#: ticks (up to this many tries, until the directory holds that version), so an honest update that came
#: too soon after the previous one is late, never lost. At most STALE_MAX publishers are remembered.
STALE_TRIES = 5
STALE_MAX = 4096
#: Flood guard: new card versions of one peer closer together than this are rejected.
GOSSIP_UPDATE_INTERVAL_MS = 100
DHT_PUBLISH_TIMEOUT = 30.0
#: Seconds the routing table must keep its size before a growth-triggered DHT re-publish.
DHT_SETTLE = 3.0
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
        self.lsh: CardBuckets = card_buckets(embedder.model_id, embedder.dim)
        self.card: SignedCard | None = None
        self.card_ready = trio.Event()  # set once the first card is issued
        self._vector: Any = None
        self._agent_changed = trio.Event()
        self._adopted = 0  # agent settings adopted so far, and how many of them a card reflects
        self._issued = 0
        self._card_issued = trio.Event()  # set (and replaced) each time card_loop issues a card
        self._dht_wake = trio.Event()
        self._last_update: dict[PeerId, int] = {}
        self.pacer = AnnouncePacer(most=max(ANNOUNCE_MIN_INTERVAL, settings.republish))
        self._asked_at: dict[PeerId, float] = {}
        #: publisher -> (version the flood guard dropped, DHT fetches left)
        self._stale: dict[PeerId, tuple[int, int]] = {}
        self.stats = {"finds": 0, "dht_fetched": 0, "dht_rejected": 0, "gossip_accepted": 0}
        self.warm = WarmState(directory.ranker)  # the matcher's background warm-up (node/discovery/warm.py)

    # ------------------------------------------------------------------ own card

    def now_ms(self) -> int:
        """The node's wall clock in milliseconds (card issue times, expiry, flood guard)."""
        return int(self.node.now() * 1000)

    async def _embed(self, texts: list[str]) -> Any:
        return await self.node.run_sync(lambda: self.embedder.embed(texts))

    async def set_agent(self, agent: AgentSettings) -> SignedCard:
        """Adopt new agent settings: re-embed, issue a new card version and announce it everywhere."""
        if isinstance(self.embedder, HybridMatcher):  # the matcher's card scheme: every field counts
            vector = (await self._card_vectors(agent))[0]
        else:
            vector = (
                await self._embed([card_text(agent.name, agent.description, agent.skills, agent.task_types)])
            )[0]
        self.agent, self._vector = agent, vector
        card = await self.republish()
        assert card is not None
        return card

    async def _card_vectors(self, agent: AgentSettings) -> Any:
        assert isinstance(self.embedder, HybridMatcher)
        fields = {key: getattr(agent, key) for key in LIST_FIELDS}
        profile = CardProfile.make(agent.name, agent.description, **fields)
        embed = functools.partial(self.embedder.card_vectors, [profile])
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

    async def republish(self) -> SignedCard | None:
        """Issue a new version of our card (fresh expiry) and publish it (nothing before the first
        embedding is done)."""
        if self._vector is None:
            return None
        now = self.now_ms()
        agent = self.agent
        try:
            card = issue_card(
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
                version=next_version(None if self.card is None else self.card.version, now),
                now_ms=now,
                ttl_ms=int(self.settings.ttl * 1000),
            )
        except InvalidCard as exc:
            raise ConfigError(f"the [agent] settings do not make a valid card: {exc}") from None
        self.card = card
        self.card_ready.set()
        self.directory.offer(card, now, "self")
        self._dht_wake.set()
        # before services are ready :meth:`go_live` announces the final card; a version already
        # superseded by newer settings (card_loop issues those next) is not announced either
        if self.node.services_ready.is_set() and not self._agent_changed.is_set():
            await self.announce()
        return card

    async def go_live(self) -> None:
        """Wait until every node service is open (one may still change the card), then announce it."""
        await self.node.services_ready.wait()
        await self.card_ready.wait()
        await self.wait_card_current()
        await self.announce()

    async def announce(self) -> None:
        if self.gossip is not None and self.card is not None:
            self.pacer.announced(self.gossip.topic_peers(), trio.current_time())
            try:
                await self.gossip.announce(self.card.encoded)
            except Exception as exc:  # the library raises when no peer is reachable
                log.debug("gossip announce failed: %s", exc)

    # ------------------------------------------------------------------ gossip callbacks

    def check_gossip(self, publisher: PeerId, data: bytes) -> bool:
        """Topic validator: a valid, live card of the publisher itself, not older than ours.

        Rejecting costs the forwarder GossipSub score, so only provably bad announcements are
        rejected: re-announcements of the version we hold are accepted (and ignored on delivery).
        A flood guard rejects a *new* version arriving less than :data:`GOSSIP_UPDATE_INTERVAL_MS`
        after the previous one from the same publisher (an honest node issues one per
        ``republish`` interval).
        """
        now = self.now_ms()
        known = self.directory.version_of(publisher)
        try:
            card = check_announcement(data, publisher=publisher, known_version=known, now_ms=now)
        except InvalidMessage as exc:
            log.debug("dropped a card announcement from %s: %s", publisher, exc)
            return False
        if publisher != self.node.peer_id and card.version != known:
            last = self._last_update.get(publisher)
            if last is not None and now - last < GOSSIP_UPDATE_INTERVAL_MS:
                log.debug("dropped a card announcement from %s: new versions too frequent", publisher)
                if publisher in self._stale or len(self._stale) < STALE_MAX:
                    self._stale[publisher] = (card.version, STALE_TRIES)
                return False
            if len(self._last_update) > 10_000:
                self._last_update = {
                    p: t for p, t in self._last_update.items() if now - t < GOSSIP_UPDATE_INTERVAL_MS
                }
            self._last_update[publisher] = now
        return True

    def on_gossip(self, publisher: PeerId, data: bytes) -> None:
        try:
            card = parse_card(data, now_ms=self.now_ms(), peer=publisher)
        except InvalidMessage:
            return
        if self.directory.offer(card, self.now_ms(), "gossip").changed:
            self.stats["gossip_accepted"] += 1

    # ------------------------------------------------------------------ find

    async def find(
        self, text: str, k: int = 5, *, use_dht: bool | None = None, include_self: bool = True
    ) -> list[Match]:
        """The ``k`` agents whose cards best match ``text``, best first."""
        if not isinstance(text, str) or not text.strip():
            raise UsageError("find needs a non-empty text describing the task")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise UsageError(f"k must be an integer between 1 and {MAX_K}")
        self.stats["finds"] += 1
        if self.settings.dht if use_dht is None else use_dht:
            vector = (await self._embed([text]))[0]
            with trio.move_on_after(self.settings.find_timeout):
                await self.lookup_dht(vector)
        exclude = frozenset() if include_self else frozenset({self.node.peer_id})
        rank = functools.partial(self.directory.rank, text, k, self.now_ms(), exclude=exclude)
        return await self.node.run_sync(rank)

    async def lookup_dht(self, vector: Any) -> dict[str, int]:
        """Probe the vector's LSH buckets (:func:`~ioa_p2p.dht.lsh.card_buckets`: the matcher's scheme
        shares the default scheme's); fetch and verify the cards of their providers."""
        buckets = self.lsh.probes(vector, self.settings.probes)
        found = await self.net.get_providers([b.key for b in buckets], ask=self.settings.ask)
        providers: set[PeerId] = set().union(*found.values())
        wanted = [p for p in sorted(providers) if self._needs_fetch(p)][: self.settings.max_fetch]
        await self.fetch_cards(wanted)
        return {"buckets": len(buckets), "providers": len(providers), "fetched": len(wanted)}

    def _needs_fetch(self, peer: PeerId) -> bool:
        if peer == self.node.peer_id:
            return False
        entry = self.directory.entry(peer, self.now_ms())
        return entry is None or self.now_ms() - entry.learned_ms > self.settings.card_refresh * 1000

    def vouch(self, peer: PeerId) -> int:
        """The node's budgets trust a peer whose valid card this node holds (``TRUST_KNOWN``)."""
        return TRUST_KNOWN if self.directory.get(peer, self.now_ms()) is not None else TRUST_STRANGER

    async def fetch_card(self, peer: PeerId) -> SignedCard | None:
        """The newest valid card of ``peer`` in the DHT (asking the network), stored in the directory."""
        await self.fetch_cards([peer])
        return self.directory.get(peer, self.now_ms())

    async def fetch_cards(self, peers: list[PeerId]) -> int:
        """Fetch the cards of ``peers`` from the DHT in one batched lookup; returns how many were new."""
        if not peers:
            return 0
        found = await self.net.get_values([card_key(p) for p in peers], ask=self.settings.ask)
        now = self.now_ms()
        stored = 0
        for peer in peers:
            cards: list[SignedCard | None] = []
            for value in found.get(card_key(peer), []):
                try:
                    cards.append(parse_card(value, now_ms=now, peer=peer))
                except InvalidMessage as exc:
                    self.stats["dht_rejected"] += 1
                    log.debug("rejected a DHT card of %s: %s", peer, exc)
            best = select_newest(cards)
            if best is None:
                continue
            card = cards[best]
            assert card is not None
            self.stats["dht_fetched"] += 1
            offer = self.directory.offer(card, now, "dht")
            if offer.changed:
                stored += 1
            elif offer is Offer.UNCHANGED:
                self.directory.touch(peer, now)
        return stored

    # ------------------------------------------------------------------ background loops

    async def republish_loop(self) -> None:
        while True:
            await trio.sleep(self.settings.republish)
            await self.republish()

    async def expiry_loop(self) -> None:
        while True:
            gone = self.directory.expire(self.now_ms())
            if gone:
                log.debug("expired cards of %s", [p.short() for p in gone])
            next_at = self.directory.next_expiry()
            wait = 1.0 if next_at is None else (next_at - self.now_ms()) / 1000 + 0.001
            await trio.sleep(min(max(wait, 0.01), 1.0))

    async def rebuild_loop(self) -> None:
        index = self.directory.index
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

    async def announce_loop(self) -> None:
        """Re-announce our card when more peers have subscribed to the topic (announcements made before
        they joined never reached them), paced by :class:`AnnouncePacer`."""
        assert self.gossip is not None
        await self.node.services_ready.wait()
        while True:
            await trio.sleep(0.5)
            peers = self.gossip.topic_peers()
            if self.pacer.due(peers, trio.current_time()):
                await self.announce()
                self.pacer.reannounced(peers, trio.current_time())

    async def catch_up_loop(self) -> None:
        """Fetch from the DHT the cards of gossip neighbours we hold none of (see the module doc)."""
        assert self.gossip is not None
        while True:
            await trio.sleep(CATCH_UP_INTERVAL)
            now = trio.current_time()
            missing = [
                p
                for p in self.gossip.topic_peer_ids()
                if self.directory.entry(p, self.now_ms()) is None
                and now - self._asked_at.get(p, -math.inf) >= CATCH_UP_RETRY
            ][:CATCH_UP_BATCH]
            missing += self._stale_due()[: max(0, CATCH_UP_BATCH - len(missing))]
            if not missing:
                continue
            for peer in missing:
                self._asked_at[peer] = now
            with self.node.faults.boundary("discovery catch-up"):
                with trio.move_on_after(self.settings.find_timeout):
                    await self.fetch_cards(missing)

    def _stale_due(self) -> list[PeerId]:
        """Publishers whose dropped new version the directory still lacks (one try used per call)."""
        due = []
        for peer, (version, tries) in list(self._stale.items()):
            held = self.directory.version_of(peer)
            if (held is not None and held >= version) or tries <= 0:
                del self._stale[peer]
                continue
            self._stale[peer] = (version, tries - 1)
            due.append(peer)
        return due

    async def dht_publish_loop(self) -> None:
        """Keep our card and bucket provider records in the DHT (see the module docstring)."""
        await self.node.services_ready.wait()
        net = self.net
        put_version, put_size, put_gap, put_at = -1, 0, 1.0, -math.inf
        provided: tuple[bytes, ...] = ()
        provide_size, provide_at = 0, -math.inf
        last_size, size_changed_at = -1, -math.inf
        while True:
            card = self.card
            # Sizes are high-water marks: churn (peers dropping out and back) does not re-trigger.
            size = net.routing_table_size()
            now = trio.current_time()
            if size != last_size:
                last_size, size_changed_at = size, now
            # Growth re-publishes wait until the table stops changing: while a network forms, one
            # publish after it settles replaces one per doubling (1, 2, 4, 8, 16 ... peers).
            settled = now - size_changed_at >= DHT_SETTLE
            if card is not None and (
                card.version != put_version
                or (grew_enough(size, put_size) and settled and now - put_at >= put_gap)
            ):
                with self.node.faults.boundary("discovery publish"), trio.move_on_after(DHT_PUBLISH_TIMEOUT):
                    if await net.put_value(card_key(card.peer_id), card.encoded):
                        put_gap = 1.0 if card.version != put_version else min(put_gap * 2, 60.0)
                        put_version, put_at = card.version, trio.current_time()
                        put_size = max(put_size, size)
            keys = tuple(b.key for b in self.lsh.buckets(self._vector)) if card is not None else ()
            if (
                keys
                and size > 0
                and (
                    keys != provided
                    or (grew_enough(size, provide_size) and settled)
                    or now - provide_at >= PROVIDE_REFRESH
                )
                and now - provide_at >= PROVIDE_MIN_INTERVAL
            ):
                provide_at = now
                with self.node.faults.boundary("discovery provide"), trio.move_on_after(DHT_PUBLISH_TIMEOUT):
                    await net.provide(list(keys), ask=self.settings.ask)
                # Best effort: a partial announcement is completed by the next growth or refresh.
                provided, provide_size = keys, max(provide_size, size)
            with trio.move_on_after(1.0):
                await self._dht_wake.wait()
            self._dht_wake = trio.Event()

    # ------------------------------------------------------------------ views

    def cards_view(self) -> dict[str, Any]:
        now = self.now_ms()
        out = []
        for entry in sorted(self.directory, key=lambda e: str(e.card.peer_id)):
            if entry.card.is_expired(now):
                continue
            item = entry.card.summary()
            item.update(
                source=entry.source, learned_ms=entry.learned_ms, signature=entry.card.signature_status(now)
            )
            out.append(item)
        return {"model": self.embedder.model_id, "cards": out}

    def status(self) -> dict[str, Any]:
        gossip = self.gossip
        return {
            "model": self.embedder.model_id,
            "cards": len(self.directory),
            "matcher": self.warm.to_json(),
            "kad_protocol": self.net.protocol(),
            "routing_table": self.net.routing_table_size(),
            "gossip": None
            if gossip is None
            else {
                "topic_peers": gossip.topic_peers(),
                "mesh_peers": gossip.mesh_peers(),
                "published": gossip.published,
                "received": gossip.received,
                "rejected": gossip.rejected,
            },
            **self.stats,
        }

    def match_json(self, match: Match) -> dict[str, Any]:
        out = match.to_json()
        out["self"] = match.card.peer_id == self.node.peer_id
        out["signature"] = match.card.signature_status(self.now_ms())
        return out


__all__ = ["Discovery"]
