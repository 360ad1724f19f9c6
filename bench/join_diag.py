"""Where a joining agent's start goes: P processes of K agents joining one bootstrap node at once.

Run: python bench/join_diag.py [--processes 2] [--per-process 25] [--start-timeout 300] [--every 5]
                               [--root DIR]

A local testnet (``open_testnet``: a bootstrap node, then ``--processes`` processes of ``--per-process``
sample agents each, ``ioa node start`` with an ``[[agents]]`` list). Every ``--every`` s it prints, from each
process's ``agents.json``, how many of its agents are up, and the CPU the bootstrap node and each agent
process used in that interval (% of one core) and their run-queue wait (``/proc/PID/schedstat``: time the
loop was runnable but waited for a CPU). Once every agent is up (or the start limit passed), it asks every
agent's ``GET /net`` for its bootstrap peers: how many dial attempts each agent needed and the last error,
and prints the distribution, with the bootstrap node's ``GET /budgets`` loop figures. Logs are kept under
``--root`` (a temporary folder by default, printed) for the per-agent warnings. Issue 26, l-boot.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.bootstrap.agents import MAX_NODES, AgentPlan, agent_specs
from ioa_p2p.bootstrap.testnet import NodeSpec, Testnet, open_testnet
from ioa_p2p.errors import IoAError

CLK = os.sysconf("SC_CLK_TCK")


def specs_for(n: int) -> list[NodeSpec]:
    base = agent_specs(min(n, MAX_NODES), AgentPlan(), {"calculator", "python", "retrieval"})
    for i in range(n - len(base)):  # past the testnet's 64 sample agents: renamed copies
        spec = base[i % MAX_NODES]
        name = f"{spec.name}-r{i // MAX_NODES + 2}"
        base.append(NodeSpec(name, {**spec.config, "agent": {**spec.config["agent"], "name": name}}))
    return base


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK


def waited_seconds(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def running(root: Path) -> dict[str, int]:
    """Process home name -> agents up, from each ``agents.json``."""
    out = {}
    for index in sorted(root.glob(".process-*/agents.json")):
        try:
            body = json.loads(index.read_text())
        except (OSError, ValueError):
            continue
        out[index.parent.name] = sum(1 for a in body["agents"] if a["state"] == "running")
    return out


def process_pids(root: Path) -> dict[str, int]:
    """The bootstrap node's and each agent process's PID, from the files they wrote so far."""
    pids = {}
    with contextlib.suppress(OSError, ValueError, KeyError):
        pids["boot"] = json.loads((root / "bootstrap" / "node.json").read_text())["pid"]
    for index in sorted(root.glob(".process-*/agents.json")):
        with contextlib.suppress(OSError, ValueError, KeyError):
            pids[index.parent.name.replace(".process-", "p")] = json.loads(index.read_text())["pid"]
    return pids if len(pids) > 1 else {}


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def watch(root: Path, pids: dict[str, int], every: float, t0: float) -> None:
    before = {n: (cpu_seconds(p), waited_seconds(p)) for n, p in pids.items()}
    last = time.monotonic()
    while True:
        await trio.sleep(every)
        now = time.monotonic()
        span = now - last
        parts = []
        for name, pid in pids.items():
            cpu, waited = cpu_seconds(pid), waited_seconds(pid)
            c0, w0 = before[name]
            parts.append(
                f"{name} cpu {100 * (cpu - c0) / span:3.0f}% wait {100 * (waited - w0) / span:3.0f}%"
            )
            before[name] = (cpu, waited)
        last = now
        up = running(root)
        print(f"+{now - t0:6.1f} s up {up} | " + " | ".join(parts) + f" | load {load()}", flush=True)


async def report(net: Testnet) -> None:
    attempts: collections.Counter[int] = collections.Counter()
    errors: collections.Counter[str] = collections.Counter()
    unjoined = 0

    async def one(node: Any) -> None:
        nonlocal unjoined
        try:
            with trio.fail_after(20):
                status = await node.call("GET", "/net")
        except (IoAError, trio.TooSlowError):
            errors["(no /net answer)"] += 1
            return
        for peer in status["bootstrap"]:
            attempts[peer["attempts"]] += 1
            unjoined += not peer["connected"]
            if peer["last_error"]:
                errors[peer["last_error"].split(": ")[-1][:80]] += 1

    limiter = trio.CapacityLimiter(8)

    async def bounded(node: Any) -> None:
        async with limiter:
            await one(node)

    async with trio.open_nursery() as nursery:
        for node in net.agents:
            nursery.start_soon(bounded, node)
    print(
        f"bootstrap dial failures per agent: {dict(sorted(attempts.items()))}; not connected now: {unjoined}"
    )
    for error, count in errors.most_common(8):
        print(f"  {count:3} x {error}")
    if net.bootstrap is not None:
        with trio.move_on_after(20):
            budgets = await net.bootstrap.call("GET", "/budgets")
            print("bootstrap /budgets cpu:", json.dumps(budgets.get("cpu", {}))[:600])


async def run(args: argparse.Namespace) -> None:
    root = Path(args.root or tempfile.mkdtemp(prefix="join-diag-"))
    print(f"root {root} load {load()}", flush=True)
    specs = specs_for(args.processes * args.per_process)
    t0 = time.monotonic()
    async with trio.open_nursery() as nursery:
        started = trio.Event()

        async def watch_when_spawned() -> None:
            while not process_pids(root):  # noqa: ASYNC110 - files the testnet writes
                await trio.sleep(0.2)
            pids = {}
            for _ in range(50):
                pids = process_pids(root)
                if len(pids) > args.processes:
                    break
                await trio.sleep(0.2)
            await watch(root, pids, args.every, t0)

        nursery.start_soon(watch_when_spawned)
        try:
            async with open_testnet(
                root, specs, start_timeout=args.start_timeout, per_process=args.per_process
            ) as net:
                print(f"every agent up in {time.monotonic() - t0:.1f} s; load {load()}", flush=True)
                started.set()
                await report(net)
        except IoAError as exc:
            print(f"start failed after {time.monotonic() - t0:.1f} s: {str(exc)[:300]}", flush=True)
        nursery.cancel_scope.cancel()
    print(f"logs kept under {root}; load {load()}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--per-process", type=int, default=25)
    parser.add_argument("--start-timeout", type=float, default=300.0)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--root", default="")
    trio.run(run, parser.parse_args())


if __name__ == "__main__":
    main()
