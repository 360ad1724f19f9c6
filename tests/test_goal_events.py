"""Goal events: typed inside the node, JSON only at the control API, in the documented shapes.

Every event type becomes, through ``to_json``, the JSON docs/protocol.md §7.4 documents (keys and their
order: ``json.dumps`` keeps it, so clients see the same bytes as before events were typed), and reads
back with ``decode_event``; the control
routes (``POST /launch_goal`` with ``stream``, ``GET /goal_events``) stream exactly that JSON, a
heartbeat after 10 s of silence, and ``done`` / ``error`` at the end.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from ioa_p2p.api.events import (
    AbortedEvent,
    ConcludedEvent,
    DoneEvent,
    ErrorEvent,
    GapEvent,
    GoalEvent,
    HeartbeatEvent,
    MemberLeftEvent,
    RejectedEvent,
    ResetEvent,
    SearchingEvent,
    StreamError,
    TeamEvent,
    TeamFallbackEvent,
    decode_event,
)
from ioa_p2p.api.goals import GoalResult, Teammate, goal_result
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.stream import NDJSON, SSE, Cursor, SseReader
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, TaskProgress, Turn
from ioa_p2p.conversation.plan import PlanBoard, PlanUpdate, RoundCancel, SharedStep
from ioa_p2p.errors import InvalidField, IoATimeout, UsageError
from ioa_p2p.history.bodies import make_message
from ioa_p2p.identity import Identity
from ioa_p2p.node.control.server import ControlAPI, ControlRequest, Streaming
from ioa_p2p.node.goals.describe import describe_message, describe_start
from ioa_p2p.node.goals.driver import ChatDriver, DriverDeps
from ioa_p2p.node.goals.eventlog import EventLog
from ioa_p2p.node.goals.launches import LaunchLogs, run_logged
from ioa_p2p.node.goals.routes import add_goal_routes
from ioa_p2p.node.goals.turns import side_message
from tests.goal_event_shapes import SHAPES, check_shape

ALICE, BOB = Identity(bytes([1]) * 32), Identity(bytes([2]) * 32)
A, B = str(ALICE.peer_id), str(BOB.peer_id)
NAMES = {A: "alice", B: "bob"}
CHAT = "ab" * 32
DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


def _env(who: Identity, kind: str, content: dict[str, Any]) -> Any:
    return make_message(who, b"\x01" * 32, [b"\x02" * 32], kind, content, seq=1, now_ms=1_000)


def _result() -> GoalResult:
    me = Teammate(A, "alice", 1.0)
    return goal_result(
        goal="g", chat_id=CHAT, round_id="r1", status="concluded", conclusion="42", forced=False, team=(me,),
        declined=(), unanswered=(), tasks=(), turns=2, messages=5, size=900, brain="offline", depth=1,
        parent_chat="", parent_task="", timings={}, origins={}, fallbacks={}, team_fallback="", plan=(),
    )  # fmt: skip


def event_to_json(event: GoalEvent) -> dict[str, Any]:
    return event.to_json()


def sample_events() -> list[GoalEvent]:
    """One event of every type (and both shapes of the kinds that have two), built as the node builds them."""
    start = ConvStart.create("goal", initiator=A, members=[B], now=0.0, parent_chat="pc", parent_task="pt")
    turn = Turn(cm.TASK_SYNC, "r1", 0, "do it", tasks=(TaskAssignment(B, "step 1/1", "6*7"),))
    turn_env = _env(ALICE, cm.TASK_SYNC, turn.to_content())
    task = f"{turn_env.hash.hex()}#0"
    failed = TaskOutcome(task, False, "boom", None, {"b": b"1", "a": b"2"}, "crash")
    messages = [
        turn_env,
        _env(BOB, cm.PROGRESS, TaskProgress(task, "half", 0.5).to_content()),
        _env(BOB, cm.RESULT, failed.to_content()),
        _env(BOB, cm.DISCUSSION, {"text": "no fields"}),
        _env(BOB, cm.START, start.to_content()),  # a conv.* message of no other kind: "message"
    ]
    board = SimpleNamespace(round_id="r1", start=ConvStart.create("g", initiator=A, members=[A, B], now=0.0))
    board.plans = PlanBoard.empty()
    rounds = {"r1": board}
    sides = [
        ("conv.cancel", RoundCancel("r1", "enough").to_content(), B),  # rejected: not the initiator
        ("conv.cancel", RoundCancel("r1", "enough").to_content(), A),  # cancelled
        ("conv.plan", {"round": "r1"}, A),  # invalid (no round known)
        ("conv.plan", PlanUpdate("r1", 1, (SharedStep("multiply", B, "todo"),)).to_content(), B),
    ]
    side_events = [
        side_message(kind, content, "m1", who, rounds, NAMES.__getitem__, chat_id=CHAT)[1]
        for kind, content, who in sides
    ]
    team = (Teammate(B, "bob", 0.123456),)
    return [
        SearchingEvent("goal", "l1"),
        TeamFallbackEvent("timeout"),
        TeamEvent(CHAT, "goal", team, (), team, {"discovery_s": 0.5}, "", "l1"),
        describe_start(CHAT, start, "r1", NAMES.__getitem__),
        *(describe_message(CHAT, env, "r1", NAMES.__getitem__) for env in messages),
        *(e for e in side_events if e is not None),
        RejectedEvent(CHAT, "r1", "m2", B, "not the floor holder"),
        MemberLeftEvent(CHAT, B, "bob"),
        ConcludedEvent(CHAT, "r1", "42", False, A, "alice"),
        AbortedEvent(CHAT, "r1", "Aborted: cancelled.", reason="cancelled"),
        AbortedEvent(CHAT, "r2", "Aborted."),
        HeartbeatEvent(),
        DoneEvent(_result()),
        ErrorEvent(StreamError("GoalAborted", "no team", 4)),
        GapEvent(3),
        ResetEvent("0123456789abcdef"),
    ]


def test_every_event_type_has_a_sample() -> None:
    types_in_union = set(typing.get_args(GoalEvent))
    assert {type(e) for e in sample_events()} == types_in_union


@pytest.mark.parametrize("event", sample_events(), ids=lambda e: type(e).__name__)
def test_every_event_becomes_its_documented_json(event: GoalEvent) -> None:
    data = event_to_json(event)
    check_shape(data)
    assert data["event"] == event.event
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing typed left in it


@pytest.mark.parametrize("event", sample_events(), ids=lambda e: type(e).__name__)
def test_every_event_reads_back_from_its_json(event: GoalEvent) -> None:
    """``decode_event`` gives the same type (of the two shapes of a kind: the right one) and writing it
    again gives the same bytes."""
    wire = json.dumps(event.to_json())
    decoded = decode_event(json.loads(wire))
    assert type(decoded) is type(event)
    assert json.dumps(decoded.to_json()) == wire


def test_the_json_values_are_those_the_wire_carried() -> None:
    """The values (and key order) of the events built inline by the driver and the service, byte for byte."""
    by_type = {type(e).__name__: e for e in sample_events()}
    team = {"peer_id": B, "name": "bob", "score": 0.1235}
    expected = {
        "SearchingEvent": {"event": "searching", "goal": "goal", "launch_id": "l1"},
        "TeamFallbackEvent": {"event": "team_fallback", "reason": "timeout"},
        "TeamEvent": {"chat_id": CHAT, "event": "team", "goal": "goal", "team": [team], "declined": [],
                      "unanswered": [team], "timings": {"discovery_s": 0.5}, "team_fallback": "",
                      "launch_id": "l1"},
        "RejectedEvent": {"chat_id": CHAT, "event": "rejected", "round_id": "r1", "msg_id": "m2", "author": B,
                          "reason": "not the floor holder"},
        "MemberLeftEvent": {"chat_id": CHAT, "event": "member_left", "member": B, "name": "bob"},
        "ConcludedEvent": {"chat_id": CHAT, "event": "concluded", "round_id": "r1", "text": "42",
                           "forced": False, "author": A, "author_name": "alice"},
        "HeartbeatEvent": {"event": "heartbeat"},
        "DoneEvent": {"event": "done", "result": _result().to_json()},
        "ErrorEvent": {"event": "error",
                       "error": {"type": "GoalAborted", "message": "no team", "exit_code": 4}},
    }  # fmt: skip
    for name, data in expected.items():
        assert json.dumps(event_to_json(by_type[name])) == json.dumps(data), name
    aborted = [event_to_json(e) for e in sample_events() if isinstance(e, AbortedEvent)]
    ended = {"forced": False, "author": "", "author_name": ""}
    assert aborted == [
        {"chat_id": CHAT, "event": "aborted", "round_id": "r1", "text": "Aborted: cancelled.", **ended,
         "reason": "cancelled"},
        {"chat_id": CHAT, "event": "aborted", "round_id": "r2", "text": "Aborted.", **ended},  # no reason
    ]  # fmt: skip


def test_message_events_carry_the_message_and_the_names() -> None:
    events = [event_to_json(e) for e in sample_events()]
    turn = next(e for e in events if e["event"] == "turn")
    assert turn["type"] == "sync_task" and turn["author_name"] == "alice" and turn["round_id"] == "r1"
    assert turn["tasks"] == [
        {"task_id": f"{turn['msg_id']}#0", "assignee": B, "assignee_name": "bob", "title": "step 1/1",
         "description": "6*7"}
    ]  # fmt: skip
    assert turn["next"] == [] and turn["origin"] == "model" and turn["fallback"] == ""
    result = next(e for e in events if e["event"] == "result")
    assert result["files"] == ["a", "b"] and result["failure"] == "crash" and result["ok"] is False
    start = next(e for e in events if e["event"] == "start")
    assert start["members"] == [{"peer_id": A, "name": "alice"}, {"peer_id": B, "name": "bob"}]
    assert (start["parent_chat"], start["parent_task"], start["deadline_ms"]) == ("pc", "pt", 600_000)
    plan = next(e for e in events if e["event"] == "plan")
    assert plan["steps"] == [{"title": "multiply", "owner": B, "status": "todo", "owner_name": "bob"}]
    invalid = [e for e in events if e["event"] == "invalid"]
    assert [list(e) for e in invalid] == SHAPES["invalid"]


def test_docs_list_every_field_of_every_event() -> None:
    """docs/protocol.md §7.4: a row per kind naming its fields; every key of the JSON is named there."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### 7.4 Events") : text.index("### 7.5")]
    rows = {}
    for line in section.splitlines():
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip().startswith("`"):
            for kind in re.findall(r"`([a-z_]+)`", cells[1]):
                rows[kind] = set(re.findall(r"`([a-z_]+)`", cells[2]))
    common = {"chat_id", "event", "round_id", "msg_id", "author", "author_name", "kind"}
    for event in sample_events():
        data = event_to_json(event)
        assert data["event"] in rows, f"docs/protocol.md §7.4 has no row for {data['event']!r}"
        missing = set(data) - common - rows[data["event"]]
        assert not missing, f"{data['event']}: {sorted(missing)} not documented"


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
