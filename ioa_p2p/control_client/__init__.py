"""ioa_p2p.control_client: clients of a running node's local control API (HTTP/JSON on 127.0.0.1, bearer
token; the routes and their schemas: :mod:`ioa_p2p.api`, docs/protocol.md §7).

- ``sync.py``     :class:`ControlClient`: blocking (the ``ioa`` command), typed calls and resumable streams
- ``aio.py``      :class:`AsyncControlClient`: the same, awaited (httpx: asyncio or trio), for gateways
- ``endpoint.py`` where the node listens (``node.json``, ``control.token``), its errors as ours
- ``resume.py``   what a client keeps of a goal event stream to resume it after a dropped connection
- ``chat_stream.py`` a chat's message stream (``GET /chats/events``) as typed items, and its resumption
- ``status_stream.py`` the live views' streams (network, node, chats list), typed, and their resumption

``AsyncControlClient`` is imported on first use (httpx takes a quarter of a second to import, which the
``ioa`` command does not need).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ioa_p2p.control_client.endpoint import Endpoint
from ioa_p2p.control_client.sync import ControlClient

if TYPE_CHECKING:
    from ioa_p2p.control_client.aio import AsyncControlClient


def __getattr__(name: str) -> type[AsyncControlClient]:
    if name == "AsyncControlClient":
        from ioa_p2p.control_client.aio import AsyncControlClient

        return AsyncControlClient
    raise AttributeError(f"module 'ioa_p2p.control_client' has no attribute {name!r}")


__all__ = ["AsyncControlClient", "ControlClient", "Endpoint"]
