"""Per-node cost of idle nodes, one OS process each: resident memory and CPU, and a coordinator's memory
after goals and after its matcher's models were unloaded (issue 26, docs/performance.md "Light nodes").

Run: python bench/bench_light.py [--nodes 5] [--settle 60] [--window 60] [--windows 1] [--goals 3]
     [--unload-idle 60] [--warm auto|true|false] [--idle-only] [--per-process K] [--probes P]
     [--probe-peers M] [--json] [--profile DIR]

A local testnet (``open_testnet``: a bootstrap node plus ``--nodes`` agent nodes of the sample agents, each
``ioa node start`` in its own process, default config but ``[discovery] warm`` and ``unload_idle``). After
the launcher (the first agent) holds every card and ``--settle`` s more:

- RSS and PSS of every process (``/proc/PID/smaps_rollup``; PSS splits pages shared between processes,
  such as the memory-mapped wordllama weights and the libraries, between them);
- idle CPU of every process over ``--window`` s (``utime + stime`` from ``/proc/PID/stat``), as % of one
  core; with ``--windows K``, K consecutive windows, averaged per process, and each window's agent median;
- the launcher then asks ``--goals`` finds and goals (``POST /find``, ``POST /launch_goal``): its RSS
  right after, and again after ``--unload-idle`` + 35 s without a find (the models unloaded with
  ``warm = "auto"``), then the time of a find that reloads them and of the next one (the cost of
  unloading: the same models, so no quality cost).

``--per-process K`` runs the agents K to a process (``[[agents]]``; an agent's CPU is then its process's
divided by K; each process's RSS, CPU per agent and CPU per window are listed apart: with ``--nodes 101
--per-process 100`` the last agent runs alone in its own process, started with the others, a node of a
101-node network measured on its own). ``--probes P`` adds P more agents, each alone in its own process
and started once the others are up, that keep up to ``--probe-peers`` connections (``[node]
target_peers``; 0, the default: every other node; a comma-separated list starts P agents for each
value): the idle cost of one node with that many peers connected (its RSS, CPU and the connections it
held, from ``GET /net``), whatever the others' packing.

``per_node_per_minute``: the agents' messages by kind over the idle windows (median, mean and max per
agent and minute; :mod:`traffic_census`): card-topic RPCs sent and received by kind (our announcements,
forwarded cards, subscriptions, IHAVE / IWANT / GRAFT / PRUNE), heartbeats, our own announcements by
reason (growth of the topic, renewals), Kademlia requests by type and DHT streams served.

Figures are per process; the load of the machine (``uptime``) is printed with them.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import traffic_census
import trio
from find_probes import Profiles, summarize

from ioa_p2p.bootstrap.agents import MAX_NODES, AgentPlan, agent_specs
from ioa_p2p.bootstrap.testnet import NodeSpec, TestnetNode, open_testnet
from ioa_p2p.errors import IoAError, IoATimeout

GOALS = (
    "Calculate 17 * 23, then plot the result as a bar chart",
    "Translate 'good morning' into French and German",
    "What is the weather forecast for Paris tomorrow?",
)
CLK = os.sysconf("SC_CLK_TCK")
#: Seconds a busy node may take to answer one control call of the benchmark.
CALL_WITHIN = 30.0
#: Seconds the probes may take to hold their connections before the idle windows start anyway.
PROBE_PATIENCE = 60.0


def memory(pid: int) -> dict[str, int]:
    """RSS and PSS of ``pid`` in MB."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                out[key.lower()] = int(rest.split()[0]) // 1024
    return out


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK  # utime, stime


