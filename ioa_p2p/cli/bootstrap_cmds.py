"""``ioa bootstrap start``, ``ioa relay status``, ``ioa relay connect``."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import click
import trio

from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main, wait_stop_request
from ioa_p2p.config.node_config import NodeConfig, load_config
from ioa_p2p.control_client import ControlClient


@main.group()
def bootstrap() -> None:
    """Run a bootstrap node (no agent; a circuit relay for peers behind NAT by default)."""


@bootstrap.command("start")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path),
    default=None,
    help="Config file (default: config.toml in the node home).",
)
@click.option(
    "--listen",
    multiple=True,
    metavar="MADDR",
    help="Listen multiaddr (repeatable), e.g. /ip4/0.0.0.0/tcp/4001; replaces the config's.",
)
@click.option(
    "--bootstrap",
    "others",
    multiple=True,
    metavar="MADDR",
    help="Another bootstrap peer /.../p2p/<id> to join (repeatable).",
)
@click.option(
    "--relay/--no-relay",
    default=True,
    show_default=True,
    help="Act as a circuit relay v2 hop (limits from the [relay] table).",
)
@click.pass_context
@handle_errors(json_flag=None)
def bootstrap_start(
    ctx: click.Context,
    config_file: Path | None,
    listen: tuple[str, ...],
    others: tuple[str, ...],
    relay: bool,
) -> None:
    """Start a bootstrap node; runs until SIGINT/SIGTERM. Prints `listening on <multiaddr>` lines."""
    from ioa_p2p.bootstrap.bootnode import bootstrap_config

    home = get_home(ctx)
    config = bootstrap_config(
        load_config(home, path=config_file), relay=relay, listen=listen, bootstrap=others
    )
    trio.run(_serve, config)


async def _serve(config: NodeConfig) -> None:
    from ioa_p2p.bootstrap.bootnode import describe
    from ioa_p2p.node import open_node

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with open_node(config) as node:
            for line in describe(node):
                click.echo(line)
            sys.stdout.flush()
            reason = await wait_stop_request(signals)
            click.echo(f"{reason}, shutting down", err=True)


@main.group()
def relay() -> None:
    """Circuit relay: this node's reservations, and reaching peers through relays."""


@relay.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the relay status as JSON.")
@click.pass_context
@handle_errors()
def relay_status(ctx: click.Context, as_json: bool) -> None:
    """Reachability, relay role and limits, what the relay carries, reservations, /p2p-circuit addresses."""
    result = ControlClient(get_home(ctx)).call("GET", "/relay")
    if as_json:
        emit_json(result)
        return
    for line in relay_lines(result):
        click.echo(line)


def relay_lines(result: dict[str, Any]) -> list[str]:
    """``ioa relay status`` lines (pure: tests read them)."""
    lines = [
        f"reachability: {result.get('reachability', 'unknown')}",
        f"hop: {'on' if result['hop'] else 'off'}   client: {'on' if result['client'] else 'off'}",
    ]
    if result["hop"]:
        lines.append("limits: " + " ".join(f"{k}={v}" for k, v in sorted(result["limits"].items())))
        usage = result.get("usage") or {}
        lines.append(
            f"relaying: {usage.get('reservations', 0)} reservations, {usage.get('circuits', 0)} circuits "
            f"open, {usage.get('circuits_opened', 0)} opened, {usage.get('relayed_bytes', 0)} bytes relayed"
        )
        refusals = usage.get("refusals") or {}
        cuts = usage.get("circuits_cut") or {}
        if refusals:
            lines.append("refused: " + " ".join(f"{k}={v}" for k, v in sorted(refusals.items())))
        if cuts:
            lines.append("circuits cut by limit: " + " ".join(f"{k}={v}" for k, v in sorted(cuts.items())))
    wanted = result.get("wanted_reservations")
    held = result["reservations"]
    if result.get("reachability") == "private" and wanted:
        lines.append(f"reservations: {len(held)} held, {wanted} wanted")
    for item in held:
        kind = "pinned" if item.get("pinned") else "auto"
        left = item.get("expires_in")
        lines.append(
            f"reservation on {item['relay']} ({kind}) expires in {left} s"
            if left is not None
            else f"reservation on {item['relay']} until {item['expires']}"
        )
    for addr in result["circuit_addrs"]:
        lines.append(f"reachable at {addr}")
    punch = result.get("hole_punching")
    if punch:
        lines.append(
            f"hole punching: {punch.get('successes', 0)} of {punch.get('attempts', 0)} attempts worked"
        )
    return lines


@relay.command("connect")
@click.argument("target")
@click.option("--via", "via", default=None, metavar="RELAY", help="Relay peer ID to use (with a PEER_ID).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors()
def relay_connect(ctx: click.Context, target: str, via: str | None, as_json: bool) -> None:
    """Connect to TARGET through a relay: a /p2p-circuit multiaddr, or a peer ID (tries connected relays)."""
    if target.startswith("/"):
        body: dict[str, str] = {"addr": target}
    else:
        body = {"peer": target}
        if via:
            body["relay"] = via
    result = ControlClient(get_home(ctx)).call("POST", "/relay/connect", body)
    if as_json:
        emit_json(result)
    else:
        click.echo(f"connected to {result['peer_id']} via {result['via'] or 'an existing connection'}")
