"""Driving the Open Interpreter worker process (``worker.py``) over its JSON-lines protocol, within limits.

:func:`run_worker` starts the worker in its own session (process group) with the environment's Python,
writes the request, reads its events and returns a :class:`WorkerOutcome`. Every wait is bounded:
``start_timeout`` until the worker's ``ready`` line (importing Open Interpreter takes seconds), ``timeout``
for the whole task (and the caller's cancel scope: the task deadline, the chat ending, the node stopping).
What it reads is bounded too: at most ``max_output_bytes`` of protocol lines in total and ``max_line_bytes``
per line (a worker that sends more is stopped: ``bad_output``), the last 4 KiB of its stderr. However it
ends, the worker is stopped: SIGTERM (it terminates its code runners), then SIGKILL to its process group
after :data:`GRACE` seconds, and reaped; no process is left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

WORKER = Path(__file__).with_name("worker.py")
PROTOCOL_VERSION = 1
#: Seconds between SIGTERM and SIGKILL when the worker is stopped.
GRACE = 3.0
STDERR_TAIL = 4096
_READ = 65536


@dataclass(frozen=True, slots=True)
class WorkerLimits:
    timeout: float  #: the whole task, seconds
    start_timeout: float  #: until the worker's ready line, seconds
    max_output_bytes: int  #: protocol bytes read from the worker, in total
    max_line_bytes: int  #: one protocol line


@dataclass(slots=True)
class WorkerOutcome:
    """How one worker run ended (exactly one of ``answer``, ``error``, ``problem`` is set, or
    ``timed_out``)."""

    version: str | None = None
    code_runs: int = 0
    answer: str | None = None
    over_budget: bool = False
    error: tuple[str, str] | None = None  #: (type, message) the worker reported
    problem: str = ""  #: what went wrong on our side of the protocol (no ready line, bad output, exit)
    timed_out: bool = False
    stderr: bytearray = field(default_factory=bytearray)

    def stderr_tail(self) -> str:
        return self.stderr[-STDERR_TAIL:].decode("utf-8", "replace").strip()


OnCode = Callable[[int, str], Awaitable[None]]


def worker_argv(python: str, *, probe: bool = False) -> list[str]:
    """The worker's command line: ``python -I worker.py`` (isolated: no user site, no PYTHONPATH)."""
    return [python, "-I", str(WORKER), *(["--probe"] if probe else [])]


async def run_worker(
    argv: Sequence[str],
    request: dict[str, Any] | None,
    limits: WorkerLimits,
    *,
    on_code: OnCode | None = None,
    env: dict[str, str] | None = None,
) -> WorkerOutcome:
    """Run the worker once (``request`` None: a probe that only waits for the ready line)."""
    outcome = WorkerOutcome()
    try:
        process = await trio.lowlevel.open_process(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
    except OSError as exc:
        outcome.problem = f"cannot start {argv[0]}: {exc.strerror or exc}"
        return outcome
    drained = trio.Event()
    try:
        async with trio.open_nursery() as nursery:
            assert process.stderr is not None
            nursery.start_soon(_drain, process.stderr, outcome.stderr, drained)
            await _talk(process, request, limits, outcome, on_code)
            with trio.CancelScope(shield=True):
                await stop_worker(process, close=False)
                with trio.move_on_after(1.0):  # the last words of a worker that failed
                    await drained.wait()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await stop_worker(process)
    settled = outcome.problem or outcome.answer is not None or outcome.error or outcome.timed_out
    if not settled and (request is not None or outcome.version is None):
        outcome.problem = f"the worker exited with code {process.returncode} without an answer"
    return outcome


async def _talk(
    process: trio.Process,
    request: dict[str, Any] | None,
    limits: WorkerLimits,
    outcome: WorkerOutcome,
    on_code: OnCode | None,
) -> None:
    assert process.stdin is not None and process.stdout is not None
    lines = _Lines(process.stdout, limits)
    with trio.move_on_after(limits.timeout) as whole:
        with trio.move_on_after(limits.start_timeout):
            first = await lines.next()
            if first is None:
                return _ended(outcome, lines)
            _apply(first, outcome)
        if outcome.version is None:
            if not outcome.error:
                outcome.problem = f"the worker did not say it was ready within {limits.start_timeout:g} s"
            return None
        if request is None:
            return None
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError):  # a worker that died: read why
            await process.stdin.send_all(json.dumps({"v": PROTOCOL_VERSION, **request}).encode() + b"\n")
            await process.stdin.aclose()
        while outcome.answer is None and outcome.error is None:
            event = await lines.next()
            if event is None:
                return _ended(outcome, lines)
            code = _apply(event, outcome)
            if code is not None and on_code is not None:
                await on_code(*code)
    if whole.cancelled_caught:
        outcome.timed_out = True
    return None


