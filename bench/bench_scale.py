"""Scale: N agents as N processes, or several agents to a process (``ioa node start`` with ``[[agents]]``).

Run: python bench/bench_scale.py [--sizes 10,25,50,100] [--modes processes,agents] [--per-process 25]
                                 [--goals 5] [--finds 10] [--settle 10] [--idle 20] [--watch S] [--json]

Each configuration is a local testnet (``open_testnet``: a bootstrap node, then N agents on 127.0.0.1 with
real Noise + yamux over TCP, DHT, gossip, SQLite): agent 0 is the coordinator (no adapter, it launches the
goals); the others have the eight sample descriptions of ``ioa testnet up`` (repeated) and run the ``echo``
test adapter, so tasks end at once and the figures are about the network. Modes:

- ``processes``: one OS process per agent (refused, saying so, when N processes would not fit in the
  memory the machine has available);
- ``agents``: ``--per-process`` agents to a process (N = 100, 25 per process: 4 processes), each agent
  still a whole node with its own key, card, host and control API, sharing the process's imports, models
  and event loop.

Figures per configuration:

- ``start``: from launching the processes until every agent answered on its control API;
- ``RSS/agent`` and ``total RSS``: the agent processes' resident memory (``/proc``; the bootstrap node
  apart) once the goals ran (peak over the samples taken), total and per agent;
- ``CPU/agent idle``: CPU time the agent processes used over ``--idle`` s after the goals, per agent, in
  % of one core; ``CPU/agent start``: CPU seconds per agent from launch until every card was at the
  coordinator;
- ``cards``: seconds from "every agent up" until a poll of the coordinator's ``GET /cards`` saw every
  agent's card (how many, when not all within ``--cards-timeout``); ``--json`` also gives ``cards_held_s``,
  when the coordinator first held the last of them (the cards' ``first_ms``: a busy node answers a poll
  seconds after the cards are there), and ``cards_held_in_time``, the cards it first held within the wait;
- ``find``: p50 / p90 of ``POST /find`` at the coordinator (wall time through its control API);
- ``team``: p50 / p90 of ``team formed`` (the goal's ``timings.team_formed_s``: discovery + invitations)
  over ``--goals`` goals, and how many concluded (``--json``: the p50 of each part apart);
- ``invites t/o``: invitations that were not answered in time (the goals' ``unanswered`` members);
- ``budgets``: what every agent's ``GET /budgets`` (``ioa peers``) says of memory: the mean of its
  ``share_rss`` (its process's RSS beyond the RSS before the first agent opened, divided by the agents),
  agents whose count of agents in their process was wrong, and the largest difference between a reported
  process RSS and ``/proc`` (printed, and in ``--json``);
- ``--watch S`` (:mod:`scale_watch`): while the cards spread, every ``S`` s, what the coordinator and one
  agent of every other process hold (cards, and how many of other processes' agents), their card-topic
  and mesh peers, gossip counters, routing table, fetches, connections to their own process / other
  processes / the bootstrap node, and the start places of the other processes' agents whose cards they
  lack (docs/performance.md, "Eighth round");
- ``CPU wait %``: the share of wall time an agent process's event-loop thread was runnable but waiting in
  the kernel's run queue for a CPU (``/proc/PID/schedstat``; mean over the agent processes), from launch
  until every card arrived / while the goals ran: how much of the machine the processes got, which
  decides the other figures on a shared machine.

Targets of issue 26 (the 2-core box): 100 agents within 4 GB total, every card at a coordinator within
60 s, team formed p50 < 0.5 s, no invitation timeouts.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from bench_goal import CHATS, GOAL_SETTINGS, GOALS, LAUNCHER, agent_table, progress
from scale_watch import watch_loop

from ioa_p2p.bootstrap.testnet import NodeSpec, Testnet, TestnetNode, open_testnet
from ioa_p2p.control_client import ControlClient
from ioa_p2p.testing.kinds import register_test_kinds

QUERIES = (
    "exact arithmetic with percentages",
    "translate a text into French",
    "review code for security problems",
    "summarise passages of documents with citations",
    "explain trends in a table of sales numbers",
    "draft an announcement email",
    "plan a migration in ordered steps",
    "run a short Python program to transform data",
)
#: Memory one agent process needs at least (MB), to refuse a processes run the machine cannot hold: an idle
#: agent holds ~120 MB RSS (~85 MB PSS; docs/performance.md, "Light nodes"), 101 processes peaked at ~12 GB.
PROCESS_MB = 125
CLOCK = os.sysconf("SC_CLK_TCK")
#: Agents asked for ``GET /budgets`` at once.
BUDGETS_AT_ONCE = 8
ROWS: list[dict[str, Any]] = []


def specs_for(n: int) -> list[NodeSpec]:
    tables = [dict(LAUNCHER, name="coordinator")] + [agent_table(i) for i in range(n - 1)]
    return [NodeSpec(t["name"], {"agent": t, "chats": CHATS, "goals": GOAL_SETTINGS}) for t in tables]


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK


def run_queue_seconds(pid: int) -> float:
    """Seconds the process's main thread (its trio loop) waited in the kernel's run queue for a CPU."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("inf")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Meter:
    """CPU and peak RSS of the agent processes (the bootstrap node apart)."""

    def __init__(self, net: Testnet) -> None:
        self.pids = sorted({node.pid for node in net.agents if node.pid is not None})
        self.peak = 0

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def waited(self) -> float:
        """Mean over the agent processes of their loop thread's run-queue wait so far (seconds)."""
        return sum(run_queue_seconds(pid) for pid in self.pids) / max(1, len(self.pids))

    def sample(self) -> int:
        total = sum(rss_bytes(pid) for pid in self.pids)
        self.peak = max(self.peak, total)
        return total


