"""``ioa bootstrap start``, ``ioa relay status``, ``ioa relay connect``."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click
import trio

from ioa_p2p.api.peers import RelayConnectRequest, RelayStatus
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
    from ioa_p2p.cli.stacks import install_stack_dumps

    install_stack_dumps()  # kill -USR1 / -USR2: where a node that does not answer is stuck
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
    result = ControlClient(get_home(ctx)).relay()
    if as_json:
        emit_json(result.to_json())
        return
    for line in relay_lines(result):
        click.echo(line)


def relay_lines(result: RelayStatus) -> list[str]:
    """``ioa relay status`` lines (pure: tests read them)."""
    lines = [
        f"reachability: {result.reachability}",
        f"hop: {'on' if result.hop else 'off'}   client: {'on' if result.client else 'off'}",
    ]
    usage = result.usage
    if result.hop:
        lines.append("limits: " + " ".join(f"{k}={v}" for k, v in sorted(result.limits.to_json().items())))
    if usage is not None:
        lines.append(
            f"relaying: {usage.reservations} reservations, {usage.circuits} circuits open, "
            f"{usage.circuits_opened} opened, {usage.relayed_bytes} bytes relayed"
        )
        if usage.refusals:
            lines.append("refused: " + " ".join(f"{k}={v}" for k, v in sorted(usage.refusals.items())))
        if usage.circuits_cut:
            lines.append(
                "circuits cut by limit: "
                + " ".join(f"{k}={v}" for k, v in sorted(usage.circuits_cut.items()))
            )
    if result.reachability == "private" and result.wanted_reservations:
        lines.append(f"reservations: {len(result.reservations)} held, {result.wanted_reservations} wanted")
    for item in result.reservations:
        kind = "pinned" if item.pinned else "auto"
        lines.append(f"reservation on {item.relay} ({kind}) expires in {item.expires_in} s")
    lines += [f"reachable at {addr}" for addr in result.circuit_addrs]
    punch = result.hole_punching
    if punch is not None:
        lines.append(f"hole punching: {punch.successes} of {punch.attempts} attempts worked")
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
        request = RelayConnectRequest(addr=target)
    else:
        request = RelayConnectRequest(peer=target, relay=via)
    result = ControlClient(get_home(ctx)).relay_connect(request)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"connected to {result.peer_id} via {result.via or 'an existing connection'}")
