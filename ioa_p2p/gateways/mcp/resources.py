"""The MCP resources of a node: agent cards and chat transcripts, read from the node when asked.

- ``ioa://agents/{peer_id}``: the signed capability card of an agent this node holds (its own too), JSON;
- ``ioa://chats/{chat_id}``: the transcript of a chat this node takes part in, text.

Both are URI templates; ``resources/list`` also names the concrete ones the node holds now (its cards
and chats, the latest 200 of each). When the node is not running the list is empty and a read is an MCP
error with our message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import Resource as MCPResource

from ioa_p2p.control_client.aio import AsyncControlClient
from ioa_p2p.errors import IoAError
from ioa_p2p.gateways.views import clip, transcript

AGENTS = "ioa://agents/{peer_id}"
CHATS = "ioa://chats/{chat_id}"
LISTED = 200


class NodeMCPServer(MCPServer):
    """``MCPServer`` whose resource list names the node's cards and chats (see the module docstring)."""

    def __init__(
        self,
        home: Path,
        client: Callable[[], AbstractAsyncContextManager[AsyncControlClient]],
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.home = home
        self.client = client
        card = "The signed capability card of an agent this node knows"
        chat = "The transcript of a chat this node takes part in"
        self.resource(AGENTS, name="agent card", mime_type="application/json", description=card)(
            self.read_card
        )
        self.resource(CHATS, name="chat transcript", mime_type="text/plain", description=chat)(self.read_chat)

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        try:
            async with self.client() as client:
                cards = (await client.cards()).cards
                own = await client.card()
                chats = await client.chats()
        except IoAError:
            return listed  # the node is not running: nothing to name now
        unique = {c.peer_id: c for c in [own, *cards]}
        for card in list(unique.values())[:LISTED]:
            listed.append(
                MCPResource(
                    uri=AGENTS.format(peer_id=card.peer_id),
                    name=f"agent {card.name}",
                    description=str(clip(card.description, 300)),
                    mime_type="application/json",
                )
            )
        for chat in chats[-LISTED:]:
            listed.append(
                MCPResource(
                    uri=CHATS.format(chat_id=chat.chat_id),
                    name=f"chat {chat.chat_id[:12]}",
                    description=str(clip(chat.topic, 300)),
                    mime_type="text/plain",
                )
            )
        return listed

    async def read_card(self, peer_id: str) -> str:
        try:
            async with self.client() as client:
                own = await client.card()
                if own.peer_id == peer_id:
                    return json.dumps({k: v for k, v in own.to_json().items() if k != "status"}, indent=2)
                for card in (await client.cards()).cards:
                    if card.peer_id == peer_id:
                        return json.dumps(card.to_json(), indent=2)
        except IoAError as exc:
            raise ResourceError(str(exc)) from None
        raise ResourceError(f"this node holds no card of {peer_id[:80]!r}; find_agents lists those it knows")

    async def read_chat(self, chat_id: str) -> str:
        try:
            async with self.client() as client:
                history = await client.history(chat_id)
                names = {c.peer_id: c.name for c in (await client.cards()).cards}
        except IoAError as exc:
            raise ResourceError(str(exc)) from None
        return transcript(history, names)


__all__ = ["AGENTS", "CHATS", "NodeMCPServer"]
