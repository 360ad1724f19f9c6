"""The JSON shapes of goal events at the control API (docs/protocol.md §7.4), key order included.

Written out by hand, independently of ``ioa_p2p.api.events``: the JSON a client of ``POST
/launch_goal`` (``stream``) and ``GET /goal_events`` reads, which ``ioa goal`` parses.
"""

from __future__ import annotations

from typing import Any

_MESSAGE = ["chat_id", "event", "round_id", "msg_id", "author", "author_name", "kind"]
_ENDED = ["chat_id", "event", "round_id", "text", "forced", "author", "author_name"]

#: Every event kind -> the key lists its JSON may have (in order).
SHAPES: dict[str, list[list[str]]] = {
    "searching": [["event", "goal", "launch_id"]],
    "team_fallback": [["event", "reason"]],
    "team": [
        ["chat_id", "event", "goal", "team", "declined", "unanswered", "timings", "team_fallback"]
        + ["launch_id"]
    ],
    "start": [
        [
            "chat_id",
            "event",
            "round_id",
            "goal",
            "initiator",
            "initiator_name",
            "members",
            "deadline_ms",
            "max_turns",
            "depth",
            "parent_chat",
            "parent_task",
        ]
    ],
    "turn": [
        _MESSAGE
        + ["type", "height", "level", "reason", "text", "next", "tasks", "triggers", "fail_tasks", "forced"]
        + ["origin", "fallback"]
    ],
    "progress": [_MESSAGE + ["task_id", "text", "fraction"]],
    "result": [_MESSAGE + ["task_id", "ok", "text", "failure", "files"]],
    "message": [_MESSAGE],
    "invalid": [_MESSAGE + ["reason"], ["chat_id", "event", "msg_id", "author", "reason"]],
    "plan": [["chat_id", "event", "round_id", "msg_id", "author", "author_name", "version", "steps"]],
    "cancelled": [["chat_id", "event", "round_id", "msg_id", "author", "author_name", "reason"]],
    "rejected": [
        ["chat_id", "event", "round_id", "msg_id", "author", "reason"],
        ["chat_id", "event", "round_id", "msg_id", "author", "author_name", "reason"],
    ],
    "member_left": [["chat_id", "event", "member", "name"]],
    "concluded": [_ENDED],
    "aborted": [_ENDED + ["reason"], _ENDED],
    "heartbeat": [["event"]],
    "done": [["event", "result"]],
    "error": [["event", "error"]],
    "gap": [["event", "missed"]],
    "reset": [["event", "epoch"]],
}

#: The keys of the objects inside events: (kind, key) -> keys of each item.
NESTED: dict[tuple[str, str], list[str]] = {
    ("team", "team"): ["peer_id", "name", "score"],
    ("team", "declined"): ["peer_id", "name", "score"],
    ("team", "unanswered"): ["peer_id", "name", "score"],
    ("start", "members"): ["peer_id", "name"],
    ("turn", "tasks"): ["task_id", "assignee", "assignee_name", "title", "description"],
    ("plan", "steps"): ["title", "owner", "status", "owner_name"],
}


def check_shape(event: dict[str, Any]) -> None:
    """Fail unless ``event`` has exactly one of the documented shapes of its kind (and its items theirs)."""
    kind = event.get("event")
    assert kind in SHAPES, f"undocumented event kind {kind!r}: {event}"
    assert list(event) in SHAPES[kind], f"{kind}: keys {list(event)} are none of {SHAPES[kind]}"
    for (where, key), keys in NESTED.items():
        if where == kind:
            for item in event[key]:
                assert list(item) == keys, f"{kind}.{key}: keys {list(item)}, documented {keys}"
    if kind == "error":
        assert list(event["error"]) == ["type", "message", "exit_code"]
