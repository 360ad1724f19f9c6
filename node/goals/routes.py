"""Control routes of the goals service: ``POST /launch_goal``, ``GET /goal_events``, ``GET /goals``.

``POST /launch_goal`` takes IoA's request shape (``goal``, ``team_member_names``, ``team_up_depth``,
``max_turns``, ``comm_id`` + ``cont_input``; IoA's ``skip_naming``, ``is_collaborative_planning_enabled`` and
``obs_kwargs`` are accepted and ignored) plus ``timeout``, ``speaker_timeout``, ``task_timeout``,
``max_team`` and ``stream``. Without ``stream`` it answers the :class:`~ioa_p2p.node.goals.GoalResult` JSON
when the round ends; with ``"stream": true`` it answers NDJSON events as they happen, then
``{"event": "done", "result": {...}}`` (or ``{"event": "error", "error": {...}}``). The goal keeps running
if the client goes away. ``GET /goal_events?chat=ID[&round=ID]`` streams a goal chat's events (past ones
first) until the round ends. ``POST /cancel_goal {"chat": CHAT}`` (or ``{"launch": ID}``) cancels a goal
this node launched. JSON shapes: docs/goals.md. The goals service passes typed events
(:mod:`ioa_p2p.node.goals.events`); these routes are where they become JSON (``event_to_json``).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar

import trio

from ioa_p2p.errors import IoAError, IoATimeout, UsageError
from ioa_p2p.node.control.server import ControlRequest, Streaming
from ioa_p2p.node.goals.events import (
    END_EVENTS,
    DoneEvent,
    ErrorEvent,
    GoalEvent,
    HeartbeatEvent,
    StreamError,
    event_to_json,
)
from ioa_p2p.node.goals.types import EXIT_ABORTED, check_launch_args

if TYPE_CHECKING:
    from ioa_p2p.node.goals.service import Goals
    from ioa_p2p.node.ports import NodePort

HEARTBEAT = 10.0
_E = TypeVar("_E", bound=GoalEvent)
_IGNORED = {"skip_naming", "is_collaborative_planning_enabled", "obs_kwargs"}
_KNOWN = {
    "goal",
    "team_member_names",
    "team",
    "team_up_depth",
    "depth",
    "max_turns",
    "timeout",
    "speaker_timeout",
    "task_timeout",
    "max_team",
    "comm_id",
    "cont_input",
    "stream",
} | _IGNORED


def launch_arguments(body: Any) -> tuple[dict[str, Any], bool]:
    """The keyword arguments of ``launch_goal`` from a request body (pure); and whether to stream."""
    if not isinstance(body, dict):
        raise UsageError("POST /launch_goal needs a JSON object body with at least a goal")
    unknown = sorted(set(body) - _KNOWN)
    if unknown:
        raise UsageError(f"unknown fields {unknown}; known: {sorted(_KNOWN)}")
    kwargs: dict[str, Any] = {"goal": _typed(body, "goal", str) or ""}
    team = body.get("team_member_names", body.get("team"))
    if isinstance(team, str):
        team = [t for t in team.split(",") if t.strip()]
    if team is not None and (not isinstance(team, list) or not all(isinstance(t, str) for t in team)):
        raise UsageError("team_member_names must be a list of agent names or peer IDs")
    kwargs["team"] = team or None
    depth = body.get("team_up_depth", body.get("depth"))
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)):
        raise UsageError("team_up_depth must be an integer")
    kwargs["depth"] = depth
    kwargs["max_turns"] = _typed(body, "max_turns", int)
    for name in ("timeout", "speaker_timeout", "task_timeout"):
        kwargs[name] = _typed(body, name, float)
    kwargs["max_team"] = _typed(body, "max_team", int)
    kwargs["comm_id"] = _typed(body, "comm_id", str)
    cont = body.get("cont_input")
    if isinstance(cont, dict):  # IoA sends {"content": ..., "sender": ...}
        cont = cont.get("content")
    if cont is not None and not isinstance(cont, str):
        raise UsageError("cont_input must be a text or an object with a text 'content'")
    kwargs["cont_input"] = cont
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise UsageError("stream must be true or false")
    return kwargs, stream


def _typed(body: dict[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise UsageError(f"field {name!r} must be {'a number' if kind is float else kind.__name__}")
    return value


def _precheck(goals: Goals, kwargs: dict[str, Any]) -> None:
    """Reject bad arguments with HTTP 400 before a stream starts."""
    cfg = goals.config
    goal = (kwargs["cont_input"] if kwargs["comm_id"] else kwargs["goal"]) or kwargs["goal"]
    check_launch_args(
        goal,
        cfg.depth if kwargs["depth"] is None else kwargs["depth"],
        cfg.max_turns if kwargs["max_turns"] is None else kwargs["max_turns"],
        cfg.timeout if kwargs["timeout"] is None else kwargs["timeout"],
        cfg.speaker_timeout if kwargs["speaker_timeout"] is None else kwargs["speaker_timeout"],
        kwargs["comm_id"],
        kwargs["cont_input"],
    )
    if kwargs["comm_id"]:
        goals.chats.resolve(kwargs["comm_id"])


async def _next_event(events: trio.MemoryReceiveChannel[_E]) -> _E | HeartbeatEvent | None:
    """The next event, a heartbeat after HEARTBEAT seconds of silence, or None at the end."""
    with trio.move_on_after(HEARTBEAT):
        try:
            return await events.receive()
        except trio.EndOfChannel:
            return None
    return HeartbeatEvent()


def add_goal_routes(node: NodePort, goals: Goals) -> None:
    async def launch(request: ControlRequest) -> Any:
        kwargs, stream = launch_arguments(request.body)
        _precheck(goals, kwargs)
        if not stream:
            result = await goals.launch_goal(**kwargs)
            return result.to_json()
        send, receive = trio.open_memory_channel[GoalEvent](math.inf)

        def sink(event: GoalEvent) -> None:
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError):  # the client went away
                send.send_nowait(event)

        async def job() -> None:
            with send:
                try:
                    result = await goals.launch_goal(**kwargs, on_event=sink)
                except IoAError as exc:
                    code = EXIT_ABORTED if isinstance(exc, IoATimeout) else exc.exit_code
                    sink(ErrorEvent(StreamError(type(exc).__name__, str(exc), code)))
                except Exception as exc:  # a bug: the client hears of it; the job's fault boundary logs it
                    what = f"the goal stopped on an internal error ({type(exc).__name__}); the node keeps "
                    sink(ErrorEvent(StreamError("InternalError", what + "running: see `ioa faults`", 1)))
                    raise
                else:
                    sink(DoneEvent(result))

        goals.start_job(job)

        async def items() -> AsyncIterator[dict[str, Any]]:
            async with receive:
                while (event := await _next_event(receive)) is not None:
                    yield event_to_json(event)

        return Streaming(items())

    async def goal_events(request: ControlRequest) -> Any:
        chat_id = goals.chats.resolve(request.arg("chat", str))
        wanted = request.arg("round", str, None)
        driver = goals.drivers.get(chat_id)
        if driver is None:
            raise UsageError(f"chat {chat_id.hex()[:16]}... carries no goal on this node")

        async def items() -> AsyncIterator[dict[str, Any]]:
            async with driver.follow(replay=True) as events:
                while (event := await _next_event(events)) is not None:
                    yield event_to_json(event)
                    if isinstance(event, END_EVENTS):
                        latest = driver.latest_round()
                        target = wanted or (latest.round_id if latest else None)
                        if event.round_id == target:
                            return

        return Streaming(items())

    async def list_goals(request: ControlRequest) -> Any:
        return goals.list_goals()

    async def cancel(request: ControlRequest) -> Any:
        body = request.body
        ref = body.get("chat") or body.get("launch") if isinstance(body, dict) else None
        if not isinstance(ref, str) or not ref:
            raise UsageError('POST /cancel_goal needs {"chat": CHAT} or {"launch": LAUNCH_ID}')
        return await goals.cancel_goal(ref)

    node.control.add_route("POST", "/launch_goal", launch)
    node.control.add_route("GET", "/goal_events", goal_events)
    node.control.add_route("GET", "/goals", list_goals)
    node.control.add_route("POST", "/cancel_goal", cancel)


__all__ = ["add_goal_routes", "launch_arguments"]