class CardsSeen:
    """What the coordinator held: when a poll of ``GET /cards`` first saw every card (``poll_s``), and when
    the coordinator itself first held the last of them (``held_s``, from the cards' ``first_ms``: a poll
    of a busy node's control API is answered seconds after the cards are there), both from ``began``;
    ``held_in_time``: the cards first held within the wait."""

    def __init__(self) -> None:
        self.poll_s: float | None = None
        self.held_s: float | None = None
        self.count = 0
        self.held_in_time = 0


async def wait_cards(net: Testnet, n: int, seconds: float, meter: Meter) -> CardsSeen:
    client = ControlClient(net["coordinator"].home, timeout=120)
    started, began = time.monotonic(), time.time()
    seen = CardsSeen()
    cards: dict[str, Any] = {"cards": []}
    with trio.move_on_after(seconds):
        while True:
            cards = await trio.to_thread.run_sync(lambda: client.call("GET", "/cards"))
            seen.count = len(cards["cards"])
            meter.sample()
            if seen.count >= n:
                seen.poll_s = time.monotonic() - started
                break
            await trio.sleep(0.5)
    firsts = [c.get("first_ms") or c["learned_ms"] for c in cards["cards"]]
    seen.held_in_time = sum(1 for ms in firsts if ms / 1000 - began <= seconds)
    if seen.count >= n and firsts:
        seen.held_s = max(0.0, max(firsts) / 1000 - began)
    return seen


async def budgets_memory(net: Testnet, meter: Meter) -> dict[str, Any]:
    """What each agent's ``GET /budgets`` says of its memory (what ``ioa peers`` prints), against
    ``/proc``: agents counted per process, the mean ``share_rss`` (MB), and the largest difference (MB)
    between an agent's reported process RSS and its process's ``/proc`` RSS read just after."""
    shares: list[float] = []
    worst, wrong_count, failed = 0.0, 0, 0
    limiter = trio.CapacityLimiter(BUDGETS_AT_ONCE)  # 100 agents one by one took over 5 min on a busy box

    async def one(node: TestnetNode) -> None:
        nonlocal worst, wrong_count, failed
        client = ControlClient(node.home, timeout=60)
        try:
            async with limiter:
                memory = (await trio.to_thread.run_sync(lambda: client.call("GET", "/budgets")))["memory"]
        except Exception:  # a figure lost, not the run
            failed += 1
            return
        same = sum(1 for other in net.agents if other.pid == node.pid)
        wrong_count += memory["agents"] != same
        if memory.get("share_rss") is not None:
            shares.append(memory["share_rss"] / 2**20)
        if memory.get("process_rss") is not None and node.pid is not None:
            worst = max(worst, abs(memory["process_rss"] - rss_bytes(node.pid)) / 2**20)

    async with trio.open_nursery() as nursery:
        for node in net.agents:
            nursery.start_soon(one, node)
    if failed:
        progress(f"GET /budgets failed at {failed} agent(s)")
    return {
        "budgets_share_mb": round(statistics.mean(shares), 1) if shares else None,
        "budgets_rss_diff_mb": round(worst, 1),
        "budgets_agents_wrong": wrong_count,
    }


