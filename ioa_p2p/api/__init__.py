"""ioa_p2p.api: the typed control API (pure), one declaration shared by the node, the CLI and every client.

- ``codec.py`` the JSON mechanism: frozen dataclasses <-> JSON both ways (``to_json`` / ``from_json``)
- ``launch.py`` :class:`LaunchRequest` (a goal to launch, checked when built) and the launch limits
- ``goals.py`` a goal's result (:class:`GoalResult`), the goals a node knows, cancelling, exit codes
- ``events.py`` the typed events of a goal, their JSON both ways (:func:`decode_event`)
- ``chat_events.py`` the events' base, the parts they carry, the events of a goal chat
- ``stream.py`` event streams: cursors, NDJSON and server-sent events, both ways
- ``peers.py`` this node and its peers: identity, connections, direct messages, relays, faults, budgets
- ``chats.py`` group chats: the ``/chats...`` routes
- ``discovery.py`` finding agents, cards
- ``routes.py`` :data:`ROUTES`: every route's method, path, request and reply schemas

The node (``ioa_p2p.node``: each service's ``routes`` module) serves these routes, the clients
(:mod:`ioa_p2p.control_client`) call them, docs/protocol.md §7 documents them (checked by a test).
"""

from ioa_p2p.api.codec import ApiObject, JsonObject, JsonValue
from ioa_p2p.api.events import GoalEvent, decode_event
from ioa_p2p.api.goals import GoalResult, Teammate
from ioa_p2p.api.launch import LaunchRequest, SubTeamOf
from ioa_p2p.api.routes import ROUTES, Route
from ioa_p2p.api.stream import Cursor, StreamItem

__all__ = [
    "ROUTES",
    "ApiObject",
    "Cursor",
    "GoalEvent",
    "GoalResult",
    "JsonObject",
    "JsonValue",
    "LaunchRequest",
    "Route",
    "StreamItem",
    "SubTeamOf",
    "Teammate",
    "decode_event",
]
