"""The tool-using loop of the ``llm`` kind: a model, a set of tools, hard limits.

:class:`ToolLoop` solves a task with tools (it is the :class:`~ioa_p2p.adapters.mcp.ToolChooser` the ``mcp``
kind uses too). Each **step** is one model call; then the tool calls it asked for run and their results go
back to the model, until it answers without calling a tool.

- **Native tool calls** (``mode = "native"``): the tools are sent as OpenAI ``tools``; a reply with
  ``tool_calls`` calls them, a reply with text only is the answer.
- **JSON ReAct** (``mode = "react"``): the tools are described in the prompt; the model answers with one JSON
  object, ``{"tool": NAME, "arguments": {...}}`` to call a tool or ``{"answer": TEXT}`` to finish; each
  result comes back as an ``Observation:`` message.
- ``mode = "auto"`` (default) starts native and switches to ReAct for good when the server refuses the
  ``tools`` field (HTTP 400); a native reply whose text is a ReAct action is honoured too (servers that
  ignore ``tools``).

**Hard limits** (:class:`Limits`): ``max_steps`` model calls; ``max_tokens`` prompt + completion tokens as
the server reports them (estimated from characters when it reports none); ``time_limit`` seconds of wall
time, cut to the task deadline minus a margin so the answer is still delivered. A limit reached ends the task
with what is known (``task_error`` for steps and tokens, ``timeout`` for time). **Bad model output costs one
step, never the task**: arguments that are not JSON, an unknown tool, a ReAct reply that is no action, an
empty reply: the model is told what was wrong and the loop goes on. A model server that cannot be reached
or fails is a ``crash`` with the reason. Every step is a progress report.

**Traces** (when the node traces; :func:`~ioa_p2p.telemetry.tracer.current_tracer`): each model call is a
``chat <model>`` span with its tokens (:mod:`ioa_p2p.llm.traced`), each tool call an ``execute_tool <name>``
span, under the task's span.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from ioa_p2p.adapters.base import CRASH, TASK_ERROR, TIMEOUT, Task, TaskContext, TaskResult
from ioa_p2p.adapters.remote import FileCollector, clip_text, task_prompt, usage_record
from ioa_p2p.adapters.toolloop.prompts import observation, react_system, system_prompt
from ioa_p2p.adapters.toolloop.spec import CallTool, ToolSpec
from ioa_p2p.errors import IoAError, IoATimeout, ModelError, ModelOutputError
from ioa_p2p.llm import Model, ModelReply, ToolCall, parse_json_object
from ioa_p2p.llm.traced import traced_complete
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import current_tracer

MODES = ("auto", "native", "react")
MAX_CALLS_PER_STEP = 8
DEADLINE_MARGIN = 2.0  # seconds kept before the task deadline to deliver the answer


@dataclass(frozen=True, slots=True)
class Limits:
    max_steps: int = 8
    max_tokens: int = 50_000
    time_limit: float = 300.0
    max_observation_chars: int = 4000


@dataclass
class _Meter:
    """Usage of one task: tokens as reported (None once a reply had none), an estimate for the limit."""

    prompt: int | None = 0
    completion: int | None = 0
    estimate: int = 0
    tool_calls: int = 0
    steps: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, reply: ModelReply, sent_chars: int) -> None:
        if reply.prompt_tokens is None or reply.completion_tokens is None:
            self.prompt = self.completion = None
            self.estimate += (
                sent_chars + len(reply.text) + sum(len(c.arguments) for c in reply.tool_calls)
            ) // 4
            return
        if self.prompt is not None and self.completion is not None:
            self.prompt += reply.prompt_tokens
            self.completion += reply.completion_tokens
        self.estimate += reply.prompt_tokens + reply.completion_tokens

    @property
    def tokens(self) -> int:
        return self.estimate


class _BadOutput(Exception):
    """The model's reply cannot be used; the text tells it why (costs the step)."""


