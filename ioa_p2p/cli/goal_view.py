"""What ``ioa goal`` and ``ioa demo`` print of a goal: its typed events as terminal lines, then its result
(the conclusion, the plan, the cost per agent, a summary line, the chat ID)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from ioa_p2p.api.events import (
    AbortedEvent,
    CancelledEvent,
    CancelRejectedEvent,
    GapEvent,
    GoalEvent,
    MemberLeftEvent,
    PlanEvent,
    ProgressEvent,
    RejectedEvent,
    ResetEvent,
    ResultEvent,
    SearchingEvent,
    StartEvent,
    TeamEvent,
    TeamFallbackEvent,
    TurnEvent,
    UnknownEvent,
)
from ioa_p2p.api.goals import CostRowView, CostsView, GoalResult
from ioa_p2p.conversation.costs import (
    COSTS_HEADING,
    CostRow,
    CostTable,
    outside_lines,
    peer_lines,
    render_costs,
)

INDENT = "      "


class EventPrinter:
    """Turns goal events into terminal lines (stateful: remembers task titles)."""

    def __init__(self, echo: Callable[[str], None], *, width: int = 100) -> None:
        self.echo = echo
        self.width = width
        self.titles: dict[str, str] = {}

    def __call__(self, event: GoalEvent | UnknownEvent) -> None:
        for line in self.lines(event):
            self.echo(line)

    def lines(self, event: GoalEvent | UnknownEvent) -> list[str]:  # noqa: C901 - one case per kind
        if isinstance(event, SearchingEvent):
            return ["searching the network for teammates ..."]
        if isinstance(event, TeamEvent):
            return self._team(event)
        if isinstance(event, TeamFallbackEvent):
            return [f"LLM team-up failed ({event.reason}); team chosen by similarity"]
        if isinstance(event, PlanEvent):
            return self._plan(event)
        if isinstance(event, CancelledEvent):
            return [f"cancelled by {event.author_name}: {event.reason}"]
        if isinstance(event, StartEvent):
            members = ", ".join(m.name for m in event.members)
            return [
                f"round {event.round_id[:12]} by {event.initiator_name}: members {members}; "
                f"nesting depth {event.depth}; max {event.max_turns} turns"
            ]
        if isinstance(event, TurnEvent):
            return self._turn(event)
        if isinstance(event, ProgressEvent):
            pct = f" ({event.fraction:.0%})" if event.fraction is not None else ""
            title = self.titles.get(event.task_id, "task")
            return [f"{INDENT}{event.author_name} . {title}: {event.text}{pct}"]
        if isinstance(event, ResultEvent):
            title = self.titles.get(event.task_id, "task")
            state = "done" if event.ok else f"FAILED ({event.failure})"
            return self._wrap(f"{INDENT}{event.author_name} {state} {title}: ", event.text.strip(), limit=8)
        if isinstance(event, MemberLeftEvent):
            return [f"{INDENT}{event.name} left the chat"]
        if isinstance(event, RejectedEvent | CancelRejectedEvent):
            return [f"{INDENT}(ignored a message from {event.author[-8:]}: {event.reason})"]
        if isinstance(event, AbortedEvent):
            return [f"aborted: {event.reason}"]
        if isinstance(event, GapEvent):
            return [f"({event.missed} events were lost while the connection was down)"]
        if isinstance(event, ResetEvent):
            return ["(the node restarted its event log; its events follow from the start)"]
        return []

    def _team(self, event: TeamEvent) -> list[str]:
        team = ", ".join(f"{t.name} ({t.score:.2f})" for t in event.team) or "nobody"
        out = [f"team: {team}", f"chat: {event.chat_id}"]
        for key, members in (("declined", event.declined), ("unanswered", event.unanswered)):
            names = ", ".join(t.name for t in members)
            if names:
                out.append(f"{key}: {names}")
        return out

    def _plan(self, event: PlanEvent) -> list[str]:
        head = f"{INDENT}plan v{event.version} by {event.author_name}:"
        lines = []
        for i, step in enumerate(event.steps, 1):
            owner = f" ({step.owner_name})" if step.owner_name else ""
            lines.append(f"{INDENT}  {i}. [{step.status}] {step.title}{owner}")
        return [head, *lines]

    def _turn(self, event: TurnEvent) -> list[str]:
        note = f" [{event.reason}]" if event.reason else ""
        if event.fallback:
            note += f" [fallback: {event.fallback}]"
        head = f"#{event.height} {event.author_name} > {event.type}{note}: "
        text = event.text
        if event.type == "conclusion":  # printed in full at the end
            first = text.splitlines()[0] if text else ""
            text = first + (" ..." if len(text) > len(first) else "")
        out = self._wrap(head, text)
        for task in event.tasks:
            self.titles[task.task_id] = task.title or task.task_id[-6:]
            out += self._wrap(
                f"{INDENT}-> {self.titles[task.task_id]} for {task.assignee_name}: ", task.description
            )
        if event.next and event.type in ("discussion", "async_task"):
            out.append(f"{INDENT}next: {', '.join(event.next)}")
        return out

    def _wrap(self, head: str, text: str, *, limit: int = 40) -> list[str]:
        lines = text.splitlines() or [""]
        out = [head + lines[0]]
        out += [INDENT + "  " + line for line in lines[1:limit]]
        if len(lines) > limit:
            out.append(f"{INDENT}  ... ({len(lines) - limit} more lines)")
        return out


def print_result(result: GoalResult, echo: Callable[[str], None]) -> None:
    """The end of a goal: conclusion, the cost per agent, status, chat ID."""
    flag = " (forced by the limits)" if result.forced else ""
    echo("")
    echo(f"conclusion{flag}:" if result.status == "concluded" else "aborted; what the team had:")
    conclusion = result.conclusion
    costs = cost_lines(result.costs)
    if costs:  # the signed conclusion's table, as this node names the agents, is shown below
        conclusion = conclusion.split("\n\n" + COSTS_HEADING, 1)[0]
    for line in conclusion.splitlines():
        echo(textwrap.indent(line, "  ") if line else "")
    if result.plan:
        echo("")
        echo("plan:")
        for i, step in enumerate(result.plan, 1):
            echo(f"  {i}. [{step.get('status')}] {step.get('title')}")
    if costs:
        echo("")
        echo(COSTS_HEADING)
        for line in costs:
            echo("  " + line)
    outside = outside_lines((t.peer_id, t.name) for t in result.outside)
    for line in outside:
        echo(line if line == outside[0] else "  " + line)
    echo("")
    echo(summary_line(result))
    echo(f"chat {result.chat_id}")


def summary_line(result: GoalResult) -> str:
    """``concluded: 5 turns (model 2, fallback 3: timeout 3), 2/3 tasks completed, 14 messages, brain X``."""
    done = sum(1 for t in result.tasks if t.status == "completed")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(result.fallbacks.items()))
    origins = f"model {result.model_turns}, fallback {result.fallback_turns}"
    if kinds:
        origins += f": {kinds}"
    team = f"; team-up fell back: {result.team_fallback}" if result.team_fallback else ""
    return (
        f"{result.status}: {result.turns} turns ({origins}), {done}/{len(result.tasks)} tasks completed, "
        f"{result.messages} messages, brain {result.brain}{team}"
    )


def cost_lines(costs: CostsView) -> list[str]:
    """The cost table of a goal result as lines, agents by card name, then each one's peer ID."""
    if not costs.agents:
        return []
    table = CostTable([_row(r) for r in costs.agents], _row(costs.total))
    names = {r.agent: r.name or "" for r in costs.agents}
    return [*render_costs(table, names), *peer_lines(names, names)]


def _row(view: CostRowView) -> CostRow:
    return CostRow(
        view.agent,
        tasks=view.tasks,
        ok=view.ok,
        prompt_tokens=view.prompt_tokens,
        completion_tokens=view.completion_tokens,
        unknown_tokens=view.tokens_unknown_tasks,
        tool_calls=view.tool_calls,
        wall_ms=view.wall_ms,
    )


__all__ = ["INDENT", "EventPrinter", "cost_lines", "print_result", "summary_line"]
