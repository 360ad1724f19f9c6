"""``ioa goal TEXT``: form a team for a goal through the running node and stream the conversation live.

The command builds a :class:`~ioa_p2p.api.launch.LaunchRequest` from its options (checked there, once),
launches it through :meth:`ControlClient.launch_events <ioa_p2p.control_client.ControlClient.launch_events>`
(``POST /launch_goal`` streaming server-sent events; a dropped connection is resumed after the last event
read) and prints each typed event as it arrives (:mod:`ioa_p2p.cli.goal_view`: the team, every turn with
its speaker and type, tasks with their assignees, progress, results, members leaving), then the
conclusion, the cost per agent and the chat ID. ``--json`` prints only the final result object (the
:class:`~ioa_p2p.api.goals.GoalResult` JSON of docs/goals.md, with ``costs``). ``--chat
CHAT`` continues an existing goal chat with TEXT as the new round's goal (IoA's ``comm_id`` +
``cont_input``).

``ioa goal cancel CHAT`` cancels a goal this node launched (every member sees a signed ``conv.cancel``);
Ctrl-C during ``ioa goal TEXT`` does the same before exiting.

Exit codes (docs/goals.md, section 10): 0 the goal concluded and every needed task completed; 3 it
concluded with failed or missing tasks; 4 it was aborted (its deadline, a cancellation, an abort); 2 usage
and config errors (bad options, an unknown agent name, an unknown chat); 1 it could not run (no running
node, a connection error). The command returns at most ``--timeout`` + :data:`GOAL_GRACE` +
:data:`CLIENT_SLACK` seconds after it started, whatever the node does.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import click

from ioa_p2p.api.events import DoneEvent, ErrorEvent, GoalEvent, SearchingEvent, TeamEvent, UnknownEvent
from ioa_p2p.api.goals import EXIT_ABORTED, GoalResult
from ioa_p2p.api.launch import GOAL_GRACE, LaunchRequest
from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.cli.goal_view import EventPrinter, print_result
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import ControlAPIError, InvalidField, IoAError, IoATimeout, UsageError

#: The CLI's own slack beyond the goal's timeout and the node's GOAL_GRACE; the node's default timeout.
CLIENT_SLACK = 5.0
DEFAULT_TIMEOUT = 300.0
#: The command's options, by the LaunchRequest field they set (for the error messages).
OPTIONS = {"goal": "TEXT", "team": "--team", "depth": "--depth", "max_turns": "--max-turns",
           "timeout": "--timeout", "chat": "--chat"}  # fmt: skip


def launch_request(
    text: str,
    team: str | None,
    depth: int | None,
    max_turns: int | None,
    timeout: float | None,
    chat: str | None,
) -> LaunchRequest:
    """The launch the command's options ask for (UsageError naming the option that is wrong)."""
    names = None if team is None else tuple(t for t in team.split(","))
    try:
        return LaunchRequest(text, names, depth, max_turns, timeout, chat=chat)
    except InvalidField as exc:
        raise UsageError(f"{OPTIONS.get(exc.path, exc.path)}: {exc.reason}") from None


def follow_launch(
    client: ControlClient,
    request: LaunchRequest,
    on_event: Callable[[GoalEvent | UnknownEvent], None],
    timeout: float,
    *,
    read_timeout: float | None = None,
) -> GoalResult:
    """Launch ``request`` and pass each event to ``on_event`` as it arrives; the result, or the error
    the node reported (its exit code). ``timeout``: total seconds (heartbeats do not extend it)."""
    end = time.monotonic() + timeout
    for item in client.launch_events(request, timeout=read_timeout or timeout):
        if time.monotonic() > end:
            raise IoATimeout(f"the goal did not end within {timeout:.0f} s")
        event = item.event
        if isinstance(event, DoneEvent):
            return event.result
        if isinstance(event, ErrorEvent):
            exc = ControlAPIError(f"{event.error.type}: {event.error.message}", error_type=event.error.type)
            exc.exit_code = event.error.exit_code
            raise exc
        on_event(event)
    raise ControlAPIError("the node closed the goal stream before the goal ended; see its log")


