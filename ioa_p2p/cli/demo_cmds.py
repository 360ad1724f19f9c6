"""``ioa demo``: a real local network of separate node processes works out a goal, then audits the history.

Steps (docs/goals.md, "The demo"):

1. start a bootstrap node and four agent nodes on 127.0.0.1 (``open_testnet``): a coordinator without an
   adapter, a calculator (``calculator``), a coder (``python``) and a librarian (``retrieval`` over the
   repository's ``docs/`` folder, found next to the installed package or in the working directory, else a
   small document set written into the demo folder);
2. wait until the coordinator holds the signed cards of the three others (gossip / DHT);
3. launch a goal on the coordinator that needs all three, streaming the conversation;
4. export the chat's history from every member, audit each copy offline and check they are identical;
5. stop every process.

It needs no API key (the offline planner); with ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` set in the
environment the nodes use the LLM brain. Exit code 0 when the goal concluded and every copy audits valid.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click
import trio

from ioa_p2p.api import routes
from ioa_p2p.api.chats import ChatRef
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.cli._base import handle_errors, main
from ioa_p2p.cli.goal_cmds import follow_launch
from ioa_p2p.cli.goal_view import EventPrinter, print_result
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import IoATimeout, UsageError
from ioa_p2p.history.audit import audit_history

DEMO_GOAL = (
    "Calculate 15% of 2480 plus 17 squared. "
    "Search the docs for how a new member is invited to a chat. "
    "print(sum(n * n for n in range(1, 101)))  # Python code. "
    "Then calculate the result times 3."
)
DISCOVERY_TIMEOUT = 60.0
GOAL_TIMEOUT = 120.0

#: (name, [agent] table without the retrieval path)
AGENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "coordinator",
        {
            "description": "Coordinates a team of agents: splits a goal into steps and assigns them.",
            "skills": ["planning", "coordination"],
        },
    ),
    (
        "calculator",
        {
            "adapter": "calculator",
            "description": "Exact arithmetic from plain language: sums, products, powers, "
            "percentages and fractions.",
            "skills": ["math", "arithmetic", "percentages"],
        },
    ),
    (
        "coder",
        {
            "adapter": "python",
            "description": "Runs Python code in a sandbox and returns what it prints.",
            "skills": ["python", "code"],
        },
    ),
    (
        "librarian",
        {
            "adapter": "retrieval",
            "description": "Searches the ioa-p2p documentation and answers with cited passages.",
            "skills": ["documentation", "search", "citations"],
        },
    ),
)

FALLBACK_DOCS = {
    "chats.md": """# Group chats

## Invitations

A new member is invited to a chat by its creator: the creator signs a `chat.invite` carrying the chat's
signed genesis and sends it over a direct Noise stream. The invitee's node asks its application policy and
answers with a signed `chat.invite_reply` (accept or decline). Members that accept receive every message
of the chat through acknowledged deliveries and pull-sync.

## Audit

Every message is signed by its author and names the hashes of the messages it follows. Anyone holding an
exported history can check every signature, every hash link and every membership change offline.
""",
    "goals.md": """# Goals

