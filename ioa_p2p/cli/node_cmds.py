"""``ioa node start``, ``ioa node status``, ``ioa peers``, ``ioa faults``, ``ioa send``, ``ioa inbox``."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import click
import trio

from ioa_p2p.api.peers import MemoryView, NetStatus
from ioa_p2p.cli._base import PARENT_PID_ENV, emit_json, get_home, handle_errors, main, wait_stop_request
from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.config.node_config import CONFIG_FILE_NAME, NodeConfig, load_config
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import UsageError

log = logging.getLogger("ioa_p2p.cli")


@main.group()
def node() -> None:
    """Run this machine's node."""


@node.command("start")
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
    help="Listen multiaddr (repeatable); replaces the config's.",
)
@click.option(
    "--bootstrap", multiple=True, metavar="MADDR", help="Bootstrap peer /.../p2p/<id> (repeatable)."
)
@click.option(
    "--bootstrap-file",
    default=None,
    metavar="FILE",
    help="File of bootstrap multiaddrs, one a line (# comments); $IOA_BOOTSTRAP adds more.",
)
@click.option(
    "--announce",
    multiple=True,
    metavar="MADDR",
    help="An address to advertise besides the detected ones: a public IP, a forwarded port (repeatable).",
)
@click.option("--name", default=None, help="Agent name (overrides [agent].name).")
@click.option("--description", default=None, help="Agent description (overrides [agent].description).")
@click.option(
    "--skill",
    "skills",
    multiple=True,
    help="Agent skill/tag (repeatable; overrides [agent].skills).",
)
@click.option("--language", "languages", multiple=True, help="Language the agent works in (repeatable).")
@click.option("--input-type", "input_types", multiple=True, help="Media type it accepts, e.g. text/csv.")
@click.option("--output-type", "output_types", multiple=True, help="Media type it returns, e.g. image/png.")
@click.option("--tool", "tools", multiple=True, help="Tool or runtime it drives, e.g. python (repeatable).")
@click.option("--adapter", default=None, help="Agent adapter kind (overrides [agent].adapter).")
@click.option(
    "--agents",
    "agents_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Run several agents in this process: a TOML file of [[agents]] tables (replaces the config's "
    '[[agents]] list; docs/agents.md, "Several agents in one process").',
)
@click.pass_context
@handle_errors(json_flag=None)
def node_start(
    ctx: click.Context,
    config_file: Path | None,
    listen: tuple[str, ...],
    bootstrap: tuple[str, ...],
    bootstrap_file: str | None,
    announce: tuple[str, ...],
    name: str | None,
    description: str | None,
    skills: tuple[str, ...],
    languages: tuple[str, ...],
    input_types: tuple[str, ...],
    output_types: tuple[str, ...],
    tools: tuple[str, ...],
    adapter: str | None,
    agents_file: Path | None,
) -> None:
    """Start the node; runs until SIGINT/SIGTERM. Prints `listening on <multiaddr>` lines.

    With --agents FILE (or an [[agents]] list in the config), runs every agent of the list in this process,
    each a node with its own home, key, card, adapter, host and control API; prints `agent NAME: ...`
    lines."""
    from ioa_p2p.cli.node_agents import plan_of_config, read_agents_file, run_agents
    from ioa_p2p.cli.stacks import install_stack_dumps
    from ioa_p2p.memory import limit_malloc_arenas

    install_stack_dumps()  # kill -USR1 / -USR2: where a node that does not answer is stuck
    limit_malloc_arenas()  # before any thread: a node's worker threads would each keep an arena resident
    home = get_home(ctx)
    config = load_config(home, path=config_file)
    source = str(config_file or home / CONFIG_FILE_NAME)
    plan = read_agents_file(agents_file) if agents_file is not None else plan_of_config(config, source)
    if plan is not None:
        one_agent: dict[str, object] = {"--name": name, "--description": description, "--adapter": adapter}
        one_agent.update({"--skill": skills, "--language": languages, "--input-type": input_types})
        one_agent.update({"--output-type": output_types, "--tool": tools, "--announce": announce})
        given = [flag for flag, value in one_agent.items() if value]
        if given:
            raise UsageError(
                f"{', '.join(given)}: one agent's flags; with several agents, set these in each [[agents]]"
            )
        config = config.with_overrides(
            listen=listen or None,
            bootstrap=bootstrap,
            bootstrap_file=str(Path(bootstrap_file).resolve()) if bootstrap_file else None,
        )
        run_agents(config, plan, source)
        _exit_past_native_calls()
        return
    agent: dict[str, Any] = {}
    for key, value in (("name", name), ("description", description), ("adapter", adapter)):
        if value is not None:
            agent[key] = value
    lists = {"skills": skills, "languages": languages, "input_types": input_types}
    lists.update(output_types=output_types, tools=tools)
    agent.update({key: list(values) for key, values in lists.items() if values})  # each overrides [agent]
    config = config.with_overrides(
        listen=listen or None,
        bootstrap=bootstrap,
        bootstrap_file=str(Path(bootstrap_file).resolve()) if bootstrap_file else None,
        announce=announce,
        sections={"agent": agent},
    )
    a2a = A2ASettings.from_section(
        config.section("a2a"), f"[a2a] of {config_file or home / CONFIG_FILE_NAME}"
    )
    gateway = None
    if a2a.enabled:
        a2a.check_exposure(f"[a2a] of {config_file or home / CONFIG_FILE_NAME}")  # before the node starts
        gateway = ["a2a", "serve", *(["--config", str(config_file)] if config_file else [])]
    _warn_if_undescribed(config.section("agent"))
    trio.run(_run_node, config, gateway)
    _exit_past_native_calls()


