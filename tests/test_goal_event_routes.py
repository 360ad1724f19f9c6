"""The goal-event control routes (``POST /launch_goal`` with ``stream``, ``GET /goal_events``) stream
exactly the JSON of tests/test_goal_events.py's events (NDJSON or server-sent events, resumable by cursor),
a heartbeat after 10 s of silence, and ``done`` / ``error`` at the end.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from ioa_p2p.api.events import (
    DoneEvent,
    ErrorEvent,
    GapEvent,
    GoalEvent,
    HeartbeatEvent,
    ResetEvent,
    SearchingEvent,
)
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.stream import NDJSON, SSE, Cursor, SseReader
from ioa_p2p.errors import InvalidField, IoATimeout, UsageError
from ioa_p2p.node.control.server import ControlAPI, ControlRequest, Streaming
from ioa_p2p.node.goals.driver import ChatDriver, DriverDeps
from ioa_p2p.node.goals.eventlog import EventLog
from ioa_p2p.node.goals.launches import LaunchLogs, run_logged
from ioa_p2p.node.goals.routes import add_goal_routes
from tests.goal_event_shapes import check_shape
from tests.test_goal_events import CHAT, A, _result, event_to_json, sample_events

# --------------------------------------------------------------------------- the control routes


Script = list[GoalEvent | float]  # events, and seconds of silence
LAUNCH = "l1"


class _Goals:
    """The part of the goals service the control routes use (``GoalsPort``); a launch replays ``script``
    into a real event log through the real :func:`run_logged`."""

    def __init__(self, nursery: trio.Nursery, script: Script, error: Exception | None) -> None:
        self.node = SimpleNamespace(peer_id=A)
        self.chats = SimpleNamespace(resolve=lambda ref: bytes.fromhex(ref))
        self.drivers: dict[bytes, ChatDriver] = {}
        self.launch_logs = LaunchLogs()
        self.nursery, self.script, self.error = nursery, script, error
        self.caught: list[BaseException] = []  # what reached the job's fault boundary
        self.capacity = 2000

    async def launch_goal(self, request: LaunchRequest, *, on_event: Any = None) -> GoalResult:
        for item in self.script:
            if isinstance(item, float):
                await trio.sleep(item)
            else:
                on_event(item)
        if self.error is not None:
            raise self.error
        return _result()

    def start_launch(self, request: LaunchRequest) -> tuple[str, EventLog[GoalEvent]]:
        log: EventLog[GoalEvent] = EventLog(self.capacity)
        self.launch_logs.open(LAUNCH, log)

        async def launch(sink: Any) -> GoalResult:
            return await self.launch_goal(request, on_event=sink)

        async def job() -> None:
            try:
                await run_logged(launch, log)
            except ValueError as exc:  # the real service runs jobs inside node.faults.boundary
                self.caught.append(exc)
            finally:
                self.launch_logs.finish(LAUNCH)

        self.nursery.start_soon(job)
        return LAUNCH, log


async def _stream(answer: Any) -> list[dict[str, Any]]:
    """The NDJSON items of a streamed answer."""
    assert isinstance(answer, Streaming) and answer.media_type == NDJSON
    return [json.loads(line) async for chunk in answer.chunks for line in chunk.splitlines() if line.strip()]


async def _sse(answer: Any) -> list[tuple[str | None, dict[str, Any]]]:
    """The server-sent events of a streamed answer: (id, event JSON)."""
    assert isinstance(answer, Streaming) and answer.media_type == SSE
    reader, out = SseReader(), []
    async for chunk in answer.chunks:
        for line in chunk.split(b"\n"):
            item = reader.feed(line)
            if item is not None:
                out.append((str(item.cursor) if item.cursor else None, item.event.to_json()))
    return out


@pytest.fixture
async def routes() -> AsyncIterator[Any]:
    async with trio.open_nursery() as nursery:

        def make(script: Script, error: Exception | None = None) -> tuple[ControlAPI, _Goals]:
            api = ControlAPI()
            goals = _Goals(nursery, script, error)
            add_goal_routes(SimpleNamespace(control=api), goals)  # type: ignore[arg-type]
            return api, goals

        yield make
        nursery.cancel_scope.cancel()


LAUNCH_BODY = {"goal": "Calculate 6 * 7", "stream": True}
SSE_HEADERS = {"accept": "text/event-stream"}


def _launch(api: ControlAPI, headers: dict[str, str] | None = None) -> Any:
    return api.routes[("POST", "/launch_goal")](ControlRequest("POST", "/", {}, LAUNCH_BODY, headers or {}))


def _events(api: ControlAPI, query: dict[str, str], headers: dict[str, str] | None = None) -> Any:
    return api.routes[("GET", "/goal_events")](
        ControlRequest("GET", "/goal_events", query, None, headers or {})
    )


def _launch_events() -> list[GoalEvent]:
    return [e for e in sample_events() if not isinstance(e, HeartbeatEvent | DoneEvent | ErrorEvent | GapEvent
                                                         | ResetEvent)]  # fmt: skip


async def test_the_launch_stream_is_the_events_json_then_done(routes: Any, autojump_clock: Any) -> None:
    events = _launch_events()
    api, _ = routes([*events[:3], 25.0, *events[3:]])  # 25 s of silence: two heartbeats
    streamed = await _stream(await _launch(api))
    for item in streamed:
        check_shape(item)
    beats = [i for i, item in enumerate(streamed) if item == {"event": "heartbeat"}]
    assert beats == [3, 4]
    others = [item for item in streamed if item["event"] != "heartbeat"]
    assert others == [event_to_json(e) for e in events] + [{"event": "done", "result": _result().to_json()}]


async def test_the_launch_stream_as_server_sent_events_numbers_every_event(
    routes: Any, autojump_clock: Any
) -> None:
    """The same JSON as data, each logged event with its cursor ``<epoch>.<seq>`` (1, 2, ...); a
    heartbeat is an SSE comment (no data, no id)."""
    events = _launch_events()
    api, _ = routes([*events[:2], 11.0, *events[2:]])
    streamed = await _sse(await _launch(api, SSE_HEADERS))
    assert [data for _, data in streamed if data["event"] == "heartbeat"] == [{"event": "heartbeat"}]
    logged = [(cursor, data) for cursor, data in streamed if data["event"] != "heartbeat"]
    assert [data for _, data in logged] == [e.to_json() for e in events] + [
        {"event": "done", "result": _result().to_json()}
    ]
    cursors = [Cursor.parse(c or "") for c, _ in logged]
    assert [c.seq for c in cursors] == list(range(1, len(logged) + 1))
    assert len({c.epoch for c in cursors}) == 1 and cursors[0].epoch


@pytest.mark.parametrize("how", ["after", "last-event-id"])
async def test_a_launch_stream_resumes_after_a_cursor_without_missing_or_repeating(
    routes: Any, autojump_clock: Any, how: str
) -> None:
    events = _launch_events()
    api, _ = routes([*events[:4], 5.0, *events[4:]])
    answer = await _launch(api, SSE_HEADERS)
    first: list[tuple[str | None, dict[str, Any]]] = []
    async for chunk in answer.chunks:  # the client reads 3 events, then its connection drops
        reader = SseReader()
        for line in chunk.split(b"\n"):
            item = reader.feed(line)
            if item is not None:
                first.append((str(item.cursor), item.event.to_json()))
        if len(first) == 3:
            break
    await answer.chunks.aclose()
    cursor = first[-1][0]
    assert cursor is not None
    query, headers = ({"launch": LAUNCH, "after": cursor}, {}) if how == "after" else (
        {"launch": LAUNCH}, {"last-event-id": cursor, **SSE_HEADERS})  # fmt: skip
    rest = await _sse(await _events(api, query, headers))
    seen = [data for _, data in first + rest]
    assert seen == [e.to_json() for e in events] + [{"event": "done", "result": _result().to_json()}]
    again = await _sse(await _events(api, {"launch": LAUNCH, "after": rest[-1][0] or ""}))
    assert again == []  # after the last event of a finished launch: nothing, and the stream ends


async def test_a_cursor_of_another_log_is_a_reset_and_an_old_one_a_gap(routes: Any) -> None:
    events = _launch_events()
    api, goals = routes(events)
    goals.capacity = 5  # the log keeps the last 5 events
    streamed = await _sse(await _launch(api, SSE_HEADERS))
    total = len(events) + 1
    if streamed[0][0] is None:  # the launch ran ahead of its first reader: it too was told of a gap
        assert streamed[0][1] == {"event": "gap", "missed": total - 5}
    epoch = Cursor.parse(streamed[-1][0] or "").epoch
    reset = await _sse(await _events(api, {"launch": LAUNCH, "after": "ffff.2"}))
    assert reset[0] == (None, {"event": "reset", "epoch": epoch})
    assert reset[1] == (None, {"event": "gap", "missed": total - 5})  # from the start: only 5 are held
    assert [c for c, _ in reset[2:]] == [f"{epoch}.{n}" for n in range(total - 4, total + 1)]
    gap = await _sse(await _events(api, {"launch": LAUNCH, "after": f"{epoch}.1"}))
    assert gap[0] == (None, {"event": "gap", "missed": total - 5 - 1})
    assert len(gap) == 6


async def test_bad_cursors_and_unknown_launches_are_errors_before_a_stream(routes: Any) -> None:
    api, _ = routes(_launch_events())
    await _sse(await _launch(api, SSE_HEADERS))
    for query, error in (
        ({"launch": LAUNCH, "after": "not a cursor"}, InvalidField),
        ({"launch": LAUNCH, "after": "999999"}, InvalidField),  # past the last event
        ({"launch": "nope"}, UsageError),
        ({"launch": LAUNCH, "chat": CHAT}, InvalidField),
        ({}, InvalidField),
        ({"launch": LAUNCH, "colour": "red"}, InvalidField),
    ):
        with pytest.raises(error):
            await _events(api, query)


async def test_a_failed_launch_streams_its_error(routes: Any) -> None:
    api, _ = routes([SearchingEvent("g", "l1")], IoATimeout("late"))
    with trio.fail_after(10):
        streamed = await _stream(await _launch(api))
    assert streamed == [
        {"event": "searching", "goal": "g", "launch_id": "l1"},
        {"event": "error", "error": {"type": "IoATimeout", "message": "late", "exit_code": 4}},
    ]


def _events_of(round_id: str, after: str | None = None) -> ControlRequest:
    query = {"chat": CHAT, "round": round_id, **({"after": after} if after else {})}
    return ControlRequest("GET", "/goal_events", query, None)


async def test_goal_events_replays_a_chats_events_until_its_round_ends(routes: Any) -> None:
    api, goals = routes([])
    deps = DriverDeps(goals.node, goals.chats, None, None, None)  # type: ignore[arg-type] # emits only
    driver = ChatDriver(deps, bytes.fromhex(CHAT))
    goals.drivers[driver.chat_id] = driver
    chat_events = [e for e in sample_events() if getattr(e, "chat_id", None) == CHAT]
    for event in chat_events:
        driver.emit(event)
    follow = api.routes[("GET", "/goal_events")]
    with trio.fail_after(10):
        streamed = await _stream(await follow(_events_of("r2")))
    assert streamed == [event_to_json(e) for e in chat_events]  # ends with round r2's aborted event
    with trio.fail_after(10):
        streamed = await _stream(await follow(_events_of("r1")))
    assert streamed[-1]["event"] == "concluded" and len(streamed) < len(chat_events)
    cursor = f"{driver.log.epoch}.{driver.log.last_seq}"
    with trio.fail_after(10):  # resumed after the round's end event: nothing more, and the stream ends
        assert await _sse(await follow(_events_of("r2", cursor))) == []
    with trio.fail_after(10):  # resumed before it: the rest, up to it
        rest = await _sse(await follow(_events_of("r2", f"{driver.log.epoch}.{driver.log.last_seq - 2}")))
    assert [data for _, data in rest] == [event_to_json(e) for e in chat_events[-2:]]


async def test_a_bug_in_a_goal_streams_an_internal_error_and_still_reaches_the_fault_boundary(
    routes: Any,
) -> None:
    api, goals = routes([SearchingEvent("g", "l1")], ValueError("zip() argument 2 is longer"))
    with trio.fail_after(10):
        streamed = await _stream(await _launch(api))
    assert streamed[0] == {"event": "searching", "goal": "g", "launch_id": "l1"}
    error = streamed[-1]["error"]
    assert streamed[-1]["event"] == "error" and error["type"] == "InternalError" and error["exit_code"] == 1
    assert "ValueError" in error["message"] and "zip()" not in error["message"]  # no internals leak
    assert len(goals.caught) == 1
