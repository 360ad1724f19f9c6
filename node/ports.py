"""The ports the node's services depend on: narrow ``typing.Protocol`` views, never the concrete classes.

A service (``node/messaging``, ``node/relay``, ``node/chats``, ``node/discovery``, ``node/goals``) receives
what it needs from :func:`ioa_p2p.node.services.open_services`, typed by these protocols, so no service
imports :mod:`ioa_p2p.node.node` (the layer above it) or another service's module above its own layer.

- :class:`NodePort`: the running peer as a service sees it: identity, config, nursery, control API,
  fault boundaries, budgets, stream handlers, dialing (one dial path: direct addresses, then relays),
  its addresses and connections. No py-libp2p object crosses it.
- :class:`DiscoveryPort`: what chats (the ``known`` invitation policy) need from discovery.
- :class:`CardNetPort` (with :class:`CardTopicPort`): what discovery needs of the network: the DHT's card
  and provider records and the card gossip topic. The real one is
  :class:`ioa_p2p.node.net.card_net.Libp2pCardNet` (passed in by ``open_node``); tests use an in-memory
  one (:mod:`ioa_p2p.testing.memcards`).
- :class:`RelayNetPort`: what the relay service needs of the network: reachability, reservations, the
  advertised circuit addresses, relaying for others (real one:
  :class:`ioa_p2p.node.net.relay_net.Libp2pRelayNet`).

A node also lends its services a clock (:meth:`NodePort.now`, wall-clock seconds) and its worker threads
(:meth:`NodePort.run_sync`), so an in-memory test node can run them on virtual time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import trio

from ioa_p2p.card import SignedCard
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.census import SharedCensus
from ioa_p2p.dht.validators import RecordValidator
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.memory import AgentMemory
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.arrivals import PeerArrivals
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.net.gossip import Deliver, GossipSettings, Validate
from ioa_p2p.node.net.relay_limits import HopLimits
from ioa_p2p.node.net.store_round import Started
from ioa_p2p.telemetry.tracer import Tracer

if TYPE_CHECKING:  # the directory (and the matcher it ranks with) is an agent's: a bootstrap imports none
    from ioa_p2p.dht.directory import Directory

StreamHandler = Callable[[FramedStream], Awaitable[None]]
_T = TypeVar("_T")


class NodePort(Protocol):
    """The running peer, as its services use it (implemented by :class:`ioa_p2p.node.node.Node`)."""

    @property
    def config(self) -> NodeConfig: ...
    @property
    def home(self) -> Path: ...
    @property
    def identity(self) -> Identity: ...
    @property
    def peer_id(self) -> PeerId: ...
    @property
    def nursery(self) -> trio.Nursery: ...
    @property
    def control(self) -> ControlAPI: ...
    @property
    def faults(self) -> Faults: ...
    @property
    def budgets(self) -> NodeBudgets: ...
    @property
    def memory(self) -> AgentMemory: ...  # this agent's entry in its process's memory ledger
    @property
    def services_ready(self) -> trio.Event: ...
    @property
    def tracer(self) -> Tracer: ...  # spans of goals, turns, tasks, model calls (no-op unless tracing is on)

    def listen_addrs(self) -> list[str]:
        """Where the node listens (wildcards expanded), each ending in ``/p2p/<peer id>``."""
        ...

    def advertised_addrs(self) -> list[str]:
        """What peers are told to dial (the card's addresses), each ending in ``/p2p/<peer id>``."""
        ...

    async def wait_addrs_change(self) -> None:
        """Until the advertised addresses change (a relay reservation, reachability, interfaces)."""
        ...

    @property
    def arrivals(self) -> PeerArrivals:
        """Connections as they open (:mod:`~ioa_p2p.node.net.arrivals`): for work a reconnection starts."""
        ...

    def connected_peers(self) -> list[PeerId]: ...
    def is_connected(self, peer: PeerId) -> bool: ...
    def serves_locally(self, peer: PeerId) -> bool:
        """``peer`` is another agent of this process: streams to it are in memory, no connection needed."""
        ...

    def peer_addrs(self, peer: PeerId) -> list[str]: ...
    def connections(self, peer: PeerId) -> list[dict[str, Any]]:
        """Each open connection to ``peer``: ``{"kind": "direct"|"relayed"|"punched", "addr", ...}``."""
        ...

    def net_status(self) -> dict[str, Any]:
        """Reachability, addresses, bootstrap peers (``GET /net``)."""
        ...

    async def connect(self, addr: str) -> PeerId:
        """Connect to exactly ``addr`` (``.../p2p/<peer id>``, direct or ``/p2p-circuit``)."""
        ...

    async def connect_peer(self, peer: PeerId) -> None:
        """Connect through the one dial path (known addresses: direct first, then relays); raises
        :class:`~ioa_p2p.errors.DialFailed` naming what was tried."""
        ...

    def set_stream_handler(self, protocol_id: str, handler: StreamHandler) -> None: ...
    async def open_stream(self, peer: PeerId, protocol_id: str) -> FramedStream: ...
    def now(self) -> float:
        """Wall-clock time, seconds since the Unix epoch (``time.time()`` on a real node)."""
        ...

    async def run_sync(self, fn: Callable[[], _T], *, gil_bound: bool = False) -> _T:
        """``fn()`` off the event loop (a worker thread on a real node; abandoned when cancelled);
        ``gil_bound``: Python work that holds the GIL (such jobs of a process take turns)."""
        ...


class DiscoveryPort(Protocol):
    """What other services use of discovery: the directory of verified cards, and a bounded DHT fetch."""

    @property
    def directory(self) -> Directory: ...

    async def fetch_card(self, peer: PeerId) -> SignedCard | None: ...


class CardTopicPort(Protocol):
    """A running subscription to the card gossip topic (best effort; counters for ``GET /status``)."""

    published: int
    received: int
    rejected: int

    async def announce(self, data: bytes) -> None:
        """Publish our own card (may raise when no peer is reachable)."""
        ...

    def topic_peers(self) -> int: ...
    def topic_peer_ids(self) -> list[PeerId]: ...
    def mesh_peers(self) -> int: ...
    def traffic_counts(self) -> dict[str, Any]:
        """The topic's RPCs sent and received by kind (``node/net/traffic.py``; empty where none are sent)."""
        ...

    def pass_on(self, publisher: PeerId, version: int, data: bytes) -> None:
        """Hand a remote publisher's record this node accepted (it changed the directory) to the other
        agents of its process (``[[agents]]``: one view of the network's cards per process; a no-op for
        a node alone in its process)."""
        ...


class CardNetPort(Protocol):
    """What discovery uses of the network: DHT records (checked by the validator it registers, by every
    peer that stores them) and the card topic. Lookups ask the network, never only local copies; a peer
    that fails is one missing answer, never an exception."""

    def protocol(self) -> str:
        """The DHT protocol spoken (``GET /status``)."""
        ...

    async def prepare(
        self, namespace: str, validator: RecordValidator, admission: CardAdmission | None = None
    ) -> None:
        """Serve the DHT's records of ``namespace``, checked by ``validator``; provider records of others
        within ``admission``'s rate limits."""
        ...

    async def put_value(
        self,
        key: str,
        value: bytes,
        *,
        complete: bool = False,
        task_status: Started[bool] = trio.TASK_STATUS_IGNORED,
    ) -> bool:
        """Store here and at the closest peers; False when refused (invalid, older) or failed. Started with
        ``nursery.start``: answered once a quorum of the closest peers stored it (the rest of the round
        goes on in that nursery); ``complete`` (a withdrawal): the round goes on until every closest
        peer answered or timed out, not only a grace after its quorum."""
        ...

    async def get_values(
        self,
        keys: list[str],
        *,
        ask: int,
        grace: float = 0.0,
        on_value: Callable[[str, bytes], None] | None = None,
    ) -> dict[str, list[bytes]]:
        """Every value the closest reachable peers (and we) hold under each key, unvalidated. ``grace`` > 0:
        once every key has a value, wait that share of the time so far for more copies, not for the
        slowest peer asked (:func:`~ioa_p2p.dht.lookup.grace_after_covered`). ``on_value(key, value)``
        sees each value as it arrives (before the lookup ends)."""
        ...

    async def put_pages(
        self,
        keys: list[str],
        value: bytes,
        *,
        ask: int,
        task_status: Started[int] = trio.TASK_STATUS_IGNORED,
    ) -> int:
        """Put the bucket page ``value`` under every key here and at the closest peers of each (each
        storing peer merges it into the page it holds); how many (peer, key) puts were acknowledged
        (started with ``nursery.start``: once every key has its quorum, as :meth:`put_value`)."""
        ...

    async def ask_values(
        self, requests: dict[PeerId, list[str]], *, per_peer: float
    ) -> dict[str, list[bytes]]:
        """The values the given peers hold under the given keys, asking each peer directly (no lookup),
        each within ``per_peer`` seconds (callers bound the whole call); unvalidated, missing when a peer
        does not answer."""
        ...

    async def get_providers(
        self, keys: list[bytes], *, ask: int, on_found: Callable[[bytes, set[PeerId]], None] | None = None
    ) -> dict[bytes, set[PeerId]]:
        """The providers of each key; ``on_found(key, providers)`` sees them as answers arrive."""
        ...

    async def provide(
        self, keys: list[bytes], *, ask: int, task_status: Started[int] = trio.TASK_STATUS_IGNORED
    ) -> int:
        """Announce ourselves as provider of ``keys``; how many (peer, key) announcements were acked
        (started with ``nursery.start``: once every key has its quorum, as :meth:`put_value`)."""
        ...

    def routing_table_size(self) -> int: ...
    def kad_traffic(self) -> dict[str, Any]:
        """The Kademlia requests this node sent by type and the DHT streams it served (empty: not counted)."""
        ...

    def shared_census(self) -> SharedCensus | None:
        """The census this node's process shares among its agents (``[[agents]]``); None for a node
        alone in its process."""
        ...

    def card_peers(self) -> list[PeerId]:
        """Peers of the routing table and connections that announced GossipSub by identify: the nodes that
        publish a card (a bootstrap node or a peer not identified yet is left out)."""
        ...

    def network_size(self) -> float:
        """How many peers the network has, estimated from the routing table (``ioa_p2p.dht.keyspace``)."""
        ...

    def open_topic(
        self, validate: Validate, deliver: Deliver, settings: GossipSettings
    ) -> AbstractAsyncContextManager[CardTopicPort]:
        """Join the card topic until the block exits: ``validate`` then ``deliver`` every announcement."""
        ...


class RelayNetPort(Protocol):
    """What the relay service uses of the network (module docstring)."""

    def reachability(self) -> str:
        """``"public"``, ``"private"`` or ``"unknown"``."""
        ...

    async def wait_reachability_change(self) -> None: ...
    def speaks_hop(self, peer: PeerId) -> bool: ...
    def relay_candidates(self) -> list[PeerId]:
        """Connected peers that relay (they announced the hop protocol), over direct connections."""
        ...

    async def reserve(self, relay: PeerId, seconds: float) -> tuple[int, tuple[str, ...]]:
        """A reservation on ``relay`` (connected): its expiry (unix s) and the relay's addresses."""
        ...

    def set_circuit_addrs(self, addrs: list[str]) -> None:
        """The ``/p2p-circuit`` addresses this node is reachable at (advertised at once)."""
        ...

    def start_hop(self, limits: HopLimits) -> None: ...
    def stop_hop(self) -> None: ...
    def hop_status(self) -> dict[str, Any] | None: ...
    def punch_status(self) -> dict[str, int] | None: ...


async def open_local_state(node: NodePort, fn: Callable[[], _T]) -> _T:
    """``fn()`` (opening one of the node's SQLite files) where it costs the node's neighbours least: in
    a worker thread when the node shares its process's loop with other agents (co-hosted, ``[[agents]]``:
    the others keep using the loop while it starts), inline otherwise (a few ms at start, and trio's
    MockClock tests keep their virtual time: an autojump clock jumps while a thread runs)."""
    if node.budgets.cohosted is None:
        return fn()
    return await node.run_sync(fn)


__all__ = [
    "CardNetPort",
    "CardTopicPort",
    "DiscoveryPort",
    "NodePort",
    "RelayNetPort",
    "StreamHandler",
    "open_local_state",
]
