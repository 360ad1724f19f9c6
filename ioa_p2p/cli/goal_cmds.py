"""``ioa goal TEXT``: form a team for a goal through the running node and stream the conversation live.

The command calls ``POST /launch_goal`` with ``"stream": true`` and prints each event as it arrives (the
team, every turn with its speaker and type, tasks with their assignees, progress, results, members
leaving), then the conclusion and the chat ID. ``--json`` prints only the final result object (the
``GoalResult`` JSON of docs/goals.md). ``--chat CHAT`` continues an existing goal chat with TEXT as the new
round's goal (IoA's ``comm_id`` + ``cont_input``).

Exit codes: 0 the goal concluded; 1 it was aborted (deadline) or failed, or no node runs; 2 usage errors (bad
options, an unknown agent name, an unknown chat).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import Any

import click

from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import ControlAPIError, UsageError

#: Seconds the CLI waits beyond the goal's own timeout before giving up on the stream.
STREAM_GRACE = 60.0
DEFAULT_TIMEOUT = 300.0
INDENT = "      "


class EventPrinter:
    """Turns goal events into terminal lines (stateful: remembers task titles and names)."""

    def __init__(self, echo: Callable[[str], None], *, width: int = 100) -> None:
        self.echo = echo
        self.width = width
        self.titles: dict[str, str] = {}
        self.me = ""

    def __call__(self, event: dict[str, Any]) -> None:
        for line in self.lines(event):
            self.echo(line)

    def lines(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("event")
        handler = getattr(self, f"_on_{kind}", None)
        return handler(event) if handler is not None else []

    def _on_searching(self, event: dict[str, Any]) -> list[str]:
        return ["searching the network for teammates ..."]

    def _on_team(self, event: dict[str, Any]) -> list[str]:
        team = ", ".join(f"{t['name']} ({t['score']:.2f})" for t in event.get("team", [])) or "nobody"
        out = [f"team: {team}", f"chat: {event.get('chat_id', '')}"]
        for key in ("declined", "unanswered"):
            names = ", ".join(t["name"] for t in event.get(key, []))
            if names:
                out.append(f"{key}: {names}")
        return out

    def _on_start(self, event: dict[str, Any]) -> list[str]:
        members = ", ".join(m["name"] for m in event.get("members", []))
        depth = event.get("depth", 0)
        return [
            f"round {str(event.get('round_id', ''))[:12]} by {event.get('initiator_name')}: "
            f"members {members}; nesting depth {depth}; max {event.get('max_turns')} turns"
        ]

    def _on_turn(self, event: dict[str, Any]) -> list[str]:
        speaker = event.get("author_name", "?")
        note = f" [{event['reason']}]" if event.get("reason") else ""
        head = f"#{event.get('height', 0)} {speaker} > {event.get('type')}{note}: "
        text = str(event.get("text", ""))
        if event.get("type") == "conclusion":  # printed in full at the end
            first = text.splitlines()[0] if text else ""
            text = first + (" ..." if len(text) > len(first) else "")
        out = self._wrap(head, text)
        for task in event.get("tasks", []):
            self.titles[task["task_id"]] = task.get("title") or task["task_id"][-6:]
            out += self._wrap(
                f"{INDENT}-> {self.titles[task['task_id']]} for {task['assignee_name']}: ",
                task.get("description", ""),
            )
        if event.get("next") and event.get("type") in ("discussion", "async_task"):
            out.append(f"{INDENT}next: {', '.join(event['next'])}")
        return out

    def _on_progress(self, event: dict[str, Any]) -> list[str]:
        fraction = event.get("fraction")
        pct = f" ({fraction:.0%})" if isinstance(fraction, int | float) else ""
        title = self.titles.get(event.get("task_id", ""), "task")
        return [f"{INDENT}{event.get('author_name')} . {title}: {event.get('text', '')}{pct}"]

    def _on_result(self, event: dict[str, Any]) -> list[str]:
        title = self.titles.get(event.get("task_id", ""), "task")
        state = "done" if event.get("ok") else f"FAILED ({event.get('failure')})"
        text = str(event.get("text", "")).strip()
        return self._wrap(f"{INDENT}{event.get('author_name')} {state} {title}: ", text, limit=8)

    def _on_member_left(self, event: dict[str, Any]) -> list[str]:
        return [f"{INDENT}{event.get('name')} left the chat"]

    def _on_rejected(self, event: dict[str, Any]) -> list[str]:
        return [
            f"{INDENT}(ignored a message from {str(event.get('author', ''))[-8:]}: {event.get('reason')})"
        ]

    def _on_aborted(self, event: dict[str, Any]) -> list[str]:
        return [f"aborted: {event.get('reason', '')}"]

    def _wrap(self, head: str, text: str, *, limit: int = 40) -> list[str]:
        lines = text.splitlines() or [""]
        out = [head + lines[0]]
        out += [INDENT + "  " + line for line in lines[1:limit]]
        if len(lines) > limit:
            out.append(f"{INDENT}  ... ({len(lines) - limit} more lines)")
        return out


def print_result(result: dict[str, Any], echo: Callable[[str], None]) -> None:
    """The end of a goal: conclusion, status, chat ID."""
    status = result.get("status")
    flag = " (forced by the limits)" if result.get("forced") else ""
    echo("")
    echo(f"conclusion{flag}:" if status == "concluded" else "aborted; what the team had:")
    for line in str(result.get("conclusion", "")).splitlines():
        echo(textwrap.indent(line, "  ") if line else "")
    done = sum(1 for t in result.get("tasks", []) if t.get("status") == "completed")
    echo("")
    echo(
        f"{status}: {result.get('turns')} turns, {done}/{len(result.get('tasks', []))} tasks completed, "
        f"{result.get('messages')} messages, brain {result.get('brain')}"
    )
    echo(f"chat {result.get('chat_id')}")


def follow_launch(
    client: ControlClient, body: dict[str, Any], on_event: Callable[[dict[str, Any]], None], timeout: float
) -> dict[str, Any]:
    """Stream ``POST /launch_goal``; returns the result, or raises the error the node reported."""
    for event in client.stream("POST", "/launch_goal", {**body, "stream": True}, timeout=timeout):
        kind = event.get("event")
        if kind == "done":
            result: dict[str, Any] = event["result"]
            return result
        if kind == "error" or (kind is None and "error" in event):
            error = event.get("error", {})
            exc = ControlAPIError(f"{error.get('type')}: {error.get('message')}")
            exc.exit_code = int(error.get("exit_code", 1))
            raise exc
        on_event(event)
    raise ControlAPIError("the node closed the goal stream before the goal ended; see its log")


def goal_body(
    text: str,
    team: str | None,
    depth: int | None,
    max_turns: int | None,
    timeout: float | None,
    comm_id: str | None,
) -> dict[str, Any]:
    """The ``POST /launch_goal`` body for the command's options (pure; raises UsageError)."""
    if not text.strip():
        raise UsageError("the goal text is empty")
    if depth is not None and not 0 <= depth <= 8:
        raise UsageError("--depth must be between 0 and 8")
    if max_turns is not None and not 1 <= max_turns <= 1000:
        raise UsageError("--max-turns must be between 1 and 1000")
    if timeout is not None and not 1 <= timeout <= 86_400:
        raise UsageError("--timeout must be between 1 and 86400 seconds")
    body: dict[str, Any] = {"goal": text}
    if team is not None:
        names = [t.strip() for t in team.split(",") if t.strip()]
        if not names:
            raise UsageError("--team needs peer IDs or agent names separated by commas")
        body["team_member_names"] = names
    for key, value in (("team_up_depth", depth), ("max_turns", max_turns), ("timeout", timeout)):
        if value is not None:
            body[key] = value
    if comm_id is not None:
        body["comm_id"] = comm_id
        body["cont_input"] = text
    return body


