"""A goal planned offline and each step done by the real retrieval or calculator adapter, in process: the
end-to-end check the planning tests share (no network, no node; the adapters are the product's own)."""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters.base import Task, TaskContext, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.planning import CALC, LOOKUP, describe, plan_request, value_of
from ioa_p2p.planning.values import Value


async def _no_progress(_: object) -> None:
    return None


async def answer_through_adapters(goal: str, docs: Path) -> float | None:
    """The goal planned, each step done by a retrieval adapter over ``docs`` or the calculator; the last
    step's number (every step must succeed and yield a value)."""
    librarian = adapter_from_config(
        {"name": "librarian", "adapter": "retrieval", "options": {"path": str(docs)}}
    )
    calculator = adapter_from_config({"name": "calculator", "adapter": "calculator"})
    plan = plan_request(goal)
    values: dict[int, Value] = {}
    try:
        for step in plan.steps:
            assert step.kind in (LOOKUP, CALC), step
            adapter = librarian if step.kind == LOOKUP else calculator
            task = Task(describe(step, values), (), trio.current_time() + 30, "t", "c")
            result = await run_task(adapter, task, TaskContext(_no_progress))
            assert result.ok, result.text
            found = value_of(result.text, result.data, step.template)
            assert found is not None
            values[step.index] = found
    finally:
        await librarian.aclose()
        await calculator.aclose()
    return values[len(plan.steps)].number