#: Seconds a stopped node waits for model calls abandoned in worker threads before it exits without them.
NATIVE_GRACE = 1.0


def _exit_past_native_calls() -> None:
    """End the process now when a model call the stopped node abandoned in a worker thread (the matcher's
    background warm-up, a find) still runs after :data:`NATIVE_GRACE` s. onnxruntime cannot be
    interrupted and aborts the process if the interpreter finalizes under it, so the normal exit would wait
    for it (``ioa_p2p.matching.encoders.NATIVE_CALLS``, up to 30 s on a loaded machine); the node has
    already closed everything it owns (its files, its tracer), so stdio and logging are flushed and the
    process ends with ``os._exit(0)``."""
    encoders = sys.modules.get("ioa_p2p.matching.encoders")
    if encoders is None or encoders.NATIVE_CALLS.wait_idle(NATIVE_GRACE):
        return
    click.echo("a model call is still running in a worker thread: exiting without waiting for it", err=True)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    logging.shutdown()
    os._exit(0)


def _warn_if_undescribed(agent: dict[str, Any]) -> None:
    """Warn when the adapter's agent publishes no card and nothing describes it (http, agent_protocol)."""
    from ioa_p2p.adapters.needs import undescribed_warning
    from ioa_p2p.adapters.registry import adapter_needs

    kind = agent.get("adapter")
    warning = undescribed_warning(kind, adapter_needs(kind), agent) if isinstance(kind, str) else None
    if warning:
        click.echo(f"warning: {warning}", err=True)


async def _run_node(config: NodeConfig, gateway: list[str] | None) -> None:
    from ioa_p2p.node import open_node

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with open_node(config) as running, trio.open_nursery() as nursery:
            for addr in running.listen_addrs():
                click.echo(f"listening on {addr}")
            click.echo(f"peer id {running.peer_id}")
            click.echo(f"control api on 127.0.0.1:{running.control.port}")
            sys.stdout.flush()
            if gateway is not None:
                nursery.start_soon(_run_a2a_gateway, config, gateway)
            reason = await wait_stop_request(signals)
            click.echo(f"{reason}, shutting down", err=True)
            nursery.cancel_scope.cancel()


async def _run_a2a_gateway(config: NodeConfig, args: list[str]) -> None:
    """``[a2a] enabled``: the A2A gateway as a child process of the node (its own asyncio loop, and
    a2a-sdk loaded there only), stopped with the node; if it fails, the node goes on without it."""
    command = [sys.executable, "-m", "ioa_p2p", "--home", str(config.home), *args]
    env = dict(os.environ, **{PARENT_PID_ENV: str(os.getpid())})
    done = await trio.run_process(command, env=env, check=False)
    log.warning("the A2A gateway exited with code %s; the node goes on without it", done.returncode)


