"""Card announcements over GossipSub (network I/O; the checks live in :mod:`ioa_p2p.dht.validators`).

One topic, :data:`TOPIC` (``/ioa/cards/1``); a message's data is one signed card exactly as stored in
the DHT. Pubsub messages are signed by their publisher (``strict_signing``), and our topic validator
accepts a card only when it is valid, live, published by its own peer (pubsub ``from``), and not older
than the version we hold; anything else is dropped before it is forwarded (and the forwarder's score
drops). Re-announcing an unchanged card is allowed, so periodic announcements reach newcomers.

py-libp2p's GossipSub defaults lose messages (heartbeat 120 s, 10 msg/s per peer and topic including
our own publishes, silent drops; and "adaptive gossip" stretches the heartbeat to 30-60 s whenever it
judges the network unhealthy); :class:`GossipSettings` sets them deliberately: heartbeat 1 s, adaptive
gossip off, a rate limit far above one announcement per peer per republish interval, and
subscriptions drained by a dedicated task. Gossip stays best-effort: the DHT is the source of truth
for lookups.

py-libp2p's Pubsub learns peers from connection events, so peers connected before it was created are
registered explicitly at start, and a maintenance task repairs registrations and subscriptions that
connection churn loses (see :func:`_maintain`). Registration is only attempted with peers that can answer:
py-libp2p retries opening a pubsub stream forever (every 10 s) to any connected peer, including ones that
do not speak GossipSub at all (a bootstrap node, another implementation's DHT-only peer). Each attempt
costs both sides a failed protocol negotiation; with every node connected to the bootstrap that grew into
a steady load on it. :func:`speaks_pubsub` reads the protocols the peer announced by identify: peers whose
identify has not answered yet are asked with a bounded retry, then again with a per-peer back-off (2 s
doubling to 60 s); peers that announced no GossipSub protocol are not asked on connection, only once when
our topic opens and by the maintenance task, once after :data:`SILENT_FIRST` s and then at most once a
minute, each a bounded attempt (:func:`register_anyway`: their identify may have answered before their
pubsub started, and an identify push can be lost). For the same reason a node that joins the topic pushes
identify to the peers it is already connected to (its DHT join connects it to many before its discovery
starts): they learn at once that it speaks GossipSub, so they register it and count it as a card publisher
(:func:`_tell_protocols`). That push is best effort (bounded, and lost on a loaded peer), so the
maintenance task also takes a peer that sent us its subscription on its own pubsub stream as speaking
GossipSub, whatever its identify said, and registers it at once: a late joiner that registered with us is
registered back within :data:`MAINTAIN_INTERVAL`. Measured (issue 26, 4 processes of 25 agents): the
agents that started last in each process had 4-23 connections to other processes' agents but 0 card-topic
peers, their cards never reaching them.

The same task re-sends our subscription to the peers whose connections changed, and now and then to every
peer (repairing peers that forgot it when a connection churned), and paces the GossipSub heartbeat, both
as :mod:`ioa_p2p.node.net.gossip_pacing` decides.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio
from libp2p.identity.identify_push.identify_push import push_identify_to_peers
from libp2p.pubsub.gossipsub import PROTOCOL_ID, PROTOCOL_ID_V11, PROTOCOL_ID_V12, GossipSub
from libp2p.pubsub.pubsub import Pubsub
from libp2p.tools.anyio_service import background_trio_service

from ioa_p2p.card import MAX_CARD_SIZE
from ioa_p2p.dht.admission import observed_from
from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.faults import Faults
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.gossip_carry import Carrier, carry_loop, signed_message
from ioa_p2p.node.net.gossip_mesh import graft_as_specified
from ioa_p2p.node.net.gossip_pacing import (
    MAINTAIN_INTERVAL,
    HeartbeatPacer,
    RegisterBackoff,
    ResubscribePacer,
)
from ioa_p2p.node.net.libp2p_patches import contain_pubsub_messages
from ioa_p2p.node.net.sources import ArrivedVia, peer_source
from ioa_p2p.node.net.traffic import GossipTraffic, tally_pubsub

log = logging.getLogger("ioa_p2p.node.net.gossip")

TOPIC = "/ioa/cards/1"
PEER_REGISTER_TIMEOUT = 15.0
GOSSIP_PROTOCOLS = frozenset(str(p) for p in (PROTOCOL_ID_V12, PROTOCOL_ID_V11, PROTOCOL_ID))
#: Seconds the identify push telling connected peers that we speak GossipSub now may take (best effort).
PUSH_TIMEOUT = 10.0
#: A peer whose identify named no GossipSub is first asked after this many seconds, then at most once a
#: minute, each time with :data:`SILENT_ATTEMPT_TIMEOUT`.
SILENT_FIRST = 30.0
SILENT_ATTEMPT_TIMEOUT = 5.0
#: Message IDs held back by the validator waiting for py-libp2p to (not) cache their verdict, at most.
HELD_BACK_PENDING = 1024

#: validate(publisher, data) -> accept?   deliver(publisher, data) -> None (after validation)
Validate = Callable[[PeerId, bytes], bool]
Deliver = Callable[[PeerId, bytes], None]


@dataclass(frozen=True, slots=True)
class GossipSettings:
    heartbeat: float = 1.0
    #: The heartbeat once nothing happens (see :class:`HeartbeatPacer`); <= ``heartbeat``: never slower.
    heartbeat_idle: float = 5.0
    degree: int = 6
    degree_low: int = 4
    degree_high: int = 12
    #: Accepted messages per second from one forwarding peer on our topic (library default: 10).
    max_rate: float = 200.0
    #: Seconds a message ID is remembered to suppress duplicates.
    seen_ttl: int = 120
    #: Keep the eclipse-protection IP-diversity grafting (useless on a loopback testnet).
    eclipse_protection: bool = True
    #: A forwarder with an address that is not public is a source of its own (per-source limits on a LAN
    #: or a local testnet; ``[discovery] local_sources``); off: such forwarders form no source group.
    local_sources: bool = False


class CardGossip:
    """A running subscription to the card topic. Made by :func:`open_card_gossip`."""

    def __init__(self, pubsub: Pubsub, router: GossipSub) -> None:
        self.pubsub = pubsub
        self.router = router
        self.published = 0
        self.received = 0
        self.rejected = 0
        #: messages refused for their first-hop source's share only (not forwarded, not remembered)
        self.held_back = 0
        #: the connection each validated message arrived on, until its delivery (per-source limits)
        self.via = ArrivedVia()
        #: hands our announcements to the other agents of this process (``CoHosted.card_topic``), if any
        self.share: Callable[[bytes], None] | None = None
        #: hands remote records we accepted to the other agents of this process (``CoHosted.pass_on``)
        self.relay: Callable[[PeerId, int, bytes], None] | None = None
        #: hands the signed message of our announcement to the agents of this process that will forward
        #: it to their own gossip mesh (``CoHosted.carry``; :mod:`~ioa_p2p.node.net.gossip_carry`)
        self.carry: Callable[[Any], None] | None = None
        self.carrier = Carrier()
        #: the topic's RPCs sent and received by kind (:mod:`~ioa_p2p.node.net.traffic`)
        self.traffic = GossipTraffic()

    async def announce(self, data: bytes) -> None:
        """Publish a card (our own) to the topic (and first to the other agents of this process, which
        also forward the signed message to their mesh: :meth:`carry`)."""
        if self.share is not None:
            self.share(data)
        msg = signed_message(self.pubsub, TOPIC, data)
        await self.pubsub.push_msg(self.pubsub.my_id, msg)
        self.published += 1
        if self.carry is not None:
            self.carry(msg)

    def pass_on(self, publisher: PeerId, version: int, data: bytes) -> None:
        """Hand a remote publisher's record we accepted to the other agents of this process, if any."""
        if self.relay is not None:
            self.relay(publisher, version, data)

    def topic_peers(self) -> int:
        """How many peers we know to be subscribed to the topic."""
        return len(self.pubsub.peer_topics.get(TOPIC, ()))

    def topic_peer_ids(self) -> list[PeerId]:
        """The peers we know to be subscribed to the topic (our gossip neighbours)."""
        out = []
        for peer in list(self.pubsub.peer_topics.get(TOPIC, ())):
            try:
                out.append(PeerId.from_bytes(peer.to_bytes()))
            except InvalidPeerId:  # a neighbour whose key is not Ed25519 publishes no card we accept
                continue
        return out

    def mesh_peers(self) -> int:
        return len(self.router.mesh.get(TOPIC, ()))

    def traffic_counts(self) -> dict[str, Any]:
        return self.traffic.to_json()


