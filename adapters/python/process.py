"""Running the sandboxed subprocess: bounded output capture, deadline, killing the process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.adapters.python.options import PythonOptions


@dataclass(slots=True)
class Outcome:
    returncode: int | None = None
    timed_out: bool = False
    duration: float = 0.0
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    stdout_total: int = 0
    stderr_total: int = 0


async def run_process(command: list[str], cwd: Path, env: dict[str, str], o: PythonOptions) -> Outcome:
    out = Outcome()
    started = trio.current_time()
    proc = await trio.lowlevel.open_process(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(cwd),
        env=env,
        start_new_session=True,
    )
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_drain, proc.stdout, out, "stdout", o.max_output)
            nursery.start_soon(_drain, proc.stderr, out, "stderr", o.max_output)
            with trio.move_on_after(o.timeout) as scope:
                await proc.wait()
            out.timed_out = scope.cancelled_caught
            # Leftover children may hold the pipes open: kill them, then drain for at most 1 s.
            _kill_group(proc)
            nursery.cancel_scope.deadline = trio.current_time() + 1.0
    finally:
        _kill_group(proc)
        with trio.CancelScope(shield=True), trio.move_on_after(5):
            await proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                with trio.CancelScope(shield=True):
                    await stream.aclose()
    out.returncode = proc.returncode
    out.duration = trio.current_time() - started
    return out


async def _drain(stream: Any, out: Outcome, which: str, limit: int) -> None:
    """Read a pipe to EOF; keep the first ``limit`` bytes of stdout, the last of stderr."""
    buffer: bytearray = getattr(out, which)
    while True:
        chunk = await stream.receive_some(65536)
        if not chunk:
            return
        setattr(out, f"{which}_total", getattr(out, f"{which}_total") + len(chunk))
        if which == "stdout":
            buffer += chunk[: max(0, limit - len(buffer))]
        else:
            buffer += chunk
            del buffer[: max(0, len(buffer) - limit)]


def _kill_group(proc: trio.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
