"""ioa_p2p.node.status: what the node tells about itself as a whole (it reads every service).

- ``routes.py``  ``GET /node`` (identity, agent, uptime, memory, config summary, faults, tracing) and
  ``GET /network`` (peers with their latency, routing table, gossip mesh), and their live streams
- ``live.py``    :class:`StatusFeeds`: ``GET /node/events`` and ``GET /network/events``, the view again each
  time it changes (sampled only while someone watches), resumable from a cursor
"""

from ioa_p2p.node.status.routes import add_status_routes

__all__ = ["add_status_routes"]
