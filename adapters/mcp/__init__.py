"""Kind ``mcp``: the tools of a Model Context Protocol server as this node's agent (``mcp`` package client).

- ``adapter.py``      options, start-up (server session + tool list -> card), direct calls, the chooser seam;
- ``connection.py``   opening a stdio or streamable HTTP session; stderr capture; errors translated;
- ``task_syntax.py``  how a task names a tool: ``{"tool": ..., "arguments": {...}}`` or ``name(arg=...)``;
- ``results.py``      a tool result -> our task result (text, structured data, files);
- :class:`ToolSpec` and the :class:`ToolChooser` port: ``adapters/toolloop/spec.py`` (shared with ``llm``).
"""

from ioa_p2p.adapters.mcp.adapter import McpAdapter, McpOptions
from ioa_p2p.adapters.mcp.task_syntax import ToolCallRequest, parse_tool_call
from ioa_p2p.adapters.toolloop.spec import CallTool, ToolChooser, ToolSpec

__all__ = [
    "CallTool",
    "McpAdapter",
    "McpOptions",
    "ToolCallRequest",
    "ToolChooser",
    "ToolSpec",
    "parse_tool_call",
]
