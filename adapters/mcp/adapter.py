"""Kind ``mcp``: an agent whose abilities are the tools of one Model Context Protocol server.

The server is a stdio command (``command = ["python", "server.py"]``, a child process) or a streamable HTTP
endpoint (``url``). When the adapter is started (at node start) it starts/connects to the server, lists its
tools into the card, and keeps that session (and process) until ``aclose``. A task that names a tool with
arguments (:mod:`.task_syntax`) is called directly; a task that names none goes to the :class:`ToolChooser`
(a language-model loop) when one is configured, otherwise it is rejected saying how to name a tool.

**Server start-up failures are failed tasks with the server's message**, not a failed node start: if the
server cannot be started at node start, the card is built from the options, a warning is logged, and every
task tries to start the server again (within its deadline) and fails with ``crash`` and the server's own words
(its stderr tail) while it cannot. A long-lived server that dies is replaced the same way, per task. Tool
errors are ``task_error`` results with the server's message; a call past ``call_timeout`` is ``timeout``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import mcp
import trio

from ioa_p2p.adapters.base import CRASH, TIMEOUT, AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.lifecycle import Lifetime
from ioa_p2p.adapters.mcp.connection import ServerLog, ServerSpec, list_tools, open_session, translate_errors
from ioa_p2p.adapters.mcp.results import to_task_result
from ioa_p2p.adapters.mcp.task_syntax import parse_tool_call
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.remote import (
    check_http_url,
    expand_env_refs,
    expand_headers,
    fit_card,
    header_secrets,
    reported_usage,
    usage_record,
)
from ioa_p2p.adapters.toolloop import Limits, ToolChooser, ToolLoop, ToolSpec
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import (
    AdapterOptionsError,
    IoAError,
    IoATimeout,
    PeerUnreachable,
    TaskRejected,
)
from ioa_p2p.faults import single_error
from ioa_p2p.llm import model_from_settings
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import current_tracer

log = logging.getLogger(__name__)
KIND = "mcp"


@dataclass(frozen=True, slots=True)
class McpOptions:
    command: tuple[str, ...] = ()  # stdio server: program and arguments
    url: str = ""  # or a streamable HTTP endpoint (http://host:port/mcp)
    env: dict[str, Any] = field(default_factory=dict)  # extra environment of the stdio server; ${VAR} allowed
    cwd: str = ""  # working directory of the stdio server
    headers: dict[str, Any] = field(default_factory=dict)  # HTTP headers; ${VAR} allowed (secrets)
    start_timeout: float = 30.0  # seconds to start the server and list its tools
    call_timeout: float = 300.0  # seconds one tool call may take (within the task deadline)
    max_tools: int = 64  # tools read from the server
    max_response_kb: int = 4096  # per HTTP response (HTTP servers)
    task_types: tuple[str, ...] = ("text",)
    # A task that names no tool: the tool loop over this endpoint chooses ([model] keys; the node fills it
    # from its [model] table; none anywhere = such tasks are rejected) with these loop settings.
    model: dict[str, Any] = field(default_factory=dict)
    loop: dict[str, Any] = field(default_factory=dict)  # mode, max_steps, max_tokens, timeout, instructions


@dataclass(frozen=True, slots=True)
class LoopOptions:
    """The ``loop`` option: the tool loop that chooses for tasks naming no tool."""

    mode: Literal["auto", "native", "react"] = "auto"
    max_steps: int = setting(8, low=1, high=100)
    max_tokens: int = setting(50_000, low=100)
    timeout: float = setting(300.0, above=0, unit="seconds")
    instructions: str = ""


def _server_spec(o: McpOptions, env: Mapping[str, str] | None) -> ServerSpec:
    if bool(o.command) == bool(o.url):
        raise AdapterOptionsError("adapter 'mcp' needs exactly one of command (a stdio server) or url (HTTP)")
    if o.url:
        check_http_url(o.url, kind="mcp")
    if o.command and not o.command[0]:
        raise AdapterOptionsError("adapter 'mcp' option command must start with a program")
    if not (o.start_timeout > 0 and o.call_timeout > 0 and o.max_tools >= 1 and o.max_response_kb >= 1):
        raise AdapterOptionsError("adapter 'mcp': timeouts must be > 0, max_tools and max_response_kb >= 1")
    variables: dict[str, str] = {}
    secrets: list[str] = []
    for name, value in o.env.items():
        if not name.isidentifier() or not isinstance(value, str):
            raise AdapterOptionsError(
                f"adapter 'mcp' option env: {name!r} must be a variable name with a string"
            )
        variables[name] = expand_env_refs(value, where=f"adapter 'mcp': env {name!r}", env=env)
        if variables[name] != value:  # it came from the node's environment: treat it as a secret
            secrets.append(variables[name])
    headers = expand_headers(o.headers, kind=KIND, env=env)
    secrets += header_secrets(headers)
    return ServerSpec(
        o.command,
        o.url,
        variables,
        o.cwd or None,
        headers,
        o.max_response_kb * 1024,
        tuple(s for s in secrets if s),
    )


def _card(
    spec: ServerSpec, task_types: tuple[str, ...], client: mcp.Client | None, tools: list[ToolSpec]
) -> AdapterCard:
    info = client.server_info if client is not None else None
    name = (info.title or info.name) if info is not None else "mcp server"
    about = (info.description if info is not None else None) or (client.instructions if client else None)
    description = about or f"The tools of {spec.describe()}."
    if tools:
        description += " Tools: " + "; ".join(t.summary()[:160] for t in tools) + "."
    else:
        description += " (its tools are listed once the server has started)"
    return fit_card(
        name=name, description=description, skills=[t.name for t in tools], kind=KIND, task_types=task_types
    )


class McpAdapter:
    """The tools of one MCP server as this node's adapter (see the module docstring)."""

    #: model: the node's [model] for tasks naming no tool
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(model=True, calls_remote=True)
    OPTIONS: ClassVar[type] = McpOptions

    def __init__(
        self, options: McpOptions, *, chooser: ToolChooser | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        self.options = options
        self._spec = _server_spec(options, env)
        self._chooser = chooser
        self._card = _card(self._spec, options.task_types, None, [])
        self._session: mcp.Client | None = None
        self._tools: list[ToolSpec] = []
        self._life = Lifetime()
        self.start_error = ""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> McpAdapter:
        parsed = parse_options(McpOptions, options, KIND)
        return cls(parsed, chooser=chooser_from_options(parsed))

    def describe(self) -> AdapterCard:
        return self._card

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self._tools)

    async def _listed(self, client: mcp.Client, server_log: ServerLog) -> list[ToolSpec]:
        with translate_errors(self._spec, server_log, "listing tools"), single_error():
            with trio.fail_after(self.options.start_timeout):
                tools = await list_tools(client, self.options.max_tools)
        return tools

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Start the server and keep its session; a failure is logged and left to the tasks (see above)."""
        with self._life.running():
            server_log = ServerLog()
            try:
                async with open_session(
                    self._spec, server_log, start_limit=self.options.start_timeout
                ) as client:
                    self._tools = await self._listed(client, server_log)
                    self._card = _card(self._spec, self.options.task_types, client, self._tools)
                    self._session = client
                    await self._life.ready_until_closed(task_status)
            except Exception as exc:  # start-up failed, or the server died while serving
                self.start_error = str(exc) if isinstance(exc, IoAError) else f"{type(exc).__name__}: {exc}"
                log.warning("MCP server: %s (tasks will try to start it again)", self.start_error)
                if not self._life.serving:
                    await self._life.ready_until_closed(task_status)
            finally:
                self._session = None
                server_log.close()

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = trio.current_time()
        if self._life.closing:
            return TaskResult.failed(CRASH, "the mcp adapter is closed")
        session = self._session
        if session is not None:
            return await self._run_with(session, self._tools, task, ctx, started, None)
        server_log = ServerLog()  # no long-lived session: one for this task
        try:
            limit = min(self.options.start_timeout, max(0.1, task.remaining()))
            async with open_session(self._spec, server_log, start_limit=limit) as client:
                tools = await self._listed(client, server_log)
                return await self._run_with(client, tools, task, ctx, started, server_log)
        except TaskRejected:
            raise
        except IoAError as exc:
            kind = TIMEOUT if isinstance(exc, IoATimeout) else CRASH
            return _with_usage(TaskResult.failed(kind, str(exc)), started, 0)
        finally:
            server_log.close()

    async def _run_with(
        self,
        client: mcp.Client,
        tools: list[ToolSpec],
        task: Task,
        ctx: TaskContext,
        started: float,
        server_log: ServerLog | None,
    ) -> TaskResult:
        request = parse_tool_call(task.text, {t.name for t in tools})
        calls = 0

        async def call_tool(name: str, arguments: dict[str, Any]) -> TaskResult:
            nonlocal calls
            calls += 1
            return await self._call(client, name, arguments, ctx, server_log)

        if request is not None:
            await ctx.progress(f"calling tool {request.tool}")
            return _with_usage(await call_tool(request.tool, request.arguments), started, calls)
        if self._chooser is None:
            raise TaskRejected(
                'this MCP agent runs a task only when it names one of its tools, as {"tool": NAME, '
                '"arguments": {...}} or NAME(arg=value, ...); no language model is configured to choose '
                "among its tools: " + "; ".join(t.summary()[:120] for t in tools[:20])
            )
        result = await self._chooser.solve(task, tools, call_tool, ctx)
        if "usage" in result.data:
            return result
        return _with_usage(result, started, calls)

    async def _call(
        self,
        client: mcp.Client,
        name: str,
        arguments: dict[str, Any],
        ctx: TaskContext,
        server_log: ServerLog | None,
    ) -> TaskResult:
        async def progress(progress: float, total: float | None, message: str | None) -> None:
            try:
                text = message or f"tool {name}: {progress:g}" + (f"/{total:g}" if total else "")
                await ctx.progress(text, progress / total if total else None)
            except Exception:  # noqa: BLE001 - a failing progress sink must not break the server session
                log.info("progress report failed", exc_info=True)

        about = {
            "mcp.method.name": "tools/call",
            tr.GEN_AI_OPERATION: "execute_tool",
            tr.GEN_AI_TOOL_NAME: name,
        }
        with current_tracer().span(f"tools/call {name}", kind="client", attributes=about) as span:
            try:
                with translate_errors(self._spec, server_log, f"calling tool {name}"), single_error():
                    with trio.fail_after(self.options.call_timeout):
                        raw = await client.call_tool(name, arguments, progress_callback=progress)
            except IoAError as exc:
                if isinstance(exc, PeerUnreachable) and client is self._session:
                    self._session = None  # the long-lived server is gone: later tasks start their own
                span.record_error(type(exc).__name__, str(exc))
                return TaskResult.failed(
                    TIMEOUT if isinstance(exc, IoATimeout) else CRASH, str(exc), data={"tool": name}
                )
            result = to_task_result(name, raw, self._spec.secrets)
            if not result.ok:
                span.record_error(result.failure or "tool_error", result.text[:200])
            return result

    async def call_tool(self, name: str, arguments: dict[str, Any], ctx: TaskContext) -> TaskResult:
        """Call one tool on the long-lived session (for a loop that uses this server's tools: the adapter
        must have been started); a server that is not running is a ``crash`` result with the reason."""
        session = self._session
        if session is None or self._life.closing:
            why = self.start_error or "it is not running (the adapter was not started, or it stopped)"
            return TaskResult.failed(CRASH, f"{self._spec.describe()}: {why}", data={"tool": name})
        return await self._call(session, name, arguments, ctx, None)

    async def aclose(self) -> None:
        await self._life.close(time_limit=20.0)
        if self._chooser is not None:
            close = getattr(getattr(self._chooser, "model", None), "aclose", None)
            if close is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(5):
                    await close()


def chooser_from_options(o: McpOptions) -> ToolLoop | None:
    """The tool loop for tasks that name no tool, when a model endpoint is configured (else None)."""
    where = "[agent.options.model] of adapter 'mcp'"
    configured = o.model or _env_model()
    model = model_from_settings(o.model, where=where, error=AdapterOptionsError) if configured else None
    if model is None:
        return None
    loop = parse_section(
        LoopOptions,
        o.loop,
        "[agent.options.loop] of adapter 'mcp'",
        error=AdapterOptionsError,
        noun="options",
    )
    limits = Limits(max_steps=loop.max_steps, max_tokens=loop.max_tokens, time_limit=loop.timeout)
    return ToolLoop(model, mode=loop.mode, limits=limits, instructions=loop.instructions)


def _env_model() -> bool:
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"))


def _with_usage(result: TaskResult, started: float, tool_calls: int) -> TaskResult:
    """``result`` with its usage record: its wall time, the tool calls, and the tokens the server reported
    for the call (``_meta.usage``, :func:`~ioa_p2p.adapters.mcp.results.to_task_result`)."""
    wall_ms = int((trio.current_time() - started) * 1000)
    reported = reported_usage(result.data.get("usage"))
    data = {**result.data, "usage": usage_record(wall_ms=wall_ms, tool_calls=tool_calls, **reported)}
    return TaskResult(result.ok, result.text, data, result.files, result.failure)


__all__ = ["McpAdapter", "McpOptions"]