class _DefaultRunGroup(click.Group):
    """``ioa goal TEXT`` means ``ioa goal run TEXT``; ``ioa goal cancel CHAT`` cancels."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@main.group("goal", cls=_DefaultRunGroup)
def goal() -> None:
    """Work out a goal with a team (`ioa goal TEXT`), or cancel one (`ioa goal cancel CHAT`)."""


@goal.command("run")
@click.argument("text")
@click.option("--team", default=None, metavar="PEER_OR_NAME,...", help="Teammates: peer IDs or agent names.")
@click.option("--depth", type=int, default=None, help="How many levels of sub-teams members may form.")
@click.option("--max-turns", type=int, default=None, help="Hard limit on the conversation's turns.")
@click.option("--timeout", type=float, default=None, help="Seconds before the goal's deadline (default 300).")
@click.option("--chat", "comm_id", default=None, metavar="CHAT", help="Continue this goal chat with TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON result at the end (no live output).")
@click.pass_context
@handle_errors()
def goal_run(
    ctx: click.Context,
    text: str,
    team: str | None,
    depth: int | None,
    max_turns: int | None,
    timeout: float | None,
    comm_id: str | None,
    as_json: bool,
) -> None:
    """Form a team for the goal TEXT on the network and work it out in a signed group chat."""
    request = launch_request(text, team, depth, max_turns, timeout, comm_id)
    client = ControlClient(get_home(ctx))
    client.node_info()  # fail early (NodeNotRunning) before printing anything
    printer = EventPrinter(click.echo)
    seen: dict[str, str] = {}

    def sink(event: GoalEvent | UnknownEvent) -> None:
        if isinstance(event, SearchingEvent | TeamEvent):
            seen["launch_id"] = event.launch_id
        chat_id = getattr(event, "chat_id", None)
        if isinstance(chat_id, str) and chat_id:
            seen["chat_id"] = chat_id
        if not as_json:
            printer(event)

    wait = (timeout or DEFAULT_TIMEOUT) + GOAL_GRACE + CLIENT_SLACK
    try:
        result = follow_launch(client, request, sink, wait)
    except (KeyboardInterrupt, IoATimeout) as exc:
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "timed out"
        _cancel_seen(client, seen, why, as_json)
        sys.exit(EXIT_ABORTED)
    if as_json:
        emit_json(result.to_json())
    else:
        print_result(result, click.echo)
    sys.exit(result.exit_code)


def _cancel_seen(client: ControlClient, seen: dict[str, str], why: str, as_json: bool) -> None:
    """Cancel the goal this command launched (by chat, or by launch id before the team was formed)."""
    chat, launch = seen.get("chat_id"), seen.get("launch_id")
    if not (chat or launch):
        message = f"{why} before the node started the goal"
    else:
        try:
            client.cancel_goal(chat=chat) if chat else client.cancel_goal(launch=launch)
            message = f"{why}: cancelled the goal ({chat or launch})"
        except IoAError as exc:
            message = f"{why}: could not cancel the goal: {exc}"
    if as_json:
        emit_json(
            {"status": "aborted", "aborted": True, "reason": message, "exit_code": EXIT_ABORTED, **seen}
        )
    else:
        click.echo(message, err=True)


@goal.command("cancel")
@click.argument("chat")
@click.pass_context
@handle_errors()
def goal_cancel(ctx: click.Context, chat: str) -> None:
    """Cancel the goal running in CHAT (launched by this node): every member sees a signed cancellation."""
    answer = ControlClient(get_home(ctx)).cancel_goal(chat=chat)
    rounds = ", ".join(r[:12] for r in answer.cancelled) or "(before its round started)"
    click.echo(f"cancelled {rounds} in chat {answer.chat_id or chat}")


__all__ = ["CLIENT_SLACK", "DEFAULT_TIMEOUT", "follow_launch", "launch_request"]
