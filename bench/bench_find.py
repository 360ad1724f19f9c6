"""``find`` latency (p50/p95) and recall@5 at N nodes, DHT only and gossip + DHT.

    .venv/bin/python bench/bench_find.py [--sizes 10,25,50] [--queries 30] [--modes dht,gossip]
                                         [--mode processes|inprocess] [--settle 60] [--json]
                                         [--pages on|off] [--keep-all N] [--profile DIR]

Two ways to run the N nodes (real libp2p hosts on 127.0.0.1: TCP, Noise, yamux, the real DHT and gossip):

- ``processes`` (default): N - 1 agent nodes are OS processes (``open_testnet``: plus a bootstrap node, which
  holds no card), and the asking node runs in this benchmark's process (so its directory can be emptied
  before each query). Every process shares the machine's cores; run the benchmark niced
  (``nice -n 10``): the node processes inherit it.
- ``inprocess``: all N nodes in ONE process (one event loop, one core): every figure includes the other
  N - 1 nodes' work (pessimistic).

Modes:

- ``dht``: gossip off on every node, and the asking node's directory emptied before every query (cold): the
  answer comes only from the DHT: bucket pages (the sketches they list) and card records (``--pages on``,
  the default), or LSH provider records and card records (``--pages off``).
- ``dht-warm``: gossip off, the directory emptied before the first query only: a node that keeps the cards
  its earlier finds fetched (the directory is a find's card cache, by version: a card held fresh is not
  fetched again unless a page's sketch names a newer version), as a node without gossip runs.
- ``gossip``: the default configuration (gossip + DHT); queries start once the asking node's directory is
  complete (or after the settle time).

Agents get distinct descriptions: the agents of ``teaming-dev-hard.json`` (160) from the shared data, then
generated ones; queries are that set's goals (generated tasks when the file is absent: said on stderr).

Recall@5 is reported against two exact answers over all N cards: ``recall@5`` = the node's own ranking (the
offline matcher) applied to every card, i.e. what the node would answer had it every card (the loss due
to discovery alone); ``cos@5`` = the exact top 5 by cosine similarity of the card vectors.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import trio
from find_netstate import network_state
from find_probes import Profiles, RequestCount, known_split, summarize
from find_split import set_arm, split_arms, step_medians
from find_world import Truth, agent_config, agents_and_goals, open_inprocess_peers

from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node

ROWS: list[dict[str, Any]] = []
#: Seconds over which the idle network's CPU use is measured before the queries.
IDLE_WINDOW = 10.0
#: Agent processes ``--profile`` records besides the asking node and the bootstrap node.
PROFILED_AGENTS = 6


@dataclass
class BenchNet:
    """The asking node (in this process), its discovery service, every card's summary (N of them), and
    the node processes (to read their CPU time)."""

    node: Any
    service: Any
    summaries: list[dict[str, Any]]
    pids: list[int]
    roles: dict[int, str]  # pid -> asker / bootstrap / agent (the processes ``--profile`` records)
    others: tuple[str, ...] = ()  # peer IDs of the network's nodes without a card (the bootstrap node)
    remotes: tuple[Any, ...] = ()  # the node processes' control clients (``.call``), bootstrap included


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by these processes (from /proc; 0 where unreadable)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


@asynccontextmanager
async def open_inprocess(n: int, discovery: dict[str, Any], root: Path) -> AsyncIterator[BenchNet]:
    async with open_inprocess_peers(n, discovery, root) as peers:
        node, service = peers[rng_pick(n)]
        summaries = [s.card.summary() for _, s in peers]
        yield BenchNet(node, service, summaries, [os.getpid()], {os.getpid(): "asker"})


def rng_pick(n: int) -> int:
    return random.Random(5).randrange(n)


@asynccontextmanager
async def open_processes(n: int, discovery: dict[str, Any], root: Path) -> AsyncIterator[BenchNet]:
    agents, _ = agents_and_goals(n)
    specs = [
        NodeSpec(f"a{i}", agent_config(name, desc, discovery)) for i, (name, desc) in enumerate(agents[1:])
    ]
    started = time.monotonic()
    async with open_testnet(root / "net", specs, start_timeout=600) as net:
        print(
            f"# N={n}: {n - 1} node processes + bootstrap up in {time.monotonic() - started:.0f} s",
            file=sys.stderr,
        )
        config = NodeConfig(
            home=root / "asker",
            bootstrap=tuple(net.bootstrap_addrs()),
            bootstrap_backoff=0.2,
            raw=agent_config(*agents[0], discovery),
        )
        async with open_node(
            config, identity=Identity.generate(), write_info=False, control_api=False
        ) as node:
            service = node.services.discovery
            await service.card_ready.wait()
            summaries = [service.card.summary()]
            for agent in net.agents:
                with trio.fail_after(120):
                    summaries.append(
                        {k: v for k, v in (await agent.call("GET", "/card")).items() if k != "status"}
                    )
            pids = [os.getpid()] + [n.pid for n in net.nodes.values() if n.pid is not None]
            roles = {os.getpid(): "asker"}
            for n_ in net.nodes.values():
                if n_.pid is not None and (n_.is_bootstrap or len(roles) < 1 + PROFILED_AGENTS):
                    roles[n_.pid] = "bootstrap" if n_.is_bootstrap else "agent"
            boot = tuple(str(n_.peer_id) for n_ in net.nodes.values() if n_.is_bootstrap)
            remotes = tuple(n_ for n_ in net.nodes.values())
            yield BenchNet(node, service, summaries, pids, roles, boot, remotes)


async def wait_all_cards(net: BenchNet, n: int, limit: float) -> int:
    """Until the asking node's directory holds all n cards (gossip done), at most ``limit`` seconds."""
    with trio.move_on_after(limit):
        for _ in itertools.count():
            if len(net.service.directory) >= n:
                break
            await trio.sleep(0.2)
    return len(net.service.directory)


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


