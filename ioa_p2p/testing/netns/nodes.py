"""``ioa`` node processes inside network namespaces, driven the way a user drives them.

::

    listen = ("--listen", "/ip4/0.0.0.0/tcp/4001")
    boot = NsNode(lab, relay_host, root / "boot", command="bootstrap", args=listen)
    calc = NsNode(lab, laptop, root / "calc", config={"agent": {"adapter": "calculator"}},
                  args=(*listen, "--bootstrap", boot.addr()))
    start_all([boot]); start_all([calc])     # spawn, then wait for each to be ready
    calc.call("GET", "/peers")                # control API on the namespace's 127.0.0.1 (a setns thread)
    calc.ioa("send", str(boot.peer_id), "hi") # the real CLI, run inside the namespace
    calc.kill(); calc.start()                 # a crash and a restart (same home, identity, port)

Each node has its own ``IOA_HOME`` (key created up front, so its peer ID and the full multiaddr others
bootstrap from are known before it starts; ``config.toml`` written from ``config``) and runs as
``ip netns exec <ns> python -m ioa_p2p <command> start ...`` in its own session, output appended to
``<home>.log``. ``IOA_PARENT_PID`` makes it exit on its own if the test process dies. These are plain
blocking calls: a module-scoped topology outlives any one test's trio run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, TypeVar

import tomli_w

from ioa_p2p.config.node_config import CONFIG_FILE_NAME, NODE_INFO_FILE_NAME, TOKEN_FILE_NAME
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import IoATimeout, NodeProcessError
from ioa_p2p.identity import PeerId, create_key_file, load_key_file
from ioa_p2p.testing.netns.lab import Lab, in_netns
from ioa_p2p.testing.netns.topology import Host

#: The port every node listens on (``--listen /ip4/0.0.0.0/tcp/4001``, as the README's join command).
PORT = 4001
START_TIMEOUT = 90.0
STOP_TIMEOUT = 10.0
CONTROL_TIMEOUT = 30.0
POLL = 0.1

T = TypeVar("T")


class NsNode:
    """One ``ioa node start`` (or ``ioa bootstrap start``) process on a lab host."""

    def __init__(
        self,
        lab: Lab,
        host: Host,
        home: Path,
        *,
        name: str | None = None,
        command: Literal["node", "bootstrap"] = "node",
        args: Sequence[str] = (),
        config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        global_args: Sequence[str] = (),
    ) -> None:
        self.lab = lab
        self.host = host
        self.home = home
        self.name = name or host.name
        self.command = command
        self.args = tuple(args)
        #: ``ioa`` options before the command, e.g. ``("-vv",)`` for debug logs in ``<home>.log``.
        self.global_args = tuple(global_args)
        self.env = dict(env if env is not None else os.environ)
        self.log_path = home.parent / f"{home.name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        #: ``time.monotonic()`` when the current process was spawned.
        self.started_at = 0.0
        self._log_offset = 0
        home.mkdir(parents=True, exist_ok=True)
        home.chmod(0o700)
        key = home / "node.key"
        identity = load_key_file(key) if key.exists() else create_key_file(key)
        self.peer_id: PeerId = identity.peer_id
        (home / CONFIG_FILE_NAME).write_text(tomli_w.dumps(dict(config or {})), encoding="utf-8")

    # ------------------------------------------------------------------ addresses

    def addr(self, port: int = PORT) -> str:
        """The multiaddr others dial: this host's address, ``port``, ``/p2p/<peer id>``."""
        return f"/ip4/{self.host.ip}/tcp/{port}/p2p/{self.peer_id}"

    # ------------------------------------------------------------------ process

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def spawn(self, extra: Sequence[str] = ()) -> None:
        """Start the process (not waiting for it): stale ``node.json`` / token of a crash removed first."""
        if self.running:
            raise NodeProcessError(f"node {self.name} already runs (pid {self.pid})")
        for stale in (NODE_INFO_FILE_NAME, TOKEN_FILE_NAME):
            with contextlib.suppress(FileNotFoundError):
                (self.home / stale).unlink()
        argv = [sys.executable, "-m", "ioa_p2p", *self.global_args, self.command, "start", *self.args, *extra]
        env = dict(self.env, IOA_HOME=str(self.home), PYTHONUNBUFFERED="1", IOA_PARENT_PID=str(os.getpid()))
        with open(self.log_path, "ab") as log:
            self._log_offset = log.tell()
            self.process = subprocess.Popen(
                in_netns(self.host.netns, argv),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        self.started_at = time.monotonic()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Until ``node.json`` names this process and the log shows the ``peer id`` line."""
        process = self.process
        if process is None:
            raise NodeProcessError(f"node {self.name} was never started")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise NodeProcessError(
                    f"node {self.name} exited with code {process.returncode} before it was ready; "
                    f"{self.log_path} ends with:\n{self.log_tail()}"
                )
            if _read_info(self.home).get("pid") == process.pid and "\npeer id " in "\n" + self.log_text(
                self._log_offset
            ):
                return
            time.sleep(POLL)
        raise IoATimeout(f"node {self.name} was not ready within {timeout:.0f} s:\n{self.log_tail()}")

    def start(self, extra: Sequence[str] = (), timeout: float = START_TIMEOUT) -> None:
        self.spawn(extra)
        self.wait_ready(timeout)

    def kill(self, sig: int = signal.SIGKILL) -> int | None:
        """Send ``sig`` (SIGKILL: to the whole process group, like a crash) and, for SIGKILL/SIGTERM, reap."""
        if not self.running:
            return self.process.returncode if self.process else None
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if sig == signal.SIGKILL:
                os.killpg(self.process.pid, sig)
            else:
                os.kill(self.process.pid, sig)
        if sig not in (signal.SIGKILL, signal.SIGTERM):
            return None
        try:
            return self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            return self.kill(signal.SIGKILL)

    def stop(self) -> int | None:
        return self.kill(signal.SIGTERM)

    # ------------------------------------------------------------------ talking to it

    def call(self, method: str, path: str, body: Any = None, *, timeout: float = CONTROL_TIMEOUT) -> Any:
        """A control API call, from a thread inside the node's namespace."""
        client = ControlClient(self.home, timeout=timeout)
        return self.lab.threads(self.host.netns).run(client.call, method, path, body)

    def ioa(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        """``ioa --home <home> ARGS`` run inside the node's namespace (the real CLI)."""
        argv = [sys.executable, "-m", "ioa_p2p", "--home", str(self.home), *args]
        env = {k: v for k, v in self.env.items() if not k.startswith("OPENAI_")}
        return subprocess.run(
            in_netns(self.host.netns, argv), capture_output=True, text=True, timeout=timeout, env=env
        )

    def log_text(self, offset: int = 0) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                return log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:]) or "(empty)"

    def __repr__(self) -> str:
        return f"NsNode({self.name!r}, {self.host.ip}, pid={self.pid})"