async def run_one(
    root: Path, n: int, mode: str, per_process: int, args: argparse.Namespace
) -> dict[str, Any]:
    specs = specs_for(n)
    per = 1 if mode == "processes" else min(per_process, n)
    launched = time.monotonic()
    async with open_testnet(root, specs, per_process=per, start_timeout=args.start_timeout) as net:
        up = time.monotonic() - launched
        meter = Meter(net)
        progress(f"N={n} {mode}: {len(meter.pids)} agent processes up in {up:.1f} s")
        async with trio.open_nursery() as watching:
            if args.watch:
                watching.start_soon(watch_loop, net, args.watch, progress)
            seen = await wait_cards(net, n, args.cards_timeout, meter)
            cards_s, cards = seen.poll_s, seen.count
            watching.cancel_scope.cancel()
        cpu_start = meter.cpu()
        wait_start = meter.waited() / (time.monotonic() - launched)
        held = (
            ""
            if seen.held_s is None
            else f"; it held the last one {seen.held_s:.1f} s after the start of the wait"
        )
        progress(
            f"N={n} {mode}: {cards}/{n} cards at the coordinator after {cards_s or args.cards_timeout:.1f} s"
            f" (by its GET /cards; {seen.held_in_time} first held within {args.cards_timeout:.0f} s{held})"
        )
        await trio.sleep(args.settle)
        client = ControlClient(net["coordinator"].home, timeout=300)

        async def call(path: str, body: dict[str, Any]) -> Any:
            return await trio.to_thread.run_sync(lambda: client.call("POST", path, body))

        finds = []
        for i in range(args.finds):
            began = time.monotonic()
            await call("/find", {"text": QUERIES[i % len(QUERIES)], "k": 3})
            finds.append(time.monotonic() - began)
        formed, concluded, unanswered, teams = [], 0, 0, []
        split: list[tuple[float, float]] = []  # (discovery, invitations) seconds of each team formed
        goals_began, goals_waited = time.monotonic(), meter.waited()
        for g in range(args.goals):
            body = {"goal": GOALS[g % len(GOALS)], "timeout": 120, "team_up_depth": 0}
            result = await call("/launch_goal", body)
            formed.append(result["timings"]["team_formed_s"])
            split.append(
                (result["timings"].get("discovery_s", 0.0), result["timings"].get("invitations_s", 0.0))
            )
            concluded += result["status"] == "concluded"
            unanswered += len(result["unanswered"])
            teams.append(len(result["team"]))
            meter.sample()
            progress(
                f"N={n} {mode}: goal {g + 1}: {result['status']}, team of {len(result['team'])} formed in "
                f"{formed[-1]:.2f} s (discovery {split[-1][0]:.2f} s, invitations {split[-1][1]:.2f} s), "
                f"{len(result['unanswered'])} invitation(s) unanswered; "
                + " ".join(f"{k} {v:.3f}" for k, v in sorted(result["timings"].items()))
            )
        memory = await budgets_memory(net, meter)
        wait_goals = (meter.waited() - goals_waited) / max(1e-9, time.monotonic() - goals_began)
        before, began = meter.cpu(), time.monotonic()
        await trio.sleep(args.idle)
        idle = (meter.cpu() - before) / (time.monotonic() - began)
        meter.sample()
        row = {
            "nodes": n,
            "mode": mode,
            "per_process": per,
            "processes": len(meter.pids),
            "start_s": round(up, 1),
            "rss_total_mb": round(meter.peak / 2**20),
            "rss_per_agent_mb": round(meter.peak / 2**20 / n, 1),
            "cpu_idle_pct_per_agent": round(100 * idle / n, 2),
            "cpu_start_s_per_agent": round(cpu_start / n, 2),  # the processes' CPU since they started
            "cards_s": None if cards_s is None else round(cards_s, 1),
            "cards": cards,
            "cards_held_s": None if seen.held_s is None else round(seen.held_s, 1),  # by the cards' first_ms
            "cards_held_in_time": seen.held_in_time,
            "find_p50_ms": round(1000 * statistics.median(finds)) if finds else None,
            "find_p90_ms": round(1000 * pct(finds, 0.9)) if finds else None,
            "team_p50_s": round(statistics.median(formed), 3) if formed else None,
            "team_p90_s": round(pct(formed, 0.9), 3) if formed else None,
            "team_median": statistics.median(teams) if teams else None,
            "team_discovery_p50_s": round(statistics.median(d for d, _ in split), 3) if split else None,
            "team_invitations_p50_s": round(statistics.median(i for _, i in split), 3) if split else None,
            "concluded": concluded,
            "goals": len(formed),
            "invitations_timed_out": unanswered,
            # share of wall time an agent process's loop thread was runnable but waiting for a CPU
            "run_queue_wait_start_pct": round(100 * wait_start),
            "run_queue_wait_goals_pct": round(100 * wait_goals),
            "load": round(os.getloadavg()[0], 1),
            **memory,
        }
        progress(
            f"N={n} {mode}: GET /budgets memory: share {row['budgets_share_mb']} MB per agent, "
            f"{row['budgets_agents_wrong']} agent count(s) wrong, reported RSS within "
            f"{row['budgets_rss_diff_mb']} MB of /proc"
        )
        progress(f"N={n} {mode}: stopping")
        return row