def _message_key(msg: Any) -> tuple[bytes, bytes]:
    """A message's identity in pubsub (its publisher and sequence number)."""
    return bytes(getattr(msg, "from_id", b"") or b""), bytes(getattr(msg, "seqno", b"") or b"")


def _publisher(msg: Any) -> PeerId | None:
    try:
        return PeerId.from_bytes(bytes(msg.from_id))
    except InvalidPeerId:
        return None


def speaks_pubsub(host: Any, peer: Any) -> bool | None:
    """Whether ``peer`` announced a GossipSub protocol by identify; None while identify has not answered."""
    try:
        protocols = host.get_peerstore().get_protocols(peer)
    except Exception:  # PeerStoreError: the peer is not in the peerstore (yet)
        return None
    if not protocols:
        return None
    return any(str(p) in GOSSIP_PROTOCOLS for p in protocols)


def subscribed(pubsub: Pubsub, peer: Any) -> bool:
    """Whether ``peer`` sent us its subscription to the card topic on its own pubsub stream: it speaks
    GossipSub, whatever its identify said when it connected."""
    return peer in pubsub.peer_topics.get(TOPIC, ())


def bound_registration(host: Any, pubsub: Pubsub, local: Callable[[Any], bool] = lambda peer: False) -> None:
    """Make py-libp2p's per-connection registration give up on peers without pubsub (see the module doc).

    Upstream calls ``_handle_new_peer_with_retry(peer)`` on every new connection with no time limit; the
    replacement skips peers that announced no GossipSub protocol (unless they sent us their subscription:
    :func:`subscribed`), and the ``local`` ones (the other agents of this process), and bounds the others
    to :data:`PEER_REGISTER_TIMEOUT` (the maintenance task takes over after that).
    """
    upstream = pubsub._handle_new_peer_with_retry

    async def register(peer_id: Any, timeout: float | None = None) -> None:  # noqa: ASYNC109 - upstream's signature
        if local(peer_id) or (speaks_pubsub(host, peer_id) is False and not subscribed(pubsub, peer_id)):
            return
        await upstream(peer_id, PEER_REGISTER_TIMEOUT if timeout is None else timeout)

    pubsub._handle_new_peer_with_retry = register  # type: ignore[method-assign]
    pubsub._ioa_register_anyway = upstream  # type: ignore[attr-defined]