def progress(began: float, what: str) -> None:
    """A step of the run on stderr (seconds since the start, the load): a run ended by its timeout still
    says how far it got."""
    print(
        f"bench_light: +{time.monotonic() - began:.0f} s {what} (load {load()})", file=sys.stderr, flush=True
    )


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def wait_cards(node: TestnetNode, count: int, patience: float) -> tuple[float, int]:
    """Seconds until ``node`` holds ``count`` cards, or ``patience`` s and how many it held then (a
    node too busy to answer one ask in :data:`CALL_WITHIN` s is asked again: 50 agents to a process
    starting at once answered late, and ended the N = 100 run here)."""
    start = time.monotonic()
    held = 0
    with trio.move_on_after(patience):
        while held < count:
            try:
                held = len((await node.call("GET", "/cards", answer_within=CALL_WITHIN))["cards"])
            except IoATimeout:
                print("bench_light: the launcher did not answer GET /cards in time", file=sys.stderr)
            if held < count:
                await trio.sleep(2)
    return time.monotonic() - start, held


async def idle_window(procs: dict[str, int], seconds: float) -> dict[str, Any]:
    """CPU of every process over ``seconds``, as % of one core, and the load at the window's end."""
    before = {name: cpu_seconds(pid) for name, pid in procs.items()}
    await trio.sleep(seconds)
    out: dict[str, Any] = {n: 100 * (cpu_seconds(pid) - before[n]) / seconds for n, pid in procs.items()}
    out["load"] = load()
    return out


def spied_roles(procs: dict[str, int], agents: list[str], boot: str, probes: list[str]) -> dict[int, str]:
    """The processes ``--profile`` records over the windows (pid -> role): the bootstrap node, every
    process that holds one agent (``lone``: with ``--per-process K`` and ``--nodes`` = a multiple of K
    plus one, the last agent), the probes, and the first process of several agents."""
    count = collections.Counter(procs[a] for a in agents)
    roles = {procs[boot]: "bootstrap"} if boot in procs else {}
    roles.update({procs[a]: "lone" for a in agents if count[procs[a]] == 1})
    roles.update({procs[p]: "probe" for p in probes if p in procs})
    many = [procs[a] for a in agents if count[procs[a]] > 1]
    if many:
        roles[many[0]] = "process"
    return roles


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """:func:`run_testnet`, ended by SIGTERM as by Ctrl-C: the testnet's processes stopped on the way out
    (a SIGTERM left to Python's default would end this process alone and leave them running)."""
    result: dict[str, Any] = {}
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def end_on_sigterm() -> None:
                async for _ in signals:
                    print("bench_light: SIGTERM, stopping the testnet", file=sys.stderr, flush=True)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(end_on_sigterm)
            result = await run_testnet(args)
            nursery.cancel_scope.cancel()
    if not result:
        raise SystemExit(128 + signal.SIGTERM)
    return result


async def run_testnet(args: argparse.Namespace) -> dict[str, Any]:
    discovery = {
        "warm": {"auto": "auto", "true": True, "false": False}[args.warm],
        "unload_idle": args.unload_idle,
    }
    base = agent_specs(min(args.nodes, MAX_NODES), AgentPlan(), {"calculator", "python", "retrieval"})
    for i in range(args.nodes - len(base)):  # past the testnet's 64 sample agents: renamed copies
        spec = base[i % MAX_NODES]
        name = f"{spec.name}-r{i // MAX_NODES + 2}"
        base.append(NodeSpec(name, {**spec.config, "agent": {**spec.config["agent"], "name": name}}))
    specs = [NodeSpec(s.name, {**s.config, "discovery": discovery}) for s in base]
    with tempfile.TemporaryDirectory(prefix=f"bench-light-{os.getpid()}-") as tmp:  # removed afterwards
        return await measure(Path(tmp), specs, args)


