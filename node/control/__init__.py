"""ioa_p2p.node.control: the node's local control API (HTTP/JSON on 127.0.0.1, bearer token).

- ``server.py``  :class:`ControlAPI`: the ASGI app served by hypercorn on trio, routes, error mapping
- ``routes.py``  the routes about the node itself: ``/id``, ``/peers``, ``/connect``, ``/faults``,
  ``/budgets``

The client side is :class:`ioa_p2p.control_client.ControlClient`.
"""

from ioa_p2p.node.control.server import (
    MAX_BODY,
    MAX_JSON_DEPTH,
    ControlAPI,
    ControlRequest,
    Streaming,
    bind_control_socket,
    parse_json_body,
)

__all__ = [
    "MAX_BODY",
    "MAX_JSON_DEPTH",
    "ControlAPI",
    "ControlRequest",
    "Streaming",
    "bind_control_socket",
    "parse_json_body",
]
