"""ioa_p2p.node.status: what the node tells about itself as a whole (it reads every service).

- ``routes.py``  ``GET /node`` (identity, agent, uptime, memory, config summary, faults, tracing) and
  ``GET /network`` (peers with their latency, routing table, gossip mesh)
"""

from ioa_p2p.node.status.routes import add_status_routes

__all__ = ["add_status_routes"]
