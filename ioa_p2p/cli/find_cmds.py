"""``ioa find TEXT [-k N] [--json] [--no-dht]``: ranked agents for a task, through the local node.

Human output, one line per agent, best first::

    1. py-plotter  0.502  python code execution and plotting  12D3KooW...

``--json`` prints the control API's answer unchanged (stable)::

    {"query": str, "k": int, "model": str, "took_ms": float,
     "results": [{"peer_id", "name", "description", "skills", "adapter", "task_types", "model",
                  "addrs", "version", "issued_at", "expires_at", "score", "source", "self"}, ...]}

``source`` says how the node learned the card: ``"self"``, ``"gossip"`` or ``"dht"``.
"""

from __future__ import annotations

import click

from ioa_p2p.api.discovery import FindRequest
from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import InvalidField, UsageError


@main.command()
@click.argument("text")
@click.option("-k", "k", type=int, default=5, show_default=True, help="How many agents to return.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON answer of the node.")
@click.option("--no-dht", is_flag=True, help="Rank only the cards this node already holds.")
@click.pass_context
@handle_errors()
def find(ctx: click.Context, text: str, k: int, as_json: bool, no_dht: bool) -> None:
    """Find the agents best suited to TEXT (a task, in plain words)."""
    if not text.strip():
        raise UsageError("give the task to find agents for, e.g. ioa find 'plot a chart of revenue'")
    try:
        request = FindRequest(text, k, False if no_dht else None)
    except InvalidField as exc:
        raise UsageError(f"-k: {exc.reason}" if exc.path == "k" else str(exc)) from None
    result = ControlClient(get_home(ctx), timeout=60.0).find(request)
    if as_json:
        emit_json(result.to_json())
        return
    if not result.results:
        click.echo("no agents found (is the node connected? try `ioa peers`)")
        return
    width = max(len(r.name) for r in result.results)
    for rank, item in enumerate(result.results, 1):
        mark = " (this node)" if item.is_self else ""
        click.echo(
            f"{rank}. {item.name:<{width}}  {item.score:.3f}  {item.description}  {item.peer_id}{mark}"
        )
