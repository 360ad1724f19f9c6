"""The shared plan of a round and the round's cancellation: two ``conv.*`` kinds beside the turns (pure).

- ``conv.plan`` (:class:`PlanUpdate`): the team's plan as one member sees it after its turn: numbered
  steps, each with an owner (a member's peer id, or ``""``) and a status (:data:`STATUSES`). Each update
  carries the whole plan and a ``version`` (the number of plan updates its author had seen in the round,
  plus one), so the latest plan is the update with the highest ``(version, message id)``; an update
  never changes the conversation's state machine (it is informational, like progress).
- ``conv.cancel`` (:class:`RoundCancel`): the round's initiator ends the round (``ioa goal`` interrupted,
  ``ioa goal cancel CHAT``); every member ends it as aborted, with reason ``cancelled``, and cancels its
  tasks. A cancel by anyone else is ignored.

Both are signed chat messages like every ``conv.*`` kind; their schemas are in docs/protocol.md. The
offline planner's steps and the LLM's ``plan`` answer both become :class:`SharedStep` tuples here.

:class:`SharedStep` is the *state* of a plan step (title, owner, status) as the team shares it; it is not
the planner's own step type (what to compute, from which inputs), which a planner maps onto it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import InvalidContent

PLAN = "conv.plan"
CANCEL = "conv.cancel"
STATUSES = ("todo", "running", "done", "failed")
MAX_STEPS = 32
MAX_STEP_TEXT = 500
MAX_ID = 200


def _keys(where: str, value: object, expected: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidContent(f"{where}: content must be a map, got {type(value).__name__}")
    missing = [k for k in expected if k not in value]
    extra = sorted(str(k) for k in value if k not in expected)
    if missing or extra:
        raise InvalidContent(f"{where}: missing fields {missing}, unexpected fields {extra}")
    return value


def _text(where: str, value: object, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidContent(f"{where} must be text of at most {limit} characters")
    return value


@dataclass(frozen=True, slots=True)
class SharedStep:
    title: str
    owner: str = ""  # peer id of the member doing it, "" when nobody is assigned
    status: str = "todo"

    def to_content(self) -> dict[str, Any]:
        return {"title": self.title, "owner": self.owner, "status": self.status}

    @classmethod
    def from_content(cls, content: object, where: str = PLAN) -> SharedStep:
        c = _keys(f"{where}.step", content, ("title", "owner", "status"))
        status = c["status"]
        if status not in STATUSES:
            raise InvalidContent(f"{where}.step.status must be one of {STATUSES}")
        title = _text(f"{where}.step.title", c["title"], MAX_STEP_TEXT)
        if not title.strip():
            raise InvalidContent(f"{where}.step.title must not be empty")
        return cls(title, _text(f"{where}.step.owner", c["owner"], MAX_ID), status)


@dataclass(frozen=True, slots=True)
class PlanUpdate:
    """``conv.plan``: ``{round, version, steps: [{title, owner, status}]}``."""

    round: str  # the round's id (its conv.start message id)
    version: int
    steps: tuple[SharedStep, ...]

    def to_content(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "version": self.version,
            "steps": [s.to_content() for s in self.steps],
        }

    @classmethod
    def from_content(cls, content: object) -> PlanUpdate:
        c = _keys(PLAN, content, ("round", "version", "steps"))
        version = c["version"]
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= 1_000_000:
            raise InvalidContent(f"{PLAN}.version must be an integer in 1..1000000")
        steps = c["steps"]
        if not isinstance(steps, list) or len(steps) > MAX_STEPS:
            raise InvalidContent(f"{PLAN}.steps must be a list of at most {MAX_STEPS} steps")
        round_id = _text(f"{PLAN}.round", c["round"], MAX_ID)
        return cls(round_id, version, tuple(SharedStep.from_content(s) for s in steps))


@dataclass(frozen=True, slots=True)
class RoundCancel:
    """``conv.cancel``: ``{round, reason}``; valid only from the round's initiator."""

    round: str
    reason: str = "cancelled by the initiator"

    def to_content(self) -> dict[str, Any]:
        return {"round": self.round, "reason": self.reason}

    @classmethod
    def from_content(cls, content: object) -> RoundCancel:
        c = _keys(CANCEL, content, ("round", "reason"))
        return cls(_text(f"{CANCEL}.round", c["round"], MAX_ID), _text(f"{CANCEL}.reason", c["reason"], 500))


def clip_steps(steps: Iterable[SharedStep]) -> tuple[SharedStep, ...]:
    """Steps made valid for the wire: at most :data:`MAX_STEPS`, titles cut to :data:`MAX_STEP_TEXT`."""
    out = []
    for s in list(steps)[:MAX_STEPS]:
        title = " ".join(s.title.split())[:MAX_STEP_TEXT] or "step"
        status = s.status if s.status in STATUSES else "todo"
        out.append(SharedStep(title, s.owner[:MAX_ID], status))
    return tuple(out)


@dataclass(slots=True)
class PlanBoard:
    """The plan updates of one round as they arrive (any order): the latest, and every version."""

    updates: list[tuple[int, str, str, PlanUpdate]]  # (version, msg id, author, update)

    @classmethod
    def empty(cls) -> PlanBoard:
        return cls([])

    def add(self, msg_id: str, author: str, update: PlanUpdate) -> None:
        if all(m != msg_id for _, m, _, _ in self.updates):
            self.updates.append((update.version, msg_id, author, update))
            self.updates.sort(key=lambda u: (u[0], u[1]))

    def latest(self) -> PlanUpdate | None:
        return self.updates[-1][3] if self.updates else None

    def next_version(self) -> int:
        return (self.updates[-1][0] if self.updates else 0) + 1

    def changed(self, steps: Sequence[SharedStep]) -> bool:
        latest = self.latest()
        return latest is None or latest.steps != tuple(steps)


def render_plan(steps: Sequence[SharedStep], name_of: Callable[[str], str] = str) -> list[str]:
    """One line per step: ``2. [running] compute the product (calculator)``."""
    lines = []
    for i, s in enumerate(steps, 1):
        owner = f" ({name_of(s.owner)})" if s.owner else ""
        lines.append(f"{i}. [{s.status}] {s.title}{owner}")
    return lines


__all__ = [
    "CANCEL",
    "PLAN",
    "STATUSES",
    "PlanBoard",
    "SharedStep",
    "PlanUpdate",
    "RoundCancel",
    "clip_steps",
    "render_plan",
]
