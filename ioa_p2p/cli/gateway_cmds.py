"""``ioa a2a serve`` and ``ioa mcp``: the node as an A2A agent and as an MCP server (docs/gateways.md).

Both import their SDK only when run, so the other commands (and the node) never load a2a-sdk or mcp.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import click
import trio

from ioa_p2p.cli._base import get_home, handle_errors, main
from ioa_p2p.config.gateway import MCP_TOKEN_FILE, A2ASettings, Listen
from ioa_p2p.config.node_config import CONFIG_FILE_NAME, load_config


def _say(line: str) -> None:
    click.echo(line)
    sys.stdout.flush()


@main.group()
def a2a() -> None:
    """Serve this node as an Agent2Agent (A2A v1.0) agent."""


@a2a.command("serve")
@click.option(
    "--config", "config_file", type=click.Path(path_type=Path), default=None, help="Config file ([a2a])."
)
@click.option(
    "--listen", metavar="HOST:PORT", default=None, help="Where to listen ([a2a].listen; 127.0.0.1:8470)."
)
@click.option("--url", default=None, help="The public URL in the agent card (default: http://<listen>/).")
@click.option("--token-file", type=click.Path(path_type=Path), default=None, help="Bearer token file.")
@click.option("--tls-cert", default=None, help="TLS certificate (PEM) to serve HTTPS.")
@click.option("--tls-key", default=None, help="TLS private key (PEM).")
@click.pass_context
@handle_errors(json_flag=None)
def a2a_serve(
    ctx: click.Context,
    config_file: Path | None,
    listen: str | None,
    url: str | None,
    token_file: Path | None,
    tls_cert: str | None,
    tls_key: str | None,
) -> None:
    """Serve the running node's A2A gateway until SIGINT/SIGTERM (agent card, JSON-RPC, bearer token)."""
    home = get_home(ctx)
    config = load_config(home, path=config_file)
    where = f"[a2a] of {config_file or home / CONFIG_FILE_NAME}"
    settings = A2ASettings.from_section(config.section("a2a"), where).with_options(
        listen=listen,
        url=url,
        token_file=str(token_file) if token_file else None,
        tls_cert=tls_cert,
        tls_key=tls_key,
    )
    from ioa_p2p.gateways.a2a.server import serve_a2a

    asyncio.run(serve_a2a(home, settings, announce=_say))


@main.command("mcp")
@click.option("--http", "http_listen", metavar="HOST:PORT", default=None, help="Serve streamable HTTP here.")
@click.option("--token-file", type=click.Path(path_type=Path), default=None, help="Bearer token file (HTTP).")
@click.option("--tls-cert", default=None, help="TLS certificate (PEM) for HTTPS.")
@click.option("--tls-key", default=None, help="TLS private key (PEM).")
@click.pass_context
@handle_errors(json_flag=None)
def mcp_command(
    ctx: click.Context,
    http_listen: str | None,
    token_file: Path | None,
    tls_cert: str | None,
    tls_key: str | None,
) -> None:
    """Serve the running node's tools over MCP: on stdio (for a desktop client's config), or --http."""
    home = get_home(ctx)
    from ioa_p2p.gateways.mcp.server import bind_http, serve_http, serve_stdio

    if http_listen is None:
        trio.run(serve_stdio, home)
        return
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("give both --tls-cert and --tls-key, or neither")
    tls = (tls_cert, tls_key) if tls_cert and tls_key else None
    endpoint = bind_http(Listen.parse(http_listen, "--http"), token_file or home / MCP_TOKEN_FILE, tls=tls)

    async def run() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                await nursery.start(
                    lambda task_status: serve_http(home, endpoint, announce=_say, task_status=task_status)
                )
                async for _ in signals:
                    nursery.cancel_scope.cancel()

    trio.run(run)
