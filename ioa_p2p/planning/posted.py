"""Plans made by a model and posted in the chat (pure).

The LLM brain may answer its first turn with a ``work_plan`` (the same
:class:`~ioa_p2p.planning.types.Plan` types
as the offline planner, as JSON; :data:`PLAN_SCHEMA` is what the model is told). :func:`plan_from_model`
checks it (kinds, dependencies on earlier steps only, calculations that are expressions over ``v1``, ``v2``
...). The turn that starts the plan ends with one line ``plan: {json}`` (:func:`plan_line`), so every member
— whatever its brain, a fallback speaker included — finds the same plan in the history
(:func:`posted_plan`) and continues it step by step; without a posted plan the offline planner's plan of
the goal is used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ioa_p2p.planning.expr import check_expression
from ioa_p2p.planning.types import CALC, CODE, KINDS, MAX_STEPS, Plan, PlanStep, check_plan

PLAN_PREFIX = "plan: "
MAX_PLAN_CHARS = 16_000

PLAN_SCHEMA = (
    'Optionally (best on your first turn) add "work_plan": {"steps": [{"kind": "lookup" | "calc" | "date" | '
    '"code" | "task", "text": "what the step does, in words", "template": "the work", "needs": [earlier '
    'step numbers whose values it uses]}], "answer_step": the step whose value answers the goal}. A '
    "lookup's template is a question over documents; a calc's an arithmetic expression over v1, v2, ... "
    "(the values of steps 1, 2, ...); a date's a date calculation with {1}, {2} for earlier values (\"days "
    "between {1} and {2}\"); a code step's Python code, where v1, v2, ... hold earlier values. With a "
    "plan, the team works it step by step, each step to a member able to do it, with the values bound in, "
    "and the conclusion states the answer first."
)


def plan_from_model(raw: Any, goal: str) -> Plan:
    """The model's ``plan`` as a checked Plan; raises ValueError saying what is wrong."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("steps"), list) or not raw["steps"]:
        raise ValueError('"plan" must be an object with a non-empty "steps" list')
    steps: list[PlanStep] = []
    for i, item in enumerate(raw["steps"][:MAX_STEPS], 1):
        if not isinstance(item, Mapping):
            raise ValueError(f"plan step {i} must be an object")
        kind = str(item.get("kind", "task"))
        if kind not in KINDS:
            raise ValueError(f"plan step {i}: kind {kind!r} is not one of {', '.join(KINDS)}")
        text = str(item.get("text") or item.get("template") or "").strip()
        template = str(item.get("template") or text).strip()
        if not text:
            raise ValueError(f"plan step {i} needs a text")
        needs_raw = item.get("needs", [])
        if not isinstance(needs_raw, list) or not all(isinstance(n, int) for n in needs_raw):
            raise ValueError(f"plan step {i}: needs must be a list of earlier step numbers")
        needs = tuple(dict.fromkeys(needs_raw))
        if kind == CALC and not check_expression(template):
            raise ValueError(f"plan step {i}: {template!r} is not an arithmetic expression over v1, v2, ...")
        bindings = tuple((f"v{n}", n) for n in needs) if kind == CODE else ()
        steps.append(PlanStep(i, kind, text[:2000], template[:8000], needs, bindings))
    try:
        check_plan(tuple(steps))
    except ValueError as exc:
        raise ValueError(f"plan: {exc}") from None
    answer = raw.get("answer_step", len(steps))
    answer = answer if isinstance(answer, int) and 1 <= answer <= len(steps) else len(steps)
    return Plan(goal, tuple(steps), answer, goal)


def plan_line(plan: Plan) -> str:
    """The line that posts ``plan`` in a turn's text."""
    body = {"steps": [s.to_dict() for s in plan.steps], "answer_step": plan.answer_step}
    return PLAN_PREFIX + json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def posted_plan(texts: Sequence[str], goal: str) -> Plan | None:
    """The plan the first turn posting one carries (None when no turn posts a valid plan)."""
    for text in texts:
        for line in text.splitlines():
            if not line.startswith(PLAN_PREFIX) or len(line) > MAX_PLAN_CHARS:
                continue
            try:
                raw = json.loads(line[len(PLAN_PREFIX) :])
                plan = Plan.from_dict({**raw, "goal": goal})
            except (ValueError, TypeError, KeyError, AttributeError):
                continue
            if plan.steps:
                return plan
    return None


__all__ = ["MAX_PLAN_CHARS", "PLAN_PREFIX", "PLAN_SCHEMA", "plan_from_model", "plan_line", "posted_plan"]
