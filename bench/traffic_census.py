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

#: Seconds one agent may take to answer (a busy process answers late: 50 agents to a process at N = 100
#: left every ask of 10 s unanswered), and agents asked at once.
CALL_WITHIN = 30.0
PARALLEL = 8


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
    for kind in ("revalidated", "dht_fetched", "dropped_unconfirmed", "gossip_accepted"):
        out[f"disc.{kind}"] = status.get(kind, 0)
    kad = status.get("kad_traffic") or {}
    for kind, count in (kad.get("sent") or {}).items():
        out[f"kad_sent.{kind}"] = count
    for kind, count in (kad.get("by_caller") or {}).items():
        out[f"kad_by.{kind}"] = count
    out["kad.served"] = kad.get("served", 0)
    return out


async def snapshot(agents: list[Any]) -> dict[str, tuple[float, dict[str, float]]]:
    """{agent name: (monotonic time of its answer, its counters)}; agents that did not answer are left out."""
    got: dict[str, tuple[float, dict[str, float]]] = {}
    limit = trio.Semaphore(PARALLEL)

    async def one(agent: Any) -> None:
        async with limit:
            try:
                with trio.move_on_after(CALL_WITHIN):
                    reply = await agent.call("GET", "/card", answer_within=CALL_WITHIN)
                    got[agent.name] = (time.monotonic(), flatten(reply["status"]))
            except Exception:  # a probe: a silent agent is one missing row
                return

    async with trio.open_nursery() as nursery:
        for agent in agents:
            nursery.start_soon(one, agent)
    return got


def rates(
    before: dict[str, tuple[float, dict[str, float]]], after: dict[str, tuple[float, dict[str, float]]]
) -> dict[str, Any]:
    """Per kind, each agent's count per minute between its two answers: the median, mean and max over
    the agents; and the median seconds between an agent's answers and how many agents were counted."""
    names = sorted(n for n in set(before) & set(after) if after[n][0] > before[n][0])
    seconds = {n: after[n][0] - before[n][0] for n in names}
    kinds = sorted({k for n in names for k in (*before[n][1], *after[n][1])})
    out: dict[str, Any] = {"seconds": round(statistics.median(seconds.values()), 1) if names else 0}
    out["agents"] = len(names)
    for kind in kinds:
        per = [60 * (after[n][1].get(kind, 0) - before[n][1].get(kind, 0)) / seconds[n] for n in names]
        if any(per):
            out[kind] = {
                "median": round(statistics.median(per), 2),
                "mean": round(statistics.mean(per), 2),
                "max": round(max(per), 2),
            }
    return out


__all__ = ["flatten", "rates", "snapshot"]