@main.command("goal")
@click.argument("text")
@click.option("--team", default=None, metavar="PEER_OR_NAME,...", help="Teammates: peer IDs or agent names.")
@click.option("--depth", type=int, default=None, help="How many levels of sub-teams members may form.")
@click.option("--max-turns", type=int, default=None, help="Hard limit on the conversation's turns.")
@click.option("--timeout", type=float, default=None, help="Seconds before the goal's deadline (default 300).")
@click.option("--chat", "comm_id", default=None, metavar="CHAT", help="Continue this goal chat with TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON result at the end (no live output).")
@click.pass_context
@handle_errors()
def goal(
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
    body = goal_body(text, team, depth, max_turns, timeout, comm_id)
    client = ControlClient(get_home(ctx))
    client.node_info()  # fail early (NodeNotRunning) before printing anything
    printer = EventPrinter(click.echo)
    sink: Callable[[dict[str, Any]], None] = (lambda event: None) if as_json else printer
    wait = (timeout or DEFAULT_TIMEOUT) + STREAM_GRACE
    result = follow_launch(client, body, sink, wait)
    if as_json:
        emit_json(result)
    else:
        print_result(result, click.echo)
    sys.exit(0 if result.get("status") == "concluded" else 1)


def run_events(events: Iterable[dict[str, Any]], echo: Callable[[str], None]) -> None:
    """Print a sequence of events (used by ``ioa demo``)."""
    printer = EventPrinter(echo)
    for event in events:
        printer(event)


__all__ = ["EventPrinter", "follow_launch", "goal_body", "print_result", "run_events"]