def start_all(nodes: Sequence[NsNode], timeout: float = START_TIMEOUT) -> None:
    """Spawn every node at once, then wait until each is ready (the first failure is raised)."""
    for node in nodes:
        node.spawn()
    for node in nodes:
        node.wait_ready(max(1.0, timeout - (time.monotonic() - node.started_at)))


def stop_all(nodes: Sequence[NsNode]) -> None:
    """SIGTERM every running node, wait for each (bounded), SIGKILL stragglers' process groups."""
    live = [n for n in nodes if n.running]
    for node in live:
        with contextlib.suppress(ProcessLookupError):
            os.kill(node.pid or 0, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    for node in live:
        assert node.process is not None
        try:
            node.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            node.kill(signal.SIGKILL)


def in_parallel(calls: Sequence[Callable[[], T]]) -> list[T]:
    """Run blocking calls (CLI runs, control calls) at once; results in order, the first error raised."""
    with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
        return [f.result() for f in [pool.submit(c) for c in calls]]


def poll(check: Callable[[], T], limit: float, what: str, interval: float = 0.5) -> T:
    """``check()`` until it returns something truthy (returned); IoATimeout naming ``what`` after ``limit``
    seconds. Another process's state has no event to wait on."""
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise IoATimeout(f"{what}: not within {limit:.0f} s")
        time.sleep(interval)


def _read_info(home: Path) -> dict[str, Any]:
    try:
        info = json.loads((home / NODE_INFO_FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


__all__ = ["PORT", "NsNode", "in_parallel", "poll", "start_all", "stop_all"]