def _ended(outcome: WorkerOutcome, lines: _Lines) -> None:
    if lines.problem:
        outcome.problem = lines.problem


def _apply(event: dict[str, Any], outcome: WorkerOutcome) -> tuple[int, str] | None:
    """Fold one event into ``outcome``; a code event returns (n, format). Unknown events are ignored."""
    kind = event.get("event")
    if kind == "ready":
        outcome.version = str(event.get("version") or "unknown")[:64]
    elif kind == "code":
        outcome.code_runs += 1
        return outcome.code_runs, str(event.get("format") or "code")[:32]
    elif kind == "answer":
        outcome.answer = str(event.get("text") or "")
        outcome.over_budget = bool(event.get("over_budget"))
        runs = event.get("code_runs")
        if isinstance(runs, int) and not isinstance(runs, bool) and 0 <= runs < 2**31:
            outcome.code_runs = max(outcome.code_runs, runs)
    elif kind == "error":
        outcome.error = (str(event.get("type") or "Error")[:64], str(event.get("message") or "")[:4000])
    return None


class _Lines:
    """Protocol lines from the worker's stdout: JSON objects, bounded per line and in total."""

    def __init__(self, stream: trio.abc.ReceiveStream, limits: WorkerLimits) -> None:
        self.stream = stream
        self.limits = limits
        self.buffer = bytearray()
        self.read = 0
        self.problem = ""

    async def next(self) -> dict[str, Any] | None:
        """The next event; None at the end of the stream or on a problem (:attr:`problem` says which)."""
        while True:
            cut = self.buffer.find(b"\n")
            if cut >= 0:
                line = bytes(self.buffer[:cut])
                del self.buffer[: cut + 1]
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    event = None
                if not isinstance(event, dict):
                    self.problem = "the worker wrote a line that is no protocol event"
                    return None
                return event
            if len(self.buffer) > self.limits.max_line_bytes:
                self.problem = f"the worker wrote a line over {self.limits.max_line_bytes} bytes"
                return None
            chunk = await self.stream.receive_some(_READ)
            if not chunk:
                return None
            self.read += len(chunk)
            if self.read > self.limits.max_output_bytes:
                self.problem = f"the worker wrote more than {self.limits.max_output_bytes} bytes"
                return None
            self.buffer += chunk


async def _drain(stream: trio.abc.ReceiveStream, tail: bytearray, drained: trio.Event) -> None:
    """Read the worker's stderr to its end, keeping the last :data:`STDERR_TAIL` bytes."""
    with suppress(trio.ClosedResourceError, trio.BrokenResourceError):
        while chunk := await stream.receive_some(_READ):
            tail += chunk
            del tail[:-STDERR_TAIL]
    drained.set()


async def stop_worker(process: trio.Process, *, close: bool = True) -> None:
    """SIGTERM, then SIGKILL the process group after :data:`GRACE` s; reap (bounded); close its pipes
    (``close``). Safe to call again."""
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
        with trio.move_on_after(GRACE):
            await process.wait()
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # its code runners too (start_new_session: pgid = pid)
    with trio.move_on_after(5.0):
        await process.wait()
        for _ in range(250):  # SIGKILL takes effect when a member next runs: wait for them (polled)
            if not group_alive(process.pid):
                break
            await trio.sleep(0.02)
    for stream in (process.stdin, process.stdout, process.stderr) if close else ():
        if stream is not None:
            with suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                await stream.aclose()


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies waiting for their parent do not count)."""
    proc = Path("/proc")
    if not proc.is_dir():  # no procfs: ask the kernel (a zombie member counts as alive here)
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


__all__ = [
    "GRACE",
    "PROTOCOL_VERSION",
    "WORKER",
    "WorkerLimits",
    "WorkerOutcome",
    "group_alive",
    "run_worker",
    "stop_worker",
    "worker_argv",
]
