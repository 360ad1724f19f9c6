"""Kind ``echo``: a deterministic adapter FOR TESTS ONLY (it does no useful work).

It answers ``echo: <task text>`` after ``delay`` seconds (reporting progress in ``steps`` steps; with
``prompt_tokens`` and ``completion_tokens`` it reports them as its usage, like an agent over a model), or
misbehaves on purpose (``fail = "crash" | "bad_output" | "reject" | "hang"``) so tests and demos
can drive every failure path of the conversation through real nodes. Its card says it is a test
adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.config.sections import setting
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

KIND = "echo"
FAILURE_MODES = ("", "crash", "bad_output", "reject", "hang")


@dataclass(frozen=True, slots=True)
class EchoOptions:
    delay: float = 0.0
    steps: int = 1
    fail: str = ""
    name: str = "echo (test adapter)"
    skills: tuple[str, ...] = ("echo",)
    #: Token counts it reports as its usage (None: it reports none, as most agents without a model).
    prompt_tokens: int | None = setting(None, low=0)
    completion_tokens: int | None = setting(None, low=0)


class EchoAdapter:
    """Echoes the task text. Testing only."""

    OPTIONS: ClassVar[type] = EchoOptions  # what `ioa adapters` lists

    def __init__(self, options: EchoOptions) -> None:
        if options.fail not in FAILURE_MODES:
            raise AdapterOptionsError(f"echo option fail must be one of {FAILURE_MODES}")
        if options.delay < 0 or options.steps < 1:
            raise AdapterOptionsError("echo options: delay must be >= 0 and steps >= 1")
        self.options = options
        self.runs = 0
        self.closed = False

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> EchoAdapter:
        return cls(parse_options(EchoOptions, options, KIND))

    def describe(self) -> AdapterCard:
        return AdapterCard(
            name=self.options.name,
            description="TEST ADAPTER: repeats the task text back; does no real work.",
            skills=self.options.skills,
            kind=KIND,
            task_types=("text",),
        )

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        self.runs += 1
        opts = self.options
        for step in range(opts.steps):
            await trio.sleep(opts.delay / opts.steps)
            await ctx.progress(f"step {step + 1}/{opts.steps}", (step + 1) / opts.steps)
        if opts.fail == "crash":
            raise RuntimeError("echo adapter asked to crash")
        if opts.fail == "bad_output":
            return "not a TaskResult"  # type: ignore[return-value]
        if opts.fail == "reject":
            raise TaskRejected("echo adapter asked to reject every task")
        if opts.fail == "hang":
            await trio.sleep_forever()
        data: dict[str, Any] = {"context_messages": len(task.context)}
        if opts.prompt_tokens is not None and opts.completion_tokens is not None:
            data["usage"] = {
                "model": "echo",
                "prompt_tokens": opts.prompt_tokens,
                "completion_tokens": opts.completion_tokens,
                "tool_calls": 1,
            }
        return TaskResult.success(f"echo: {task.text}", data=data)

    async def aclose(self) -> None:
        self.closed = True


__all__ = ["EchoAdapter", "EchoOptions"]
