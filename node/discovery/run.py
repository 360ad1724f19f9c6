"""``async with open_discovery(node, net) as discovery:``: run the discovery service and its loops."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

import trio

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.settings import AgentSettings, DiscoverySettings
from ioa_p2p.dht.validators import NAMESPACE, IoaNamespaceValidator
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.traffic import tagged
from ioa_p2p.node.ports import CardNetPort, CardTopicPort, NodePort, open_local_state

if TYPE_CHECKING:
    from ioa_p2p.node.discovery.service import Discovery

#: Seconds the advertised addresses must stay unchanged before the card is re-issued with them.
ADDRS_SETTLE = 0.5


@asynccontextmanager
async def open_discovery(node: NodePort, net: CardNetPort) -> AsyncIterator[Discovery | None]:
    """Run discovery for ``node`` over ``net`` (its DHT and card topic: the node's libp2p DHT and
    GossipSub, :class:`~ioa_p2p.node.net.card_net.Libp2pCardNet`) until the block exits (composed into
    ``node.services.discovery``).

    With ``[discovery] enabled = false`` the node only validates and serves ``/ioa/`` DHT records
    (it yields ``None``).
    """
    settings = DiscoverySettings.from_section(node.config.section("discovery"))
    admission = CardAdmission(new_cards=settings.new_cards, updates=settings.updates, me=node.peer_id)
    validator = IoaNamespaceValidator(
        lambda: int(node.now() * 1000),
        min_stamp_bits=settings.min_stamp_bits,
        admission=admission,
        min_sketch_bits=settings.min_stamp_bits,  # page entries cost what a card costs
    )
    await net.prepare(NAMESPACE, validator, admission)
    if not settings.enabled:  # still a DHT server for everyone's cards
        yield None
        return
    # The agent's half, imported only here: a node without discovery (a bootstrap node) never loads the
    # matcher, numpy or the embedding models (docs/performance.md, "Light nodes").
    from ioa_p2p.dht.directory import Directory
    from ioa_p2p.dht.index import make_index
    from ioa_p2p.dht.ranking import CardRanker
    from ioa_p2p.embedding import Embedder, make_embedder
    from ioa_p2p.matching import make_matcher
    from ioa_p2p.node.discovery import loops
    from ioa_p2p.node.discovery.arrival_store import keep_arrivals, open_arrivals
    from ioa_p2p.node.discovery.census import census_loop
    from ioa_p2p.node.discovery.routes import add_discovery_routes
    from ioa_p2p.node.discovery.service import Discovery
    from ioa_p2p.node.discovery.warm import keep_matcher
    from ioa_p2p.node.net.gossip import GossipSettings

    agent = AgentSettings.from_section(node.config.section("agent"), node.peer_id)
    # The matcher is made at the first card ranked (a find, a goal, warming); its models load on first use,
    # in worker threads. An idle agent imports neither (issue 26, docs/performance.md "Per-node cost").
    ranker = CardRanker(functools.partial(make_matcher, {"matcher": settings.matcher}))
    embedding = node.config.section("embedding")
    # Cards carry wordllama vectors unless [embedding] backend = "matcher" (the matcher's 640-d scheme):
    # MiniLM then loads only at this node's first find, never in a node that only serves (memory budget).
    own_scheme = embedding.get("backend", "wordllama") == "matcher"
    embedder: Embedder = ranker.matcher if own_scheme else make_embedder(embedding)
    index = make_index(settings.index, embedder.dim)
    directory = Directory(
        embedder.model_id,
        embedder.dim,
        index,
        max_cards=settings.max_cards,
        keep_all=settings.keep_all,
        ranker=ranker,
        # never return a card the revalidation loop would drop at its next pass (loops.revalidate_loop)
        stale_after_ms=int((settings.revalidate + settings.find_timeout) * 1000),
    )
    async with AsyncExitStack() as stack:
        gossip: CardTopicPort | None = None
        service: Discovery | None = None

        def validate(publisher: PeerId, data: bytes) -> bool:
            return service is not None and service.check_gossip(publisher, data)

        def deliver(publisher: PeerId, data: bytes) -> None:
            if service is not None:
                service.on_gossip(publisher, data)

        if settings.gossip:
            gossip_settings = GossipSettings(
                heartbeat=settings.heartbeat,
                heartbeat_idle=settings.heartbeat_idle,
                eclipse_protection=settings.eclipse_protection,
                local_sources=settings.local_sources,
            )
            gossip = await stack.enter_async_context(net.open_topic(validate, deliver, gossip_settings))
        service = Discovery(node, settings, agent, embedder, directory, gossip, net)
        service.dht_admission = admission
        store = None
        if settings.keep_arrivals:  # the flood evidence survives a restart (arrival_store.py)
            now = service.now_ms()
            service.search.arrivals, store = await open_local_state(
                node, lambda: open_arrivals(node.home, now)
            )
        node.budgets.add_voucher(service.vouch)  # a peer whose valid card we hold is "known"
        service.adopt_agent(agent)  # the card is issued in the background: start does not wait for models
        async with trio.open_nursery() as nursery:
            nursery.start_soon(service.card_loop)
            nursery.start_soon(tagged("republish", loops.republish_loop), service)
            nursery.start_soon(follow_addrs, node, service)
            nursery.start_soon(loops.expiry_loop, service)
            nursery.start_soon(loops.rebuild_loop, service)
            nursery.start_soon(tagged("revalidate", loops.revalidate_loop), service)
            if store is not None:
                nursery.start_soon(keep_arrivals, service.search, store)
            if settings.dht:
                nursery.start_soon(tagged("publish", loops.dht_publish_loop), service)
            # [discovery] warm and unload_idle: the models loaded when needed, unloaded when idle
            idle = settings.unload_idle
            nursery.start_soon(keep_matcher, node, ranker, service.card_ready, service.warm, idle)
            if gossip is not None:
                nursery.start_soon(service.go_live)
                nursery.start_soon(tagged("announce", loops.announce_loop), service)
                if settings.dht:
                    nursery.start_soon(tagged("catch_up", loops.catch_up_loop), service)
                    nursery.start_soon(tagged("census", census_loop), service)
            add_discovery_routes(node.control, node.peer_id, service)
            try:
                yield service
            finally:
                nursery.cancel_scope.cancel()


async def follow_addrs(node: NodePort, service: Discovery) -> None:
    """Re-issue the card when the node's advertised addresses change (a relay reservation, a
    reachability verdict, new interfaces), once they stayed unchanged for :data:`ADDRS_SETTLE` s."""
    while True:
        await node.wait_addrs_change()
        while True:
            with trio.move_on_after(ADDRS_SETTLE) as settle:
                await node.wait_addrs_change()
            if settle.cancelled_caught:
                break
        card = service.card
        if card is not None and tuple(card.card.addrs) != tuple(node.advertised_addrs()[:16]):
            await service.republish()


__all__ = ["follow_addrs", "open_discovery"]
