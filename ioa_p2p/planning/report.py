"""The structured report of a finished goal (pure): ``answer``, ``steps``, ``citations``, ``complete``.

Built on the launching node from the goal and the round's task list (docs/goals.md section 3): when the
tasks follow the offline plan (titles ``step i/n``), each step's outcome is read back exactly as the
planner did; otherwise (an LLM plan) every task is a step and the answer is the conclusion's first line.
A round that concluded without any task is complete only when the goal needs no agent's work
(:func:`needs_work`): a brain that concludes at once on "Calculate 6 * 7" answered nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ioa_p2p.planning.concluding import conclusion
from ioa_p2p.planning.missing import MISSING, Missing
from ioa_p2p.planning.parse import plan_request
from ioa_p2p.planning.refusal import absence_refusal, dimension_refusal, refusal
from ioa_p2p.planning.results import StepOutcome, value_of
from ioa_p2p.planning.salvage import accepted_value
from ioa_p2p.planning.types import TASK, Plan, PlanStep
from ioa_p2p.planning.values import Value


def goal_report(goal: str, tasks: Sequence[Mapping[str, Any]], text: str) -> dict[str, Any]:
    plan = plan_request(goal)
    total = len(plan.steps)
    titled = [t for t in tasks if str(t.get("title", "")).endswith(f"/{total}")]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if plan.unplanned and not tasks:  # the offline planner could not plan it: nothing was answered
        return {"answer": "", "steps": [], "citations": [], "complete": False}
    if not tasks and needs_work(plan):  # concluded at once, nothing assigned: no step was done
        return {"answer": "", "steps": [], "citations": [], "complete": False}
    if not titled:
        steps = [_task_step(i, t) for i, t in enumerate(tasks, 1)]
        citations = [{"step": s["step"], **s.pop("_citation")} for s in steps if s.get("_citation")]
        for s in steps:
            s.pop("_citation", None)
        complete = all(t.get("status") == "completed" for t in tasks)
        return {"answer": first, "steps": steps, "citations": citations, "complete": complete}
    outcomes: dict[int, StepOutcome] = {}
    values: dict[int, Value] = {}
    for step in plan.steps:
        tried = [t for t in tasks if t.get("title") == f"step {step.index}/{total}"]
        lacking = refusal(step, values) if not tried else None
        outcome = StepOutcome(step, status=MISSING, missing=lacking) if lacking else StepOutcome(step)
        for t in reversed(tried):
            data = t.get("data") if isinstance(t.get("data"), dict) else None
            done = t.get("status") == "completed"
            value = accepted_value(plan, step, str(t.get("text", "")), data, done)  # planning/salvage.py
            if value is not None and t.get("status") in ("completed", "failed"):
                outcome = StepOutcome(
                    step, str(t.get("assignee_name", "")), value, "completed", _citation(data)
                )
                break
        last_done = tried[-1] if tried and tried[-1].get("status") == "completed" else None
        wrong_kind = _wrong_kind(step, last_done) if outcome.status != "completed" else None
        if outcome.status != "completed" and tried and wrong_kind is None:  # nothing in the documents
            wrong_kind = absence_refusal(step, [_data(t) for t in tried if t.get("status") != "completed"])
        if wrong_kind is not None:  # a value of another dimension: the quantity asked for is missing
            outcome = StepOutcome(step, status=MISSING, missing=wrong_kind)
        elif outcome.status != "completed" and tried:
            last = tried[-1]
            outcome = StepOutcome(
                step,
                str(last.get("assignee_name", "")),
                None,
                "failed",
                None,
                str(last.get("text", ""))[:200],
            )
        outcomes[step.index] = outcome
        if outcome.value is not None:
            values[step.index] = outcome.value
    _, info = conclusion(plan, outcomes)
    return {
        "answer": info["answer"],  # "" when a needed step failed (the conclusion says what is missing)
        "steps": info["steps"],
        "citations": info["citations"],
        "complete": not info["missing"],
    }


def _data(task: Mapping[str, Any]) -> Mapping[str, Any] | None:
    data = task.get("data")
    return data if isinstance(data, dict) else None


def _wrong_kind(step: PlanStep, task: Mapping[str, Any] | None) -> Missing | None:
    """The quantity ``step`` asks for when the completed ``task`` gave a value of another dimension."""
    if task is None:
        return None
    data = task.get("data") if isinstance(task.get("data"), dict) else None
    return dimension_refusal(step, value_of(str(task.get("text", "")), data, step.template))


def needs_work(plan: Plan) -> bool:
    """The goal has a step some agent must do (a calculation, code, a date, a lookup): a conclusion
    without any task cannot have done it. A goal of generic steps only may be answered in the conclusion."""
    return any(step.kind != TASK for step in plan.steps)


def _citation(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    raw = data.get("citation") if data else None
    if isinstance(raw, dict) and raw.get("path"):
        return {"path": str(raw["path"]), "line": raw.get("line"), "text": str(raw.get("text", ""))[:500]}
    return None


def _task_step(i: int, task: Mapping[str, Any]) -> dict[str, Any]:
    data = task.get("data") if isinstance(task.get("data"), dict) else None
    value = value_of(str(task.get("text", "")), data) if task.get("status") == "completed" else None
    return {
        "step": i,
        "kind": "task",
        "what": str(task.get("description", ""))[:300],
        "who": str(task.get("assignee_name", "")),
        "status": str(task.get("status", "")),
        "value": value.to_dict() if value else None,
        "_citation": _citation(data),
    }


__all__ = ["goal_report", "needs_work"]
