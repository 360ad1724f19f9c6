"""This node's status and its view of the network (pure): ``GET /node``, ``GET /network`` (docs/protocol.md
§7), their live streams ``GET /node/events`` and ``GET /network/events`` and the chats list's ``GET
/chats/list/events`` (each event the whole view), and
the one-time login code of the dashboard (``POST /ui/code``, docs/dashboard.md).

The config summary of :class:`NodeStatus` never carries a secret: :func:`redacted_config` drops the values
of keys that name one (``api_key``, ``token``, ``password``...) and the user part of URLs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar
from urllib.parse import urlsplit, urlunsplit

from ioa_p2p.api.chats import ChatInfo
from ioa_p2p.api.codec import ApiObject, Json, JsonObject, JsonValue, json_value
from ioa_p2p.api.discovery import GossipStatus
from ioa_p2p.api.events import Event
from ioa_p2p.api.goals import GoalSummary
from ioa_p2p.api.peers import FaultsReply

#: Keys whose values are secrets (matched anywhere in the key, case-insensitive).
_SECRET_KEY = re.compile(r"key|token|secret|password|passwd|credential|authorization|cookie", re.IGNORECASE)
REDACTED = "(redacted)"


@dataclass(frozen=True, slots=True)
class MemoryView(ApiObject):
    """The node process's memory (bytes): resident now and at its peak."""

    rss: int
    peak_rss: int


@dataclass(frozen=True, slots=True)
class NodeStatus(ApiObject):
    """``GET /node``: identity, agent, software, uptime, memory, config summary and faults of this node.
    ``config``: the config tables in force, secrets redacted; ``uptime``: seconds."""

    peer_id: str
    name: str
    adapter: str
    version: str
    python: str
    pid: int
    started_ms: int
    uptime: Annotated[float, Json(digits=3)]
    memory: MemoryView
    services: tuple[str, ...]
    addrs: tuple[str, ...]
    control_port: int
    config: Mapping[str, JsonValue]
    faults: FaultsReply
    telemetry: str


@dataclass(frozen=True, slots=True)
class PeerLink(ApiObject):
    """A connected peer as the network view shows it: its name (from its card, when this node holds
    one), addresses and round-trip time (``latency_ms``; null when the peer did not answer a ping in
    time). ``connections``: each connection's details as ``GET /peers`` gives them (kind ``direct``,
    ``relayed`` or ``punched``, where the node reports it)."""

    peer_id: str
    name: str
    addrs: tuple[str, ...]
    latency_ms: Annotated[float | None, Json(digits=3)]
    connections: tuple[JsonObject, ...] = ()


@dataclass(frozen=True, slots=True)
class NetworkView(ApiObject):
    """``GET /network``: connected peers with their latency, the DHT routing table size and the card
    gossip mesh (null when this node runs without discovery)."""

    peers: tuple[PeerLink, ...]
    routing_table: int
    gossip: GossipStatus | None
    measured_ms: int


@dataclass(frozen=True, slots=True)
class StatusEventsRequest(ApiObject):
    """``GET /network/events``, ``GET /node/events``: the view now, then again each time it changes;
    ``after`` (or ``Last-Event-ID``) resumes after a cursor ``<epoch>.<seq>`` (docs/protocol.md §7.3)."""

    STRICT: ClassVar[bool] = True
    after: str | None = None


@dataclass(frozen=True, slots=True)
class NetworkEvent(Event):
    """The network view (``GET /network``) as it is now: it replaces every earlier one."""

    event: ClassVar[str] = "network"
    view: NetworkView


@dataclass(frozen=True, slots=True)
class NodeEvent(Event):
    """This node's status (``GET /node``) as it is now: it replaces every earlier one."""

    event: ClassVar[str] = "node"
    view: NodeStatus


@dataclass(frozen=True, slots=True)
class ChatsEvent(Event):
    """The chats this node takes part in (``GET /chats``) and every round it has seen (``GET /goals``) as
    they are now: it replaces every earlier one."""

    event: ClassVar[str] = "chats"
    chats: tuple[ChatInfo, ...]
    goals: tuple[GoalSummary, ...]


@dataclass(frozen=True, slots=True)
class UiCode(ApiObject):
    """``POST /ui/code``: a one-time code that opens one dashboard session, and the URL to open
    (``http://127.0.0.1:PORT/ui/#code=...``); the code expires after ``expires_in`` seconds."""

    url: str
    code: str
    expires_in: int


def redacted_config(raw: Mapping[str, object]) -> dict[str, JsonValue]:
    """The config tables with every secret value replaced by ``"(redacted)"`` and URLs without their
    user part; values that are not JSON are shown as text."""
    return {str(k): _redact(str(k), v) for k, v in raw.items()}


def _redact(key: str, value: object) -> JsonValue:
    if _SECRET_KEY.search(key) and value not in (None, "", {}, []):
        return REDACTED
    if isinstance(value, Mapping):
        return {str(k): _redact(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(key, v) for v in value]
    if isinstance(value, str):
        return _strip_userinfo(value)
    try:
        return json_value(value)
    except TypeError:
        return str(value)


def _strip_userinfo(text: str) -> str:
    if "://" not in text or "@" not in text:
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    if parts.username is None and parts.password is None:
        return text
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or ""
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


__all__ = [
    "REDACTED",
    "ChatsEvent",
    "MemoryView",
    "NetworkEvent",
    "NetworkView",
    "NodeEvent",
    "NodeStatus",
    "PeerLink",
    "StatusEventsRequest",
    "UiCode",
    "redacted_config",
]
