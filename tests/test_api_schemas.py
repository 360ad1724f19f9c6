"""Every schema of the control API (``ioa_p2p.api``) reads its JSON and writes the same bytes back, and
refuses wrong input with an ``InvalidField`` naming the field: a wrong type, a missing key, an unknown key
(requests), a value out of its range. The routes are registered only in each service's ``routes`` module.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest

from ioa_p2p.api.chats import CreateChatRequest, PostRequest
from ioa_p2p.api.codec import ApiObject, fields_of, from_query, is_json_value, to_query
from ioa_p2p.api.discovery import CardUpdate, FindRequest
from ioa_p2p.api.events import EVENT_TYPES
from ioa_p2p.api.goals import CancelGoalRequest, GoalEventsRequest
from ioa_p2p.api.launch import LaunchLimits, LaunchRequest, SubTeamOf
from ioa_p2p.api.peers import RelayConnectRequest, SendRequest
from ioa_p2p.api.stream import Cursor, SseReader, sse_frame
from ioa_p2p.dht.settings import LIST_FIELDS
from ioa_p2p.errors import InvalidField
from tests.test_control_api_doc import schemas

from .vectors import PEER_ID

ROOT = Path(__file__).resolve().parents[1]
#: Valid values of fields with rules beyond their type (peer IDs, texts that must not be blank...).
VALID: dict[str, Any] = {
    "peer": PEER_ID, "relay": PEER_ID, "members": [PEER_ID], "text": "translate", "goal": "g",
    "k": 5, "invite_timeout": 10.0, "chat": "ab12", "after": None,
}  # fmt: skip
#: Values for a schema's fields whose rules span fields.
OVERRIDES: dict[type, dict[str, Any]] = {GoalEventsRequest: {"launch": None}}
#: Schemas whose JSON is not their fields one to one (tested by hand below).
CUSTOM = {LaunchRequest}


def sample(hint: object, key: str = "") -> Any:
    """A valid JSON value of ``hint`` (see VALID for texts with rules)."""
    text = hint in (str, str | None, tuple[str, ...], tuple[str, ...] | None)
    if key in VALID and text:
        return VALID[key]
    if is_json_value(hint):
        return {"a": [1, "b", None, {"c": 2.5}]}
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return sample(next(a for a in get_args(hint) if a is not type(None)), key)
    if origin is Literal:
        return get_args(hint)[0]
    if origin is tuple:
        return [sample(get_args(hint)[0]), sample(get_args(hint)[0])]
    if origin in (dict, Mapping):
        return {"one": sample(get_args(hint)[1]), "two": sample(get_args(hint)[1])}
    if isinstance(hint, type) and issubclass(hint, ApiObject):
        fields = {spec.key: sample(spec.hint, spec.key) for spec in fields_of(hint)}
        return {**fields, **OVERRIDES.get(hint, {})}
    return {str: "text", int: 7, float: 2.5, bool: True}[hint]  # type: ignore[index]


def wrong(hint: object) -> Any:
    """A JSON value that is not of type ``hint``."""
    origin = get_origin(hint)
    base = next((a for a in get_args(hint) if a is not type(None)), hint) if origin else hint
    if get_origin(base) is tuple or get_origin(base) in (dict, Mapping) or isinstance(base, type):
        return "not that" if base is not str else 12
    return 3.5


ALL = [s for s in schemas() if s not in CUSTOM] + list(EVENT_TYPES)


@pytest.mark.parametrize("schema", ALL, ids=lambda s: s.__name__)
def test_every_schema_reads_its_json_and_writes_the_same_bytes(schema: type[ApiObject]) -> None:
    data = sample(schema)
    if getattr(schema, "event", ""):
        data = {"event": schema.event, **data}
    wire = json.dumps(data)
    decoded = schema.from_json(json.loads(wire))
    again = decoded.to_json()
    if getattr(schema, "event", ""):  # chat_id first, then event, then the fields
        assert list(again)[: 2 if "chat_id" in again else 1] == (["chat_id", "event"] if "chat_id" in again
                                                                   else ["event"])  # fmt: skip
        assert again == json.loads(wire)
    else:
        assert json.dumps(again) == wire
    assert type(schema.from_json(again)) is schema


@pytest.mark.parametrize("schema", ALL, ids=lambda s: s.__name__)
def test_every_field_of_every_schema_refuses_a_wrong_type_and_its_absence(schema: type[ApiObject]) -> None:
    good = sample(schema)
    if getattr(schema, "event", ""):
        good = {"event": schema.event, **good}
    for spec in fields_of(schema):
        if is_json_value(spec.hint):
            continue  # any JSON
        bad = {**good, spec.key: wrong(spec.hint)}
        with pytest.raises(InvalidField) as caught:
            schema.from_json(bad)
        assert caught.value.path.split("[")[0].split(".")[0] == spec.key, (spec.key, caught.value)
        if spec.required:
            with pytest.raises(InvalidField, match=f"^{re.escape(spec.key)}: is missing"):
                schema.from_json({k: v for k, v in good.items() if k != spec.key})
    with pytest.raises(InvalidField):
        schema.from_json([good])  # not an object


@pytest.mark.parametrize("schema", [s for s in ALL if s.STRICT], ids=lambda s: s.__name__)
def test_requests_refuse_unknown_fields_and_replies_ignore_them(schema: type[ApiObject]) -> None:
    with pytest.raises(InvalidField, match=r"^body: unknown fields \['colour'\]"):
        schema.from_json({**sample(schema), "colour": "red"})


def test_replies_ignore_unknown_fields() -> None:
    reply = [s for s in ALL if not s.STRICT][0]
    assert reply.from_json({**sample(reply), "added_by_a_newer_node": 1}).to_json() == sample(reply)


def test_query_strings_are_read_as_the_field_types() -> None:
    request = from_query(FindRequest, {"text": "plot", "k": "3", "dht": "false"})
    assert request == FindRequest("plot", 3, False)
    assert from_query(FindRequest, to_query(request)) == request
    for query, field in (({"text": "x", "k": "three"}, "k"), ({"text": "x", "dht": "maybe"}, "dht")):
        with pytest.raises(InvalidField, match=f"^{field}:"):
            from_query(FindRequest, query)


# --------------------------------------------------------------------------- the rules of requests


def test_a_launch_request_reads_ioa_shape_and_writes_it_back() -> None:
    request = LaunchRequest.from_json(
        {"goal": "plot revenue", "team_member_names": ["plotter", "12D3KooWabc"], "team_up_depth": 2,
         "max_turns": 12, "skip_naming": True, "is_collaborative_planning_enabled": False, "obs_kwargs": {},
         "timeout": 60, "speaker_timeout": 5, "task_timeout": 30.5, "max_team": 3}
    )  # fmt: skip
    assert request == LaunchRequest("plot revenue", ("plotter", "12D3KooWabc"), 2, 12, 60, 5, 30.5, 3)
    assert LaunchRequest.from_json(request.to_json()) == request
    cont = LaunchRequest.from_json({"comm_id": "abcd", "cont_input": {"content": "and now?", "sender": "x"}})
    assert cont.chat == "abcd" and cont.goal == "and now?"
    assert cont.to_json() == {"goal": "and now?", "comm_id": "abcd", "cont_input": "and now?"}
    listed = LaunchRequest.from_json({"goal": "g", "team": "a, b,"})
    assert listed.team == ("a", "b")
    assert LaunchRequest.from_json({"goal": "g", "team": []}).team is None  # no names: discover
    assert LaunchRequest.from_json({"goal": "g", "depth": 0}).depth == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (None, "body"),
        (["goal"], "body"),
        ({"goal": "g", "colour": "red"}, "body"),
        ({"goal": 3}, "goal"),
        ({"goal": " "}, "goal"),
        ({"goal": "g" * 8001}, "goal"),
        ({"goal": "g", "team_member_names": [1]}, "team[0]"),
        ({"goal": "g", "team": ["x" * 129]}, "team"),
        ({"goal": "g", "team": ["p"] * 256}, "team"),
        ({"goal": "g", "team_up_depth": True}, "depth"),
        ({"goal": "g", "depth": 9}, "depth"),
        ({"goal": "g", "depth": -1}, "depth"),
        ({"goal": "g", "max_turns": 2.5}, "max_turns"),
        ({"goal": "g", "max_turns": 0}, "max_turns"),
        ({"goal": "g", "timeout": "soon"}, "timeout"),
        ({"goal": "g", "timeout": 0.5}, "timeout"),
        ({"goal": "g", "speaker_timeout": 86401}, "speaker_timeout"),
        ({"goal": "g", "task_timeout": 0}, "task_timeout"),
        ({"goal": "g", "max_team": 0}, "max_team"),
        ({"goal": "g", "max_team": 256}, "max_team"),
        ({"comm_id": "ab", "cont_input": 5}, "cont_input"),
        ({"goal": "g", "cont_input": "more"}, "cont_input"),
        ({"comm_id": 7, "cont_input": "more"}, "comm_id"),
        ({"comm_id": "not hex", "cont_input": "more"}, "chat"),
    ],
)
def test_a_launch_request_refuses_what_cannot_work(body: Any, field: str) -> None:
    with pytest.raises(InvalidField) as caught:
        LaunchRequest.from_json(body)
    assert caught.value.path == field, caught.value


def test_a_launch_takes_the_node_defaults_for_the_limits_it_does_not_give() -> None:
    defaults = LaunchLimits(depth=1, max_turns=20, timeout=300.0, speaker_timeout=30.0, task_timeout=None,
                            max_team=4)  # fmt: skip
    assert LaunchRequest("g").limits(defaults) == defaults
    given = LaunchRequest(
        "g", depth=0, max_turns=5, timeout=60, speaker_timeout=5, task_timeout=10, max_team=2
    )
    assert given.limits(defaults) == LaunchLimits(0, 5, 60, 5, 10, 2)
    sub = LaunchRequest("g", parent=SubTeamOf(b"\x01" * 32, "t#0", ("p",)))
    assert "parent" not in json.dumps(sub.to_json()) and sub.parent is not None


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: SendRequest("not a peer", "hi"), "peer"),
        (lambda: RelayConnectRequest(), "peer"),
        (lambda: RelayConnectRequest(peer=PEER_ID, relay="x"), "relay"),
        (lambda: CreateChatRequest(("x",), "t"), "members[0]"),
        (lambda: CreateChatRequest((PEER_ID,), "t", invite_timeout=0), "invite_timeout"),
        (lambda: CreateChatRequest((PEER_ID,) * 256, "t"), "members"),
        (lambda: PostRequest("ab"), "text"),
        (lambda: FindRequest(" "), "text"),
        (lambda: FindRequest("x", 101), "k"),
        (lambda: CancelGoalRequest(), "body"),
        (lambda: GoalEventsRequest(), "chat"),
        (lambda: GoalEventsRequest(chat="ab", launch="l"), "chat"),
        (lambda: GoalEventsRequest(launch="l", round="r"), "round"),
    ],
)
def test_requests_check_their_rules_when_built(make: Any, field: str) -> None:
    with pytest.raises(InvalidField) as caught:
        make()
    assert caught.value.path == field, caught.value


def test_the_card_update_has_every_list_field_of_the_agent_settings() -> None:
    names = {spec.key for spec in fields_of(CardUpdate)}
    assert set(LIST_FIELDS) <= names and names - set(LIST_FIELDS) == {"name", "description", "adapter"}
    assert CardUpdate(skills=("a",), name="n").changes() == {"name": "n", "skills": ["a"]}


# --------------------------------------------------------------------------- cursors and SSE


def test_cursors_parse_and_print_and_refuse_garbage() -> None:
    assert (
        Cursor.parse("0123abcd.42") == Cursor("0123abcd", 42) and str(Cursor("0123abcd", 42)) == "0123abcd.42"
    )
    assert Cursor.parse("7") == Cursor("", 7)
    for text in ("", "x.1", "ab.", "ab.-1", "ab.1e3", "AB.1", "ab." + "9" * 19, "a" * 33 + ".1"):
        with pytest.raises(InvalidField):
            Cursor.parse(text)


def test_server_sent_events_read_back_frame_by_frame() -> None:
    from ioa_p2p.api.events import GapEvent, HeartbeatEvent, SearchingEvent

    frames = (
        sse_frame(SearchingEvent("g", "l1"), Cursor("ab", 1)) + b": heartbeat\n\n" + sse_frame(GapEvent(2))
    )
    reader, items = SseReader(), []
    for line in frames.split(b"\n"):
        item = reader.feed(line + b"\n")
        if item is not None:
            items.append(item)
    assert [(i.cursor, i.event) for i in items] == [
        (Cursor("ab", 1), SearchingEvent("g", "l1")),
        (None, HeartbeatEvent()),
        (None, GapEvent(2)),
    ]


# --------------------------------------------------------------------------- where routes are registered


def test_routes_are_registered_only_in_the_routes_modules() -> None:
    """``add_route`` only in a service's ``routes.py``; ``add_raw_route`` nowhere in the product."""
    found = []
    for folder in ("ioa_p2p", "node", "dht", "adapters", "bootstrap"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "node" / "control" / "server.py":  # where both are defined
                continue
            text = path.read_text(encoding="utf-8")
            for name in re.findall(r"\.(add_route|add_raw_route)\(", text):
                found.append((path.relative_to(ROOT).as_posix(), name))
    assert found, "no route registration found: the check is looking in the wrong place"
    wrong = [(p, n) for p, n in found if n == "add_raw_route" or not p.endswith("/routes.py")]
    assert not wrong, f"routes registered outside a routes module: {wrong}"
