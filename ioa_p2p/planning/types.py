"""Plan types (pure, frozen): a request as steps with data dependencies.

A :class:`PlanStep` is one unit of work of a known **kind**, which names the ability it needs:

====================  ===========================  =========================================
kind                  ability (card task types)     what the step's ``template`` holds
====================  ===========================  =========================================
``lookup``            ``question``                 a question over documents
``calc``              ``arithmetic``               an expression over ``v1``, ``v2``, ...
``date``              ``date arithmetic``          a date calculation over ``{1}``, ``{2}``
``code``              ``code``                     Python code; ``bindings`` name its inputs
``task``              (any; routed by wording)     the clause as written
====================  ===========================  =========================================

``needs`` are the earlier steps (1-based) whose values the step uses; ``{n}`` / ``vN`` in the template stand
for them. The types are plain data (``to_dict`` / ``from_dict``), shared by the offline planner and the
LLM brain, so that plan updates can travel as messages later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LOOKUP = "lookup"
CALC = "calc"
DATE = "date"
CODE = "code"
TASK = "task"
KINDS = (LOOKUP, CALC, DATE, CODE, TASK)

#: The abilities (card ``task_types``) a step of each kind needs; any one of them will do.
ABILITIES: dict[str, tuple[str, ...]] = {
    LOOKUP: ("question", "documents", "retrieval"),
    CALC: ("arithmetic", "calculation"),
    DATE: ("date arithmetic",),
    CODE: ("code", "python"),
    TASK: (),
}
MAX_STEPS = 12


@dataclass(frozen=True, slots=True)
class PlanStep:
    index: int  # 1-based
    kind: str  # one of KINDS
    text: str  # what the step does, in words (shown in the derivation)
    template: str  # the work, with {n} (or vN in expressions and code) for earlier values
    needs: tuple[int, ...] = ()
    bindings: tuple[tuple[str, int], ...] = ()  # code: variable name -> step whose value it holds
    unit: str = ""  # the unit of the result when the plan knows it (conversions, sums of one unit)
    fmt: str = ""  # code steps: how the value is printed ("", "round:2", "bin", "thousands")

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "text": self.text,
            "template": self.template,
            "needs": list(self.needs),
            "bindings": [[name, n] for name, n in self.bindings],
            "unit": self.unit,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> PlanStep:
        kind = str(raw.get("kind", TASK))
        return cls(
            index=int(raw["index"]),
            kind=kind if kind in KINDS else TASK,
            text=str(raw.get("text", ""))[:2000],
            template=str(raw.get("template") or raw.get("text", ""))[:8000],
            needs=tuple(int(n) for n in raw.get("needs", ())[:MAX_STEPS]),
            bindings=tuple((str(a), int(b)) for a, b in raw.get("bindings", ())[:MAX_STEPS]),
            unit=str(raw.get("unit", ""))[:20],
        )


@dataclass(frozen=True, slots=True)
class Plan:
    goal: str
    steps: tuple[PlanStep, ...]
    answer_step: int  # the step whose value answers the request (0: none)
    question: str = ""  # the request in a few words, for the answer sentence

    def step(self, index: int) -> PlanStep:
        return self.steps[index - 1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "steps": [s.to_dict() for s in self.steps],
            "answer_step": self.answer_step,
            "question": self.question,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Plan:
        steps = tuple(PlanStep.from_dict(s) for s in raw.get("steps", ())[:MAX_STEPS])
        check_plan(steps)
        answer = int(raw.get("answer_step", len(steps)))
        return cls(str(raw.get("goal", "")), steps, answer if 0 <= answer <= len(steps) else len(steps))


def check_plan(steps: tuple[PlanStep, ...]) -> None:
    """Steps are numbered 1..n and only need earlier steps (so every plan runs to its end)."""
    for i, step in enumerate(steps, 1):
        if step.index != i:
            raise ValueError(f"step {i} is numbered {step.index}")
        if any(not 1 <= n < i for n in step.needs) or any(not 1 <= n < i for _, n in step.bindings):
            raise ValueError(f"step {i} needs a step that does not come before it")


__all__ = [
    "ABILITIES",
    "CALC",
    "CODE",
    "DATE",
    "KINDS",
    "LOOKUP",
    "MAX_STEPS",
    "TASK",
    "Plan",
    "PlanStep",
    "check_plan",
]
