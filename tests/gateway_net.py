"""One local network for the gateway tests: three agent nodes (and a bootstrap node) as processes, an A2A
gateway and an MCP HTTP server in front of the first, all real processes on 127.0.0.1.

:func:`open_gateway_net` is synchronous (a module-scoped fixture outlives each test's trio run): the
testnet runs on its own trio loop in a thread; the gateways are ``ioa`` subprocesses. Nodes:

- ``front``: the gateways' node, adapter ``calculator`` (the ``run_task`` skill does arithmetic);
- ``coder``: adapter ``python``;
- ``slow``: the test adapter ``echo``, 8 s per task in 8 progress steps (goals to cancel or to follow);
  ``[a2a] enabled``: ``ioa node start`` runs its A2A gateway.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.bootstrap.testnet import NodeSpec, Testnet, open_testnet

FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}
CALCULATOR = "Exact arithmetic from plain language: sums, products, powers, percentages and fractions."
START_LIMIT = 120.0


def _spec(name: str, agent: dict[str, Any], **sections: Any) -> NodeSpec:
    return NodeSpec(
        name,
        {
            "agent": {"name": name, **agent},
            "chats": FAST_CHATS,
            "goals": {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0},
            **sections,
        },
    )


SPECS = [
    _spec("front", {"adapter": "calculator", "description": CALCULATOR}),
    _spec(
        "coder",
        {"adapter": "python", "description": "Runs Python code in a sandbox and returns what it prints."},
    ),
    _spec(
        "slow",
        {
            "adapter": "echo",
            "description": "Repeats a text back, slowly.",
            "options": {"delay": 8.0, "steps": 8, "name": "slow", "skills": ["echo", "repeat"]},
        },
        a2a={"enabled": True, "listen": "127.0.0.1:0"},  # its gateway started by `ioa node start`
    ),
]


def clean_env() -> dict[str, str]:
    """The environment without model settings (nodes must not reach a real LLM)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


@dataclass
class GatewayNet:
    root: Path
    homes: dict[str, Path]
    peers: dict[str, str]
    a2a_url: str = ""
    a2a_token: str = ""
    mcp_url: str = ""
    mcp_token: str = ""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def front(self) -> Path:
        return self.homes["front"]

    def ioa(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "ioa_p2p", "--home", str(self.front), *args]


@contextmanager
def open_gateway_net(root: Path) -> Iterator[GatewayNet]:
    """The network and its gateways, running until the block ends (everything stopped then)."""
    ready = threading.Event()
    stop = threading.Event()
    box: dict[str, Any] = {}

    async def run() -> None:
        async with open_testnet(root / "net", SPECS) as net:
            await _wait_cards(net)
            box["net"] = net
            ready.set()
            await trio.to_thread.run_sync(stop.wait)

    def thread_main() -> None:
        try:
            trio.run(run)
        except BaseException as exc:  # reported to the fixture
            box["error"] = exc
            ready.set()

    thread = threading.Thread(target=thread_main, name="gateway-testnet", daemon=True)
    thread.start()
    gw: GatewayNet | None = None
    try:
        if not ready.wait(START_LIMIT * 2) or "error" in box:
            raise RuntimeError(f"the testnet did not start: {box.get('error')!r}")
        net: Testnet = box["net"]
        gw = GatewayNet(
            root, {n.name: n.home for n in net.agents}, {n.name: str(n.peer_id) for n in net.agents}
        )
        _start_gateways(gw)
        yield gw
    finally:
        for process in gw.processes if gw is not None else []:
            _stop(process)
        stop.set()
        thread.join(60)


def _start_gateways(gw: GatewayNet) -> None:
    logs = gw.root / "logs"
    logs.mkdir(exist_ok=True)
    with (logs / "a2a.log").open("wb") as a2a_log:  # the child writes its own copy of the file
        gw.processes.append(
            subprocess.Popen(
                gw.ioa("a2a", "serve", "--listen", "127.0.0.1:0"),
                stdout=a2a_log,
                stderr=subprocess.STDOUT,
                env=clean_env(),
                start_new_session=True,
            )  # fmt: skip
        )
    info = _wait_for(lambda: _json(gw.front / "a2a.json"), "the A2A gateway", logs / "a2a.log")
    gw.a2a_url, gw.a2a_token = info["url"], (gw.front / "a2a.token").read_text().strip()
    with (logs / "mcp.log").open("wb") as mcp_log:  # the child writes its own copy of the file
        gw.processes.append(
            subprocess.Popen(
                gw.ioa("mcp", "--http", "127.0.0.1:0"),
                stdout=mcp_log,
                stderr=subprocess.STDOUT,
                env=clean_env(),
                start_new_session=True,
            )  # fmt: skip
        )
    line = _wait_for(lambda: _line(logs / "mcp.log", "mcp server on "), "the MCP server", logs / "mcp.log")
    gw.mcp_url = line.split("mcp server on ", 1)[1].split(";", 1)[0]
    gw.mcp_token = (gw.front / "mcp.token").read_text().strip()


def _wait_for(check: Any, what: str, log: Path) -> Any:
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start: {log.read_text(errors='replace')[-2000:]}")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _line(path: Path, prefix: str) -> str | None:
    text = path.read_text(errors="replace") if path.exists() else ""
    return next((line for line in text.splitlines() if line.startswith(prefix)), None)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


async def _wait_cards(net: Testnet) -> None:
    """``front`` holds the current card of both other agents (so a team can be chosen)."""
    front = net["front"]
    others = [n for n in net.agents if n is not front]
    with trio.fail_after(START_LIMIT):
        while True:
            held = {c["peer_id"]: c["version"] for c in (await front.call("GET", "/cards"))["cards"]}
            current = [held.get(str(o.peer_id)) == (await o.call("GET", "/card"))["version"] for o in others]
            if all(current):
                return
            await trio.sleep(0.3)