@node.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the GET /net answer as JSON.")
@click.pass_context
@handle_errors()
def node_status(ctx: click.Context, as_json: bool) -> None:
    """Reachability, listen and advertised addresses, and bootstrap peers of the running node."""
    result = ControlClient(get_home(ctx)).net()
    if as_json:
        emit_json(result.to_json())
        return
    for line in net_lines(result):
        click.echo(line)


def net_lines(net: NetStatus) -> list[str]:
    """``ioa node status`` lines (pure: tests read them)."""
    reach = net.reachability
    lines = [f"peer id {net.peer_id}"]
    how = (
        "set by [node].reachability"
        if reach.mode != "auto"
        else f"AutoNAT: {reach.reached} peer(s) reached us, {reach.failed} could not"
    )
    lines.append(f"reachability: {reach.status} ({how})")
    lines += [f"observed public IP: {ip}" for ip in reach.confirmed_ips]
    lines += [f"listening on {a}" for a in net.listen]
    lines += [f"advertised {a}" for a in net.advertised]
    for boot in net.bootstrap:
        state = "connected" if boot.connected else f"not connected ({boot.last_error or 'dialing'})"
        lines.append(f"bootstrap {boot.addr}: {state}")
    punch = net.hole_punching
    if punch is not None:
        lines.append(f"hole punching: {punch.successes} of {punch.attempts} attempts worked")
    return lines


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {peer_id, addrs, connections}.")
@click.pass_context
@handle_errors()
def peers(ctx: click.Context, as_json: bool) -> None:
    """List the peers the running node is connected to, each connection direct, relayed or punched."""
    client = ControlClient(get_home(ctx))
    result = client.peers()
    if as_json:
        emit_json([p.to_json() for p in result])
        return
    if not result:
        click.echo("no connected peers")
    for peer in result:
        if not peer.connections:
            click.echo(f"{peer.peer_id}  {' '.join(peer.addrs)}")
        for conn in peer.connections:
            click.echo(f"{peer.peer_id}  {conn.kind:<8} {conn.addr}")
    memory = client.budgets().memory
    if memory is not None and memory.process_rss is not None:
        click.echo(memory_line(memory))


def memory_line(memory: MemoryView) -> str:
    """``memory: ...`` of ``ioa peers``: the process's RSS and peak, its agents, this agent's share."""
    mb = 1024 * 1024
    line = f"memory: process {(memory.process_rss or 0) / mb:.0f} MB RSS"
    if memory.process_peak_rss is not None:
        line += f" (peak {memory.process_peak_rss / mb:.0f} MB)"
    line += f", {memory.agents} agent{'s' if memory.agents != 1 else ''}"
    if memory.share_rss is not None:
        line += f", this agent's share {memory.share_rss / mb:.0f} MB"
    return line + f", network buffers held {memory.held_bytes} bytes"


@main.command()
@click.option("--json", "as_json", is_flag=True, help='Print {"total", "counts"}.')
@click.pass_context
@handle_errors()
def faults(ctx: click.Context, as_json: bool) -> None:
    """Exceptions the running node stopped at its task boundaries (by place and type) instead of ending."""
    result = ControlClient(get_home(ctx)).faults()
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(f"faults stopped at task boundaries: {result.total}")
    for where, count in result.counts.items():
        click.echo(f"{count:>8}  {where}")


@main.command()
@click.argument("peer")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors()
def send(ctx: click.Context, peer: str, text: str, as_json: bool) -> None:
    """Send a signed direct message to PEER and wait for its acknowledgement."""
    result = ControlClient(get_home(ctx)).send(peer, text)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"delivered {result.hash}")


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors()
def inbox(ctx: click.Context, as_json: bool) -> None:
    """Show direct messages the running node received (verified)."""
    result = ControlClient(get_home(ctx)).inbox()
    if as_json:
        emit_json([m.to_json() for m in result])
        return
    for item in result:
        click.echo(f"{item.sender} #{item.seq}: {item.text}")
