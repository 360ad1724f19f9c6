"""Kind ``llm``: a tool-using agent over the project's OpenAI-compatible :class:`~ioa_p2p.llm.Model`.

The loop is :class:`~ioa_p2p.adapters.toolloop.ToolLoop` (native tool calls or JSON ReAct, hard limits on
steps, tokens and wall time, a bad model output costs one step). The tools (``tools.py``), each switchable:
``python`` (the sandbox), ``calculator``, ``retrieval`` over a folder, ``read_file`` under a folder,
``http_get`` to allow-listed hosts (off by default), and every tool of the MCP servers in the ``mcp`` option
(one ``mcp`` adapter each, started with this adapter; their tools keep their names unless two collide, then
they are ``<server>__<tool>``).

When the adapter is started (:func:`~ioa_p2p.adapters.lifecycle.start_adapter`) the MCP servers start and
their tools join the card's skills; never started, it works without MCP tools.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import trio

from ioa_p2p.adapters.base import AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.lifecycle import Lifetime, start_adapter
from ioa_p2p.adapters.llm.options import KIND, LlmOptions, validate
from ioa_p2p.adapters.llm.tools import Tool, adapter_tool, http_get_tool, read_file_tool
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.adapters.remote import fit_card
from ioa_p2p.adapters.toolloop import Limits, ToolLoop, ToolSpec
from ioa_p2p.errors import AdapterOptionsError
from ioa_p2p.llm import Model, model_from_settings

if TYPE_CHECKING:  # the mcp package takes seconds to import: only when MCP servers are configured
    from ioa_p2p.adapters.mcp import McpAdapter

log = logging.getLogger(__name__)
_TOOL_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def model_for(settings: Mapping[str, Any], kind: str, env: Mapping[str, str] | None = None) -> Model:
    """The OpenAI-compatible model an adapter's ``model`` option (the ``[model]`` keys) names."""
    where = f"[agent.options.model] of adapter {kind!r}"
    model = model_from_settings(settings, env, where=where, error=AdapterOptionsError)
    if model is None:
        raise AdapterOptionsError(
            f"adapter {kind!r} needs a model endpoint: set [agent.options] model = {{base_url = ..., "
            "model = ...}}, a [model] table, or OPENAI_BASE_URL / OPENAI_API_KEY"
        )
    return model


def builtin_tools(o: LlmOptions) -> list[Tool]:
    """The switched-on built-in tools (their adapters are built here; closed by the llm adapter)."""
    tools: list[Tool] = []
    if o.python:
        python = load_adapter("python", o.python_options)
        tools.append(adapter_tool("python", "Run Python 3 code in a sandbox; returns its stdout.", "code",
                                  "a complete Python program; print what you need", python))  # fmt: skip
    if o.calculator:
        calc = load_adapter("calculator", {})
        tools.append(adapter_tool("calculator", "Exact arithmetic: + - * / ^ %, roots, sums, averages.",
                                  "expression", "e.g. '12.5% of 2400' or '(3+4)*5/7'", calc))  # fmt: skip
    if o.retrieval:
        docs = load_adapter("retrieval", {**o.retrieval_options, "path": o.retrieval})
        tools.append(adapter_tool("retrieval", "Search the local documents; returns cited passages.", "query",
                                  "what to look for", docs))  # fmt: skip
    if o.files:
        tools.append(read_file_tool(Path(o.files), o.files_max_kb))
    if o.http_get:
        tools.append(http_get_tool(o.http_hosts, o.http_max_kb, o.http_timeout))
    return tools


class LlmAdapter:
    """See the module docstring."""

    #: Its python tool (on by default) runs model-written code, with the node home hidden; its folders are
    #: under the node home; the node passes its [model] table as the `model` option.
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(
        model=True,
        home_paths=("retrieval", "files"),
        hide_home=("python_options.hide_paths",),
        executes_code=True,
    )
    OPTIONS: ClassVar[type] = LlmOptions

    def __init__(
        self, options: LlmOptions, *, model: Model | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        validate(options)
        self.options = options
        self.model = model if model is not None else model_for(options.model, KIND, env)
        limits = Limits(options.max_steps, options.max_tokens, options.timeout, options.max_observation_chars)
        self.loop = ToolLoop(self.model, mode=options.mode, limits=limits, instructions=options.instructions)
        self._mcp: dict[str, McpAdapter] = {}
        if options.mcp:
            from ioa_p2p.adapters.mcp import McpAdapter

            self._mcp = {name: McpAdapter.from_options(_table(name, t)) for name, t in options.mcp.items()}
        self._tools = builtin_tools(options)
        self._mcp_tools: list[tuple[ToolSpec, McpAdapter, str]] = []
        self._life = Lifetime()

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LlmAdapter:
        return cls(parse_options(LlmOptions, options, KIND))

    def tool_specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools] + [spec for spec, _, _ in self._mcp_tools]

    def describe(self) -> AdapterCard:
        o = self.options
        names = [s.name for s in self.tool_specs()]
        description = o.description or (
            f"A tool-using language-model agent on {self.model.model_id}"
            + (f" with tools: {', '.join(names)}." if names else ".")
        )
        return fit_card(name=o.name, description=description, skills=list(o.skills) + names, kind=KIND,
                        task_types=o.task_types)  # fmt: skip

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Start the MCP servers (each one's start-up failure is its tools' failure, not ours)."""
        with self._life.running():
            async with trio.open_nursery() as nursery:
                for adapter in self._mcp.values():
                    await start_adapter(adapter, nursery)
                self._mcp_tools = _named_mcp_tools(self._mcp, {t.spec.name for t in self._tools})
                try:
                    await self._life.ready_until_closed(task_status)
                finally:
                    with trio.CancelScope(shield=True):
                        for adapter in self._mcp.values():
                            await adapter.aclose()

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        builtin = {t.spec.name: t for t in self._tools}
        remote = {spec.name: (adapter, original) for spec, adapter, original in self._mcp_tools}

        async def call_tool(name: str, arguments: dict[str, Any]) -> TaskResult:
            if name in builtin:
                return await builtin[name].call(arguments, task)
            adapter, original = remote[name]
            return await adapter.call_tool(original, arguments, ctx)

        return await self.loop.solve(task, self.tool_specs(), call_tool, ctx)

    async def aclose(self) -> None:
        await self._life.close(time_limit=25.0)
        for tool in self._tools:
            if tool.adapter is not None:
                await tool.adapter.aclose()
        if not self._life.serving:
            for adapter in self._mcp.values():
                await adapter.aclose()
        close = getattr(self.model, "aclose", None)
        if close is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await close()


def _table(name: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise AdapterOptionsError(f"adapter 'llm' option mcp.{name} must be a table of mcp options")
    return dict(table)


def _named_mcp_tools(
    servers: Mapping[str, McpAdapter], taken: set[str]
) -> list[tuple[ToolSpec, McpAdapter, str]]:
    """Every started server's tools, renamed ``<server>__<tool>`` only where names collide."""
    listed = [(name, adapter, spec) for name, adapter in servers.items() for spec in adapter.tools]
    counts: dict[str, int] = {}
    for _, _, spec in listed:
        counts[spec.name] = counts.get(spec.name, 0) + 1
    out = []
    for server, adapter, spec in listed:
        name = spec.name
        if counts[name] > 1 or name in taken:
            name = f"{server}__{name}"
        name = _TOOL_NAME.sub("_", name)[:64]
        taken.add(name)
        out.append(
            (ToolSpec(name, spec.description, spec.input_schema, spec.output_schema), adapter, spec.name)
        )
    return out


__all__ = ["LlmAdapter", "builtin_tools", "model_for"]
