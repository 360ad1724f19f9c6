"""What both gateways show of a goal: its events as text, bounded JSON, its result as a summary.

The A2A gateway turns each goal event into a status update, the MCP gateway into a progress notification;
both read the launch's events (:func:`events_of`), say each with the lines ``ioa goal`` prints
(:class:`~ioa_p2p.cli.goal_view.EventPrinter`) and carry its JSON, cut to :data:`MAX_TEXT` characters per
text so that one event stays small whatever a peer wrote. :func:`result_view` is the answer, steps,
citations, chat ID and audit verdict of a finished goal; :func:`transcript` a chat as text.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncGenerator
from typing import Any, cast

from ioa_p2p.api.chats import AuditView, HistoryReply
from ioa_p2p.api.codec import JsonObject, JsonValue
from ioa_p2p.api.events import ConcludedEvent, GoalEvent, UnknownEvent
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.stream import StreamItem
from ioa_p2p.cli.goal_view import EventPrinter, summary_line
from ioa_p2p.control_client.aio import AsyncControlClient

#: Characters kept of one text in an event or a result (the rest is cut, with a note).
MAX_TEXT = 4000
#: Items kept of one list in an event's JSON.
MAX_ITEMS = 100


def events_of(client: AsyncControlClient, request: LaunchRequest) -> AsyncGenerator[StreamItem, None]:
    """A launch's events through ``client`` (its async generator, typed as one so that it can be closed)."""
    return cast(AsyncGenerator[StreamItem, None], client.launch_events(request))


def clip(value: JsonValue, limit: int = MAX_TEXT) -> JsonValue:
    """``value`` with every text cut to ``limit`` characters and every list to :data:`MAX_ITEMS` items."""
    if isinstance(value, str):
        return (
            value if len(value) <= limit else value[:limit] + f" ... [{len(value) - limit} more characters]"
        )
    if isinstance(value, list):
        return [clip(v, limit) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return {k: clip(v, limit) for k, v in value.items()}
    return value


class EventText:
    """A goal's events as text, one event at a time (remembers the task titles, like ``ioa goal``)."""

    def __init__(self) -> None:
        self._printer = EventPrinter(lambda line: None)

    def __call__(self, event: GoalEvent | UnknownEvent) -> str:
        text = "\n".join(self._printer.lines(event)).strip()
        if isinstance(event, ConcludedEvent):
            first = (event.text.strip().splitlines() or [""])[0]
            forced = " (forced by the limits)" if event.forced else ""
            text = f"concluded by {event.author_name}{forced}: {first}"
        if not text:
            text = f"({event.event})"
        return str(clip(text))


def audit_view(audit: AuditView | None, problem: str = "") -> JsonObject:
    """The audit verdict of a goal chat: valid, records, messages, the findings (or why there is none)."""
    if audit is None:
        return {"valid": None, "error": problem or "not audited"}
    findings: list[JsonValue] = [clip(f.to_json(), 500) for f in audit.findings[:20]]
    return {
        "valid": audit.valid,
        "chat_id": audit.chat_id,
        "records": audit.records,
        "messages": audit.messages,
        "authors": len(audit.authors),
        "findings": findings,
    }


def result_view(result: GoalResult, audit: JsonObject) -> JsonObject:
    """The result of a goal as both gateways give it (the keys: docs/gateways.md)."""
    team: list[JsonValue] = [{"peer_id": t.peer_id, "name": t.name} for t in result.team]
    out: dict[str, Any] = {
        "answer": result.answer,
        "status": result.status,
        "complete": result.complete,
        "exit_code": result.exit_code,
        "steps": list(result.steps),
        "citations": list(result.citations),
        "chat_id": result.chat_id,
        "round_id": result.round_id,
        "conclusion": result.conclusion,
        "team": team,
        "turns": result.turns,
        "messages": result.messages,
        "summary": summary_line(result),
        "audit": audit,
    }
    return {k: clip(v) for k, v in out.items()}


def answer_text(result: GoalResult) -> str:
    """The text of a result: the answer, or the conclusion when the round found none."""
    text = result.answer or result.conclusion or f"the goal ended: {result.status}"
    return str(clip(text))


def transcript(history: HistoryReply, names: dict[str, str] | None = None, limit: int = 500) -> str:
    """A chat's messages as text, one line each (``HistoryReply``; the last ``limit`` messages)."""
    names = names or {}
    info = history.chat
    lines = [f"chat {info.chat_id}", f"topic: {info.topic}", f"members: {', '.join(info.members)}"]
    messages = history.messages[-limit:]
    if len(history.messages) > limit:
        lines.append(f"({len(history.messages) - limit} earlier messages left out)")
    for msg in messages:
        when = datetime.datetime.fromtimestamp(msg.ts / 1000, tz=datetime.UTC).strftime("%H:%M:%S")
        who = names.get(msg.author, msg.author[-6:])
        content = msg.content
        body = content.get("text") or content.get("content") or content.get("goal")
        text = (
            body if isinstance(body, str) else ", ".join(f"{k}={v!r}" for k, v in list(content.items())[:6])
        )
        lines.append(f"[{when}] {who} {msg.kind}: {clip(text, 1000)}")
    return "\n".join(lines)


__all__ = [
    "MAX_ITEMS",
    "MAX_TEXT",
    "EventText",
    "answer_text",
    "audit_view",
    "clip",
    "result_view",
    "transcript",
]