async def register_anyway(pubsub: Pubsub, peer: Any, timeout: float) -> bool:  # noqa: ASYNC109
    """Try to open a pubsub stream to ``peer`` within ``timeout``, whatever its identify said (the
    deliberate attempts: at topic open, and the maintenance task's rare ones to silent peers). Through
    ``ensure_peer_stream`` these went to :func:`bound_registration`'s filter, which skips a peer whose
    identify named no GossipSub: they never tried, and two agents that connected before either opened the
    topic stayed strangers until an identify push got through (issue 26: 0 card-topic peers across
    processes for 45-60 s). True when the peer is registered."""
    if peer in pubsub.peers:
        return True
    upstream = getattr(pubsub, "_ioa_register_anyway", pubsub._handle_new_peer_with_retry)
    await upstream(peer, timeout)
    return peer in pubsub.peers


@asynccontextmanager
async def open_card_gossip(
    host: Any,
    validate: Validate,
    deliver: Deliver,
    settings: GossipSettings | None = None,
    faults: Faults | None = None,
    local: Callable[[Any], bool] = lambda peer: False,
) -> AsyncIterator[CardGossip]:
    """Run the card topic. ``faults`` counts exceptions stopped while handling received messages (a
    message that makes ``validate``, ``deliver`` or the library raise is dropped; nothing else stops).
    ``local(peer)``: a peer (libp2p ID) that is another agent of this process, with which no pubsub
    stream is opened: their announcements reach each other in the process (``CoHosted``), and each
    pubsub peer costs both a stream, its negotiation, the subscription exchange and the mesh upkeep on
    the process's one loop (~10 % of a 25-agent process's samples, py-spy, issue 26)."""
    settings = settings or GossipSettings()
    faults = faults or Faults()
    router = GossipSub(
        # Not /meshsub/1.2.0: its IDONTWANT sends one more RPC to every mesh peer per message, which
        # only pays off for messages much larger than a card.
        protocols=[PROTOCOL_ID_V11, PROTOCOL_ID],
        degree=settings.degree,
        degree_low=settings.degree_low,
        degree_high=settings.degree_high,
        heartbeat_interval=settings.heartbeat,  # type: ignore[arg-type]  # annotated int, used as float
        heartbeat_initial_delay=0.1,
        max_messages_per_topic_per_second=settings.max_rate,
        eclipse_protection_enabled=settings.eclipse_protection,
        # Adaptive gossip stretches the heartbeat to 30-60 s whenever it judges the network unhealthy.
        adaptive_gossip_enabled=False,
    )
    graft_as_specified(router)  # not 2 grafts every heartbeat, then prunes (node/net/gossip_mesh.py)
    pubsub = Pubsub(
        host,
        router,
        seen_ttl=settings.seen_ttl,
        strict_signing=True,
        max_inbound_rpc_size=MAX_CARD_SIZE * 4 + 64 * 1024,
    )
    bound_registration(host, pubsub, local)
    contain_pubsub_messages(pubsub, faults.record)
    gossip = CardGossip(pubsub, router)
    tally_pubsub(pubsub, router, gossip.traffic)

    forget = forget_held_back(pubsub)

    def topic_validator(forwarder: Any, msg: Any) -> bool:
        publisher = _publisher(msg)
        accepted = False
        # what the node observed, not what the card claims: the forwarder's connection (the first hop's
        # share of new identities is checked here, before the message is forwarded)
        source = peer_source(host, forwarder, local=settings.local_sources)
        with faults.boundary("gossip validator", publisher), observed_from(source) as seen:
            accepted = publisher is not None and validate(publisher, bytes(msg.data))
        if accepted:
            gossip.via.note(_message_key(msg), source)
        elif seen.held_back:  # over its source's share: not forwarded, and not remembered as invalid
            gossip.held_back += 1
            forget(msg)
        else:
            gossip.rejected += 1
        return accepted

    async with background_trio_service(pubsub), background_trio_service(router):
        await pubsub.wait_until_ready()
        pubsub.set_topic_validator(TOPIC, topic_validator, False)
        subscription = await pubsub.subscribe(TOPIC)
        async with trio.open_nursery() as nursery:
            earlier = [p for p in host.get_connected_peers() if not local(p)]  # before pubsub existed
            for peer in earlier:  # their identify is older than their topic may be: ask them all once
                timeout = (
                    SILENT_ATTEMPT_TIMEOUT if speaks_pubsub(host, peer) is False else PEER_REGISTER_TIMEOUT
                )
                nursery.start_soon(_register_quietly, pubsub, peer, faults, timeout)
            if earlier:
                nursery.start_soon(_tell_protocols, host, earlier)
            nursery.start_soon(_drain, subscription, gossip, deliver, faults)
            nursery.start_soon(carry_loop, pubsub, gossip.carrier, faults)
            pacer = HeartbeatPacer(settings.heartbeat, settings.heartbeat_idle, settings.degree_low)
            nursery.start_soon(_maintain, host, pubsub, gossip, pacer, local)
            try:
                yield gossip
            finally:
                nursery.cancel_scope.cancel()


