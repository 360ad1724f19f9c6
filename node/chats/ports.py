"""What the three chat protocols (invites, delivery, sync) see of the chat service and of each other.

:class:`~ioa_p2p.node.chats.service.Chats` implements :class:`ChatCore`; each protocol module types its
``chats`` by it, so none imports the service module (which builds them): no import cycle.
"""

from __future__ import annotations

import random
from typing import Protocol

from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.frames import ChatAck
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.chats.store import ChatStore
from ioa_p2p.node.ports import NodePort
from ioa_p2p.wire.envelope import Envelope


class InvitesPort(Protocol):
    async def call_invite(
        self, peer: PeerId, genesis: Envelope, added_by: bytes | None, *, within: float
    ) -> bool | None: ...


class DeliveryPort(Protocol):
    def on_connected(self, peer: PeerId) -> None: ...


class SyncPort(Protocol):
    def start_pull(self, chat_id: bytes, peer: PeerId) -> None: ...


class ChatCore(Protocol):
    """Every chat's state and the rules applied to a received message (the chat service)."""

    rejected: int  # frames and messages refused, counted by the protocols

    @property
    def node(self) -> NodePort: ...
    @property
    def me(self) -> PeerId: ...
    @property
    def store(self) -> ChatStore: ...
    @property
    def config(self) -> ChatsConfig: ...
    @property
    def rng(self) -> random.Random: ...
    @property
    def invites(self) -> InvitesPort: ...
    @property
    def delivery(self) -> DeliveryPort: ...
    @property
    def sync(self) -> SyncPort: ...

    def now_ms(self) -> int: ...
    def find(self, chat_id: bytes) -> ChatHistory | None: ...
    def get(self, chat_id: bytes) -> ChatHistory: ...
    def status(self, chat_id: bytes) -> str: ...
    def member_chats(self) -> list[bytes]: ...
    def loaded_member_chats(self) -> list[bytes]: ...
    def notify(self) -> None: ...
    def accept(self, env: Envelope, digest: bytes, remote: PeerId, size: int | None = None) -> ChatAck: ...
    def join(
        self, genesis: Envelope, chat_id: bytes, status: str, *, inviter: PeerId | None = None
    ) -> ChatHistory: ...
    def adopt(self, verified: ChatHistory, remote: PeerId) -> int: ...


__all__ = ["ChatCore", "DeliveryPort", "InvitesPort", "SyncPort"]
