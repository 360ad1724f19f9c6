"""An MCP tool result (``CallToolResult``) as our :class:`~ioa_p2p.adapters.TaskResult`.

- text blocks -> the result text (joined by blank lines); embedded text resources too;
- ``structured_content`` -> ``data["structured"]`` (and the text, as JSON, when there is no text block);
- images, audio and embedded binary resources -> files (``<tool>-<n>.<ext>``), within the result limits;
- resource links -> ``data["links"]``;
- token counts the server reports in the result's ``_meta`` (``usage``, as OpenAI-compatible or Anthropic
  names) -> ``data["usage"]`` (the adapter adds its wall time and tool calls);
- ``is_error`` -> a ``task_error`` result whose text is the server's message (only ``ToolError`` messages
  reach the client; other server exceptions arrive as "Error executing tool X").
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from typing import Any

import mcp_types

from ioa_p2p.adapters.base import TASK_ERROR, TaskResult
from ioa_p2p.adapters.remote import FileCollector, clip_text, fit_data, hide_secrets, reported_usage, scrub


def _extension(mime_type: str | None, fallback: str) -> str:
    guessed = mimetypes.guess_extension(mime_type or "") if mime_type else None
    return guessed or fallback


def _decode(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def to_task_result(tool: str, result: mcp_types.CallToolResult, secrets: tuple[str, ...] = ()) -> TaskResult:
    """Our result for ``result`` of ``tool`` (see the module docstring); ``data`` also names the tool."""
    texts: list[str] = []
    files = FileCollector()
    links: list[dict[str, Any]] = []
    for n, block in enumerate(result.content, 1):
        if isinstance(block, mcp_types.TextContent):
            texts.append(block.text)
        elif isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
            content = _decode(block.data)
            if content is not None:
                files.add(f"{tool}-{n}{_extension(block.mime_type, '.bin')}", content, fallback=f"output-{n}")
        elif isinstance(block, mcp_types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, mcp_types.TextResourceContents):
                texts.append(resource.text)
            else:
                content = _decode(resource.blob)
                if content is not None:
                    name = str(resource.uri).rsplit("/", 1)[-1] or f"{tool}-{n}"
                    files.add(name, content, fallback=f"{tool}-{n}{_extension(resource.mime_type, '.bin')}")
        elif isinstance(block, mcp_types.ResourceLink):
            links.append({"uri": str(block.uri), "name": block.name, "mime_type": block.mime_type})
    data: dict[str, Any] = {"tool": tool}
    if result.structured_content is not None:
        data["structured"] = fit_data(result.structured_content)
    if links:
        data["links"] = fit_data(links[:50])
    if files.skipped:
        data["files_skipped"] = files.skipped
    usage = reported_usage((result.meta or {}).get("usage"))
    if usage:
        data["usage"] = usage
    text = "\n\n".join(t for t in texts if t)
    if result.is_error:
        message = scrub(text, secrets, limit=2000) or "no message"
        return TaskResult.failed(TASK_ERROR, f"MCP tool {tool!r} failed: {message}", data=data)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return TaskResult.success(
        clip_text(hide_secrets(text, secrets) or "(the tool returned nothing)"), data=data, files=files.files
    )


__all__ = ["to_task_result"]