class ToolLoop:
    """See the module docstring. One instance serves many tasks (it remembers a server without tools)."""

    def __init__(
        self, model: Model, *, mode: str = "auto", limits: Limits | None = None, instructions: str = ""
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.model = model
        self.mode = mode
        self.limits = limits or Limits()
        self.instructions = instructions
        self._native = mode != "react"

    async def solve(
        self, task: Task, tools: Sequence[ToolSpec], call_tool: CallTool, ctx: TaskContext
    ) -> TaskResult:
        started = time.monotonic()
        meter = _Meter()
        files = FileCollector()
        budget = min(self.limits.time_limit, max(0.1, task.remaining() - DEADLINE_MARGIN))
        result: TaskResult | None = None
        with trio.move_on_after(budget) as scope:
            try:
                result = await self._steps(task, tools, call_tool, ctx, meter, files)
            except IoAError as exc:  # the model server: unreachable, failing, too slow
                kind = TIMEOUT if isinstance(exc, IoATimeout) else CRASH
                result = TaskResult.failed(kind, f"the model failed at step {meter.steps}: {exc}")
        if scope.cancelled_caught or result is None:
            why = f"the tool loop ran out of time ({budget:.0f} s) after {meter.steps} step(s)"
            result = TaskResult.failed(TIMEOUT, why)
        return self._finish(result, meter, files, started)

    async def _steps(
        self,
        task: Task,
        tools: Sequence[ToolSpec],
        call_tool: CallTool,
        ctx: TaskContext,
        meter: _Meter,
        files: FileCollector,
    ) -> TaskResult:
        by_name = {t.name: t for t in tools}
        native = self._native
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system(tools, native)},
            {"role": "user", "content": task_prompt(task)},
        ]
        limit = self.limits.max_steps
        while meter.steps < limit:
            if meter.tokens >= self.limits.max_tokens:
                cap = self.limits.max_tokens
                why = f"the token budget (max_tokens = {cap}) is used up after {meter.steps} steps"
                return TaskResult.failed(TASK_ERROR, why)
            meter.steps += 1
            step = meter.steps
            try:
                reply = await self._complete(messages, tools if native else (), meter)
            except _NoNativeTools:
                native = self._native = False
                messages[0] = {"role": "system", "content": self._system(tools, native)}
                await ctx.progress(f"step {step}/{limit}: the server takes no tools; using JSON actions")
                reply = await self._complete(messages, (), meter)
            try:
                done = await self._act(reply, native, by_name, call_tool, messages, meter, files, ctx, step)
            except _BadOutput as bad:
                messages.append({"role": "user", "content": f"Your last reply could not be used: {bad}"})
                await ctx.progress(f"step {step}/{limit}: unusable model output ({str(bad)[:200]})")
                continue
            if done is not None:
                await ctx.progress(f"step {step}/{limit}: final answer", 1.0)
                return TaskResult.success(clip_text(done))
        why = f"the model did not finish within max_steps = {limit} steps"
        return TaskResult.failed(TASK_ERROR, why)

    def _system(self, tools: Sequence[ToolSpec], native: bool) -> str:
        if native:
            return system_prompt(tools, self.instructions, react_fallback=self.mode == "auto")
        return react_system(tools, self.instructions)

    async def _complete(
        self, messages: list[dict[str, Any]], tools: Sequence[ToolSpec], meter: _Meter
    ) -> ModelReply:
        schema = [t.as_openai_tool() for t in tools] or None
        try:
            reply = await traced_complete(self.model, messages, tools=schema)  # a `chat <model>` span
        except ModelError as exc:
            if schema and self.mode == "auto" and "HTTP 400" in str(exc):
                raise _NoNativeTools from exc
            raise
        meter.add(reply, sum(len(str(m.get("content") or "")) for m in messages))
        return reply

    async def _act(
        self,
        reply: ModelReply,
        native: bool,
        tools: dict[str, ToolSpec],
        call_tool: CallTool,
        messages: list[dict[str, Any]],
        meter: _Meter,
        files: FileCollector,
        ctx: TaskContext,
        step: int,
    ) -> str | None:
        """Run what the reply asks for; the final answer, or None to go on. Raises _BadOutput."""
        if native and reply.tool_calls:
            messages.append(reply.as_message())
            names = []
            for call in reply.tool_calls[:MAX_CALLS_PER_STEP]:
                text = await self._call(call.name, _arguments(call), tools, call_tool, meter, files)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                names.append(call.name)
            await ctx.progress(f"step {step}/{self.limits.max_steps}: called {', '.join(names)}")
            return None
        action = _react_action(reply.text, tools, strict=not native)
        if action is None:  # native mode, plain text: the answer
            if not reply.text.strip():
                raise _BadOutput("it was empty; call a tool or give the final answer")
            return reply.text.strip()
        messages.append({"role": "assistant", "content": reply.text})
        if "answer" in action:
            return str(action["answer"]).strip() or "(empty answer)"
        name, args = action["tool"], action["arguments"]
        text = await self._call(name, args, tools, call_tool, meter, files)
        messages.append({"role": "user", "content": "Observation: " + text})
        await ctx.progress(f"step {step}/{self.limits.max_steps}: called {name}")
        return None

    async def _call(
        self,
        name: str,
        args: dict[str, Any] | ModelOutputError,
        tools: dict[str, ToolSpec],
        call_tool: CallTool,
        meter: _Meter,
        files: FileCollector,
    ) -> str:
        """One tool call's observation text (a bad call is an observation too: the model can correct it)."""
        if isinstance(args, ModelOutputError):
            meter.calls.append({"tool": name, "ok": False, "error": "bad arguments"})
            return f"error: the arguments for {name} are not one JSON object ({args}); call it again"
        if name not in tools:
            meter.calls.append({"tool": name[:64], "ok": False, "error": "unknown tool"})
            return f"error: there is no tool named {name[:64]!r}; the tools are: {', '.join(tools)}"
        meter.tool_calls += 1
        about = {tr.GEN_AI_OPERATION: "execute_tool", tr.GEN_AI_TOOL_NAME: name}
        with current_tracer().span(f"execute_tool {name}", attributes=about) as span:
            result = await call_tool(name, args)
            if not result.ok:
                span.record_error(result.failure or "failed", result.text[:200])
        meter.calls.append({"tool": name, "ok": result.ok, "failure": result.failure})
        kept = [files.add(path, content) for path, content in result.files.items()]
        return observation(result, [k for k in kept if k], self.limits.max_observation_chars)

    def _finish(self, result: TaskResult, meter: _Meter, files: FileCollector, started: float) -> TaskResult:
        usage = usage_record(
            wall_ms=int((time.monotonic() - started) * 1000),
            model=self.model.model_id,
            prompt_tokens=meter.prompt,
            completion_tokens=meter.completion,
            tool_calls=meter.tool_calls,
        )
        info: dict[str, Any] = {
            "mode": "native" if self._native else "react",
            "steps": meter.steps,
            "calls": meter.calls[-50:],
        }
        if files.skipped:
            info["files_skipped"] = files.skipped
        data = {**result.data, "llm": info, "usage": usage}
        return TaskResult(result.ok, result.text, data, files.files, result.failure)


