"""``ioa goal TEXT``: form a team for a goal through the running node and stream the conversation live.

The command calls ``POST /launch_goal`` with ``"stream": true`` and prints each event as it arrives (the
team, every turn with its speaker and type, tasks with their assignees, progress, results, members
leaving), then the conclusion, the cost per agent (ioa_p2p.conversation.costs) and the chat ID. ``--json``
prints only the final result object (the ``GoalResult`` JSON of docs/goals.md, with ``costs``). ``--chat
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
import textwrap
import time
from collections.abc import Callable
from typing import Any

import click

from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient
from ioa_p2p.conversation.costs import COSTS_HEADING, CostRow, CostTable, render_costs
from ioa_p2p.errors import ControlAPIError, IoAError, IoATimeout, UsageError

#: Seconds a goal may take beyond its timeout on the node (the node's GOAL_GRACE), and the CLI's own slack.
GOAL_GRACE = 5.0
CLIENT_SLACK = 5.0
DEFAULT_TIMEOUT = 300.0
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TASKS_FAILED, EXIT_ABORTED = 0, 1, 2, 3, 4
EXIT_INCOMPLETE = EXIT_TASKS_FAILED  # the name issue 11 gave exit code 3
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

    def _on_team_fallback(self, event: dict[str, Any]) -> list[str]:
        return [f"LLM team-up failed ({event.get('reason')}); team chosen by similarity"]

    def _on_plan(self, event: dict[str, Any]) -> list[str]:
        head = f"{INDENT}plan v{event.get('version')} by {event.get('author_name')}:"
        lines = []
        for i, step in enumerate(event.get("steps", []), 1):
            owner = f" ({step.get('owner_name')})" if step.get("owner_name") else ""
            lines.append(f"{INDENT}  {i}. [{step.get('status')}] {step.get('title')}{owner}")
        return [head, *lines]

    def _on_cancelled(self, event: dict[str, Any]) -> list[str]:
        return [f"cancelled by {event.get('author_name')}: {event.get('reason')}"]

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
        if event.get("fallback"):
            note += f" [fallback: {event['fallback']}]"
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
    """The end of a goal: conclusion, the cost per agent, status, chat ID."""
    status = result.get("status")
    flag = " (forced by the limits)" if result.get("forced") else ""
    echo("")
    echo(f"conclusion{flag}:" if status == "concluded" else "aborted; what the team had:")
    conclusion = str(result.get("conclusion", ""))
    costs = cost_lines(result.get("costs"))
    if costs:  # the signed conclusion's table names agents by peer ID: shown below by name instead
        conclusion = conclusion.split("\n\n" + COSTS_HEADING, 1)[0]
    for line in conclusion.splitlines():
        echo(textwrap.indent(line, "  ") if line else "")
    for line in plan_lines(result.get("plan") or []):
        echo(line)
    if costs:
        echo("")
        echo(COSTS_HEADING)
        for line in costs:
            echo("  " + line)
    echo("")
    echo(summary_line(result))
    echo(f"chat {result.get('chat_id')}")


def plan_lines(plan: list[dict[str, Any]]) -> list[str]:
    if not plan:
        return []
    out = ["", "plan:"]
    for i, step in enumerate(plan, 1):
        out.append(f"  {i}. [{step.get('status')}] {step.get('title')}")
    return out


def summary_line(result: dict[str, Any]) -> str:
    """``concluded: 5 turns (model 2, fallback 3: timeout 3), 2/3 tasks completed, 14 messages, brain X``."""
    done = sum(1 for t in result.get("tasks", []) if t.get("status") == "completed")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted((result.get("fallbacks") or {}).items()))
    origins = f"model {result.get('model_turns', 0)}, fallback {result.get('fallback_turns', 0)}"
    if kinds:
        origins += f": {kinds}"
    team = f"; team-up fell back: {result['team_fallback']}" if result.get("team_fallback") else ""
    return (
        f"{result.get('status')}: {result.get('turns')} turns ({origins}), "
        f"{done}/{len(result.get('tasks', []))} tasks completed, {result.get('messages')} messages, "
        f"brain {result.get('brain')}{team}"
    )


def exit_code(result: dict[str, Any]) -> int:
    """The exit code of a goal result (the name issue 11 gave it)."""
    return exit_code_of(result)


def exit_code_of(result: dict[str, Any]) -> int:
    """The exit code of a goal result (the node computes it; older nodes: from status and tasks)."""
    code = result.get("exit_code")
    if isinstance(code, int) and code in (EXIT_OK, EXIT_TASKS_FAILED, EXIT_ABORTED):
        return code
    if result.get("status") != "concluded":
        return EXIT_ABORTED
    if isinstance(result.get("complete"), bool):  # the goal report: every needed step done
        return EXIT_OK if result["complete"] else EXIT_TASKS_FAILED
    done: dict[str, bool] = {}  # a task is needed until one with the same title (a retry) completed
    for t in result.get("tasks", []):
        key = str(t.get("title") or t.get("task_id"))
        done[key] = done.get(key, False) or t.get("status") == "completed"
    return EXIT_OK if all(done.values()) else EXIT_TASKS_FAILED


def cost_lines(costs: Any) -> list[str]:
    """The ``costs`` of a goal result (GoalResult JSON) as table lines, by agent name."""
    if not isinstance(costs, dict) or not costs.get("agents"):
        return []
    rows = [_row(r) for r in costs["agents"] if isinstance(r, dict)]
    table = CostTable([r for r in rows if r is not None], _row(costs.get("total")) or CostRow("total"))
    names = {r["agent"]: r.get("name") or "" for r in costs["agents"] if isinstance(r, dict) and "agent" in r}
    return render_costs(table, names)


def _row(item: Any) -> CostRow | None:
    if not isinstance(item, dict) or not isinstance(item.get("agent"), str):
        return None
    row = CostRow(item["agent"])
    for key, attr in (("tasks", "tasks"), ("ok", "ok"), ("prompt_tokens", "prompt_tokens"),
                      ("completion_tokens", "completion_tokens"), ("tokens_unknown_tasks", "unknown_tokens"),
                      ("tool_calls", "tool_calls"), ("wall_ms", "wall_ms")):  # fmt: skip
        value = item.get(key)
        setattr(row, attr, value if isinstance(value, int) and not isinstance(value, bool) else 0)
    return row


def follow_launch(
    client: ControlClient, body: dict[str, Any], on_event: Callable[[dict[str, Any]], None], timeout: float
) -> dict[str, Any]:
    """Stream ``POST /launch_goal``; returns the result, or raises the error the node reported.
    ``timeout``: total seconds (heartbeats do not extend it); IoATimeout after it."""
    end = time.monotonic() + timeout
    for event in client.stream("POST", "/launch_goal", {**body, "stream": True}, timeout=timeout):
        if time.monotonic() > end:
            raise IoATimeout(f"the goal did not end within {timeout:.0f} s")
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
    body = goal_body(text, team, depth, max_turns, timeout, comm_id)
    client = ControlClient(get_home(ctx))
    client.node_info()  # fail early (NodeNotRunning) before printing anything
    printer = EventPrinter(click.echo)
    seen: dict[str, str] = {}

    def sink(event: dict[str, Any]) -> None:
        for key in ("launch_id", "chat_id"):
            if event.get(key):
                seen[key] = str(event[key])
        if not as_json:
            printer(event)

    wait = (timeout or DEFAULT_TIMEOUT) + GOAL_GRACE + CLIENT_SLACK
    try:
        result = follow_launch(client, body, sink, wait)
    except (KeyboardInterrupt, IoATimeout) as exc:
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "timed out"
        _cancel_seen(client, seen, why, as_json)
        sys.exit(EXIT_ABORTED)
    if as_json:
        emit_json(result)
    else:
        print_result(result, click.echo)
    sys.exit(exit_code_of(result))


def _cancel_seen(client: ControlClient, seen: dict[str, str], why: str, as_json: bool) -> None:
    """Cancel the goal this command launched (by chat, or by launch id before the team was formed)."""
    ref = {"chat": seen["chat_id"]} if "chat_id" in seen else {"launch": seen.get("launch_id", "")}
    if not any(ref.values()):
        message = f"{why} before the node started the goal"
    else:
        try:
            client.call("POST", "/cancel_goal", ref)
            message = f"{why}: cancelled the goal ({next(iter(ref.values()))})"
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
    answer = ControlClient(get_home(ctx)).call("POST", "/cancel_goal", {"chat": chat})
    rounds = ", ".join(r[:12] for r in answer.get("cancelled", [])) or "(before its round started)"
    click.echo(f"cancelled {rounds} in chat {answer.get('chat_id', chat)}")


__all__ = [
    "EventPrinter",
    "exit_code",
    "exit_code_of",
    "follow_launch",
    "goal_body",
    "print_result",
    "summary_line",
]
