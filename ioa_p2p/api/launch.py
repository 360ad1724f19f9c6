"""Launching a goal (pure): the limits of a launch, written once, and :class:`LaunchRequest`.

A :class:`LaunchRequest` is checked once, when it is built (by the CLI from its options, by ``POST
/launch_goal`` from JSON with :meth:`LaunchRequest.from_json`, by a task that forms a sub-team, by a Python
caller): a wrong value is an :class:`~ioa_p2p.errors.InvalidField` naming the field. The goals service
takes it as it is. ``None`` fields take the node's ``[goals]`` defaults (:meth:`LaunchRequest.or_defaults`),
whose bounds are these same limits. :data:`GOAL_GRACE` is how long a launch may take beyond its timeout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from ioa_p2p.api.codec import ApiObject, JsonObject, JsonValue, decode_object
from ioa_p2p.conversation.messages import MAX_GOAL
from ioa_p2p.errors import InvalidField
from ioa_p2p.history.bodies import MAX_MEMBERS


@dataclass(frozen=True, slots=True)
class Bounds:
    """A closed range of a launch setting."""

    low: float
    high: float
    integer: bool

    def check(self, path: str, value: object) -> None:
        kind = int if self.integer else int | float
        if isinstance(value, bool) or not isinstance(value, kind) or not self.low <= value <= self.high:
            what = "an integer" if self.integer else "a number of seconds"
            raise InvalidField(path, f"must be {what} between {self.text()}, not {value!r}")

    def clamp(self, value: float) -> float:
        """``value`` brought within the range (a limit taken from a peer's message)."""
        return min(self.high, max(self.low, value))

    def text(self) -> str:
        low, high = (int(self.low), int(self.high)) if self.integer else (self.low, self.high)
        return f"{low:g} and {high:g}" if not self.integer else f"{low} and {high}"


#: The limits of a launch (``[goals]`` defaults are bounded by the same).
DEPTH = Bounds(0, 8, integer=True)
MAX_TURNS = Bounds(1, 1000, integer=True)
SECONDS = Bounds(1, 86_400, integer=False)  # timeout, speaker_timeout, task_timeout
MAX_TEAM = Bounds(1, MAX_MEMBERS - 1, integer=True)
#: Seconds a launch may take beyond its ``timeout`` (every member ends the round by itself at the deadline;
#: this covers delivering the last messages and the wrap-up). docs/goals.md, section 1.
GOAL_GRACE = 5.0
#: Characters of a goal; peers named in a pinned team.
MAX_GOAL_CHARS = MAX_GOAL
MAX_TEAM_NAMES = MAX_MEMBERS - 1
MAX_NAME_CHARS = 128
_CHAT_REF = re.compile(r"[0-9a-fA-F]{1,64}")
#: Keys IoA's clients send that mean nothing here (accepted and ignored).
IGNORED_KEYS = ("skip_naming", "is_collaborative_planning_enabled", "obs_kwargs")


@dataclass(frozen=True, slots=True)
class SubTeamOf:
    """What makes a launch a sub-team: the parent chat and task, the members it must not invite (the
    parent team), and how many must join (not on the wire: only a node's own task forms a sub-team)."""

    parent_chat: bytes
    parent_task: str
    exclude: tuple[str, ...] = ()
    min_team: int = 1


@dataclass(frozen=True, slots=True)
class LaunchLimits:
    """The limits a launch runs with (:meth:`LaunchRequest.limits`); ``task_timeout`` None: half of the
    goal's time."""

    depth: int
    max_turns: int
    timeout: float
    speaker_timeout: float
    task_timeout: float | None
    max_team: int


@dataclass(frozen=True, slots=True)
class LaunchRequest(ApiObject):
    """A goal to launch (``POST /launch_goal``; docs/goals.md section 3): checked when built.

    ``goal`` is the goal's text (with ``chat``: the new round's goal in that goal chat, IoA's
    ``cont_input`` for ``comm_id``); ``team`` pins teammates by peer ID or agent name (None: discover
    and choose); ``depth`` ... ``max_team``: None takes the node's ``[goals]`` default, except ``depth``
    with a pinned team: 0 (the pinned members bring in no other agent unless ``depth`` allows it)."""

    STRICT: ClassVar[bool] = True

    goal: str
    team: tuple[str, ...] | None = None
    depth: int | None = None
    max_turns: int | None = None
    timeout: float | None = None
    speaker_timeout: float | None = None
    task_timeout: float | None = None
    max_team: int | None = None
    chat: str | None = None
    parent: SubTeamOf | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.goal, str) or not self.goal.strip():
            raise InvalidField("goal", "a goal needs a non-empty text")
        if len(self.goal) > MAX_GOAL_CHARS:
            raise InvalidField("goal", f"has {len(self.goal)} characters; the limit is {MAX_GOAL_CHARS}")
        if self.team is not None:
            object.__setattr__(self, "team", _team(self.team))
        for name, bounds in (("depth", DEPTH), ("max_turns", MAX_TURNS), ("timeout", SECONDS),
                             ("speaker_timeout", SECONDS), ("task_timeout", SECONDS),
                             ("max_team", MAX_TEAM)):  # fmt: skip
            value = getattr(self, name)
            if value is not None:
                bounds.check(name, value)
        if self.chat is not None and not _CHAT_REF.fullmatch(self.chat):
            raise InvalidField("chat", f"must be a chat ID or a unique hex prefix of one, not {self.chat!r}")
        if self.parent is not None and not isinstance(self.parent, SubTeamOf):
            raise InvalidField("parent", "must be a SubTeamOf")

    def limits(self, defaults: LaunchLimits) -> LaunchLimits:
        """The launch's limits: those given, the node's ``defaults`` (its ``[goals]``) for the others."""
        return LaunchLimits(
            depth=(0 if self.team else defaults.depth) if self.depth is None else self.depth,
            max_turns=self.max_turns or defaults.max_turns,
            timeout=self.timeout or defaults.timeout,
            speaker_timeout=self.speaker_timeout or defaults.speaker_timeout,
            task_timeout=self.task_timeout or defaults.task_timeout,
            max_team=self.max_team or defaults.max_team,
        )

    # ------------------------------------------------------------------ JSON (IoA's request shape)

    #: Every key the JSON form may have (``json_keys`` of the documentation check).
    JSON_KEYS: ClassVar[tuple[str, ...]] = (
        "goal", "team_member_names", "team", "team_up_depth", "depth", "max_turns", "timeout",
        "speaker_timeout", "task_timeout", "max_team", "comm_id", "cont_input", *IGNORED_KEYS,
    )  # fmt: skip

    def to_json(self) -> JsonObject:
        """The ``POST /launch_goal`` body (IoA's names; None fields left out; ``parent`` never sent)."""
        out: JsonObject = {"goal": self.goal}
        if self.team is not None:
            out["team_member_names"] = list(self.team)
        for key, value in (("team_up_depth", self.depth), ("max_turns", self.max_turns),
                           ("timeout", self.timeout), ("speaker_timeout", self.speaker_timeout),
                           ("task_timeout", self.task_timeout), ("max_team", self.max_team)):  # fmt: skip
            if value is not None:
                out[key] = value
        if self.chat is not None:
            out["comm_id"] = self.chat
            out["cont_input"] = self.goal
        return out

    @classmethod
    def from_json(cls, data: JsonValue) -> Self:
        """IoA's shape: ``team_member_names`` (or ``team``: a list, or names separated by commas),
        ``team_up_depth`` (or ``depth``), ``comm_id`` + ``cont_input`` (a text, or IoA's ``{"content":
        text, "sender": ...}``) continue a chat; IoA's :data:`IGNORED_KEYS` are accepted and ignored."""
        if not isinstance(data, dict):
            raise InvalidField("body", "POST /launch_goal needs a JSON object with at least a goal")
        unknown = sorted(set(data) - set(cls.JSON_KEYS))
        if unknown:
            raise InvalidField("body", f"unknown fields {unknown}; known: {sorted(cls.JSON_KEYS)}")
        body: JsonObject = {k: v for k, v in data.items() if k not in IGNORED_KEYS and v is not None}
        team = body.pop("team_member_names", body.pop("team", None))
        if isinstance(team, str):
            team = [t for t in team.split(",") if t.strip()]
        if isinstance(team, list) and not [t for t in team if not isinstance(t, str) or t.strip()]:
            team = None  # no names: discover and choose, as before
        if "team_up_depth" in body:
            body["depth"] = body.pop("team_up_depth")
        comm_id, cont = body.pop("comm_id", None), body.pop("cont_input", None)
        if isinstance(cont, dict):  # IoA sends {"content": ..., "sender": ...}
            cont = cont.get("content")
        if cont is not None and not isinstance(cont, str):
            raise InvalidField("cont_input", "must be a text or an object with a text 'content'")
        if cont is not None and comm_id is None:
            raise InvalidField("cont_input", "continues a chat: give its comm_id too")
        if comm_id is not None:
            if not isinstance(comm_id, str):
                raise InvalidField("comm_id", "must be a text (a chat ID or a unique prefix)")
            body["chat"] = comm_id
            body["goal"] = cont or body.get("goal") or ""
        if team is not None:
            body["team"] = team
        body.setdefault("goal", "")
        f = decode_object(_LaunchFields, body, "")
        return cls(
            f.goal,
            f.team,
            f.depth,
            f.max_turns,
            f.timeout,
            f.speaker_timeout,
            f.task_timeout,
            f.max_team,
            f.chat,
        )


