"""The node's own card, the base of :class:`~ioa_p2p.node.discovery.service.Discovery`: embedding the
agent settings, issuing (stamped) card versions and withdrawals, announcing them by gossip, and what the
publishing loop puts in the DHT (our record under ``/ioa/card/<us>``, the bucket keys we provide).

Settings adopted with :meth:`CardOwner.adopt_agent` are embedded and issued by :meth:`CardOwner.card_loop`
(in the background, so a node starts before any model loads); the first version is announced only once
every node service is open (:meth:`CardOwner.go_live`).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import trio

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
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.lsh import CardBuckets, Hyperplanes
from ioa_p2p.dht.pacing import ANNOUNCE_MIN_INTERVAL, AnnouncePacer, PublishPolicy
from ioa_p2p.dht.probing import kept_levels
from ioa_p2p.dht.relaycap import RelayCap, announce_version
from ioa_p2p.dht.settings import LIST_FIELDS, AgentSettings, DiscoverySettings
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import ConfigError, InvalidCard, UsageError
from ioa_p2p.matching import is_matcher
from ioa_p2p.node.discovery.search import CardSearch
from ioa_p2p.node.discovery.warm import WarmState
from ioa_p2p.node.ports import CardNetPort, CardTopicPort, NodePort

log = logging.getLogger("ioa_p2p.discovery")


class CardOwner:
    """This node's card and withdrawal: issued, announced, and published (with :attr:`search`'s LSH
    scheme) by the discovery service that extends it."""

    # set by the discovery service before :meth:`_start_own_card`
    node: NodePort
    net: CardNetPort
    settings: DiscoverySettings
    agent: AgentSettings
    embedder: Embedder
    directory: Directory
    gossip: CardTopicPort | None
    #: the DHT searches of the discovery service (its forest and LSH scheme place our card)
    search: CardSearch
    #: past ``[discovery] relay_all`` an unchanged renewal is not announced (dht/relaycap.py)
    relay_cap: RelayCap
    stats: dict[str, Any]

    def _start_own_card(self) -> None:
        """No card yet: the state :meth:`adopt_agent` and :meth:`card_loop` fill."""
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
        self.pacer = AnnouncePacer(most=max(ANNOUNCE_MIN_INTERVAL, self.settings.republish))
        #: the version of the last record announced (:meth:`go_live` does not announce it again)
        self._announced_version: int | None = None

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

    def card_current(self) -> bool:
        """True when the card issued reflects every agent setting adopted so far."""
        return self._issued >= self._adopted

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
        out = self.card if self.withdrawal is None else None  # the card whose renewal this may be
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
            clock=self.now_ms,  # its lifetime starts when it is signed, not before its worker's turn
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
            if announce_version(self.relay_cap.capped, out, card):
                await self.announce()
            else:  # past relay_all an unchanged renewal goes to the DHT only (dht/relaycap.py)
                self.stats["renewals_not_announced"] += 1
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
        """Wait until every node service is open (one may still change the card), then announce it, unless
        that version is out already (:meth:`card_loop` announces a card issued once services are open):
        every announcement floods the whole topic, and each agent's first card went out twice (issue 26,
        l-spread: 100 extra floods while a 4 x 25 network started)."""
        await self.node.services_ready.wait()
        await self.card_ready.wait()
        await self.wait_card_current()
        record = self.current_record()
        if record is None or record.version != self._announced_version:
            await self.announce()

    async def announce(self) -> None:
        record = self.current_record()
        if self.gossip is not None and record is not None:
            self.pacer.announced(self.gossip.topic_peers(), trio.current_time())
            self._announced_version = record.version
            try:
                await self.gossip.announce(record.encoded)
            except Exception as exc:  # the library raises when no peer is reachable
                log.debug("gossip announce failed: %s", exc)

    def dht_record(self) -> tuple[int, bytes] | None:
        """Our record for ``/ioa/card/<us>``: its version and bytes (None before the first card)."""
        record = self.current_record()
        return None if record is None else (record.version, record.encoded)

    def provided_keys(self) -> tuple[bytes, ...]:
        """The bucket keys our card is provided under (empty before the first card): LSH version 2 (the
        forest, at the levels the network's size calls for: :func:`~ioa_p2p.dht.probing.kept_levels`),
        and the version 1 bucket of each table, which nodes of the previous release probe."""
        if self.card is None or self._vector is None or self.withdrawal is not None:
            return ()
        memo = self._provided
        levels = kept_levels(None if memo is None else memo[1], self.net.network_size())
        inputs = (self.card, self._vector, self.forest, self.lsh)
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


__all__ = ["CardOwner"]