async def measure(
    n: int,
    mode: str,
    where: str,
    n_queries: int,
    settle: float,
    pages: bool = True,
    keep_all: int = 0,
    profile: str = "",
    ab: str = "",
) -> None:
    """Measure one configuration and print its row (before the nodes are torn down)."""
    discovery: dict[str, Any] = {"gossip": mode == "gossip", "pages": pages}
    if keep_all:
        discovery["keep_all"] = keep_all
    _, goals = agents_and_goals(n)
    root = Path(tempfile.mkdtemp(prefix=f"ioa-bench-find-{os.getpid()}-"))
    opener = open_processes if where == "processes" else open_inprocess
    sent = RequestCount()  # the asking node's KAD streams and requests
    async with opener(n, discovery, root) as net:
        started = time.monotonic()
        cards = await wait_all_cards(net, n, settle) if mode == "gossip" else 0
        await trio.sleep(max(0.0, settle - (time.monotonic() - started)))
        idle_profiles = Profiles(Path(profile) / "idle", net.roles) if profile else None
        if idle_profiles is not None:  # where the idle network's CPU goes, over the idle window
            idle_profiles.start()
            await trio.sleep(2)  # py-spy attaches
        state_settled = await network_state(net.node, net.remotes, n) if where == "processes" else None
        idle0 = cpu_seconds(net.pids)
        await trio.sleep(IDLE_WINDOW)
        idle = (cpu_seconds(net.pids) - idle0) / IDLE_WINDOW
        state_idle = await network_state(net.node, net.remotes, n) if where == "processes" else None
        if idle_profiles is not None:
            idle_profiles.stop()
        truth = Truth(net.summaries, net.service)
        me = net.node.peer_id
        load = os.getloadavg()[0]
        latencies, recalls, cosines = [], [], []
        answers: list[tuple[str, set[str]]] = []
        phases: list[dict[str, Any]] = []
        arms: list[str] = []  # with --ab: which arm each find ran
        stats0 = dict(net.service.stats)
        connected0 = len(net.node.connected_peers())
        cpu0, wall0 = cpu_seconds(net.pids), time.monotonic()
        own0, sent0 = cpu_seconds([os.getpid()]), sent.snapshot()
        profiles = Profiles(Path(profile) / "find", net.roles) if profile else None
        if profiles is not None:
            profiles.start()
            await trio.sleep(2)  # py-spy attaches
            cpu0, wall0, own0 = cpu_seconds(net.pids), time.monotonic(), cpu_seconds([os.getpid()])
        for q in range(n_queries):
            goal = goals[q % len(goals)]
            if mode == "dht" or (mode == "dht-warm" and q == 0):
                for entry in list(net.service.directory):
                    if entry.card.peer_id != me:
                        net.service.directory.remove(entry.card.peer_id)
            arms.append(set_arm(ab, q % 2 == 0))
            t0 = time.perf_counter()
            matches = await net.service.find(goal, k=5)
            latencies.append((time.perf_counter() - t0) * 1000)
            phases.append(dict(net.service.last_find))
            answers.append((goal, {str(m.card.peer_id) for m in matches}))
        cpu, wall = cpu_seconds(net.pids) - cpu0, time.monotonic() - wall0
        own = cpu_seconds([os.getpid()]) - own0
        streams, requests = (b - a for a, b in zip(sent0, sent.snapshot(), strict=True))
        if profiles is not None:
            profiles.stop()
        for goal, got in answers:  # scored after the CPU figures: the exact answers are not a find's work
            recalls.append(len(got & truth.ranked(goal)) / 5)
            cosines.append(len(got & truth.cosine(goal)) / 5)
        size = statistics.median(_numbers(phases, "size") or [0.0])
        row = {
            # CPU of all processes per find above what the idle network used over the same time (the idle
            # rate is measured before the queries; at N = 50 it was 1 core, so a 10 s find counted 10 s)
            "cpu_s_per_query_over_idle": round((cpu - idle * wall) / n_queries, 3),
            # load-independent: the asking node's KAD streams and requests per find, the size estimate's
            # error, the asking node's routing table
            "kad_streams_per_query": round(streams / n_queries, 1),
            "kad_requests_per_query": round(requests / n_queries, 1),
            "size_ratio": round(size / n, 2),
            "routing_table": net.service.net.routing_table_size(),
            # the peers the size estimate counts (routing table and connections): of this network, not
            "known": known_split(net.service.net.dht, net.summaries, net.others),
            "cpu_s_per_query": round(cpu / n_queries, 3),
            # of which the asking node's own process (embedding, page reading, card checks, ranking)
            "asker_cpu_s_per_query": round(own / n_queries, 3),
            "cores_busy": round(cpu / wall, 2),
            "cores_idle": round(idle, 2),
            "n": n,
            "mode": mode,
            "pages": pages,
            "keep_all": keep_all or None,
            "where": where,
            "queries": n_queries,
            "p50_ms": round(pct(latencies, 50), 1),
            "p95_ms": round(pct(latencies, 95), 1),
            "recall@5": round(statistics.mean(recalls), 3),
            "cos@5": round(statistics.mean(cosines), 3),
            "load": round(load, 1),
            "cards_before": cards,
            "phases": {
                # over the finds that got that far (a find whose DHT part timed out has no lookup figures)
                key: round(statistics.median(_numbers(phases, key) or [0.0]), 3)
                for key in (
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
            },
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
                for ms, r, p in zip(latencies, recalls, phases, strict=True)
            ],
            # every find's own account (``Discovery.last_find``): where its time went
            "finds": [_rounded(p) for p in phases],
            "connected": [connected0, len(net.node.connected_peers())],
            # every node's connections summed (why they opened and closed) and gossip's reach: after the
            # settle and idle window, and after the queries (find_netstate.py)
            "net_state": {
                "settled": state_settled,
                "idle": state_idle,
                "end": await network_state(net.node, net.remotes, n) if where == "processes" else None,
            },
            "cores_idle_per_process": round(idle / len(net.pids), 4),
            "profile": summarize(Path(profile) / "find", n_queries) if profile else None,
            # per second of the idle window (``queries`` = the window's seconds)
            "profile_idle": summarize(Path(profile) / "idle", round(IDLE_WINDOW)) if profile else None,
            # --ab: the finds of each arm (alternating, so both see the same network and load)
            "ab": split_arms(arms, latencies, recalls, phases) if ab else None,
            "fetched_per_query": round(
                (net.service.stats["dht_fetched"] - stats0["dht_fetched"]) / n_queries, 1
            ),
        }
        print(json.dumps(row), flush=True)


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