async def _tell_protocols(host: Any, peers: list[Any]) -> None:
    """Push identify to the peers connected before our pubsub existed: the identify they got when they
    connected listed no GossipSub protocol, so they would not register us (and counted us as no card
    publisher: no catch-up fetch of our card) until a maintenance probe a minute later. Measured (issue
    26, 4 processes of 25 agents): an agent's DHT join connects it to ~30 remote agents before its
    discovery starts; the agents that started after the first few in each process had 1-9 card-topic
    peers among those connections, and 40 % of the other processes' cards never reached a coordinator
    (all of them late starters' whose announcements found no gossip neighbour)."""
    try:
        with trio.move_on_after(PUSH_TIMEOUT):
            await push_identify_to_peers(host, set(peers))
    except Exception as exc:  # best effort: the maintenance task asks these peers later anyway
        log.debug("identify push after joining the card topic failed: %s", exc)


async def _register_quietly(
    pubsub: Pubsub,
    peer: Any,
    faults: Faults,
    timeout: float = PEER_REGISTER_TIMEOUT,  # noqa: ASYNC109 - the library's retry bound
) -> None:
    """Register one peer with Pubsub; whatever the peer does meanwhile fails this registration only."""
    with faults.boundary("pubsub registration", str(peer)):
        await register_anyway(pubsub, peer, timeout)


