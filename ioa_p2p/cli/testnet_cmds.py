"""``ioa testnet up N``: a bootstrap node and N agent nodes on 127.0.0.1, until Ctrl-C."""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

import click
import trio

from ioa_p2p.cli._base import handle_errors, main
from ioa_p2p.errors import UsageError

#: Sample agents, cycled: (name, description, skills, adapter kind or None).
SAMPLE_AGENTS: tuple[tuple[str, str, tuple[str, ...], str | None], ...] = (
    (
        "calculator",
        "Exact arithmetic from plain language: sums, products, powers, percentages and fractions.",
        ("math", "arithmetic", "percentages"),
        "calculator",
    ),
    (
        "coder",
        "Writes and runs short Python programs in a sandbox to compute, transform or check data.",
        ("python", "code", "data processing"),
        "python",
    ),
    (
        "researcher",
        "Finds and summarises passages from a local document collection, with citations.",
        ("search", "documents", "summaries"),
        None,
    ),
    (
        "planner",
        "Breaks a goal into steps, orders them by dependency and tracks their progress.",
        ("planning", "scheduling", "project management"),
        None,
    ),
    (
        "writer",
        "Drafts and edits short texts: emails, announcements, reports and summaries.",
        ("writing", "editing", "summaries"),
        None,
    ),
    (
        "translator",
        "Translates between English, French, German and Spanish, keeping the tone.",
        ("translation", "languages"),
        None,
    ),
    (
        "analyst",
        "Reads tables of numbers and explains trends, outliers and simple statistics.",
        ("statistics", "data analysis", "tables"),
        None,
    ),
    (
        "reviewer",
        "Reviews code and designs for bugs, security problems and unclear parts.",
        ("code review", "security", "testing"),
        None,
    ),
)
MAX_NODES = 64


def sample_specs(count: int, installed_adapters: set[str]) -> list[Any]:
    """``count`` agent node specs with varied descriptions (an adapter only where one is installed)."""
    from ioa_p2p.bootstrap.testnet import NodeSpec

    specs = []
    for i in range(count):
        name, description, skills, adapter = SAMPLE_AGENTS[i % len(SAMPLE_AGENTS)]
        if i >= len(SAMPLE_AGENTS):
            name = f"{name}-{i // len(SAMPLE_AGENTS) + 1}"
        agent: dict[str, Any] = {"name": name, "description": description, "skills": list(skills)}
        if adapter is not None and adapter in installed_adapters:
            agent["adapter"] = adapter
        specs.append(NodeSpec(name, {"agent": agent}))
    return specs


@main.group()
def testnet() -> None:
    """A local testnet of separate node processes on 127.0.0.1."""


@testnet.command("up")
@click.argument("count", type=int)
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder for the node homes and logs (kept; identities are reused). Default: a temporary folder "
    "removed on exit.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the nodes as one JSON list once all are up.")
@handle_errors()
def testnet_up(count: int, root: Path | None, as_json: bool) -> None:
    """Start a bootstrap node and COUNT agent nodes; run until Ctrl-C, then stop them all."""
    if not 1 <= count <= MAX_NODES:
        raise UsageError(f"COUNT must be between 1 and {MAX_NODES}, not {count}")
    temporary = root is None
    folder = Path(tempfile.mkdtemp(prefix="ioa-testnet-")) if root is None else root
    try:
        trio.run(_run, folder, count, as_json)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


async def _run(root: Path, count: int, as_json: bool) -> None:
    from ioa_p2p.adapters import list_adapters

    specs = sample_specs(count, set(list_adapters()))
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for signum in signals:
                    click.echo(f"received {signal.Signals(signum).name}, stopping the testnet", err=True)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)
            await _serve(root, specs, as_json)
    click.echo("testnet stopped", err=True)


async def _serve(root: Path, specs: list[Any], as_json: bool) -> None:
    """Start the testnet, print it, then watch for nodes that die until cancelled (Ctrl-C)."""
    from ioa_p2p.bootstrap.testnet import open_testnet

    if not as_json:
        click.echo(f"starting a bootstrap node and {len(specs)} agent nodes under {root} ...")
    async with open_testnet(root, specs) as net:
        rows: list[dict[str, Any]] = [
            {
                "name": node.name,
                "role": "bootstrap" if node.is_bootstrap else "agent",
                "peer_id": str(node.peer_id),
                "home": str(node.home),
                "addrs": node.addrs,
                "log": str(node.log_path),
                "pid": node.pid,
            }
            for node in net.nodes.values()
        ]
        if as_json:
            click.echo(json.dumps(rows, indent=2))
        else:
            for row in rows:
                addr = row["addrs"][0] if row["addrs"] else "(no listen address)"
                click.echo(f"{row['name']:<14} {row['peer_id']}  {row['home']}  {addr}")
            click.echo("talk to a node with `ioa --home <home> peers`; press Ctrl-C to stop the testnet")
        sys.stdout.flush()
        reported: set[str] = set()
        while True:
            for node in net.nodes.values():
                if node.name not in reported and not node.running and node.process is not None:
                    reported.add(node.name)
                    click.echo(
                        f"node {node.name} exited with code {node.process.returncode}; see {node.log_path}",
                        err=True,
                    )
            await trio.sleep(1.0)