async def measure(root: Path, specs: list[NodeSpec], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"nodes": args.nodes, "warm": args.warm, "load_start": load()}
    start = time.monotonic()
    async with AsyncExitStack() as stack:
        net = await stack.enter_async_context(
            open_testnet(root, specs, start_timeout=args.start_timeout, per_process=args.per_process)
        )
        out["start_s"] = round(time.monotonic() - start, 1)
        progress(start, f"every agent up ({len(net.agents)})")
        launcher = net.agents[0]
        cards_s, held = await wait_cards(launcher, args.nodes, args.cards_timeout)
        out["cards_s"], out["cards_held"] = round(cards_s, 1), held  # idle is measured either way
        progress(start, f"{held} of {args.nodes} cards at the launcher after {cards_s:.0f} s")
        probes = await start_probes(stack, root, net.bootstrap_addrs(), specs[0], args)
        await trio.sleep(args.settle)
        progress(start, f"settled {args.settle:.0f} s")
        procs = {n.name: n.pid for n in [net.bootstrap, *net.agents] if n is not None and n.pid}
        procs.update({p.name: p.pid for p in probes if p.pid})
        agents = [n.name for n in net.agents]
        boot = net.bootstrap.name if net.bootstrap else ""
        counted = await traffic_census.snapshot(net.agents)  # messages by kind over the windows
        progress(start, f"first traffic census ({len(counted)} agents answered)")
        spied = spied_roles(procs, agents, boot, [p.name for p in probes]) if args.profile else {}
        profiles = Profiles(Path(args.profile), spied) if spied else None
        if profiles is not None:
            profiles.start()
        windows = [await idle_window(procs, args.window) for _ in range(args.windows)]
        progress(start, f"{args.windows} idle windows")
        if profiles is not None:
            profiles.stop()
            out["profile"] = summarize(Path(args.profile), 1, top=20)  # CPU seconds over the windows
        out["per_node_per_minute"] = traffic_census.rates(counted, await traffic_census.snapshot(net.agents))
        cpu = {name: statistics.mean(w[name] for w in windows) for name in procs}  # over every window
        mem = {name: memory(pid) for name, pid in procs.items()}
        sharing = collections.Counter(procs[a] for a in agents)
        share = {a: sharing[procs[a]] for a in agents}  # agents in a's process
        for a in agents:  # an agent's share of its process
            cpu[a] /= share[a]
        if probes:
            out["probes"] = [
                {
                    **mem[p.name],
                    "cpu_pct": round(cpu[p.name], 2),
                    "windows": [round(w[p.name], 2) for w in windows],
                    "name": p.name,
                    "connections": (await p.call("GET", "/net"))["connections"]["open"],
                }
                for p in probes
            ]
        out["load_idle"] = load()
        out["bootstrap"] = {**mem[boot], "cpu_pct": round(cpu[boot], 2)}
        out["agents"] = {
            "rss_median": statistics.median(mem[a]["rss"] for a in agents),
            "rss_max": max(mem[a]["rss"] for a in agents),
            "pss_median": statistics.median(mem[a]["pss"] for a in agents),
            "cpu_pct_median": round(statistics.median(cpu[a] for a in agents), 2),
            "cpu_pct_max": round(max(cpu[a] for a in agents), 2),
        }
        if args.per_process > 1:  # RSS per process, not per agent; each process's own figures
            out["agents"]["processes"] = len(set(procs[a] for a in agents))
            out["processes"] = await process_rows(net.agents, procs, mem, cpu, windows)
        if args.windows > 1:  # each window's agent median, and the load at its end
            out["windows"] = [
                {
                    "agents_median": round(statistics.median(w[a] / share[a] for a in agents), 2),
                    "load": w["load"],
                }
                for w in windows
            ]
        print(json.dumps({"idle": out}), file=sys.stderr, flush=True)  # kept if a later step fails
        if args.idle_only:
            return out
        out["goal_errors"] = []
        for i in range(args.goals):
            try:
                await launcher.call("POST", "/find", {"text": GOALS[i % len(GOALS)], "k": 5})
                body = {"goal": GOALS[i % len(GOALS)], "timeout": 60}
                await launcher.call("POST", "/launch_goal", body)
            except IoAError as exc:  # a slow goal on a loaded machine: say so, measure the rest
                out["goal_errors"].append(f"{type(exc).__name__}: {exc}")
        pid = launcher.pid
        assert pid is not None
        out["launcher_after_goals"] = memory(pid)
        await trio.sleep(args.unload_idle + 35)
        out["launcher_after_unload"] = memory(pid)
        status = await launcher.call("GET", "/card")
        out["launcher_matcher"] = status["status"]["matcher"]
        fresh = "Summarise the attached report in three sentences"  # not in the query cache
        for key in ("find_after_unload_ms", "next_find_ms"):  # the reload a find pays after an unload
            start = time.monotonic()
            await launcher.call("POST", "/find", {"text": f"{fresh} ({key})", "k": 5, "dht": False})
            out[key] = round((time.monotonic() - start) * 1000)
        out["load_end"] = load()
    return out