class _NoNativeTools(Exception):
    """The server refused the ``tools`` field (auto mode switches to ReAct)."""


def _arguments(call: ToolCall) -> dict[str, Any] | ModelOutputError:
    try:
        return call.parsed()
    except ModelOutputError as exc:
        return exc


def _react_action(text: str, tools: dict[str, ToolSpec], *, strict: bool) -> dict[str, Any] | None:
    """``{"tool", "arguments"}`` or ``{"answer"}`` from a ReAct reply. Not strict (native mode): None when
    the text is no action. Strict: raises _BadOutput for anything but one valid action."""
    try:
        obj = parse_json_object(text)
    except ModelOutputError:
        if strict:
            raise _BadOutput(
                'reply with exactly one JSON object: {"tool": NAME, "arguments": {...}} or {"answer": TEXT}'
            ) from None
        return None
    if "answer" in obj and "tool" not in obj:
        return {"answer": obj["answer"] if isinstance(obj["answer"], str) else json.dumps(obj["answer"])}
    tool = obj.get("tool") or obj.get("action") or obj.get("name")
    if not isinstance(tool, str) or (not strict and tool not in tools):
        if strict:
            raise _BadOutput('the JSON object needs "tool" (a tool name) or "answer"')
        return None
    arguments = obj.get("arguments", obj.get("input", obj.get("args", {})))
    if isinstance(arguments, str):
        try:
            arguments = parse_json_object(arguments)
        except ModelOutputError:
            arguments = ModelOutputError(f"arguments {arguments[:100]!r} are not an object")
    if not isinstance(arguments, dict | ModelOutputError):
        arguments = ModelOutputError("arguments must be a JSON object")
    return {"tool": tool, "arguments": arguments}


__all__ = ["DEADLINE_MARGIN", "MODES", "Limits", "ToolLoop"]