HEADER = (
    f"{'N':>3} {'mode':<7} {'where':<10} {'p50 ms':>8} {'p95 ms':>8} {'recall@5':>9} {'cos@5':>6} {'load':>5}"
)


def describe(row: dict[str, Any]) -> str:
    return (
        f"{row['n']:>3} {row['mode']:<7} {row['where']:<10} {row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f} "
        f"{row['recall@5']:>9.3f} {row['cos@5']:>6.3f} {row['load']:>5.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--modes", default="dht,gossip")
    parser.add_argument("--mode", dest="where", choices=("processes", "inprocess"), default="processes")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="seconds to let the network settle (+1 s per node)"
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    parser.add_argument(
        "--pages",
        choices=("on", "off"),
        default="on",
        help="[discovery] pages on every node: on (sketch pages, the default) or off (provider records only)",
    )
    parser.add_argument(
        "--keep-all",
        type=int,
        default=0,
        help="[discovery] keep_all on every node: past this many cards a directory keeps only the cards "
        "its node needs and finds rely on the DHT for the rest (0: the default, keep every card)",
    )
    parser.add_argument(
        "--profile",
        default="",
        help="py-spy the asking, bootstrap and 6 agent nodes during the queries into "
        "this folder (per configuration: DIR/N-MODE; needs py-spy in the venv); the row's 'profile' sums it",
    )
    parser.add_argument(
        "--ab",
        choices=("", "prefetch", "grace", "all"),
        default="",
        help="alternate the finds between the code as it is and the code without this part of the find's "
        "design (prefetch, grace, all): both arms see the same network and load; the row's 'ab' splits them",
    )
    parser.add_argument("--one", nargs=2, metavar=("N", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("libp2p", "ioa_p2p", "multiaddr"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.one:
        n, mode = int(args.one[0]), args.one[1]
        profile = str(Path(args.profile) / f"{n}-{mode}") if args.profile else ""
        trio.run(
            measure,
            n,
            mode,
            args.where,
            args.queries,
            args.settle + n,
            args.pages == "on",
            args.keep_all,
            profile,
            args.ab,
        )
        return
    print(
        f"# load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, nice {os.nice(0)}",
        flush=True,
    )
    # One process per configuration: a fresh event loop each time (and, in process, a crash while tearing
    # down many nodes, seen with py-libp2p 0.8.1 at N >= 25, cannot lose the other rows).
    if not args.json:
        print(f"{HEADER}   (queries={args.queries})", flush=True)
    for n in args.sizes.split(","):
        for mode in args.modes.split(","):
            argv = [
                "--one",
                n,
                mode,
                "--queries",
                str(args.queries),
                "--settle",
                str(args.settle),
                "--pages",
                args.pages,
                "--keep-all",
                str(args.keep_all),
                "--mode",
                args.where,
                "--profile",
                args.profile,
                "--ab",
                args.ab,
            ]
            row = run_one(__file__, argv)
            if row is None:
                print(f"{n} {mode}: failed", flush=True)
            else:
                ROWS.append(row)
                print(json.dumps(row) if args.json else describe(row), flush=True)
                if not args.json:
                    print(
                        f"      medians: {row['phases']}, DHT part timed out: {row['dht_timeouts']}; "
                        f"CPU per query (all nodes): {row['cpu_s_per_query']} s; our processes used "
                        f"{row['cores_busy']} cores meanwhile ({row['cores_idle']} idle)",
                        flush=True,
                    )


def run_one(script: str, argv: list[str]) -> dict[str, Any] | None:
    child = subprocess.Popen([sys.executable, script, *argv], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=5400)
    finally:
        child.kill()
        reap_orphans(child.pid)
        for home in Path(tempfile.gettempdir()).glob(f"ioa-bench-find-{child.pid}-*"):
            shutil.rmtree(home, ignore_errors=True)  # the configuration's node homes
    done = subprocess.CompletedProcess(child.args, child.returncode, out)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            row: dict[str, Any] = json.loads(line)
            return row
    return None


def reap_orphans(parent: int) -> None:
    """SIGKILL the node processes a configuration started (their IOA_PARENT_PID is its pid) that are still
    alive: py-libp2p can end the configuration's process with an internal error while its testnet stops."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"IOA_PARENT_PID={parent}".encode() in environ:
            with contextlib.suppress(OSError):
                os.kill(int(proc.name), signal.SIGKILL)


if __name__ == "__main__":
    main()
