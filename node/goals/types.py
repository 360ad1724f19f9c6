"""Plain types of the goals service (pure): its config, teammates, results, argument checks.

- :class:`GoalsConfig`: the ``[goals]`` table;
- :class:`Teammate`, :class:`FormedTeam`: who was invited and who joined;
- :class:`RoundOutcome`: how one round ended on this node;
- :class:`GoalResult`: what ``launch_goal`` returns (``to_json`` is ``POST /launch_goal``'s answer);
- :func:`check_launch_args`: the limits on a goal's arguments (UsageError saying which is wrong).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.costs import CostTable, task_costs
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.errors import UsageError

GOAL_TOPIC_PREFIX = "goal: "
MAX_GOAL_CHARS = cm.MAX_GOAL
Brain = Literal["auto", "offline", "llm"]
DhtLookup = Literal["auto", "always", "never"]
BRAINS: tuple[str, ...] = get_args(Brain)
DHT_LOOKUPS: tuple[str, ...] = get_args(DhtLookup)


def _amount(default: float) -> Any:
    return setting(default, low=0)


@dataclass(frozen=True, slots=True)
class GoalsConfig:
    """The ``[goals]`` table (docs/goals.md): counts and seconds are non-negative."""

    max_concurrent: int = _amount(4)
    timeout: float = _amount(300.0)
    max_turns: int = _amount(20)
    speaker_timeout: float = _amount(30.0)
    task_timeout: float = _amount(0.0)  # 0: half of the goal's time
    invite_timeout: float = _amount(10.0)
    max_team: int = _amount(4)
    threshold: float = _amount(0.2)
    shortlist: int = _amount(10)
    depth: int = _amount(1)
    brain: Brain = "auto"
    dht_lookup: DhtLookup = "auto"
    dht_wait: float = _amount(2.0)
    reserve_timeout: float = _amount(60.0)
    team_up_timeout: float = _amount(
        30.0
    )  # seconds the LLM team-up may take at most (and 1/3 of the goal's time)

    @classmethod
    def from_section(cls, table: dict[str, Any]) -> GoalsConfig:
        return parse_section(cls, table, "[goals]")


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
    origins: dict[str, int] = field(default_factory=dict)  # turns by origin: model, fallback, offline, rule
    fallbacks: dict[str, int] = field(default_factory=dict)  # fallback turns by failure kind
    plan: list[dict[str, Any]] = field(default_factory=list)  # the latest shared plan
    plan_versions: int = 0


#: Exit codes of ``ioa goal`` (docs/goals.md, section 10).
EXIT_OK = 0  # concluded, every needed task completed
EXIT_USAGE = 2
EXIT_TASKS_FAILED = 3  # concluded with failed or missing tasks
EXIT_ABORTED = 4  # aborted: the deadline, a cancellation, an abort


def goal_exit_code(status: str, complete: bool) -> int:
    """0 when the round concluded and every needed task completed (``complete``: the goal report's,
    :func:`~ioa_p2p.planning.report.goal_report`), 3 when it concluded without, 4 when it was aborted."""
    if status != "concluded":
        return EXIT_ABORTED
    return EXIT_OK if complete else EXIT_TASKS_FAILED


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
    origins: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    team_fallback: str = ""  # the failure kind when the LLM team-up failed and similarity chose the team
    plan: tuple[dict[str, Any], ...] = ()

    @property
    def exit_code(self) -> int:
        return goal_exit_code(self.status, bool(self.report()["complete"]))

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

    def report(self) -> dict[str, Any]:
        """``answer``, ``steps``, ``citations``, ``complete`` (every needed step done): docs/goals.md."""
        from ioa_p2p.planning.report import goal_report

        return goal_report(self.goal, self.tasks, self.conclusion)

    def to_json(self) -> dict[str, Any]:
        report = self.report()
        return {
            "answer": report["answer"] if self.status == "concluded" else "",
            "steps": report["steps"],
            "citations": report["citations"],
            "complete": self.status == "concluded" and report["complete"],
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
            "model_turns": self.origins.get("model", 0),
            "fallback_turns": self.origins.get("fallback", 0),
            "fallbacks": dict(self.fallbacks),
            "turn_origins": dict(self.origins),
            "team_fallback": self.team_fallback,
            "plan": list(self.plan),
            "exit_code": goal_exit_code(self.status, bool(report["complete"])),
            "costs": self.costs().to_json({t.peer_id: t.name for t in self.team}),
        }

    def costs(self) -> CostTable:
        """Per-agent cost of the round's finished tasks, from the assignees' signed results."""
        return task_costs(
            (str(t.get("assignee")), str(t.get("task_id")), t.get("status") == "completed", t.get("data"))
            for t in self.tasks
            if t.get("status") in ("completed", "failed")
        )


@dataclass(frozen=True, slots=True)
class FormedTeam:
    chat_id: bytes
    members: tuple[Teammate, ...]  # accepted invitees (not this node)
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    timings: dict[str, float]
    team_fallback: str = ""  # the failure kind when the LLM team-up failed (similarity chose)


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
        origins=dict(outcome.origins),
        fallbacks=dict(outcome.fallbacks),
        team_fallback=formed.team_fallback,
        plan=tuple(outcome.plan),
    )


__all__ = [
    "BRAINS",
    "DHT_LOOKUPS",
    "GOAL_TOPIC_PREFIX",
    "MAX_GOAL_CHARS",
    "FormedTeam",
    "GoalResult",
    "EXIT_ABORTED",
    "EXIT_OK",
    "EXIT_TASKS_FAILED",
    "EXIT_USAGE",
    "GoalsConfig",
    "Teammate",
    "check_launch_args",
    "goal_exit_code",
    "make_result",
]
