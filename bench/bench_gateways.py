"""The overhead of a goal through each gateway against ``ioa goal``, on one local network.

    .venv/bin/python bench/bench_gateways.py [--reps 5] [--goal "Calculate 17 * 23"] [--team front]

A testnet of two agent processes (``front``, adapter calculator; ``coder``, adapter python) and a
bootstrap node on 127.0.0.1, the A2A gateway (``ioa a2a serve``) and the MCP server (``ioa mcp --http``)
in front of ``front``. The same goal (offline planner; by default pinned to ``front`` so that the goal
itself is short and the gateways' share shows) runs ``--reps`` times each way, in rounds that run every
way once in turn (so that a drift of the machine's load touches every way alike):

- ``ioa goal``: the command, a new process each time (what a person at a shell waits for);
- ``control API``: ``AsyncControlClient.launch_events`` in this process, one client for all runs (the
  floor under every gateway; the gateways add the audit of the chat at the end);
- ``A2A``: a2a-sdk's client, ``SendStreamingMessage`` until the final status (card fetched once);
- ``MCP``: the mcp package's client over streamable HTTP, ``launch_goal`` with progress (session reused).

It prints the median and p90 wall time of each and the ratios to ``ioa goal`` and to the control API.
Every way must give the same answer (checked). Figures go in docs/performance.md with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp
import trio
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
from google.protobuf.json_format import MessageToDict
from mcp.client.streamable_http import streamable_http_client

from ioa_p2p.api.events import DoneEvent
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.control_client import AsyncControlClient

FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}


def spec(name: str, agent: dict[str, Any]) -> NodeSpec:
    goals = {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0}
    return NodeSpec(name, {"agent": {"name": name, **agent}, "chats": FAST_CHATS, "goals": goals})


SPECS = [
    spec("front", {"adapter": "calculator", "description": "Exact arithmetic from plain language."}),
    spec(
        "coder",
        {"adapter": "python", "description": "Runs Python code in a sandbox and returns what it prints."},
    ),
]


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


def start_gateway(home: Path, args: list[str], log: Path, ready: Callable[[], str | None]) -> tuple[Any, str]:
    command = [sys.executable, "-m", "ioa_p2p", "--home", str(home), *args]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return process, found
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{args[0]} did not start: {log.read_text()[-2000:]}")


async def interleaved(reps: int, ways: dict[str, Callable[[], Awaitable[str]]]) -> dict[str, Any]:
    """``reps`` rounds, each running every way once in turn (a drift of the machine's load touches every
    way alike); per way, its times and the answers it gave."""
    results: dict[str, Any] = {way: ([], set()) for way in ways}
    for _ in range(reps):
        for way, run in ways.items():
            t0 = time.perf_counter()
            answer = await run()
            results[way][0].append(time.perf_counter() - t0)
            results[way][1].add(answer)
    return results


async def main(reps: int, goal: str, team: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"bench-gw-{os.getpid()}-") as tmp:
        root = Path(tmp)
        async with open_testnet(root / "net", SPECS) as net:
            front = net["front"].home
            await wait_cards(net)
            a2a, url = start_gateway(
                front,
                ["a2a", "serve", "--listen", "127.0.0.1:0"],
                root / "a2a.log",
                lambda: (
                    json.loads((front / "a2a.json").read_text())["url"]
                    if (front / "a2a.json").exists()
                    else None
                ),
            )
            mcp_proc, mcp_url = start_gateway(front, ["mcp", "--http", "127.0.0.1:0"], root / "mcp.log",
                                              lambda: _mcp_url(root / "mcp.log"))  # fmt: skip
            try:
                results = await measure(front, url, mcp_url, reps, goal, team)
            finally:
                for process in (a2a, mcp_proc):
                    process.terminate()
                    process.wait(10)
    report(results, reps, goal, team)


def _mcp_url(log: Path) -> str | None:
    for line in log.read_text().splitlines() if log.exists() else []:
        if line.startswith("mcp server on "):
            return line.split("mcp server on ", 1)[1].split(";", 1)[0]
    return None


async def measure(front: Path, url: str, mcp_url: str, reps: int, goal: str, team: str) -> dict[str, Any]:
    team_args = ["--team", team] if team else []
    request = LaunchRequest(goal, team=(team,) if team else None)

    async def cli() -> str:
        command = [sys.executable, "-m", "ioa_p2p", "--home", str(front), "goal", goal, *team_args, "--json"]
        done = await trio.run_process(command, capture_stdout=True, capture_stderr=True, env=env())
        return str(json.loads(done.stdout)["answer"])

    async def control() -> str:
        async for item in control_client.launch_events(request):
            if isinstance(item.event, DoneEvent):
                return item.event.result.answer
        raise SystemExit("no result through the control API")

    token = (front / "a2a.token").read_text().strip()
    mcp_token = (front / "mcp.token").read_text().strip()
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    http2 = httpx2.AsyncClient(headers={"Authorization": f"Bearer {mcp_token}"}, timeout=120)
    control_client = AsyncControlClient(front, timeout=60)  # one client, as the gateways keep
    async with (
        control_client,
        http,
        http2,
        mcp.Client(streamable_http_client(mcp_url, http_client=http2)) as session,
    ):
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)

        async def a2a() -> str:
            message = Message(message_id=os.urandom(8).hex(), role=Role.ROLE_USER, parts=[Part(text=goal)])
            message.metadata.update({"skill": "team_goal", **({"team": [team]} if team else {})})
            answer = ""
            async for response in client.send_message(SendMessageRequest(message=message)):
                if response.HasField("artifact_update"):
                    answer = MessageToDict(response.artifact_update.artifact.parts[1].data)["answer"]
            return str(answer)

        async def tool() -> str:
            arguments: dict[str, Any] = {"goal": goal, **({"team": [team]} if team else {})}
            result = await session.call_tool("launch_goal", arguments, progress_callback=_ignore)
            if result.is_error or result.structured_content is None:
                raise SystemExit(f"launch_goal failed: {result.content}")
            return str(result.structured_content["answer"])

        return await interleaved(reps, {"ioa goal": cli, "control API": control, "A2A": a2a, "MCP": tool})


async def _ignore(progress: float, total: float | None, message: str | None) -> None:
    """Progress notifications arrive (and are read) but are not counted."""


async def wait_cards(net: Any) -> None:
    front = net["front"]
    with trio.fail_after(120):
        while len((await front.call("GET", "/cards"))["cards"]) < len(net.agents) - 1:  # noqa: ASYNC110
            await trio.sleep(0.3)  # another process's state: polled


def report(results: dict[str, Any], reps: int, goal: str, team: str) -> None:
    answers = {answer for _, found in results.values() for answer in found}
    print(f"goal {goal!r} (team {team or 'chosen'}), {reps} runs each; answers: {sorted(answers)}")
    base = statistics.median(results["ioa goal"][0])
    floor = statistics.median(results["control API"][0])
    print(f"{'way':<12} {'median s':>9} {'p90 s':>7} {'x ioa goal':>11} {'x control API':>14}")
    for way, (times, _) in results.items():
        median = statistics.median(times)
        p90 = sorted(times)[max(0, int(round(0.9 * len(times))) - 1)]
        print(f"{way:<12} {median:>9.3f} {p90:>7.3f} {median / base:>11.2f} {median / floor:>14.2f}")
    if len(answers) != 1:
        raise SystemExit("the ways gave different answers")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--goal", default="Calculate 17 * 23")
    parser.add_argument("--team", default="front", help="pin the team (empty: discover and choose)")
    options = parser.parse_args()
    trio.run(main, options.reps, options.goal, options.team)
