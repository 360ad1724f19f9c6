"""Kind ``open_interpreter``: Open Interpreter (0.4.x), run in its own Python environment as a subprocess.

**Why a subprocess.** open-interpreter 0.4.x cannot be installed beside ioa-p2p: it requires
``google-generativeai`` 0.7, whose ``google-ai-generativelanguage`` pins ``protobuf < 5``, while ``a2a-sdk``
1.3 (a dependency of ioa-p2p) needs ``protobuf >= 5.29.5``. So it lives in a venv of its own (``python -m
ioa_p2p.adapters.open_interpreter.setup`` creates one under the node home) and the adapter drives it: every
task starts ``<python> -I worker.py`` (:mod:`~ioa_p2p.adapters.open_interpreter.worker`, standard library
and ``interpreter`` only) and talks to it over a small JSON-lines protocol
(:mod:`~ioa_p2p.adapters.open_interpreter.process`): the request (prompt, endpoint, settings) on stdin;
``ready``, one ``code`` event per code block, then ``answer`` or ``error`` on stdout.

**Limits.** ``start_timeout`` until the worker is ready (importing Open Interpreter takes seconds),
``timeout`` and the task deadline for the whole task, ``max_steps`` code blocks (the worker stops Open
Interpreter past it: ``task_error``), ``max_output_kb`` of protocol output (more: ``bad_output``), a
stderr tail for error messages, ``max_concurrent`` workers at once. Cancellation (the deadline, the chat
ending, the node stopping) stops the worker: SIGTERM (it terminates its code runners), then SIGKILL to its
process group. The node's start checks the environment once (``serve``: the worker's ``--probe``), so a
missing or broken environment stops the start with a typed error saying how to create it.

Each task is a fresh ``OpenInterpreter`` (offline: no telemetry, no conversation files; ``auto_run``) on
the node's OpenAI-compatible endpoint (option ``model``, the ``[model]`` keys; litellm model
``openai/<model>``). The answer is its last assistant message; token counts are not exposed by its API
(usage says "unknown"). Open Interpreter runs code **unsandboxed, as the node's user** (that is its purpose):
the kind declares ``executes_code`` (invitations from known peers only by default); run such a node as a
throwaway user or in a container.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import (
    BAD_OUTPUT,
    CRASH,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.lifecycle import Lifetime
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.open_interpreter.process import WorkerLimits, WorkerOutcome, run_worker, worker_argv
from ioa_p2p.adapters.remote import (
    Endpoint,
    clip_text,
    endpoint_from_settings,
    fit_card,
    hide_secrets,
    task_prompt,
    usage_record,
)
from ioa_p2p.errors import AdapterLoadError, AdapterOptionsError

KIND = "open_interpreter"
SAFE_MODES = ("off", "ask", "auto")
#: Where ``setup`` creates the environment, relative to the node home (the ``python`` option's default).
DEFAULT_ENV = "open-interpreter"
DEFAULT_PYTHON = f"{DEFAULT_ENV}/bin/python"


@dataclass(frozen=True, slots=True)
class OpenInterpreterOptions:
    #: the Python of the environment where open-interpreter is installed (relative: to the node home)
    python: str = DEFAULT_PYTHON
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
    start_timeout: float = 120.0  # until the worker has imported Open Interpreter
    max_output_kb: int = 1024  # protocol output read from the worker per task
    max_concurrent: int = 1
    name: str = "Open Interpreter"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text", "code")


def _validate(o: OpenInterpreterOptions) -> None:
    if o.safe_mode not in SAFE_MODES:
        raise AdapterOptionsError(f"adapter 'open_interpreter' option safe_mode must be one of {SAFE_MODES}")
    if not (
        1 <= o.max_steps <= 200
        and o.timeout > 0
        and o.start_timeout > 0
        and 1 <= o.max_concurrent <= 8
        and o.max_output >= 100
        and 1 <= o.max_output_kb <= 65536
    ):
        raise AdapterOptionsError(
            "adapter 'open_interpreter': max_steps must be 1..200, timeout and start_timeout > 0, "
            "max_concurrent 1..8, max_output >= 100, max_output_kb 1..65536"
        )


def missing_environment(python: Path) -> str:
    """What to do when ``python`` is not there."""
    venv = python.parent.parent
    return (
        f"Open Interpreter's Python {python} does not exist; create its environment with "
        f"`python -m ioa_p2p.adapters.open_interpreter.setup {venv}` (a venv with open-interpreter; it "
        "cannot share ioa-p2p's), or set the option python to one"
    )


class OpenInterpreterAdapter:
    """Open Interpreter as this node's adapter (see the module docstring)."""

    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(model=True, home_paths=("python",), executes_code=True)
    OPTIONS: ClassVar[type] = OpenInterpreterOptions

    def __init__(self, options: OpenInterpreterOptions, *, env: Mapping[str, str] | None = None) -> None:
        _validate(options)
        self.options = options
        self.python = Path(options.python).expanduser().absolute()
        if not self.python.exists():
            raise AdapterLoadError(missing_environment(self.python))
        self.endpoint: Endpoint = endpoint_from_settings(options.model, kind=KIND, env=env)
        self._secrets = [self.endpoint.api_key] if self.endpoint.api_key != "unused" else []
        self._slots = trio.CapacityLimiter(options.max_concurrent)
        self._env = {**(env if env is not None else os.environ), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self._life = Lifetime()
        self.version: str | None = None  # Open Interpreter's, once the probe ran

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> OpenInterpreterAdapter:
        return cls(parse_options(OpenInterpreterOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        release = f" {self.version}" if self.version else ""
        description = (
            o.description or f"Open Interpreter{release} on {self.endpoint.model}: writes and runs code."
        )
        return fit_card(
            name=o.name, description=description, skills=o.skills, kind=KIND, task_types=o.task_types
        )

    def _limits(self, timeout: float) -> WorkerLimits:
        o = self.options
        size = o.max_output_kb * 1024
        return WorkerLimits(
            timeout=timeout, start_timeout=o.start_timeout, max_output_bytes=size, max_line_bytes=size
        )

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Check the environment once (the worker's probe) before the card is final; a typed error when
        Open Interpreter cannot run there."""
        with self._life.running():
            outcome = await run_worker(
                worker_argv(str(self.python), probe=True),
                None,
                self._limits(self.options.start_timeout),
                env=self._env,
            )
            if outcome.version is None:
                raise AdapterLoadError(f"adapter 'open_interpreter': {self._why(outcome)}")
            self.version = outcome.version
            await self._life.ready_until_closed(task_status)

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = time.monotonic()
        request = {
            "prompt": task_prompt(task),
            "model": {
                "model": f"openai/{self.endpoint.model}",
                "api_base": self.endpoint.base_url,
                "api_key": self.endpoint.api_key,
                "temperature": self.endpoint.temperature,
            },
            "settings": self._settings(),
            "max_steps": self.options.max_steps,
        }

        async def on_code(n: int, language: str) -> None:
            await ctx.progress(f"step {n}: running {language}")

        async with self._slots:
            outcome = await run_worker(
                worker_argv(str(self.python)),
                request,
                self._limits(self.options.timeout),
                on_code=on_code,
                env=self._env,
            )
        result = self._result(outcome)
        usage = usage_record(
            wall_ms=int((time.monotonic() - started) * 1000),
            model=self.endpoint.model_id,
            tool_calls=outcome.code_runs,
        )
        data = {
            **result.data,
            "open_interpreter": {"code_runs": outcome.code_runs, "version": outcome.version},
            "usage": usage,
        }
        return TaskResult(result.ok, result.text, data, result.files, result.failure)

    def _settings(self) -> dict[str, Any]:
        o = self.options
        return {
            "loop": o.loop,
            "max_output": o.max_output,
            "safe_mode": o.safe_mode,
            "custom_instructions": o.instructions,
            "context_window": o.context_window,
            "max_tokens": o.max_tokens,
            "supports_functions": o.function_calling,
        }

    def _result(self, outcome: WorkerOutcome) -> TaskResult:
        if outcome.timed_out:
            return TaskResult.failed(
                TIMEOUT, f"Open Interpreter did not finish within {self.options.timeout:g} s"
            )
        if outcome.answer is not None:
            text = hide_secrets(outcome.answer, self._secrets)
            if outcome.over_budget:
                reason = f"Open Interpreter ran more than max_steps = {self.options.max_steps} code blocks"
                return TaskResult.failed(TASK_ERROR, clip_text(f"{reason}; its last words: {text}"))
            return TaskResult.success(clip_text(text or "(Open Interpreter answered nothing)"))
        if outcome.problem.startswith("the worker wrote"):
            return TaskResult.failed(
                BAD_OUTPUT, f"Open Interpreter's worker broke the protocol: {outcome.problem}"
            )
        return TaskResult.failed(CRASH, f"Open Interpreter failed: {self._why(outcome)}")

    def _why(self, outcome: WorkerOutcome) -> str:
        """What went wrong, in the worker's words where it said any (secrets hidden, bounded)."""
        if outcome.error is not None:
            kind, message = outcome.error
            said = f"{kind}: {message}"
            if kind == "ImportError":
                said += f" (in {self.python}: install open-interpreter there, see docs/adapters.md)"
        else:
            said = outcome.problem
        tail = outcome.stderr_tail()
        if tail and outcome.error is None:
            said += f"; its stderr ends with: {tail[-1500:]}"
        return hide_secrets(said, self._secrets)[:4000]

    async def aclose(self) -> None:
        await self._life.close()


__all__ = [
    "DEFAULT_ENV",
    "DEFAULT_PYTHON",
    "OpenInterpreterAdapter",
    "OpenInterpreterOptions",
    "missing_environment",
]