async def _maintain(
    host: Any,
    pubsub: Pubsub,
    gossip: CardGossip,
    heartbeat: HeartbeatPacer,
    local: Callable[[Any], bool] = lambda peer: False,
) -> None:
    """Repair what py-libp2p's Pubsub loses when connections churn.

    When a connection closes while another to the same peer stays up, Pubsub can keep a peer without a
    working stream, or forget its subscriptions, and never recovers on its own (measured: 10 in-process
    nodes with 7-9 connections each knew only 2-6 topic peers). Every few seconds: register every
    connected peer that speaks pubsub and that Pubsub does not have (peers whose identify has not
    answered yet with a per-peer back-off); and, when :class:`ResubscribePacer` says so, re-announce our
    subscription (idempotent for them) to the peers whose connections changed, and now and then to all
    peers, so those that forgot it learn it again.
    """
    pending: set[Any] = set()
    silent: set[Any] = set()  # peers backed off because their identify named no GossipSub
    backoff = RegisterBackoff()
    resubscribe = ResubscribePacer()

    async def register(peer: Any, timeout: float) -> None:  # noqa: ASYNC109 - passed to the library
        try:
            if await register_anyway(pubsub, peer, timeout):
                backoff.forget(peer)
            else:
                backoff.failed(peer, trio.current_time())
        except Exception as exc:  # the library raises assorted errors on a closing connection
            log.debug("pubsub registration of %s failed: %s", peer, exc)
            backoff.failed(peer, trio.current_time())
        finally:
            pending.discard(peer)

    async with trio.open_nursery() as nursery:
        while True:
            await trio.sleep(MAINTAIN_INTERVAL)
            connected = host.get_connected_peers()
            backoff.keep_only(connected)
            silent.intersection_update(connected)
            now = trio.current_time()
            for peer in connected:
                if peer in pubsub.peers or peer in pending or local(peer):
                    continue
                # A peer that sent us its subscription over its own pubsub stream speaks GossipSub,
                # whatever its identify said when it connected (see the module docstring).
                speaks = True if subscribed(pubsub, peer) else speaks_pubsub(host, peer)
                if speaks is False and not backoff.known(peer):
                    # Identify said no GossipSub, but it may have answered before the peer's pubsub
                    # started (and an identify push can be lost): ask rarely rather than never.
                    backoff.failed(peer, now, delay=SILENT_FIRST)
                    silent.add(peer)
                elif speaks and peer in silent:  # its identify push or its subscription says it speaks it now
                    silent.discard(peer)
                    backoff.forget(peer)
                if backoff.due(peer, now):
                    pending.add(peer)
                    timeout = SILENT_ATTEMPT_TIMEOUT if speaks is False else PEER_REGISTER_TIMEOUT
                    nursery.start_soon(register, peer, timeout)
            topic_peers = frozenset(pubsub.peer_topics.get(TOPIC, ()))
            messages = gossip.published + gossip.received + gossip.rejected
            gossip.router.heartbeat_interval = heartbeat.interval(  # type: ignore[assignment]
                gossip.mesh_peers(), topic_peers, messages, now
            )
            connections = connection_ids(host)
            peers, full = resubscribe.plan(connections, now)
            if peers:
                resubscribe.sent(connections, peers, full, now)
                try:
                    await resend_subscription(pubsub, None if full else peers)
                except Exception as exc:
                    log.debug("re-announcing our subscription failed: %s", exc)


