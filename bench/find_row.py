"""The JSON row ``bench_find.py`` prints for one configuration: latency percentiles, recall, the CPU and
request figures that do not depend on the machine's load, each find's own account, and the network's
state (bench only)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import trio
from find_probes import known_split, summarize
from find_split import split_arms, step_medians

#: Seconds over which the idle network's CPU use is measured before the queries.
IDLE_WINDOW = 10.0
#: The per-find phase figures whose medians the row gives.
PHASE_KEYS = (
    "embed_s",
    "providers_s",
    "fetch_s",
    "rank_s",
    "size",
    "buckets",
    "providers",
    "fetched",
    "pages",
    "passes",
)


@dataclass
class Measured:
    """What one configuration's run collected (``bench_find.measure``)."""

    n: int
    mode: str
    where: str
    n_queries: int
    pages: bool
    keep_all: int
    profile: str
    ab: str
    load: float = 0.0
    cards_before: int = 0
    idle: float = 0.0  # cores the idle network used over the idle window
    cpu: float = 0.0  # CPU seconds of all processes while the queries ran
    wall: float = 0.0  # seconds the queries took
    own: float = 0.0  # of which the asking process
    streams: int = 0  # the asking node's KAD streams and requests while the queries ran
    requests: int = 0
    fetched: int = 0  # cards the asking node fetched from the DHT while the queries ran
    latencies: list[float] = field(default_factory=list)
    recalls: list[float] = field(default_factory=list)
    cosines: list[float] = field(default_factory=list)
    phases: list[dict[str, Any]] = field(default_factory=list)
    arms: list[str] = field(default_factory=list)  # with --ab: which arm each find ran
    connected: list[int] = field(default_factory=list)  # the asking node's connections before / after
    states: dict[str, Any] = field(default_factory=dict)  # network_state after settle / idle / at the end
    pids: int = 1  # processes measured
    misses: bool = False  # --misses: each find's account says why it missed a card (find_misses.py)


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def find_row(m: Measured, net: Any) -> dict[str, Any]:
    """The row of one configuration; ``net`` is its ``BenchNet`` (still running)."""
    n, phases, q = m.n, m.phases, m.n_queries
    size = statistics.median(_numbers(phases, "size") or [0.0])
    return {
        # CPU of all processes per find above what the idle network used over the same time (the idle
        # rate is measured before the queries; at N = 50 it was 1 core, so a 10 s find counted 10 s)
        "cpu_s_per_query_over_idle": round((m.cpu - m.idle * m.wall) / q, 3),
        # load-independent: the asking node's KAD streams and requests per find, the size estimate's
        # error, the asking node's routing table
        "kad_streams_per_query": round(m.streams / q, 1),
        "kad_requests_per_query": round(m.requests / q, 1),
        "size_ratio": round(size / n, 2),
        "routing_table": net.service.net.routing_table_size(),
        # the peers the size estimate counts (routing table and connections): of this network, not
        "known": known_split(net.service.net.dht, net.summaries, net.others),
        "cpu_s_per_query": round(m.cpu / q, 3),
        # of which the asking node's own process (embedding, page reading, card checks, ranking)
        "asker_cpu_s_per_query": round(m.own / q, 3),
        "cores_busy": round(m.cpu / m.wall, 2),
        "cores_idle": round(m.idle, 2),
        "n": n,
        "mode": m.mode,
        "pages": m.pages,
        "keep_all": m.keep_all or None,
        "where": m.where,
        "queries": q,
        "p50_ms": round(pct(m.latencies, 50), 1),
        "p95_ms": round(pct(m.latencies, 95), 1),
        "recall@5": round(statistics.mean(m.recalls), 3),
        "cos@5": round(statistics.mean(m.cosines), 3),
        "load": round(m.load, 1),
        "cards_before": m.cards_before,
        # over the finds that got that far (a find whose DHT part timed out has no lookup figures)
        "phases": {key: round(statistics.median(_numbers(phases, key) or [0.0]), 3) for key in PHASE_KEYS},
        # each step's split (dht/timing.py), median over the finds: wall, our backlog, the remotes'
        # answers, the tail spent waiting for the slowest peer needed
        "steps": {step: step_medians(phases, step) for step in ("listing_t", "fetch_t")},
        "choose_s": round(statistics.median(_numbers(phases, "choose_s") or [0.0]), 3),
        "dht_timeouts": sum(bool(p.get("dht_timeout")) for p in phases),
        # finds that ranked the directory alone (it was provably complete: dht/census.py)
        "dht_skipped": sum(bool(p.get("dht_skipped")) for p in phases),
        "census": net.service.census.status(trio.current_time()),
        "cards_at_end": len(net.service.directory),
        # the card fetch of page searches: owners that answered, cards from the DHT, early ends
        "fetch": {
            "owners": round(statistics.median([float(p.get("owners", 0)) for p in phases]), 1),
            "from_dht": round(statistics.median([float(p.get("from_dht", 0)) for p in phases]), 1),
            "early_ends": sum(bool(p.get("early")) for p in phases),
            "wait_s": [p["wait_s"] for p in phases if "wait_s" in p][-1:],
        },
        "per_find": [
            [round(ms), round(r, 2), bool(p.get("dht_timeout")), bool(p.get("early"))]
            for ms, r, p in zip(m.latencies, m.recalls, phases, strict=True)
        ],
        # every find's own account (``Discovery.last_find``): where its time went
        "finds": [_rounded(p) for p in phases],
        "connected": m.connected,
        # every node's connections summed (why they opened and closed) and gossip's reach: after the
        # settle and idle window, and after the queries (find_netstate.py)
        "net_state": m.states,
        "cores_idle_per_process": round(m.idle / m.pids, 4),
        "profile": summarize(Path(m.profile) / "find", q) if m.profile else None,
        # per second of the idle window (``queries`` = the window's seconds)
        "profile_idle": summarize(Path(m.profile) / "idle", round(IDLE_WINDOW)) if m.profile else None,
        # --ab: the finds of each arm (alternating, so both see the same network and load)
        "ab": split_arms(m.arms, m.latencies, m.recalls, phases) if m.ab else None,
        "fetched_per_query": round(m.fetched / q, 1),
    }


def _numbers(phases: list[dict[str, Any]], key: str) -> list[float]:
    """The figures under ``key`` of the finds that have one (a find that fell back from pages to provider
    records keeps its page search's account as a dict under ``pages``)."""
    values = [p.get(key) for p in phases]
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _rounded(value: Any) -> Any:
    """``value`` with its floats rounded to milliseconds (nested dicts too), for the JSON row."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, float):
        return round(value, 3)
    return value


__all__ = ["IDLE_WINDOW", "Measured", "find_row", "pct"]
