"""Kind ``smolagents``: a Hugging Face smolagents ``CodeAgent`` or ``ToolCallingAgent`` built from config.

The agent talks to the same OpenAI-compatible endpoint as the node (option ``model``, the keys of the
node's ``[model]`` table; the node fills it from ``[model]`` when it is absent) through smolagents' own
``OpenAIServerModel``. A fresh agent is built per task (smolagents agents keep per-run memory and are not
thread-safe) and runs in a worker thread (:func:`~ioa_p2p.adapters.remote.run_blocking`): every agent step
is a progress report; our deadline or the chat ending interrupts the agent at its next step and abandons
the thread (the model client's own ``timeout`` bounds how long it lingers).

Failure mapping: the agent used ``max_steps`` without a final answer -> ``task_error`` (with the forced
answer smolagents made, when it made one); the model endpoint failing (unreachable, HTTP errors) ->
``crash`` with the reason; the deadline or ``timeout`` -> ``timeout``; any other smolagents error ->
``task_error`` with its message. Usage: smolagents' token counts from the server's ``usage`` ("unknown"
when a step had none), tool calls (each code action of a ``CodeAgent`` counts as one), wall time.

``CodeAgent`` executes model-written Python with smolagents' executor (``executor_type = "local"``: an
AST interpreter in the node's process restricted to ``authorized_imports``, not an OS sandbox; "docker",
"e2b", "modal" run it elsewhere), so the kind declares ``executes_code`` (``NEEDS``; invitations from known
peers only by default, docs/security.md).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import (
    CRASH,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.optional_deps import import_optional
from ioa_p2p.adapters.remote import (
    Endpoint,
    Report,
    clip_text,
    endpoint_from_settings,
    fit_card,
    fit_data,
    hide_secrets,
    run_blocking,
    strip_userinfo,
    task_prompt,
    usage_record,
)
from ioa_p2p.errors import AdapterOptionsError

KIND = "smolagents"
EXTRA = "smolagents"
AGENT_TYPES = ("code", "tool_calling")
EXECUTORS = ("local", "docker", "e2b", "modal", "blaxel")


@dataclass(frozen=True, slots=True)
class SmolagentsOptions:
    agent: str = "code"  # "code" (CodeAgent) | "tool_calling" (ToolCallingAgent)
    model: dict[str, Any] = field(default_factory=dict)  # the [model] keys; the node fills it from [model]
    tools: tuple[str, ...] = ()  # smolagents default tools by name: python_interpreter, web_search, ...
    authorized_imports: tuple[str, ...] = ()  # CodeAgent: modules beyond smolagents' safe base list
    executor_type: str = "local"  # CodeAgent: where the code runs
    max_steps: int = 10
    planning_interval: int | None = None
    instructions: str = ""  # appended to smolagents' system prompt
    timeout: float = 600.0  # cap on one task (the task deadline usually ends it first)
    max_concurrent: int = 2  # agents running at once (each in a worker thread)
    name: str = "smolagents agent"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text", "question", "code")


def _validate(o: SmolagentsOptions, tool_names: tuple[str, ...]) -> None:
    if o.agent not in AGENT_TYPES:
        raise AdapterOptionsError(
            f"adapter 'smolagents' option agent must be one of {AGENT_TYPES}, not {o.agent!r}"
        )
    if o.executor_type not in EXECUTORS:
        raise AdapterOptionsError(f"adapter 'smolagents' option executor_type must be one of {EXECUTORS}")
    unknown = sorted(set(o.tools) - set(tool_names))
    if unknown:
        raise AdapterOptionsError(
            f"adapter 'smolagents': unknown tools {unknown}; known: {sorted(tool_names)}"
        )
    if not (1 <= o.max_steps <= 200 and o.timeout > 0 and 1 <= o.max_concurrent <= 16):
        raise AdapterOptionsError(
            "adapter 'smolagents': max_steps must be 1..200, timeout > 0, max_concurrent 1..16"
        )
    if o.planning_interval is not None and o.planning_interval < 1:
        raise AdapterOptionsError("adapter 'smolagents' option planning_interval must be >= 1")


class SmolagentsAdapter:
    """A smolagents agent as this node's adapter (see the module docstring)."""

    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(model=True, executes_code=True)
    OPTIONS: ClassVar[type] = SmolagentsOptions

    def __init__(self, options: SmolagentsOptions, *, env: Mapping[str, str] | None = None) -> None:
        self._smol = import_optional("smolagents", kind=KIND, extra=EXTRA)
        from smolagents.default_tools import TOOL_MAPPING

        self._tool_classes = dict(TOOL_MAPPING)
        _validate(options, tuple(self._tool_classes))
        self.options = options
        self.endpoint: Endpoint = endpoint_from_settings(options.model, kind=KIND, env=env)
        self._secrets = [self.endpoint.api_key] if self.endpoint.api_key != "unused" else []
        self._slots = trio.CapacityLimiter(options.max_concurrent)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> SmolagentsAdapter:
        return cls(parse_options(SmolagentsOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        kind = "CodeAgent" if o.agent == "code" else "ToolCallingAgent"
        tools = f" with tools {', '.join(o.tools)}" if o.tools else ""
        description = o.description or f"A smolagents {kind} on {self.endpoint.model}{tools}."
        return fit_card(
            name=o.name,
            description=description,
            skills=o.skills + o.tools,
            kind=KIND,
            task_types=o.task_types,
        )

    def _build(self, report: Report) -> Any:
        """A fresh smolagents agent (called in the worker thread)."""
        smol, o, e = self._smol, self.options, self.endpoint
        model_kwargs: dict[str, Any] = {} if e.temperature is None else {"temperature": e.temperature}
        model = smol.OpenAIServerModel(
            model_id=e.model,
            api_base=e.base_url,
            api_key=e.api_key,
            client_kwargs={"timeout": e.timeout, "max_retries": e.max_retries},
            **model_kwargs,
        )
        common: dict[str, Any] = {
            "tools": [self._tool_classes[name]() for name in o.tools],
            "model": model,
            "max_steps": o.max_steps,
            "planning_interval": o.planning_interval,
            "instructions": o.instructions or None,
            "verbosity_level": smol.LogLevel.OFF,
            "step_callbacks": {smol.ActionStep: lambda step: report(_step_line(step))},
            "return_full_result": True,
        }
        if o.agent == "code":
            return smol.CodeAgent(
                additional_authorized_imports=list(o.authorized_imports),
                executor_type=o.executor_type,
                **common,
            )
        return smol.ToolCallingAgent(**common)

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = time.monotonic()
        holder: dict[str, Any] = {}
        prompt = task_prompt(task)

        def work(report: Report) -> Any:
            agent = holder["agent"] = self._build(report)
            try:
                return agent.run(prompt)
            finally:
                cleanup = getattr(agent, "cleanup", None)
                if callable(cleanup):
                    cleanup()

        def interrupt() -> None:
            agent = holder.get("agent")
            if agent is not None:
                agent.interrupt()

        result: TaskResult | None = None
        outcome: Any = None
        async with self._slots:
            await ctx.progress(f"smolagents {self.options.agent} agent started on {self.endpoint.model}")
            with trio.move_on_after(self.options.timeout):
                try:
                    outcome = await run_blocking(work, ctx, interrupt=interrupt)
                except Exception as exc:
                    result = self._failure(exc)
        if result is None:
            result = (
                self._answer(outcome)
                if outcome is not None
                else TaskResult.failed(
                    TIMEOUT, f"the smolagents agent did not finish within {self.options.timeout:g} s"
                )
            )
        return self._with_usage(result, holder.get("agent"), started)

    def _answer(self, run: Any) -> TaskResult:
        text = hide_secrets(str(run.output), self._secrets)
        data = {
            "smolagents": {
                "agent": self.options.agent,
                "state": str(run.state),
                "output": fit_data(run.output),
            }
        }
        if run.state == "max_steps_error":
            limit = self.options.max_steps
            reason = f"the agent did not finish within max_steps = {limit}; its last answer: {text}"
            return TaskResult.failed(TASK_ERROR, clip_text(reason), data=data)
        return TaskResult.success(clip_text(text or "(the agent answered nothing)"), data=data)

    def _failure(self, exc: Exception) -> TaskResult:
        from smolagents.utils import AgentError, AgentGenerationError

        said = hide_secrets(str(exc), self._secrets)[:2000]
        where = f"the model endpoint {strip_userinfo(self.endpoint.base_url or 'https://api.openai.com/v1')}"
        if isinstance(exc, AgentGenerationError):
            return TaskResult.failed(CRASH, f"smolagents could not get an answer from {where}: {said}")
        if isinstance(exc, AgentError):
            return TaskResult.failed(TASK_ERROR, f"the smolagents agent failed: {said}")
        return TaskResult.failed(CRASH, f"the smolagents agent crashed: {type(exc).__name__}: {said}")

    def _with_usage(self, result: TaskResult, agent: Any, started: float) -> TaskResult:
        steps = [
            s
            for s in getattr(getattr(agent, "memory", None), "steps", ())
            if type(s).__name__ == "ActionStep"
        ]
        reported = [getattr(s, "token_usage", None) for s in steps]
        usages = [u for u in reported if u is not None]
        known = bool(reported) and len(usages) == len(reported)
        usage = usage_record(
            wall_ms=int((time.monotonic() - started) * 1000),
            model=self.endpoint.model_id,
            prompt_tokens=sum(u.input_tokens for u in usages if u is not None) if known else None,
            completion_tokens=sum(u.output_tokens for u in usages if u is not None) if known else None,
            tool_calls=sum(len(getattr(s, "tool_calls", None) or ()) for s in steps),
        )
        data = dict(result.data)
        info = dict(data.get("smolagents") or {"agent": self.options.agent})
        info["steps"] = len(steps)
        data["smolagents"] = info
        data["usage"] = usage
        return TaskResult(result.ok, result.text, data, result.files, result.failure)

    async def aclose(self) -> None:
        pass


def _step_line(step: Any) -> str:
    """One progress line for a finished smolagents ActionStep."""
    n = getattr(step, "step_number", "?")
    if getattr(step, "error", None) is not None:
        return f"step {n}: error: {str(step.error)[:300]}"
    calls = [c.name for c in getattr(step, "tool_calls", None) or ()]
    observed = " ".join(str(getattr(step, "observations", "") or "").split())[:300]
    head = f"step {n}" + (f" ({', '.join(calls)})" if calls else "")
    if getattr(step, "is_final_answer", False):
        return f"{head}: final answer"
    return f"{head}: {observed}" if observed else head


__all__ = ["SmolagentsAdapter", "SmolagentsOptions"]
