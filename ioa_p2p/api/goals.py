"""What the goals routes answer (pure): a goal's result, the goals a node knows, cancelling, following.

:class:`GoalResult` is both what :meth:`Goals.launch_goal <ioa_p2p.node.goals.Goals.launch_goal>` returns
and the JSON of ``POST /launch_goal`` (docs/goals.md section 3): every key is a field, so a client reads
exactly what the node computed (:func:`goal_result` computes the report, the costs and the exit code).
Exit codes of a goal (``ioa goal``; docs/goals.md section 10) are here, once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

from ioa_p2p.api.codec import ApiObject, Json, JsonObject
from ioa_p2p.errors import InvalidField

if TYPE_CHECKING:
    from ioa_p2p.conversation.costs import CostTable

#: Exit codes of a goal (docs/goals.md, section 10).
EXIT_OK = 0  # concluded, every needed task completed
EXIT_FAILED = 1  # it could not run (no node, a connection error, a bug)
EXIT_USAGE = 2
EXIT_TASKS_FAILED = 3  # concluded with failed or missing tasks
EXIT_ABORTED = 4  # aborted: the deadline, a cancellation, an abort


def goal_exit_code(status: str, complete: bool) -> int:
    """0 when the round concluded and every needed task completed, 3 when it concluded without, 4 when
    it was aborted."""
    if status != "concluded":
        return EXIT_ABORTED
    return EXIT_OK if complete else EXIT_TASKS_FAILED


@dataclass(frozen=True, slots=True)
class Teammate(ApiObject):
    """An agent of a team: ``score`` is how well its card matched the goal (1.0 for the launcher)."""

    peer_id: str
    name: str
    score: Annotated[float, Json(digits=4)] = 0.0


@dataclass(frozen=True, slots=True)
class TaskRecord(ApiObject):
    """A task of a finished round: who assigned it to whom, its outcome (``files``: name -> size)."""

    task_id: str
    title: str
    description: str
    assigner: str
    assignee: str
    mode: str  # "sync" or "async"
    status: str  # "completed", "failed", "running", "cancelled"...
    text: str
    failure: str | None
    data: JsonObject
    files: Mapping[str, int]
    progress: str
    assignee_name: str


@dataclass(frozen=True, slots=True)
class CostRowView(ApiObject):
    """An agent's row of a cost table (``total``: the sums; then ``name`` is absent)."""

    agent: str
    tasks: int
    ok: int
    prompt_tokens: int
    completion_tokens: int
    tokens_unknown_tasks: int
    tool_calls: int
    wall_ms: int
    models: tuple[str, ...]
    name: Annotated[str | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class CostsView(ApiObject):
    """The cost per agent of a round's finished tasks, from the assignees' signed results."""

    agents: tuple[CostRowView, ...]
    total: CostRowView

    @classmethod
    def of(cls, table: CostTable, names: Mapping[str, str]) -> CostsView:
        return cls.from_json(table.to_json(dict(names)))


@dataclass(frozen=True, slots=True)
class GoalResult(ApiObject):
    """The result of a goal (see the module docstring; the keys: docs/goals.md section 3)."""

    answer: str
    steps: tuple[JsonObject, ...]
    citations: tuple[JsonObject, ...]
    complete: bool
    comm_id: str  # IoA's name of the chat ID
    chat_id: str
    round_id: str
    goal: str
    status: str  # "concluded" or "aborted"
    conclusion: str
    forced: bool
    aborted: bool
    team: tuple[Teammate, ...]  # the round's members, the launcher first
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    tasks: tuple[TaskRecord, ...]
    turns: int
    messages: int
    bytes: int
    brain: str
    depth: int
    parent_chat: str
    parent_task: str
    timings: Annotated[Mapping[str, float], Json(digits=4)]
    model_turns: int
    fallback_turns: int
    fallbacks: Mapping[str, int]
    turn_origins: Mapping[str, int]
    team_fallback: str  # the failure kind when the LLM team-up failed and similarity chose the team
    plan: tuple[JsonObject, ...]
    exit_code: int
    costs: CostsView
    #: Agents that took part in the round's tasks through sub-teams without being members of the round
    #: (the sub-teams' results name them); with a pinned team, the agents outside it.
    outside: Annotated[tuple[Teammate, ...], Json(omit="empty")] = ()

    @property
    def ok(self) -> bool:
        return self.status == "concluded"

    @property
    def succeeded(self) -> bool:
        """Concluded, and when tasks were assigned, at least one of them completed."""
        done = any(t.status == "completed" for t in self.tasks)
        return self.ok and (done or not self.tasks)


def goal_result(
    *,
    goal: str,
    chat_id: str,
    round_id: str,
    status: str,
    conclusion: str,
    forced: bool,
    team: Sequence[Teammate],
    declined: Sequence[Teammate],
    unanswered: Sequence[Teammate],
    tasks: Iterable[TaskRecord],
    turns: int,
    messages: int,
    size: int,
    brain: str,
    depth: int,
    parent_chat: str,
    parent_task: str,
    timings: Mapping[str, float],
    origins: Mapping[str, int],
    fallbacks: Mapping[str, int],
    team_fallback: str,
    plan: Sequence[JsonObject],
) -> GoalResult:
    """A :class:`GoalResult` with its report (``answer``, ``steps``, ``citations``, ``complete``:
    :func:`~ioa_p2p.planning.report.goal_report`), cost table and exit code computed."""
    # Imported here: the schemas are also read by nodes that never run a goal (a bootstrap node loads
    # no planner: docs/performance.md, "Light nodes").
    from ioa_p2p.conversation.costs import nested_agents, task_costs
    from ioa_p2p.planning.report import goal_report

    records = tuple(tasks)
    report = goal_report(goal, [t.to_json() for t in records], conclusion)
    concluded = status == "concluded"
    complete = bool(report["complete"])
    finished = [t for t in records if t.status in ("completed", "failed")]
    table = task_costs((t.assignee, t.task_id, t.status == "completed", t.data) for t in finished)
    members = {t.peer_id for t in team}
    outside = {p: n for t in finished for p, n in nested_agents(t.data) if p not in members}
    return GoalResult(
        answer=str(report["answer"]) if concluded else "",
        steps=tuple(report["steps"]),
        citations=tuple(report["citations"]),
        complete=concluded and complete,
        comm_id=chat_id,
        chat_id=chat_id,
        round_id=round_id,
        goal=goal,
        status=status,
        conclusion=conclusion,
        forced=forced,
        aborted=status == "aborted",
        team=tuple(team),
        declined=tuple(declined),
        unanswered=tuple(unanswered),
        tasks=records,
        turns=turns,
        messages=messages,
        bytes=size,
        brain=brain,
        depth=depth,
        parent_chat=parent_chat,
        parent_task=parent_task,
        timings=dict(timings),
        model_turns=origins.get("model", 0),
        fallback_turns=origins.get("fallback", 0),
        fallbacks=dict(fallbacks),
        turn_origins=dict(origins),
        team_fallback=team_fallback,
        plan=tuple(plan),
        exit_code=goal_exit_code(status, complete),
        costs=CostsView.of(table, {t.peer_id: t.name for t in team}),
        outside=tuple(Teammate(p, n) for p, n in outside.items()),
    )


# --------------------------------------------------------------------------- GET /goals, cancel, follow


@dataclass(frozen=True, slots=True)
class GoalSummary(ApiObject):
    """A round this node has seen (``GET /goals``); ``conclusion`` once it ended."""

    chat_id: str
    round_id: str
    goal: str
    initiator: str
    members: tuple[str, ...]
    status: str  # "running", "concluded" or "aborted"
    started_ms: int
    depth: int
    parent_chat: str
    conclusion: Annotated[str | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class CancelGoalRequest(ApiObject):
    """``POST /cancel_goal``: a goal chat (ID or unique prefix), or a launch ID (before its chat exists)."""

    STRICT: ClassVar[bool] = True

    chat: str | None = None
    launch: str | None = None

    def __post_init__(self) -> None:
        if not (self.chat or self.launch):
            raise InvalidField("body", 'POST /cancel_goal needs {"chat": CHAT} or {"launch": LAUNCH_ID}')

    @property
    def ref(self) -> str:
        return self.chat or self.launch or ""


@dataclass(frozen=True, slots=True)
class CancelGoalReply(ApiObject):
    """The rounds cancelled (empty when the launch was still forming its team), in the chat or launch."""

    cancelled: tuple[str, ...]
    chat_id: Annotated[str | None, Json(omit="none")] = None
    launch_id: Annotated[str | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class GoalEventsRequest(ApiObject):
    """``GET /goal_events``: the events of a launch of this node (``launch``) or of a goal chat (``chat``,
    until the end of ``round``, by default its latest); ``after`` resumes after a cursor (§7)."""

    STRICT: ClassVar[bool] = True

    chat: str | None = None
    launch: str | None = None
    round: str | None = None
    after: str | None = None

    def __post_init__(self) -> None:
        if (self.chat is None) == (self.launch is None):
            raise InvalidField("chat", "give either chat=CHAT or launch=LAUNCH_ID")
        if self.launch is not None and self.round is not None:
            raise InvalidField("round", "a launch has one round: give round only with chat")


@dataclass(frozen=True, slots=True)
class RoundRequest(ApiObject):
    """``GET /goals/result?chat=ID``: the result of a round of a goal chat (``round``, by default the
    latest) as this node saw it."""

    STRICT: ClassVar[bool] = True

    chat: str
    round: str | None = None


__all__ = [
    "EXIT_ABORTED",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_TASKS_FAILED",
    "EXIT_USAGE",
    "CancelGoalReply",
    "CancelGoalRequest",
    "CostRowView",
    "CostsView",
    "GoalEventsRequest",
    "GoalResult",
    "GoalSummary",
    "RoundRequest",
    "TaskRecord",
    "Teammate",
    "goal_exit_code",
    "goal_result",
]
