"""The sandbox: the wrapper script run inside the subprocess, its configuration, namespace detection."""

from __future__ import annotations

import math
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.adapters.python.options import PythonOptions
from ioa_p2p.config.node_config import ioa_home

SANDBOX_SETUP_FAILED = 97  # exit code of the sandbox wrapper when it cannot set itself up


async def namespaces_work() -> bool:
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


def hidden_paths(o: PythonOptions) -> list[str]:
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


def sandbox_config(o: PythonOptions, isolation: str, run_dir: Path) -> dict[str, Any]:
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
        "hide_paths": hidden_paths(o) if isolation == "namespace" else [],
        "code": str(run_dir / "task.py"),
        "work": str(run_dir / "work"),
    }


def describe_sandbox(o: PythonOptions, isolation: str) -> str:
    net = "network allowed" if o.network else f"no network ({isolation})"
    return f"{o.timeout:g} s, {o.memory_mb} MB, {net}"


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
