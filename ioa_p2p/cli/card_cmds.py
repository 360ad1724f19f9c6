"""``ioa card show|set|withdraw``: the running node's own capability card, through its control API.

- ``ioa card show [--json]``: the card (``GET /card``: summary, ``withdrawn``, ``status``);
- ``ioa card set [--name N] [--description D] [--skill S]... [--task-type T]... [--adapter K]
  [--language L]... [--input-type M]... [--output-type M]... [--tool T]... [--json]``: new agent settings,
  a new card version (it replaces the old one everywhere; a withdrawn card comes back);
- ``ioa card withdraw [--reason TEXT] [--json]``: a signed withdrawal replaces the card everywhere (DHT
  and gossip, docs/protocol.md section 9.1.2); no node returns the card after ``[discovery] revalidate`` +
  ``find_timeout`` seconds (12.2 min by default). ``ioa card set`` brings the card back.

``--json`` prints the control API's answer unchanged.
"""

from __future__ import annotations

from typing import Any

import click

from ioa_p2p.api.discovery import CardSummary, CardUpdate
from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import UsageError

#: ``ioa card set`` list options -> ``POST /card`` fields.
LIST_OPTIONS = {
    "skill": "skills",
    "task_type": "task_types",
    "language": "languages",
    "input_type": "input_types",
    "output_type": "output_types",
    "tool": "tools",
}


@main.group()
def card() -> None:
    """This node's capability card: show, change or withdraw it."""


@card.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON answer of the node.")
@click.pass_context
@handle_errors()
def show(ctx: click.Context, as_json: bool) -> None:
    """Show the card this node publishes."""
    result = ControlClient(get_home(ctx), timeout=60.0).card()
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(describe(result, result.stamp_bits))
    if result.withdrawn is not None:
        reason = result.withdrawn.reason or "no reason given"
        click.echo(f"WITHDRAWN (version {result.withdrawn.version}: {reason})")


@card.command("set")
@click.option("--name", help="The agent's name.")
@click.option("--description", help="What the agent does, in plain words.")
@click.option("--adapter", help="The adapter kind.")
@click.option("--skill", multiple=True, help="A skill tag (repeatable; replaces the list).")
@click.option("--task-type", "task_type", multiple=True, help="An accepted task type (repeatable).")
@click.option("--language", multiple=True, help="A natural language (repeatable).")
@click.option("--input-type", "input_type", multiple=True, help="A media type accepted (repeatable).")
@click.option("--output-type", "output_type", multiple=True, help="A media type returned (repeatable).")
@click.option("--tool", multiple=True, help="A tool or runtime the agent drives (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON answer of the node.")
@click.pass_context
@handle_errors()
def set_card(
    ctx: click.Context,
    name: str | None,
    description: str | None,
    adapter: str | None,
    skill: tuple[str, ...],
    task_type: tuple[str, ...],
    language: tuple[str, ...],
    input_type: tuple[str, ...],
    output_type: tuple[str, ...],
    tool: tuple[str, ...],
    as_json: bool,
) -> None:
    """Publish a new version of the card with these settings (the others are kept)."""
    texts = {"name": name, "description": description, "adapter": adapter}
    options = {
        "skill": skill,
        "task_type": task_type,
        "language": language,
        "input_type": input_type,
        "output_type": output_type,
        "tool": tool,
    }
    body: dict[str, Any] = {k: v for k, v in texts.items() if v}
    body.update({field: tuple(options[opt]) for opt, field in LIST_OPTIONS.items() if options[opt]})
    if not body:
        raise UsageError("give at least one setting to change, e.g. ioa card set --description '...'")
    result = ControlClient(get_home(ctx), timeout=120.0).update_card(CardUpdate(**body))
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(f"published version {result.version}: {describe(result, result.stamp_bits)}")


@card.command("withdraw")
@click.option("--reason", default="", help="Why (at most 200 bytes; published with the withdrawal).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON answer of the node.")
@click.pass_context
@handle_errors()
def withdraw(ctx: click.Context, reason: str, as_json: bool) -> None:
    """Withdraw the card everywhere (DHT and gossip); `ioa card set` publishes it again."""
    result = ControlClient(get_home(ctx), timeout=60.0).withdraw_card(reason)
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(
        f"withdrawn: version {result.version} replaces the card of {result.peer_id} "
        "(no node returns it within the revalidation time; `ioa card set` brings it back)"
    )


def describe(summary: CardSummary, stamp_bits: int) -> str:
    skills = ", ".join(summary.skills)
    return (
        f"{summary.name}: {summary.description}"
        + (f" [{skills}]" if skills else "")
        + f" (version {summary.version}, stamp {stamp_bits} bits)"
    )


__all__ = ["card"]