Any peer can launch a goal: it discovers agents by their signed capability cards, invites the best ones
into a group chat and runs the conversation: discussion, synchronous and asynchronous task assignment,
pause until tasks finish, and a conclusion. Limits (turns, deadline, speaker timeout) are enforced by the
state machine that every member runs.
""",
}


def find_docs(root: Path) -> tuple[Path, str]:
    """The documents the librarian serves: the repository's docs/ (next to the package or in the working
    directory), else a small set written under ``root``. Returns (folder, where it came from)."""
    package = Path(__file__).resolve().parents[2] / "docs"
    for folder, origin in ((package, "repository"), (Path.cwd() / "docs", "working directory")):
        if folder.is_dir() and any(folder.glob("*.md")):
            return folder.resolve(), origin
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in FALLBACK_DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder, "built-in sample"


def demo_specs(docs: Path) -> list[Any]:
    from ioa_p2p.bootstrap.testnet import NodeSpec

    specs = []
    for name, agent in AGENTS:
        table = {"name": name, **agent}
        if agent.get("adapter") == "retrieval":
            table["options"] = {"path": str(docs), "top_k": 2}
        config = {
            "agent": table,
            "chats": {"retry_initial": 0.2, "retry_max": 2.0, "sync_interval": 5.0},
            "goals": {"speaker_timeout": 30.0},
        }
        specs.append(NodeSpec(name, config))
    return specs


class Demo:
    def __init__(self, root: Path, *, as_json: bool, goal: str, timeout: float, keep: bool) -> None:
        self.root = root
        self.keep = keep
        self.as_json = as_json
        self.goal = goal
        self.timeout = timeout
        self.started = time.monotonic()
        self.report: dict[str, Any] = {"goal": goal, "root": str(root)}

    def say(self, text: str) -> None:
        if not self.as_json:
            click.echo(text)
            sys.stdout.flush()

    def elapsed(self) -> str:
        return f"{time.monotonic() - self.started:.1f} s"

    async def run(self) -> bool:
        from ioa_p2p.bootstrap.testnet import open_testnet

        docs, origin = find_docs(self.root)
        self.say("ioa demo: a peer-to-peer network of agent processes on 127.0.0.1 (no server, no API key)")
        self.say(f"starting a bootstrap node and {len(AGENTS)} agent nodes under {self.root} ...")
        async with open_testnet(self.root / "nodes", demo_specs(docs)) as net:
            agents = net.agents
            self.report["nodes"] = [
                {"name": n.name, "peer_id": str(n.peer_id), "log": str(n.log_path)}
                for n in net.nodes.values()
            ]
            for node, (_, agent) in zip(agents, AGENTS, strict=True):
                what = (
                    f"adapter {agent['adapter']}"
                    if "adapter" in agent
                    else "no adapter (plans and coordinates)"
                )
                self.say(f"  {node.name:<12} {node.peer_id}  {what}")
            self.say(f"  (the librarian serves {docs}, {origin})")
            coordinator = net["coordinator"]
            await self._wait_cards(net, coordinator)
            result = await self._launch(coordinator)
            self.report["result"] = result.to_json()
            audit = await self._audit(net, result)
            self.report["audit"] = audit
            self.say("stopping the network ...")
        self.report["elapsed_s"] = round(time.monotonic() - self.started, 2)
        ok = result.status == "concluded" and audit["valid"] and audit["identical"]
        self.say(f"demo {'finished' if ok else 'FAILED'} in {self.elapsed()}")
        return ok

    async def _wait_cards(self, net: Any, coordinator: Any) -> None:
        """Until the coordinator holds the latest card of every other agent (each node republishes its card
        once at start, with its adapter's description merged in)."""
        self.say("waiting for the agents' signed cards to reach the coordinator ...")
        others = [n for n in net.agents if n is not coordinator]
        with trio.move_on_after(DISCOVERY_TIMEOUT):
            while True:
                held = {
                    c.peer_id: c.version for c in (await coordinator.request(routes.CARDS, Empty())).cards
                }
                current = []
                for node in others:
                    own = await node.request(routes.CARD, Empty())
                    if held.get(own.peer_id) == own.version:
                        current.append(own.name)
                if len(current) == len(others):
                    self.say(f"  {len(current)} cards: {', '.join(sorted(current))} ({self.elapsed()})")
                    return
                await trio.sleep(0.25)
        raise IoATimeout(
            f"the coordinator did not learn the other agents' cards within {DISCOVERY_TIMEOUT:.0f} s"
        )

    async def _launch(self, coordinator: Any) -> GoalResult:
        self.say(f"goal: {self.goal}")
        client = ControlClient(coordinator.home, timeout=self.timeout + 60)
        printer = EventPrinter(self.say)
        request = LaunchRequest(self.goal, timeout=self.timeout, depth=1)

        def run() -> GoalResult:
            return follow_launch(client, request, printer, self.timeout + 60)

        result = await trio.to_thread.run_sync(run)
        if not self.as_json:
            print_result(result, self.say)
        return result

    async def _audit(self, net: Any, result: GoalResult) -> dict[str, Any]:
        chat = result.chat_id
        members = {t.peer_id for t in result.team}
        coordinator = net["coordinator"]
        nodes = [coordinator] + [n for n in net.agents if n is not coordinator and str(n.peer_id) in members]
        copies: dict[str, bytes] = {}
        reports: dict[str, Any] = {}
        expected = 0
        for node in nodes:
            with trio.move_on_after(30):
                while True:  # a member may still be receiving the last messages
                    exported = await node.request(routes.EXPORT, ChatRef(chat))
                    if exported.messages >= expected:
                        break
                    await trio.sleep(0.2)
            expected = max(expected, exported.messages)
            data = base64.b64decode(exported.data)
            copies[node.name] = data
            report = audit_history(data, source=node.name)
            reports[node.name] = {
                "valid": report.valid,
                "messages": report.summary()["messages"],
                "findings": [f.line() for f in report.findings],
            }
        folder = self.root if self.keep else Path(tempfile.gettempdir())
        path = folder / f"ioa-demo-{chat[:16]}.history"
        path.write_bytes(copies["coordinator"])
        valid = all(r["valid"] for r in reports.values())
        identical = len(set(copies.values())) == 1
        counts = sorted({r["messages"] for r in reports.values()})
        self.say(f"history exported from {len(copies)} members; a copy is in {path}")
        self.say(
            f"audit: {'valid' if valid else 'INVALID'} ({'/'.join(map(str, counts))} messages, "
            f"{'identical on every member' if identical else 'copies DIFFER'}); check it again with "
            f"`ioa audit {path}`"
        )
        for name, r in reports.items():
            for line in r["findings"]:
                self.say(f"  {name}: {line}")
        return {"valid": valid, "identical": identical, "members": reports, "file": str(path)}


@main.command("demo")
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder for node homes, logs and the exported history (kept). Default: a temporary folder.",
)
@click.option("--goal", "goal_text", default=DEMO_GOAL, show_default=False, help="Another goal to work out.")
@click.option("--timeout", type=float, default=GOAL_TIMEOUT, help="Seconds the goal may take.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON report at the end instead of the stream."
)
@handle_errors()
def demo(root: Path | None, goal_text: str, timeout: float, as_json: bool) -> None:
    """Run a local peer-to-peer network of agents on a goal, then audit the signed history."""
    if not goal_text.strip():
        raise UsageError("--goal must not be empty")
    if not 5 <= timeout <= 3600:
        raise UsageError("--timeout must be between 5 and 3600 seconds")
    temporary = root is None
    folder = Path(tempfile.mkdtemp(prefix="ioa-demo-")) if root is None else root
    folder.mkdir(parents=True, exist_ok=True)
    runner = Demo(folder.resolve(), as_json=as_json, goal=goal_text, timeout=timeout, keep=not temporary)
    try:
        ok = trio.run(runner.run)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    if as_json:
        runner.report["ok"] = ok
        click.echo(json.dumps(runner.report, indent=2, sort_keys=True))
    sys.exit(0 if ok else 1)


__all__ = ["DEMO_GOAL", "Demo", "demo_specs", "find_docs"]
