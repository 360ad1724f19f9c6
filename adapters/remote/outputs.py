"""Assembling a bounded :class:`~ioa_p2p.adapters.TaskResult` from what a remote agent sent.

- :class:`FileCollector`: files under the result limits (count, total bytes, safe relative names);
  what does not fit is listed in ``skipped`` instead of failing the task;
- :func:`clip_text`, :func:`fit_data`: text and structured data within the result limits;
- :func:`reported_usage`: the token counts a remote agent's answer reports (a ``usage`` object);
- :func:`usage_record`: the ``data["usage"]`` shape every adapter fills (phase B signs it):
  ``{"model", "prompt_tokens", "completion_tokens", "tool_calls", "wall_ms"}`` (``None`` = unknown).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ioa_p2p.adapters.base import (
    MAX_DATA_BYTES,
    MAX_FILE_NAME,
    MAX_FILES,
    MAX_FILES_BYTES,
    MAX_TEXT_CHARS,
    check_file_name,
)
from ioa_p2p.errors import BadAdapterOutput, IoAError
from ioa_p2p.wire import canonical

_UNSAFE = re.compile(r"[^A-Za-z0-9._/ -]+")


def safe_file_name(name: str, fallback: str) -> str:
    """A relative result file name made from a remote's ``name`` (or ``fallback`` when nothing is left)."""
    parts = [p.strip() for p in _UNSAFE.sub("_", name.replace("\\", "/")).split("/")]
    parts = [p for p in parts if p and p not in (".", "..") and not p.startswith(".")]
    candidate = "/".join(parts)[-MAX_FILE_NAME:].lstrip("/") or fallback
    try:
        check_file_name(candidate)
    except BadAdapterOutput:
        return fallback
    return candidate


class FileCollector:
    """Result files within :data:`MAX_FILES` / :data:`MAX_FILES_BYTES`; the rest go to ``skipped``."""

    def __init__(self, max_files: int = MAX_FILES, max_bytes: int = MAX_FILES_BYTES) -> None:
        self.files: dict[str, bytes] = {}
        self.skipped: list[str] = []
        self._max_files = min(max_files, MAX_FILES)
        self._max_bytes = min(max_bytes, MAX_FILES_BYTES)
        self._total = 0

    def room(self) -> int:
        """Bytes still allowed (0 when the file count is exhausted)."""
        return 0 if len(self.files) >= self._max_files else self._max_bytes - self._total

    def add(self, name: str, content: bytes, *, fallback: str = "file") -> str | None:
        """Keep ``content`` under a safe, unique version of ``name``; ``None`` (and listed in ``skipped``)
        when it does not fit."""
        safe = safe_file_name(name, fallback)
        if len(content) > self.room():
            self.skipped.append(f"{safe} ({len(content)} bytes)")
            return None
        unique, n = safe, 1
        while unique in self.files:
            n += 1
            stem, dot, ext = safe.rpartition(".")
            unique = f"{stem}-{n}.{ext}" if dot and stem else f"{safe}-{n}"
        self.files[unique] = content
        self._total += len(content)
        return unique


def clip_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying so."""
    if len(text) <= limit:
        return text
    marker = f"\n[... cut: {len(text) - limit} more characters]"
    return text[: limit - len(marker)] + marker


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain canonical-CBOR data: JSON-like types only, big ints and floats made safe."""
    if depth > 32:
        return "[too deep]"
    if value is None or isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    return str(value)


def fit_data(value: Any, budget: int = MAX_DATA_BYTES // 2) -> Any:
    """``plain(value)`` when it encodes within ``budget`` bytes, else a short note saying it was dropped."""
    value = plain(value)
    try:
        size = len(canonical.encode(value))
    except (IoAError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        return {"dropped": f"not encodable: {type(exc).__name__}"}
    if size > budget:
        return {"dropped": f"{size} bytes encoded, over the {budget}-byte budget"}
    return value


#: Token count keys remote protocols use, by ours: OpenAI-compatible servers, Anthropic, Gemini.
_TOKEN_KEYS = {
    "prompt_tokens": ("prompt_tokens", "input_tokens", "promptTokenCount"),
    "completion_tokens": ("completion_tokens", "output_tokens", "candidatesTokenCount"),
}


def reported_usage(raw: object) -> dict[str, Any]:
    """The token counts (and model) a remote agent reported in a ``usage`` object of its answer, in our
    names (OpenAI ``prompt_tokens``/``completion_tokens``, Anthropic ``input_tokens``/``output_tokens``,
    Gemini ``promptTokenCount``/``candidatesTokenCount``); only counts that are integers in 0..2^53, and
    both or neither (a half-reported usage is unknown). ``{}`` when it reported none."""
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, Any] = {}
    for ours, theirs in _TOKEN_KEYS.items():
        value = next((raw[k] for k in theirs if k in raw), None)
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 2**53:
            out[ours] = int(value)
    if len(out) != len(_TOKEN_KEYS):
        out = {}
    model = raw.get("model")
    if isinstance(model, str) and model.strip():
        out["model"] = model.strip()[:128]
    return out


def usage_record(
    *,
    wall_ms: int,
    model: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    tool_calls: int = 0,
) -> dict[str, Any]:
    """What a task cost, as far as the adapter knows (``None`` = unknown)."""
    return {
        "model": model,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "tool_calls": tool_calls,
        "wall_ms": max(0, int(wall_ms)),
    }


__all__ = [
    "FileCollector",
    "clip_text",
    "fit_data",
    "plain",
    "reported_usage",
    "safe_file_name",
    "usage_record",
]