HEADER = (
    "| N | mode | procs | start s | total RSS MB | RSS/agent MB | CPU/agent idle % | CPU s/agent start "
    "| all cards s | find p50/p90 ms | team p50/p90 s | concluded | invites t/o | CPU wait % | load |"
)


def table_row(r: dict[str, Any]) -> str:
    cards = f"{r['cards_s']}" if r["cards_s"] is not None else f"— ({r['cards']}/{r['nodes']})"
    mode = "processes" if r["mode"] == "processes" else f"{r['per_process']}/process"
    return (
        f"| {r['nodes']} | {mode} | {r['processes']} | {r['start_s']} | {r['rss_total_mb']} | "
        f"{r['rss_per_agent_mb']} | {r['cpu_idle_pct_per_agent']} | {r['cpu_start_s_per_agent']} | {cards} | "
        f"{r['find_p50_ms']}/{r['find_p90_ms']} | {r['team_p50_s']}/{r['team_p90_s']} | "
        f"{r['concluded']}/{r['goals']} | {r['invitations_timed_out']} | "
        f"{r['run_queue_wait_start_pct']}/{r['run_queue_wait_goals_pct']} | {r['load']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50,100")
    parser.add_argument("--modes", default="processes,agents")
    parser.add_argument("--per-process", type=int, default=25, help="agents per process in agents mode")
    parser.add_argument("--goals", type=int, default=5)
    parser.add_argument("--finds", type=int, default=10)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after the cards arrived")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle CPU measured at the end")
    parser.add_argument("--cards-timeout", type=float, default=180.0)
    parser.add_argument("--start-timeout", type=float, default=600.0, help="seconds for every agent to start")
    parser.add_argument("--watch", type=float, default=0.0, help="print what agents hold every S s (cards)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    register_test_kinds()  # the echo kind, for this process and the node processes it starts
    rows = []
    if not args.json:
        print(HEADER)
        print("|" + "--:|" * (HEADER.count("|") - 1))
    for n in [int(s) for s in args.sizes.split(",")]:
        for mode in args.modes.split(","):
            processes = n if mode == "processes" else -(-n // args.per_process)
            if processes * PROCESS_MB > 0.8 * available_mb():
                need, have = processes * PROCESS_MB, available_mb()
                progress(
                    f"N={n} {mode}: skipped: {processes} processes need ~{need} MB, {have:.0f} MB available"
                )
                continue
            with tempfile.TemporaryDirectory(prefix="ioa-bench-scale-") as tmp:
                row = trio.run(run_one, Path(tmp), n, mode, args.per_process, args)
            rows.append(row)
            progress(json.dumps(row))  # kept if a later size fails
            if not args.json:
                print(table_row(row), flush=True)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()


if __name__ == "__main__":
    main()
