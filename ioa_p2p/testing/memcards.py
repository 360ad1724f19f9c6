"""Discovery's network on the in-memory transport fake: DHT records and the card topic, for fast tests.

:class:`MemoryCards` is the network-wide part (which node runs which record store and topic);
:meth:`MemoryCards.net_of` gives one :class:`~ioa_p2p.testing.memnet.MemoryNode` its
:class:`MemoryCardNet`, a :class:`~ioa_p2p.node.ports.CardNetPort` to pass to
:func:`ioa_p2p.node.discovery.run.open_discovery` in place of the node's libp2p DHT and GossipSub.

What is faked, and what is not:

- Every node keeps its own value and provider stores, like a Kademlia peer, and every node it can reach
  counts as one of the closest peers of every key (a small network: no routing, no ``ask`` limit). A
  partitioned node (:meth:`MemoryNetwork.partition <ioa_p2p.testing.memnet.MemoryNetwork.partition>`)
  neither stores nor answers.
- Records are checked exactly as py-libp2p's ``KadDHT`` checks them with strict validation, by the
  validator discovery registers (:class:`ioa_p2p.dht.validators.IoaNamespaceValidator`): a key outside a
  registered namespace, or a value the validator's ``validate`` refuses, is not stored; a stored value is
  replaced only when ``select(key, [new, old])`` picks the new one. Every storing node runs its own
  validator (``put_value`` checks locally first, like the library). :meth:`MemoryCardNet.store_at` sends
  a record to one peer without the local check, as a hostile peer would.
- The card topic delivers an announcement to every reachable subscribed node (itself included, as
  GossipSub delivers our own messages), synchronously, through that node's validator and then its
  delivery callback, each inside the receiver's fault boundary. No mesh, no scoring, no rate limits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.census import SharedCensus
from ioa_p2p.dht.validators import RecordValidator
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.gossip import Deliver, GossipSettings, Validate
from ioa_p2p.node.net.store_round import Started
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode

PROTOCOL = "memory-dht"


class MemoryCardTopic:
    """One node's subscription to the card topic (a :class:`~ioa_p2p.node.ports.CardTopicPort`)."""

    def __init__(self, net: MemoryCardNet, validate: Validate, deliver: Deliver) -> None:
        self.net = net
        self._validate, self._deliver = validate, deliver
        self.published = 0
        self.received = 0
        self.rejected = 0

    async def announce(self, data: bytes) -> None:
        await trio.lowlevel.checkpoint()
        me = self.net.peer_id
        for topic in [self, *self._peers()]:
            topic.receive(me, data)
        self.published += 1

    def traffic_counts(self) -> dict[str, Any]:
        return {}  # no RPCs: announcements are handed over in memory

    def receive(self, publisher: PeerId, data: bytes) -> None:
        """Validate, then deliver one announcement, like the libp2p topic validator and drain task."""
        faults = self.net.node.faults
        accepted = False
        with faults.boundary("gossip validator", publisher):
            accepted = self._validate(publisher, data)
        if not accepted:
            self.rejected += 1
            return
        self.received += 1
        with faults.boundary("gossip delivery", publisher):
            self._deliver(publisher, data)

    def _peers(self) -> list[MemoryCardTopic]:
        return [n.topic for n in self.net.reachable_nets() if n.topic is not None]

    def topic_peers(self) -> int:
        return len(self._peers())

    def pass_on(self, publisher: PeerId, version: int, data: bytes) -> None:
        """Each memory node is alone in its process: nothing to hand on."""

    def topic_peer_ids(self) -> list[PeerId]:
        return [t.net.peer_id for t in self._peers()]

    def mesh_peers(self) -> int:
        return self.topic_peers()