def forget_held_back(pubsub: Pubsub) -> Callable[[Any], None]:
    """``forget(msg)``: do not keep the validator's verdict on ``msg`` (py-libp2p caches every verdict for
    minutes by message ID, and answers a copy from another forwarder with it). A message held back for
    its first-hop source's share is invalid only through that forwarder: the same card from another
    neighbour, with share left, is validated afresh. The verdict is cached right after the validator
    returns, so the ID waits in a small set until then (bounded: one entry per message in validation)."""
    pending: set[bytes] = set()
    cache = getattr(pubsub, "validation_cache", None)
    if cache is None:  # a py-libp2p without the cache: nothing to forget
        return lambda msg: None
    put = cache.put

    def put_unless_held_back(msg_id: bytes, result: Any) -> None:
        if msg_id in pending:
            pending.discard(msg_id)
            return
        put(msg_id, result)

    cache.put = put_unless_held_back

    def forget(msg: Any) -> None:
        if len(pending) < HELD_BACK_PENDING:
            pending.add(pubsub._msg_id_constructor(msg))

    return forget


def connection_ids(host: Any) -> dict[Any, frozenset[int]]:
    """Each connected peer's open connections, by identity (a new or closed connection changes its set)."""
    return {
        peer: frozenset(map(id, conns)) for peer, conns in host.get_network().connections.items() if conns
    }


async def resend_subscription(pubsub: Pubsub, peers: list[Any] | None) -> None:
    """Send our subscription to the card topic to ``peers`` (None: every pubsub peer), through their
    outbound queues as py-libp2p's own announcement does (a full queue retries it)."""
    packet, subopt = pubsub._build_announce_rpc(TOPIC, subscribe=True)
    if peers is None:
        await pubsub.message_all_peers(packet.SerializeToString(), announce=subopt)
        return
    for peer in peers:
        queue = pubsub.peer_queues.get(peer)
        if queue is not None:
            pubsub._enqueue_or_retry_announce(peer, queue, packet, subopt)


async def _drain(subscription: Any, gossip: CardGossip, deliver: Deliver, faults: Faults) -> None:
    """Empty the subscription queue as fast as messages come (a full queue drops messages)."""
    while True:
        msg = await subscription.get()
        publisher = _publisher(msg)
        if publisher is None:
            continue
        gossip.received += 1
        source = gossip.via.take(_message_key(msg))
        with faults.boundary("gossip delivery", publisher), observed_from(source):  # one bad message
            deliver(publisher, bytes(msg.data))  # must not stop the drain


__all__ = ["TOPIC", "CardGossip", "GossipSettings", "open_card_gossip"]
