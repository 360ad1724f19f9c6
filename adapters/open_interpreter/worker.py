"""The Open Interpreter worker: runs ONE task in Open Interpreter's own environment, talking JSON lines.

This file is executed by the Python of the environment where ``open-interpreter`` is installed (its own
venv: the package cannot be installed beside ioa-p2p), as ``python -I worker.py`` (or ``--probe``). It uses
the standard library and ``interpreter`` only, never ``ioa_p2p``. The protocol (version 1) is documented in
``docs/adapters.md`` ("open_interpreter") and driven by :mod:`ioa_p2p.adapters.open_interpreter.process`:

- stdin: one JSON object, the request: ``{"v": 1, "prompt", "model": {"model", "api_base", "api_key",
  "temperature"}, "settings": {...Open Interpreter attributes...}, "max_steps"}``;
- stdout: one JSON object per line: ``{"event": "ready", "version"}`` once ``interpreter`` imported, then
  ``{"event": "code", "n", "format"}`` for every code block it runs, then exactly one of
  ``{"event": "answer", "text", "code_runs", "over_budget"}`` or ``{"event": "error", "type", "message"}``.

Anything else the library or the code it runs writes to stdout goes to stderr instead (file descriptor 1 is
pointed at 2 before the import), so the protocol stream carries protocol lines only. SIGTERM terminates Open
Interpreter's code runners and exits; the adapter SIGKILLs the process group after a grace period.
``--probe`` imports ``interpreter``, prints the ready line and exits: the adapter's start-up check.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any, TextIO

PROTOCOL_VERSION = 1


def _protocol_stream() -> TextIO:
    """Keep the real stdout for protocol lines; send every other write to fd 1 to stderr."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _say(out: TextIO, **event: Any) -> None:
    out.write(json.dumps(event, ensure_ascii=False) + "\n")
    out.flush()


def _build(interpreter_module: Any, request: dict[str, Any]) -> Any:
    settings = dict(request.get("settings") or {})
    oi = interpreter_module.OpenInterpreter(
        offline=True,
        auto_run=True,
        disable_telemetry=True,
        conversation_history=False,
        loop=bool(settings.get("loop", False)),
        max_output=int(settings.get("max_output", 2800)),
        safe_mode=str(settings.get("safe_mode", "off")),
        custom_instructions=str(settings.get("custom_instructions", "")),
    )
    model = dict(request.get("model") or {})
    oi.llm.model = model.get("model")
    oi.llm.api_base = model.get("api_base")
    oi.llm.api_key = model.get("api_key")
    oi.llm.temperature = model.get("temperature") or 0
    oi.llm.context_window = settings.get("context_window")
    oi.llm.max_tokens = settings.get("max_tokens")
    oi.llm.supports_functions = settings.get("supports_functions")
    oi.llm.supports_vision = False
    return oi


def _run(out: TextIO, interpreter_module: Any, request: dict[str, Any]) -> None:
    oi = _build(interpreter_module, request)

    def stop(*_: Any) -> None:
        oi.computer.terminate()
        os._exit(143)

    signal.signal(signal.SIGTERM, stop)
    max_steps = int(request.get("max_steps", 10))
    runs, over = 0, False
    try:
        for chunk in oi.chat(str(request.get("prompt", "")), display=False, stream=True):
            if chunk.get("role") == "assistant" and chunk.get("type") == "code" and chunk.get("end"):
                if runs >= max_steps:  # one more would pass the budget: stop before it runs
                    over = True
                    break
                runs += 1
                _say(out, event="code", n=runs, format=chunk.get("format") or "code")
    finally:
        oi.computer.terminate()
    said = [
        str(m.get("content") or "")
        for m in oi.messages
        if m.get("role") == "assistant" and m.get("type") == "message"
    ]
    _say(out, event="answer", text=said[-1].strip() if said else "", code_runs=runs, over_budget=over)


def main(argv: list[str]) -> int:
    out = _protocol_stream()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price list from the internet
    try:
        import interpreter
    except Exception as exc:  # the environment lacks the package, or it does not import
        _say(out, event="error", type="ImportError", message=f"{type(exc).__name__}: {exc}")
        return 3
    try:
        from importlib.metadata import version

        found = version("open-interpreter")
    except Exception:  # a stand-in or a source checkout: no distribution metadata
        found = getattr(interpreter, "__version__", "unknown")
    _say(out, event="ready", version=found, protocol=PROTOCOL_VERSION)
    if "--probe" in argv:
        return 0
    try:
        request = json.loads(sys.stdin.readline())
        if not isinstance(request, dict) or request.get("v") != PROTOCOL_VERSION:
            raise ValueError(f"expected a request of protocol version {PROTOCOL_VERSION}")
        _run(out, interpreter, request)
    except Exception as exc:  # everything Open Interpreter raises is the task's failure, said once
        _say(out, event="error", type=type(exc).__name__, message=str(exc)[:4000])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
