"""Putting a node's budgets into its py-libp2p host: :func:`guard_host`.

One call, right after the host is made and before it listens, installs every guard that bounds
what peers can make the node hold or do inside py-libp2p (docs/security.md, "Resource budgets"):

- inbound streams per peer and in total before negotiation, refused at once when a peer is not
  admitted (its frame budget is full, or it owes CPU time) — ``libp2p_patches.cap_inbound_streams``;
- every inbound stream's reads metered: negotiation lines, py-libp2p's own messages in the
  partial-frame budget, a whole-message deadline — ``libp2p_patches.meter_inbound_streams``;
- every connection metered: yamux windows enforced, unread bytes in the node's budget, the CPU
  its tasks take charged to its peer, its reads paced while the peer owes —
  ``libp2p_patches.meter_connections``;
- the trio instrument that times the tasks working for peers (:mod:`ioa_p2p.node.net.cpu_meter`).
"""

from __future__ import annotations

from typing import Any

from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cpu_meter import ensure_step_timer
from ioa_p2p.node.net.libp2p_patches import cap_inbound_streams, meter_connections, meter_inbound_streams


def guard_host(host: Any, budgets: NodeBudgets) -> None:
    """Install the node's budgets into ``host`` (call inside trio, before the host listens)."""
    cap_inbound_streams(
        host, budgets.limits.streams_per_peer, budgets.count_refused_early, budgets.admits, budgets
    )
    meter_inbound_streams(host, budgets)
    meter_connections(host, budgets)
    ensure_step_timer()


__all__ = ["guard_host"]
