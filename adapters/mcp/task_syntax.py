"""How a task names an MCP tool to call directly.

Two forms, each accepted as the whole task text, inside a fenced code block, or as one line of the task:

- JSON: ``{"tool": "add", "arguments": {"a": 1, "b": 2}}`` (``arguments`` may be omitted; any tool name);
- a call: ``add(a=1, b=2)``: a listed tool's name, then keyword arguments whose values are literals
  (numbers, strings, lists, dicts, ``true``/``false``/``null`` or Python's ``True``/``False``/``None``).

A JSON object with a ``"tool"`` key is an explicit request: an unknown tool or malformed arguments reject
the task with the reason. The call form only counts when the name is one of the server's tools (so prose such
as "print(x) fails" is not mistaken for a call); a call to a listed tool with positional arguments or
non-literal values is rejected with the reason. Anything else names no tool.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import TaskRejected

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.S)
_CALL = re.compile(r"^\s*([A-Za-z_][\w.-]*)\((.*)\)\s*;?\s*$", re.S)
_JSON_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
MAX_CALL_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    tool: str
    arguments: dict[str, Any]


def parse_tool_call(text: str, tools: Collection[str]) -> ToolCallRequest | None:
    """The tool call ``text`` asks for, ``None`` when it names no tool; raises :class:`TaskRejected` for a
    malformed or unknown explicit request (see the module docstring)."""
    if len(text) > MAX_CALL_CHARS:
        return None
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    candidates += [line.strip() for line in text.splitlines() if line.strip()]
    for candidate in candidates:
        found = _from_json(candidate, tools)
        if found is None:
            found = _from_call(candidate, tools)
        if found is not None:
            return found
    return None


def _from_json(candidate: str, tools: Collection[str]) -> ToolCallRequest | None:
    if not candidate.startswith("{"):
        return None
    try:
        value = json.loads(candidate)
    except ValueError:
        return None
    if not isinstance(value, dict) or "tool" not in value:
        return None
    tool, arguments = value["tool"], value.get("arguments", {})
    if not isinstance(tool, str) or tool not in tools:
        raise TaskRejected(
            f"the task asks for tool {tool!r}, which this MCP server does not have; {_listing(tools)}"
        )
    if not isinstance(arguments, dict):
        raise TaskRejected(
            f"the arguments of tool {tool!r} must be a JSON object, not {type(arguments).__name__}"
        )
    extra = sorted(set(value) - {"tool", "arguments"})
    if extra:
        raise TaskRejected(f"unexpected keys {extra} next to 'tool' and 'arguments'")
    return ToolCallRequest(tool, arguments)


def _from_call(candidate: str, tools: Collection[str]) -> ToolCallRequest | None:
    match = _CALL.match(candidate)
    if match is None or match.group(1) not in tools:
        return None
    tool = match.group(1)
    try:
        call = ast.parse(f"f({match.group(2)})", mode="eval").body
    except SyntaxError:
        raise TaskRejected(
            f"the call to tool {tool!r} is not valid: write {tool}(name=value, ...) with literal values"
        ) from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise TaskRejected(f"call tool {tool!r} with keyword arguments only: {tool}(name=value, ...)")
    arguments: dict[str, Any] = {}
    for keyword in call.keywords:
        assert keyword.arg is not None
        arguments[keyword.arg] = _literal(keyword.value, tool, keyword.arg)
    return ToolCallRequest(tool, arguments)


def _literal(node: ast.expr, tool: str, name: str) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_LITERALS:
        return _JSON_LITERALS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e, tool, name) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise TaskRejected(f"argument {name!r} of tool {tool!r}: '**' is not allowed")
            k = _literal(key, tool, name)
            if not isinstance(k, str):
                raise TaskRejected(f"argument {name!r} of tool {tool!r}: object keys must be strings")
            out[k] = _literal(value, tool, name)
        return out
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise TaskRejected(
            f"argument {name!r} of tool {tool!r} is not a literal value (numbers, strings, lists, objects)"
        ) from None
    if isinstance(value, bytes | complex | set | frozenset):
        raise TaskRejected(f"argument {name!r} of tool {tool!r} has a type JSON cannot carry")
    return value


def _listing(tools: Collection[str]) -> str:
    names = sorted(tools)
    return f"its tools are {names[:30]}" if names else "it lists no tools"


__all__ = ["ToolCallRequest", "parse_tool_call"]
