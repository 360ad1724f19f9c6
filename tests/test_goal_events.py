"""Goal events: typed inside the node, JSON only at the control API, in the documented shapes.

Every event type becomes, through ``to_json``, the JSON docs/protocol.md §7.4 documents (keys and their
order: ``json.dumps`` keeps it, so clients see the same bytes as before events were typed), and reads
back with ``decode_event``. The control routes that stream them: tests/test_goal_event_routes.py.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

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
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, TaskProgress, Turn
from ioa_p2p.conversation.plan import PlanBoard, PlanUpdate, RoundCancel, SharedStep
from ioa_p2p.history.bodies import make_message
from ioa_p2p.identity import Identity
from ioa_p2p.node.goals.describe import describe_message, describe_start
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
