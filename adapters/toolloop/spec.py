"""Tools as a language-model loop sees them, and the port through which such a loop solves a task.

:class:`ToolSpec` is a tool (name, description, JSON schemas; an MCP server's tools, the ``llm`` kind's
built-in ones), in the shape an OpenAI-style tool list needs (:meth:`ToolSpec.as_openai_tool`).
:class:`ToolChooser` is the port through which a loop (:class:`~ioa_p2p.adapters.toolloop.ToolLoop`) solves a
task: it gets the task, the tools and a function that calls one, and returns the result. The ``mcp`` kind
without a chooser rejects a task that names no tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ioa_p2p.adapters.base import Task, TaskContext, TaskResult


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None

    def as_openai_tool(self) -> dict[str, Any]:
        """``{"type": "function", "function": {...}}`` for chat-completion tool lists."""
        schema = self.input_schema or {"type": "object", "properties": {}}
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": schema},
        }

    def summary(self) -> str:
        """``name(a, b): description`` (for cards and messages)."""
        properties = self.input_schema.get("properties")
        names = ", ".join(properties) if isinstance(properties, dict) else ""
        return f"{self.name}({names})" + (f": {self.description}" if self.description else "")


#: Calls one tool by name with arguments and returns its result (a failed result for a tool error).
CallTool = Callable[[str, dict[str, Any]], Awaitable[TaskResult]]


@runtime_checkable
class ToolChooser(Protocol):
    """Solves a task with a set of tools (a language-model loop). Bounded by the task's deadline; it reports
    its steps through ``ctx`` and counts its model usage into the result's ``data["usage"]``."""

    async def solve(
        self, task: Task, tools: Sequence[ToolSpec], call_tool: CallTool, ctx: TaskContext
    ) -> TaskResult: ...


__all__ = ["CallTool", "ToolChooser", "ToolSpec"]
