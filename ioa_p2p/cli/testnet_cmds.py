"""``ioa testnet up N``: a bootstrap node and N agent nodes on 127.0.0.1, until Ctrl-C; the agents a user
names (``--agent``, ``--agents FILE``: :mod:`ioa_p2p.bootstrap.agents`) first, then sample agents."""

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
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="KIND[:KEY=VALUE,...]",
    help="An agent for the next node (repeatable, in order): an adapter kind and its options, e.g. "
    "calculator, a2a:url=http://127.0.0.1:9999, retrieval:path=docs,description=... (card keys name, "
    "description, skills... describe the node; others are options; relative folders: from here).",
)
@click.option(
    "--agents",
    "agents_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="A TOML file of agents ([[agent]] tables with count, [config.<table>] for every node); its "
    "agents come after the --agent ones.",
)
@click.option(
    "--per-process",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Agents each process runs (ioa node start with an [[agents]] list): each keeps its own home, key, "
    "host and control API.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the nodes as one JSON list once all are up.")
@handle_errors()
def testnet_up(
    count: int,
    root: Path | None,
    agents: tuple[str, ...],
    agents_file: Path | None,
    per_process: int,
    as_json: bool,
) -> None:
    """Start a bootstrap node and COUNT agent nodes (the named agents first, then sample agents); run until
    Ctrl-C, then stop them all."""
    from ioa_p2p.adapters import list_adapters
    from ioa_p2p.bootstrap.agents import (
        AgentPlan,
        agent_specs,
        check_agents,
        parse_agent_option,
        read_agents_file,
    )

    named = [parse_agent_option(text, Path.cwd()) for text in agents]
    from_file = read_agents_file(agents_file) if agents_file is not None else AgentPlan()
    plan = AgentPlan((*named, *from_file.agents), from_file.common)
    specs = agent_specs(count, plan, set(list_adapters()))
    temporary = root is None
    folder = Path(tempfile.mkdtemp(prefix="ioa-testnet-")) if root is None else root
    try:
        check_agents(specs, folder.resolve())
        trio.run(_run, folder, specs, as_json, per_process)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


async def _run(root: Path, specs: list[Any], as_json: bool, per_process: int) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for signum in signals:
                    click.echo(f"received {signal.Signals(signum).name}, stopping the testnet", err=True)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)
            await _serve(root, specs, as_json, per_process)
    click.echo("testnet stopped", err=True)


async def _serve(root: Path, specs: list[Any], as_json: bool, per_process: int) -> None:
    """Start the testnet, print it, then watch for nodes that die until cancelled (Ctrl-C)."""
    from ioa_p2p.bootstrap.testnet import open_testnet

    if not as_json:
        click.echo(f"starting a bootstrap node and {len(specs)} agent nodes under {root} ...")
    async with open_testnet(root, specs, per_process=per_process) as net:
        rows: list[dict[str, Any]] = [
            {
                "name": node.name,
                "role": "bootstrap" if node.is_bootstrap else "agent",
                "adapter": node.spec.config.get("agent", {}).get("adapter"),
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
                kind = row["adapter"] or "-"
                click.echo(f"{row['name']:<14} {kind:<12} {row['peer_id']}  {row['home']}  {addr}")
            click.echo("talk to a node with `ioa --home <home> peers`; press Ctrl-C to stop the testnet")
        sys.stdout.flush()
        reported: set[str] = set()
        while True:
            for node in net.nodes.values():
                if node.name not in reported and not node.running and node.process is not None:
                    reported.add(node.name)  # a shared process: each of its agents is reported
                    click.echo(
                        f"node {node.name} exited with code {node.process.returncode}; see {node.log_path}",
                        err=True,
                    )
            await trio.sleep(1.0)