class MemoryCardNet:
    """One node's DHT record store and card topic on a :class:`MemoryCards` network."""

    def __init__(self, cards: MemoryCards, node: MemoryNode) -> None:
        self.cards = cards
        self.node = node
        self.peer_id = node.peer_id
        self.validators: dict[str, RecordValidator] = {}
        self.values: dict[str, bytes] = {}
        self.providers: dict[bytes, set[PeerId]] = {}
        self.topic: MemoryCardTopic | None = None
        self.admission: CardAdmission | None = None

    def reachable_nets(self) -> list[MemoryCardNet]:
        """The other nodes' record stores this node can reach now."""
        network = self.cards.network
        return [
            net
            for peer, net in sorted(self.cards.nets.items())
            if peer != self.peer_id and network.reachable(self.peer_id, peer)
        ]

    # ------------------------------------------------------------------ CardNetPort

    def protocol(self) -> str:
        return PROTOCOL

    async def prepare(
        self, namespace: str, validator: RecordValidator, admission: CardAdmission | None = None
    ) -> None:
        await trio.lowlevel.checkpoint()
        if hasattr(validator, "stored"):
            validator.stored = lambda key: key in self.values
        self.validators[namespace] = validator
        self.admission = admission

    def accept(self, key: str, value: bytes) -> bool:
        """Store ``value`` under ``key`` when this node's validator lets it (see the module docstring)."""
        namespace = key.split("/")[1] if key.startswith("/") and key.count("/") >= 2 else ""
        validator = self.validators.get(namespace)
        if validator is None:  # strict validation: no validator, no record
            return False
        is_page = getattr(validator, "is_page", None)
        if is_page is not None and is_page(key):
            return self._accept_page(validator, key, value)
        try:
            validator.validate(key, value)
            old = self.values.get(key)
            if old is not None and old != value and validator.select(key, [value, old]) != 0:
                return False  # "refusing to replace newer value with the older one"
        except Exception:
            return False
        self.values[key] = value
        return True

    def _accept_page(self, validator: RecordValidator, key: str, value: bytes) -> bool:
        """A bucket page put, merged into the page held (as the node's DHT layer does)."""
        admission = self.admission

        def admit(peer: PeerId) -> bool:
            return (
                peer == self.peer_id
                or admission is None
                or admission.admit_provider(peer.raw, trio.current_time())
            )

        try:
            validator.validate(key, value)
            merged = validator.store_page(key, self.values.get(key), value, admit)  # type: ignore[attr-defined]
        except Exception:
            return False
        if merged.page is not None:
            self.values[key] = merged.page
        return True

    async def put_pages(
        self,
        keys: list[str],
        value: bytes,
        *,
        ask: int,
        task_status: Started[int] = trio.TASK_STATUS_IGNORED,
    ) -> int:
        await trio.lowlevel.checkpoint()
        acknowledged = 0
        for key in dict.fromkeys(keys):
            if not self.accept(key, value):
                continue
            acknowledged += sum(net.accept(key, value) for net in self.reachable_nets())
        task_status.started(acknowledged)  # every reachable peer stored it at once: no later stores
        return acknowledged

    async def put_value(
        self,
        key: str,
        value: bytes,
        *,
        complete: bool = False,
        task_status: Started[bool] = trio.TASK_STATUS_IGNORED,
    ) -> bool:
        await trio.lowlevel.checkpoint()
        ok = self.accept(key, value)
        if ok:
            for net in self.reachable_nets():
                net.accept(key, value)
        task_status.started(ok)
        return ok

    async def store_at(self, peer: PeerId, key: str, value: bytes) -> bool:
        """Ask ``peer`` to store a record, skipping our own check (what a hostile peer does)."""
        await trio.lowlevel.checkpoint()
        target = self.cards.nets.get(peer)
        if target is None or not self.cards.network.reachable(self.peer_id, peer):
            return False
        return target.accept(key, value)

    async def get_values(
        self,
        keys: list[str],
        *,
        ask: int,
        grace: float = 0.0,
        on_value: Callable[[str, bytes], None] | None = None,
    ) -> dict[str, list[bytes]]:
        await trio.lowlevel.checkpoint()
        nets = [self, *self.reachable_nets()]
        found = {key: [n.values[key] for n in nets if key in n.values] for key in dict.fromkeys(keys)}
        if on_value is not None:
            for key, values in found.items():
                for value in values:
                    on_value(key, value)
        return found

    async def ask_values(
        self, requests: dict[PeerId, list[str]], *, per_peer: float
    ) -> dict[str, list[bytes]]:
        await trio.lowlevel.checkpoint()
        out: dict[str, list[bytes]] = {}
        for peer, keys in requests.items():
            target = self.cards.nets.get(peer)
            if target is None or peer == self.peer_id or not self.cards.network.reachable(self.peer_id, peer):
                continue
            for key in keys:
                if key in target.values:
                    out.setdefault(key, []).append(target.values[key])
        return out

    async def get_providers(
        self, keys: list[bytes], *, ask: int, on_found: Callable[[bytes, set[PeerId]], None] | None = None
    ) -> dict[bytes, set[PeerId]]:
        await trio.lowlevel.checkpoint()
        nets = [self, *self.reachable_nets()]
        found = {
            key: set().union(*(n.providers.get(key, set()) for n in nets)) for key in dict.fromkeys(keys)
        }
        for key, peers in found.items():
            if on_found is not None:
                on_found(key, set(peers))
        return found

    async def provide(
        self, keys: list[bytes], *, ask: int, task_status: Started[int] = trio.TASK_STATUS_IGNORED
    ) -> int:
        await trio.lowlevel.checkpoint()
        acknowledged = 0
        for key in keys:
            self.providers.setdefault(key, set()).add(self.peer_id)
            for net in self.reachable_nets():
                if net.admission is None or net.admission.admit_provider(
                    self.peer_id.raw, trio.current_time()
                ):
                    net.providers.setdefault(key, set()).add(self.peer_id)
                    acknowledged += 1
        task_status.started(acknowledged)
        return acknowledged

    def routing_table_size(self) -> int:
        return len(self.reachable_nets())

    def kad_traffic(self) -> dict[str, Any]:
        return {}  # records are read in memory, not requested

    def shared_census(self) -> SharedCensus | None:
        return None  # each memory node is alone in its process

    def card_peers(self) -> list[PeerId]:
        return [n.peer_id for n in self.reachable_nets() if n.topic is not None]

    def network_size(self) -> float:
        return float(len(self.reachable_nets()) + 1)

    @asynccontextmanager
    async def open_topic(
        self, validate: Validate, deliver: Deliver, settings: GossipSettings
    ) -> AsyncIterator[MemoryCardTopic]:
        topic = MemoryCardTopic(self, validate, deliver)
        self.topic = topic
        try:
            yield topic
        finally:
            self.topic = None


class MemoryCards:
    """The record stores and card topics of a :class:`~ioa_p2p.testing.memnet.MemoryNetwork`."""

    def __init__(self, network: MemoryNetwork) -> None:
        self.network = network
        self.nets: dict[PeerId, MemoryCardNet] = {}

    def net_of(self, node: MemoryNode) -> MemoryCardNet:
        """``node``'s record store and topic (made on first use; gone when the node leaves the network)."""
        for peer in [p for p in self.nets if p not in self.network.nodes]:
            del self.nets[peer]
        net = self.nets.get(node.peer_id)
        if net is None:
            net = self.nets[node.peer_id] = MemoryCardNet(self, node)
        return net


__all__ = ["PROTOCOL", "MemoryCardNet", "MemoryCardTopic", "MemoryCards"]
