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

import ast
import contextlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import (
    MAX_FILES,
    MAX_FILES_BYTES,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.base import check_file_name as _check_file_name
from ioa_p2p.config.node_config import ioa_home
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

KIND = "python"
ISOLATIONS = ("auto", "namespace", "audit-hook")
SANDBOX_SETUP_FAILED = 97  # exit code of the sandbox wrapper when it cannot set itself up


_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(text: str, *, max_chars: int = 100_000) -> str:
    """The Python code of a task (see the module docstring); raises TaskRejected if there is none."""
    if len(text) > max_chars * 2:
        raise TaskRejected(f"the task is longer than {max_chars * 2} characters")
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    tagged = [body for tag, body in blocks if tag in ("python", "python3", "py")]
    candidates = tagged[:1] or [body for tag, body in blocks if not tag and _compiles(body)][:1]
    if not candidates and not blocks and _looks_like_code(text):
        candidates = [text]
    if not candidates:
        raise TaskRejected("no Python code found: put the code in a fenced block (```python ... ```)")
    code = candidates[0]
    if len(code) > max_chars:
        raise TaskRejected(f"the code is longer than {max_chars} characters")
    if not code.strip():
        raise TaskRejected("the Python code block is empty")
    return code


def _compiles(code: str) -> bool:
    try:
        compile(code, "<task>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    return True


def _looks_like_code(text: str) -> bool:
    """Compiles as Python and is more than a bare name or constant ("hello" compiles too)."""
    try:
        tree = compile(text, "<task>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    body = getattr(tree, "body", [])
    trivial = (ast.Name, ast.Constant)
    return bool(body) and not (
        len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, trivial)
    )


@dataclass(frozen=True, slots=True)
class PythonOptions:
    timeout: float = 10.0
    memory_mb: int = 512
    max_file_mb: int = 16
    network: bool = False
    isolation: str = "auto"
    allow_subprocess: bool = False
    hide_paths: tuple[str, ...] | None = None  # None: the node home
    max_output: int = 16_000
    max_files: int = MAX_FILES
    max_files_kb: int = MAX_FILES_BYTES // 1024
    max_code_chars: int = 100_000
    max_concurrent: int = 2
    python: str = ""  # default: the interpreter running the node
    scratch_root: str = ""  # default: the system temporary directory
    name: str = "python-runner"
    skills: tuple[str, ...] = field(
        default=("python", "run code", "data processing", "computation", "simulation")
    )


class PythonAdapter:
    """Runs the task's Python code in a subprocess with time, memory and network limits."""

    #: It runs code it is given: its node accepts chat invitations from known peers only by default
    #: (``[chats] invite_policy``, see ioa_p2p.adapters.registry.adapter_executes_code).
    EXECUTES_CODE: ClassVar[bool] = True

    def __init__(self, options: PythonOptions | None = None) -> None:
        self.options = options = options or PythonOptions()
        _validate(options)
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
        )

    async def aclose(self) -> None:
        return None

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        code = extract_code(task.text, max_chars=self.options.max_code_chars)
        async with self._limiter:
            isolation = await self._isolation()
            await ctx.progress(f"running Python ({_describe_sandbox(self.options, isolation)})")
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
            self._namespace_ok = await _namespaces_work()
        if self._namespace_ok:
            return "namespace"
        if wanted == "namespace":
            raise TaskRejected(
                "this node is configured with isolation = 'namespace' but unprivileged user "
                "namespaces do not work here (unshare -rn failed); use 'auto' or fix the host"
            )
        return "audit-hook"

    async def _run_in(self, run_dir: Path, code: str, isolation: str) -> _Outcome:
        o = self.options
        work, tmp = run_dir / "work", run_dir / "tmp"
        work.mkdir()
        tmp.mkdir()
        (run_dir / "task.py").write_text(code, encoding="utf-8")
        (run_dir / "sandbox.py").write_text(SANDBOX_SOURCE, encoding="utf-8")
        (run_dir / "config.json").write_text(json.dumps(_sandbox_config(o, isolation, run_dir)))
        command = [self._python, "-I", "-X", "utf8", str(run_dir / "sandbox.py"), str(run_dir)]
        if isolation == "namespace":
            unshare = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child"]
            if not o.network:
                unshare.append("--net")
            if _hidden_paths(o):
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
        return await _run_process(command, work, env, o)


@dataclass(slots=True)
class _Outcome:
    returncode: int | None = None
    timed_out: bool = False
    duration: float = 0.0
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    stdout_total: int = 0
    stderr_total: int = 0


async def _run_process(command: list[str], cwd: Path, env: dict[str, str], o: PythonOptions) -> _Outcome:
    out = _Outcome()
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


async def _drain(stream: Any, out: _Outcome, which: str, limit: int) -> None:
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


async def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--net"]
    probe += ["--mount", "true"]
    try:
        with trio.move_on_after(5):
            result = await trio.run_process(probe, check=False, capture_stderr=True)
            return result.returncode == 0
    except OSError:
        return False
    return False


def _hidden_paths(o: PythonOptions) -> list[str]:
    paths = o.hide_paths if o.hide_paths is not None else (str(ioa_home()),)
    python = Path(o.python or sys.executable).resolve()
    out = []
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        # never hide the interpreter or the scratch area: the run would fail
        if not path.is_dir() or python.is_relative_to(path):
            continue
        scratch = Path(o.scratch_root or tempfile.gettempdir()).resolve()
        if scratch.is_relative_to(path):
            continue
        out.append(str(path))
    return out


def _sandbox_config(o: PythonOptions, isolation: str, run_dir: Path) -> dict[str, Any]:
    cpu = math.ceil(o.timeout) + 1
    return {
        "rlimits": {
            "RLIMIT_AS": o.memory_mb * 1024 * 1024,
            "RLIMIT_CPU": cpu,
            "RLIMIT_FSIZE": o.max_file_mb * 1024 * 1024,
            "RLIMIT_CORE": 0,
        },
        "block_network": not o.network,
        "block_subprocess": not o.allow_subprocess,
        "block_native_calls": isolation != "namespace" and not (o.network and o.allow_subprocess),
        "hide_paths": _hidden_paths(o) if isolation == "namespace" else [],
        "code": str(run_dir / "task.py"),
        "work": str(run_dir / "work"),
    }


def _describe_sandbox(o: PythonOptions, isolation: str) -> str:
    net = "network allowed" if o.network else f"no network ({isolation})"
    return f"{o.timeout:g} s, {o.memory_mb} MB, {net}"


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
    out: _Outcome, files: dict[str, bytes], skipped: list[str], o: PythonOptions, isolation: str
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


def _failure_reason(out: _Outcome, stderr: str, o: PythonOptions) -> str:
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


def _validate(o: PythonOptions) -> None:
    if o.isolation not in ISOLATIONS:
        raise AdapterOptionsError(f"python option isolation must be one of {ISOLATIONS}")
    positive = {
        "timeout": o.timeout,
        "memory_mb": o.memory_mb,
        "max_file_mb": o.max_file_mb,
        "max_output": o.max_output,
        "max_code_chars": o.max_code_chars,
        "max_concurrent": o.max_concurrent,
    }
    for name, value in positive.items():
        if value <= 0:
            raise AdapterOptionsError(f"python option {name} must be positive, not {value}")
    if o.memory_mb < 64:
        raise AdapterOptionsError("python option memory_mb must be at least 64 (Python needs it)")
    if not 0 <= o.max_files <= MAX_FILES or not 0 <= o.max_files_kb * 1024 <= MAX_FILES_BYTES:
        raise AdapterOptionsError(
            f"python options max_files <= {MAX_FILES} and max_files_kb <= {MAX_FILES_BYTES // 1024}"
        )
    if o.python and shutil.which(o.python) is None:
        raise AdapterOptionsError(f"python option python: {o.python!r} is not an executable")


# The wrapper that runs inside the subprocess (standard library only; it never imports ioa_p2p).
SANDBOX_SOURCE = textwrap.dedent(
    '''
    """ioa-p2p python adapter sandbox: set limits, hide paths, install audit hooks, run task.py."""
    import ctypes, json, linecache, os, resource, sys, traceback

    SETUP_FAILED = @SETUP_FAILED@
    NET_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
                  "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
                  "socket.getnameinfo"}
    PROC_EVENTS = {"os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.system",
                   "os.spawn", "subprocess.Popen", "pty.spawn"}
    NATIVE_DENY = {"connect", "bind", "sendto", "sendmsg", "socket", "getaddrinfo", "fork",
                   "vfork", "clone", "clone3", "execve", "execv", "execvp", "execl", "system",
                   "syscall", "posix_spawn", "posix_spawnp", "unshare", "setns", "mount",
                   "popen", "dlopen", "dlsym", "setrlimit", "prlimit", "prlimit64"}


    def fail(message):
        sys.stderr.write("ioa-sandbox: " + message + "\\n")
        os._exit(SETUP_FAILED)


    def hide(paths):
        libc = ctypes.CDLL(None, use_errno=True)
        for path in paths:
            if libc.mount(b"none", path.encode(), b"tmpfs", 1, b"size=4k,mode=0") != 0:
                fail("cannot hide " + path + ": errno " + str(ctypes.get_errno()))


    def stay_init_and_fork():
        # PID 1 of a new PID namespace ignores default-action signals: run the task in a child.
        child = os.fork()
        if child == 0:
            return
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == child:
                code = os.waitstatus_to_exitcode(status)
                os._exit(code if code >= 0 else 128 - code)


    def audit_hook(cfg):
        deny = set()
        if cfg["block_network"]:
            deny |= NET_EVENTS
        if cfg["block_subprocess"]:
            deny |= PROC_EVENTS
        native = cfg["block_native_calls"]

        def hook(event, args):
            if event in deny:
                what = "network access" if event in NET_EVENTS else "starting processes"
                raise PermissionError(what + " is disabled for this task (" + event + ")")
            if native and event == "ctypes.dlsym" and args and args[-1] in NATIVE_DENY:
                raise PermissionError("native call " + str(args[-1]) + " is disabled here")

        sys.addaudithook(hook)


    def main():
        run_dir = sys.argv[1]
        with open(os.path.join(run_dir, "config.json")) as f:
            cfg = json.load(f)
        try:
            if cfg["hide_paths"]:
                hide(cfg["hide_paths"])
            if os.getpid() == 1:
                stay_init_and_fork()
            for name, value in cfg["rlimits"].items():
                resource.setrlimit(getattr(resource, name), (value, value))
            os.chdir(cfg["work"])
            with open(cfg["code"], encoding="utf-8") as f:
                source = f.read()
        except OSError as exc:
            fail("setup failed: " + str(exc))
        sys.argv = ["task.py"]
        sys.path.insert(0, cfg["work"])
        linecache.cache["task.py"] = (len(source), None, source.splitlines(True), "task.py")
        audit_hook(cfg)
        try:
            code = compile(source, "task.py", "exec")
            exec(code, {"__name__": "__main__", "__file__": "task.py", "__builtins__": __builtins__})
        except SystemExit:
            raise
        except BaseException as exc:  # show the task's own frames only, then exit 1
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "task.py"]
            if frames:
                sys.stderr.write("Traceback (most recent call last):\\n")
                sys.stderr.write("".join(traceback.format_list(frames)))
            sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)


    main()
    '''
).replace("@SETUP_FAILED@", str(SANDBOX_SETUP_FAILED))


__all__ = ["PythonAdapter", "PythonOptions", "extract_code"]
