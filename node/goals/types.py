"""Plain types of the goals service (pure): its config, the team formed, how a round ended.

- :class:`GoalsConfig`: the ``[goals]`` table (its launch defaults bounded by the launch limits of
  :mod:`ioa_p2p.api.launch`);
- :class:`FormedTeam`: who was invited and who joined (teammates: :class:`~ioa_p2p.api.goals.Teammate`);
- :class:`RoundOutcome`: how one round ended on this node;
- :func:`make_result`: the :class:`~ioa_p2p.api.goals.GoalResult` that ``launch_goal`` returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ioa_p2p.api.codec import JsonObject
from ioa_p2p.api.goals import GoalResult, TaskRecord, Teammate, goal_result
from ioa_p2p.api.launch import DEPTH, MAX_TEAM, MAX_TURNS, SECONDS, Bounds, LaunchLimits
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.teaming.exposure import (
    EXPOSURE_WINDOW,
    OVER_BUDGET,
    PER_WINDOW,
    UNPROVEN_PER_WINDOW,
    ExposurePolicy,
)
from ioa_p2p.teaming.trust import MAX_UNPROVEN, MAX_YOUNG, TRUST_AGE, YOUNG_PENALTY, TrustPolicy

GOAL_TOPIC_PREFIX = "goal: "
Brain = Literal["auto", "offline", "llm"]
DhtLookup = Literal["auto", "always", "never"]
BRAINS: tuple[str, ...] = get_args(Brain)
DHT_LOOKUPS: tuple[str, ...] = get_args(DhtLookup)


def _amount(default: float) -> Any:
    return setting(default, low=0)


def _peer_ids(values: tuple[str, ...]) -> str | None:
    for value in values:
        try:
            PeerId.from_string(value)
        except IoAError:
            return f"peer IDs (base58 text, as `ioa id` prints them), and {value[:80]!r} is not one"
    return None


def _launch(default: float, bounds: Bounds) -> Any:
    """A default of a launch setting: within the launch limits (a bad default is a config error at
    start, not a refused goal later)."""
    return setting(default, low=bounds.low, high=bounds.high)


@dataclass(frozen=True, slots=True)
class GoalsConfig:
    """The ``[goals]`` table (docs/goals.md): counts and seconds are non-negative; the launch defaults
    (``timeout``, ``max_turns``, ``speaker_timeout``, ``max_team``, ``depth``) within the launch limits."""

    enabled: bool = True  # false: no goals service (node/services.py GoalsSwitch reads it first)
    max_concurrent: int = _amount(4)
    timeout: float = _launch(300.0, SECONDS)
    max_turns: int = _launch(20, MAX_TURNS)
    speaker_timeout: float = _launch(30.0, SECONDS)
    task_timeout: float = _amount(0.0)  # 0: half of the goal's time
    invite_timeout: float = _amount(10.0)
    max_team: int = _launch(4, MAX_TEAM)
    threshold: float = _amount(0.2)
    shortlist: int = _amount(10)
    depth: int = _launch(1, DEPTH)
    brain: Brain = "auto"
    dht_lookup: DhtLookup = "auto"
    dht_wait: float = _amount(2.0)
    reserve_timeout: float = _amount(60.0)
    team_up_timeout: float = _amount(
        30.0
    )  # seconds the LLM team-up may take at most (and 1/3 of the goal's time)
    young_penalty: float = _amount(YOUNG_PENALTY)  # score units off a young, unproven card (0: off)
    max_young: int = _amount(MAX_YOUNG)  # young members a team takes unless nothing else covers a need
    trust_age: float = _amount(TRUST_AGE)  # seconds a card must be held before its peer is established
    max_unproven: int = _amount(MAX_UNPROVEN)  # members with no task done on record, unless nothing else fits
    trusted: tuple[str, ...] = setting((), one_or_list=True, check=_peer_ids)  # peer IDs never young
    exposure_window: float = setting(EXPOSURE_WINDOW, low=1.0)  # seconds over which teams are counted
    exposure_per_window: int = _amount(PER_WINDOW)  # teams per window with no evidence yet (0: no bound)
    exposure_strict: bool = False  # a spent identity never joins as a member (else when nothing else can)
    #: teams past its budget a spent identity may still join per window where nothing else can (-1: any)
    exposure_over_budget: int = setting(OVER_BUDGET, low=-1)
    #: member slots per window all teams give to unproven identities, apart from those nothing proven fills
    unproven_per_window: int = _amount(UNPROVEN_PER_WINDOW)  # 0 (the default): no total bound

    def trust(self) -> TrustPolicy:
        """The age- and evidence-weighted trust policy (:mod:`ioa_p2p.teaming.trust`)."""
        return TrustPolicy(self.young_penalty, self.max_young, self.trust_age, self.max_unproven)

    def exposure(self) -> ExposurePolicy:
        """How many of this node's teams per window an identity joins (:mod:`ioa_p2p.teaming.exposure`)."""
        return ExposurePolicy(
            self.exposure_window,
            self.exposure_per_window or None,
            self.exposure_strict,
            self.unproven_per_window or None,
            None if self.exposure_over_budget < 0 else self.exposure_over_budget,
        )

    @classmethod
    def from_section(cls, table: dict[str, Any]) -> GoalsConfig:
        return parse_section(cls, table, "[goals]")

    def launch_defaults(self) -> LaunchLimits:
        """The limits of a launch that gives none."""
        return LaunchLimits(
            depth=self.depth,
            max_turns=self.max_turns,
            timeout=self.timeout,
            speaker_timeout=self.speaker_timeout,
            task_timeout=self.task_timeout or None,
            max_team=self.max_team,
        )


@dataclass(slots=True)
class RoundOutcome:
    """How a round ended, as one member saw it (made by the chat driver)."""

    round_id: str
    status: str  # "concluded" or "aborted"
    conclusion: str
    author: str
    forced: bool
    reason: str
    tasks: list[TaskRecord]
    turns: int
    messages: int
    bytes: int
    ended_ms: int
    origins: dict[str, int] = field(default_factory=dict)  # turns by origin: model, fallback, offline, rule
    fallbacks: dict[str, int] = field(default_factory=dict)  # fallback turns by failure kind
    plan: list[JsonObject] = field(default_factory=list)  # the latest shared plan
    plan_versions: int = 0


@dataclass(frozen=True, slots=True)
class FormedTeam:
    chat_id: bytes
    members: tuple[Teammate, ...]  # accepted invitees (not this node)
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    timings: dict[str, float]
    team_fallback: str = ""  # the failure kind when the LLM team-up failed (similarity chose)


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
    return goal_result(
        goal=goal,
        chat_id=chat_id.hex(),
        round_id=round_id,
        status=outcome.status,
        conclusion=outcome.conclusion,
        forced=outcome.forced,
        team=(me, *formed.members),
        declined=formed.declined,
        unanswered=formed.unanswered,
        tasks=outcome.tasks,
        turns=outcome.turns,
        messages=outcome.messages,
        size=outcome.bytes,
        brain=brain,
        depth=start.depth,
        parent_chat=start.parent_chat,
        parent_task=start.parent_task,
        timings=timings,
        origins=outcome.origins,
        fallbacks=outcome.fallbacks,
        team_fallback=formed.team_fallback,
        plan=outcome.plan,
    )


__all__ = [
    "BRAINS",
    "DHT_LOOKUPS",
    "GOAL_TOPIC_PREFIX",
    "FormedTeam",
    "GoalsConfig",
    "RoundOutcome",
    "make_result",
]
