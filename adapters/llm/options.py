"""The options of the ``llm`` kind (``[agent.options]``), checked when the adapter is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.adapters.toolloop import MODES
from ioa_p2p.errors import AdapterOptionsError

KIND = "llm"


@dataclass(frozen=True, slots=True)
class LlmOptions:
    model: dict[str, Any] = field(default_factory=dict)  # the [model] keys; the node fills it from [model]
    mode: str = "auto"  # "auto" | "native" (tool calls) | "react" (JSON actions in text)
    max_steps: int = 8  # model calls per task
    max_tokens: int = 50_000  # prompt + completion tokens per task
    timeout: float = 300.0  # wall seconds per task (cut to the task deadline)
    max_observation_chars: int = 4000  # of one tool result, as the model sees it
    instructions: str = ""  # added to the system prompt
    python: bool = True  # tool python: the sandbox
    python_options: dict[str, Any] = field(default_factory=dict)  # options of the python adapter
    calculator: bool = True  # tool calculator
    retrieval: str = ""  # tool retrieval over this folder ("" = off)
    retrieval_options: dict[str, Any] = field(default_factory=dict)
    files: str = ""  # tool read_file under this folder ("" = off)
    files_max_kb: int = 256
    http_get: bool = False  # tool http_get (off by default)
    http_hosts: tuple[str, ...] = ()  # the only hosts http_get may reach
    http_max_kb: int = 256
    http_timeout: float = 20.0
    mcp: dict[str, Any] = field(default_factory=dict)  # name -> options of an mcp adapter; all its tools
    name: str = "llm agent"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text", "question", "code", "arithmetic")


def validate(o: LlmOptions) -> None:
    if o.mode not in MODES:
        raise AdapterOptionsError(f"adapter 'llm' option mode must be one of {MODES}, not {o.mode!r}")
    if not 1 <= o.max_steps <= 100:
        raise AdapterOptionsError("adapter 'llm' option max_steps must be 1..100")
    if not (o.max_tokens >= 100 and o.timeout > 0 and o.max_observation_chars >= 200):
        raise AdapterOptionsError(
            "adapter 'llm': max_tokens >= 100, timeout > 0, max_observation_chars >= 200"
        )
    if not (o.files_max_kb >= 1 and o.http_max_kb >= 1 and o.http_timeout > 0):
        raise AdapterOptionsError("adapter 'llm': files_max_kb, http_max_kb >= 1 and http_timeout > 0")
    if o.http_get and not o.http_hosts:
        raise AdapterOptionsError("adapter 'llm': http_get = true needs http_hosts (the hosts it may reach)")
    if any(not h or "/" in h or ":" in h for h in o.http_hosts):
        raise AdapterOptionsError(
            "adapter 'llm' option http_hosts: host names only (no scheme, port or path)"
        )
    for name, table in o.mcp.items():
        if not isinstance(table, dict):
            raise AdapterOptionsError(f"adapter 'llm' option mcp.{name} must be a table of mcp options")


__all__ = ["KIND", "LlmOptions", "validate"]
