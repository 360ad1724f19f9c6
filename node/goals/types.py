"""Plain types of the goals service (pure): its config, teammates, results, argument checks.

- :class:`GoalsConfig`: the ``[goals]`` table;
- :class:`Teammate`, :class:`FormedTeam`: who was invited and who joined;
- :class:`RoundOutcome`: how one round ended on this node;
- :class:`GoalResult`: what ``launch_goal`` returns (``to_json`` is ``POST /launch_goal``'s answer);
- :func:`check_launch_args`: the limits on a goal's arguments (UsageError saying which is wrong).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.errors import ConfigError, UsageError

GOAL_TOPIC_PREFIX = "goal: "
MAX_GOAL_CHARS = cm.MAX_GOAL
BRAINS = ("auto", "offline", "llm")
DHT_LOOKUPS = ("auto", "always", "never")


@dataclass(frozen=True, slots=True)
class GoalsConfig:
    max_concurrent: int = 4
    timeout: float = 300.0
    max_turns: int = 20
    speaker_timeout: float = 30.0
    task_timeout: float = 0.0  # 0: half of the goal's time
    invite_timeout: float = 10.0
    max_team: int = 4
    threshold: float = 0.2
    shortlist: int = 10
    depth: int = 1
    brain: str = "auto"
    dht_lookup: str = "auto"
    dht_wait: float = 2.0
    reserve_timeout: float = 60.0

    @classmethod
    def from_section(cls, table: dict[str, Any]) -> GoalsConfig:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(table) - set(known))
        if unknown:
            raise ConfigError(f"unknown keys in [goals]: {unknown} (known: {sorted(known)})")
        values: dict[str, Any] = {}
        for key, value in table.items():
            default = getattr(cls(), key)
            if isinstance(default, str):
                choices = BRAINS if key == "brain" else DHT_LOOKUPS
                if value not in choices:
                    raise ConfigError(f"[goals].{key} must be one of {list(choices)}, not {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"[goals].{key} must be a non-negative number, not {value!r}")
            elif isinstance(default, int) and not isinstance(value, int):
                raise ConfigError(f"[goals].{key} must be an integer, not {value!r}")
            values[key] = type(default)(value)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Teammate:
    peer_id: str
    name: str
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"peer_id": self.peer_id, "name": self.name, "score": round(self.score, 4)}


@dataclass(slots=True)
class RoundOutcome:
    """How a round ended, as one member saw it (made by the chat driver)."""

    round_id: str
    status: str  # "concluded" or "aborted"
    conclusion: str
    author: str
    forced: bool
    reason: str
    tasks: list[dict[str, Any]]
    turns: int
    messages: int
    bytes: int
    ended_ms: int


@dataclass(frozen=True, slots=True)
class GoalResult:
    """What :meth:`Goals.launch_goal` returns (``to_json`` is the control API's answer)."""

    chat_id: str
    round_id: str
    goal: str
    status: str  # "concluded" or "aborted"
    conclusion: str
    forced: bool
    team: tuple[Teammate, ...]  # the round's members, the initiator first
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    tasks: tuple[dict[str, Any], ...]
    turns: int
    messages: int
    bytes: int
    brain: str
    depth: int
    parent_chat: str = ""
    parent_task: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "concluded"

    @property
    def aborted(self) -> bool:
        return self.status == "aborted"

    @property
    def succeeded(self) -> bool:
        """Concluded, and when tasks were assigned, at least one of them completed."""
        done = any(t.get("status") == "completed" for t in self.tasks)
        return self.ok and (done or not self.tasks)

    def to_json(self) -> dict[str, Any]:
        return {
            "comm_id": self.chat_id,
            "chat_id": self.chat_id,
            "round_id": self.round_id,
            "goal": self.goal,
            "status": self.status,
            "conclusion": self.conclusion,
            "forced": self.forced,
            "aborted": self.aborted,
            "team": [t.to_json() for t in self.team],
            "declined": [t.to_json() for t in self.declined],
            "unanswered": [t.to_json() for t in self.unanswered],
            "tasks": list(self.tasks),
            "turns": self.turns,
            "messages": self.messages,
            "bytes": self.bytes,
            "brain": self.brain,
            "depth": self.depth,
            "parent_chat": self.parent_chat,
            "parent_task": self.parent_task,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


@dataclass(frozen=True, slots=True)
class FormedTeam:
    chat_id: bytes
    members: tuple[Teammate, ...]  # accepted invitees (not this node)
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    timings: dict[str, float]


def check_launch_args(
    goal: str,
    depth: int,
    max_turns: int,
    timeout: float,
    speaker_timeout: float,
    comm_id: str | None,
    cont_input: str | None,
) -> None:
    if not isinstance(goal, str) or not goal.strip():
        raise UsageError("a goal needs a non-empty text (or comm_id with cont_input to continue a chat)")
    if len(goal) > MAX_GOAL_CHARS:
        raise UsageError(f"the goal has {len(goal)} characters; the limit is {MAX_GOAL_CHARS}")
    if cont_input is not None and not comm_id:
        raise UsageError("cont_input continues a chat: give its comm_id too")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 8:
        raise UsageError("depth (team_up_depth) must be an integer between 0 and 8")
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or not 1 <= max_turns <= 1000:
        raise UsageError("max_turns must be an integer between 1 and 1000")
    for name, value in (("timeout", timeout), ("speaker_timeout", speaker_timeout)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 86_400:
            raise UsageError(f"{name} must be a number of seconds between 1 and 86400")


def make_result(
    goal: str,
    start: ConvStart,
    round_id: str,
    chat_id: bytes,
    outcome: RoundOutcome,
    formed: FormedTeam,
    me: Teammate,
    brain: str,
    timings: dict[str, float],
) -> GoalResult:
    return GoalResult(
        chat_id=chat_id.hex(),
        round_id=round_id,
        goal=goal,
        status=outcome.status,
        conclusion=outcome.conclusion,
        forced=outcome.forced,
        team=(me, *formed.members),
        declined=formed.declined,
        unanswered=formed.unanswered,
        tasks=tuple(outcome.tasks),
        turns=outcome.turns,
        messages=outcome.messages,
        bytes=outcome.bytes,
        brain=brain,
        depth=start.depth,
        parent_chat=start.parent_chat,
        parent_task=start.parent_task,
        timings=timings,
    )


__all__ = [
    "BRAINS",
    "DHT_LOOKUPS",
    "GOAL_TOPIC_PREFIX",
    "MAX_GOAL_CHARS",
    "FormedTeam",
    "GoalResult",
    "GoalsConfig",
    "Teammate",
    "check_launch_args",
    "make_result",
]
