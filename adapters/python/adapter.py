"""Kind ``python``: run the Python code of a task in a sandboxed subprocess.

The code is the first fenced ```` ```python ```` (or ```` ```py ````) block of the task, else the
first untagged fenced block that compiles, else the whole task when it compiles as Python and is
more than a bare name. It runs as ``python -I -X utf8 sandbox.py`` in a fresh scratch directory
(``HOME`` and the working directory; ``TMPDIR`` is a sibling), with a minimal environment.

What is enforced, and by whom:

============================  ==============================================================
limit                         enforced by
============================  ==============================================================
wall-clock time (``timeout``)  this adapter: the process group / namespace is SIGKILLed
CPU time                      kernel, ``RLIMIT_CPU`` = timeout + 1 s (hard = soft)
memory (``memory_mb``)        kernel, ``RLIMIT_AS`` (hard = soft: the code cannot raise it)
size of each written file     kernel, ``RLIMIT_FSIZE`` (``max_file_mb``)
no network                    kernel when ``unshare`` works (isolation ``namespace``): a new
                              user+network namespace whose only interface is a down loopback;
                              otherwise (``audit-hook``) a Python audit hook refusing socket
                              connect/bind/send/DNS and ``ctypes`` access to libc's socket and
                              process calls: best effort, native extensions can bypass it
no leftover processes         kernel in ``namespace`` mode (a PID namespace: when its init
                              exits every process in it is killed); process-group SIGKILL
                              otherwise
no subprocesses / fork        audit hook (``allow_subprocess = false``): best effort
hidden paths (``hide_paths``)  kernel in ``namespace`` mode: an empty read-only tmpfs is
                              mounted over each (default: the node home ``$IOA_HOME`` or
                              ``~/.ioa``, which holds the node key); not hidden otherwise
output                        this adapter keeps the first ``max_output`` bytes of stdout and
                              the last ``max_output`` bytes of stderr, and drains the rest
returned files                regular files in the scratch directory, no symlinks, at most
                              ``max_files`` files and ``max_files_kb`` KiB in total
============================  ==============================================================

This is not a full filesystem sandbox: the code can read whatever the node's user can read
outside ``hide_paths``. Run nodes as an unprivileged user.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import (
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.base import check_file_name as _check_file_name
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.python.code import extract_code
from ioa_p2p.adapters.python.options import PythonOptions, validate_options
from ioa_p2p.adapters.python.process import Outcome, run_process
from ioa_p2p.adapters.python.sandbox import (
    SANDBOX_SETUP_FAILED,
    SANDBOX_SOURCE,
    describe_sandbox,
    hidden_paths,
    namespaces_work,
    sandbox_config,
)
from ioa_p2p.errors import TaskRejected

KIND = "python"


class PythonAdapter:
    """Runs the task's Python code in a subprocess with time, memory and network limits."""

    OPTIONS: ClassVar[type] = PythonOptions  # what `ioa adapters` lists

    #: It runs code it is given: its node accepts chat invitations from known peers only by default
    #: (``[chats] invite_policy``), and hides the node home (the node key) from that code.
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(hide_home=("hide_paths",), executes_code=True)

    def __init__(self, options: PythonOptions | None = None) -> None:
        self.options = options = options or PythonOptions()
        validate_options(options)
        self._python = options.python or sys.executable
        self._limiter = trio.Semaphore(options.max_concurrent)
        self._namespace_ok: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> PythonAdapter:
        return cls(parse_options(PythonOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        net = "with network" if o.network else "no network"
        return AdapterCard(
            name=o.name,
            description=(
                f"Runs Python code given in a ```python block in a sandboxed subprocess "
                f"({o.timeout:g} s, {o.memory_mb} MB, {net}) and returns its output and files."
            ),
            skills=o.skills,
            kind=KIND,
            task_types=("code",),
            input_types=("text/x-python",),
            output_types=("text/plain", "image/png"),
            tools=("python",),
        )

    async def aclose(self) -> None:
        return None

    def can_do(self, task: Task) -> float:
        """1 when the task holds Python code (a fenced block, or a text that compiles as code), else 0."""
        try:
            extract_code(task.text, max_chars=self.options.max_code_chars)
        except TaskRejected:
            return 0.0
        return 1.0

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        code = extract_code(task.text, max_chars=self.options.max_code_chars)
        async with self._limiter:
            isolation = await self._isolation()
            await ctx.progress(f"running Python ({describe_sandbox(self.options, isolation)})")
            run_dir = Path(tempfile.mkdtemp(prefix="ioa-py-", dir=self.options.scratch_root or None))
            try:
                outcome = await self._run_in(run_dir, code, isolation)
                files, skipped = await trio.to_thread.run_sync(_collect_files, run_dir / "work", self.options)
            finally:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(shutil.rmtree, run_dir, True)
        await ctx.progress("finished", 1.0)
        return _result(outcome, files, skipped, self.options, isolation)

    async def _isolation(self) -> str:
        wanted = self.options.isolation
        if wanted == "audit-hook":
            return wanted
        if self._namespace_ok is None:
            self._namespace_ok = await namespaces_work()
        if self._namespace_ok:
            return "namespace"
        if wanted == "namespace":
            raise TaskRejected(
                "this node is configured with isolation = 'namespace' but unprivileged user "
                "namespaces do not work here (unshare -rn failed); use 'auto' or fix the host"
            )
        return "audit-hook"

    async def _run_in(self, run_dir: Path, code: str, isolation: str) -> Outcome:
        o = self.options
        work, tmp = run_dir / "work", run_dir / "tmp"
        work.mkdir()
        tmp.mkdir()
        (run_dir / "task.py").write_text(code, encoding="utf-8")
        (run_dir / "sandbox.py").write_text(SANDBOX_SOURCE, encoding="utf-8")
        (run_dir / "config.json").write_text(json.dumps(sandbox_config(o, isolation, run_dir)))
        command = [self._python, "-I", "-X", "utf8", str(run_dir / "sandbox.py"), str(run_dir)]
        if isolation == "namespace":
            unshare = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child"]
            if not o.network:
                unshare.append("--net")
            if hidden_paths(o):
                unshare.append("--mount")
            command = [*unshare, "--", *command]
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(work),
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        return await run_process(command, work, env, o)


def _collect_files(work: Path, o: PythonOptions) -> tuple[dict[str, bytes], list[str]]:
    """Regular files written under ``work``, bounded; the rest listed with the reason."""
    files: dict[str, bytes] = {}
    skipped: list[str] = []
    budget = o.max_files_kb * 1024
    for root, dirs, names in os.walk(work, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(root, name)
            rel = path.relative_to(work).as_posix()
            if path.is_symlink() or not path.is_file():
                skipped.append(f"{rel} (not a regular file)")
                continue
            try:
                _check_file_name(rel)
            except Exception:
                skipped.append(f"{rel[:100]} (bad name)")
                continue
            size = path.stat().st_size
            if len(files) >= o.max_files or size > budget:
                skipped.append(f"{rel} ({size} bytes: over the limit)")
                continue
            files[rel] = path.read_bytes()[:budget]
            budget -= len(files[rel])
    return files, skipped[:50]


def _result(
    out: Outcome, files: dict[str, bytes], skipped: list[str], o: PythonOptions, isolation: str
) -> TaskResult:
    stdout = out.stdout.decode("utf-8", "replace")
    stderr = out.stderr.decode("utf-8", "replace")
    data: dict[str, Any] = {
        "exit_code": out.returncode,
        "stdout": stdout,
        "stderr": stderr,
        "stdout_truncated": out.stdout_total > len(out.stdout),
        "stderr_truncated": out.stderr_total > len(out.stderr),
        "duration": round(out.duration, 3),
        "sandbox": {
            "isolation": isolation,
            "network": o.network,
            "timeout": o.timeout,
            "memory_mb": o.memory_mb,
        },
        "files": sorted(files),
        "files_skipped": skipped,
    }
    if out.timed_out:
        reason = f"the code ran longer than {o.timeout:g} s and was killed"
        return TaskResult.failed(TIMEOUT, _with_output(reason, stdout, stderr), data=data, files=files)
    if out.returncode == 0:
        text = stdout if stdout.strip() else "(the code printed nothing)"
        if data["stdout_truncated"]:
            text += f"\n[output cut at {o.max_output} bytes]"
        if files:
            text += "\nfiles: " + ", ".join(sorted(files))
        return TaskResult.success(text, data=data, files=files)
    reason = _failure_reason(out, stderr, o)
    return TaskResult.failed(TASK_ERROR, _with_output(reason, stdout, stderr), data=data, files=files)


def _failure_reason(out: Outcome, stderr: str, o: PythonOptions) -> str:
    code = out.returncode if out.returncode is not None else -1
    if code == SANDBOX_SETUP_FAILED and "ioa-sandbox:" in stderr:
        return "the sandbox could not be set up on this node"
    signum = -code if code < 0 else code - 128 if code > 128 else 0
    if "MemoryError" in stderr or signum == signal.SIGSEGV and "memory" in stderr.lower():
        return f"the code ran out of memory (limit {o.memory_mb} MB)"
    if signum in (signal.SIGXCPU, signal.SIGKILL):
        return f"the code was killed (CPU time limit {math.ceil(o.timeout) + 1} s or memory limit)"
    if signum == signal.SIGXFSZ or "[Errno 27] File too large" in stderr:
        return f"the code wrote a file larger than {o.max_file_mb} MB"
    return f"the code failed (exit code {code})"


def _with_output(reason: str, stdout: str, stderr: str) -> str:
    parts = [reason]
    if stderr.strip():
        parts.append("stderr (end):\n" + stderr[-3000:])
    if stdout.strip():
        parts.append("stdout (start):\n" + stdout[:3000])
    return "\n".join(parts)


__all__ = ["PythonAdapter", "PythonOptions", "extract_code"]
