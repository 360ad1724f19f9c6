"""Kind ``mcp``: the tools of a Model Context Protocol server as this node's agent (``mcp`` package client).

- ``adapter.py``      options, start-up (server session + tool list -> card), direct calls, the chooser seam;
- ``connection.py``   opening a stdio or streamable HTTP session; stderr capture; errors translated;
- ``task_syntax.py``  how a task names a tool: ``{"tool": ..., "arguments": {...}}`` or ``name(arg=...)``;
- ``results.py``      a tool result -> our task result (text, structured data, files);
- ``tools.py``        :class:`ToolSpec` and the :class:`ToolChooser` port for a language-model loop.
"""

from .adapter import McpAdapter, McpOptions
from .task_syntax import ToolCallRequest, parse_tool_call
from .tools import CallTool, ToolChooser, ToolSpec

__all__ = [
    "CallTool",
    "McpAdapter",
    "McpOptions",
    "ToolCallRequest",
    "ToolChooser",
    "ToolSpec",
    "parse_tool_call",
]
