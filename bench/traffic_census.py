"""Messages per node and minute by kind over a window, from every agent's ``GET /card`` status (bench only).

What an idle node spends its CPU on is mostly what it sends and receives (issue 26). Each agent counts its
card topic's RPCs by kind (``status.gossip.traffic``: card messages published by us / forwarded, copies
received, subscriptions, IHAVE / IWANT / GRAFT / PRUNE entries, RPCs, heartbeats), its Kademlia requests by
type and the DHT streams it served (``status.kad_traffic``), and its own announcements by reason
(``announced_growth``: more peers subscribed; ``renewals``: a new version every ``republish`` s;
``published``: every announcement). :func:`snapshot` reads them all; :func:`rates` turns two snapshots
into per node per minute figures: the median, mean and max over the agents, per kind.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import trio

#: Seconds one agent may take to answer (a busy process answers late).
CALL_WITHIN = 10.0


def flatten(status: dict[str, Any]) -> dict[str, float]:
    """The counters of one ``DiscoveryStatus`` (JSON) as ``kind: count``."""
    out: dict[str, float] = {}
    gossip = status.get("gossip") or {}
    traffic = gossip.get("traffic") or {}
    for side in ("sent", "received"):
        for kind, count in (traffic.get(side) or {}).items():
            out[f"gossip_{side}.{kind}"] = count
    out["gossip.heartbeats"] = traffic.get("heartbeats", 0)
    out["own.published"] = gossip.get("published", 0)
    out["own.announced_growth"] = status.get("announced_growth", 0)
    out["own.renewals"] = status.get("renewals", 0)
    kad = status.get("kad_traffic") or {}
    for kind, count in (kad.get("sent") or {}).items():
        out[f"kad_sent.{kind}"] = count
    out["kad.served"] = kad.get("served", 0)
    return out


async def snapshot(agents: list[Any]) -> tuple[float, dict[str, dict[str, float]]]:
    """(monotonic time, {agent name: its counters}); agents that did not answer are left out."""
    got: dict[str, dict[str, float]] = {}

    async def one(agent: Any) -> None:
        try:
            with trio.move_on_after(CALL_WITHIN):
                reply = await agent.call("GET", "/card")
                got[agent.name] = flatten(reply["status"])
        except Exception:  # a probe: a silent agent is one missing row
            return

    async with trio.open_nursery() as nursery:
        for agent in agents:
            nursery.start_soon(one, agent)
    return time.monotonic(), got


def rates(
    before: tuple[float, dict[str, dict[str, float]]], after: tuple[float, dict[str, dict[str, float]]]
) -> dict[str, Any]:
    """Per kind, the agents' counts per minute between the two snapshots: median, mean and max; and the
    window's seconds and the agents counted."""
    seconds = after[0] - before[0]
    names = sorted(set(before[1]) & set(after[1]))
    kinds = sorted({k for n in names for k in (*before[1][n], *after[1][n])})
    out: dict[str, Any] = {"seconds": round(seconds, 1), "agents": len(names)}
    for kind in kinds:
        per = [60 * (after[1][n].get(kind, 0) - before[1][n].get(kind, 0)) / seconds for n in names]
        if any(per):
            out[kind] = {
                "median": round(statistics.median(per), 2),
                "mean": round(statistics.mean(per), 2),
                "max": round(max(per), 2),
            }
    return out


__all__ = ["flatten", "rates", "snapshot"]
