"""Kind ``open_interpreter``: Open Interpreter (0.4.x) through its Python API (optional extra
``ioa-p2p[open-interpreter]``).

**Installability.** open-interpreter 0.4.x requires ``google-generativeai`` 0.7, whose
``google-ai-generativelanguage`` pins ``protobuf < 5``, while ``a2a-sdk`` 1.3 (a core dependency of this
package) needs ``protobuf >= 5.29.5``: pip cannot install the extra next to ``ioa-p2p`` (checked in a fresh
venv). The kind is registered so ``ioa adapters`` shows it with its missing dependency; it works where the
package can be imported: ``pip install --no-deps open-interpreter==0.4.3`` plus its other requirements
(without ``google-generativeai``) imports, and the test against the scripted server passes there (checked in
a throwaway venv, 2026-11-23). Its tests are skipped with this reason when the package is absent.

Each task builds a fresh ``OpenInterpreter`` (offline: no telemetry, no conversation files; ``auto_run``)
on the node's OpenAI-compatible endpoint (option ``model``, the ``[model]`` keys; litellm model
``openai/<model>``) and streams ``chat(prompt, display=False, stream=True)`` in a worker thread: every code
block it runs is a progress report and a tool call; more than ``max_steps`` code blocks stops it
(``task_error``); our deadline or the chat ending stops it at its next chunk and terminates its code
runners. The answer is its last assistant message. Token counts are not exposed by its API: usage says
"unknown" (``None``).

Open Interpreter runs code **unsandboxed, as the node's user** (that is its purpose): the kind declares
``EXECUTES_CODE`` (invitations from known peers only by default); run such a node as a throwaway user or in
a container.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import (
    CRASH,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.optional_deps import import_optional
from ioa_p2p.adapters.remote import (
    Endpoint,
    Report,
    clip_text,
    endpoint_from_settings,
    fit_card,
    hide_secrets,
    run_blocking,
    task_prompt,
    usage_record,
)
from ioa_p2p.errors import AdapterOptionsError

KIND = "open_interpreter"
EXTRA = "open-interpreter"
SAFE_MODES = ("off", "ask", "auto")


@dataclass(frozen=True, slots=True)
class OpenInterpreterOptions:
    model: dict[str, Any] = field(default_factory=dict)  # the [model] keys; the node fills it from [model]
    max_steps: int = 10  # code blocks run per task
    loop: bool = False  # Open Interpreter's own "keep going until the task is done" loop
    max_output: int = 2800  # characters of code output the model sees
    context_window: int | None = None
    max_tokens: int | None = None
    function_calling: bool | None = None  # None: let Open Interpreter detect it
    safe_mode: str = "off"  # "auto" scans code with semgrep (needs the package)
    instructions: str = ""  # Open Interpreter's custom_instructions
    timeout: float = 600.0  # cap on one task (the task deadline usually ends it first)
    max_concurrent: int = 1
    name: str = "Open Interpreter"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text", "code")


def _validate(o: OpenInterpreterOptions) -> None:
    if o.safe_mode not in SAFE_MODES:
        raise AdapterOptionsError(f"adapter 'open_interpreter' option safe_mode must be one of {SAFE_MODES}")
    if not (1 <= o.max_steps <= 200 and o.timeout > 0 and 1 <= o.max_concurrent <= 8 and o.max_output >= 100):
        raise AdapterOptionsError(
            "adapter 'open_interpreter': max_steps must be 1..200, timeout > 0, max_concurrent 1..8, "
            "max_output >= 100"
        )


@dataclass
class _Run:
    """What the worker thread saw (read by the trio side after it returns or is abandoned)."""

    interpreter: Any = None
    stop: bool = False
    code_runs: int = 0
    over_budget: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)


class OpenInterpreterAdapter:
    """Open Interpreter as this node's adapter (see the module docstring)."""

    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(model=True, executes_code=True)
    OPTIONS: ClassVar[type] = OpenInterpreterOptions

    def __init__(self, options: OpenInterpreterOptions, *, env: Mapping[str, str] | None = None) -> None:
        # litellm (under Open Interpreter) fetches a price list from the internet on import unless told not to
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        self._oi = import_optional("interpreter", kind=KIND, extra=EXTRA)
        _validate(options)
        self.options = options
        self.endpoint: Endpoint = endpoint_from_settings(options.model, kind=KIND, env=env)
        self._secrets = [self.endpoint.api_key] if self.endpoint.api_key != "unused" else []
        self._slots = trio.CapacityLimiter(options.max_concurrent)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> OpenInterpreterAdapter:
        return cls(parse_options(OpenInterpreterOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        description = o.description or f"Open Interpreter on {self.endpoint.model}: writes and runs code."
        return fit_card(
            name=o.name, description=description, skills=o.skills, kind=KIND, task_types=o.task_types
        )

    def _build(self) -> Any:
        o, e = self.options, self.endpoint
        oi = self._oi.OpenInterpreter(
            offline=True,
            auto_run=True,
            disable_telemetry=True,
            conversation_history=False,
            loop=o.loop,
            max_output=o.max_output,
            safe_mode=o.safe_mode,
            custom_instructions=o.instructions,
        )
        oi.llm.model = f"openai/{e.model}"
        oi.llm.api_base = e.base_url
        oi.llm.api_key = e.api_key
        oi.llm.temperature = e.temperature or 0
        oi.llm.context_window = o.context_window
        oi.llm.max_tokens = o.max_tokens
        oi.llm.supports_functions = o.function_calling
        oi.llm.supports_vision = False
        return oi

    def _work(self, prompt: str, run: _Run, report: Report) -> None:
        oi = run.interpreter = self._build()
        try:
            for chunk in oi.chat(prompt, display=False, stream=True):
                if run.stop:
                    break
                if chunk.get("role") == "assistant" and chunk.get("type") == "code" and chunk.get("end"):
                    run.code_runs += 1
                    if run.code_runs > self.options.max_steps:
                        run.over_budget = True
                        break
                    report(f"step {run.code_runs}: running {chunk.get('format') or 'code'}")
        finally:
            run.messages = list(oi.messages)
            oi.computer.terminate()

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = time.monotonic()
        run = _Run()
        prompt = task_prompt(task)
        result: TaskResult | None = None
        finished = False

        def interrupt() -> None:
            run.stop = True

        async with self._slots:
            with trio.move_on_after(self.options.timeout):
                try:
                    await run_blocking(
                        lambda report: self._work(prompt, run, report), ctx, interrupt=interrupt
                    )
                    finished = True
                except Exception as exc:
                    said = hide_secrets(str(exc), self._secrets)[:2000]
                    result = TaskResult.failed(
                        CRASH, f"Open Interpreter failed: {type(exc).__name__}: {said}"
                    )
        if result is None:
            result = self._answer(run) if finished else self._timeout()
        usage = usage_record(
            wall_ms=int((time.monotonic() - started) * 1000),
            model=self.endpoint.model_id,
            tool_calls=run.code_runs,
        )
        data = {**result.data, "open_interpreter": {"code_runs": run.code_runs}, "usage": usage}
        return TaskResult(result.ok, result.text, data, result.files, result.failure)

    def _answer(self, run: _Run) -> TaskResult:
        said = [
            str(m.get("content") or "")
            for m in run.messages
            if m.get("role") == "assistant" and m.get("type") == "message"
        ]
        text = hide_secrets(said[-1].strip() if said else "", self._secrets)
        if run.over_budget:
            reason = f"Open Interpreter ran more than max_steps = {self.options.max_steps} code blocks"
            return TaskResult.failed(TASK_ERROR, clip_text(f"{reason}; its last words: {text}"))
        return TaskResult.success(clip_text(text or "(Open Interpreter answered nothing)"))

    def _timeout(self) -> TaskResult:
        return TaskResult.failed(
            TIMEOUT, f"Open Interpreter did not finish within {self.options.timeout:g} s"
        )

    async def aclose(self) -> None:
        pass


__all__ = ["OpenInterpreterAdapter", "OpenInterpreterOptions"]
