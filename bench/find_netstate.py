"""The state of a ``bench_find`` network, read from every node's control API: why connections opened
and closed (``GET /net``'s ``connections``, summed), and how far gossip got (cards held, card-topic and
mesh peers, connections: min / median / max over the nodes). Issue 25: at 50 node processes the idle
network re-made its connections, and gossip left nodes without cards."""

from __future__ import annotations

import collections
import contextlib
import statistics
import time
from typing import Any

import trio
from traffic_census import flatten

#: Seconds a node may take to answer one control call (a busy node process answers late, not never).
CALL_WITHIN = 10.0
#: Nodes asked at once.
PARALLEL_CALLS = 10


async def _call(remote: Any, path: str) -> Any:
    with contextlib.suppress(Exception), trio.move_on_after(CALL_WITHIN):  # a probe: silence adds nothing
        return await remote.call("GET", path, answer_within=CALL_WITHIN)
    return None


def sum_connections(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Connection counters of several nodes (``ConnectionCounts`` as JSON) summed, most frequent first."""
    total: dict[str, Any] = {"nodes": len(views), "open": 0, "opened": {}, "closed": {}, "refused": {}}
    for view in views:
        total["open"] += int(view.get("open", 0))
        for key in ("opened", "closed", "refused"):
            for reason, count in (view.get(key) or {}).items():
                total[key][reason] = total[key].get(reason, 0) + int(count)
    for key in ("opened", "closed", "refused"):
        total[key] = dict(sorted(total[key].items(), key=lambda kv: -kv[1]))
    return total


def pair_closes(views: list[dict[str, Any]]) -> dict[str, Any]:
    """The nodes' recent closes (``connections.recent``) matched by their TCP addresses (one connection's
    two records have them swapped): ``pairs``: "reason at one end | reason at the other" (the two sorted),
    how often; ``unmatched``: closes whose other end's record was not among the recent ones; ``streams``:
    the protocols open at the closes that were not clean (not ``remote closed`` / GO_AWAY / local)."""
    closes: list[dict[str, Any]] = [c for view in views for c in view.get("recent") or ()]
    by_pair = {(c["local"], c["remote"]): c for c in closes if c.get("local") and c.get("remote")}
    # the dialer's port is the one address unique to a connection: its local, the listener's remote
    dialer_side = {c["local"]: c for c in closes if c.get("direction") == "outbound" and c.get("local")}
    listener_side = {c["remote"]: c for c in closes if c.get("direction") == "inbound" and c.get("remote")}
    samples = [c for c in closes if not c.get("local")][:4]  # the socket was gone: a few
    pairs: collections.Counter[str] = collections.Counter()
    unmatched: collections.Counter[str] = collections.Counter()
    streams: collections.Counter[str] = collections.Counter()
    counted: set[int] = set()
    for close in closes:
        other = by_pair.get((close.get("remote"), close.get("local")))  # type: ignore[arg-type]
        if other is None and close.get("direction") == "inbound":
            other = dialer_side.get(close.get("remote") or "-")
        if other is None and close.get("direction") == "outbound":
            other = listener_side.get(close.get("local") or "-")
        if other is None:
            unmatched[close["reason"]] += 1
        elif id(close) not in counted:
            counted.update((id(close), id(other)))
            pairs[" | ".join(sorted((close["reason"], other["reason"])))] += 1
        reason = close["reason"]
        if not reason.startswith(("remote closed", "remote GO_AWAY", "local")) or "mid" in reason:
            for protocol in close.get("streams") or ["(none)"]:
                streams[protocol] += 1
    return {
        "pairs": dict(pairs.most_common(12)),
        "unmatched": dict(unmatched.most_common(8)),
        "streams": dict(streams.most_common(12)),
        "without_addresses": samples,
    }


def spread(values: list[int]) -> list[float]:
    """[min, median, max] (empty: no value)."""
    return [min(values), statistics.median(values), max(values)] if values else []


async def network_state(node: Any, remotes: tuple[Any, ...], n_cards: int) -> dict[str, Any]:
    """Every node's connection counters summed, and gossip's reach over the agent nodes (``GET /net`` and
    ``GET /card``'s status: neither pings nor dials anything)."""
    views = [node.net_status()["connections"]]
    cards, topic, mesh, links = [len(node.services.discovery.directory)], [], [], [views[0]["open"]]
    answers: dict[int, tuple[Any, Any]] = {}
    paced: list[int] = []  # per node: pieces of peers' work the CPU budgets made wait (GET /budgets)
    busy: list[float] = []  # per node: the event loop's busy share
    grants: list[int] = []  # per node: paced reads let go after cpu_meter.READ_PACE_MAX
    counters: dict[str, tuple[float, dict[str, float]]] = {}  # per agent: its messages by kind
    limit = trio.Semaphore(PARALLEL_CALLS)

    async def ask(i: int, remote: Any) -> None:
        async with limit:
            net = await _call(remote, "/net")
            card = None if getattr(remote, "is_bootstrap", False) else await _call(remote, "/card")
            budgets = await _call(remote, "/budgets")
        answers[i] = (net, card)
        cpu = (budgets or {}).get("cpu") or {}
        if cpu:
            paced.append(int(cpu.get("paced", 0)))
            busy.append(float(cpu.get("loop_busy") or 0.0))
            grants.append(int(cpu.get("read_grants", 0)))

    async with trio.open_nursery() as nursery:  # a busy node answers late: ask several at once
        for i, remote in enumerate(remotes):
            nursery.start_soon(ask, i, remote)
    now = time.monotonic()  # the asks' end: the counters' time (traffic_census.rates)
    for i, remote in enumerate(remotes):
        net, card = answers.get(i, (None, None))
        view = (net or {}).get("connections") or {}
        views.append(view)
        if getattr(remote, "is_bootstrap", False):
            continue
        if view:
            links.append(int(view.get("open", 0)))
        status = (card or {}).get("status") or {}
        if status:
            counters[str(i)] = (now, flatten(status))
            cards.append(int(status.get("cards", 0)))
            gossip = status.get("gossip") or {}
            if gossip:
                topic.append(int(gossip.get("topic_peers", 0)))
                mesh.append(int(gossip.get("mesh_peers", 0)))
    return {
        "connections": sum_connections(views),
        "closes": pair_closes(views),
        "cards": spread(cards),
        "nodes_with_every_card": sum(c >= n_cards for c in cards),
        "topic_peers": spread(topic),
        "mesh_peers": spread(mesh),
        "connections_open": spread(links),
        # the CPU budgets' pacing (a paced peer's connection is not read: its writes wait)
        "paced": {"total": sum(paced), "per_node": spread(paced)},
        # paced connections read anyway after READ_PACE_MAX (so that the other end's writes progress)
        "read_grants": {"total": sum(grants), "per_node": spread(grants)},
        "loop_busy": spread([round(b, 2) for b in busy]),
        "counters": counters,  # for traffic_census.rates; taken out of the row
    }


__all__ = ["network_state", "pair_closes", "spread", "sum_connections"]
