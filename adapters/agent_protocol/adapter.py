"""Kind ``agent_protocol``: AutoGPT and other agents that speak the Agent Protocol (v1).

Each task: ``POST /ap/v1/agent/tasks`` with the task text, then ``POST .../steps`` one step at a time (each
step is a progress report) until a step says ``is_last`` or ``max_steps`` steps ran; then the task's
artifacts are downloaded into the result's files (within the result limits; the rest are listed in
``data["files_skipped"]``). The result text is the last step's output (or, when that is empty, the outputs of
all steps). The agent is talked to over plain HTTP with ``httpx`` (the ``agent-protocol`` package pins an old
pydantic and cannot share this environment).

Failure mapping: the step budget used up without a last step -> ``task_error``; the deadline (or
``timeout``) -> ``timeout``, and we simply stop stepping (Agent Protocol v1 has no cancel: the remote task
stays where it was); HTTP 400/422 on creating the task -> ``rejected``; other HTTP errors, an unreachable
agent -> ``crash``; answers without the fields we need -> ``bad_output``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
import trio

from ioa_p2p.adapters.agent_protocol.client import AgentProtocolClient, AgentProtocolError, Step
from ioa_p2p.adapters.base import (
    BAD_OUTPUT,
    CRASH,
    MAX_FILES,
    REJECTED,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.remote import (
    FileCollector,
    check_http_url,
    clip_text,
    expand_headers,
    fit_card,
    header_secrets,
    hide_secrets,
    open_http_client,
    usage_record,
)
from ioa_p2p.errors import AdapterOptionsError, IoAError, IoATimeout, MessageTooLarge, ProtocolViolation

KIND = "agent_protocol"


@dataclass(frozen=True, slots=True)
class AgentProtocolOptions:
    url: str  # the agent's base URL (the endpoints are under /ap/v1)
    headers: dict[str, Any] = field(default_factory=dict)  # ${ENV_VAR} allowed in values
    max_steps: int = 50  # steps per task
    step_timeout: float = 300.0  # seconds one step request may take
    timeout: float = 1800.0  # cap on a whole task (the task deadline usually ends it first)
    max_response_kb: int = 1024  # per HTTP response (a step, an artifact)
    max_artifacts: int = MAX_FILES  # artifacts downloaded per task
    name: str = "Agent Protocol agent"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text",)


def _validate(o: AgentProtocolOptions) -> None:
    check_http_url(o.url, kind="agent_protocol")
    if not (o.max_steps >= 1 and o.step_timeout > 0 and o.timeout > 0 and o.max_response_kb >= 1):
        raise AdapterOptionsError(
            "adapter 'agent_protocol': max_steps, timeouts and max_response_kb must be > 0"
        )
    if not 0 <= o.max_artifacts <= MAX_FILES:
        raise AdapterOptionsError(f"adapter 'agent_protocol' option max_artifacts must be 0..{MAX_FILES}")


@dataclass
class _Run:
    task_id: str = ""
    steps: list[Step] = field(default_factory=list)


class AgentProtocolAdapter:
    """An Agent Protocol agent as this node's adapter (see the module docstring)."""

    #: Agent Protocol agents publish no card: the operator describes it (description, skills).
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(self_described=False, calls_remote=True)
    OPTIONS: ClassVar[type] = AgentProtocolOptions

    def __init__(self, options: AgentProtocolOptions, *, env: Mapping[str, str] | None = None) -> None:
        _validate(options)
        self.options = options
        self._headers = expand_headers(options.headers, kind=KIND, env=env)
        self._secrets = header_secrets(self._headers)
        self._http: httpx.AsyncClient | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> AgentProtocolAdapter:
        return cls(parse_options(AgentProtocolOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        description = o.description or f"An Agent Protocol agent at {urlsplit(o.url).hostname}."
        return fit_card(
            name=o.name, description=description, skills=o.skills, kind=KIND, task_types=o.task_types
        )

    def _client(self) -> AgentProtocolClient:
        if self._http is None:
            self._http = open_http_client(
                max_response_bytes=self.options.max_response_kb * 1024,
                timeout=self.options.step_timeout,
                headers=self._headers,
            )
        return AgentProtocolClient(self._http, self.options.url, self._secrets)

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = time.monotonic()
        client = self._client()
        run = _Run()
        with trio.move_on_after(self.options.timeout) as waited:
            try:
                result = await self._steps(client, task, ctx, run)
                if result.ok:
                    result = await self._with_artifacts(client, run, result, ctx)
            except (IoAError, httpx.HTTPError) as exc:
                result = self._failure(exc, run, client)
        if waited.cancelled_caught:
            result = self._stopped(run, f"did not finish within {self.options.timeout:g} s")
        data = {**result.data, "usage": usage_record(wall_ms=int((time.monotonic() - started) * 1000))}
        return TaskResult(result.ok, result.text, data, result.files, result.failure)

    async def _steps(
        self, client: AgentProtocolClient, task: Task, ctx: TaskContext, run: _Run
    ) -> TaskResult:
        run.task_id = await client.create_task(
            task.text, {"ioa_task_id": task.task_id, "ioa_chat_id": task.chat_id}
        )
        await ctx.progress(f"remote task {run.task_id} created")
        # Our deadline or the chat ending just stops the stepping: Agent Protocol v1 has no cancel.
        for n in range(1, self.options.max_steps + 1):
            step = await client.execute_step(run.task_id)
            run.steps.append(step)
            label = f"step {n}" + (f" ({step.name})" if step.name else "")
            await ctx.progress(f"{label}: {step.output[:300]}" if step.output else label)
            if step.is_last:
                return self._answer(run)
        reason = f"the agent did not finish within max_steps = {self.options.max_steps} steps"
        return TaskResult.failed(TASK_ERROR, reason, data=self._data(run))

    def _answer(self, run: _Run) -> TaskResult:
        last = run.steps[-1].output.strip()
        text = last or "\n\n".join(s.output for s in run.steps if s.output).strip()
        text = hide_secrets(text, self._secrets)
        return TaskResult.success(
            clip_text(text or "(the agent's steps had no output)"), data=self._data(run)
        )

    async def _with_artifacts(
        self, client: AgentProtocolClient, run: _Run, result: TaskResult, ctx: TaskContext
    ) -> TaskResult:
        if self.options.max_artifacts == 0:
            return result
        artifacts = await client.list_artifacts(run.task_id, self.options.max_artifacts)
        files = FileCollector(max_files=self.options.max_artifacts)
        for artifact in artifacts:
            if files.room() <= 0:
                files.skipped.append(artifact.path or artifact.artifact_id)
                continue
            try:
                content = await client.download(run.task_id, artifact.artifact_id)
            except MessageTooLarge:
                files.skipped.append(f"{artifact.path} (over max_response_kb)")
                continue
            files.add(artifact.path, content, fallback=f"artifact-{artifact.artifact_id[:40]}")
        if artifacts:
            await ctx.progress(f"downloaded {len(files.files)} artifact(s)")
        data = dict(result.data)
        data["agent_protocol"]["artifacts"] = [a.path for a in artifacts]
        if files.skipped:
            data["files_skipped"] = files.skipped
        return TaskResult.success(result.text, data=data, files=files.files)

    def _data(self, run: _Run) -> dict[str, Any]:
        outputs = [hide_secrets(s.output, self._secrets)[:500] for s in run.steps[-50:]]
        return {"agent_protocol": {"task_id": run.task_id, "steps": len(run.steps), "outputs": outputs}}

    def _stopped(self, run: _Run, why: str) -> TaskResult:
        reason = (
            f"{self.options.url}: the agent {why}; stopped after {len(run.steps)} step(s) "
            "(Agent Protocol has no cancel: its task stays as it was)"
        )
        return TaskResult.failed(TIMEOUT, reason, data=self._data(run))

    def _failure(self, exc: Exception, run: _Run, client: AgentProtocolClient) -> TaskResult:
        data = self._data(run)
        if isinstance(exc, AgentProtocolError):
            data["agent_protocol"]["status"] = exc.status
            kind = REJECTED if not run.task_id and exc.status in (400, 422) else CRASH
            return TaskResult.failed(kind, str(exc), data=data)
        if isinstance(exc, IoATimeout):
            return self._stopped(run, "did not answer a step in time")
        if isinstance(exc, ProtocolViolation | MessageTooLarge):
            return TaskResult.failed(BAD_OUTPUT, str(exc), data=data)
        return TaskResult.failed(CRASH, str(exc), data=data)

    async def aclose(self) -> None:
        http, self._http = self._http, None
        if http is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await http.aclose()


__all__ = ["AgentProtocolAdapter", "AgentProtocolOptions"]