async def process_rows(
    agents: list[TestnetNode],
    procs: dict[str, int],
    mem: dict[str, dict[str, int]],
    cpu: dict[str, float],
    windows: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Each agent process: its agents, RSS (PSS), CPU per agent over the windows and the process's CPU in
    each window; an agent alone in its process also says how many connections it held."""
    by_pid: dict[int, list[TestnetNode]] = collections.defaultdict(list)
    for agent in agents:
        by_pid[procs[agent.name]].append(agent)
    rows = []
    for members in by_pid.values():
        first = members[0].name
        row: dict[str, Any] = {
            "agents": len(members),
            **mem[first],
            "cpu_pct_per_agent": round(cpu[first], 3),
            "windows_pct": [round(w[first], 2) for w in windows],
        }
        if len(members) == 1:
            row["connections"] = (await members[0].call("GET", "/net"))["connections"]["open"]
        rows.append(row)
    return rows


async def start_probes(
    stack: AsyncExitStack, root: Path, bootstrap: list[str], template: NodeSpec, args: argparse.Namespace
) -> list[TestnetNode]:
    """``--probes`` agents, one process each, bootstrapping from the running testnet and keeping up to
    ``--probe-peers`` connections; when each has held that many (or :data:`PROBE_PATIENCE` s passed)."""
    if args.probes <= 0:
        return []
    targets = [int(t) for t in str(args.probe_peers).split(",")] if args.probe_peers else [0]
    targets = [t or args.nodes + args.probes * len(targets) for t in targets]  # 0: every node
    specs = [
        NodeSpec(
            f"probe-{peers}-{i}",
            {
                **template.config,
                "agent": {**template.config["agent"], "name": f"probe-{peers}-{i}"},
                "node": {**template.config.get("node", {}), "bootstrap": bootstrap, "target_peers": peers},
            },
        )
        for peers in targets
        for i in range(args.probes)
    ]
    probe_net = await stack.enter_async_context(
        open_testnet(root / "probes", specs, bootstrap=False, start_timeout=args.start_timeout)
    )
    probes = probe_net.agents
    with trio.move_on_after(PROBE_PATIENCE):
        for probe, spec in zip(probes, specs, strict=True):
            want = min(spec.config["node"]["target_peers"], args.nodes)
            while (await probe.call("GET", "/net"))["connections"]["open"] < want:  # noqa: ASYNC110
                await trio.sleep(2)
    return probes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--settle", type=float, default=60.0)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--windows", type=int, default=1, help="consecutive idle windows, CPU averaged")
    parser.add_argument("--goals", type=int, default=3)
    parser.add_argument("--unload-idle", type=float, default=60.0)
    parser.add_argument("--warm", choices=("auto", "true", "false"), default="auto")
    parser.add_argument("--cards-timeout", type=float, default=300.0)
    parser.add_argument("--idle-only", action="store_true", help="stop after the idle figures (no goals)")
    parser.add_argument("--per-process", type=int, default=1, help="agents to a process")
    parser.add_argument("--probes", type=int, default=0, help="more agents, one process each, measured")
    parser.add_argument(
        "--probe-peers",
        default="0",
        help="their target_peers, comma-separated: --probes of each (0: every node)",
    )
    parser.add_argument("--start-timeout", type=float, default=300.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--profile",
        default="",
        help="py-spy record (raw) into this folder over the windows: the bootstrap node, agents alone in "
        "their process, probes and one process of several agents (needs py-spy in the venv)",
    )
    args = parser.parse_args()
    if args.profile and not (shutil.which("py-spy") or (Path(sys.executable).parent / "py-spy").exists()):
        parser.error("--profile needs py-spy: pip install py-spy into the venv")
    result = trio.run(run, args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
