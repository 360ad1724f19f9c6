"""A bootstrap node: a normal node without an agent, meant to run for a long time at a reachable address.

New peers list its multiaddr (``/ip4/<public ip>/tcp/<port>/p2p/<its peer id>``) in ``[node].bootstrap`` (or
``ioa node start --bootstrap``); through it they fill their DHT routing tables and meet each other. By default
it is also a circuit relay v2 *hop* (``[relay].hop = true``, limits in :mod:`ioa_p2p.node.relay.service`), so
peers behind NAT can hold a reservation on it and be reached through it.

:func:`bootstrap_config` turns any node config into a bootstrap node's (pure); ``ioa bootstrap start`` runs
it with :func:`ioa_p2p.node.open_node` and prints :func:`describe`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ioa_p2p.config.node_config import NodeConfig

if TYPE_CHECKING:
    from ioa_p2p.node import Node

#: Config tables a bootstrap node drops: it runs no agent.
AGENT_SECTIONS = ("agent",)
#: A bootstrap node's ``[limits] cpu_pool`` unless its config sets one (seconds of event-loop time per
#: second: the whole loop).
BOOTSTRAP_CPU_POOL = 1.0


def bootstrap_config(
    config: NodeConfig,
    *,
    relay: bool = True,
    listen: tuple[str, ...] = (),
    bootstrap: tuple[str, ...] = (),
) -> NodeConfig:
    """``config`` as a bootstrap node's: no ``[agent]`` table, ``[relay].hop = relay``,
    ``[discovery].enabled = false``, ``[goals].enabled = false`` and ``[limits].cpu_pool =``
    :data:`BOOTSTRAP_CPU_POOL` unless the config sets them;
    ``listen`` (if given) replaces the listen addresses, ``bootstrap`` adds other bootstrap peers."""
    config = config.with_overrides(listen=listen or None, bootstrap=bootstrap)
    raw: dict[str, Any] = {k: v for k, v in config.raw.items() if k not in AGENT_SECTIONS}
    raw["relay"] = {**config.section("relay"), "hop": relay}
    # No card of its own; it still serves everyone's /ioa/ DHT records. No goals either, so it never
    # imports the matcher, the planner or the adapters (docs/performance.md). An explicit setting wins.
    raw["discovery"] = {"enabled": False, **config.section("discovery")}
    raw["goals"] = {"enabled": False, **config.section("goals")}
    # Every peer of a bootstrap node is a stranger (it holds no card), and serving strangers is all it
    # does: its strangers' CPU pool is its whole event loop (each peer stays paced by ``cpu_per_peer``;
    # handler slots and negotiation caps bound the totals). At 0.4, on a loaded machine where a step
    # holds the loop ~8x its CPU time, the bootstrap node of 100 agent processes paced their lookups
    # 82,000 times in 4 minutes and none joined (docs/performance.md).
    raw["limits"] = {"cpu_pool": BOOTSTRAP_CPU_POOL, **config.section("limits")}
    return replace(config, raw=raw)


def describe(node: Node) -> list[str]:
    """The lines ``ioa bootstrap start`` prints once the node runs (``listening on`` lines first)."""
    lines = [f"listening on {addr}" for addr in node.listen_addrs()]
    lines.append(f"peer id {node.peer_id}")
    lines.append(f"control api on 127.0.0.1:{node.control.port}")
    relay = node.services.relay
    if relay is not None and relay.settings.hop:
        s = relay.settings
        lines.append(
            f"relay hop on: max_reservations={s.max_reservations} "
            f"max_circuits_per_peer={s.max_circuits_per_peer} circuit_duration={s.circuit_duration}s "
            f"circuit_bytes={s.circuit_bytes} reservation_ttl={s.reservation_ttl}s "
            f"max_reservations_per_ip={s.max_reservations_per_ip} max_circuits={s.max_circuits} "
            f"max_circuits_per_ip={s.max_circuits_per_ip} max_rate={s.max_rate}"
        )
    else:
        lines.append("relay hop off")
    return lines


__all__ = ["BOOTSTRAP_CPU_POOL", "bootstrap_config", "describe"]
