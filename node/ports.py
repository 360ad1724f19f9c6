"""The ports the node's services depend on: narrow ``typing.Protocol`` views, never the concrete classes.

A service (``node/messaging``, ``node/relay``, ``node/chats``, ``node/discovery``, ``node/goals``) receives
what it needs from :func:`ioa_p2p.node.services.open_services`, typed by these protocols, so no service
imports :mod:`ioa_p2p.node.node` (the layer above it) or another service's module above its own layer.

- :class:`NodePort`: the running peer as a service sees it: identity, config, nursery, control API,
  fault boundaries, budgets, stream handlers, dialing. ``host`` and ``dht`` are opaque handles, passed
  only to :mod:`ioa_p2p.node.net` functions.
- :class:`DiscoveryPort`: what chats (the ``known`` invitation policy) need from discovery.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import trio

from ioa_p2p.card import SignedCard
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.dht.directory import Directory
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.control.server import ControlAPI
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.framing import FramedStream

StreamHandler = Callable[[FramedStream], Awaitable[None]]


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
    def host(self) -> Any: ...  # the py-libp2p host: only for ioa_p2p.node.net functions
    @property
    def dht(self) -> Any: ...  # the node's KadDHT: only for ioa_p2p.node.net functions
    @property
    def services_ready(self) -> trio.Event: ...

    def listen_addrs(self) -> list[str]: ...
    def connected_peers(self) -> list[PeerId]: ...
    def is_connected(self, peer: PeerId) -> bool: ...
    def peer_addrs(self, peer: PeerId) -> list[str]: ...
    async def connect(self, addr: str) -> PeerId: ...
    async def connect_peer(self, peer: PeerId) -> None: ...
    def set_stream_handler(self, protocol_id: str, handler: StreamHandler) -> None: ...
    async def open_stream(self, peer: PeerId, protocol_id: str) -> FramedStream: ...


class DiscoveryPort(Protocol):
    """What other services use of discovery: the directory of verified cards, and a bounded DHT fetch."""

    @property
    def directory(self) -> Directory: ...

    async def fetch_card(self, peer: PeerId) -> SignedCard | None: ...


__all__ = ["DiscoveryPort", "NodePort", "StreamHandler"]