@dataclass(frozen=True, slots=True)
class _LaunchFields(ApiObject):
    """The JSON fields of a launch once IoA's aliases are resolved (types checked here)."""

    STRICT: ClassVar[bool] = True

    goal: str
    team: tuple[str, ...] | None = None
    depth: int | None = None
    max_turns: int | None = None
    timeout: float | None = None
    speaker_timeout: float | None = None
    task_timeout: float | None = None
    max_team: int | None = None
    chat: str | None = None


def _team(names: object) -> tuple[str, ...]:
    if not isinstance(names, tuple | list) or not all(isinstance(n, str) for n in names):
        raise InvalidField("team", "must be a list of agent names or peer IDs")
    cleaned = tuple(n.strip() for n in names if n.strip())
    if not cleaned:
        raise InvalidField("team", "needs at least one peer ID or agent name")
    if len(cleaned) > MAX_TEAM_NAMES:
        raise InvalidField("team", f"names {len(cleaned)} agents; the limit is {MAX_TEAM_NAMES}")
    long = next((n for n in cleaned if len(n) > MAX_NAME_CHARS), None)
    if long is not None:
        raise InvalidField("team", f"{long[:40]!r}... is longer than {MAX_NAME_CHARS} characters")
    return cleaned


__all__ = [
    "DEPTH",
    "GOAL_GRACE",
    "IGNORED_KEYS",
    "MAX_GOAL_CHARS",
    "MAX_TEAM",
    "MAX_TEAM_NAMES",
    "MAX_TURNS",
    "SECONDS",
    "Bounds",
    "LaunchLimits",
    "LaunchRequest",
    "SubTeamOf",
]
