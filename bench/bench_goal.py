"""Goal figures: time from ``launch_goal`` to team formed, and messages / bytes per goal, at N nodes.

Run: python bench/bench_goal.py [--sizes 10,25,50] [--goals 6] [--mode processes|inprocess] [--json]

Node 0 launches the goals (no adapter); the others are agents with varied descriptions (the eight sample
agents of ``ioa testnet up``, repeated) running the ``echo`` test adapter (registered for the run with
``ioa_p2p.testing.kinds``), so tasks finish at once and the figures are about the network, not the work.
The offline planner decides the turns. Two modes:

- ``processes`` (default): one OS process per node (``open_testnet``: a bootstrap node plus N agent nodes
  with real Noise + yamux over TCP on 127.0.0.1, real DHT, gossip, SQLite stores); goals go through the
  launcher's control API (``POST /launch_goal``). All N processes share the machine's 2 cores.
- ``inprocess``: N nodes in ONE Python process (node 0 is the bootstrap), sharing one event loop: every
  figure includes the other N-1 nodes' DHT and gossip work (pessimistic; py-libp2p's stream negotiation
  slows to seconds there while the DHT publishes), and stopping 25+ such nodes can corrupt trio's state
  inside py-libp2p's service shutdown (the figures are taken before).

For each N: start the nodes, wait until the launcher holds every card (reported), let the start-up work settle
(``--settle`` s), then launch ``--goals`` goals one after the other. Per goal:

- ``discovery``: the launcher's concurrent ``find`` queries (goal + each clause) and the team choice;
- ``invitations``: ``create_chat`` (signed genesis, one invitation stream per teammate, concurrently)
  and removing non-answering invitees;
- ``team formed`` = discovery + invitations: from ``launch_goal`` until the chat is open with its team;
- ``total``: until the round concluded on the launcher;
- messages and bytes: the round's signed chat messages (``conv.start``, turns, progress, results) and
  the sum of their encoded envelope sizes; delivered bytes = bytes x (team size - 1).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.control_client import ControlClient
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.testing.kinds import register_test_kinds

AGENTS = (
    (
        "calculator",
        "Exact arithmetic from plain language: sums, products, powers, percentages and fractions.",
    ),
    ("coder", "Writes and runs short Python programs in a sandbox to compute, transform or check data."),
    ("researcher", "Finds and summarises passages from a local document collection, with citations."),
    ("planner", "Breaks a goal into steps, orders them by dependency and tracks their progress."),
    ("writer", "Drafts and edits short texts: emails, announcements, reports and summaries."),
    ("translator", "Translates between English, French, German and Spanish, keeping the tone."),
    ("analyst", "Reads tables of numbers and explains trends, outliers and simple statistics."),
    ("reviewer", "Reviews code and designs for bugs, security problems and unclear parts."),
)
GOALS = (
    "Write a short announcement of the new release. Then translate it into French.",
    "Review the login code for security problems and summarise the findings.",
    "Compute the average of 12, 15 and 21. Explain the trend in the quarterly sales table.",
    "Find passages about invitations in the documents and draft an email about them.",
    "Plan the migration in steps; then write a report of the plan.",
    "Translate the summary into Spanish and review the wording.",
)
CHATS = {"sync_interval": 30.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 10.0}
GOAL_SETTINGS = {"brain": "offline", "speaker_timeout": 20.0, "max_team": 3}
LAUNCHER = {"name": "launcher", "description": "Launches goals."}
ROWS: list[dict[str, Any]] = []
Launch = Callable[[str], Awaitable[dict[str, Any]]]


def agent_table(i: int) -> dict[str, Any]:
    name, description = AGENTS[i % len(AGENTS)]
    suffix = f"-{i // len(AGENTS) + 1}" if i >= len(AGENTS) else ""
    return {"name": name + suffix, "description": description, "adapter": "echo", "options": {"delay": 0.0}}


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered), 4),
        "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 4),
        "max": round(ordered[-1], 4),
    }


async def measure(n: int, mode: str, up: float, cards: tuple[float, int], launch: Launch, goals: int) -> None:
    rows = []
    for g in range(goals):
        result = await launch(GOALS[g % len(GOALS)])
        t, team = result["timings"], len(result["team"])
        progress(
            f"N={n}: goal {g + 1}: {result['status']}, team of {team} formed in {t['team_formed_s']:.2f} s "
            f"(discovery {t['discovery_s']:.2f}, invitations {t['invitations_s']:.2f})"
        )
        rows.append(
            {
                **{k: t[k] for k in ("discovery_s", "invitations_s", "team_formed_s", "total_s")},
                "team": team,
                "messages": result["messages"],
                "bytes": result["bytes"],
                "delivered_bytes": result["bytes"] * (team - 1),
                "status": result["status"],
            }
        )
    keys = (
        "discovery_s",
        "invitations_s",
        "team_formed_s",
        "total_s",
        "team",
        "messages",
        "bytes",
        "delivered_bytes",
    )
    ROWS.append(
        {
            "nodes": n,
            "mode": mode,
            "start_s": round(up, 2),
            "cards_s": round(cards[0], 2),
            "cards": cards[1],
            "goals": len(rows),
            "concluded": sum(r["status"] == "concluded" for r in rows),
            **{k: summary([r[k] for r in rows]) for k in keys},
        }
    )


async def run_processes(root: Path, n: int, goals: int, settle: float) -> None:
    specs = [NodeSpec("launcher", {"agent": LAUNCHER, "chats": CHATS, "goals": GOAL_SETTINGS})]
    specs += [
        NodeSpec(f"a{i}", {"agent": agent_table(i), "chats": CHATS, "goals": GOAL_SETTINGS})
        for i in range(n - 1)
    ]
    started = time.monotonic()
    async with open_testnet(root, specs, start_timeout=240) as net:
        up = time.monotonic() - started
        launcher = net["launcher"]
        progress(f"N={n}: {n} node processes (+ bootstrap) up in {up:.1f} s")
        count = 0
        with trio.move_on_after(180):
            while (count := len((await launcher.call("GET", "/cards"))["cards"])) < n:  # noqa: ASYNC110
                await trio.sleep(0.5)
        cards = (time.monotonic() - started - up, count)
        progress(f"N={n}: {count} cards after {time.monotonic() - started:.1f} s; settling {settle:.0f} s")
        await trio.sleep(settle)
        client = ControlClient(launcher.home, timeout=300)

        async def launch(goal: str) -> dict[str, Any]:
            body = {"goal": goal, "timeout": 120, "team_up_depth": 0}
            answer: dict[str, Any] = await trio.to_thread.run_sync(
                lambda: client.call("POST", "/launch_goal", body)
            )
            return answer

        await measure(n, "processes", up, cards, launch, goals)
        progress(f"N={n}: stopping the nodes")


async def run_inprocess(root: Path, n: int, goals: int, settle: float) -> None:
    started = time.monotonic()
    async with AsyncExitStack() as stack:
        nodes: list[Node] = []
        for i in range(n):
            config = NodeConfig(
                home=root / f"n{i}",
                bootstrap=(nodes[0].listen_addrs()[0],) if nodes else (),
                bootstrap_backoff=0.2,
                raw={
                    "agent": LAUNCHER if i == 0 else agent_table(i - 1),
                    "chats": CHATS,
                    "goals": GOAL_SETTINGS,
                },
            )
            node = await stack.enter_async_context(
                open_node(config, identity=Identity.generate(), write_info=False, control_api=False)
            )
            nodes.append(node)
        up = time.monotonic() - started
        progress(f"N={n}: {n} in-process nodes up in {up:.1f} s")
        directory = nodes[0].services.discovery.directory
        with trio.move_on_after(120):
            while len(directory) < n:  # noqa: ASYNC110 - polling the directory size is the measurement
                await trio.sleep(0.1)
        cards = (time.monotonic() - started - up, len(directory))
        progress(
            f"N={n}: {len(directory)} cards after {time.monotonic() - started:.1f} s; settling {settle:.0f} s"
        )
        await trio.sleep(settle)

        async def launch(goal: str) -> dict[str, Any]:
            result = await nodes[0].launch_goal(LaunchRequest(goal, timeout=120, depth=0))
            return dict(result.to_json())

        await measure(n, "inprocess", up, cards, launch, goals)
        progress(f"N={n}: stopping the nodes")


def describe(row: dict[str, Any]) -> str:
    formed = row["team_formed_s"]

    def ms(value: float) -> str:
        return f"{value * 1000:.0f}"

    parts = [
        f"N={row['nodes']:>3} ({row['mode']}): start {row['start_s']:.1f} s,",
        f"all cards +{row['cards_s']:.1f} s ({row['cards']});",
        f"{row['concluded']}/{row['goals']} concluded;",
        f"team formed median {ms(formed['median'])} ms (p90 {ms(formed['p90'])}, max {ms(formed['max'])};",
        f"discovery {ms(row['discovery_s']['median'])}, invitations {ms(row['invitations_s']['median'])});",
        f"whole goal {row['total_s']['median']:.2f} s; team {row['team']['median']:.0f};",
        f"{row['messages']['median']:.0f} messages, {row['bytes']['median'] / 1024:.1f} KiB signed,",
        f"{row['delivered_bytes']['median'] / 1024:.1f} KiB delivered per goal",
    ]
    return " ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--goals", type=int, default=6)
    parser.add_argument("--mode", choices=("processes", "inprocess"), default="processes")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds to wait after the cards arrived")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    register_test_kinds()  # the echo kind, for this process and the node processes it starts
    run = run_processes if args.mode == "processes" else run_inprocess
    results = []
    for n in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="ioa-bench-goal-") as tmp:
            try:
                trio.run(run, Path(tmp), n, args.goals, args.settle)
            except (trio.TrioInternalError, RuntimeError) as exc:
                progress(f"N={n}: trio failed while stopping the nodes: {type(exc).__name__}")
                if not ROWS or ROWS[-1]["nodes"] != n:
                    raise
        results.append(ROWS[-1])
        if not args.json:
            print(describe(ROWS[-1]), flush=True)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()


if __name__ == "__main__":
    main()
