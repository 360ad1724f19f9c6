"""What the tool loop tells the model: system prompts (native and JSON ReAct) and tool observations."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ioa_p2p.adapters.base import TaskResult
from ioa_p2p.adapters.toolloop.spec import ToolSpec

BASE = (
    "You are an agent on a peer-to-peer network of AI agents. A teammate gave you a task. Solve it with the "
    "tools when they help (their results are reliable: use them instead of guessing), then give the final "
    "answer: short, complete, with the numbers or facts asked for."
)

REACT_FORMAT = (
    "Reply with exactly one JSON object and nothing else:\n"
    '- to call a tool: {"tool": "<name>", "arguments": {<the tool\'s arguments>}}\n'
    '- to finish: {"answer": "<the final answer>"}\n'
    'After each tool call you get a message "Observation: <result>".'
)


def _tool_lines(tools: Sequence[ToolSpec]) -> str:
    lines = []
    for tool in tools:
        schema = json.dumps(tool.input_schema or {"type": "object", "properties": {}}, sort_keys=True)
        lines.append(f"- {tool.name}: {tool.description[:300]}\n  arguments (JSON schema): {schema[:600]}")
    return "\n".join(lines)


def system_prompt(tools: Sequence[ToolSpec], instructions: str = "", *, react_fallback: bool = False) -> str:
    """The system prompt for native tool calls (the tools travel as the ``tools`` field)."""
    parts = [BASE]
    if tools and react_fallback:
        parts.append(
            "Call tools through the function-calling interface. If you cannot, reply with one JSON object "
            '{"tool": "<name>", "arguments": {...}} instead. When you are done, reply with the answer as '
            "plain text."
        )
    elif tools:
        parts.append("Call tools through the function-calling interface; reply with plain text when done.")
    if instructions:
        parts.append(instructions)
    return "\n\n".join(parts)


def react_system(tools: Sequence[ToolSpec], instructions: str = "") -> str:
    """The system prompt for JSON ReAct (the tools are described here)."""
    parts = [BASE, "Tools:\n" + (_tool_lines(tools) or "(none)"), REACT_FORMAT]
    if instructions:
        parts.append(instructions)
    return "\n\n".join(parts)


def observation(result: TaskResult, files: Sequence[str], limit: int) -> str:
    """A tool's result as the text the model sees next, within ``limit`` characters."""
    head = "ok" if result.ok else f"error ({result.failure})"
    text = f"{head}: {result.text}"
    if files:
        text += f"\n(files kept for the result: {', '.join(files)})"
    if len(text) > limit:
        text = text[: limit - 40] + f"\n[... cut: {len(text) - limit + 40} characters]"
    return text


__all__ = ["observation", "react_system", "system_prompt"]
