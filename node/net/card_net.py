"""Discovery's network on py-libp2p: :class:`Libp2pCardNet`, the real ``CardNetPort`` of ``node.ports``.

It binds the node's host and ``KadDHT`` to the functions of :mod:`ioa_p2p.node.net.kad` (batched lookups
that always ask the network, ``/ioa/kad/1.0.0``, the namespace validator registered with strict
validation) and opens the card topic with :func:`ioa_p2p.node.net.gossip.open_card_gossip`. Peer IDs leave
this module as :class:`~ioa_p2p.identity.PeerId`: providers whose key is not Ed25519 are dropped here.
``open_node`` makes one and passes it to ``open_discovery``. The agents of one process also hand their
announcements to each other directly (:meth:`~ioa_p2p.node.net.cohosted.CoHosted.card_topic`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.census import SharedCensus
from ioa_p2p.dht.provide import ProvidePacer
from ioa_p2p.dht.validators import RecordValidator
from ioa_p2p.faults import Faults
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net import kad
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.gossip import (
    CardGossip,
    Deliver,
    GossipSettings,
    Validate,
    open_card_gossip,
    speaks_pubsub,
)
from ioa_p2p.node.net.store_round import Started
from ioa_p2p.node.net.traffic import kad_traffic

#: ``on_found(key, providers)``: providers of ``key`` known so far, called as answers arrive.
OnFound = Callable[[bytes, set[PeerId]], None]


class Libp2pCardNet:
    """Card records in the node's Kademlia DHT and the card topic on its GossipSub."""

    def __init__(self, host: Any, dht: Any, faults: Faults, cohosted: CoHosted | None = None) -> None:
        self.host, self.dht, self.faults = host, dht, faults
        #: the agents of this process, which read each other's announcements directly (cohosted.py)
        self.cohosted = cohosted
        self.pacer = ProvidePacer()  # ADD_PROVIDER per target peer, across calls

    def protocol(self) -> str:
        return kad.kad_protocol_in_use()

    async def prepare(
        self, namespace: str, validator: RecordValidator, admission: CardAdmission | None = None
    ) -> None:
        await kad.prepare_dht(self.host, self.dht, namespace, validator, admission)

    async def put_value(
        self,
        key: str,
        value: bytes,
        *,
        complete: bool = False,
        task_status: Started[bool] = trio.TASK_STATUS_IGNORED,
    ) -> bool:
        return await kad.put_value(self.dht, key, value, complete=complete, task_status=task_status)

    async def get_values(
        self,
        keys: list[str],
        *,
        ask: int,
        grace: float = 0.0,
        on_value: Callable[[str, bytes], None] | None = None,
    ) -> dict[str, list[bytes]]:
        return await kad.get_values_many(self.dht, keys, ask=ask, grace=grace, on_value=on_value)

    async def put_pages(
        self,
        keys: list[str],
        value: bytes,
        *,
        ask: int,
        task_status: Started[int] = trio.TASK_STATUS_IGNORED,
    ) -> int:
        return await kad.put_many(self.dht, keys, value, ask=ask, task_status=task_status)

    async def ask_values(
        self, requests: dict[PeerId, list[str]], *, per_peer: float
    ) -> dict[str, list[bytes]]:
        raw = {peer.raw: keys for peer, keys in requests.items()}
        return await kad.get_values_from(self.dht, raw, per_peer=per_peer)

    async def get_providers(
        self, keys: list[bytes], *, ask: int, on_found: OnFound | None = None
    ) -> dict[bytes, set[PeerId]]:
        def found_now(key: bytes, ids: list[Any]) -> None:
            if on_found is not None:
                on_found(key, _peer_ids(ids))

        found = await kad.get_providers_many(self.dht, keys, ask=ask, on_found=found_now)
        return {key: _peer_ids(ids) for key, ids in found.items()}

    async def provide(
        self, keys: list[bytes], *, ask: int, task_status: Started[int] = trio.TASK_STATUS_IGNORED
    ) -> int:
        return await kad.provide_many(self.dht, keys, self.pacer, ask=ask, task_status=task_status)

    def shared_census(self) -> SharedCensus | None:
        return self.cohosted.census if self.cohosted is not None else None

    def routing_table_size(self) -> int:
        return kad.routing_table_size(self.dht)

    def kad_traffic(self) -> dict[str, Any]:
        traffic = kad_traffic(self.dht.host)
        return traffic.to_json() if traffic is not None else {}

    def network_size(self) -> float:
        return kad.network_size(self.dht)

    def card_peers(self) -> list[PeerId]:
        """Peers of the routing table and connections whose identify announced GossipSub (card publishers),
        and the connected peers whose identify has not answered (yet, or ever): py-libp2p runs identify once
        per connection, bounded by 10 s, and never again, so on a loaded process most connections made
        during a start never learn their peer's protocols (measured, issue 26: two groups of 10 co-hosted
        agents, 49 of 59 identifies between the groups failed, and 0 card-topic peers across them after
        90 s). Such a peer is most likely an agent; asking it for its card is one request (and a DHT
        lookup when it has none), where leaving it out left its card to a census, minutes later. Peers
        whose identify named no GossipSub (a bootstrap node) stay out."""
        connected = set(self.host.get_connected_peers())
        peers = set(self.dht.routing_table.get_peer_ids()) | connected
        return sorted(_peer_ids(p for p in peers if _may_publish(self.host, p, p in connected)))

    @asynccontextmanager
    async def open_topic(
        self, validate: Validate, deliver: Deliver, settings: GossipSettings
    ) -> AsyncIterator[CardGossip]:
        cohosted = self.cohosted

        def local(peer: Any) -> bool:  # another agent of this process: no pubsub stream to it
            return cohosted is not None and any(p in cohosted for p in _peer_ids([peer]))

        async with open_card_gossip(self.host, validate, deliver, settings, self.faults, local) as gossip:
            if cohosted is None:
                yield gossip
                return
            me = PeerId.from_bytes(self.host.get_id().to_bytes())
            with (
                cohosted.card_topic(me, validate, deliver, self.faults) as share,
                cohosted.carrying(me, gossip.mesh_peers, gossip.carrier.offer) as carry,
            ):
                gossip.share, gossip.carry = share, carry
                gossip.relay = lambda publisher, version, data: cohosted.pass_on(me, publisher, version, data)
                try:
                    yield gossip
                finally:
                    gossip.share = gossip.relay = gossip.carry = None


def _may_publish(host: Any, peer: Any, connected: bool) -> bool:
    """Whether ``peer`` may publish a card: its identify announced GossipSub, or it is connected and its
    identify has not answered (see :meth:`Libp2pCardNet.card_peers`)."""
    speaks = speaks_pubsub(host, peer)
    return bool(speaks) or (speaks is None and connected)


def _peer_ids(ids: Any) -> set[PeerId]:
    """libp2p IDs as our peer IDs; a provider whose peer ID is not Ed25519 is dropped."""
    out = set()
    for libp2p_id in ids:
        try:
            out.add(PeerId.from_bytes(libp2p_id.to_bytes()))
        except Exception:
            continue
    return out


__all__ = ["Libp2pCardNet"]
