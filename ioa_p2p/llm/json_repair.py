"""Repairing the JSON a language model writes (pure): code fences, prose around it, trailing commas,
Python literals, single quotes, unquoted keys, unclosed brackets.

One scanner (:func:`_scan`) walks the text once, skipping string contents, and reports the stack of
open brackets after each character: :func:`_outermost_object` uses it to cut the first complete object
out of surrounding prose, :func:`_close_brackets` to close what the model left open.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator
from typing import Any

from ioa_p2p.errors import ModelOutputError

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_CLOSER = {"{": "}", "[": "]"}


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model's text, repaired if needed; raises :class:`ModelOutputError`."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        snippet = _outermost_object(candidate)
        if snippet is None:
            continue
        for attempt in (snippet, _repair(snippet)):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    raise ModelOutputError(f"no JSON object found in the model's reply: {text[:200]!r}")


def _scan(text: str) -> Iterator[tuple[int, list[str], bool]]:
    """For each character: its index, the closers of the brackets open after it (innermost last), and
    whether a string is still open after it. Brackets inside strings do not count; an unmatched closer
    is ignored."""
    stack: list[str] = []
    in_string = escape = False
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif ch in "}]" and stack:
            stack.pop()
        yield i, stack, in_string


def _outermost_object(text: str) -> str | None:
    """The first ``{...}`` of ``text`` (up to its matching brace), or the rest of the text when it is never
    closed (:func:`_repair` then closes it); None without any ``{``."""
    start = text.find("{")
    if start < 0:
        return None
    for i, stack, _ in _scan(text[start:]):
        if not stack:
            return text[start : start + i + 1]
    return text[start:]


def _repair(text: str) -> str:
    s = text.strip()
    s = s.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    s = re.sub(r"(?m)^\s*//.*$", "", s)  # whole-line comments
    if '"' not in s:
        s = s.replace("'", '"')
    s = re.sub(r"(?<![\w\"])(True|False|None)(?![\w\"])",
               lambda m: {"True": "true", "False": "false", "None": "null"}[m.group(1)], s)  # fmt: skip
    s = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)", r'\1"\2"\3', s)  # unquoted keys
    s = re.sub(r",\s*([}\]])", r"\1", s)  # trailing commas
    return _close_brackets(s)


def _close_brackets(s: str) -> str:
    last = deque(_scan(s), maxlen=1)  # the state after the last character
    stack, in_string = (last[0][1], last[0][2]) if last else ([], False)
    if in_string:
        s += '"'
    s = re.sub(r",\s*$", "", s)
    return s + "".join(reversed(stack))


__all__ = [
    "parse_json_object",
]
